/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for etcdjson.c and lease.c: etcd's answers as its gateway
 * writes them (taken from etcd 3.4) are read; what is broken or hostile
 * (duplicate members, another key, numbers out of range or of the wrong
 * type, bad base64, a failed txn without the key) is refused; and the
 * lease record reads back only in the exact form it is written.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"

#define KEY	"/pollguard/mail"	/* L3BvbGxndWFyZC9tYWls */
#define HDR	"\"header\":{\"cluster_id\":\"15118495548433857066\"," \
		"\"member_id\":\"13668033151171901709\",\"revision\":\"7\"," \
		"\"raft_term\":\"2\"}"
#define KV(k, lease) "{\"key\":\"" k "\",\"create_revision\":\"4\"," \
		"\"mod_revision\":\"4\",\"version\":\"1\"," \
		"\"value\":\"bm9kZSBiCg==\",\"lease\":\"" lease "\"}"
#define FAILED(kvs) "{" HDR ",\"responses\":[{\"response_range\":{" \
		"\"header\":{\"revision\":\"7\"}," kvs "}}]}"

static int
parse(enum pg_etcd_op op, const char *s, struct pg_etcd_reply *r)
{
	char	 why[PG_WHY_MAX];

	return pg_etcd_parse(op, KEY, s, strlen(s), r, why, sizeof(why));
}

static void
good(void)
{
	struct pg_etcd_reply	 r;
	char			 node[PG_NAME_MAX + 1];

	is_int(parse(PG_ETCD_GRANT, "{" HDR ",\"ID\":\"4111120191353631493\","
	    "\"TTL\":\"10\"}", &r), 0, "grant");
	ok(r.id == 4111120191353631493LL && r.ttl == 10 && r.revision == 7,
	    "grant: ID, TTL, revision");
	is_int(parse(PG_ETCD_TXN, "{" HDR ",\"succeeded\":true,\"responses\":"
	    "[{\"response_put\":{\"header\":{\"revision\":\"7\"}}}]}", &r), 0,
	    "txn that created the key");
	ok(r.succeeded && r.revision == 7 && !r.found, "txn: succeeded at 7");
	is_int(parse(PG_ETCD_TXN, FAILED("\"kvs\":[" KV("L3BvbGxndWFyZC9tYWls",
	    "99") "],\"count\":\"1\""), &r), 0, "txn that found the key");
	ok(!r.succeeded && r.found && r.kv.create_revision == 4 &&
	    r.kv.lease == 99, "txn: the holder's revision and lease");
	is_int(pg_etcd_value(&r.kv, node, sizeof(node)), 0, "value read");
	is_str(node, "b", "value names node b");
	is_int(parse(PG_ETCD_TXN, FAILED("\"count\":\"0\""), &r), 0,
	    "txn on a lease compare: key absent");
	ok(!r.succeeded && !r.found, "txn: no key");
	is_int(parse(PG_ETCD_KEEPALIVE, "{\"result\":{" HDR ",\"ID\":\"5\","
	    "\"TTL\":\"10\"}}", &r), 0, "keepalive");
	ok(r.id == 5 && r.ttl == 10, "keepalive: TTL renewed");
	is_int(parse(PG_ETCD_KEEPALIVE, "{\"result\":{" HDR ",\"ID\":\"5\"}}",
	    &r), 0, "keepalive of a lease gone");
	is_int(r.ttl, 0, "keepalive: TTL 0 means lost");
	is_int(parse(PG_ETCD_TTL, "{" HDR ",\"ID\":\"5\",\"TTL\":\"-1\"}", &r),
	    0, "timetolive of an expired lease");
	is_int(r.ttl, -1, "timetolive: -1");
	is_int(parse(PG_ETCD_RANGE, "{" HDR "}", &r), 0, "range: no key");
	ok(!r.found, "range: none found");
	is_int(parse(PG_ETCD_AUTH, "{" HDR ",\"token\":\"abc.12\"}", &r), 0,
	    "authenticate");
	is_str(r.token, "abc.12", "token");
	is_int(parse(PG_ETCD_AUTH, "{\"error\":\"etcdserver: authentication "
	    "failed, invalid user ID or password\",\"message\":\"etcdserver: "
	    "authentication failed, invalid user ID or password\",\"code\":3}",
	    &r), 0, "an error answer");
	ok(r.error && r.code == 3, "error: code 3");
	like(r.message, "authentication failed", "error: message");
	is_int(parse(PG_ETCD_KEEPALIVE, "{\"error\":{\"grpc_code\":14,"
	    "\"http_code\":503,\"message\":\"etcdserver: no leader\"}}", &r),
	    0, "a stream's error");
	ok(r.error && r.code == 14, "stream error: code 14");
	is_int(parse(PG_ETCD_REVOKE, "{" HDR "}", &r), 0, "revoke");
}

static void
bad(void)
{
	static const struct {
		enum pg_etcd_op	 op;
		const char	*json;
		const char	*what;
	} t[] = {
		{ PG_ETCD_GRANT, "", "empty" },
		{ PG_ETCD_GRANT, "[]", "not an object" },
		{ PG_ETCD_GRANT, "{\"ID\":\"5\",\"ID\":\"6\",\"TTL\":\"1\"}",
		  "duplicate member" },
		{ PG_ETCD_GRANT, "{\"ID\":\"5\"}", "grant without TTL" },
		{ PG_ETCD_GRANT, "{\"ID\":\"-5\",\"TTL\":\"1\"}", "negative ID" },
		{ PG_ETCD_GRANT, "{\"ID\":\"5x\",\"TTL\":\"1\"}", "ID not digits" },
		{ PG_ETCD_GRANT, "{\"ID\":\"99999999999999999999\",\"TTL\":\"1\"}",
		  "ID above int64" },
		{ PG_ETCD_GRANT, "{\"ID\":5.5,\"TTL\":\"1\"}", "ID a real" },
		{ PG_ETCD_GRANT, "{\"ID\":\"5\",\"TTL\":\"1\"} x", "trailing text" },
		{ PG_ETCD_GRANT, "{\"header\":[],\"ID\":\"5\",\"TTL\":\"1\"}",
		  "header not an object" },
		{ PG_ETCD_TXN, "{\"succeeded\":\"yes\"}", "succeeded a string" },
		{ PG_ETCD_TXN, "{\"succeeded\":true}", "no revision" },
		{ PG_ETCD_TXN, "{" HDR "}", "failed without a range" },
		{ PG_ETCD_TXN, FAILED("\"kvs\":[" KV("L290aGVyL2tleQ==", "9")
		  "],\"count\":\"1\""), "another key" },
		{ PG_ETCD_TXN, FAILED("\"kvs\":[" KV("L3BvbGxndWFyZC9tYWls!",
		  "9") "],\"count\":\"1\""), "key not base64" },
		{ PG_ETCD_TXN, FAILED("\"kvs\":[" KV("L3BvbGxndWFyZC9tYWls", "9")
		  "," KV("L3BvbGxndWFyZC9tYWls", "9") "],\"count\":\"2\""),
		  "two keys" },
		{ PG_ETCD_TXN, FAILED("\"count\":\"1\""), "counted, absent" },
		{ PG_ETCD_RANGE, "{\"kvs\":[{\"key\":\"L3BvbGxndWFyZC9tYWls\"}],"
		  "\"count\":\"1\"}", "no create_revision" },
		{ PG_ETCD_KEEPALIVE, "{" HDR ",\"ID\":\"5\",\"TTL\":\"10\"}",
		  "keepalive without result" },
		{ PG_ETCD_AUTH, "{\"token\":\"a b\"}", "token with a blank" },
		{ PG_ETCD_AUTH, "{\"token\":\"a\\u0000b\"}", "token with a NUL" },
		{ PG_ETCD_AUTH, "{}", "no token" },
	};
	struct pg_etcd_reply	 r;
	size_t			 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		errno = 0;
		is_int(parse(t[i].op, t[i].json, &r), -1, "refused: %s",
		    t[i].what);
	}
}

static void
base64(void)
{
	char	 out[16];

	is_int(pg_base64_decode("bm9kZSBiCg==", 12, out, sizeof(out)), 7,
	    "base64: 7 bytes");
	ok(memcmp(out, "node b\n", 7) == 0, "base64: decoded");
	is_int(pg_base64_decode("bm9kZSBiCh==", 12, out, sizeof(out)), -1,
	    "base64: non-zero padding bits refused");
	is_int(pg_base64_decode("bm9k=SBi", 8, out, sizeof(out)), -1,
	    "base64: '=' inside refused");
	is_int(pg_base64_decode("bm9", 3, out, sizeof(out)), -1,
	    "base64: length not a multiple of 4");
	is_int(pg_base64_decode("bm9kZSBiCg==", 12, out, 6), -1,
	    "base64: too long for the buffer");
}

static void
lease(void)
{
	struct pg_lease	 l = { 4111120191353631493LL, 42, 10 }, back;
	char		 buf[PG_LEASE_MAX];
	int		 n;

	n = pg_lease_format(&l, buf, sizeof(buf));
	ok(n > 0, "lease: formatted");
	is_int(pg_lease_parse(buf, n, &back), 0, "lease: parses back");
	ok(back.id == l.id && back.revision == 42 && back.ttl_s == 10,
	    "lease: the same");
	buf[n - 2] = '0' + 1;	/* "ttl 11": still well formed */
	is_int(pg_lease_parse(buf, n, &back), 0, "lease: ttl 11");
	is_int(pg_lease_parse(buf, n - 1, &back), -1, "lease: no final LF");
	is_int(pg_lease_parse("pollguard-lease 1\nlease 1\nrevision 0\nttl 1\n",
	    43, &back), -1, "lease: revision 0");
	is_int(pg_lease_parse("pollguard-lease 1\nlease 01\nrevision 1\nttl 1"
	    "\n", 44, &back), -1, "lease: leading zero");
	is_int(pg_lease_parse("pollguard-lease 2\nlease 1\nrevision 1\nttl 1\n",
	    43, &back), -1, "lease: version 2");
}

int
main(void)
{
	good();
	bad();
	base64();
	lease();
	return done_testing();
}
