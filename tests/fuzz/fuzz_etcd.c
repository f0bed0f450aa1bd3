/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: pg_etcd_parse, the reader of etcd's answers (lib/etcdjson.c).
 * The first byte picks the request the answer is to (grant, keepalive,
 * txn, ...), the rest is the answer, an exact-size copy. What it accepts
 * must keep the promises of pollguard.h: numbers in range, a kv only of
 * the key asked for, strings terminated, a token printable; what it
 * refuses must be EBADMSG with nothing left in the reply. The same input
 * is read as a lease record (pg_lease_parse: what it accepts formats
 * back to the same bytes) and as base64 (no more than 3/4 of its length).
 */
#include <errno.h>
#include <limits.h>

#include "pollguard.h"
#include "fuzz.h"

#define KEY	"/pollguard/mail"

static int
zeroed(const struct pg_etcd_reply *r)
{
	const unsigned char	*p = (const unsigned char *)r;
	size_t			 i;

	for (i = 0; i < sizeof(*r); i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

static void
lease(const char *buf, size_t size)
{
	struct pg_lease	 l;
	char		 out[PG_LEASE_MAX];
	int		 n;

	if (pg_lease_parse(buf, size, &l) == -1) {
		check(errno == EBADMSG, "lease: errno %d", errno);
		return;
	}
	check(l.id > 0 && l.revision > 0 && l.ttl_s > 0, "lease: a zero");
	n = pg_lease_format(&l, out, sizeof(out));
	check(n > 0 && (size_t)n == size && memcmp(out, buf, size) == 0,
	    "lease: does not format back the same");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_etcd_reply	 r;
	enum pg_etcd_op		 op;
	char			*buf, why[PG_WHY_MAX], node[PG_NAME_MAX + 1];
	unsigned char		 dec[PG_ETCD_ANSWER_MAX];
	int			 n;

	if (size == 0)
		return 0;
	op = data[0] % (PG_ETCD_RANGE + 1);
	buf = fuzz_copy(data + 1, size - 1);
	lease(buf, size - 1);
	n = pg_base64_decode(buf, size - 1, dec, sizeof(dec));
	check(n == -1 || (size_t)n <= (size - 1) / 4 * 3, "base64: %d", n);

	memset(&r, 0x5a, sizeof(r));
	if (pg_etcd_parse(op, KEY, buf, size - 1, &r, why, sizeof(why)) ==
	    -1) {
		check(errno == EBADMSG, "errno %d", errno);
		check(zeroed(&r), "a refused answer left data");
		check(terminated(why, sizeof(why)) && why[0] != '\0',
		    "no reason");
		free(buf);
		return 0;
	}
	check(size - 1 <= PG_ETCD_ANSWER_MAX, "answer of %zu bytes", size - 1);
	check(terminated(r.message, sizeof(r.message)) &&
	    terminated(r.token, sizeof(r.token)), "unterminated string");
	check(r.error == 0 || r.error == 1, "error %d", r.error);
	if (r.error) {
		check(r.code == -1 || (r.code > 0 && r.code <= 255), "code %d",
		    r.code);
		free(buf);
		return 0;
	}
	check(r.revision >= 0, "revision %lld", (long long)r.revision);
	check(r.ttl >= -1 && r.ttl <= PG_ETCD_TTL_MAX && r.id >= 0, "lease");
	if (op == PG_ETCD_AUTH)
		check(r.token[0] != '\0' && printable(r.token) &&
		    strchr(r.token, ' ') == NULL, "token");
	if (op == PG_ETCD_GRANT)
		check(r.id > 0 && r.ttl > 0, "grant without a lease");
	if (op == PG_ETCD_TXN && r.succeeded)
		check(r.revision > 0, "created without a revision");
	if (r.found) {
		check(op == PG_ETCD_TXN || op == PG_ETCD_RANGE, "kv of op %d",
		    op);
		check(r.kv.create_revision > 0 && r.kv.mod_revision >=
		    r.kv.create_revision && r.kv.lease >= 0, "kv revisions");
		check(r.kv.valuelen < sizeof(r.kv.value) &&
		    r.kv.value[r.kv.valuelen] == '\0', "kv value");
		if (pg_etcd_value(&r.kv, node, sizeof(node)) == 0)
			check(pg_peer_name_valid(node), "holder '%s'", node);
		else
			check(node[0] == '\0', "holder on failure");
	}
	free(buf);
	return 0;
}
