/* SPDX-License-Identifier: ISC */
/* etcdjson.c: etcd's answers, apart from etcd.c to be tested and fuzzed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lease.h"

/* Why an answer is refused, in our words. */
static int
bad(char *why, size_t len, const char *what)
{
	snprintf(why, len, "%s", what);
	errno = EBADMSG;
	return -1;
}

/*
 * An int64 of the gateway, a string of digits ("2") or a JSON integer, in
 * [min, max]; absent: 0 (proto3 leaves out a zero). Else -1.
 */
static int
num(json_t *obj, const char *name, int64_t min, int64_t max, int64_t *v)
{
	json_t		*j;
	const char	*s, *errstr;
	size_t		 n;

	*v = 0;
	if ((j = json_object_get(obj, name)) == NULL)
		return min <= 0 && max >= 0 ? 0 : -1;
	if (json_is_integer(j))
		*v = json_integer_value(j);
	else if (json_is_string(j)) {
		s = json_string_value(j);
		n = json_string_length(j);
		if (n == 0 || n > 20 || strlen(s) != n ||
		    strspn(s + (s[0] == '-'), "0123456789") !=
		    n - (s[0] == '-'))
			return -1;
		*v = strtonum(s, min, max, &errstr);
		if (errstr != NULL)
			return -1;
	} else
		return -1;
	return *v >= min && *v <= max ? 0 : -1;
}

int
pg_base64_decode(const char *src, size_t len, void *dstp, size_t dlen)
{
	static const char	 b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char		*dst = dstp;
	const char		*p;
	size_t			 i, k, o = 0, pad = 0;
	uint32_t		 acc = 0;

	if (len % 4 != 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (src[i] == '=') {
			/* Only at the end, at most two. */
			if (i < len - 2 ||
			    (i == len - 2 && src[len - 1] != '='))
				return -1;
			pad++;
			acc <<= 6;
		} else if (src[i] == '\0' ||
		    (p = strchr(b64, src[i])) == NULL)
			return -1;
		else
			acc = acc << 6 | (uint32_t)(p - b64);
		if (i % 4 != 3)
			continue;
		if (o + 3 - pad > dlen)
			return -1;
		for (k = 0; k < 3 - pad; k++)
			dst[o++] = acc >> (16 - 8 * k) & 0xff;
		/* The bits that padding drops must be zero (canonical). */
		if (acc & ((1U << 8 * pad) - 1))
			return -1;
		acc = 0;
	}
	return (int)o;
}

/* One key-value of a range: of the key asked for, revisions positive. */
static int
kv(json_t *j, const char *key, struct pg_etcd_kv *out, char *why,
    size_t len)
{
	json_t		*v;
	char		 k[PG_ETCD_KEY_MAX];
	int		 n;

	if (!json_is_object(j))
		return bad(why, len, "a kvs entry is not an object");
	if (!json_is_string(v = json_object_get(j, "key")) ||
	    (n = pg_base64_decode(json_string_value(v), json_string_length(v),
	    k, sizeof(k))) == -1 || (size_t)n != strlen(key) ||
	    memcmp(k, key, n) != 0)
		return bad(why, len, "a kvs entry is not of the key asked for");
	if (num(j, "create_revision", 1, INT64_MAX, &out->create_revision) ==
	    -1 || num(j, "mod_revision", 1, INT64_MAX, &out->mod_revision) ==
	    -1 || num(j, "lease", 0, INT64_MAX, &out->lease) == -1 ||
	    out->mod_revision < out->create_revision)
		return bad(why, len, "a kvs entry has invalid revisions or "
		    "lease");
	/* *out is zeroed (pg_etcd_parse): "" when absent, NUL-ended. */
	if ((v = json_object_get(j, "value")) == NULL)
		return 0;
	if (!json_is_string(v) || (n = pg_base64_decode(json_string_value(v),
	    json_string_length(v), out->value, sizeof(out->value) - 1)) == -1)
		return bad(why, len, "a kvs entry has a value that is not "
		    "base64 of at most 255 bytes");
	out->valuelen = n;
	return 0;
}

/* The kvs of a range answer: none, or the one key asked for. */
static int
range(json_t *j, const char *key, struct pg_etcd_reply *r, char *why,
    size_t len)
{
	json_t		*kvs;
	int64_t		 count;

	if (!json_is_object(j))
		return bad(why, len, "a range answer is not an object");
	if (num(j, "count", 0, 1, &count) == -1)
		return bad(why, len, "a range answer's count is not 0 or 1");
	if ((kvs = json_object_get(j, "kvs")) == NULL)
		return count == 0 ? 0 : bad(why, len, "a range answer counts "
		    "a key but has none");
	if (!json_is_array(kvs) || json_array_size(kvs) != 1 || count != 1)
		return bad(why, len, "a range answer's kvs is not one key");
	r->found = 1;
	return kv(json_array_get(kvs, 0), key, &r->kv, why, len);
}

/*
 * The error of an answer, 1 and r->code, r->message: {"error": "...",
 * "code": N, "message": "..."} (unary), {"error": {"grpc_code": N,
 * "message": ...}} (stream), or LeaseGrant's "error" string.
 */
static int
error_of(json_t *root, struct pg_etcd_reply *r)
{
	json_t		*e, *o, *m;
	int64_t		 code;

	if ((e = json_object_get(root, "error")) == NULL ||
	    (json_is_string(e) && json_string_length(e) == 0))
		return 0;	/* LeaseGrantResponse: "" is no error */
	o = json_is_object(e) ? e : root;
	r->error = 1;
	r->code = num(o, o == e ? "grpc_code" : "code", 1, 255, &code) == 0 ?
	    (int)code : -1;
	if (!json_is_string(m = json_object_get(o, "message")) && o == root)
		m = e;
	strlcpy(r->message, json_is_string(m) ? json_string_value(m) :
	    "(no message)", sizeof(r->message));
	return 1;
}

static int
parse(json_t *root, enum pg_etcd_op op, const char *key,
    struct pg_etcd_reply *r, char *why, size_t len)
{
	json_t		*j, *resp;
	const char	*s;

	if (!json_is_object(root))
		return bad(why, len, "not a JSON object");
	if (error_of(root, r))
		return 0;
	if (op == PG_ETCD_KEEPALIVE) {
		/* A stream's {"result": {...}}; json_is_* read root twice. */
		root = json_object_get(root, "result");
		if (!json_is_object(root))
			return bad(why, len, "a keepalive answer without "
			    "result");
		if (error_of(root, r))
			return 0;
	}
	if ((j = json_object_get(root, "header")) != NULL &&
	    (!json_is_object(j) || num(j, "revision", 0, INT64_MAX,
	    &r->revision) == -1))
		return bad(why, len, "an invalid header");
	switch (op) {
	case PG_ETCD_AUTH:
		if (!json_is_string(j = json_object_get(root, "token")) ||
		    json_string_length(j) == 0 ||
		    json_string_length(j) >= sizeof(r->token))
			return bad(why, len, "an authenticate answer without "
			    "a token");
		/* It goes into a header field: printable ASCII only. */
		for (s = json_string_value(j); *s != '\0'; s++)
			if (*s < 0x21 || *s > 0x7e)
				return bad(why, len, "a token that is not "
				    "printable ASCII");
		strlcpy(r->token, json_string_value(j), sizeof(r->token));
		return 0;
	case PG_ETCD_GRANT:
	case PG_ETCD_KEEPALIVE:
	case PG_ETCD_TTL:
		/* timetolive says -1 for a lease that has expired. */
		if (num(root, "ID", 0, INT64_MAX, &r->id) == -1 ||
		    num(root, "TTL", op == PG_ETCD_TTL ? -1 : 0,
		    PG_ETCD_TTL_MAX, &r->ttl) == -1)
			return bad(why, len, "a lease answer with an invalid "
			    "ID or TTL");
		if (op == PG_ETCD_GRANT && (r->id == 0 || r->ttl == 0))
			return bad(why, len, "a grant without a lease");
		return 0;
	case PG_ETCD_TXN:
		j = json_object_get(root, "succeeded");
		if (j != NULL && !json_is_boolean(j))
			return bad(why, len, "a txn answer's succeeded is not "
			    "a boolean");
		if ((r->succeeded = json_is_true(j)))
			return r->revision > 0 ? 0 : bad(why, len, "a txn that "
			    "succeeded without a revision");
		/* Failed: its one response is the range of the key. */
		resp = json_object_get(root, "responses");
		if (!json_is_array(resp) || json_array_size(resp) != 1 ||
		    !json_is_object(j = json_array_get(resp, 0)) ||
		    (j = json_object_get(j, "response_range")) == NULL)
			return bad(why, len, "a failed txn without the range "
			    "of the key");
		return range(j, key, r, why, len);
	case PG_ETCD_RANGE:
		return range(root, key, r, why, len);
	default:	/* revoke: the header is all */
		return 0;
	}
}

int
pg_etcd_parse(enum pg_etcd_op op, const char *key, const char *buf,
    size_t len, struct pg_etcd_reply *r, char *why, size_t whylen)
{
	json_error_t	 jerr;
	json_t		*root;
	int		 ret;

	memset(r, 0, sizeof(*r));
	why[0] = '\0';
	if (len > PG_ETCD_ANSWER_MAX)
		return bad(why, whylen, "an answer longer than 64 KiB");
	/* No duplicate members (two readers, two answers), no NUL. */
	if ((root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr)) ==
	    NULL)
		return bad(why, whylen, "not valid JSON");
	ret = parse(root, op, key, r, why, whylen);
	json_decref(root);
	if (ret == -1)
		memset(r, 0, sizeof(*r));
	return ret;
}

int
pg_etcd_value(const struct pg_etcd_kv *kv, char *node, size_t len)
{
	const char	*v = kv->value, *end = kv->value + kv->valuelen, *nl;
	size_t		 n;

	node[0] = '\0';
	if (kv->valuelen < 6 || memcmp(v, "node ", 5) != 0 ||
	    (nl = memchr(v, '\n', end - v)) == NULL)
		return -1;
	n = nl - (v + 5);
	if (n >= len || n > PG_NAME_MAX)
		return -1;
	memcpy(node, v + 5, n);
	node[n] = '\0';
	if (!pg_peer_name_valid(node)) {
		node[0] = '\0';
		return -1;
	}
	return 0;
}
