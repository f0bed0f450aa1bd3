/* SPDX-License-Identifier: ISC */
/*
 * fleet.c: what pollguard-status shows of a cluster across its nodes.
 * The tool asks the nodes and fills in a struct pg_fleet per cluster;
 * everything it prints is made here, from plain data, so that the unit
 * tests can check the prediction, the table and the JSON exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vis.h>

#include "pollguard.h"

#define DUR_MAX		32
#define CELL_MAX	(PG_STATUS_TEXT_MAX * 6)

enum col {
	C_CLUSTER, C_NODE, C_REACH, C_ACTIVE, C_RUNNING, C_LAST, C_FAILS,
	C_HOLD, C_COUNT
};

static const char *const heads[C_COUNT] = {
	"CLUSTER", "NODE", "REACH", "ACTIVE", "RUNNING", "LAST", "FAILS",
	"HOLD"
};

/* A growing string; once a step fails, every later one does nothing. */
struct sbuf {
	char	*p;
	size_t	 len, cap;
	int	 fail;
};

static void
sb_add(struct sbuf *b, const char *s, size_t n)
{
	char	*p;
	size_t	 cap;

	if (b->fail)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap == 0 ? 4096 : b->cap;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((p = realloc(b->p, cap)) == NULL) {
			b->fail = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char	 s[CELL_MAX * 2];
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(s))
		b->fail = 1;
	else
		sb_add(b, s, n);
}

#define SB_LIT(b, s)	sb_add((b), (s), sizeof(s) - 1)

/* The string made, or NULL and ENOMEM. */
static char *
sb_end(struct sbuf *b)
{
	if (b->fail || b->p == NULL) {
		free(b->p);
		errno = ENOMEM;
		return NULL;
	}
	return b->p;
}

/* A duration for people; "?" for what pg_duration_format refuses. */
static const char *
dur(int64_t ms, char *buf)
{
	if (pg_duration_format(ms, buf, DUR_MAX) == -1)
		strlcpy(buf, "?", DUR_MAX);
	return buf;
}

/* Text as an operator typed it (a local hold's why), safe to print. */
static void
safe(const char *in, char *out, size_t len)
{
	strnvis(out, in, len, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL);
}

/* It answered the question: its activity counts in the rule. */
static int
answered(const struct pg_fleet_node *n)
{
	return PG_ANSWER_OK(n->kind);
}

/*
 * The one moment, on one clock, at which pollguard-status takes every
 * answer as read, for the rules that compare moments (the yield rule:
 * a node's previous check against a peer's yield); far from both ends
 * of int64_t, so that the moments before it that the rules compute,
 * each bounded (pg_prefer_prev_check, pg_yield_ignores), stay positive.
 */
#define NOW	(INT64_MAX / 2)

/* n as the check of another node gets it; status: that check reads it. */
static void
as_seen(const struct pg_fleet_node *n, int status, struct pg_seen *s)
{
	memset(s, 0, sizeof(*s));
	s->name = n->name;
	s->answer.kind = n->kind;
	pg_status_init(&s->status);
	if (answered(n)) {
		s->answer.kind = n->st.elapsed_ms == PG_NEVER ?
		    PG_ANSWER_NEVER : PG_ANSWER_ELAPSED;
		s->answer.elapsed_ms = n->st.elapsed_ms;
		s->has_status = status && n->has_status;
		if (s->has_status)
			s->status = n->st;
	}
	strlcpy(s->why, n->why, sizeof(s->why));
	s->sent_ns = s->recv_ns = NOW;
}

/* What is predicted of one node's check. */
struct pred {
	struct pg_decision d;	/* pg_decide's, over its view */
	int		 checks;	/* its check runs and is predicted */
	int		 busy;		/* a run, a claim or a check there */
};

/* Node i's view of the others, into seen: their count. */
static size_t
view(const struct pg_fleet *f, size_t i, struct pg_seen *seen)
{
	size_t	 j, k;

	for (j = k = 0; j < f->n; j++)
		if (j != i)
			as_seen(&f->nodes[j], f->nodes[i].has_status,
			    &seen[k++]);
	return k;
}

/* The node that is peer k of node i's view. */
#define NODE_OF(i, k)	((k) < (i) ? (k) : (k) + 1)

/*
 * The config node i's check decides by: ours, but for the prefer order
 * it announces; a node before 0.4 has none.
 */
static void
config_of(const struct pg_fleet *f, size_t i, struct pg_cluster *c)
{
	const struct pg_fleet_node	*n = &f->nodes[i];

	*c = *f->cluster;
	strlcpy(c->prefer, n->has_status ? n->st.prefer : "",
	    sizeof(c->prefer));
}

/*
 * Node i's check, as pollguard-check makes it now (check() there): its
 * own record unreadable fails it; a run going, a check deciding or a
 * claim kept on it skips (LOCAL); then pg_decide, its own status as
 * own. A node before 0.4 decides as 0.3 did: pg_decide without its own
 * status, the others' unseen, no prefer. Not predicted: a node that did
 * not answer, and one whose checks have not run within wait and the
 * slack by its checked record (its cron does not run).
 */
static void
predict(const struct pg_fleet *f, size_t i, struct pg_seen *seen,
    struct pred *p)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	struct pg_cluster		 c;
	struct pg_status		 own;
	size_t				 k;

	memset(p, 0, sizeof(*p));
	if (!answered(n) || (n->has_status && n->st.prefer[0] != '\0' &&
	    n->st.checked_ms >= f->cluster->wait_ms +
	    f->cluster->prefer_slack_ms))
		return;
	p->checks = 1;
	config_of(f, i, &c);
	k = view(f, i, seen);
	if (!n->has_status) {
		pg_decide(&c, n->name, NULL, 0, seen, k, &p->d);
		return;
	}
	own = n->st;
	own.at_ns = NOW;
	p->busy = own.running || own.deciding == 1 || own.claim_ms >= 0;
	pg_decide(&c, n->name, &own, p->busy, seen, k, &p->d);
}

/* The first node the checks count as never for want of an answer. */
static size_t
unheard(const struct pg_fleet *f)
{
	size_t	 i;

	for (i = 0; i < f->n; i++)
		if (f->nodes[i].kind == PG_ANSWER_UNREACHABLE)
			break;
	return i;
}

/* "b unreachable: counted as never", or "" when no node is. */
static void
never_text(const struct pg_fleet *f, char *buf, size_t len)
{
	size_t	 u = unheard(f);

	buf[0] = '\0';
	if (u < f->n)
		snprintf(buf, len, "%s%s: counted as never", f->nodes[u].name,
		    f->nodes[u].self ? "'s record unreadable" : " unreachable");
}

/* Node i keeps polling: active within wait, maybe running. */
static void
active(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	char				 a[DUR_MAX], b[DUR_MAX], run[48];

	run[0] = '\0';
	if (n->st.running && n->st.pid > 0)
		snprintf(run, sizeof(run), ", running (pid %" PRId64 ")",
		    n->st.pid);
	else if (n->st.running)
		strlcpy(run, ", running", sizeof(run));
	nx->reason = PG_REASON_ACTIVE;
	nx->node = i;
	snprintf(nx->text, sizeof(nx->text), "%s: active %s ago%s (wait %s), "
	    "keeps polling", n->name, dur(n->st.elapsed_ms, a), run,
	    dur(f->cluster->wait_ms, b));
}

/*
 * Several checks go: the first to run. Nobody is active within wait but
 * a node handing over, as a rule; else the text names the nodes.
 */
static int
several(const struct pg_fleet *f, const struct pred *p, struct pg_next *nx)
{
	struct sbuf	 b = { NULL, 0, 0, 0 };
	char		 a[DUR_MAX], never[PG_NAME_MAX + 48], *s;
	size_t		 i, failed = f->n, awake = 0;

	for (i = 0; i < f->n && failed == f->n; i++)
		if (p[i].checks && p[i].d.verdict == PG_GO &&
		    p[i].d.failed < f->n - 1)
			failed = NODE_OF(i, p[i].d.failed);
	for (i = 0; i < f->n; i++)
		awake += i != failed && answered(&f->nodes[i]) &&
		    f->nodes[i].st.elapsed_ms < f->cluster->wait_ms;
	never_text(f, never, sizeof(never));
	if (awake == 0)
		snprintf(nx->text, sizeof(nx->text), "%s%snobody active within "
		    "wait %s: the first check to run goes", failed < f->n ?
		    f->nodes[failed].name : "", failed < f->n ? "'s last run "
		    "failed, handing over; " : "", dur(f->cluster->wait_ms, a));
	else {
		for (i = 0; i < f->n; i++)
			if (p[i].checks && p[i].d.verdict == PG_GO)
				sb_printf(&b, "%s%s", b.len > 0 ? ", " : "",
				    f->nodes[i].name);
		if ((s = sb_end(&b)) == NULL)
			return -1;
		snprintf(nx->text, sizeof(nx->text), "%s would go: the first "
		    "check to run goes", s);
		free(s);
	}
	if (never[0] != '\0')
		snprintf(nx->text + strlen(nx->text), sizeof(nx->text) -
		    strlen(nx->text), " (%s)", never);
	return 0;
}

/* Node x's check alone goes. */
static void
one(const struct pg_fleet *f, const struct pred *p, size_t x,
    struct pg_next *nx)
{
	const struct pg_fleet_node	*n = &f->nodes[x];
	const struct pg_decision	*d = &p[x].d;
	char				 why[PG_NAME_MAX + 64];
	char				 never[PG_NAME_MAX + 48];
	size_t				 i, others = 0;

	if (n->st.elapsed_ms < f->cluster->wait_ms) {
		active(f, x, nx);
		return;
	}
	nx->node = x;
	if (n->has_status && n->st.prefer[0] != '\0' &&
	    d->disagree >= f->n - 1) {
		nx->reason = PG_REASON_PREFERRED;
		snprintf(nx->text, sizeof(nx->text), "%s: its check goes, the "
		    "others skip (prefer %s)", n->name, n->st.prefer);
		return;
	}
	for (i = 0; i < f->n; i++)
		others += i != x && p[i].checks;
	why[0] = '\0';
	if (d->failed < f->n - 1)
		snprintf(why, sizeof(why), "%s's last run failed, handing over",
		    f->nodes[NODE_OF(x, d->failed)].name);
	else if (f->n == 1)
		strlcpy(why, "no peers", sizeof(why));
	never_text(f, never, sizeof(never));
	snprintf(nx->text, sizeof(nx->text), "%s: its check goes%s%s%s%s%s%s",
	    n->name, others ? ", the others skip" : "",
	    why[0] != '\0' || never[0] != '\0' ? " (" : "", why,
	    why[0] != '\0' && never[0] != '\0' ? "; " : "", never,
	    why[0] != '\0' || never[0] != '\0' ? ")" : "");
}

/* Why node i's check skips, for people, without "skip: ". */
static void
skip_text(const struct pg_fleet *f, const struct pred *p, size_t i,
    struct pg_seen *seen, char *buf, size_t len)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	struct pg_cluster		 c;
	struct pg_status		 own = n->st;
	size_t				 k = view(f, i, seen);

	config_of(f, i, &c);
	own.at_ns = NOW;
	if (p->busy)
		snprintf(buf, len, "%s", own.running ? "a run on this node "
		    "is still going" : own.deciding == 1 ? "another check on "
		    "this node is deciding" : "another check on this node kept "
		    "its claim");
	else
		pg_decision_text(&p->d, &c, n->has_status ? &own : NULL, seen,
		    k, buf, len);
	if (strncmp(buf, "skip: ", 6) == 0)
		memmove(buf, buf + 6, strlen(buf + 6) + 1);
}

/* No check goes, each for a reason of its own: the reasons, by node. */
static int
each(const struct pg_fleet *f, const struct pred *p, struct pg_seen *seen,
    struct pg_next *nx)
{
	struct sbuf	 b = { NULL, 0, 0, 0 };
	char		(*text)[PG_TEXT_MAX], *s;
	size_t		 i, j;
	int		 sep = 0;

	if ((text = calloc(f->n, sizeof(*text))) == NULL)
		return -1;
	for (i = 0; i < f->n; i++)
		if (p[i].checks)
			skip_text(f, &p[i], i, seen, text[i], sizeof(text[i]));
	SB_LIT(&b, "nobody goes now");
	for (i = 0; i < f->n; i++) {
		if (!p[i].checks || text[i][0] == '\0')
			continue;
		sb_printf(&b, "%s %s", sep++ ? ";" : ":", f->nodes[i].name);
		for (j = i + 1; j < f->n; j++)
			if (p[j].checks && strcmp(text[i], text[j]) == 0) {
				sb_printf(&b, ", %s", f->nodes[j].name);
				text[j][0] = '\0';
			}
		sb_printf(&b, ": %s", text[i]);
	}
	if (sep == 0)
		SB_LIT(&b, ": no node's checks run");
	free(text);
	if ((s = sb_end(&b)) == NULL)
		return -1;
	nx->reason = PG_REASON_EACH;
	strlcpy(nx->text, s, sizeof(nx->text));
	free(s);
	return 0;
}

/* No check goes for node i's hold. */
static void
hold(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	char				 a[DUR_MAX];
	char				 why[PG_STATUS_TEXT_MAX * 4 + 8];
	char				 vis[PG_STATUS_TEXT_MAX * 4 + 1];

	nx->reason = PG_REASON_HELD;
	nx->node = i;
	why[0] = '\0';
	if (n->st.hold_why[0] != '\0') {
		safe(n->st.hold_why, vis, sizeof(vis));
		snprintf(why, sizeof(why), " (%s)", vis);
	}
	snprintf(nx->text, sizeof(nx->text), "held for %s by %s%s: nobody goes",
	    dur(n->st.hold_ms, a), n->st.hold_by[0] != '\0' ? n->st.hold_by :
	    n->name, why);
}

/* No check goes while node i is unreachable, by policy. */
static void
unreachable(const struct pg_fleet *f, size_t i, const char *policy,
    struct pg_next *nx)
{
	nx->reason = PG_REASON_UNREACHABLE;
	nx->node = i;
	snprintf(nx->text, sizeof(nx->text), "nobody while %s is unreachable "
	    "(%s)", f->nodes[i].name, policy);
}

/* No check goes for node i's error: its own record, or its answer. */
static void
error(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	nx->reason = PG_REASON_INVALID;
	nx->node = i;
	snprintf(nx->text, sizeof(nx->text), f->nodes[i].self ? "%s cannot "
	    "read its own record: its check fails" : "%s answers an error: "
	    "checks that ask it refuse to decide", f->nodes[i].name);
}

/*
 * No check goes: for a hold (the longest), this node's own record, a
 * node's error answer, an unreachable node (unreachable = skip), a run,
 * claim or check going on an active node; or each for its own reason.
 */
static int
nobody(const struct pg_fleet *f, const struct pred *p, struct pg_seen *seen,
    struct pg_next *nx)
{
	const struct pg_fleet_node	*n;
	size_t				 i, held = f->n, self = f->n;
	size_t				 bad = f->n, lost = f->n, busy = f->n;

	for (i = 0; i < f->n; i++) {
		n = &f->nodes[i];
		if (n->has_status && n->st.hold_ms > 0 && (held == f->n ||
		    n->st.hold_ms > f->nodes[held].st.hold_ms))
			held = i;
		if (n->self && !answered(n))
			self = i;
		if (!p[i].checks)
			continue;
		if (p[i].d.verdict == PG_REFUSE_INVALID && bad == f->n)
			bad = NODE_OF(i, p[i].d.peer);
		if (p[i].d.verdict == PG_SKIP_UNREACHABLE && lost == f->n)
			lost = NODE_OF(i, p[i].d.peer);
		if (p[i].busy && n->st.elapsed_ms < f->cluster->wait_ms &&
		    (busy == f->n ||
		    n->st.elapsed_ms < f->nodes[busy].st.elapsed_ms))
			busy = i;
	}
	if (held < f->n)
		hold(f, held, nx);
	else if (self < f->n || bad < f->n)
		error(f, self < f->n ? self : bad, nx);
	else if (lost < f->n)
		unreachable(f, lost, "unreachable = skip", nx);
	else if (busy < f->n)
		active(f, busy, nx);
	else
		return each(f, p, seen, nx);
	return 0;
}

/*
 * On etcd (pollguard(7), STRICT MODE ON ETCD) no check goes while etcd
 * does not answer; the node that holds the key goes again; without a
 * holder, etcd gives the key to the first check that asks.
 */
static void
by_etcd(const struct pg_fleet *f, struct pg_next *nx)
{
	char	 a[DUR_MAX];
	size_t	 i;

	for (i = 0; i < f->n; i++) {
		if (f->nodes[i].self || answered(&f->nodes[i]))
			continue;
		if (f->nodes[i].kind == PG_ANSWER_UNREACHABLE)
			unreachable(f, i, "backend = etcd", nx);
		else
			error(f, i, nx);
		return;
	}
	if (f->holder < f->n && !answered(&f->nodes[f->holder]))
		error(f, f->holder, nx);
	else if (f->holder < f->n)
		active(f, f->holder, nx);
	else
		snprintf(nx->text, sizeof(nx->text), "nobody active within "
		    "wait %s: the first check to run goes",
		    dur(f->cluster->wait_ms, a));
}

int
pg_fleet_next(const struct pg_fleet *f, struct pg_next *nx)
{
	struct pg_seen		*seen;
	struct pred		*p;
	size_t			 i, go = f->n, ngo = 0;
	int			 r = 0;

	memset(nx, 0, sizeof(*nx));
	nx->reason = PG_REASON_GO;
	nx->node = f->n;
	if (f->cluster->backend == PG_BACKEND_ETCD) {
		by_etcd(f, nx);
		return 0;
	}
	seen = calloc(f->n + 1, sizeof(*seen));
	p = calloc(f->n + 1, sizeof(*p));
	if (seen == NULL || p == NULL) {
		free(seen);
		free(p);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < f->n; i++) {
		predict(f, i, seen, &p[i]);
		if (p[i].checks && p[i].d.verdict == PG_GO && ngo++ == 0)
			go = i;
	}
	if (ngo > 1)
		r = several(f, p, nx);
	else if (ngo == 1)
		one(f, p, go, nx);
	else
		r = nobody(f, p, seen, nx);
	free(seen);
	free(p);
	if (r == -1)
		errno = ENOMEM;
	return r;
}

/* REACH: what the node answered; "error" for this node's own record. */
static const char *
reach_word(const struct pg_fleet_node *n)
{
	switch (n->kind) {
	case PG_ANSWER_ELAPSED:
	case PG_ANSWER_NEVER:
		return n->has_status ? "yes" : "elapsed only";
	case PG_ANSWER_UNREACHABLE:
		return n->self ? "error" : "unreachable";
	case PG_ANSWER_REFUSED:
		return "refused";
	case PG_ANSWER_UNKNOWN:
		return "unknown";
	default:
		return "invalid";
	}
}

/* After ACTIVE's time: [a claim reported][a check deciding]. */
static const char *const mark[2][2] = {
	{ "", " (deciding)" },
	{ " (claim)", " (claim, deciding)" }
};

/* The cells of one node's line. */
static void
cells(const struct pg_fleet *f, const struct pg_fleet_node *n,
    char c[C_COUNT][CELL_MAX])
{
	const struct pg_status	*st = &n->st;
	char			 a[DUR_MAX], b[DUR_MAX], w[32];
	char			 why[PG_STATUS_TEXT_MAX * 4 + 1];
	int			 i, dec, full = n->has_status;

	for (i = 0; i < C_COUNT; i++)
		strlcpy(c[i], "-", CELL_MAX);
	strlcpy(c[C_CLUSTER], f->cluster->id, CELL_MAX);
	snprintf(c[C_NODE], CELL_MAX, "%s%s", n->name, n->self ? " (self)" :
	    "");
	strlcpy(c[C_REACH], reach_word(n), CELL_MAX);
	if (!answered(n))
		return;
	/* A check there holds the claim lock: its round is being decided. */
	dec = full && st->deciding == 1;
	if (st->elapsed_ms == PG_NEVER)
		snprintf(c[C_ACTIVE], CELL_MAX, "never%s", mark[0][dec]);
	else
		snprintf(c[C_ACTIVE], CELL_MAX, "%s ago%s",
		    dur(st->elapsed_ms, a), mark[st->claim_ms >= 0][dec]);
	if (!full)
		return;
	if (st->running && st->pid > 0)
		snprintf(c[C_RUNNING], CELL_MAX, "pid %" PRId64, st->pid);
	else
		strlcpy(c[C_RUNNING], st->running ? "yes" : "no", CELL_MAX);
	if (st->last)
		snprintf(c[C_LAST], CELL_MAX, "%s, %s, %s ago",
		    pg_status_last_text(st, w, sizeof(w)), dur(st->last_duration_ms, a),
		    dur(st->last_end_ms, b));
	snprintf(c[C_FAILS], CELL_MAX, "%d", st->failures);
	if (st->hold_ms > 0) {
		safe(st->hold_why, why, sizeof(why));
		snprintf(c[C_HOLD], CELL_MAX, "%s%s%s%s%s", dur(st->hold_ms, a),
		    st->hold_by[0] != '\0' ? " by " : "", st->hold_by,
		    why[0] != '\0' ? ": " : "", why);
	}
}

/* One line: the cells padded to the widths, the last one not. */
static void
line(struct sbuf *b, char c[][CELL_MAX], size_t nc, const size_t *w)
{
	size_t	 i;

	for (i = 0; i < nc; i++) {
		if (i + 1 < nc)
			sb_printf(b, "%-*s  ", (int)w[i], c[i]);
		else
			sb_printf(b, "%s\n", c[i]);
	}
}

char *
pg_fleet_table(const struct pg_fleet *f, size_t nf)
{
	char		 c[C_COUNT][CELL_MAX];
	struct sbuf	 b = { NULL, 0, 0, 0 };
	struct pg_next	 nx;
	size_t		 w[C_COUNT], i, j, k, len;

	for (k = 0; k < C_COUNT; k++)
		w[k] = strlen(heads[k]);
	for (i = 0; i < nf; i++)
		for (j = 0; j < f[i].n; j++) {
			cells(&f[i], &f[i].nodes[j], c);
			for (k = 0; k < C_COUNT; k++)
				if ((len = strlen(c[k])) > w[k])
					w[k] = len;
		}
	for (k = 0; k < C_COUNT; k++)
		strlcpy(c[k], heads[k], CELL_MAX);
	line(&b, c, C_COUNT, w);
	for (i = 0; i < nf; i++) {
		for (j = 0; j < f[i].n; j++) {
			cells(&f[i], &f[i].nodes[j], c);
			line(&b, c, C_COUNT, w);
		}
		if (pg_fleet_next(&f[i], &nx) == -1) {
			b.fail = 1;
			break;
		}
		strlcpy(c[C_CLUSTER], f[i].cluster->id, CELL_MAX);
		strlcpy(c[C_NODE], "next", CELL_MAX);
		strlcpy(c[C_REACH], nx.text, CELL_MAX);
		line(&b, c, 3, w);
	}
	return sb_end(&b);
}

/* A JSON string: quotes, backslashes, and \uXXXX for the rest. */
static void
js_str(struct sbuf *b, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 e[6] = { '\\', 'u', '0', '0' };
	unsigned char		 ch;
	size_t			 run;

	SB_LIT(b, "\"");
	while (*s != '\0') {
		for (run = 0; s[run] >= 0x20 && s[run] < 0x7f &&
		    s[run] != '"' && s[run] != '\\'; run++)
			;
		sb_add(b, s, run);
		s += run;
		if (*s == '\0')
			break;
		ch = (unsigned char)*s++;
		if (ch == '"' || ch == '\\') {
			e[1] = ch;
			sb_add(b, e, 2);
			e[1] = 'u';
			continue;
		}
		e[4] = hex[ch >> 4];
		e[5] = hex[ch & 0xf];
		sb_add(b, e, 6);
	}
	SB_LIT(b, "\"");
}

/* "key": then a string, or null when s is NULL or empty. */
static void
js_key_str(struct sbuf *b, const char *key, const char *s)
{
	sb_printf(b, "\"%s\":", key);
	if (s == NULL || s[0] == '\0')
		SB_LIT(b, "null");
	else
		js_str(b, s);
}

/* "key": milliseconds, or null for never (and unknown: cond false). */
static void
js_key_ms(struct sbuf *b, const char *key, int cond, int64_t ms)
{
	if (cond && ms != PG_NEVER && ms >= 0)
		sb_printf(b, "\"%s\":%" PRId64, key, ms);
	else
		sb_printf(b, "\"%s\":null", key);
}

static const char *
reach_key(const struct pg_fleet_node *n)
{
	return !answered(n) ? reach_word(n) : n->has_status ? "status" :
	    "elapsed";
}

static void
js_node(struct sbuf *b, const struct pg_fleet_node *n)
{
	const struct pg_status	*st = &n->st;
	int			 ok = answered(n);
	int			 full = n->has_status;

	SB_LIT(b, "{");
	js_key_str(b, "name", n->name);
	sb_printf(b, ",\"self\":%s,\"reachable\":%s,\"answer\":\"%s\",",
	    n->self ? "true" : "false", ok ? "true" : "false",
	    reach_key(n));
	js_key_str(b, "error", ok ? NULL : n->why[0] != '\0' ? n->why :
	    reach_word(n));
	SB_LIT(b, ",");
	js_key_str(b, "version", full ? st->version : NULL);
	SB_LIT(b, ",");
	js_key_ms(b, "elapsed_ms", ok, st->elapsed_ms);
	SB_LIT(b, ",");
	js_key_ms(b, "claim_ms", ok, st->claim_ms);
	if (full && st->deciding >= 0)
		sb_printf(b, ",\"deciding\":%s", st->deciding ? "true" :
		    "false");
	else
		SB_LIT(b, ",\"deciding\":null");
	if (!full) {
		sb_printf(b, ",\"running\":null,\"pid\":null,\"last\":null,"
		    "\"last_success_ms\":null,\"failures\":null,"
		    "\"prefer\":null,\"checked_ms\":null,\"checking_ms\":null,"
		    "\"yield\":null,\"hold\":null}");
		return;
	}
	sb_printf(b, ",\"running\":%s,", st->running ? "true" : "false");
	js_key_ms(b, "pid", st->running && st->pid > 0, st->pid);
	if (st->last) {
		SB_LIT(b, ",\"last\":{");
		js_key_ms(b, "exit", st->last_signal == 0, st->last_exit);
		SB_LIT(b, ",");
		js_key_ms(b, "signal", st->last_signal > 0, st->last_signal);
		sb_printf(b, ",\"timed_out\":%s,", st->last_timeout ? "true" :
		    "false");
		js_key_ms(b, "duration_ms", 1, st->last_duration_ms);
		SB_LIT(b, ",");
		js_key_ms(b, "end_ms", 1, st->last_end_ms);
		SB_LIT(b, "}");
	} else
		SB_LIT(b, ",\"last\":null");
	SB_LIT(b, ",");
	js_key_ms(b, "last_success_ms", 1, st->last_success_ms);
	sb_printf(b, ",\"failures\":%d,", st->failures);
	js_key_str(b, "prefer", st->prefer[0] != '\0' ? st->prefer : NULL);
	SB_LIT(b, ",");
	js_key_ms(b, "checked_ms", st->checked_ms != PG_NEVER, st->checked_ms);
	SB_LIT(b, ",");
	js_key_ms(b, "checking_ms", st->checked_ms != PG_NEVER &&
	    st->checking_ms >= 0, st->checking_ms);
	if (st->yield[0] != '\0') {
		SB_LIT(b, ",\"yield\":{");
		js_key_str(b, "to", st->yield);
		sb_printf(b, ",\"ms\":%" PRId64 "},", st->yielded_ms);
	} else
		SB_LIT(b, ",\"yield\":null,");
	if (st->hold_ms > 0) {
		sb_printf(b, "\"hold\":{\"left_ms\":%" PRId64 ",", st->hold_ms);
		js_key_str(b, "by", st->hold_by);
		SB_LIT(b, ",");
		js_key_str(b, "why", st->hold_why);
		SB_LIT(b, "}}");
	} else
		SB_LIT(b, "\"hold\":null}");
}

/* next's reason in the JSON (pollguard-status(1)). */
static const char *
next_key(const struct pg_next *nx, size_t n)
{
	switch (nx->reason) {
	case PG_REASON_GO:
		return nx->node < n ? "go" : "any";
	case PG_REASON_ACTIVE:
		return "active";
	case PG_REASON_HELD:
		return "held";
	case PG_REASON_INVALID:
		return "error";
	case PG_REASON_UNREACHABLE:
		return "unreachable";
	case PG_REASON_PREFERRED:
		return "preferred";
	default:
		return "none";
	}
}

char *
pg_fleet_json(const char *version, const char *node,
    const struct pg_fleet *f, size_t nf)
{
	const struct pg_cluster	*c;
	struct sbuf		 b = { NULL, 0, 0, 0 };
	struct pg_next		 nx;
	size_t			 i, j;

	SB_LIT(&b, "{");
	js_key_str(&b, "version", version);
	SB_LIT(&b, ",");
	js_key_str(&b, "node", node);
	SB_LIT(&b, ",\"clusters\":[");
	for (i = 0; i < nf; i++) {
		c = f[i].cluster;
		if (pg_fleet_next(&f[i], &nx) == -1) {
			b.fail = 1;
			break;
		}
		if (i > 0)
			SB_LIT(&b, ",");
		SB_LIT(&b, "{");
		js_key_str(&b, "id", c->id);
		sb_printf(&b, ",\"wait_ms\":%" PRId64 ",\"unreachable\":\"%s\","
		    "\"next\":{\"reason\":\"%s\",", c->wait_ms,
		    c->unreachable == PG_UNREACHABLE_SKIP ? "skip" : "run",
		    next_key(&nx, f[i].n));
		js_key_str(&b, "node", nx.node < f[i].n ?
		    f[i].nodes[nx.node].name : NULL);
		SB_LIT(&b, ",");
		js_key_str(&b, "text", nx.text);
		SB_LIT(&b, "},\"nodes\":[");
		for (j = 0; j < f[i].n; j++) {
			if (j > 0)
				SB_LIT(&b, ",");
			js_node(&b, &f[i].nodes[j]);
		}
		SB_LIT(&b, "]}");
	}
	SB_LIT(&b, "]}\n");
	return sb_end(&b);
}
