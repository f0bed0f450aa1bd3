/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: pollguard-serve's request path. The input is the bytes a
 * client sends. They go through pg_request_parse (as an exact-size heap
 * copy, so ASan sees any read past the end), and then through
 * pg_serve_answer and pg_reply_format (lib/serve.c), as serve answers
 * them: cluster lookup, credentials, the state records, the answer built
 * with pg_response and the escaped log line.
 *
 * Two servers answer each input: A wants credentials (user "peer",
 * password "s3cret") and lets any client in; B wants none but only
 * admits 127.0.0.0/8, and the client is 127.0.0.1 or 192.0.2.1 by the
 * input's length. Both know clusters c1 (a record), mail (a claim), bad (a
 * damaged record), idle (no record) and a 64-character ID.
 *
 * Invariants: the parser's status is one of those documented and agrees
 * with what it says about any prefix of the input; the parsed fields lie
 * within the input; a Pollguard-Nonce kept is 32 lowercase hex digits
 * of the head; the answer is well-formed HTTP with the status the
 * request deserves, a Content-Length that matches, the body only for GET;
 * 200 only with the right credentials; the answer's Pollguard-Nonce
 * field and its status block echo the request's nonce, or there is none
 * when it sent none; the log lines are printable.
 */
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pollguard.h"
#include "fuzz.h"

#define TOKEN		"cGVlcjpzM2NyZXQ="	/* base64 of peer:s3cret */
#define ID64		"a123456789b123456789c123456789d123456789" \
			"e123456789f123456789g123"

/* A server: its config and state directory, and whether it wants a user. */
struct server {
	struct pg_config	*cfg;
	struct pg_state		 state;
	int			 auth;
};

static struct server	 srv_a, srv_b;
static char		 tmpdir[PATH_MAX];

static int
remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	if (remove(path) == -1)
		perror(path);
	return 0;
}

static void
cleanup(void)
{
	if (tmpdir[0] != '\0')
		nftw(tmpdir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* A path under the temporary directory; exit when it does not fit. */
static void
tmp_path(char *buf, size_t len, const char *name)
{
	int	 n;

	n = snprintf(buf, len, "%s/%s", tmpdir, name);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "%s: path too long\n", tmpdir);
		exit(1);
	}
}

static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE	*fp;

	if ((fp = fopen(path, "w")) == NULL || fputs(text, fp) == EOF ||
	    fclose(fp) == EOF || chmod(path, mode) == -1) {
		perror(path);
		exit(1);
	}
}

static void
server_setup(struct server *s, const char *name, const char *extra)
{
	struct pg_config	*cfg;
	char			 path[PATH_MAX], text[PATH_MAX + 1024];
	char			 err[PG_ERR_MAX];
	int			 n;

	tmp_path(path, sizeof(path), name);
	n = snprintf(text, sizeof(text), "[pollguard]\nnode = fuzz\n"
	    "state = %s/state\ntimeout = 1s\n%s"
	    "[cluster c1]\nwait = 10s\n[cluster mail]\nwait = 1m\n"
	    "[cluster bad]\nwait = 10s\n[cluster idle]\nwait = 1h\n"
	    "[cluster " ID64 "]\nwait = 10s\n", tmpdir, extra);
	if (n < 0 || (size_t)n >= sizeof(text))
		abort();
	write_file(path, text, 0600);
	memset(s, 0, sizeof(*s));
	s->state.dirfd = -1;
	if (pg_config_load(path, &cfg, err, sizeof(err)) == -1) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	s->cfg = cfg;
	s->auth = cfg->serve.user[0] != '\0';
	pg_serve_state(&s->state, cfg->state);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct pg_state	 st;
	struct pg_stamp	 rec;
	const char	*t;
	char		 path[PATH_MAX], err[PG_ERR_MAX];
	int64_t		 visible;

	(void)argc;
	(void)argv;
	if ((t = getenv("TMPDIR")) == NULL || *t != '/')
		t = "/tmp";
	snprintf(tmpdir, sizeof(tmpdir), "%s/pollguard-fuzz.XXXXXX", t);
	if (mkdtemp(tmpdir) == NULL) {
		perror(tmpdir);
		exit(1);
	}
	atexit(cleanup);

	tmp_path(path, sizeof(path), "state");
	if (pg_state_open(&st, path, 1, err, sizeof(err)) == -1 ||
	    pg_state_touch(&st, "c1") == -1 ||
	    pg_state_claim(&st, "mail", 30000, &rec, &visible) == -1) {
		fprintf(stderr, "state: %s\n", err);
		exit(1);
	}
	pg_state_close(&st);
	tmp_path(path, sizeof(path), "state/bad");
	write_file(path, "pollguard-state 1 damaged\n", 0644);

	server_setup(&srv_a, "a.conf", "[serve]\nuser = peer\npassword = s3cret\n");
	server_setup(&srv_b, "b.conf", "[serve]\nallow = 127.0.0.0/8, ::1\n");
	return 0;
}

static const int	 parse_status[] = { 0, 200, 400, 404, 405, 414, 431,
	505 };
static const int	 answer_status[] = { 200, 400, 401, 403, 404, 405,
	408, 414, 431, 500, 505 };

static int
one_of(int v, const int *set, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			return 1;
	return 0;
}

static int
parse_copy(const uint8_t *data, size_t len, struct pg_request *req)
{
	char	*buf;
	int	 status;

	buf = fuzz_copy(data, len);
	status = pg_request_parse(buf, len, req);
	free(buf);
	return status;
}

static void
check_parse(const uint8_t *data, size_t len, int status,
    const struct pg_request *req)
{
	check(one_of(status, parse_status, sizeof(parse_status) /
	    sizeof(parse_status[0])), "status %d not documented", status);
	check(req->minor == 0 || req->minor == 1, "minor %d", req->minor);
	check(req->linelen <= len && req->linelen < PG_REQ_LINE_MAX,
	    "linelen %zu of %zu bytes", req->linelen, len);
	check(status != 0 || len < PG_REQ_HEAD_MAX,
	    "undecided after %zu bytes", len);
	check(status != 0 || len < PG_REQ_LINE_MAX ||
	    memchr(data, '\n', PG_REQ_LINE_MAX) != NULL,
	    "no 414 for a long request line");
	check(terminated(req->auth, sizeof(req->auth)), "auth not terminated");
	check(req->has_auth || req->auth[0] == '\0', "auth without the field");
	check(terminated(req->cluster, sizeof(req->cluster)),
	    "cluster not terminated");
	check(terminated(req->nonce, sizeof(req->nonce)),
	    "nonce not terminated");
	if (status != 200)
		return;
	check(req->nonce[0] == '\0' || (pg_nonce_valid(req->nonce,
	    strlen(req->nonce)) && memmem(data, req->used, req->nonce,
	    strlen(req->nonce)) != NULL), "nonce kept: %s", req->nonce);
	check(req->used > req->linelen && req->used <= len &&
	    req->used <= PG_REQ_HEAD_MAX && data[req->used - 1] == '\n',
	    "used %zu of %zu bytes", req->used, len);
	check(req->head == 0 || req->head == 1, "head %d", req->head);
	check(memcmp(data, req->head ? "HEAD " : "GET ", req->head ? 5 : 4) ==
	    0, "200 for a method other than GET or HEAD");
	check(req->target == PG_TARGET_ONE || req->target == PG_TARGET_ALL ||
	    req->target == PG_TARGET_METRICS ||
	    req->target == PG_TARGET_STATUS_ONE ||
	    req->target == PG_TARGET_STATUS_ALL, "target %d", req->target);
	if (req->target == PG_TARGET_ONE ||
	    req->target == PG_TARGET_STATUS_ONE) {
		check(pg_cluster_id_valid(req->cluster), "invalid cluster ID");
		check(memmem(data, req->linelen, req->cluster,
		    strlen(req->cluster)) != NULL, "cluster not in the line");
	}
	if (req->auth[0] != '\0')
		check(memmem(data, req->used, req->auth, strlen(req->auth)) !=
		    NULL, "auth token not in the head");
}

/* The value of a header field in the answer, or NULL. */
static const char *
field(const char *head, const char *name, char *val, size_t vlen)
{
	const char	*p, *eol;
	size_t		 n = strlen(name);

	for (p = strstr(head, "\r\n") + 2; *p != '\r'; p = eol + 2) {
		eol = strstr(p, "\r\n");
		if ((size_t)(eol - p) > n && strncasecmp(p, name, n) == 0 &&
		    p[n] == ':') {
			p += n + 1 + strspn(p + n + 1, " ");
			snprintf(val, vlen, "%.*s", (int)(eol - p), p);
			return val;
		}
	}
	return NULL;
}

static int
digits_nl(const char *s, size_t n)
{
	size_t	 i;

	if (n < 2 || s[n - 1] != '\n')
		return 0;
	for (i = 0; i < n - 1; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The answer serve would send: its status, headers and body. */
static void
check_answer(const struct server *s, const char *out, size_t outlen,
    int want, const struct pg_request *req)
{
	struct pg_status st;
	char		 head[1024], val[256], why[128] = "";
	const char	*end, *body;
	size_t		 hlen, blen, used, i;
	long		 clen;
	int		 code;

	check(out != NULL && outlen > 12, "no answer");
	end = memmem(out, outlen, "\r\n\r\n", 4);
	check(end != NULL, "answer without an empty line");
	hlen = end + 4 - out;
	check(hlen < sizeof(head), "head of %zu bytes", hlen);
	memcpy(head, out, hlen);
	head[hlen] = '\0';
	for (i = 0; i < hlen; i++)
		check((head[i] >= 0x20 && head[i] < 0x7f) || head[i] == '\r' ||
		    head[i] == '\n', "control character in the head");
	check(head[7] - '0' == req->minor &&
	    strncmp(head, "HTTP/1.", 7) == 0 && head[8] == ' ',
	    "status line: %.40s", head);
	code = atoi(head + 9);
	check(one_of(code, answer_status, sizeof(answer_status) /
	    sizeof(answer_status[0])), "status %d", code);
	check(strncmp(head + 13, pg_status_text(code),
	    strlen(pg_status_text(code))) == 0, "reason: %.60s", head);
	if (want == 200)
		check(code == 200 || code == 401 || code == 404 ||
		    code == 500, "%d for a good request", code);
	else
		check(code == want, "%d, want %d", code, want);
	if (code == 200 && s->auth)
		check(strcmp(req->auth, TOKEN) == 0, "200 without credentials");
	if (code == 401)
		check(s->auth && strcmp(req->auth, TOKEN) != 0 &&
		    field(head, "WWW-Authenticate", val, sizeof(val)) != NULL,
		    "401 wrongly");
	if (req->nonce[0] != '\0')
		check(field(head, "Pollguard-Nonce", val, sizeof(val)) !=
		    NULL && strcmp(val, req->nonce) == 0, "nonce %s not "
		    "echoed as a field", req->nonce);
	else
		check(field(head, "Pollguard-Nonce", val, sizeof(val)) ==
		    NULL, "a Pollguard-Nonce field without one asked");
	check(field(head, "Content-Length", val, sizeof(val)) != NULL,
	    "no Content-Length");
	clen = strtol(val, NULL, 10);
	body = out + hlen;
	blen = outlen - hlen;
	check(blen == (req->head ? 0 : (size_t)clen), "body of %zu bytes, "
	    "Content-Length %ld, %s", blen, clen, req->head ? "HEAD" : "GET");
	if (code != 200 || req->head)
		return;
	if (req->target == PG_TARGET_ONE)
		check((blen == 6 && memcmp(body, "never\n", 6) == 0) ||
		    digits_nl(body, blen), "body: %.*s", (int)blen, body);
	if (req->target == PG_TARGET_ONE && strcmp(req->cluster, "idle") == 0)
		check(blen == 6, "idle is not never");
	if (req->target == PG_TARGET_ONE && strcmp(req->cluster, "c1") == 0)
		check(digits_nl(body, blen), "c1 has no elapsed time");
	if (req->target == PG_TARGET_STATUS_ONE) {
		check(blen > 0 && pg_status_parse(body, blen, &st, &used, why,
		    sizeof(why)) == 0, "status does not parse (%s): %.*s", why,
		    (int)blen, body);
		check(strcmp(st.cluster, req->cluster) == 0 && used == blen,
		    "status of %s: %.*s", req->cluster, (int)blen, body);
		check(strcmp(st.nonce, req->nonce) == 0, "nonce '%s' echoed "
		    "as '%s'", req->nonce, st.nonce);
	}
}

/*
 * Answer the input as serve does: with the parser's status once it has
 * one, else as if the client closed (400) or the deadline passed (408).
 */
static void
run_server(struct server *s, const uint8_t *data, size_t size, int status,
    const struct pg_request *req, int deny)
{
	struct pg_client	 c;
	struct pg_reply		 r;
	char			*in, *out;
	size_t			 outlen;
	int			 want = status;

	if (status == 0)
		want = size % 2 == 0 ? 400 : 408;
	pg_client_parse(&c, s == &srv_b ? (deny ? "192.0.2.1" : "127.0.0.1") :
	    NULL);
	in = fuzz_copy(data, size);
	pg_serve_answer(want, req, in, size, &c, s->cfg,
	    pg_serve_state(&s->state, s->cfg->state), &r);
	free(in);
	check(r.status == (deny ? 403 : r.status), "%d, want 403", r.status);
	check(r.level != -1 && printable(r.log) && printable(r.err),
	    "unescaped control character logged: %s %s", r.log, r.err);
	check(strncmp(r.log, "client ", 7) == 0, "log: %s", r.log);
	check(pg_reply_format(&r, &out, &outlen) == 0, "no answer");
	check_answer(s, out, outlen, deny ? 403 : want, req);
	free(out);
	pg_reply_free(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_request	 req, part;
	const uint8_t		*nl;
	size_t			 cut[3], i;
	int			 status, ps;

	/* serve reads at most this much before it decides. */
	if (size > PG_REQ_HEAD_MAX + 1)
		size = PG_REQ_HEAD_MAX + 1;
	status = parse_copy(data, size, &req);
	check_parse(data, size, status, &req);

	/* serve parses what has arrived so far: a prefix must agree. */
	nl = memchr(data, '\n', size);
	cut[0] = nl != NULL ? (size_t)(nl - data) + 1 : size / 3;
	cut[1] = size / 2;
	cut[2] = size > 0 ? size - 1 : 0;
	for (i = 0; i < 3; i++) {
		if (cut[i] >= size)
			continue;
		ps = parse_copy(data, cut[i], &part);
		check(ps == 0 || ps == status, "%zu bytes: %d; %zu bytes: %d",
		    cut[i], ps, size, status);
		if (ps != 0)
			check(part.used == req.used && part.minor == req.minor,
			    "a prefix parses differently");
	}

	run_server(&srv_a, data, size, status, &req, 0);
	run_server(&srv_b, data, size, status, &req, size % 3 == 0);
	return 0;
}
