/* SPDX-License-Identifier: ISC */
/* The peer protocol, both ends (proto.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proto.h"

/* RFC 9110 token characters (method names, field names). */
static int
tchar(int c)
{
	return isalnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

/* A line ends at LF; a CR before it belongs to the end. */
static size_t
content_len(const char *line, size_t n)
{
	return n > 0 && line[n - 1] == '\r' ? n - 1 : n;
}

static int
has_ctl(const char *s, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') ||
		    s[i] == 0x7f)
			return 1;
	return 0;
}

/* Each path is all clusters; PATH/CLUSTER one, but for /metrics. */
static const struct route {
	const char	*path;
	enum pg_target	 all, one;
} routes[] = {
	{ "/v1/elapsed", PG_TARGET_ALL, PG_TARGET_ONE },
	{ "/v1/status", PG_TARGET_STATUS_ALL, PG_TARGET_STATUS_ONE },
	{ "/metrics", PG_TARGET_METRICS, PG_TARGET_METRICS },
	{ NULL, PG_TARGET_ALL, PG_TARGET_ALL }
};

/* 400, and why, for serve's log. */
static int
bad(struct pg_request *req, const char *why)
{
	req->why = why;
	return 400;
}

static int
request_line(const char *line, size_t n, struct pg_request *req)
{
	const struct route	*r;
	const char		*sp1, *sp2, *target, *ver, *id;
	size_t			 mlen, tlen, idlen, plen;

	if ((sp1 = memchr(line, ' ', n)) == NULL ||
	    (sp2 = memchr(sp1 + 1, ' ', line + n - sp1 - 1)) == NULL)
		return bad(req, "not METHOD TARGET VERSION");
	mlen = sp1 - line;
	target = sp1 + 1;
	tlen = sp2 - target;
	ver = sp2 + 1;
	if (has_ctl(line, n))
		return bad(req, "a control character in the request line");
	if (mlen == 0 || tlen == 0 || memchr(ver, ' ', line + n - ver) != NULL)
		return bad(req, "not METHOD TARGET VERSION");
	for (id = line; id < sp1; id++)
		if (!tchar((unsigned char)*id))
			return bad(req, "not a method");
	/* The version first: it says how to phrase any answer. */
	if ((size_t)(line + n - ver) != 8 || strncmp(ver, "HTTP/", 5) != 0 ||
	    !isdigit((unsigned char)ver[5]) || ver[6] != '.' ||
	    !isdigit((unsigned char)ver[7]))
		return bad(req, "not an HTTP version");
	if (ver[5] != '1' || (ver[7] != '0' && ver[7] != '1'))
		return 505;
	req->minor = ver[7] - '0';
	if (strncmp(line, "GET ", 4) != 0 && strncmp(line, "HEAD ", 5) != 0)
		return 405;
	req->head = mlen == 4;
	if (target[0] != '/')
		return bad(req, "a target not starting with /");
	for (r = routes; r->path != NULL; r++) {
		plen = strlen(r->path);
		if (tlen == plen && strncmp(target, r->path, plen) == 0) {
			req->target = r->all;
			return 200;
		}
		if (r->one == PG_TARGET_METRICS || tlen <= plen + 1 ||
		    strncmp(target, r->path, plen) != 0 || target[plen] != '/')
			continue;
		id = target + plen + 1;
		idlen = tlen - plen - 1;
		if (idlen > PG_NAME_MAX)
			return 404;
		memcpy(req->cluster, id, idlen);
		req->cluster[idlen] = '\0';
		if (!pg_cluster_id_valid(req->cluster))
			return 404;
		req->target = r->one;
		return 200;
	}
	return 404;
}

static int
is_field(const char *line, size_t nlen, const char *name)
{
	return nlen == strlen(name) && strncasecmp(line, name, nlen) == 0;
}

/* One header field. Returns 0 when acceptable, else a status. */
static int
header(const char *line, size_t n, struct pg_request *req, int *host)
{
	const char	*colon, *v, *end = line + n;
	size_t		 nlen, vlen, skip;

	if (line[0] == ' ' || line[0] == '\t')
		return bad(req, "a folded header line");
	if ((colon = memchr(line, ':', n)) == NULL || colon == line ||
	    has_ctl(line, n))
		return bad(req, "a header line not NAME: VALUE");
	nlen = colon - line;
	for (v = line; v < colon; v++)
		if (!tchar((unsigned char)*v))
			return bad(req, "a header line not NAME: VALUE");
	v = colon + 1;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	vlen = end - v;

	if (is_field(line, nlen, "Host")) {
		if ((*host)++)
			return bad(req, "Host twice");
	} else if (is_field(line, nlen, "Content-Length")) {
		/* GET and HEAD have no body: only an explicit 0 is fine. */
		if (vlen == 0 || strspn(v, "0") < vlen)
			return bad(req, "a body (Content-Length)");
	} else if (is_field(line, nlen, "Transfer-Encoding")) {
		return bad(req, "a body (Transfer-Encoding)");
	} else if (is_field(line, nlen, "Pollguard-Nonce")) {
		if (req->nonce[0] != '\0')
			return bad(req, "Pollguard-Nonce twice");
		if (!pg_nonce_valid(v, vlen))
			return bad(req, "a Pollguard-Nonce not 32 hex digits");
		memcpy(req->nonce, v, vlen);
		req->nonce[vlen] = '\0';
	} else if (is_field(line, nlen, "Authorization")) {
		if (req->has_auth++)
			return bad(req, "Authorization twice");
		/* The value ends in no space: strspn stops within it. */
		skip = vlen > 6 && strncasecmp(v, "Basic ", 6) == 0 ?
		    6 + strspn(v + 6, " ") : vlen;
		if ((vlen -= skip) > PG_AUTH_MAX)
			vlen = 0;
		memcpy(req->auth, v + skip, vlen);
		req->auth[vlen] = '\0';
	}
	return 0;
}

int
pg_request_parse(const char *buf, size_t len, struct pg_request *req)
{
	const char	*p, *nl, *end = buf + len;
	size_t		 n;
	int		 status, host = 0, fields = 0;

	memset(req, 0, sizeof(*req));
	req->minor = 1;

	/* The request line. */
	if ((nl = memchr(buf, '\n', len < PG_REQ_LINE_MAX ? len :
	    PG_REQ_LINE_MAX)) == NULL)
		return len >= PG_REQ_LINE_MAX ? 414 : 0;
	n = content_len(buf, nl - buf);
	req->linelen = n;
	if ((status = request_line(buf, n, req)) != 200)
		return status;

	/* Header fields, up to the empty line. */
	for (p = nl + 1;; p = nl + 1) {
		if (p - buf >= PG_REQ_HEAD_MAX)
			return 431;
		n = end - p;
		if ((size_t)(buf + PG_REQ_HEAD_MAX - p) < n)
			n = buf + PG_REQ_HEAD_MAX - p;
		if ((nl = memchr(p, '\n', n)) == NULL)
			return (size_t)(end - buf) >= PG_REQ_HEAD_MAX ? 431 : 0;
		n = content_len(p, nl - p);
		if (n == 0)
			break;
		if (++fields > PG_REQ_HEADERS_MAX)
			return 431;
		if ((status = header(p, n, req, &host)) != 0)
			return status;
	}
	req->used = nl + 1 - buf;
	if (req->minor == 1 && !host)
		return bad(req, "HTTP/1.1 without Host");
	return 200;
}

static const struct reason {
	int		 status;
	const char	*text;
} reasons[] = {
	{ 200, "OK" },
	{ 400, "Bad Request" },
	{ 401, "Unauthorized" },
	{ 403, "Forbidden" },
	{ 404, "Not Found" },
	{ 405, "Method Not Allowed" },
	{ 408, "Request Timeout" },
	{ 414, "URI Too Long" },
	{ 431, "Request Header Fields Too Large" },
	{ 500, "Internal Server Error" },
	{ 503, "Service Unavailable" },
	{ 505, "HTTP Version Not Supported" },
	{ 0, "Error" }
};

const char *
pg_status_text(int status)
{
	const struct reason	*r;

	for (r = reasons; r->status != 0 && r->status != status; r++)
		;
	return r->text;
}

int
pg_response(char *buf, size_t len, int minor, int status, const char *extra,
    const char *body, size_t bodylen, int head)
{
	int	 n, own;

	if (extra == NULL)
		extra = "";
	own = strncasecmp(extra, "Content-Type:", 13) == 0;
	n = snprintf(buf, len, "HTTP/1.%d %d %s\r\n"
	    "%s"
	    "Content-Length: %zu\r\n"
	    "Connection: close\r\n"
	    "Cache-Control: no-store\r\n"
	    "%s\r\n", minor == 0 ? 0 : 1, status, pg_status_text(status),
	    own ? "" : "Content-Type: text/plain; charset=utf-8\r\n", bodylen,
	    extra);
	if (n < 0 || (size_t)n >= len)
		return -1;
	if (head || bodylen == 0)
		return n;
	if (bodylen >= len - n)
		return -1;
	memcpy(buf + n, body, bodylen);
	return n + bodylen;
}

int
pg_base64(const void *src, size_t len, char *dst, size_t dlen)
{
	static const char	 b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char	*s = src;
	size_t			 i, o = 0;
	uint32_t		 v;

	if (len > (SIZE_MAX - 1) / 4 * 3 - 3 || (len + 2) / 3 * 4 >= dlen)
		return -1;
	for (i = 0; i < len; i += 3) {
		v = (uint32_t)s[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)s[i + 1] << 8;
		if (i + 2 < len)
			v |= s[i + 2];
		dst[o++] = b64[(v >> 18) & 63];
		dst[o++] = b64[(v >> 12) & 63];
		dst[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		dst[o++] = i + 2 < len ? b64[v & 63] : '=';
	}
	dst[o] = '\0';
	return o;
}

/* A Content-Type other than text/plain (with parameters or not): 1, why. */
static int
not_text(const char *ct, char *why, size_t wlen)
{
	char	 q[128];

	if (ct == NULL || (strncasecmp(ct, "text/plain", 10) == 0 &&
	    (ct[10] == '\0' || ct[10] == ';' || ct[10] == ' ' ||
	    ct[10] == '\t')))
		return 0;
	pg_quote(q, sizeof(q), ct, strlen(ct));
	snprintf(why, wlen, "Content-Type %s, not text/plain", q);
	return 1;
}

/* The answer is ms, or never. */
static void
elapsed(struct pg_answer *a, int64_t ms, char *why, size_t wlen)
{
	a->elapsed_ms = ms;
	if (ms == PG_NEVER) {
		a->kind = PG_ANSWER_NEVER;
		snprintf(why, wlen, "never");
	} else {
		a->kind = PG_ANSWER_ELAPSED;
		snprintf(why, wlen, "%" PRId64 " ms", ms);
	}
}

void
pg_answer_parse(long status, const char *ctype, const char *body,
    size_t len, int truncated, struct pg_answer *a, char *why, size_t wlen)
{
	char		 digits[24], q[128];
	const char	*errstr, *text = pg_status_text(status);
	int64_t		 ms;
	size_t		 n;

	a->kind = PG_ANSWER_INVALID;
	a->elapsed_ms = 0;
	if (status == 0 || (status >= 500 && status <= 599))
		a->kind = PG_ANSWER_UNREACHABLE;
	else if (status == 401 || status == 403)
		a->kind = PG_ANSWER_REFUSED;
	else if (status == 404)
		a->kind = PG_ANSWER_UNKNOWN;
	if (status == 0)
		snprintf(why, wlen, "no answer");
	else if (status < 100 || status > 599)
		snprintf(why, wlen, "%ld (not an HTTP status)", status);
	else if (status >= 300 && status <= 399)
		snprintf(why, wlen, "%ld, a redirect (not followed)", status);
	else if (status < 500 && strcmp(text, "Error") == 0)
		snprintf(why, wlen, "HTTP status %ld", status);
	else if (status != 200)
		snprintf(why, wlen, "%ld %s", status, text);
	if (status != 200 || not_text(ctype, why, wlen))
		return;
	if (truncated || len > PG_ANSWER_MAX) {
		snprintf(why, wlen, "answer longer than %d bytes",
		    PG_ANSWER_MAX);
		return;
	}
	n = len;
	if (n > 0 && body[n - 1] == '\n')
		n--;
	if (n > 0 && body[n - 1] == '\r' && n < len)
		n--;
	if (n == 5 && memcmp(body, "never", 5) == 0) {
		elapsed(a, PG_NEVER, why, wlen);
		return;
	}
	pg_quote(q, sizeof(q), body, len);
	if (n == 0 || n >= sizeof(digits) ||
	    !pg_bytes_within(body, n, '0', '9')) {
		snprintf(why, wlen, "not a number of milliseconds: %s", q);
		return;
	}
	memcpy(digits, body, n);
	digits[n] = '\0';
	ms = strtonum(digits, 0, PG_NEVER - 1, &errstr);
	if (errstr != NULL)
		snprintf(why, wlen, "number out of range: %s", q);
	else
		elapsed(a, ms, why, wlen);
}

int
pg_answer_status(long status, const char *ctype, int named, const char *id,
    const char *body, size_t len, int truncated, struct pg_answer *a,
    struct pg_status *st, char *why, size_t wlen)
{
	char	 q[128], reason[PG_WHY_MAX];
	size_t	 used;

	if (status == 404 && !named)
		return 1;
	if (status != 200) {
		/* Only the status matters: the same kinds as for elapsed. */
		pg_answer_parse(status, ctype, body, 0, 0, a, why, wlen);
		return 0;
	}
	a->kind = PG_ANSWER_INVALID;
	a->elapsed_ms = 0;
	if (not_text(ctype, why, wlen))
		return 0;
	if (truncated || len > PG_STATUS_MAX)
		snprintf(why, wlen, "status longer than %d bytes",
		    PG_STATUS_MAX);
	else if (pg_status_parse(body, len, st, &used, reason,
	    sizeof(reason)) == -1)
		snprintf(why, wlen, "not a status: %s", reason);
	else if (strcmp(st->cluster, id) != 0)
		snprintf(why, wlen, "the status of cluster %s, not %s",
		    st->cluster, id);
	else if (used != len) {
		pg_quote(q, sizeof(q), body + used, len - used);
		snprintf(why, wlen, "more after the status: %s", q);
	} else
		elapsed(a, st->elapsed_ms, why, wlen);
	return 0;
}
