/* SPDX-License-Identifier: ISC */
/* etcd.c: the etcd backend's client, one request at a time (lease.h). */
#include <sys/param.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vis.h>

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/ssl.h>

#include "lease.h"
#include "monitor.h"
#include "proto.h"

struct pg_etcd_conn {
	const struct pg_config	*cfg;
	CURL			*easy;
	size_t			 cur;		/* the endpoint in use */
	int64_t			 until;		/* CLOCK_BOOTTIME ms, or 0 */
	char			 token[PG_ETCD_ENDPOINTS_MAX]
	    [PG_ETCD_TOKEN_MAX];
	char			*body;
	size_t			 len;
	long			 status;	/* HTTP */
	int			 toolong;
	int			 tls;		/* the failure was TLS trust */
	int			 alert;		/* etcd's fatal TLS alert, -1 */
	char			 cerr[CURL_ERROR_SIZE];
	char			 why[PG_ERR_MAX];
};

/* The bodies of a range (of a key's base64) and of a lease's request. */
#define RANGE_JSON	"{\"key\":\"%s\"}"
#define ID_JSON		"{\"ID\":\"%" PRId64 "\"}"

/* gRPC status codes that etcd's errors carry. */
#define GRPC_DEADLINE		4
#define GRPC_NOT_FOUND		5
#define GRPC_PERMISSION		7
#define GRPC_EXHAUSTED		8
#define GRPC_PRECONDITION	9
#define GRPC_UNAVAILABLE	14
#define GRPC_UNAUTHENTICATED	16

/* The gateway's path for each request. */
static const char *const paths[] = {
	[PG_ETCD_AUTH] = "/v3/auth/authenticate",
	[PG_ETCD_GRANT] = "/v3/lease/grant",
	[PG_ETCD_KEEPALIVE] = "/v3/lease/keepalive",
	[PG_ETCD_TTL] = "/v3/lease/timetolive",
	[PG_ETCD_REVOKE] = "/v3/lease/revoke",
	[PG_ETCD_TXN] = "/v3/kv/txn",
	[PG_ETCD_RANGE] = "/v3/kv/range"
};

/* The connection whose request is under way: on_alert's. */
static struct pg_etcd_conn	*asking;

int
pg_etcd_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

struct pg_etcd_conn *
pg_etcd_open(const struct pg_config *cfg)
{
	struct pg_etcd_conn	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->cfg = cfg;
	if ((c->easy = curl_easy_init()) == NULL) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

const char *
pg_etcd_why(const struct pg_etcd_conn *c)
{
	return c->why;
}

/* A try's milliseconds: [etcd] timeout, cut to c->until; <= 0: none. */
static int64_t
time_left(const struct pg_etcd_conn *c)
{
	int64_t	 ns, left;

	if (c->until == 0)
		return c->cfg->etcd.timeout_ms;
	if (pg_clock(CLOCK_BOOTTIME, &ns) == -1)
		return 0;
	left = c->until - ns / 1000000;
	return MIN(left, c->cfg->etcd.timeout_ms);
}

/* Say why, escaped: etcd's messages and libcurl's are not ours. */
static void __attribute__((__format__(__printf__, 2, 3)))
say(struct pg_etcd_conn *c, const char *fmt, ...)
{
	char	 what[CURL_ERROR_SIZE], raw[PG_ERR_MAX];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(raw, sizeof(raw), "%s: %s", c->cfg->etcd.endpoints[c->cur],
	    what);
	strnvis(c->why, raw, sizeof(c->why), VIS_CSTYLE | VIS_OCTAL |
	    VIS_TAB | VIS_NL | VIS_NOSLASH);
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	struct pg_etcd_conn	*c = arg;
	char			*nb;

	n *= size;
	if (c->len + n > PG_ETCD_ANSWER_MAX) {
		c->toolong = 1;
		return 0;
	}
	if ((nb = realloc(c->body, c->len + n + 1)) == NULL)
		return 0;
	c->body = nb;
	memcpy(c->body + c->len, p, n);
	c->len += n;
	return n;
}

/* The fatal alerts etcd sends: libcurl passes on only OpenSSL's text. */
static void
on_alert(const SSL *ssl, int where, int ret)
{
	(void)ssl;
	if (asking != NULL && (where & SSL_CB_READ_ALERT) &&
	    (ret >> 8) == SSL3_AL_FATAL)
		asking->alert = ret & 0xff;
}

/* libcurl's new TLS context for a connection: listen for alerts. */
static CURLcode
on_ctx(CURL *x, void *ctx, void *arg)
{
	(void)x;
	(void)arg;
	SSL_CTX_set_info_callback(ctx, on_alert);
	return CURLE_OK;
}

/*
 * The alerts that refuse this client's certificate, or its lack; not
 * handshake_failure and the like, which also mean other things.
 */
static int
cert_alert(int a)
{
	static const unsigned char	 certs[] = { SSL3_AD_BAD_CERTIFICATE,
	    SSL3_AD_UNSUPPORTED_CERTIFICATE, SSL3_AD_CERTIFICATE_REVOKED,
	    SSL3_AD_CERTIFICATE_EXPIRED, SSL3_AD_CERTIFICATE_UNKNOWN,
	    TLS1_AD_UNKNOWN_CA, TLS1_AD_ACCESS_DENIED,
	    TLS13_AD_CERTIFICATE_REQUIRED };

	return a >= 0 && a <= 255 && memchr(certs, a, sizeof(certs)) != NULL;
}

/* The TLS failures that a retry will not mend. */
static int
tls_refused(const struct pg_etcd_conn *c, CURLcode e)
{
	return e == CURLE_PEER_FAILED_VERIFICATION ||
	    e == CURLE_SSL_CACERT_BADFILE || e == CURLE_SSL_CERTPROBLEM ||
	    e == CURLE_SSL_ISSUER_ERROR ||
	    e == CURLE_SSL_PINNEDPUBKEYNOTMATCH || cert_alert(c->alert);
}

/*
 * One POST to endpoint i: CURLE_OK and c->body, c->status, or the failure
 * (c->why). tls12: on a new connection, TLS 1.2 at most (late_verdict).
 */
static CURLcode
post(struct pg_etcd_conn *c, size_t i, enum pg_etcd_op op, const char *json,
    int tls12)
{
	const struct pg_etcd	*e = &c->cfg->etcd;
	struct curl_slist	*hdr, *h;
	char			 url[PG_VALUE_MAX + 32],
	    auth[PG_ETCD_TOKEN_MAX + 16];
	size_t			 n = strlen(e->endpoints[i]);
	CURL			*x = c->easy;
	CURLcode		 ce;
	int64_t			 tmo;

	if ((tmo = time_left(c)) <= 0) {
		c->cur = i;
		say(c, "no time left for a request before the deadline");
		return CURLE_OPERATION_TIMEDOUT;
	}
	while (n > 0 && e->endpoints[i][n - 1] == '/')
		n--;
	snprintf(url, sizeof(url), "%.*s%s", (int)n, e->endpoints[i],
	    paths[op]);
	free(c->body);
	c->body = NULL;
	c->len = 0;
	c->toolong = 0;
	c->alert = -1;
	c->cerr[0] = '\0';
	hdr = curl_slist_append(NULL, "Content-Type: application/json");
	if (hdr == NULL)
		goto nomem;
	if (c->token[i][0] != '\0') {
		snprintf(auth, sizeof(auth), "Authorization: %s", c->token[i]);
		h = curl_slist_append(hdr, auth);
		explicit_bzero(auth, sizeof(auth));
		if (h == NULL)
			goto nomem;
		hdr = h;
	}
	curl_easy_reset(x);
	pg_curl_setup(x, url, MIN(c->cfg->connect_timeout_ms, tmo), tmo,
	    PG_ETCD_ANSWER_MAX, on_body, c, c->cerr, "pollguard/" PG_VERSION);
	/* HTTP/1.1: its failures after a handshake are late_verdict's. */
	curl_easy_setopt(x, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	/* "": no proxy, whatever the environment says. */
	curl_easy_setopt(x, CURLOPT_PROXY, "");
	curl_easy_setopt(x, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(x, CURLOPT_POSTFIELDS, json);
	/* Verification stays on (pg_curl_setup); only the CA may change. */
	if (e->cafile[0] != '\0')
		curl_easy_setopt(x, CURLOPT_CAINFO, e->cafile);
	if (e->cert[0] != '\0') {
		curl_easy_setopt(x, CURLOPT_SSLCERT, e->cert);
		curl_easy_setopt(x, CURLOPT_SSLKEY, e->key);
	}
	curl_easy_setopt(x, CURLOPT_SSL_CTX_FUNCTION, on_ctx);
	if (tls12) {
		curl_easy_setopt(x, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(x, CURLOPT_SSLVERSION,
		    (long)(CURL_SSLVERSION_TLSv1_2 |
		    CURL_SSLVERSION_MAX_TLSv1_2));
	}
	asking = c;
	ce = curl_easy_perform(x);
	asking = NULL;
	curl_slist_free_all(hdr);
	curl_easy_getinfo(x, CURLINFO_RESPONSE_CODE, &c->status);
	c->cur = i;
	if (ce == CURLE_OK)
		return ce;
	if (cert_alert(c->alert))
		say(c, "TLS alert \"%s\": etcd refuses this node's client "
		    "certificate%s", SSL_alert_desc_string_long(c->alert),
		    e->cert[0] == '\0' ?
		    " (none is configured: [etcd] cert and key)" : "");
	else
		say(c, "%s", c->toolong ? "an answer longer than 64 KiB" :
		    c->cerr[0] != '\0' ? c->cerr : curl_easy_strerror(ce));
	return ce;
nomem:
	curl_slist_free_all(hdr);
	say(c, "%s", strerror(ENOMEM));
	return CURLE_OUT_OF_MEMORY;
}

/* 1: a connection lost after a TLS handshake (doc/ETCD.md, TLS 1.2). */
static int
late_verdict(const struct pg_etcd_conn *c, CURLcode ce)
{
	curl_off_t	 hs = 0;

	if (ce != CURLE_SEND_ERROR && ce != CURLE_RECV_ERROR &&
	    ce != CURLE_GOT_NOTHING)
		return 0;
	/* Zero for plain HTTP: no handshake, no verdict to wait for. */
	return curl_easy_getinfo(c->easy, CURLINFO_APPCONNECT_TIME_T, &hs) ==
	    CURLE_OK && hs > 0;
}

/* An error etcd answered, as a result; the message goes to c->why. */
static enum pg_etcd_result
etcd_error(struct pg_etcd_conn *c, enum pg_etcd_op op,
    const struct pg_etcd_reply *r)
{
	say(c, "%s", r->message);
	switch (r->code) {
	case GRPC_DEADLINE:
	case GRPC_EXHAUSTED:
	case GRPC_UNAVAILABLE:
		return PG_ETCD_UNREACHABLE;
	case GRPC_NOT_FOUND:
		return op == PG_ETCD_KEEPALIVE || op == PG_ETCD_REVOKE ||
		    op == PG_ETCD_TTL ? PG_ETCD_LOST : PG_ETCD_INVALID;
	case GRPC_PERMISSION:
	case GRPC_PRECONDITION:
	case GRPC_UNAUTHENTICATED:
		return PG_ETCD_REFUSED;
	default:
		/* A wrong password is "invalid argument" to authenticate. */
		return op == PG_ETCD_AUTH ? PG_ETCD_REFUSED : PG_ETCD_INVALID;
	}
}

/* One request at endpoint i: OK (*r), or the failure (UNREACHABLE: next). */
static enum pg_etcd_result
ask_one(struct pg_etcd_conn *c, size_t i, enum pg_etcd_op op,
    const char *json, const char *key, struct pg_etcd_reply *r)
{
	char		 why[PG_WHY_MAX], first[PG_ERR_MAX];
	CURLcode	 ce;

	if ((ce = post(c, i, op, json, 0)) != CURLE_OK &&
	    !tls_refused(c, ce) && late_verdict(c, ce)) {
		strlcpy(first, c->why, sizeof(first));
		/* No verdict: what the first try said stands. */
		if ((ce = post(c, i, op, json, 1)) != CURLE_OK &&
		    !tls_refused(c, ce))
			strlcpy(c->why, first, sizeof(c->why));
	}
	if (ce != CURLE_OK) {
		if (ce == CURLE_OUT_OF_MEMORY) {
			errno = ENOMEM;
			return PG_ETCD_ERROR;
		}
		if (c->toolong)
			return PG_ETCD_INVALID;
		c->tls = tls_refused(c, ce);
		return c->tls ? PG_ETCD_REFUSED : PG_ETCD_UNREACHABLE;
	}
	if (pg_etcd_parse(op, key, c->body, c->len, r, why, sizeof(why)) ==
	    -1) {
		/* A proxy's or a starting member's page: not an answer. */
		if (c->status >= 500) {
			say(c, "HTTP status %ld", c->status);
			return PG_ETCD_UNREACHABLE;
		}
		say(c, "%s", why);
		return PG_ETCD_INVALID;
	}
	if (r->error)
		return etcd_error(c, op, r);
	if (c->status != 200) {
		say(c, "HTTP status %ld without an error", c->status);
		return c->status >= 500 ? PG_ETCD_UNREACHABLE : PG_ETCD_INVALID;
	}
	return PG_ETCD_OK;
}

/* A token for endpoint i, when the config has a user and it has none. */
static enum pg_etcd_result
authenticate(struct pg_etcd_conn *c, size_t i)
{
	const struct pg_etcd	*e = &c->cfg->etcd;
	struct pg_etcd_reply	 r;
	enum pg_etcd_result	 res;
	json_t			*o;
	char			*json;

	if (e->user[0] == '\0' || c->token[i][0] != '\0')
		return PG_ETCD_OK;
	/* jansson, for the escapes of any password; the rest is base64. */
	o = json_pack("{s:s, s:s}", "name", e->user, "password", e->password);
	json = o == NULL ? NULL : json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (json == NULL) {
		errno = ENOMEM;
		return PG_ETCD_ERROR;
	}
	res = ask_one(c, i, PG_ETCD_AUTH, json, "", &r);
	explicit_bzero(json, strlen(json));
	free(json);
	if (res == PG_ETCD_OK)
		strlcpy(c->token[i], r.token, sizeof(c->token[i]));
	explicit_bzero(&r, sizeof(r));
	return res;
}

/* A request, failed over (doc/ETCD.md, "Endpoints, bounds and errors"). */
static enum pg_etcd_result
ask(struct pg_etcd_conn *c, enum pg_etcd_op op, const char *json,
    const char *key, struct pg_etcd_reply *r)
{
	const struct pg_etcd	*e = &c->cfg->etcd;
	enum pg_etcd_result	 res, worst = PG_ETCD_UNREACHABLE;
	size_t			 k, i, start = c->cur;
	int			 again;

	for (k = 0; k < e->nendpoints; k++) {
		if (k > 0 && time_left(c) <= 0)
			break;
		i = (start + k) % e->nendpoints;
		for (again = 0; again < 2; again++) {
			memset(r, 0, sizeof(*r));
			c->tls = 0;
			if ((res = authenticate(c, i)) == PG_ETCD_OK)
				res = ask_one(c, i, op, json, key, r);
			if (res != PG_ETCD_REFUSED || e->user[0] == '\0' ||
			    r->code != GRPC_UNAUTHENTICATED)
				break;
			c->token[i][0] = '\0';
		}
		if (res != PG_ETCD_UNREACHABLE && !c->tls)
			return res;
		/* An endpoint we do not trust (TLS): try the others. */
		if (c->tls)
			worst = PG_ETCD_REFUSED;
	}
	return worst;
}

/* A request about key ("": none), its body formatted (doc/ETCD.md). */
static enum pg_etcd_result __attribute__((__format__(__printf__, 5, 6)))
call(struct pg_etcd_conn *c, enum pg_etcd_op op, const char *key,
    struct pg_etcd_reply *r, const char *fmt, ...)
{
	char	 json[PG_ETCD_KEY_MAX * 16];
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(json, sizeof(json), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(json)) {
		errno = ENAMETOOLONG;
		return PG_ETCD_ERROR;
	}
	return ask(c, op, json, key, r);
}

enum pg_etcd_result
pg_etcd_keepalive(struct pg_etcd_conn *c, int64_t lease, int64_t until,
    int64_t *ttl_s)
{
	struct pg_etcd_reply	 r;
	enum pg_etcd_result	 res;

	c->until = until;
	res = call(c, PG_ETCD_KEEPALIVE, "", &r, ID_JSON, lease);
	c->until = 0;
	if (res != PG_ETCD_OK)
		return res;
	/* A lease etcd does not know is answered with no TTL. */
	if (r.ttl <= 0 || r.id != lease) {
		say(c, "the lease has expired or was revoked");
		return PG_ETCD_LOST;
	}
	*ttl_s = r.ttl;
	return PG_ETCD_OK;
}

enum pg_etcd_result
pg_etcd_ttl(struct pg_etcd_conn *c, int64_t lease, int64_t *ttl_s)
{
	struct pg_etcd_reply	 r;
	enum pg_etcd_result	 res;

	if ((res = call(c, PG_ETCD_TTL, "", &r, ID_JSON, lease)) == PG_ETCD_OK)
		*ttl_s = r.ttl;
	return res;
}

enum pg_etcd_result
pg_etcd_revoke(struct pg_etcd_conn *c, int64_t lease)
{
	struct pg_etcd_reply	 r;

	return call(c, PG_ETCD_REVOKE, "", &r, ID_JSON, lease);
}

/* The holder of the key in a reply with its kv. */
static void
holder(const struct pg_etcd_reply *r, struct pg_etcd_holder *h)
{
	pg_etcd_value(&r->kv, h->node, sizeof(h->node));
	h->lease = r->kv.lease;
	h->revision = r->kv.create_revision;
}

/* The key of a cluster, PREFIX and ID, and its base64. */
static int
cluster_key(struct pg_etcd_conn *c, const struct pg_cluster *cl, char *key,
    char *k64)
{
	if ((size_t)snprintf(key, PG_ETCD_KEY_MAX, "%s%s", c->cfg->etcd.prefix,
	    cl->id) >= PG_ETCD_KEY_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return pg_base64(key, strlen(key), k64, PG_ETCD_KEY_MAX * 2);
}

enum pg_etcd_result
pg_etcd_peek(struct pg_etcd_conn *c, const struct pg_cluster *cl,
    struct pg_etcd_holder *h, int *found)
{
	struct pg_etcd_reply	 r;
	enum pg_etcd_result	 res;
	char			 key[PG_ETCD_KEY_MAX], k64[PG_ETCD_KEY_MAX * 2];

	*found = 0;
	memset(h, 0, sizeof(*h));
	if (cluster_key(c, cl, key, k64) == -1)
		return PG_ETCD_ERROR;
	/* The key as it is: a linearizable read, no write. */
	res = call(c, PG_ETCD_RANGE, key, &r, RANGE_JSON, k64);
	if (res == PG_ETCD_OK && r.found) {
		*found = 1;
		holder(&r, h);
	}
	return res;
}

enum pg_etcd_result
pg_etcd_claim(struct pg_etcd_conn *c, const struct pg_cluster *cl,
    const char *node, const struct pg_lease *mine, struct pg_lease *l,
    struct pg_etcd_holder *h)
{
	struct pg_etcd_reply	 r;
	enum pg_etcd_result	 res;
	char			 key[PG_ETCD_KEY_MAX], k64[PG_ETCD_KEY_MAX * 2];
	char			 val[PG_NAME_MAX + 8], v64[sizeof(val) * 2];
	int64_t			 ttl, granted;

	memset(l, 0, sizeof(*l));
	memset(h, 0, sizeof(*h));
	snprintf(val, sizeof(val), "node %s\n", node);
	if (cluster_key(c, cl, key, k64) == -1 ||
	    pg_base64(val, strlen(val), v64, sizeof(v64)) == -1)
		return PG_ETCD_ERROR;

	/* doc/ETCD.md, pollguard-check: 4, else 1 (r.found: held). */
	if (mine != NULL) {
		/* Read the key if it is on mine; either way, on failure. */
		res = call(c, PG_ETCD_TXN, key, &r, "{\"compare\":[{\"target\":"
		    "\"LEASE\",\"key\":\"%s\",\"lease\":\"%" PRId64 "\"}],"
		    "\"success\":[{\"requestRange\":" RANGE_JSON "}],"
		    "\"failure\":[{\"requestRange\":" RANGE_JSON "}]}", k64,
		    mine->id, k64, k64);
		if (res != PG_ETCD_OK)
			return res;
		if (r.succeeded) {
			res = pg_etcd_keepalive(c, mine->id, 0, &ttl);
			if (res == PG_ETCD_OK) {
				*l = *mine;
				l->ttl_s = ttl;
			}
			if (res != PG_ETCD_LOST)
				return res;
		}
	} else if ((res = call(c, PG_ETCD_RANGE, key, &r, RANGE_JSON, k64)) !=
	    PG_ETCD_OK)
		return res;
	if (r.found) {
		holder(&r, h);
		return PG_ETCD_HELD;
	}

	/* The TTL is the wait, rounded up to whole seconds. */
	ttl = (cl->wait_ms + 999) / 1000;
	res = call(c, PG_ETCD_GRANT, "", &r, "{\"TTL\":%" PRId64 "}", ttl);
	if (res != PG_ETCD_OK)
		return res;
	l->id = r.id;
	granted = r.ttl;
	/* Create the key on the lease if it does not exist, else read it. */
	res = call(c, PG_ETCD_TXN, key, &r, "{\"compare\":[{\"target\":"
	    "\"CREATE\",\"key\":\"%s\",\"createRevision\":\"0\"}],"
	    "\"success\":[{\"requestPut\":{\"key\":\"%s\",\"value\":"
	    "\"%s\",\"lease\":\"%" PRId64 "\"}}],\"failure\":["
	    "{\"requestRange\":" RANGE_JSON "}]}", k64, k64, v64, l->id, k64);
	if (res != PG_ETCD_OK) {
		/* The lease expires by itself; revoking it is a courtesy. */
		if (res != PG_ETCD_UNREACHABLE)
			pg_etcd_revoke(c, l->id);
		return res;
	}
	/* Not created but on our lease: doc/ETCD.md, pollguard-check, 5. */
	if (!r.succeeded && !r.found) {
		say(c, "a txn that failed on a key that does not exist");
		pg_etcd_revoke(c, l->id);
		return PG_ETCD_INVALID;
	}
	if (r.succeeded || r.kv.lease == l->id) {
		l->revision = r.succeeded ? r.revision : r.kv.create_revision;
		l->ttl_s = granted;
		return PG_ETCD_OK;
	}
	holder(&r, h);
	pg_etcd_revoke(c, l->id);
	memset(l, 0, sizeof(*l));
	return PG_ETCD_HELD;
}
