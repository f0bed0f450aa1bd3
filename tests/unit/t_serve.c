/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for serve.c, the answer to a request: each route and each
 * status, byte for byte where the answer does not depend on the clock,
 * the log line, the allow list and the client addresses, and the listen
 * address parser (listen.c). Records are written by the library into a
 * fresh state directory.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "pollguard.h"
#include "tap.h"

#define TOKEN	"cGVlcjpzM2NyZXQ="	/* base64 of peer:s3cret */
#define WRONG	"cGVlcjp3cm9uZw=="	/* base64 of peer:wrong */
#define HEAD(status, reason, len, extra)				\
	"HTTP/1.1 " status " " reason "\r\n"				\
	"Content-Type: text/plain; charset=utf-8\r\n"			\
	"Content-Length: " len "\r\nConnection: close\r\n"		\
	"Cache-Control: no-store\r\n" extra "\r\n"
#define ERR(status, reason, len)	HEAD(status, reason, len, "") reason "\n"
#define NONCE	"0123456789abcdef0123456789abcdef"
#define ECHO	"Pollguard-Nonce: " NONCE "\r\n"

static char			 dir[256];
static struct pg_config		*open_cfg, *auth_cfg, *allow_cfg;
static struct pg_state		 st;

static struct pg_config *
config(const char *name, const char *extra)
{
	struct pg_config	*cfg;
	char			 path[PATH_MAX], err[PG_ERR_MAX];
	FILE			*fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "w")) == NULL)
		errx(1, "%s", path);
	fprintf(fp, "[pollguard]\nnode = t1\nstate = %s/state\n%s"
	    "[cluster c1]\nwait = 10s\n[cluster idle]\nwait = 90s\n"
	    "[cluster bad]\nwait = 1h\n", dir, extra);
	fclose(fp);
	chmod(path, 0600);
	if (pg_config_load(path, &cfg, err, sizeof(err)) == -1)
		errx(1, "%s", err);
	return cfg;
}

struct reply {
	struct pg_reply	 r;
	char		*out;
	size_t		 len;
};

/* Answer in[] (status: the parser's unless given) from client addr. */
static void
ask(struct reply *a, const struct pg_config *cfg, const char *addr,
    const char *in, int status)
{
	struct pg_request	 req;
	struct pg_client	 c;
	char			*out = NULL;
	int			 parsed;

	parsed = pg_request_parse(in, strlen(in), &req);
	pg_client_parse(&c, addr);
	pg_serve_answer(status != 0 ? status : parsed, &req, in, strlen(in),
	    &c, cfg, &st, &a->r);
	a->out = NULL;
	if (pg_reply_format(&a->r, &out, &a->len) == 0 &&
	    (a->out = malloc(a->len + 1)) != NULL) {
		/* A string, for like(). */
		memcpy(a->out, out, a->len);
		a->out[a->len] = '\0';
	}
	free(out);
}

static void
done(struct reply *a)
{
	pg_reply_free(&a->r);
	free(a->out);
}

/* Answers that do not depend on the clock: every byte. */
static const struct {
	const char	*what;
	int		 cfg;		/* 0 open, 1 auth, 2 allow */
	const char	*client;
	const char	*in;
	int		 status;	/* 408 or 400 from the transport */
	const char	*want;
	const char	*log;		/* in the log line */
} exact[] = {
	{ "never", 0, "192.0.2.1", "GET /v1/elapsed/idle HTTP/1.1\r\nHost: x\r\n"
	    "\r\n", 0,
	    HEAD("200", "OK", "6", "Pollguard-Node: t1\r\n") "never\n",
	    "client 192.0.2.1: 200 \"GET /v1/elapsed/idle HTTP/1.1\"" },
	{ "never, HTTP/1.0", 0, "::1", "GET /v1/elapsed/idle HTTP/1.0\r\n\r\n",
	    0, "HTTP/1.0 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: 6\r\nConnection: close\r\nCache-Control: "
	    "no-store\r\nPollguard-Node: t1\r\n\r\nnever\n",
	    "client ::1: 200 " },
	{ "HEAD never", 0, "192.0.2.1", "HEAD /v1/elapsed/idle HTTP/1.1\r\nHost: x\r\n"
	    "\r\n", 0, HEAD("200", "OK", "6", "Pollguard-Node: t1\r\n"),
	    "200 \"HEAD " },
	{ "400", 0, "192.0.2.1", "GET / HTTP/1.1 x\r\n\r\n", 0,
	    ERR("400", "Bad Request", "12"),
	    "400 Bad Request (not METHOD TARGET VERSION): \"GET / HTTP/1.1 x\"" },
	{ "400, client closed mid-request", 0, NULL, "GET /v1/el", 400,
	    ERR("400", "Bad Request", "12"),
	    "client -: 400 Bad Request (the head ended early): \"GET /v1/el\"" },
	{ "400 for HTTP/1.1 without Host", 0, "192.0.2.1",
	    "GET /v1/elapsed/idle HTTP/1.1\r\n\r\n", 0,
	    ERR("400", "Bad Request", "12"), "(HTTP/1.1 without Host)" },
	{ "401 without credentials", 1, "192.0.2.1",
	    "GET /v1/elapsed/c1 HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    HEAD("401", "Unauthorized", "13",
	    "WWW-Authenticate: Basic realm=\"pollguard\"\r\n") "Unauthorized\n",
	    "401 Unauthorized (no credentials): " },
	{ "401 with wrong credentials", 1, "192.0.2.1",
	    "GET /v1/elapsed/c1 HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " WRONG
	    "\r\n\r\n", 0,
	    HEAD("401", "Unauthorized", "13",
	    "WWW-Authenticate: Basic realm=\"pollguard\"\r\n") "Unauthorized\n",
	    "(wrong credentials)" },
	{ "401 on /metrics", 1, "192.0.2.1", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    HEAD("401", "Unauthorized", "13",
	    "WWW-Authenticate: Basic realm=\"pollguard\"\r\n") "Unauthorized\n",
	    "401" },
	{ "403 by the allow list", 2, "10.0.0.1",
	    "GET /v1/elapsed/c1 HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    ERR("403", "Forbidden", "10"),
	    "client 10.0.0.1: 403 Forbidden: \"GET /v1/elapsed/c1 HTTP/1.1\"" },
	{ "403 before 400", 2, "10.0.0.1", "garbage\r\n\r\n", 0,
	    ERR("403", "Forbidden", "10"), "403 Forbidden: \"garbage\"" },
	{ "403, address unknown", 2, NULL, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    ERR("403", "Forbidden", "10"),
	    "client -: 403 Forbidden (client address unknown)" },
	{ "404 unknown cluster", 0, "192.0.2.1",
	    "GET /v1/elapsed/nope HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    ERR("404", "Not Found", "10"), "404 Not Found (no such cluster "
	    "here): \"GET /v1/elapsed/nope HTTP/1.1\"" },
	{ "status: 404 unknown cluster names the node", 0, "192.0.2.1",
	    "GET /v1/status/nope HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    HEAD("404", "Not Found", "10", "Pollguard-Node: t1\r\n")
	    "Not Found\n", "404 Not Found (no such cluster here): " },
	{ "status: 404 for a bad ID names the node too", 0, "192.0.2.1",
	    "GET /v1/status/..x HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    ERR("404", "Not Found", "10"), "404 Not Found: " },
	{ "404 unknown path", 0, "192.0.2.1", "GET /v2 HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    ERR("404", "Not Found", "10"), "404 Not Found: " },
	{ "405", 0, "192.0.2.1", "POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    HEAD("405", "Method Not Allowed", "19", "Allow: GET, HEAD\r\n")
	    "Method Not Allowed\n", "405 Method Not Allowed: \"POST " },
	{ "408", 0, "192.0.2.1", "GET /v1/elapsed/c1 HTTP/1.1\r\nHost: x\r\n", 408,
	    ERR("408", "Request Timeout", "16"), "408 Request Timeout: \"GET " },
	{ "408, nothing sent", 0, "192.0.2.1", "", 408,
	    ERR("408", "Request Timeout", "16"),
	    "client 192.0.2.1: 408 Request Timeout: \"\"" },
	{ "500 on a damaged record", 0, "192.0.2.1",
	    "GET /v1/elapsed/bad HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	    ERR("500", "Internal Server Error", "22"),
	    "500 Internal Server Error: " },
	{ "505", 0, "192.0.2.1", "GET /metrics HTTP/2.0\r\n\r\n", 0,
	    ERR("505", "HTTP Version Not Supported", "27"), "505 HTTP " },
	{ "400 for a nonce in upper case", 0, "192.0.2.1",
	    "GET /v1/status/idle HTTP/1.1\r\nHost: x\r\nPollguard-Nonce: "
	    "0123456789ABCDEF0123456789abcdef\r\n\r\n", 0,
	    ERR("400", "Bad Request", "12"), "400 Bad Request (a "
	    "Pollguard-Nonce not 32 hex digits): \"GET /v1/status/idle " },
	{ "400 for an empty nonce", 0, "192.0.2.1",
	    "GET /v1/status/idle HTTP/1.1\r\nHost: x\r\nPollguard-Nonce:"
	    "\r\n\r\n", 0, ERR("400", "Bad Request", "12"),
	    "(a Pollguard-Nonce not 32 hex digits)" },
	{ "400 for a nonce twice, the first echoed", 0, "192.0.2.1",
	    "GET /v1/status/idle HTTP/1.1\r\nHost: x\r\nPollguard-Nonce: "
	    NONCE "\r\npollguard-nonce: " NONCE "\r\n\r\n", 0,
	    HEAD("400", "Bad Request", "12", ECHO) "Bad Request\n",
	    "(Pollguard-Nonce twice)" },
	{ "a nonce on /v1/elapsed: 0.3's body, the nonce a field", 0,
	    "192.0.2.1", "GET /v1/elapsed/idle HTTP/1.1\r\nHost: x\r\n"
	    "Pollguard-Nonce: " NONCE "\r\n\r\n", 0,
	    HEAD("200", "OK", "6", "Pollguard-Node: t1\r\n" ECHO) "never\n",
	    "client 192.0.2.1: 200 \"GET /v1/elapsed/idle HTTP/1.1\"" },
	{ "a nonce on a 401: echoed", 1, "192.0.2.1",
	    "GET /v1/status/c1 HTTP/1.1\r\nHost: x\r\nPollguard-Nonce: "
	    NONCE "\r\n\r\n", 0,
	    HEAD("401", "Unauthorized", "13",
	    "WWW-Authenticate: Basic realm=\"pollguard\"\r\n" ECHO)
	    "Unauthorized\n", "401 Unauthorized (no credentials): " },
	{ "a nonce on a 403: echoed", 2, "10.0.0.1",
	    "GET /v1/status/c1 HTTP/1.1\r\nHost: x\r\nPollguard-Nonce: "
	    NONCE "\r\n\r\n", 0, HEAD("403", "Forbidden", "10", ECHO)
	    "Forbidden\n", "client 10.0.0.1: 403 Forbidden: " },
	{ "a nonce on a status 404: the node and the nonce", 0, "192.0.2.1",
	    "GET /v1/status/nope HTTP/1.1\r\nHost: x\r\nPollguard-Nonce: "
	    NONCE "\r\n\r\n", 0,
	    HEAD("404", "Not Found", "10", "Pollguard-Node: t1\r\n" ECHO)
	    "Not Found\n", "404 Not Found (no such cluster here): " },
};

static void
test_exact(void)
{
	struct reply	 a;
	size_t		 i;
	struct pg_config *cfgs[3];

	cfgs[0] = open_cfg;
	cfgs[1] = auth_cfg;
	cfgs[2] = allow_cfg;
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		ask(&a, cfgs[exact[i].cfg], exact[i].client, exact[i].in,
		    exact[i].status);
		ok(a.out != NULL && a.len == strlen(exact[i].want) &&
		    memcmp(a.out, exact[i].want, a.len) == 0,
		    "%s: the answer, byte for byte", exact[i].what);
		if (a.out != NULL && (a.len != strlen(exact[i].want) ||
		    memcmp(a.out, exact[i].want, a.len) != 0))
			diag("got %.*s", (int)a.len, a.out);
		like(a.r.log, exact[i].log, "%s: logged", exact[i].what);
		is_int(a.r.level, a.r.status >= 400 ? LOG_NOTICE : LOG_INFO,
		    "%s: log level", exact[i].what);
		done(&a);
	}
}

/* The body is digits and a newline: milliseconds. */
static int
millis(const char *s, size_t n, long long min, long long max)
{
	char		 buf[32];
	long long	 v;
	size_t		 i;

	if (n < 2 || n >= sizeof(buf) || s[n - 1] != '\n')
		return 0;
	for (i = 0; i + 1 < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtoll(buf, NULL, 10);
	return v >= min && v <= max;
}

/* /v1/status: read back with the reader that check uses. */
static void
test_status_routes(void)
{
	struct pg_status	 ps;
	struct reply		 a;
	char			 why[128];
	char			 idle[256], want[512];
	size_t			 used, off;
	int64_t			 rate;
	int			 n = 0;

	/* This host's clock's bound, as the serve reads it (adjtimex). */
	if (pg_clock_rate(&rate) == -1)
		rate = -1;
	snprintf(idle, sizeof(idle), "cluster idle\nnode t1\nversion "
	    PG_VERSION "\nelapsed never\nrunning 0\nlast_success never\n"
	    "failures 0\ndeciding no\nsettle 500\ntimeout 2000\n"
	    "rate %lld\nwait 90000\non_failure handover\nbackend peers\n\n",
	    (long long)rate);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/status/idle HTTP/1.1\r\n"
	    "Host: x\r\n\r\n", 0);
	snprintf(want, sizeof(want), "HTTP/1.1 200 OK\r\nContent-Type: "
	    "text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\nCache-Control: no-store\r\n"
	    "Pollguard-Node: t1\r\n\r\n%s", strlen(idle), idle);
	is_str(a.out, want, "status idle: the answer, byte for byte");
	like(a.r.log, "client 192.0.2.1: 200 \"GET /v1/status/idle HTTP/1.1\"",
	    "status idle: the log line");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/status/c1 HTTP/1.1\r\n"
	    "Host: x\r\n\r\n", 0);
	is_int(a.r.status, 200, "status c1: 200");
	is_int(a.r.body != NULL ? pg_status_parse(a.r.body, a.r.bodylen,
	    &ps, &used, why, sizeof(why)) : -1, 0, "status c1: it reads");
	is_int(used, a.r.bodylen, "status c1: one block, blank line last");
	is_str(ps.cluster, "c1", "status c1: cluster");
	is_str(ps.node, "t1", "status c1: node");
	ok(ps.elapsed_ms >= 0 && ps.elapsed_ms < 60000,
	    "status c1: elapsed since the touch");
	ok(!ps.running && ps.hold_ms == 0, "status c1: not running, no hold");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/status/bad HTTP/1.1\r\n"
	    "Host: x\r\n\r\n", 0);
	is_int(a.r.status, 500, "status of a damaged record: 500");
	like(a.r.err, "/state/bad: not a valid state record",
	    "status of a damaged record: reported");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/status HTTP/1.1\r\n"
	    "Host: x\r\n\r\n", 0);
	is_int(a.r.status, 200, "/v1/status: 200");
	like(a.r.extra, "Pollguard-Node: t1", "/v1/status: names the node");
	for (off = 0; a.r.body != NULL && off < a.r.bodylen; off += used) {
		if (pg_status_parse(a.r.body + off, a.r.bodylen - off, &ps,
		    &used, why, sizeof(why)) == -1 || used == 0)
			break;
		n++;
		ok(strcmp(ps.cluster, "bad") != 0,
		    "/v1/status: %s is not the damaged one", ps.cluster);
	}
	is_int(off, a.r.bodylen, "/v1/status: every block reads");
	is_int(n, 2, "/v1/status: c1 and idle, not bad");
	done(&a);
}

/*
 * The request's nonce as a field of the answer, and in each block of its
 * status answer: not in a body that has no blocks.
 */
static void
test_nonce(void)
{
	struct pg_status	 ps;
	struct reply		 a;
	char			 why[128], want[1024], idle[256];
	size_t			 used, off, glen = 0;
	int64_t			 rate;
	int			 n = 0, echoed = 0;

	/* This host's clock's bound, as the serve reads it (adjtimex). */
	if (pg_clock_rate(&rate) == -1)
		rate = -1;
	snprintf(idle, sizeof(idle), "cluster idle\nnode t1\nversion "
	    PG_VERSION "\nnonce " NONCE "\nelapsed never\nrunning 0\n"
	    "last_success never\nfailures 0\ndeciding no\nsettle 500\n"
	    "timeout 2000\nrate %lld\nwait 90000\non_failure handover\n"
	    "backend peers\n\n", (long long)rate);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/status/idle HTTP/1.1\r\n"
	    "Host: x\r\nPollguard-Nonce: " NONCE "\r\n\r\n", 0);
	snprintf(want, sizeof(want), "HTTP/1.1 200 OK\r\nContent-Type: "
	    "text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\nCache-Control: no-store\r\n"
	    "Pollguard-Node: t1\r\n" ECHO "\r\n%s", strlen(idle), idle);
	is_str(a.out, want, "nonce: the status, byte for byte, the nonce "
	    "a field and after the version");
	is_int(a.r.body != NULL ? pg_status_parse(a.r.body, a.r.bodylen,
	    &ps, &used, why, sizeof(why)) : -1, 0, "nonce: the block reads");
	is_str(ps.nonce, NONCE, "nonce: read back as sent");
	glen = a.r.bodylen;
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "HEAD /v1/status/idle HTTP/1.1\r\n"
	    "Host: x\r\npollguard-nonce:  " NONCE " \r\n\r\n", 0);
	is_int(a.r.status, 200, "nonce, HEAD, field name in lower case, "
	    "spaces around: 200");
	snprintf(want, sizeof(want), "Content-Length: %zu\r\n", glen);
	like(a.out, want, "nonce, HEAD: the length of the block with it");
	ok(a.out != NULL && strstr(a.out, "\r\n\r\n") != NULL &&
	    strstr(a.out, "\r\n\r\n")[4] == '\0', "nonce, HEAD: no body");
	done(&a);

	ask(&a, auth_cfg, "192.0.2.1", "GET /v1/status/c1 HTTP/1.1\r\n"
	    "Host: x\r\nPollguard-Nonce: " NONCE "\r\nAuthorization: Basic "
	    TOKEN "\r\n\r\n", 0);
	is_int(a.r.status, 200, "nonce with credentials: 200");
	like(a.r.body, "\nnonce " NONCE "\n", "nonce with credentials: "
	    "echoed");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/status HTTP/1.0\r\n"
	    "Pollguard-Nonce: " NONCE "\r\n\r\n", 0);
	is_int(a.r.status, 200, "nonce, /v1/status: 200");
	for (off = 0; a.r.body != NULL && off < a.r.bodylen; off += used) {
		if (pg_status_parse(a.r.body + off, a.r.bodylen - off, &ps,
		    &used, why, sizeof(why)) == -1 || used == 0)
			break;
		n++;
		echoed += strcmp(ps.nonce, NONCE) == 0;
	}
	is_int(off, a.r.bodylen, "nonce, /v1/status: every block reads");
	ok(n == 2 && echoed == n, "nonce, /v1/status: in each of the %d "
	    "blocks (%d)", n, echoed);
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/status/idle HTTP/1.1\r\n"
	    "Host: x\r\n\r\n", 0);
	ok(a.r.body != NULL && strstr(a.r.body, "nonce") == NULL,
	    "no nonce asked: none in the status, as 0.4 answered");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /metrics HTTP/1.1\r\n"
	    "Host: x\r\nPollguard-Nonce: " NONCE "\r\n\r\n", 0);
	ok(a.r.status == 200 && a.r.body != NULL &&
	    strstr(a.r.body, NONCE) == NULL, "nonce, /metrics: 200, not in it");
	ok(a.out != NULL && strstr(a.out, "\r\nContent-Type: text/plain; "
	    "version=0.0.4; charset=utf-8\r\n") != NULL &&
	    strstr(strstr(a.out, "Content-Type:") + 1, "Content-Type:") ==
	    NULL, "nonce, /metrics: its own Content-Type, once");
	like(a.out, "\r\n" ECHO "\r\n", "nonce, /metrics: echoed as a field");
	done(&a);
}

static void
test_routes(void)
{
	struct reply	 a;

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/elapsed/c1 HTTP/1.1\r\nHost: x\r\n\r\n",
	    0);
	is_int(a.r.status, 200, "c1, recorded: 200");
	ok(millis(a.r.body, a.r.bodylen, 0, 60000),
	    "c1: elapsed milliseconds, not never");
	like(a.out, "\r\nPollguard-Node: t1\r\n", "c1: names the node");
	done(&a);

	ask(&a, auth_cfg, "192.0.2.1", "GET /v1/elapsed/c1 HTTP/1.1\r\nHost: x\r\n"
	    "Authorization: Basic " TOKEN "\r\n\r\n", 0);
	is_int(a.r.status, 200, "right credentials: 200");
	done(&a);

	ask(&a, allow_cfg, "127.0.0.1", "GET /v1/elapsed/idle HTTP/1.1\r\nHost: x\r\n\r\n",
	    0);
	is_int(a.r.status, 200, "allow 127.0.0.0/8, client 127.0.0.1: 200");
	done(&a);
	ask(&a, allow_cfg, "[0000:0000:0000:0000:0000:ffff:7f00:0001]",
	    "GET /v1/elapsed/idle HTTP/1.1\r\nHost: x\r\n\r\n", 0);
	is_int(a.r.status, 200, "IPv4-mapped client in socat's form: 200");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/elapsed HTTP/1.1\r\nHost: x\r\n\r\n", 0);
	is_int(a.r.status, 200, "/v1/elapsed: 200");
	ok(a.r.body != NULL && strncmp(a.r.body, "c1 ", 3) == 0 &&
	    millis(a.r.body + 3, strcspn(a.r.body + 3, "\n") + 1, 0, 60000),
	    "/v1/elapsed: c1 with its milliseconds first");
	like(a.r.body, "\nidle never\n", "/v1/elapsed: idle never");
	ok(a.r.body != NULL && strstr(a.r.body, "bad") == NULL,
	    "/v1/elapsed: the damaged record left out");
	like(a.r.err, "/state/bad: not a valid state record",
	    "/v1/elapsed: the damaged record reported");
	ok(a.r.extra == NULL, "/v1/elapsed: no extra header");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "HEAD /v1/elapsed HTTP/1.1\r\nHost: x\r\n\r\n", 0);
	ok(a.out != NULL && a.len > 4 && memcmp(a.out + a.len - 4,
	    "\r\n\r\n", 4) == 0 && a.r.bodylen > 0,
	    "HEAD /v1/elapsed: headers only, with the body's length");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0);
	is_int(a.r.status, 200, "/metrics: 200");
	like(a.out, "\r\nContent-Type: text/plain; version=0.0.4; "
	    "charset=utf-8\r\n", "/metrics: Prometheus' Content-Type");
	ok(a.out != NULL && strstr(a.out, "charset=utf-8\r\nContent-Type")
	    == NULL, "/metrics: one Content-Type");
	like(a.r.body, "pollguard_build_info{version=\"" PG_VERSION "\"} 1\n",
	    "/metrics: the version");
	like(a.r.body, "pollguard_wait_seconds{cluster=\"idle\"} 90.000\n",
	    "/metrics: a wait time");
	like(a.r.body, "pollguard_last_activity_seconds{cluster=\"c1\"} ",
	    "/metrics: c1's last activity");
	ok(a.r.body != NULL && strstr(a.r.body,
	    "last_activity_seconds{cluster=\"idle\"}") == NULL,
	    "/metrics: never active, absent");
	done(&a);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/elapsed/idle HTTP/1.1\r\nHost: x\r\n\r\n",
	    0);
	ok(a.r.err[0] == '\0', "a good record: nothing for the error log");
	done(&a);

	test_status_routes();
}

static void
test_limits(void)
{
	struct reply	 a;
	char		*in;
	size_t		 n;

	n = PG_REQ_HEAD_MAX + 64;
	if ((in = malloc(n + 1)) == NULL)
		errx(1, "%s", "malloc");
	memset(in, 'a', n);
	memcpy(in, "GET /", 5);
	in[n] = '\0';
	ask(&a, open_cfg, "192.0.2.1", in, 0);
	is_int(a.r.status, 414, "a request line too long: 414");
	ok(strlen(a.r.log) < 400, "414: the request line cut short in the "
	    "log");
	done(&a);

	snprintf(in, n + 1, "GET /metrics HTTP/1.1\r\nHost: x\r\n");
	memset(in + strlen(in), 'x', n - strlen(in));
	in[n - 4] = ':';
	ask(&a, open_cfg, "192.0.2.1", in, 0);
	is_int(a.r.status, 431, "headers too long: 431");
	done(&a);
	free(in);

	ask(&a, open_cfg, "192.0.2.1", "GET /v1/elapsed/\x1b[2J HTTP/1.1\r\nHost: x\r\n"
	    "\r\n", 0);
	ok(strchr(a.r.log, '\x1b') == NULL && strstr(a.r.log, "\\033") !=
	    NULL, "a control character in the request: escaped in the log");
	done(&a);
}

static void
test_errors(void)
{
	struct pg_reply	 r;
	char		*out;
	size_t		 len;

	pg_reply_error(&r, 503);
	ok(pg_reply_format(&r, &out, &len) == 0 && len ==
	    strlen(ERR("503", "Service Unavailable", "20")) && memcmp(out,
	    ERR("503", "Service Unavailable", "20"), len) == 0,
	    "pg_reply_error 503: the busy answer");
	is_int(r.level, -1, "pg_reply_error: nothing to log");
	free(out);
	pg_reply_free(&r);
	pg_reply_error(&r, 500);
	ok(pg_reply_format(&r, &out, &len) == 0 && len ==
	    strlen(ERR("500", "Internal Server Error", "22")) && memcmp(out,
	    ERR("500", "Internal Server Error", "22"), len) == 0,
	    "pg_reply_error 500: the broken-config answer");
	free(out);
	pg_reply_free(&r);
}

/* A NUL in the request line: logged escaped, the line whole. */
static void
test_log_nul(void)
{
	static const char	 in[] = "GET /\0x\033 HTTP/1.1\r\n\r\n";
	struct pg_request	 req;
	struct pg_client	 c;
	struct pg_reply		 r;
	int			 status;

	status = pg_request_parse(in, sizeof(in) - 1, &req);
	is_int(status, 400, "a NUL in the request line: 400");
	pg_client_parse(&c, "192.0.2.1");
	pg_serve_answer(status, &req, in, sizeof(in) - 1, &c, open_cfg, &st,
	    &r);
	like(r.log, "400 Bad Request (a control character in the request "
	    "line): \"GET /\\0x\\033 HTTP/1.1\"", "a NUL in the request "
	    "line: the log has the whole line, escaped, and why");
	pg_reply_free(&r);
}

static void
test_refused(void)
{
	struct pg_client	 c;
	struct pg_reply		 r;
	struct sockaddr_in6	 sin6;

	pg_client_parse(&c, "10.0.0.1");
	ok(!pg_serve_allowed(allow_cfg, &c), "10.0.0.1 not in 127.0.0.0/8");
	ok(pg_serve_allowed(open_cfg, &c), "no allow list: any client");
	pg_client_parse(&c, "not an address");
	is_int(c.family, 0, "not an address: unknown");
	is_str(c.name, "-", "unknown: named -");
	ok(!pg_serve_allowed(allow_cfg, &c), "unknown: refused by a list");
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:127.0.0.9", &sin6.sin6_addr);
	pg_client_sockaddr(&c, &sin6);
	ok(c.family == AF_INET && strcmp(c.name, "127.0.0.9") == 0,
	    "an IPv4-mapped socket address is IPv4");
	ok(pg_serve_allowed(allow_cfg, &c), "and admitted by 127.0.0.0/8");

	/* At accept: nothing read yet. */
	pg_client_parse(&c, "10.0.0.1");
	pg_serve_answer(403, NULL, NULL, 0, &c, allow_cfg, NULL, &r);
	is_int(r.status, 403, "refused at accept: 403");
	is_str(r.log, "client 10.0.0.1: 403 Forbidden",
	    "refused at accept: logged without a request");
	ok(r.bodylen == 10 && memcmp(r.body, "Forbidden\n", 10) == 0,
	    "refused at accept: the same body");
	pg_reply_free(&r);
}

static void
test_listen(void)
{
	static const struct {
		const char	*spec;
		int		 family;	/* 0: invalid */
		int		 port;
	} t[] = {
		{ "127.0.0.1:8080", AF_INET, 8080 },
		{ "[::1]:7709", AF_INET6, 7709 },
		{ ":0", AF_INET6, 0 },
		{ ":65535", AF_INET6, 65535 },
		{ ":65536", 0, 0 }, { ":-1", 0, 0 }, { ":+1", 0, 0 },
		{ "127.0.0.1", 0, 0 }, { "127.0.0.1:", 0, 0 }, { "", 0, 0 },
		{ ":", 0, 0 }, { "localhost:7709", 0, 0 }, { "::1", 0, 0 },
		{ "[::1]", 0, 0 }, { "[]:7709", 0, 0 }, { "[::1:7709", 0, 0 },
		{ "[127.0.0.1]:7709", 0, 0 }, { "::1:7709", 0, 0 },
	};
	struct sockaddr_storage	 ss;
	const char		*why;
	size_t			 i;
	int			 r, port;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		why = NULL;
		r = pg_listen_parse(t[i].spec, &ss, &why);
		if (t[i].family == 0) {
			ok(r == -1 && why != NULL, "listen '%s': invalid (%s)",
			    t[i].spec, why ? why : "no reason");
			continue;
		}
		port = ss.ss_family == AF_INET ?
		    ntohs(((struct sockaddr_in *)&ss)->sin_port) :
		    ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		ok(r == 0 && ss.ss_family == t[i].family && port == t[i].port,
		    "listen '%s': family and port", t[i].spec);
	}
}

int
main(void)
{
	char	 path[PATH_MAX], err[PG_ERR_MAX];
	FILE	*fp;

	umask(022);
	strlcpy(dir, tap_tmpdir("t_serve"), sizeof(dir));
	snprintf(path, sizeof(path), "%s/state", dir);
	st.dirfd = -1;
	if (pg_state_open(&st, path, 1, err, sizeof(err)) == -1 ||
	    pg_state_touch(&st, "c1") == -1)
		errx(1, "%s", err);
	snprintf(path, sizeof(path), "%s/state/bad", dir);
	if ((fp = fopen(path, "w")) == NULL)
		errx(1, "%s", path);
	fputs("pollguard-state 1 damaged\n", fp);
	fclose(fp);
	open_cfg = config("open.conf", "");
	auth_cfg = config("auth.conf", "[serve]\nuser = peer\n"
	    "password = s3cret\n");
	allow_cfg = config("allow.conf", "[serve]\nallow = 127.0.0.0/8\n");

	test_exact();
	test_nonce();
	test_routes();
	test_limits();
	test_errors();
	test_log_nul();
	test_refused();
	test_listen();

	pg_state_close(&st);
	pg_config_free(open_cfg);
	pg_config_free(auth_cfg);
	pg_config_free(allow_cfg);
	return done_testing();
}
