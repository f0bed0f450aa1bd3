/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for proto.c: pg_request_parse, pg_status_text, pg_response,
 * pg_base64 and pg_answer_parse, against the contract in pollguard.h and
 * the protocol of spec 3; then a bounded randomized robustness loop.
 *
 * Every input is handed to the parsers at the very end of a mapping whose
 * next page is PROT_NONE: reading one byte past len is a crash here, not
 * a silent pass.
 *
 * The random loop is reproducible: it prints its seed, and PG_SEED=N in
 * the environment replays it.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pollguard.h"
#include "tap.h"
#include "rng.h"

#define ITERATIONS	200000

/*
 * Guarded input buffers.
 */

static char	*guard_base;
static size_t	 guard_size;

static void
guard_init(void)
{
	long	 page = sysconf(_SC_PAGESIZE);

	guard_size = 16 * (size_t)page;		/* 64 KB of data */
	guard_base = mmap(NULL, guard_size + page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard_base == MAP_FAILED)
		err(1, "mmap");
	if (mprotect(guard_base + guard_size, page, PROT_NONE) == -1)
		err(1, "mprotect");
}

/* A copy of data whose last byte is the last readable byte. */
static const char *
guarded(const void *data, size_t len)
{
	char	*p;

	if (len > guard_size)
		errx(1, "test bug: input of %zu bytes", len);
	p = guard_base + guard_size - len;
	if (len > 0)
		memmove(p, data, len);
	return p;
}

/*
 * The same with a NUL after the data (inside the mapping): for the tests
 * of pg_answer_parse's results, so that an over-read is reported once, by
 * test_answer_bounds, and does not end the whole program.
 */
static const char *
guarded_nul(const void *data, size_t len)
{
	char	*p;

	if (len + 1 > guard_size)
		errx(1, "test bug: input of %zu bytes", len);
	p = guard_base + guard_size - len - 1;
	if (len > 0)
		memmove(p, data, len);
	p[len] = '\0';
	return p;
}

/* Run fn in a child: 1 when it returned, 0 when it crashed. */
static int
survives(void (*fn)(void))
{
	pid_t	 pid;
	int	 status;

	fflush(stdout);
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		struct rlimit	 rl = { 0, 0 };

		setrlimit(RLIMIT_CORE, &rl);	/* no core file */
		fn();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) == -1)
		err(1, "waitpid");
	if (WIFSIGNALED(status))
		diag("the child died of signal %d", WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Requests.
 */

static int
parse_len(const char *s, size_t len, struct pg_request *req)
{
	memset(req, 0xa5, sizeof(*req));
	return pg_request_parse(guarded(s, len), len, req);
}

static int
parse(const char *s, struct pg_request *req)
{
	return parse_len(s, strlen(s), req);
}

/* The status of s, a complete head. */
static void
req_is(const char *s, int want, const char *name)
{
	struct pg_request	 req;

	is_int(parse(s, &req), want, "request %s: %d", name, want);
}

/* The status of s is one of two; say which when it is not the first. */
static void
req_either(const char *s, int a, int b, const char *name)
{
	struct pg_request	 req;
	int			 r;

	r = parse(s, &req);
	ok(r == a || r == b, "request %s: %d or %d (got %d)", name, a, b, r);
	if (r == b && r != a)
		diag("request %s: %d", name, r);
}

/* Every proper prefix of s needs more; the whole of it is want. */
static void
prefixes_need_more(const char *s, size_t len, const char *name)
{
	struct pg_request	 req;
	size_t			 i;
	int			 r = 0;

	for (i = 0; i < len; i++)
		if ((r = parse_len(s, i, &req)) != 0)
			break;
	if (!is_int(i, len, "%s: every proper prefix needs more", name))
		diag("the prefix of %zu bytes gave %d", i, r);
}

static const char *const target_path[] = {
	"/v1/elapsed/mail", "/v1/elapsed", "/metrics"
};

static void
test_valid(void)
{
	struct pg_request	 req;
	char			 buf[512], name[128];
	const char		*eol;
	size_t			 len, linelen;
	int			 head, t, minor, lf, r;

	for (head = 0; head < 2; head++)
	for (t = 0; t < 3; t++)
	for (minor = 0; minor < 2; minor++)
	for (lf = 0; lf < 2; lf++) {
		eol = lf ? "\n" : "\r\n";
		linelen = snprintf(buf, sizeof(buf), "%s %s HTTP/1.%d",
		    head ? "HEAD" : "GET", target_path[t], minor);
		len = snprintf(buf, sizeof(buf), "%s %s HTTP/1.%d%s"
		    "%s%sUser-Agent: pollguard-check/0.1.0%sAccept: */*%s%s",
		    head ? "HEAD" : "GET", target_path[t], minor, eol,
		    minor ? "Host: peer.example:8080" : "", minor ? eol : "",
		    eol, eol, eol);
		snprintf(name, sizeof(name), "%s %s HTTP/1.%d %s",
		    head ? "HEAD" : "GET", target_path[t], minor,
		    lf ? "LF" : "CRLF");
		r = parse_len(buf, len, &req);
		is_int(r, 200, "%s: 200", name);
		if (r != 200)
			continue;
		is_int(req.head, head, "%s: head", name);
		is_int(req.minor, minor, "%s: minor", name);
		is_int(req.target, t == 0 ? PG_TARGET_ONE : t == 1 ?
		    PG_TARGET_ALL : PG_TARGET_METRICS, "%s: target", name);
		if (t == 0)
			is_str(req.cluster, "mail", "%s: cluster", name);
		is_int(req.has_auth, 0, "%s: no Authorization", name);
		is_str(req.auth, "", "%s: auth empty", name);
		is_int(req.linelen, linelen, "%s: linelen", name);
		is_int(req.used, len, "%s: used is the whole head", name);
		prefixes_need_more(buf, len, name);
	}

	/* Bytes after the blank line are not part of the head. */
	strlcpy(buf, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /x HTTP/1.1"
	    "\r\n\r\n", sizeof(buf));
	r = parse(buf, &req);
	is_int(r, 200, "bytes after the head: 200");
	is_int(req.used, 34, "bytes after the head: used stops at the "
	    "blank line");
	strlcpy(buf, "GET /metrics HTTP/1.0\n\nxyz", sizeof(buf));
	r = parse(buf, &req);
	is_int(r, 200, "bytes after an LF head: 200");
	is_int(req.used, 23, "bytes after an LF head: used");

	/* Mixed line ends, HTTP/1.0 with Host, an empty Host. */
	req_is("GET /metrics HTTP/1.1\r\nHost: x\n\r\n", 200,
	    "mixed CRLF and LF");
	req_is("GET /metrics HTTP/1.1\nHost: x\r\n\n", 200,
	    "mixed LF and CRLF");
	req_is("GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n", 200,
	    "HTTP/1.0 with Host");
	req_is("GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n", 200,
	    "host in lower case");
	req_is("GET /metrics HTTP/1.1\r\nHOST:x\r\n\r\n", 200,
	    "HOST in upper case, no space");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Tab: a\tb\r\n\r\n",
	    200, "a tab inside a field value");
	req_is("GET /metrics HTTP/1.1\r\nHost: x \t\r\n\r\n", 200,
	    "white space after a field value");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Empty:\r\n\r\n", 200,
	    "an empty field value");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
	    200, "Content-Length: 0");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX-A!#$%&'*+-.^_`|~9: v"
	    "\r\n\r\n", 200, "every tchar in a field name");

	/* Cluster IDs: the longest, and every character allowed. */
	snprintf(buf, sizeof(buf), "GET /v1/elapsed/%s HTTP/1.0\r\n\r\n",
	    "a123456789b123456789c123456789d123456789e123456789f123456789"
	    "ghij");
	r = parse(buf, &req);
	is_int(r, 200, "cluster ID of 64 characters");
	is_int(strlen(req.cluster), 64, "cluster ID of 64 characters kept");
	r = parse("GET /v1/elapsed/A-z_0.9 HTTP/1.0\r\n\r\n", &req);
	is_int(r, 200, "cluster ID A-z_0.9");
	if (r == 200)
		is_str(req.cluster, "A-z_0.9", "cluster ID A-z_0.9 kept");
	r = parse("HEAD /v1/elapsed/news.example HTTP/1.1\r\nHost: h\r\n\r\n",
	    &req);
	is_int(r, 200, "HEAD of news.example");
	if (r == 200) {
		is_str(req.cluster, "news.example", "news.example kept");
		is_int(req.head, 1, "HEAD: head set");
	}
}

static void
test_bad_request(void)
{
	struct pg_request	 req;
	int			 r;

	/* Request line shapes. */
	req_is("GET\r\n\r\n", 400, "GET alone");
	req_is("GET /metrics\r\n\r\n", 400, "no version (HTTP/0.9)");
	req_is("GET  /metrics HTTP/1.0\r\n\r\n", 400, "two spaces after GET");
	req_is("GET /metrics  HTTP/1.0\r\n\r\n", 400,
	    "two spaces before the version");
	req_is(" GET /metrics HTTP/1.0\r\n\r\n", 400, "leading space");
	req_is("GET /metrics HTTP/1.0 \r\n\r\n", 400, "trailing space");
	req_is("GET\t/metrics\tHTTP/1.0\r\n\r\n", 400, "tabs for spaces");
	req_is("GET /metrics HTTP/1.0 x\r\n\r\n", 400, "a fourth word");
	req_is("GET /a b HTTP/1.0\r\n\r\n", 400, "a space in the target");
	req_is("GET /metrics http/1.0\r\n\r\n", 400, "version in lower case");
	req_is("GET /metrics HTTPS/1.0\r\n\r\n", 400, "HTTPS/1.0");
	req_is("GET /metrics HTTP/1\r\n\r\n", 400, "HTTP/1");
	req_is("GET /metrics HTTP/1.\r\n\r\n", 400, "HTTP/1.");
	req_is("GET /metrics HTTP/1.x\r\n\r\n", 400, "HTTP/1.x");
	req_is("GET /metrics HTTP/11\r\n\r\n", 400, "HTTP/11");
	req_is("GET /metrics HTTP/\r\n\r\n", 400, "HTTP/");
	req_either("GET /metrics HTTP/1.1.1\r\nHost: x\r\n\r\n", 400, 505,
	    "HTTP/1.1.1");
	req_is("G(T /metrics HTTP/1.0\r\n\r\n", 400, "method not a token");
	req_is("/metrics HTTP/1.0\r\n\r\n", 400, "no method");
	req_is("GET metrics HTTP/1.0\r\n\r\n", 400, "target without '/'");
	req_is("GET * HTTP/1.0\r\n\r\n", 400, "asterisk-form target");
	req_is("GET http://x/metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	    "absolute-form target");
	req_is("GET http://x/v1/elapsed/mail HTTP/1.0\r\n\r\n", 400,
	    "absolute-form target, HTTP/1.0");
	req_is("GET x:80 HTTP/1.1\r\nHost: x\r\n\r\n", 400,
	    "authority-form target");
	req_is("GET /metrics HTTP/1.0\rX\r\n\r\n", 400,
	    "a bare CR in the request line");
	req_is("GET /metr\x01ics HTTP/1.0\r\n\r\n", 400,
	    "a control character in the target");
	req_is("GET /metrics\x7f HTTP/1.0\r\n\r\n", 400,
	    "DEL in the target");
	r = parse_len("GET /metrics\0 HTTP/1.0\r\n\r\n",
	    sizeof("GET /metrics\0 HTTP/1.0\r\n\r\n") - 1, &req);
	is_int(r, 400, "request %s: %d", "a NUL in the target", 400);
	r = parse_len("GET\0/metrics HTTP/1.0\r\n\r\n",
	    sizeof("GET\0/metrics HTTP/1.0\r\n\r\n") - 1, &req);
	is_int(r, 400, "request %s: %d", "a NUL for a space", 400);
	req_either("\r\nGET /metrics HTTP/1.0\r\n\r\n", 400, 200,
	    "an empty line before the request line");

	/* Header fields. */
	req_is("GET /metrics HTTP/1.1\r\n\r\n", 400, "HTTP/1.1 without Host");
	req_is("GET /metrics HTTP/1.1\r\nX-Host: x\r\n\r\n", 400,
	    "HTTP/1.1, X-Host is no Host");
	req_is("GET /metrics HTTP/1.1\nUser-Agent: x\n\n", 400,
	    "HTTP/1.1 without Host, bare LF");
	req_is("GET /metrics HTTP/1.0\r\nHost x\r\n\r\n", 400,
	    "a field without ':'");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nfoo\r\n\r\n", 400,
	    "a field without ':' after Host");
	req_is("GET /metrics HTTP/1.0\r\n: x\r\n\r\n", 400,
	    "an empty field name");
	req_is("GET /metrics HTTP/1.0\r\nX(y): x\r\n\r\n", 400,
	    "a field name with '('");
	req_is("GET /metrics HTTP/1.0\r\nX y: x\r\n\r\n", 400,
	    "a field name with a space");
	req_is("GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", 400,
	    "white space between field name and ':' (RFC 9112 5.1)");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n",
	    400, "obs-fold with a space");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n",
	    400, "obs-fold with a tab");
	req_is("GET /metrics HTTP/1.1\r\n Host: x\r\n\r\n", 400,
	    "white space before the first field");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n",
	    400, "Content-Length: 1");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\ncontent-length: 12\r\n"
	    "\r\n", 400, "content-length: 12");
	req_is("GET /metrics HTTP/1.0\r\nContent-Length: 99999999999999999999"
	    "\r\n\r\n", 400, "Content-Length of 20 digits");
	req_is("GET /metrics HTTP/1.0\r\nContent-Length: x\r\n\r\n", 400,
	    "Content-Length: x");
	req_is("GET /metrics HTTP/1.0\r\nContent-Length: -1\r\n\r\n", 400,
	    "Content-Length: -1");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n", 400, "Transfer-Encoding: chunked");
	req_is("GET /metrics HTTP/1.0\r\ntransfer-encoding: identity\r\n\r\n",
	    400, "transfer-encoding: identity");
	req_is("GET /metrics HTTP/1.1\r\nHost: a\x01" "b\r\n\r\n", 400,
	    "a control character in a field value");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX: \x1b[31m\r\n\r\n", 400,
	    "ESC in a field value");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX: a\x7f\r\n\r\n", 400,
	    "DEL in a field value");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n", 400,
	    "a bare CR in a field value");
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\nX\x01: a\r\n\r\n", 400,
	    "a control character in a field name");
	r = parse_len("GET /metrics HTTP/1.1\r\nHost: a\0b\r\n\r\n",
	    sizeof("GET /metrics HTTP/1.1\r\nHost: a\0b\r\n\r\n") - 1, &req);
	is_int(r, 400, "request %s: %d", "a NUL in a field value", 400);
	req_is("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\r\n", 400,
	    "CR CR LF for the blank line");
}

static void
test_not_found(void)
{
	static const char *const paths[] = {
		"/", "/v1", "/v1/", "/v1/elapse", "/v1/elapsedx",
		"/v1/elapsed/", "/v1/elapsed/mail/", "/v1/elapsed//mail",
		"/v1/elapsed/mail/x", "/v1/elapsed?x", "/v1/elapsed?",
		"/v1/elapsed/mail?x=1", "/metrics?", "/metrics?name=x",
		"/metrics/", "/Metrics", "/V1/elapsed", "/v2/elapsed",
		"//v1/elapsed", "/./metrics", "/v1/./elapsed",
		"/v1/elapsed/.hidden", "/v1/elapsed/-x", "/v1/elapsed/..",
		"/v1/elapsed/a%2Fb", "/v1/elapsed/%6dail", "/v1/elapsed/a,b",
		"/v1/elapsed/caf\xc3\xa9", "/v1/elapsed/mail;x",
		("/v1/elapsed/a123456789b123456789c123456789d123456789"
		    "e123456789f123456789ghijk"),		/* 65 */
		"/metricsx", "/metrics/x", "/index.html"
	};
	struct pg_request	 req;
	char			 buf[256];
	size_t			 i;
	int			 r;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(buf, sizeof(buf), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n",
		    paths[i]);
		is_int(parse(buf, &req), 404, "GET %s: 404", paths[i]);
	}
	/* Known as soon as the request line is complete: no need to wait. */
	r = parse("GET /nope HTTP/1.0\r\n", &req);
	is_int(r, 404, "404 as soon as the request line is complete");
	is_int(req.minor, 0, "404: minor set (0)");
	is_int(req.linelen, 18, "404: linelen set");
	r = parse("HEAD /v1/elapsed/ HTTP/1.1\n", &req);
	is_int(r, 404, "404 after a bare LF request line");
	is_int(req.minor, 1, "404: minor set (1)");
	is_int(req.linelen, 26, "404: linelen without the LF");
}

static void
test_method(void)
{
	static const char *const methods[] = {
		"POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE",
		"CONNECT", "get", "Get", "head", "GETS", "X-CUSTOM"
	};
	struct pg_request	 req;
	char			 buf[256];
	size_t			 i;
	int			 r;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		snprintf(buf, sizeof(buf), "%s /v1/elapsed/mail HTTP/1.1\r\n"
		    "Host: x\r\n\r\n", methods[i]);
		is_int(parse(buf, &req), 405, "%s: 405", methods[i]);
	}
	r = parse("POST /v1/elapsed HTTP/1.0\r\n", &req);
	is_int(r, 405, "405 as soon as the request line is complete");
	is_int(req.minor, 0, "405: minor set");
	is_int(req.linelen, 25, "405: linelen set");
}

static void
test_version(void)
{
	static const char *const versions[] = {
		"HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/3.0", "HTTP/9.9",
		"HTTP/1.9", "HTTP/0.0"
	};
	struct pg_request	 req;
	char			 buf[256];
	size_t			 i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		snprintf(buf, sizeof(buf), "GET /metrics %s\r\nHost: x\r\n\r\n",
		    versions[i]);
		is_int(parse(buf, &req), 505, "%s: 505", versions[i]);
	}
	is_int(parse("GET /metrics HTTP/2.0\r\n", &req), 505,
	    "505 as soon as the request line is complete");
}

/* "GET /aaa...a HTTP/1.1" of exactly n characters, then eol and Host. */
static size_t
line_of(char *buf, size_t size, size_t n, const char *eol)
{
	size_t	 len;

	if (n < 20 || n + 64 > size)
		errx(1, "test bug: line_of %zu", n);
	memcpy(buf, "GET /", 5);
	memset(buf + 5, 'a', n - 14);
	memcpy(buf + n - 9, " HTTP/1.1", 9);
	len = n;
	len += snprintf(buf + len, size - len, "%sHost: x%s%s", eol, eol, eol);
	return len;
}

static void
test_uri_too_long(void)
{
	struct pg_request	 req;
	char			 buf[4096];
	size_t			 len;
	int			 r;

	/* The limit counts the line with its CRLF. */
	len = line_of(buf, sizeof(buf), PG_REQ_LINE_MAX - 2, "\r\n");
	r = parse_len(buf, len, &req);
	is_int(r, 404, "request line of 1022 + CRLF: not 414 (404)");
	is_int(req.linelen, PG_REQ_LINE_MAX - 2, "1022 + CRLF: linelen");
	len = line_of(buf, sizeof(buf), PG_REQ_LINE_MAX - 1, "\r\n");
	is_int(parse_len(buf, len, &req), 414, "request line of 1023 + CRLF: "
	    "414");
	len = line_of(buf, sizeof(buf), 3000, "\r\n");
	is_int(parse_len(buf, len, &req), 414, "request line of 3000: 414");

	/* Bare LF: 1022 + LF fits on any reading, 1024 + LF on none. */
	len = line_of(buf, sizeof(buf), PG_REQ_LINE_MAX - 2, "\n");
	is_int(parse_len(buf, len, &req), 404, "1022 + LF: not 414 (404)");
	len = line_of(buf, sizeof(buf), PG_REQ_LINE_MAX, "\n");
	is_int(parse_len(buf, len, &req), 414, "1024 + LF: 414");
	len = line_of(buf, sizeof(buf), PG_REQ_LINE_MAX - 1, "\n");
	r = parse_len(buf, len, &req);
	ok(r == 404 || r == 414, "1023 + LF: 404 or 414 (got %d)", r);

	/* As soon as the bytes show it: no LF in time. */
	line_of(buf, sizeof(buf), 3000, "\r\n");
	is_int(parse_len(buf, PG_REQ_LINE_MAX - 1, &req), 0,
	    "1023 bytes without LF: needs more");
	is_int(parse_len(buf, PG_REQ_LINE_MAX + 2, &req), 414,
	    "1026 bytes without LF: 414 at once");
	r = parse_len(buf, PG_REQ_LINE_MAX + 1, &req);
	ok(r == 0 || r == 414, "1025 bytes without LF: 0 or 414 (got %d)",
	    r);
	/* 1022 + CR: the LF may come and make it 1024: wait for it. */
	len = line_of(buf, sizeof(buf), PG_REQ_LINE_MAX - 2, "\r\n");
	is_int(parse_len(buf, PG_REQ_LINE_MAX - 1, &req), 0,
	    "1022 + CR, no LF yet: needs more");
	is_int(parse_len(buf, PG_REQ_LINE_MAX, &req), 404,
	    "1022 + CRLF, no fields yet: 404 at once");
	line_of(buf, sizeof(buf), 3000, "\r\n");
	/* A line of 1023 + CR: the CR cannot be a CRLF within 1024. */
	buf[PG_REQ_LINE_MAX - 1] = '\r';
	r = parse_len(buf, PG_REQ_LINE_MAX, &req);
	ok(r == 0 || r == 414, "1023 + CR, no LF yet: 0 or 414 (got %d)", r);
	is_int(parse_len(buf, 2000, &req), 414, "2000 bytes, no LF: 414");
}

/* A head of exactly total bytes (with its blank line) of nfields fields. */
static size_t
head_of(char *buf, size_t size, size_t total, int nfields)
{
	size_t	 len, pad;
	int	 i;

	len = strlcpy(buf, "GET /metrics HTTP/1.1\r\nHost: x\r\n", size);
	for (i = 2; i < nfields; i++)
		len += snprintf(buf + len, size - len, "X-%d: y\r\n", i);
	/* The last field "X-Pad: ...\r\n" and the blank line. */
	if (total < len + 7 + 2 + 2 || total >= size)
		errx(1, "test bug: head_of %zu", total);
	pad = total - len - 7 - 2 - 2;
	memcpy(buf + len, "X-Pad: ", 7);
	memset(buf + len + 7, 'p', pad);
	len += 7 + pad;
	memcpy(buf + len, "\r\n\r\n", 4);
	return len + 4;
}

static void
test_head_too_large(void)
{
	struct pg_request	 req;
	static char		 buf[20000];
	size_t			 len;
	int			 r;

	len = head_of(buf, sizeof(buf), PG_REQ_HEAD_MAX, 3);
	r = parse_len(buf, len, &req);
	is_int(r, 200, "head of 8192 bytes: 200");
	is_int(req.used, PG_REQ_HEAD_MAX, "head of 8192 bytes: used");
	len = head_of(buf, sizeof(buf), PG_REQ_HEAD_MAX + 1, 3);
	is_int(parse_len(buf, len, &req), 431, "head of 8193 bytes: 431");
	len = head_of(buf, sizeof(buf), 15000, 3);
	is_int(parse_len(buf, len, &req), 431, "head of 15000 bytes: 431");
	/* As soon as the bytes show it: no blank line in time. */
	is_int(parse_len(buf, PG_REQ_HEAD_MAX + 100, &req), 431,
	    "8292 bytes without the blank line: 431 at once");
	is_int(parse_len(buf, PG_REQ_HEAD_MAX - 100, &req), 0,
	    "8092 bytes without the blank line: needs more");

	/* Field count: 64 fit, 65 do not. */
	len = head_of(buf, sizeof(buf), 1500, PG_REQ_HEADERS_MAX);
	is_int(parse_len(buf, len, &req), 200, "64 header fields: 200");
	len = head_of(buf, sizeof(buf), 1500, PG_REQ_HEADERS_MAX + 1);
	is_int(parse_len(buf, len, &req), 431, "65 header fields: 431");
	len = head_of(buf, sizeof(buf), 5000, 300);
	is_int(parse_len(buf, len, &req), 431, "300 header fields: 431");
	/* A 1.0 request of 65 fields without Host is also too many. */
	len = head_of(buf, sizeof(buf), 1500, PG_REQ_HEADERS_MAX + 1);
	buf[20] = '0';			/* HTTP/1.1 -> HTTP/1.0 */
	is_int(parse_len(buf, len, &req), 431,
	    "65 header fields, HTTP/1.0: 431");
}

static void
auth_is(const char *field, int has, const char *want, const char *name)
{
	struct pg_request	 req;
	static char		 buf[2048];
	int			 r;

	snprintf(buf, sizeof(buf), "GET /v1/elapsed/mail HTTP/1.1\r\n"
	    "Host: x\r\n%s\r\n", field);
	r = parse(buf, &req);
	is_int(r, 200, "auth %s: 200", name);
	if (r != 200)
		return;
	is_int(req.has_auth, has, "auth %s: has_auth", name);
	is_str(req.auth, want, "auth %s: token", name);
}

static void
test_auth(void)
{
	char	 field[1024], tok[PG_AUTH_MAX + 2];

	auth_is("", 0, "", "none");
	auth_is("Authorization: Basic dXNlcjpwdw==\r\n", 1, "dXNlcjpwdw==",
	    "Basic");
	auth_is("authorization: basic dXNlcjpwdw==\r\n", 1, "dXNlcjpwdw==",
	    "lower case");
	auth_is("AUTHORIZATION: BASIC dXNlcjpwdw==\r\n", 1, "dXNlcjpwdw==",
	    "upper case");
	auth_is("Authorization: bAsIc dXNlcjpwdw==\r\n", 1, "dXNlcjpwdw==",
	    "mixed case scheme");
	auth_is("Authorization:Basic dXNlcjpwdw==\r\n", 1, "dXNlcjpwdw==",
	    "no space after ':'");
	auth_is("Authorization: Basic dXNlcjpwdw==  \r\n", 1, "dXNlcjpwdw==",
	    "white space after the token");
	auth_is("Authorization: Bearer abc\r\n", 1, "", "Bearer");
	auth_is("Authorization: Basic\r\n", 1, "", "Basic without a token");
	auth_is("Authorization: Basicx abc\r\n", 1, "", "Basicx");
	auth_is("Authorization:\r\n", 1, "", "empty");
	auth_is("X-Authorization: Basic abc\r\n", 0, "", "X-Authorization");

	memset(tok, 'A', PG_AUTH_MAX);
	tok[PG_AUTH_MAX] = '\0';
	snprintf(field, sizeof(field), "Authorization: Basic %s\r\n", tok);
	auth_is(field, 1, tok, "token of 384 characters");
	tok[PG_AUTH_MAX] = 'A';
	tok[PG_AUTH_MAX + 1] = '\0';
	snprintf(field, sizeof(field), "Authorization: Basic %s\r\n", tok);
	auth_is(field, 1, "", "token of 385 characters: too long");

	/* The token with HTTP/1.0 and bare LF. */
	{
		struct pg_request	 req;
		int			 r;

		r = parse("HEAD /v1/elapsed HTTP/1.0\nAuthorization: Basic "
		    "Zm9v\n\n", &req);
		is_int(r, 200, "auth, HTTP/1.0 and LF: 200");
		if (r == 200) {
			is_int(req.has_auth, 1, "auth, LF: has_auth");
			is_str(req.auth, "Zm9v", "auth, LF: token");
			is_int(req.target, PG_TARGET_ALL, "auth, LF: target");
		}
	}
}

static void
test_status_text(void)
{
	static const struct {
		int		 status;
		const char	*text;
	} st[] = {
		{ 200, "OK" }, { 400, "Bad Request" }, { 401, "Unauthorized" },
		{ 403, "Forbidden" }, { 404, "Not Found" },
		{ 405, "Method Not Allowed" }, { 408, "Request Timeout" },
		{ 431, "Request Header Fields Too Large" },
		{ 500, "Internal Server Error" },
		{ 503, "Service Unavailable" },
		{ 505, "HTTP Version Not Supported" }
	};
	const char	*t;
	size_t		 i;

	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		is_str(pg_status_text(st[i].status), st[i].text,
		    "status text %d", st[i].status);
	t = pg_status_text(414);
	ok(t != NULL && (strcmp(t, "URI Too Long") == 0 ||
	    strcmp(t, "Request-URI Too Long") == 0),
	    "status text 414: URI Too Long (got %s)", t ? t : "NULL");
	is_str(pg_status_text(418), "Error", "status text 418: Error");
	is_str(pg_status_text(0), "Error", "status text 0: Error");
	is_str(pg_status_text(-1), "Error", "status text -1: Error");
	is_str(pg_status_text(99999), "Error", "status text 99999: Error");
}

/* The value of a header field in a response head, or NULL. */
static const char *
field(const char *resp, size_t hlen, const char *name)
{
	static char	 val[256];
	const char	*p, *e, *end = resp + hlen;
	size_t		 n = strlen(name);

	/* Skip the status line. */
	if ((p = memchr(resp, '\n', hlen)) == NULL)
		return NULL;
	for (p++; p < end; p = e + 1) {
		if ((e = memchr(p, '\n', end - p)) == NULL)
			return NULL;
		if ((size_t)(e - p) > n && strncasecmp(p, name, n) == 0 &&
		    p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			if (e - p < 1 || e[-1] != '\r')
				return "(no CR)";
			snprintf(val, sizeof(val), "%.*s", (int)(e - 1 - p), p);
			return val;
		}
	}
	return NULL;
}

/* The length of the head (through the blank line), or 0. */
static size_t
head_len(const char *resp, size_t len)
{
	size_t	 i;

	for (i = 0; i + 4 <= len; i++)
		if (memcmp(resp + i, "\r\n\r\n", 4) == 0)
			return i + 4;
	return 0;
}

static int
all_crlf(const char *resp, size_t hlen)
{
	size_t	 i;

	for (i = 0; i < hlen; i++)
		if (resp[i] == '\n' && (i == 0 || resp[i - 1] != '\r'))
			return 0;
		else if (resp[i] == '\r' && (i + 1 >= hlen ||
		    resp[i + 1] != '\n'))
			return 0;
	return 1;
}

static void
test_response(void)
{
	static const char body[] = "12345\n";
	char		 buf[1024], small[64];
	size_t		 hlen;
	int		 n, m;

	memset(buf, 0, sizeof(buf));
	n = pg_response(buf, sizeof(buf), 1, 200, NULL, body, 6, 0);
	ok(n > 0, "response 200, 1.1: length %d", n);
	if (n <= 0)
		return;
	ok(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17) == 0,
	    "response: status line HTTP/1.1 200 OK");
	hlen = head_len(buf, n);
	ok(hlen > 0, "response: a blank line ends the head");
	ok(all_crlf(buf, hlen), "response: every head line ends in CRLF");
	is_int(n, hlen + 6, "response: length is head and body");
	ok(memcmp(buf + hlen, body, 6) == 0, "response: body follows");
	is_str(field(buf, hlen, "Content-Type"), "text/plain; charset=utf-8",
	    "response: Content-Type");
	is_str(field(buf, hlen, "Content-Length"), "6",
	    "response: Content-Length");
	is_str(field(buf, hlen, "Connection"), "close", "response: Connection");
	is_str(field(buf, hlen, "Cache-Control"), "no-store",
	    "response: Cache-Control");
	ok(field(buf, hlen, "WWW-Authenticate") == NULL,
	    "response: no WWW-Authenticate");

	n = pg_response(buf, sizeof(buf), 0, 404, NULL, "Not Found\n", 10, 0);
	ok(n > 0 && strncmp(buf, "HTTP/1.0 404 Not Found\r\n", 24) == 0,
	    "response 404, 1.0: status line HTTP/1.0");
	hlen = n > 0 ? head_len(buf, n) : 0;
	is_str(field(buf, hlen, "Content-Length"), "10",
	    "response 404: Content-Length");
	is_int(n, hlen + 10, "response 404: body follows");

	/* HEAD: the same head, the body's length, no body. */
	{
		char	 get[1024];

		n = pg_response(get, sizeof(get), 1, 200, NULL, body, 6, 0);
		m = pg_response(buf, sizeof(buf), 1, 200, NULL, body, 6, 1);
		hlen = m > 0 ? head_len(buf, m) : 0;
		ok(m > 0 && (size_t)m == hlen, "HEAD: nothing after the head");
		is_str(field(buf, hlen, "Content-Length"), "6",
		    "HEAD: Content-Length of the body not sent");
		ok(n > 6 && m == n - 6 && memcmp(get, buf, m) == 0,
		    "HEAD: byte for byte the GET's head");
	}

	/* Extra header lines. */
	n = pg_response(buf, sizeof(buf), 1, 401, "WWW-Authenticate: Basic "
	    "realm=\"pollguard\"\r\n", "Unauthorized\n", 13, 0);
	hlen = n > 0 ? head_len(buf, n) : 0;
	ok(n > 0 && strncmp(buf, "HTTP/1.1 401 Unauthorized\r\n", 27) == 0,
	    "401: status line");
	is_str(field(buf, hlen, "WWW-Authenticate"),
	    "Basic realm=\"pollguard\"", "401: WWW-Authenticate");
	ok(all_crlf(buf, hlen), "401: every head line ends in CRLF");
	is_int(n, hlen + 13, "401: body follows");
	n = pg_response(buf, sizeof(buf), 0, 405, "Allow: GET, HEAD\r\n",
	    "Method Not Allowed\n", 19, 0);
	hlen = n > 0 ? head_len(buf, n) : 0;
	is_str(field(buf, hlen, "Allow"), "GET, HEAD", "405: Allow");
	is_str(field(buf, hlen, "Connection"), "close", "405: Connection");
	n = pg_response(buf, sizeof(buf), 1, 200, "X-A: 1\r\nX-B: 2\r\n",
	    "", 0, 0);
	hlen = n > 0 ? head_len(buf, n) : 0;
	is_str(field(buf, hlen, "X-A"), "1", "two extra lines: first");
	is_str(field(buf, hlen, "X-B"), "2", "two extra lines: second");
	is_str(field(buf, hlen, "Content-Length"), "0",
	    "empty body: Content-Length 0");
	is_int(n, hlen, "empty body: nothing after the head");

	/* A body with a NUL byte is copied by length. */
	n = pg_response(buf, sizeof(buf), 1, 200, NULL, "a\0b", 3, 0);
	hlen = n > 0 ? head_len(buf, n) : 0;
	ok(n > 0 && (size_t)n == hlen + 3 && memcmp(buf + hlen, "a\0b", 3) ==
	    0, "body with a NUL byte copied whole");

	/* Too small. */
	n = pg_response(buf, sizeof(buf), 1, 200, NULL, body, 6, 0);
	m = pg_response(small, sizeof(small), 1, 200, NULL, body, 6, 0);
	is_int(m, -1, "response into 64 bytes: -1");
	if (n > 0 && (size_t)n + 1 <= sizeof(buf)) {
		char	 exact[1024];

		m = pg_response(exact, n + 1, 1, 200, NULL, body, 6, 0);
		is_int(m, n, "response into length + 1 bytes fits");
		m = pg_response(exact, n - 1, 1, 200, NULL, body, 6, 0);
		is_int(m, -1, "response into length - 1 bytes: -1");
		m = pg_response(exact, n - 6, 1, 200, NULL, body, 6, 0);
		is_int(m, -1, "response with room for the head only: -1");
		m = pg_response(exact, n, 1, 200, NULL, body, 6, 0);
		ok(m == n || m == -1, "response into exactly its length: "
		    "%d or -1 (got %d)", n, m);
		if (m == -1)
			diag("pg_response needs one byte more than it "
			    "writes (room for a NUL)");
		m = pg_response(exact, n - 6, 1, 200, NULL, body, 6, 1);
		ok(m == -1 || m == n - 6, "HEAD into head length: fits or -1");
		m = pg_response(exact, 0, 1, 200, NULL, body, 6, 0);
		is_int(m, -1, "response into 0 bytes: -1");
	}
	/* Every status line the server sends. */
	{
		static const int codes[] = { 200, 400, 401, 403, 404, 405, 408,
		    414, 431, 500, 503, 505 };
		char	 want[128];
		size_t	 i;
		int	 minor;

		for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
			for (minor = 0; minor < 2; minor++) {
				n = pg_response(buf, sizeof(buf), minor,
				    codes[i], NULL, "x\n", 2, 0);
				snprintf(want, sizeof(want), "HTTP/1.%d %d %s"
				    "\r\n", minor, codes[i],
				    pg_status_text(codes[i]));
				ok(n > 0 && strncmp(buf, want,
				    strlen(want)) == 0, "status line %d "
				    "HTTP/1.%d", codes[i], minor);
			}
	}
}

static void
test_base64(void)
{
	static const struct {
		const char	*in, *out;
	} v[] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
		{ "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
		{ "user:pw", "dXNlcjpwdw==" },
		{ "Aladdin:open sesame", "QWxhZGRpbjpvcGVuIHNlc2FtZQ==" }
	};
	static const unsigned char bin[] = { 0xff, 0xfe, 0x00, 0xfb, 0xef,
	    0xbe };
	char	 out[128];
	size_t	 i, n;
	int	 r;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(out, 'z', sizeof(out));
		r = pg_base64(v[i].in, strlen(v[i].in), out, sizeof(out));
		is_int(r, strlen(v[i].out), "base64 \"%s\": length", v[i].in);
		if (r >= 0 && (size_t)r < sizeof(out)) {
			out[r] = '\0';
			is_str(out, v[i].out, "base64 \"%s\"", v[i].in);
		}
	}
	r = pg_base64(bin, sizeof(bin), out, sizeof(out));
	out[r >= 0 && r < (int)sizeof(out) ? r : 0] = '\0';
	is_str(out, "//4A++++", "base64 of binary: '/' and '+'");
	r = pg_base64(bin, 3, out, sizeof(out));
	out[r >= 0 && r < (int)sizeof(out) ? r : 0] = '\0';
	is_str(out, "//4A", "base64 of ff fe 00");

	/* Too small. */
	n = strlen("Zm9vYmFy");
	is_int(pg_base64("foobar", 6, out, n - 1), -1, "base64 into 7: -1");
	is_int(pg_base64("foobar", 6, out, 0), -1, "base64 into 0: -1");
	is_int(pg_base64("f", 1, out, 3), -1, "base64 of 1 byte into 3: -1");
	memset(out, 'z', sizeof(out));
	r = pg_base64("foobar", 6, out, n + 1);
	is_int(r, n, "base64 into length + 1 fits");
	if (r == (int)n)
		ok(out[n] == '\0', "base64 NUL-terminates");
	r = pg_base64("foobar", 6, out, n);
	ok(r == (int)n || r == -1, "base64 into exactly its length: %zu or "
	    "-1 (got %d)", n, r);
	/* A long one: 300 bytes. */
	{
		unsigned char	 src[300];
		char		 big[512];

		for (i = 0; i < sizeof(src); i++)
			src[i] = i * 7;
		r = pg_base64(src, sizeof(src), big, sizeof(big));
		is_int(r, 400, "base64 of 300 bytes: 400 characters");
	}
}

/*
 * Answers.
 */

static const char *const kind_names[] = {
	"ELAPSED", "NEVER", "UNREACHABLE", "REFUSED", "UNKNOWN", "SELF",
	"INVALID"
};

static const char *
kname(int k)
{
	return k >= 0 && k <= PG_ANSWER_INVALID ? kind_names[k] :
	    "(bad kind)";
}

/* Printable ASCII only, NUL-terminated within size. */
static int
printable(const char *s, size_t size)
{
	size_t	 i;

	for (i = 0; i < size; i++) {
		if (s[i] == '\0')
			return 1;
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return 0;
	}
	return 0;
}

static struct pg_answer
answer_len(long status, const char *ctype, const char *body, size_t len,
    int truncated, char *why, size_t wlen)
{
	struct pg_answer	 a;

	memset(&a, 0xa5, sizeof(a));
	memset(why, 0x01, wlen);
	pg_answer_parse(status, ctype, guarded_nul(body, len), len, truncated,
	    &a, why, wlen);
	return a;
}

/* One answer: its kind, and elapsed when ELAPSED; why when given. */
static void
ans(long status, const char *ctype, const char *body, size_t len,
    int truncated, int kind, int64_t elapsed, const char *whypart)
{
	struct pg_answer	 a;
	char			 why[256], name[200];
	size_t			 i, j;

	/* A name for people: the body with escapes. */
	j = snprintf(name, sizeof(name), "%ld %s \"", status,
	    ctype ? ctype : "(none)");
	for (i = 0; i < len && j < sizeof(name) - 16; i++)
		if (body[i] >= 0x20 && body[i] < 0x7f)
			name[j++] = body[i];
		else
			j += snprintf(name + j, sizeof(name) - j, "\\x%02x",
			    (unsigned char)body[i]);
	snprintf(name + j, sizeof(name) - j, "\"%s", truncated ?
	    " truncated" : "");

	a = answer_len(status, ctype, body, len, truncated, why, sizeof(why));
	if (!is_int(a.kind, kind, "answer %s: %s", name, kname(kind)))
		diag("got %s (%s)", kname(a.kind), printable(why,
		    sizeof(why)) ? why : "why not printable");
	if (kind == PG_ANSWER_ELAPSED && a.kind == PG_ANSWER_ELAPSED)
		is_int(a.elapsed_ms, elapsed, "answer %s: elapsed", name);
	if (PG_ANSWER_BAD(kind) || kind == PG_ANSWER_UNREACHABLE) {
		ok(printable(why, sizeof(why)) && why[0] != '\0',
		    "answer %s: why is printable and not empty", name);
		if (whypart != NULL)
			like(why, whypart, "answer %s: why", name);
	}
}

#define A200(body, kind, e)	ans(200, "text/plain; charset=utf-8", \
				    body, sizeof(body) - 1, 0, kind, e, NULL)
#define AINV(body)		ans(200, "text/plain; charset=utf-8", \
				    body, sizeof(body) - 1, 0, \
				    PG_ANSWER_INVALID, 0, NULL)

static void
test_answer(void)
{
	struct pg_answer	 a;
	char			 why[256], body[128];
	static const long	 invalid_status[] = {
		100, 101, 199, 201, 204, 206, 301, 302, 304, 307, 400, 401, 403,
		404, 405, 406, 408, 410, 418, 429, 499, 600, 999, -1, 1000
	};
	static const long	 unreachable_status[] = {
		0, 500, 501, 502, 503, 504, 505, 599
	};
	size_t			 i;

	A200("0", PG_ANSWER_ELAPSED, 0);
	A200("0\n", PG_ANSWER_ELAPSED, 0);
	A200("0\r\n", PG_ANSWER_ELAPSED, 0);
	A200("123\r\n", PG_ANSWER_ELAPSED, 123);
	A200("5000\n", PG_ANSWER_ELAPSED, 5000);
	A200("9223372036854775806", PG_ANSWER_ELAPSED, INT64_MAX - 1);
	A200("9223372036854775806\n", PG_ANSWER_ELAPSED, INT64_MAX - 1);
	A200("never", PG_ANSWER_NEVER, 0);
	A200("never\n", PG_ANSWER_NEVER, 0);
	A200("never\r\n", PG_ANSWER_NEVER, 0);
	ans(200, NULL, "42\n", 3, 0, PG_ANSWER_ELAPSED, 42, NULL);
	ans(200, "text/plain", "42\n", 3, 0, PG_ANSWER_ELAPSED, 42, NULL);
	ans(200, "text/plain;charset=utf-8", "42", 2, 0, PG_ANSWER_ELAPSED, 42,
	    NULL);
	ans(200, "text/plain; version=0.0.4", "42", 2, 0, PG_ANSWER_ELAPSED,
	    42, NULL);
	ans(200, NULL, "never\n", 6, 0, PG_ANSWER_NEVER, 0, NULL);
	/* len is what counts, not a NUL. */
	ans(200, NULL, "12", 1, 0, PG_ANSWER_ELAPSED, 1, NULL);
	ans(200, NULL, "7x", 1, 0, PG_ANSWER_ELAPSED, 7, NULL);

	AINV("9223372036854775807");
	AINV("9223372036854775807\n");
	AINV("9223372036854775808");
	AINV("18446744073709551616");
	AINV("99999999999999999999999999999999");
	AINV("-1");
	AINV("-0");
	AINV("+1");
	AINV(" 1");
	AINV("1 ");
	AINV("1\t");
	AINV("1\n\n");
	AINV("1\r");
	AINV("1\n\r");
	AINV("1\r\r\n");
	AINV("\n1");
	AINV("\n");
	AINV("\r\n");
	AINV("");
	AINV("abc");
	AINV("1.5");
	AINV("1e3");
	AINV("0x10");
	AINV("12abc");
	AINV("Never");
	AINV("NEVER");
	AINV("never ");
	AINV("nevermore");
	AINV("neve");
	AINV("never\n\n");
	AINV("never\nnever\n");
	AINV("1\nnever");
	ans(200, NULL, "1\0", 2, 0, PG_ANSWER_INVALID, 0, NULL);
	ans(200, NULL, "\0" "1", 2, 0, PG_ANSWER_INVALID, 0, NULL);
	ans(200, NULL, "abc", 3, 0, PG_ANSWER_INVALID, 0, "abc");

	/* Leading zeros: not specified; a number or invalid, never else. */
	a = answer_len(200, NULL, "01", 2, 0, why, sizeof(why));
	ok((a.kind == PG_ANSWER_ELAPSED && a.elapsed_ms == 1) ||
	    a.kind == PG_ANSWER_INVALID, "answer \"01\": 1 or invalid (%s)",
	    kname(a.kind));
	a = answer_len(200, NULL, "00000000000000000000000000005", 29, 0, why,
	    sizeof(why));
	ok((a.kind == PG_ANSWER_ELAPSED && a.elapsed_ms == 5) ||
	    a.kind == PG_ANSWER_INVALID, "answer of 28 zeros and 5: 5 or "
	    "invalid (%s)", kname(a.kind));

	/* Truncated: invalid whatever was kept. */
	ans(200, NULL, "123", 3, 1, PG_ANSWER_INVALID, 0, NULL);
	ans(200, NULL, "never", 5, 1, PG_ANSWER_INVALID, 0, NULL);
	memset(body, '1', PG_ANSWER_MAX);
	ans(200, NULL, body, PG_ANSWER_MAX, 1, PG_ANSWER_INVALID, 0, NULL);
	ans(200, NULL, body, PG_ANSWER_MAX, 0, PG_ANSWER_INVALID, 0, NULL);

	/* Statuses. */
	for (i = 0; i < sizeof(unreachable_status) /
	    sizeof(unreachable_status[0]); i++)
		ans(unreachable_status[i], NULL, "5\n", 2, 0,
		    PG_ANSWER_UNREACHABLE, 0, NULL);
	ans(0, NULL, "", 0, 0, PG_ANSWER_UNREACHABLE, 0, NULL);
	ans(503, "text/html", "<html>busy</html>", 17, 0,
	    PG_ANSWER_UNREACHABLE, 0, "503");
	for (i = 0; i < sizeof(invalid_status) / sizeof(invalid_status[0]);
	    i++)
		ans(invalid_status[i], "text/plain; charset=utf-8", "5\n", 2,
		    0, invalid_status[i] == 401 || invalid_status[i] == 403 ?
		    PG_ANSWER_REFUSED : invalid_status[i] == 404 ?
		    PG_ANSWER_UNKNOWN : PG_ANSWER_INVALID, 0, NULL);
	ans(401, "text/plain; charset=utf-8", "Unauthorized\n", 13, 0,
	    PG_ANSWER_REFUSED, 0, "401");
	ans(403, NULL, "Forbidden\n", 10, 0, PG_ANSWER_REFUSED, 0, "403");
	ans(404, NULL, "Not Found\n", 10, 0, PG_ANSWER_UNKNOWN, 0, "404");
	ans(302, NULL, "", 0, 0, PG_ANSWER_INVALID, 0, "302, a redirect");
	ans(418, NULL, "", 0, 0, PG_ANSWER_INVALID, 0, "HTTP status 418");
	ans(204, NULL, "", 0, 0, PG_ANSWER_INVALID, 0, "204");

	/* Content-Type. */
	ans(200, "text/html", "5\n", 2, 0, PG_ANSWER_INVALID, 0, "text/html");
	ans(200, "application/json", "5", 1, 0, PG_ANSWER_INVALID, 0, NULL);
	ans(200, "text/plainx", "5", 1, 0, PG_ANSWER_INVALID, 0, NULL);
	ans(200, "text/plai", "5", 1, 0, PG_ANSWER_INVALID, 0, NULL);
	ans(200, "", "5", 1, 0, PG_ANSWER_INVALID, 0, NULL);
	ans(200, "text/html", "never\n", 6, 0, PG_ANSWER_INVALID, 0, NULL);
	a = answer_len(200, "TEXT/PLAIN", "5", 1, 0, why, sizeof(why));
	ok(a.kind == PG_ANSWER_ELAPSED || a.kind == PG_ANSWER_INVALID,
	    "Content-Type in capitals: elapsed or invalid (%s)",
	    kname(a.kind));
	if (a.kind != PG_ANSWER_ELAPSED)
		diag("Content-Type TEXT/PLAIN is refused (media types are "
		    "case-insensitive, RFC 9110 8.3.1)");

	/* why is safe to print whatever the peer sent. */
	{
		static const char *const nasty[] = {
			"\x1b[2J\x1b[31mred", "a\nb", "a\rb", "\t", "\x7f",
			"\x9b\x33\x31m", "\xff\xfe", "caf\xc3\xa9",
			"\"quoted\"",
			"back\\slash", "\x01\x02\x03\x04\x05\x06\x07\x08"
		};
		static const char *const ctypes[] = {
			"text/html\x1b[31m", "text/\nplain", "\xff"
		};

		for (i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++)
			ans(200, NULL, nasty[i], strlen(nasty[i]), 0,
			    PG_ANSWER_INVALID, 0, NULL);
		for (i = 0; i < sizeof(ctypes) / sizeof(ctypes[0]); i++)
			ans(200, ctypes[i], "5", 1, 0, PG_ANSWER_INVALID, 0,
			    NULL);
		memset(body, '\x1b', PG_ANSWER_MAX);
		ans(200, NULL, body, PG_ANSWER_MAX, 1, PG_ANSWER_INVALID, 0,
		    NULL);
		ans(403, "text/\x1b", "\x1b", 1, 0, PG_ANSWER_REFUSED, 0,
		    NULL);
	}

	/* A small why buffer: cut short, still terminated. */
	for (i = 1; i < 12; i++) {
		char	 small[16];

		memset(small, 'q', sizeof(small));
		pg_answer_parse(200, NULL, guarded_nul("not a number at all",
		    19), 19, 0, &a, small, i);
		if (!ok(memchr(small, '\0', i) != NULL && small[i] == 'q',
		    "why of %zu bytes: terminated, nothing written past it",
		    i))
			break;
	}
}

/* pg_quote: 24 bytes at most, escaped, "..." only when there was more. */
static void
test_quote(void)
{
	char	 q[128];

	pg_quote(q, sizeof(q), "abcdefghijklmnopqrstuvwx", 24);
	is_str(q, "\"abcdefghijklmnopqrstuvwx\"", "24 bytes: whole, no ...");
	pg_quote(q, sizeof(q), "abcdefghijklmnopqrstuvwxy", 25);
	is_str(q, "\"abcdefghijklmnopqrstuvwx\"...", "25 bytes: 24 and ...");
	pg_quote(q, sizeof(q), "a\"\n\001", 4);
	is_str(q, "\"a\\\"\\n\\001\"", "a quote, a newline, a control "
	    "character: escaped");
	pg_quote(q, 8, "abcdefghijklmnopqrstuvwxy", 25);
	is_str(q, "\"abcdef", "a small buffer: cut, terminated");
}

static const char *const templates[7];

/* Bodies that end exactly at an unreadable page. */
static void
answers_at_page_end(void)
{
	static const char *const bodies[] = {
		"0", "123", "123\n", "123\r\n", "never", "never\n", "abc",
		"9223372036854775806", "", "\r", "\n", "1x"
	};
	struct pg_answer	 a;
	char			 why[128];
	size_t			 i, len;

	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		len = strlen(bodies[i]);
		pg_answer_parse(200, NULL, guarded(bodies[i], len), len, 0, &a,
		    why, sizeof(why));
		pg_answer_parse(200, "text/plain", guarded(bodies[i], len), len,
		    0, &a, why, sizeof(why));
	}
}

static void
requests_at_page_end(void)
{
	struct pg_request	 req;
	size_t			 i, len;

	for (i = 0; i < sizeof(templates) / sizeof(templates[0]); i++) {
		len = strlen(templates[i]);
		while (len > 0) {
			pg_request_parse(guarded(templates[i], len), len, &req);
			len--;
		}
	}
}

static void
test_bounds(void)
{
	ok(survives(answers_at_page_end), "pg_answer_parse reads no byte of "
	    "the body past len (a body need not be NUL-terminated)");
	ok(survives(requests_at_page_end), "pg_request_parse reads no byte "
	    "past len");
}

/*
 * The randomized loop.
 */

static uint32_t
uniform(uint32_t n)
{
	return n == 0 ? 0 : (uint32_t)(rnd() % n);
}

static const char *const templates[7] = {
	"GET /v1/elapsed/mail HTTP/1.1\r\nHost: peer:8080\r\n"
	    "User-Agent: pollguard-check/0.1.0\r\nAccept: */*\r\n\r\n",
	"HEAD /v1/elapsed HTTP/1.0\r\n\r\n",
	"GET /metrics HTTP/1.1\nHost: x\n\n",
	"GET /v1/elapsed/news.example HTTP/1.1\r\nHost: h\r\n"
	    "Authorization: Basic dXNlcjpwdw==\r\n\r\n",
	"GET /v1/elapsed HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
	"POST /v1/elapsed/mail HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
	    "\r\nhello",
	"GET /v1/elapsed/mail HTTP/2.0\r\nHost: h\r\n\r\n",
};

static const char	 pieces[] = " :\r\n\t/\x00\x7f\x80?%.-aG1";

/* Mutate buf[0..*len) in place; at most cap bytes. */
static void
mutate(char *buf, size_t *len, size_t cap)
{
	size_t	 at, n, k;

	at = *len > 0 ? uniform(*len) : 0;
	switch (uniform(7)) {
	case 0:		/* flip a byte */
		if (*len > 0)
			buf[at] = (char)uniform(256);
		break;
	case 1:		/* a special byte */
		if (*len > 0)
			buf[at] = pieces[uniform(sizeof(pieces) - 1)];
		break;
	case 2:		/* insert a byte */
		if (*len < cap) {
			memmove(buf + at + 1, buf + at, *len - at);
			buf[at] = uniform(2) ? (char)uniform(256) :
			    pieces[uniform(sizeof(pieces) - 1)];
			(*len)++;
		}
		break;
	case 3:		/* delete a run */
		if (*len > 0) {
			n = 1 + uniform(4);
			if (n > *len - at)
				n = *len - at;
			memmove(buf + at, buf + at + n, *len - at - n);
			*len -= n;
		}
		break;
	case 4:		/* duplicate a run (grows heads and lines) */
		n = 1 + uniform(64);
		if (n > *len - at)
			n = *len - at;
		k = 1 + uniform(40);
		while (k-- > 0 && *len + n <= cap) {
			memmove(buf + at + n, buf + at, *len - at);
			*len += n;
		}
		break;
	case 5:		/* cut */
		*len = at;
		break;
	default:	/* swap two bytes */
		if (*len > 1) {
			char	 c = buf[at];

			k = uniform(*len);
			buf[at] = buf[k];
			buf[k] = c;
		}
		break;
	}
}

static int
status_allowed(int r)
{
	return r == 0 || r == 200 || r == 400 || r == 404 || r == 405 ||
	    r == 414 || r == 431 || r == 505;
}

/* A 200's fields are sane; 0 and a reason when not. */
static const char *
sane(const char *buf, size_t len, const struct pg_request *req)
{
	if (req->used == 0 || req->used > len)
		return "used out of range";
	if (req->used > PG_REQ_HEAD_MAX)
		return "used above PG_REQ_HEAD_MAX";
	if (buf[req->used - 1] != '\n')
		return "head does not end in LF";
	if (req->linelen >= req->used || req->linelen + 1 > PG_REQ_LINE_MAX)
		return "linelen out of range";
	if (req->minor != 0 && req->minor != 1)
		return "minor not 0 or 1";
	if (req->head != 0 && req->head != 1)
		return "head not 0 or 1";
	if (req->has_auth != 0 && req->has_auth != 1)
		return "has_auth not 0 or 1";
	if (memchr(req->auth, '\0', sizeof(req->auth)) == NULL)
		return "auth not terminated";
	if (!req->has_auth && req->auth[0] != '\0')
		return "auth without has_auth";
	if (req->target != PG_TARGET_ONE && req->target != PG_TARGET_ALL &&
	    req->target != PG_TARGET_METRICS)
		return "target out of range";
	if (req->target == PG_TARGET_ONE &&
	    (memchr(req->cluster, '\0', sizeof(req->cluster)) == NULL ||
	    !pg_cluster_id_valid(req->cluster)))
		return "cluster not a valid ID";
	if (memcmp(buf, req->head ? "HEAD " : "GET ", req->head ? 5 : 4) != 0)
		return "head flag does not match the method";
	return NULL;
}

static void
test_random(void)
{
	static char		 buf[24 * 1024];
	struct pg_request	 req, preq;
	struct pg_answer	 a;
	char			 why[128];
	const char		*bad;
	size_t			 len, plen, cap = sizeof(buf);
	long			 it;
	int			 r, pr, nbad = 0, nrange = 0, nprefix = 0;
	int			 nsane = 0, nans = 0, counts[6] = { 0 };
	int			 k;

	rng_init("random loop: ");

	for (it = 0; it < ITERATIONS; it++) {
		if (uniform(8) == 0) {
			/* Random bytes, now and then with line ends. */
			len = uniform(400);
			for (size_t i = 0; i < len; i++)
				buf[i] = uniform(3) ? (char)uniform(256) :
				    pieces[uniform(sizeof(pieces) - 1)];
		} else {
			len = strlcpy(buf, templates[uniform(
			    sizeof(templates) / sizeof(templates[0]))], cap);
			for (k = uniform(4); k >= 0; k--)
				mutate(buf, &len, cap);
		}

		r = parse_len(buf, len, &req);
		if (!status_allowed(r)) {
			if (nrange++ < 5)
				diag("seed %" PRIu64 " iteration %ld: "
				    "status %d", seed, it, r);
			continue;
		}
		counts[r == 0 ? 0 : r == 200 ? 1 : r == 400 ? 2 : r == 404 ?
		    3 : r == 405 ? 4 : 5]++;
		if (r == 200 && (bad = sane(buf, len, &req)) != NULL) {
			if (nsane++ < 5)
				diag("seed %" PRIu64 " iteration %ld: 200 but "
				    "%s", seed, it, bad);
		}
		/* A prefix that decided decides the same for the whole. */
		plen = len > 0 ? uniform(len + 1) : 0;
		pr = parse_len(buf, plen, &preq);
		if (!status_allowed(pr))
			nbad++;
		else if (pr != 0 && (pr != r ||
		    (r == 200 && preq.used != req.used))) {
			if (nprefix++ < 5)
				diag("seed %" PRIu64 " iteration %ld: "
				    "prefix of %zu of %zu bytes gave %d, the "
				    "whole %d",
				    seed, it, plen, len, pr, r);
		}

		/* The same bytes as a peer's answer. */
		plen = len < 80 ? len : uniform(80);
		memset(&a, 0xa5, sizeof(a));
		pg_answer_parse(uniform(4) ? 200 : (long)uniform(700),
		    uniform(3) ? NULL : "text/plain", guarded_nul(buf, plen),
		    plen,
		    uniform(8) == 0, &a, why, sizeof(why));
		if (a.kind != PG_ANSWER_ELAPSED && a.kind != PG_ANSWER_NEVER &&
		    a.kind != PG_ANSWER_UNREACHABLE &&
		    a.kind != PG_ANSWER_REFUSED &&
		    a.kind != PG_ANSWER_UNKNOWN &&
		    a.kind != PG_ANSWER_INVALID)
			nans++;
		else if (a.kind == PG_ANSWER_ELAPSED && (a.elapsed_ms < 0 ||
		    a.elapsed_ms == PG_NEVER))
			nans++;
		else if ((PG_ANSWER_BAD(a.kind) ||
		    a.kind == PG_ANSWER_UNREACHABLE) &&
		    (!printable(why, sizeof(why)) || why[0] == '\0'))
			nans++;
	}
	diag("random loop: %d need more, %d 200, %d 400, %d 404, %d 405, "
	    "%d other", counts[0], counts[1], counts[2], counts[3], counts[4],
	    counts[5]);
	is_int(nrange + nbad, 0, "random: every status in the allowed set "
	    "(seed %" PRIu64 ")", seed);
	is_int(nsane, 0, "random: every 200 has sane fields (seed %" PRIu64
	    ")", seed);
	is_int(nprefix, 0, "random: a decided prefix decides the whole "
	    "(seed %" PRIu64 ")", seed);
	is_int(nans, 0, "random: answers have a valid kind and a printable "
	    "why (seed %" PRIu64 ")", seed);
	ok(counts[1] > 1000 && counts[2] > 1000,
	    "random: the loop reaches both 200 and 400");
}

/* Random bytes appended after a valid head do not change its result. */
static void
test_random_tail(void)
{
	static char		 buf[4096];
	struct pg_request	 req;
	size_t			 base, len, i;
	int			 t, r, bad = 0;

	for (t = 0; t < 2000; t++) {
		base = strlcpy(buf, templates[t % 4], sizeof(buf));
		len = base + uniform(200);
		for (i = base; i < len; i++)
			buf[i] = (char)uniform(256);
		r = parse_len(buf, len, &req);
		if (r != 200 || req.used != base)
			bad++;
	}
	is_int(bad, 0, "bytes after a complete head never change it");
}


/* pg_answer_status: one case, on a guarded copy of the body. */
static int
status_case(long status, const char *ctype, int named, const char *body,
    int truncated, struct pg_answer *a, struct pg_status *st, char *why,
    size_t wlen)
{
	size_t	 len = strlen(body);

	memset(a, 0xa5, sizeof(*a));
	return pg_answer_status(status, ctype, named, "mail",
	    guarded(body, len), len, truncated, a, st, why, wlen);
}

static void
test_answer_status(void)
{
	struct pg_answer	 a;
	struct pg_status	 st;
	char			 why[PG_WHY_MAX], big[PG_STATUS_MAX + 2];
	int			 r;

	r = status_case(404, NULL, 0, "Not Found\n", 0, &a, &st, why,
	    sizeof(why));
	is_int(r, 1, "status: 404 without Pollguard-Node: ask /v1/elapsed");
	r = status_case(404, NULL, 1, "Not Found\n", 0, &a, &st, why,
	    sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_UNKNOWN, "status: 404 with "
	    "Pollguard-Node: unknown cluster (%s)", why);
	r = status_case(401, NULL, 1, "", 0, &a, &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_REFUSED, "status: 401 refused");
	r = status_case(503, NULL, 0, "", 0, &a, &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_UNREACHABLE, "status: 503 "
	    "unreachable");
	r = status_case(200, "text/plain; charset=utf-8", 1,
	    "cluster mail\nnode b\nelapsed 5000\nclaim 5000\nrunning 0\n"
	    "last_exit 2\nlast_duration 10\nlast_end 4000\nfailures 3\n"
	    "some_later_key x y\nhold 9000\nhold_by ops\n\n", 0, &a, &st,
	    why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_ELAPSED && a.elapsed_ms == 5000 &&
	    st.failures == 3 && st.last_exit == 2 && st.last_end_ms == 4000 &&
	    st.claim_ms == 5000 && st.hold_ms == 9000 &&
	    strcmp(st.hold_by, "ops") == 0, "status: a full block read, an "
	    "unknown key skipped (%s)", why);
	r = status_case(200, NULL, 0, "cluster mail\nelapsed never\n", 0, &a,
	    &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_NEVER && a.elapsed_ms == PG_NEVER,
	    "status: never, no blank line at the end");
	r = status_case(200, NULL, 1, "cluster fkb\nelapsed 1\n\n", 0, &a,
	    &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_INVALID && strstr(why, "fkb") !=
	    NULL, "status of another cluster: invalid (%s)", why);
	r = status_case(200, NULL, 1, "cluster mail\nelapsed 1\n\n"
	    "cluster fkb\nelapsed 1\n\n", 0, &a, &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_INVALID, "status: two blocks: "
	    "invalid (%s)", why);
	r = status_case(200, NULL, 1, "60000\n", 0, &a, &st, why,
	    sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_INVALID && strstr(why,
	    "not a status") != NULL && strstr(why, "\"60000\"") != NULL,
	    "status: an elapsed body: invalid, the parser's reason, the line "
	    "quoted (%s)", why);
	r = status_case(200, NULL, 1, "cluster mail\nelapsed 1\nfailures "
	    "-1\n\n", 0, &a, &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_INVALID && strstr(why, "failures")
	    != NULL, "status: a value out of range: invalid (%s)", why);
	r = status_case(200, "text/html", 1, "cluster mail\nelapsed 1\n\n",
	    0, &a, &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_INVALID, "status: text/html: "
	    "invalid");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	r = status_case(200, NULL, 1, big, 1, &a, &st, why, sizeof(why));
	ok(r == 0 && a.kind == PG_ANSWER_INVALID && strstr(why, "longer") !=
	    NULL, "status: cut off at PG_STATUS_MAX: invalid (%s)", why);
}

/* Pollguard-Nonce: read by serve, echoed in the block, checked by askers. */
static void
test_nonce(void)
{
	static const char	 n1[] = "0123456789abcdef0123456789abcdef";
	static const char	 n2[] = "fedcba9876543210fedcba9876543210";
	struct pg_request	 req;
	struct pg_status	 st, back;
	char			 buf[PG_STATUS_MAX], why[PG_WHY_MAX];
	size_t			 used;
	int			 n, r;

	r = parse("GET /v1/status/mail HTTP/1.1\r\nHost: a\r\n"
	    "Pollguard-Nonce: 0123456789abcdef0123456789abcdef\r\n\r\n",
	    &req);
	is_int(r, 200, "nonce: 200");
	is_str(req.nonce, n1, "nonce: read");
	r = parse("GET /v1/status/mail HTTP/1.1\r\nHost: a\r\n\r\n", &req);
	is_str(req.nonce, "", "no nonce: empty");
	is_int(parse("GET /v1/status HTTP/1.0\r\npollguard-nonce: "
	    "0123456789ABCDEF0123456789abcdef\r\n\r\n", &req), 400,
	    "nonce in upper case: 400");
	is_int(parse("GET /v1/status HTTP/1.0\r\nPollguard-Nonce: "
	    "0123456789abcdef0123456789abcde\r\n\r\n", &req), 400,
	    "nonce of 31 digits: 400");
	is_int(parse("GET /v1/status HTTP/1.0\r\nPollguard-Nonce: "
	    "0123456789abcdef0123456789abcdef0\r\n\r\n", &req), 400,
	    "nonce of 33 digits: 400");
	is_int(parse("GET /v1/status HTTP/1.0\r\nPollguard-Nonce: "
	    "0123456789abcdef0123456789abcdef\r\nPollguard-Nonce: "
	    "0123456789abcdef0123456789abcdef\r\n\r\n", &req), 400,
	    "nonce twice: 400");

	pg_status_init(&st);
	strlcpy(st.cluster, "mail", sizeof(st.cluster));
	strlcpy(st.version, "0.5.0", sizeof(st.version));
	strlcpy(st.nonce, n1, sizeof(st.nonce));
	n = pg_status_format(&st, buf, sizeof(buf));
	ok(n > 0 && strstr(buf, "\nnonce " "0123456789abcdef0123456789abcdef"
	    "\n") != NULL, "the block carries the nonce");
	r = n > 0 ? pg_status_parse(buf, n, &back, &used, why, sizeof(why)) :
	    -1;
	is_int(r, 0, "the block with a nonce parses");
	is_str(back.nonce, n1, "and the nonce reads back");
	is_int(pg_status_parse("cluster mail\nelapsed 5\nnonce xyz\n", 35,
	    &back, &used, why, sizeof(why)), -1, "a nonce not hex: invalid");

	is_int(pg_status_fresh(&st, n1, why, sizeof(why)), 1,
	    "our nonce: fresh");
	is_int(pg_status_fresh(&st, n2, why, sizeof(why)), 0,
	    "another nonce: stale");
	like(why, "from a cache", "stale: the reason names the cache");
	st.nonce[0] = '\0';
	is_int(pg_status_fresh(&st, n2, why, sizeof(why)), 0,
	    "0.5 without a nonce: stale");
	like(why, "a 0.5.0 serve without", "and says so");
	strlcpy(st.version, "0.4.0", sizeof(st.version));
	is_int(pg_status_fresh(&st, n2, why, sizeof(why)), 1,
	    "0.4 without a nonce: accepted");
	strlcpy(st.version, "1.0", sizeof(st.version));
	is_int(pg_status_fresh(&st, n2, why, sizeof(why)), 0,
	    "1.0 without a nonce: stale");
	st.version[0] = '\0';
	is_int(pg_status_fresh(&st, n2, why, sizeof(why)), 1,
	    "no version (0.4 with a proxy's view): accepted");
}

int
main(void)
{
	guard_init();
	test_valid();
	test_bad_request();
	test_not_found();
	test_method();
	test_version();
	test_uri_too_long();
	test_head_too_large();
	test_auth();
	test_nonce();
	test_status_text();
	test_response();
	test_base64();
	test_answer();
	test_answer_status();
	test_quote();
	test_bounds();
	test_random();
	test_random_tail();
	return done_testing();
}
