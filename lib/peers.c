/* SPDX-License-Identifier: ISC */
/*
 * Asking a cluster's peers (proto.h); sent_ns and recv_ns: doc/PROTOCOL.md,
 * How pollguard implements it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <vis.h>

#include <curl/curl.h>

#include "proto.h"

/* More header bytes than this, and the answer is not one (invalid). */
#define PEER_HEADER_MAX	16384

struct xfer {
	CURL		*easy;
	char		 url[PG_VALUE_MAX + PG_NAME_MAX + 16];
	char		 body[PG_STATUS_MAX + 1];
	size_t		 len;
	size_t		 cap;		/* PG_STATUS_MAX, or PG_ANSWER_MAX */
	int		 status;	/* asking /v1/status, not /v1/elapsed */
	int		 named;		/* a Pollguard-Node field came */
	const struct pg_config *cfg;
	const struct pg_peer *peer;
	const char	*id;		/* the cluster */
	size_t		 hlen;		/* header bytes so far */
	int		 hbig;		/* more than PEER_HEADER_MAX */
	int		 done;
	char		 err[CURL_ERROR_SIZE];
	enum { HEAD_STATUS, HEAD_FIELDS, HEAD_END } head;
	int		 interim;	/* the head is a 1xx one */
	int		 bad;		/* a malformed status line: */
	char		 badline[32];	/* its start */
	size_t		 badlen;
	int		 itself;	/* its Pollguard-Node is this node */
	int64_t		 sent_ns;	/* 0, or stamped just before sending */
	char		 nonce[PG_NONCE_LEN + 1];	/* sent with it */
	char		 echo[PG_NONCE_LEN + 2];	/* a Pollguard-Nonce */
	int		 echoed;		/* field that came */
	struct curl_slist *fields;	/* its Pollguard-Nonce field */
	struct pg_seen	*seen;		/* where its answer goes */
	int64_t		 deadline_ns;	/* its round's: T after its start */
	int		 heard;		/* a byte came, also to an earlier
					   question of the peer (xfer_again) */
};

/* A round being asked: its transfers, one per peer. */
struct asked {
	struct pg_round	*r;
	struct xfer	*x;
	size_t		 n;		/* r->n, which the caller may free */
};

/* Rounds asked at once, in one multi handle (proto.h). */
struct pg_asking {
	CURLM		*multi;
	struct asked	 rounds[PG_ASKING_ROUNDS];
	size_t		 n;
};

int
pg_peers_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

/* Keep at most x->cap bytes; more ends the transfer. */
static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct xfer	*x = arg;
	size_t		 n = size * nmemb, room = x->cap - x->len;

	x->heard = 1;
	memcpy(x->body + x->len, p, n < room ? n : room);
	x->len += n < room ? n : room;
	return n <= room ? n : 0;
}

/* "Pollguard-Node: NAME": is it this node (doc/PROTOCOL.md, Answers)? */
static void
node_field(struct xfer *x, const char *p, size_t n)
{
	static const char	 f[] = "Pollguard-Node:";
	size_t			 len, flen = sizeof(f) - 1;

	if (n <= flen || strncasecmp(p, f, flen) != 0)
		return;
	p += flen;
	n -= flen;
	x->named = 1;
	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	for (len = 0; len < n && p[len] != '\r' && p[len] != '\n' &&
	    p[len] != ' '; len++)
		;
	x->itself = len == strlen(x->cfg->node) &&
	    strncasecmp(p, x->cfg->node, len) == 0;
}

/* "Pollguard-Nonce: HEX": what the answer echoes, invalid or not. */
static void
nonce_field(struct xfer *x, const char *p, size_t n)
{
	static const char	 f[] = "Pollguard-Nonce:";
	size_t			 len, flen = sizeof(f) - 1;

	if (n <= flen || strncasecmp(p, f, flen) != 0)
		return;
	p += flen;
	n -= flen;
	x->echoed = 1;
	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	for (len = 0; len < n && p[len] != '\r' && p[len] != '\n' &&
	    p[len] != ' '; len++)
		;
	/* One more than a nonce's length is enough to differ. */
	if (len > PG_NONCE_LEN + 1)
		len = PG_NONCE_LEN + 1;
	memcpy(x->echo, p, len);
	x->echo[len] = '\0';
}

/*
 * Count the header bytes; too many end the transfer. libcurl 7 reads
 * "HTTP/x 200", "HTTP/1.1 200x", "HTTP/2 200" as 200: each head's status
 * line must be "HTTP/1.x DDD". After the last (not 1xx) head: trailers.
 */
static size_t
on_header(char *p, size_t size, size_t nmemb, void *arg)
{
	struct xfer	*x = arg;
	size_t		 n = size * nmemb;

	x->heard = 1;
	if (n > PEER_HEADER_MAX - x->hlen) {
		x->hbig = 1;
		return 0;
	}
	x->hlen += n;
	if (x->head == HEAD_FIELDS) {
		if (n > 0 && (p[0] == '\r' || p[0] == '\n'))
			x->head = x->interim ? HEAD_STATUS : HEAD_END;
		else {
			node_field(x, p, n);
			nonce_field(x, p, n);
		}
		return n;
	}
	if (x->head == HEAD_END)
		return n;
	x->head = HEAD_FIELDS;
	if (n < 13 || memcmp(p, "HTTP/1.", 7) != 0 ||
	    (p[7] != '0' && p[7] != '1') || p[8] != ' ' ||
	    !pg_bytes_within(p + 9, 3, '0', '9') ||
	    (p[12] != ' ' && p[12] != '\r' && p[12] != '\n')) {
		/* Keep its start for the message, and end the transfer. */
		x->badlen = n < sizeof(x->badline) ? n : sizeof(x->badline);
		memcpy(x->badline, p, x->badlen);
		while (x->badlen > 0 && (x->badline[x->badlen - 1] == '\n' ||
		    x->badline[x->badlen - 1] == '\r'))
			x->badlen--;
		x->bad = 1;
		return 0;
	}
	x->interim = p[9] == '1';
	return n;
}

/*
 * Before the request is sent: no later than it left, however long this
 * process is held up. CURLINFO_PRETRANSFER_TIME is taken after the send.
 */
static int
on_prereq(void *arg, char *ip, char *local, int port, int lport)
{
	struct xfer	*x = arg;
	int64_t		 ns;

	(void)ip;
	(void)local;
	(void)port;
	(void)lport;
	if (pg_clock(CLOCK_BOOTTIME, &ns) == 0)
		x->sent_ns = ns;
	return CURL_PREREQFUNC_OK;
}

/* A request's nonce: PG_NONCE_LEN hex digits, unpredictable. */
static void
nonce(char *buf)
{
	static const char	 hex[] = "0123456789abcdef";
	unsigned char		 b[PG_NONCE_LEN / 2];
	size_t			 i;

	arc4random_buf(b, sizeof(b));
	for (i = 0; i < sizeof(b); i++) {
		buf[2 * i] = hex[b[i] >> 4];
		buf[2 * i + 1] = hex[b[i] & 0xf];
	}
	buf[PG_NONCE_LEN] = '\0';
}

/*
 * A transfer in multi asking peer p for cluster id: its status, or (status
 * 0) its elapsed time, within timeout_ms. -1 with ENOMEM.
 */
static int
xfer_setup(CURLM *multi, struct xfer *x, const struct pg_config *cfg,
    const struct pg_peer *p, const char *id, int status, int64_t timeout_ms)
{
	char	 field[sizeof("Pollguard-Nonce: ") + PG_NONCE_LEN];
	size_t	 n = strlen(p->url);

	while (n > 0 && p->url[n - 1] == '/')
		n--;
	snprintf(x->url, sizeof(x->url), "%.*s/v1/%s/%s", (int)n, p->url,
	    status ? "status" : "elapsed", id);
	x->status = status;
	x->cap = status ? PG_STATUS_MAX : PG_ANSWER_MAX;
	nonce(x->nonce);
	x->cfg = cfg;
	x->peer = p;
	x->id = id;
	errno = ENOMEM;
	if ((x->easy = curl_easy_init()) == NULL)
		return -1;
	curl_easy_setopt(x->easy, CURLOPT_URL, x->url);
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x->easy, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(x->easy, CURLOPT_HTTP_VERSION,
	    (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
	/* A connection of its own, as when each round had its own handle. */
	curl_easy_setopt(x->easy, CURLOPT_FORBID_REUSE, 1L);
#if LIBCURL_VERSION_NUM >= 0x075700
	/* Not waiting for a resolver thread stuck past the timeout. */
	curl_easy_setopt(x->easy, CURLOPT_QUICK_EXIT, 1L);
#endif
	/* Peers are asked directly, whatever cron's environment says. */
	curl_easy_setopt(x->easy, CURLOPT_PROXY, "");
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS,
	    (long)(cfg->connect_timeout_ms < timeout_ms ?
	    cfg->connect_timeout_ms : timeout_ms));
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(x->easy, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)x->cap);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->err);
	curl_easy_setopt(x->easy, CURLOPT_PREREQFUNCTION, on_prereq);
	curl_easy_setopt(x->easy, CURLOPT_PREREQDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_USERAGENT,
	    "pollguard-check/" PG_VERSION);
	/* A new nonce each request: an answer must echo it to count. */
	snprintf(field, sizeof(field), "Pollguard-Nonce: %s", x->nonce);
	if ((x->fields = curl_slist_append(NULL, field)) == NULL)
		return -1;
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->fields);
	/* Verification stays on (libcurl's default); only the CA may change. */
	curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYHOST, 2L);
	if (p->cafile[0] != '\0')
		curl_easy_setopt(x->easy, CURLOPT_CAINFO, p->cafile);
	if (p->user[0] != '\0') {
		curl_easy_setopt(x->easy, CURLOPT_HTTPAUTH,
		    (long)CURLAUTH_BASIC);
		curl_easy_setopt(x->easy, CURLOPT_USERNAME, p->user);
		curl_easy_setopt(x->easy, CURLOPT_PASSWORD, p->password);
	}
	return curl_multi_add_handle(multi, x->easy) == CURLM_OK ? 0 : -1;
}

#define ECHO_SHOWN	8	/* bytes of a cache's nonce in a message */

/*
 * What a finished transfer means: an answer, or why there is none. 1: a
 * serve before 0.4, to be asked /v1/elapsed instead.
 */
static int
xfer_result(struct xfer *x, CURLcode rc, struct pg_seen *s)
{
	const char	*ctype = NULL, *msg;
	char		 vis[sizeof(x->badline) * 4 + 1], *why = s->why;
	char		 evis[ECHO_SHOWN * 4 + 1];
	long		 status = 0;
	int		 cut = rc != CURLE_OK;

	/* The round's start is before the send too, only less close. */
	if (x->sent_ns > s->sent_ns)
		s->sent_ns = x->sent_ns;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ctype);
	msg = x->err[0] != '\0' ? x->err : curl_easy_strerror(rc);

	if (x->hbig) {
		snprintf(why, PG_WHY_MAX, "headers longer than %d bytes",
		    PEER_HEADER_MAX);
		goto invalid;
	}
	if (x->itself && rc == CURLE_OK) {
		s->answer.kind = PG_ANSWER_SELF;
		snprintf(why, PG_WHY_MAX, "as this node itself (node %s)",
		    x->cfg->node);
		return 0;
	}
	/* A copy of an answer to another request (doc/PROTOCOL.md). */
	if (x->echoed && strcmp(x->echo, x->nonce) != 0) {
		/* Its first bytes, made visible whole. */
		strvisx(evis, x->echo, strnlen(x->echo, ECHO_SHOWN),
		    VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL);
		snprintf(why, PG_WHY_MAX, "from a cache: its Pollguard-Nonce "
		    "%s... is another request's; a proxy on the way keeps "
		    "answers", evis);
		goto invalid;
	}
	if (x->bad) {
		strvisx(vis, x->badline, x->badlen, VIS_CSTYLE | VIS_OCTAL |
		    VIS_TAB | VIS_NL | VIS_DQ);
		snprintf(why, PG_WHY_MAX, "malformed status line \"%s\"",
		    vis);
		goto invalid;
	}
	switch (rc) {
	case CURLE_OK:
	case CURLE_WRITE_ERROR:
	case CURLE_FILESIZE_EXCEEDED:
		if (!x->status) {
			pg_answer_parse(status, ctype, x->body, x->len, cut,
			    &s->answer, why, PG_WHY_MAX);
			return 0;
		}
		if (pg_answer_status(status, ctype, x->named, x->id, x->body,
		    x->len, cut, &s->answer, &s->status, why, PG_WHY_MAX) == 1)
			return 1;
		if (PG_ANSWER_OK(s->answer.kind) &&
		    !pg_status_fresh(&s->status, x->nonce, why, PG_WHY_MAX))
			s->answer.kind = PG_ANSWER_INVALID;
		s->has_status = PG_ANSWER_OK(s->answer.kind);
		return 0;
	/* A header line too long: out of memory before libcurl 8.6. */
	case CURLE_OUT_OF_MEMORY:
#if LIBCURL_VERSION_NUM >= 0x080600
	case CURLE_TOO_LARGE:
#endif
		snprintf(why, PG_WHY_MAX, "a header line too long to read "
		    "(%.120s)", msg);
		break;
	case CURLE_PARTIAL_FILE:
		snprintf(why, PG_WHY_MAX, "truncated answer (%.120s)", msg);
		break;
	/* A peer that answers, but not HTTP, or that we must not trust. */
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		snprintf(why, PG_WHY_MAX, "%.150s", msg);
		break;
	default:
		s->answer.kind = PG_ANSWER_UNREACHABLE;
		snprintf(why, PG_WHY_MAX, "%.150s", msg);
		return 0;
	}
invalid:
	s->answer.kind = PG_ANSWER_INVALID;
	return 0;
}

/* Transfer x out of the multi handle, its handle freed: done or given up. */
static void
xfer_close(CURLM *multi, struct xfer *x)
{
	if (x->easy == NULL)
		return;
	curl_multi_remove_handle(multi, x->easy);
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->fields);
	x->easy = NULL;
	x->fields = NULL;
}

/* Still waiting for its answer. */
#define XFER_OPEN(x)	((x)->easy != NULL && !(x)->done)

/*
 * Ask a serve before 0.4 again, for /v1/elapsed/CLUSTER, in a new
 * transfer with its own sent_ns, within what is left of the round: 1,
 * or 0 (no time left: "timed out"). -1: no clock, or no memory.
 */
static int
xfer_again(CURLM *multi, struct xfer *x, struct pg_seen *s, int64_t deadline)
{
	const struct pg_config	*cfg = x->cfg;
	const struct pg_peer	*p = x->peer;
	const char		*id = x->id;
	int64_t			 now, left;

	s->old = 1;
	xfer_close(multi, x);
	memset(x, 0, sizeof(*x));
	x->seen = s;
	x->deadline_ns = deadline;
	x->heard = 1;
	if (pg_clock(CLOCK_BOOTTIME, &now) == -1)
		return -1;
	if ((left = (deadline - now) / 1000000) <= 0)
		return 0;
	x->sent_ns = now;
	return xfer_setup(multi, x, cfg, p, id, 0, left) == -1 ? -1 : 1;
}

volatile sig_atomic_t	 pg_peers_stop;

struct pg_asking *
pg_asking_new(void)
{
	struct pg_asking	*a;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return NULL;
	if ((a->multi = curl_multi_init()) == NULL) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

/* The round of a that r is, or NULL. */
static struct asked *
asked_of(struct pg_asking *a, const struct pg_round *r)
{
	size_t	 k;

	for (k = 0; k < a->n; k++)
		if (a->rounds[k].r == r)
			return &a->rounds[k];
	return NULL;
}

int
pg_asking_open(struct pg_asking *a, const struct pg_round *r, size_t i)
{
	struct asked	*q;

	return a != NULL && (q = asked_of(a, r)) != NULL && i < r->n &&
	    XFER_OPEN(&q->x[i]);
}

int
pg_asking_heard(struct pg_asking *a, const struct pg_round *r, size_t i)
{
	struct asked	*q;

	return a != NULL && (q = asked_of(a, r)) != NULL && i < r->n &&
	    q->x[i].heard;
}

/* The questions of r still open; every round's when r is NULL. */
static size_t
open_count(struct pg_asking *a, const struct pg_round *r)
{
	size_t	 k, i, n = 0;

	for (k = 0; k < a->n; k++)
		if (r == NULL || a->rounds[k].r == r)
			for (i = 0; i < a->rounds[k].n; i++)
				n += XFER_OPEN(&a->rounds[k].x[i]);
	return n;
}

/*
 * Give up the questions whose round's timeout has passed by now: the
 * earliest timeout of those left, or until.
 */
static int64_t
expire(struct pg_asking *a, int64_t now, int64_t until)
{
	struct xfer	*x;
	size_t		 k, i;

	for (k = 0; k < a->n; k++)
		for (i = 0; i < a->rounds[k].n; i++) {
			x = &a->rounds[k].x[i];
			if (!XFER_OPEN(x))
				continue;
			if (now >= x->deadline_ns) {
				xfer_close(a->multi, x);
				x->seen->recv_ns = now;
			} else if (x->deadline_ns < until)
				until = x->deadline_ns;
		}
	return until;
}

int
pg_asking_run(struct pg_asking *a, int64_t until_ns, const struct pg_round *r)
{
	struct CURLMsg	*m;
	struct xfer	*done;
	int64_t		 now, left, next;
	int		 running = 0, q, last = 0;

	for (;;) {
		if (curl_multi_perform(a->multi, &running) != CURLM_OK)
			return 0;
		while ((m = curl_multi_info_read(a->multi, &q)) != NULL) {
			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
			    (char **)&done);
			/* The whole answer is read: the safe side. */
			if (pg_clock(CLOCK_BOOTTIME,
			    &done->seen->recv_ns) == -1)
				return -1;
			/* Come after its round's timeout: "timed out". */
			if (done->seen->recv_ns > done->deadline_ns)
				xfer_close(a->multi, done);
			else if (xfer_result(done, m->data.result,
			    done->seen) == 0)
				done->done = 1;
			else if (xfer_again(a->multi, done, done->seen,
			    done->deadline_ns) == -1)
				return -1;
		}
		if (pg_peers_stop || (r != NULL && open_count(a, r) == 0))
			return 0;
		if (pg_clock(CLOCK_BOOTTIME, &now) == -1)
			return -1;
		/*
		 * No answer read after its round's timeout, as when each
		 * round had its own loop: woken just after it, and read once.
		 */
		next = expire(a, now, until_ns);
		if (r != NULL && open_count(a, r) == 0)
			return 0;
		/* Time is up: once more, for answers come meanwhile. */
		if (now >= until_ns && last++ == 0)
			continue;
		if ((left = (next - now) / 1000000) <= 0 && now >= until_ns)
			return 0;
		/* With nothing to ask, it sleeps the time out. */
		if (curl_multi_poll(a->multi, NULL, 0, left > 1000 ? 1000 :
		    (int)left + 1, NULL) != CURLM_OK)
			return 0;
	}
}

int
pg_asking_start(struct pg_asking *a, const struct pg_config *cfg,
    const struct pg_cluster *c, const struct pg_round *prev, const int *which,
    struct pg_round *r)
{
	struct asked	*q;
	struct xfer	*x;
	size_t		 i;

	memset(r, 0, sizeof(*r));
	if (a->n == PG_ASKING_ROUNDS) {
		errno = EINVAL;
		return -1;
	}
	r->n = c->npeers;
	r->seen = calloc(r->n + 1, sizeof(*r->seen));
	x = calloc(r->n + 1, sizeof(*x));
	if (r->seen == NULL || x == NULL) {
		free(x);
		pg_round_free(r);
		errno = ENOMEM;
		return -1;
	}
	q = &a->rounds[a->n++];
	q->r = r;
	q->x = x;
	q->n = r->n;

	/* Before any request can have left: every sent_ns starts here. */
	if (pg_clock(CLOCK_BOOTTIME, &r->start_ns) == -1)
		return -1;
	for (i = 0; i < r->n; i++) {
		r->seen[i].name = cfg->peers[c->peers[i]].name;
		r->seen[i].sent_ns = r->start_ns;
		r->seen[i].answer.kind = PG_ANSWER_UNREACHABLE;
		snprintf(r->seen[i].why, PG_WHY_MAX, "timed out");
		pg_status_init(&r->seen[i].status);
		/* A serve found before 0.4 in round 1 is asked as one. */
		r->seen[i].old = prev != NULL && i < prev->n &&
		    prev->seen[i].old;
		x[i].seen = &r->seen[i];
		x[i].deadline_ns = r->start_ns + cfg->timeout_ms * 1000000;
		if (which != NULL && !which[i]) {
			snprintf(r->seen[i].why, PG_WHY_MAX, "not asked");
			x[i].done = 1;
			continue;
		}
		if (xfer_setup(a->multi, &x[i], cfg, &cfg->peers[c->peers[i]],
		    c->id, !r->seen[i].old, cfg->timeout_ms) == -1)
			return -1;
	}
	return 0;
}

void
pg_asking_drop(struct pg_asking *a, const struct pg_round *r, size_t i,
    int64_t now_ns)
{
	struct asked	*q;

	if (a == NULL || (q = asked_of(a, r)) == NULL || i >= r->n ||
	    !XFER_OPEN(&q->x[i]))
		return;
	xfer_close(a->multi, &q->x[i]);
	q->x[i].seen->recv_ns = now_ns;
}

int
pg_asking_end(struct pg_asking *a, struct pg_round *r)
{
	struct asked	*q;
	size_t		 i;

	if (pg_clock(CLOCK_BOOTTIME, &r->end_ns) == -1)
		return -1;
	if ((q = asked_of(a, r)) == NULL)
		return 0;
	for (i = 0; i < r->n; i++) {
		xfer_close(a->multi, &q->x[i]);
		if (!q->x[i].done)
			r->seen[i].recv_ns = r->end_ns;
	}
	return 0;
}

void
pg_asking_free(struct pg_asking *a)
{
	size_t	 k, i;

	if (a == NULL)
		return;
	for (k = 0; k < a->n; k++) {
		for (i = 0; i < a->rounds[k].n; i++)
			xfer_close(a->multi, &a->rounds[k].x[i]);
		free(a->rounds[k].x);
	}
	curl_multi_cleanup(a->multi);
	free(a);
}

int
pg_peers_ask_some(const struct pg_config *cfg, const struct pg_cluster *c,
    const struct pg_round *prev, const int *which, struct pg_round *r)
{
	struct pg_asking	*a;
	int			 saved;

	memset(r, 0, sizeof(*r));
	if ((a = pg_asking_new()) == NULL)
		return -1;
	if (pg_asking_start(a, cfg, c, prev, which, r) == -1 ||
	    pg_asking_run(a, r->start_ns + cfg->timeout_ms * 1000000, r) ==
	    -1 || pg_asking_end(a, r) == -1) {
		saved = errno != 0 ? errno : ENOMEM;
		pg_asking_free(a);
		pg_round_free(r);
		errno = saved;
		return -1;
	}
	pg_asking_free(a);
	return 0;
}

void
pg_round_free(struct pg_round *r)
{
	free(r->seen);
	r->seen = NULL;
	r->n = 0;
}
