/* SPDX-License-Identifier: ISC */
/*
 * fleet.c: what pollguard-status shows of a cluster across its nodes.
 * The tool asks the nodes and fills in a struct pg_fleet per cluster;
 * who would go next is predicted here and printed by fleetout.c, from
 * plain data, so that the unit tests can check the prediction, the
 * table and the JSON exactly. Here too: the growing string both make
 * their text in (fleet-int.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vis.h>

#include "fleet.h"
#include "fleet-int.h"

void
pg_sb_add(struct pg_sbuf *b, const char *s, size_t n)
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

void
pg_sb_printf(struct pg_sbuf *b, const char *fmt, ...)
{
	char	 s[PG_SB_PIECE_MAX];
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(s))
		b->fail = 1;
	else
		pg_sb_add(b, s, n);
}

char *
pg_sb_end(struct pg_sbuf *b)
{
	if (b->fail || b->p == NULL) {
		free(b->p);
		errno = ENOMEM;
		return NULL;
	}
	return b->p;
}

void
pg_fleet_safe(const char *in, char *out, size_t len)
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
	char				 a[PG_DURATION_MAX], b[PG_DURATION_MAX];
	char				 run[48];

	run[0] = '\0';
	if (n->st.running && n->st.pid > 0)
		snprintf(run, sizeof(run), ", running (pid %" PRId64 ")",
		    n->st.pid);
	else if (n->st.running)
		strlcpy(run, ", running", sizeof(run));
	nx->reason = PG_REASON_ACTIVE;
	nx->node = i;
	snprintf(nx->text, sizeof(nx->text), "%s: active %s ago%s (wait %s), "
	    "keeps polling", n->name, pg_duration_text(n->st.elapsed_ms, a),
	    run, pg_duration_text(f->cluster->wait_ms, b));
}

/*
 * Several checks go: the first to run. Nobody is active within wait but
 * a node handing over, as a rule; else the text names the nodes.
 */
static int
several(const struct pg_fleet *f, const struct pred *p, struct pg_next *nx)
{
	struct pg_sbuf	 b = { NULL, 0, 0, 0 };
	char		 a[PG_DURATION_MAX], never[PG_NAME_MAX + 48], *s;
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
		    "failed, handing over; " : "",
		    pg_duration_text(f->cluster->wait_ms, a));
	else {
		for (i = 0; i < f->n; i++)
			if (p[i].checks && p[i].d.verdict == PG_GO)
				pg_sb_printf(&b, "%s%s", b.len > 0 ? ", " : "",
				    f->nodes[i].name);
		if ((s = pg_sb_end(&b)) == NULL)
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
	struct pg_sbuf	 b = { NULL, 0, 0, 0 };
	char		(*text)[PG_TEXT_MAX], *s;
	size_t		 i, j;
	int		 sep = 0;

	if ((text = calloc(f->n, sizeof(*text))) == NULL)
		return -1;
	for (i = 0; i < f->n; i++)
		if (p[i].checks)
			skip_text(f, &p[i], i, seen, text[i], sizeof(text[i]));
	PG_SB_LIT(&b, "nobody goes now");
	for (i = 0; i < f->n; i++) {
		if (!p[i].checks || text[i][0] == '\0')
			continue;
		pg_sb_printf(&b, "%s %s", sep++ ? ";" : ":", f->nodes[i].name);
		for (j = i + 1; j < f->n; j++)
			if (p[j].checks && strcmp(text[i], text[j]) == 0) {
				pg_sb_printf(&b, ", %s", f->nodes[j].name);
				text[j][0] = '\0';
			}
		pg_sb_printf(&b, ": %s", text[i]);
	}
	if (sep == 0)
		PG_SB_LIT(&b, ": no node's checks run");
	free(text);
	if ((s = pg_sb_end(&b)) == NULL)
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
	char				 a[PG_DURATION_MAX];
	char				 why[PG_STATUS_TEXT_MAX * 4 + 8];
	char				 vis[PG_STATUS_TEXT_MAX * 4 + 1];

	nx->reason = PG_REASON_HELD;
	nx->node = i;
	why[0] = '\0';
	if (n->st.hold_why[0] != '\0') {
		pg_fleet_safe(n->st.hold_why, vis, sizeof(vis));
		snprintf(why, sizeof(why), " (%s)", vis);
	}
	snprintf(nx->text, sizeof(nx->text), "held for %s by %s%s: nobody goes",
	    pg_duration_text(n->st.hold_ms, a), n->st.hold_by[0] != '\0' ?
	    n->st.hold_by : n->name, why);
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
	char	 a[PG_DURATION_MAX];
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
		    pg_duration_text(f->cluster->wait_ms, a));
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
