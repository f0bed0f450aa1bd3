/* SPDX-License-Identifier: ISC */
/* The answer to a request (serve.h). */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <vis.h>

#include "decide.h"
#include "serve.h"

#define METRICS_TYPE \
	"Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"

/* Keep the address when it is one; map IPv4-mapped IPv6 to IPv4. */
static void
client_set(struct pg_client *c, int family, const void *addr)
{
	const struct in6_addr	*a6 = addr;

	if (family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(a6)) {
		family = AF_INET;
		addr = &a6->s6_addr[12];
	}
	c->family = family;
	memcpy(c->addr, addr, family == AF_INET ? 4 : 16);
	inet_ntop(family, c->addr, c->name, sizeof(c->name));
}

static void
client_unknown(struct pg_client *c)
{
	memset(c, 0, sizeof(*c));
	strlcpy(c->name, "-", sizeof(c->name));
}

void
pg_client_sockaddr(struct pg_client *c, const void *ssp)
{
	const struct sockaddr_storage	*ss = ssp;

	client_unknown(c);
	if (ss != NULL && ss->ss_family == AF_INET)
		client_set(c, AF_INET,
		    &((const struct sockaddr_in *)ss)->sin_addr);
	else if (ss != NULL && ss->ss_family == AF_INET6)
		client_set(c, AF_INET6,
		    &((const struct sockaddr_in6 *)ss)->sin6_addr);
}

void
pg_client_parse(struct pg_client *c, const char *s)
{
	unsigned char	 a[16];
	char		 buf[PG_ADDRSTR_MAX + 2];
	size_t		 n;

	client_unknown(c);
	if (s == NULL || (n = strlen(s)) >= sizeof(buf))
		return;
	memcpy(buf, s, n + 1);
	if (buf[0] == '[' && n > 2 && buf[n - 1] == ']') {
		buf[n - 1] = '\0';
		memmove(buf, buf + 1, n - 1);
	}
	if (inet_pton(AF_INET, buf, a) == 1)
		client_set(c, AF_INET, a);
	else if (inet_pton(AF_INET6, buf, a) == 1)
		client_set(c, AF_INET6, a);
}

int
pg_serve_allowed(const struct pg_config *cfg, const struct pg_client *c)
{
	size_t	 i;

	if (cfg->serve.nallow == 0)
		return 1;
	for (i = 0; c->family != 0 && i < cfg->serve.nallow; i++)
		if (pg_net_match(&cfg->serve.allow[i], c->family, c->addr))
			return 1;
	return 0;
}

/* timingsafe_bcmp(3) == 0, which libbsd 0.11 lacks. */
static int
equal_ct(const void *a, const void *b, size_t len)
{
	const volatile unsigned char	*x = a, *y = b;
	unsigned char			 d = 0;
	size_t				 i;

	for (i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

/* The credentials (doc/PROTOCOL.md, How pollguard implements it). */
static int
auth_ok(const struct pg_config *cfg, const struct pg_request *req)
{
	char	 cred[PG_VALUE_MAX * 2];
	char	 want[PG_AUTH_MAX + 1] = "", got[PG_AUTH_MAX + 1] = "";
	int	 n, ok;

	if (cfg->serve.user[0] == '\0')
		return 1;
	n = snprintf(cred, sizeof(cred), "%s:%s", cfg->serve.user,
	    cfg->serve.password);
	ok = n > 0 && (size_t)n < sizeof(cred) &&
	    pg_base64(cred, n, want, sizeof(want)) != -1;
	strlcpy(got, req->auth, sizeof(got));
	ok = equal_ct(got, want, sizeof(got)) && ok && req->has_auth;
	explicit_bzero(cred, sizeof(cred));
	explicit_bzero(want, sizeof(want));
	explicit_bzero(got, sizeof(got));
	return ok;
}

/*
 * Append an escaped message to buf (for the log), after "; " if needed.
 * Printable ASCII, its own escape, is copied: libbsd's strnvis converts
 * every byte to a wide character and back, most of a request's cost.
 */
static void
add_escaped(char *buf, size_t len, const char *msg)
{
	size_t	 n = strlen(buf);

	if (n > 0 && n + 2 < len) {
		strlcat(buf, "; ", len);
		n += 2;
	}
	if (n < len && pg_bytes_within(msg, strlen(msg), ' ', '~'))
		strlcpy(buf + n, msg, len - n);
	else if (n < len)
		strnvis(buf + n, msg, len - n, VIS_CSTYLE | VIS_OCTAL |
		    VIS_TAB | VIS_NL | VIS_NOSLASH);
}

/* The state directory when there is one open, else NULL. */
static struct pg_state *
open_state(struct pg_state *st)
{
	return st != NULL && st->dirfd != -1 ? st : NULL;
}

/* A record that could not be read, for the error log (escaped). */
static void
record_error(struct pg_reply *r, const struct pg_state *ds, const char *id)
{
	char	 msg[PATH_MAX + PG_ERR_MAX];

	/* Without a state directory only the clock can fail. */
	snprintf(msg, sizeof(msg), "%s/%s: %s", ds != NULL ? ds->path :
	    "clock", id, errno == EBADMSG ? "not a valid state record" :
	    ds != NULL ? pg_state_strerror(ds, errno) : strerror(errno));
	add_escaped(r->err, sizeof(r->err), msg);
}

/* One cluster's elapsed ms, PG_NEVER, or -1: damaged (in r->err). */
static int64_t
elapsed(struct pg_state *st, const char *id, const struct pg_stamp *now,
    struct pg_reply *r)
{
	struct pg_stamp	 rec;
	int		 n;

	if (open_state(st) == NULL)
		return PG_NEVER;
	if ((n = pg_state_read(st, id, &rec)) == -1) {
		record_error(r, st, id);
		return -1;
	}
	return n == 1 ? pg_record_elapsed(&rec, now) : PG_NEVER;
}

/* "Pollguard-Node: NAME": a node that asks itself can tell (peers.c). */
static void
node_header(const struct pg_config *cfg, struct pg_reply *r)
{
	snprintf(r->hdr, sizeof(r->hdr), "Pollguard-Node: %s\r\n", cfg->node);
	r->extra = r->hdr;
}

/*
 * The answer peers ask for, or a failure's status. No memory stream: it
 * would clear BUFSIZ bytes first, half the work of a request.
 */
static int
body_one(const struct pg_config *cfg, struct pg_state *st,
    const struct pg_request *req, const struct pg_stamp *now,
    struct pg_reply *r)
{
	const struct pg_cluster	*c;
	int64_t			 ms;

	if ((c = pg_config_cluster(cfg, req->cluster)) == NULL)
		return 404;
	if ((ms = elapsed(st, c->id, now, r)) == -1)
		return 500;
	if (ms == PG_NEVER)
		r->body = strdup("never\n");
	else if (asprintf(&r->body, "%" PRId64 "\n", ms) == -1)
		r->body = NULL;
	if (r->body == NULL)
		return 500;
	r->bodylen = strlen(r->body);
	node_header(cfg, r);
	return 200;
}

/* One cluster's status block and a blank line into fp: 1, or 0. */
static int
status_of(FILE *fp, const struct pg_config *cfg, struct pg_state *st,
    const struct pg_cluster *c, const struct pg_request *req,
    struct pg_reply *r)
{
	struct pg_status	 s;
	struct pg_state		*ds = open_state(st);
	char			 buf[PG_STATUS_MAX];
	int			 n;

	/* Tests the claim lock before it reads the record (local.c). */
	if (pg_status_serve(ds, cfg, c, &s) == -1) {
		record_error(r, ds, c->id);
		return 0;
	}
	/* The asker's nonce: its proof that no cache answered. */
	strlcpy(s.nonce, req->nonce, sizeof(s.nonce));
	if ((n = pg_status_format(&s, buf, sizeof(buf))) == -1)
		return 0;
	fwrite(buf, 1, n, fp);
	fputc('\n', fp);
	return 1;
}

/* The status paths; a 404 names the node too (doc/PROTOCOL.md). */
static int
body_status(FILE *fp, const struct pg_config *cfg, struct pg_state *st,
    const struct pg_request *req, struct pg_reply *r)
{
	const struct pg_cluster	*c;
	size_t			 i;

	node_header(cfg, r);
	if (req->target == PG_TARGET_STATUS_ONE) {
		if ((c = pg_config_cluster(cfg, req->cluster)) == NULL)
			return 404;
		return status_of(fp, cfg, st, c, req, r) ? 200 : 500;
	}
	for (i = 0; i < cfg->nclusters; i++)
		status_of(fp, cfg, st, &cfg->clusters[i], req, r);
	return 200;
}

/* The listing of /v1/elapsed: damaged records are left out. */
static void
body_all(FILE *fp, const struct pg_config *cfg, struct pg_state *st,
    const struct pg_stamp *now, struct pg_reply *r)
{
	const char	*id;
	int64_t		 ms;
	size_t		 i;

	for (i = 0; i < cfg->nclusters; i++) {
		id = cfg->clusters[i].id;
		if ((ms = elapsed(st, id, now, r)) == PG_NEVER)
			fprintf(fp, "%s never\n", id);
		else if (ms != -1)
			fprintf(fp, "%s %" PRId64 "\n", id, ms);
	}
}

/* A cluster's metrics (doc/PROTOCOL.md, Metrics): ms as seconds, or not. */
static const struct metric {
	const char	*name, *help;
	int		 seconds;
} metrics[] = {
	{ "pollguard_wait_seconds", "The cluster's wait time.", 1 },
	{ "pollguard_last_activity_seconds", "Seconds since this node's last "
	    "activity in the cluster; absent: never.", 1 },
	{ "pollguard_last_exit_code", "Exit status of the last run of the "
	    "job on this node; 124 when max_runtime ended it, else 128 + N "
	    "when signal N did.", 0 },
	{ "pollguard_last_run_duration_seconds", "How long the last run of "
	    "the job on this node took.", 1 },
	{ "pollguard_last_success_age_seconds", "Seconds since the last run "
	    "of the job on this node that succeeded; absent: never.", 1 },
	{ "pollguard_running", "1 while a run of the job is going on on this "
	    "node.", 0 },
	{ "pollguard_failures_in_a_row", "Runs of the job on this node that "
	    "failed since the last one that succeeded.", 0 },
	{ "pollguard_held_seconds_remaining", "Time left of a hold on the "
	    "cluster set on this node; 0: not held.", 1 },
};

/* Metric k of cluster c in *v, s its status (ok: read); 0 when none. */
static int
metric_value(size_t k, const struct pg_cluster *c, const struct pg_status *s,
    int ok, int64_t *v)
{
	const int64_t	 value[] = {
		c->wait_ms, s->elapsed_ms,
		/* As pollguard-touch and timeout(1) exit. */
		s->last_timeout ? 124 : s->last_signal > 0 ?
		    128 + s->last_signal : s->last_exit,
		s->last_duration_ms, s->last_success_ms, s->running,
		s->failures, s->hold_ms
	};
	const int	 has[] = {
		1, ok && s->elapsed_ms != PG_NEVER, ok && s->last,
		ok && s->last, ok && s->last_success_ms != PG_NEVER, ok, ok, ok
	};

	*v = value[k];
	return has[k];
}

static void
metric_help(FILE *fp, const char *name, const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* /metrics, in Prometheus' text format. */
static void
body_metrics(FILE *fp, const struct pg_config *cfg, struct pg_state *st,
    struct pg_reply *r)
{
	const struct metric	*m;
	struct pg_state		*ds = open_state(st);
	struct pg_status	*s;
	int64_t			 v;
	size_t			 i, k;
	int			*ok;

	r->extra = METRICS_TYPE;
	metric_help(fp, "pollguard_build_info", "The pollguard version "
	    "answering.");
	fprintf(fp, "pollguard_build_info{version=\"%s\"} 1\n", PG_VERSION);
	s = calloc(cfg->nclusters + 1, sizeof(*s));
	ok = calloc(cfg->nclusters + 1, sizeof(*ok));
	if (s == NULL || ok == NULL)
		goto out;
	for (i = 0; i < cfg->nclusters; i++) {
		ok[i] = pg_status_local(ds, &cfg->clusters[i], cfg->node,
		    &s[i]) == 0;
		if (!ok[i] && ds != NULL)
			record_error(r, ds, cfg->clusters[i].id);
	}
	for (k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++) {
		m = &metrics[k];
		metric_help(fp, m->name, m->help);
		for (i = 0; i < cfg->nclusters; i++) {
			if (!metric_value(k, &cfg->clusters[i], &s[i], ok[i],
			    &v))
				continue;
			if (m->seconds)
				fprintf(fp, "%s{cluster=\"%s\"} %" PRId64
				    ".%03" PRId64 "\n", m->name,
				    cfg->clusters[i].id, v / 1000, v % 1000);
			else
				fprintf(fp, "%s{cluster=\"%s\"} %" PRId64 "\n",
				    m->name, cfg->clusters[i].id, v);
		}
	}
out:
	free(s);
	free(ok);
}

/* The body of a 200 answer to a good request, or a failure's status. */
static int
body(const struct pg_config *cfg, struct pg_state *st,
    const struct pg_request *req, struct pg_reply *r)
{
	struct pg_stamp	 now;
	FILE		*fp;
	int		 status = 200, one;

	if (pg_stamp_now(&now) == -1)
		return 500;
	/* A directory that cannot be used is not "never"; no cluster, 404. */
	one = req->target == PG_TARGET_ONE ||
	    req->target == PG_TARGET_STATUS_ONE;
	if (st != NULL && st->dirfd == -1 && st->refused[0] != '\0' &&
	    (!one || pg_config_cluster(cfg, req->cluster) != NULL)) {
		add_escaped(r->err, sizeof(r->err), st->refused);
		return 500;
	}
	if (req->target == PG_TARGET_ONE)
		return body_one(cfg, st, req, &now, r);
	if ((fp = open_memstream(&r->body, &r->bodylen)) == NULL)
		return 500;
	if (req->target == PG_TARGET_ALL)
		body_all(fp, cfg, st, &now, r);
	else if (req->target == PG_TARGET_METRICS)
		body_metrics(fp, cfg, st, r);
	else
		status = body_status(fp, cfg, st, req, r);
	if (fclose(fp) != 0)
		return 500;
	return status;
}

/* The reason phrase as body, and the header a 401 or 405 needs. */
static void
error_body(struct pg_reply *r, int status)
{
	int	 n;

	r->status = status;
	r->extra = NULL;
	if (status == 405)
		r->extra = "Allow: GET, HEAD\r\n";
	if (status == 401)
		r->extra = "WWW-Authenticate: Basic realm=\"pollguard\"\r\n";
	if ((n = asprintf(&r->body, "%s\n", pg_status_text(status))) == -1)
		r->body = NULL;
	r->bodylen = n == -1 ? 0 : n;
}

void
pg_reply_error(struct pg_reply *r, int status)
{
	memset(r, 0, sizeof(*r));
	r->minor = 1;
	r->level = -1;
	error_body(r, status);
}

/* The log line: client, status, why, and the request line so far. */
static void
reply_log(struct pg_reply *r, const struct pg_client *c, const char *why,
    const struct pg_request *req, const char *in, size_t inlen)
{
	char		 msg[PG_ERR_MAX], line[200 * 4 + 1];
	const char	*eol;
	size_t		 n;

	/* Up to 200 bytes of the request line, a NUL among them too. */
	line[0] = '\0';
	if (in != NULL) {
		n = req != NULL && req->linelen > 0 ? req->linelen : inlen;
		if (n > 200)
			n = 200;
		if ((eol = memchr(in, '\n', n)) != NULL)
			n = eol - in;
		if (n > 0 && in[n - 1] == '\r')
			n--;
		if (pg_bytes_within(in, n, ' ', '~'))	/* the usual case */
			snprintf(line, sizeof(line), "%.*s", (int)n, in);
		else
			strvisx(line, in, n, VIS_CSTYLE | VIS_OCTAL | VIS_TAB |
			    VIS_NL | VIS_NOSLASH);
	}
	if (in == NULL)		/* refused before anything was read */
		snprintf(msg, sizeof(msg), "client %s: %d %s%s", c->name,
		    r->status, pg_status_text(r->status), why);
	else if (r->status >= 400)
		snprintf(msg, sizeof(msg), "client %s: %d %s%s: \"%s\"",
		    c->name, r->status, pg_status_text(r->status), why, line);
	else
		snprintf(msg, sizeof(msg), "client %s: %d \"%s\"", c->name,
		    r->status, line);
	r->level = r->status >= 400 ? LOG_NOTICE : LOG_INFO;
	r->client = *c;
	r->log[0] = '\0';
	add_escaped(r->log, sizeof(r->log), msg);
}

void
pg_serve_answer(int status, const struct pg_request *req, const char *in,
    size_t inlen, const struct pg_client *c, const struct pg_config *cfg,
    struct pg_state *st, struct pg_reply *r)
{
	const char	*why = "";
	char		 bad[80];
	int		 node;

	memset(r, 0, sizeof(*r));
	if (!pg_serve_allowed(cfg, c)) {
		status = 403;
		why = c->family == 0 ? " (client address unknown)" : "";
	} else if (req == NULL)
		status = 400;
	else if (status == 400) {
		snprintf(bad, sizeof(bad), " (%s)", req->why != NULL ?
		    req->why : "the head ended early");
		why = bad;
	} else if (status == 200 && !auth_ok(cfg, req)) {
		status = 401;
		why = req->has_auth ? " (wrong credentials)" :
		    " (no credentials)";
	} else if (status == 200) {
		status = body(cfg, st, req, r);
		if (status == 404)
			why = " (no such cluster here)";
	}
	if (status != 200) {
		/* The status paths name the node on a 404 too. */
		node = status == 404 && r->extra == r->hdr;
		free(r->body);
		error_body(r, status);
		if (node)
			r->extra = r->hdr;
	}
	r->status = status;
	r->minor = req != NULL ? req->minor : 1;
	r->head = req != NULL && req->head;
	/* Every answer to a nonce echoes it: a cache's copy cannot. */
	if (req != NULL && req->nonce[0] != '\0') {
		snprintf(r->hdrs, sizeof(r->hdrs), "%sPollguard-Nonce: %s\r\n",
		    r->extra != NULL ? r->extra : "", req->nonce);
		r->extra = r->hdrs;
	}
	reply_log(r, c, why, req, in, inlen);
}

/* The head takes less than HEAD_MAX bytes: its fields are bounded. */
#define HEAD_MAX	512

int
pg_reply_format(const struct pg_reply *r, char **out, size_t *outlen)
{
	size_t	 blen = r->body != NULL ? r->bodylen : 0;
	int	 n;

	if ((*out = malloc(HEAD_MAX + blen)) == NULL)
		return -1;
	if ((n = pg_response(*out, HEAD_MAX + blen, r->minor, r->status,
	    r->extra, r->body, blen, r->head)) < 0) {
		free(*out);
		errno = EOVERFLOW;
		return -1;
	}
	*outlen = n;
	return 0;
}

void
pg_reply_free(struct pg_reply *r)
{
	free(r->body);
	r->body = NULL;
	r->bodylen = 0;
}
