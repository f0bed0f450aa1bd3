/* SPDX-License-Identifier: ISC */
/*
 * fleet.c: who would go next in a cluster, predicted from plain data so
 * that the unit tests can check it exactly; fleetout.c prints it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vis.h>

#include "fleet.h"

void
pg_fleet_safe(const char *in, char *out, size_t len)
{
	strnvis(out, in, len, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL);
}

/* Add to nx's text; what does not fit is cut off. */
static void
say(struct pg_next *nx, const char *fmt, ...)
{
	size_t	 n = strlen(nx->text);
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(nx->text + n, sizeof(nx->text) - n, fmt, ap);
	va_end(ap);
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
	if (PG_ANSWER_OK(n->kind)) {
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
	char		 why[PG_TEXT_MAX];	/* d for people, without
						   "skip: " */
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
 * Node i's check, as pollguard-check makes it now (check() there), or
 * not predicted (fleet.h, pg_fleet_next). It decides by our config but
 * for the prefer order it announces; a node before 0.4 has none.
 */
static void
predict(const struct pg_fleet *f, size_t i, struct pg_seen *seen,
    struct pred *p)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	struct pg_cluster		 c = *f->cluster;
	struct pg_status		 own = n->st;
	const struct pg_status		*mine = n->has_status ? &own : NULL;
	size_t				 k;

	memset(p, 0, sizeof(*p));
	if (!PG_ANSWER_OK(n->kind) || (n->has_status &&
	    n->st.prefer[0] != '\0' && n->st.checked_ms >=
	    f->cluster->wait_ms + f->cluster->prefer_slack_ms))
		return;
	p->checks = 1;
	strlcpy(c.prefer, n->has_status ? n->st.prefer : "",
	    sizeof(c.prefer));
	k = view(f, i, seen);
	own.at_ns = NOW;
	p->busy = n->has_status && (own.running || own.deciding == 1 ||
	    own.claim_ms >= 0);
	pg_decide(&c, n->name, mine, p->busy, seen, k, &p->d);
	if (p->busy)
		strlcpy(p->why, own.running ? "a run on this node is still "
		    "going" : own.deciding == 1 ? "another check on this node "
		    "is deciding" : "another check on this node kept its claim",
		    sizeof(p->why));
	else
		pg_decision_text(&p->d, &c, mine, seen, k, p->why,
		    sizeof(p->why));
	if (strncmp(p->why, "skip: ", 6) == 0)
		memmove(p->why, p->why + 6, strlen(p->why + 6) + 1);
}

/* "b unreachable: counted as never", or "" when no node is. */
static void
never_text(const struct pg_fleet *f, char *buf, size_t len)
{
	size_t	 u;

	for (u = 0; u < f->n; u++)
		if (f->nodes[u].kind == PG_ANSWER_UNREACHABLE)
			break;
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
	char				 a[PG_DURATION_MAX];

	nx->reason = PG_REASON_ACTIVE;
	nx->node = i;
	say(nx, "%s: active %s ago", n->name,
	    pg_duration_text(n->st.elapsed_ms, a));
	if (n->st.running && n->st.pid > 0)
		say(nx, ", running (pid %" PRId64 ")", n->st.pid);
	else if (n->st.running)
		say(nx, ", running");
	say(nx, " (wait %s), keeps polling",
	    pg_duration_text(f->cluster->wait_ms, a));
}

/* Nobody active: the first check to run goes. */
static void
anyone(const struct pg_fleet *f, struct pg_next *nx)
{
	char	 a[PG_DURATION_MAX];

	say(nx, "nobody active within wait %s: the first check to run goes",
	    pg_duration_text(f->cluster->wait_ms, a));
}

/*
 * Several checks go: the first to run. Nobody is active within wait but
 * a node handing over, as a rule; else the text names the nodes.
 */
static void
several(const struct pg_fleet *f, const struct pred *p, struct pg_next *nx)
{
	char	 never[PG_NAME_MAX + 48];
	size_t	 i, failed = f->n, awake = 0, named = 0;

	for (i = 0; i < f->n && failed == f->n; i++)
		if (p[i].checks && p[i].d.verdict == PG_GO &&
		    p[i].d.failed < f->n - 1)
			failed = NODE_OF(i, p[i].d.failed);
	for (i = 0; i < f->n; i++)
		awake += i != failed && PG_ANSWER_OK(f->nodes[i].kind) &&
		    f->nodes[i].st.elapsed_ms < f->cluster->wait_ms;
	if (awake == 0) {
		if (failed < f->n)
			say(nx, "%s's last run failed, handing over; ",
			    f->nodes[failed].name);
		anyone(f, nx);
	} else {
		for (i = 0; i < f->n; i++)
			if (p[i].checks && p[i].d.verdict == PG_GO)
				say(nx, "%s%s", named++ > 0 ? ", " : "",
				    f->nodes[i].name);
		say(nx, " would go: the first check to run goes");
	}
	never_text(f, never, sizeof(never));
	if (never[0] != '\0')
		say(nx, " (%s)", never);
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
		say(nx, "%s: its check goes, the others skip (prefer %s)",
		    n->name, n->st.prefer);
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
	say(nx, "%s: its check goes%s", n->name,
	    others ? ", the others skip" : "");
	if (why[0] != '\0' && never[0] != '\0')
		say(nx, " (%s; %s)", why, never);
	else if (why[0] != '\0' || never[0] != '\0')
		say(nx, " (%s%s)", why, never);
}

/* No check goes, each for a reason of its own: the reasons, by node. */
static void
each(const struct pg_fleet *f, struct pred *p, struct pg_next *nx)
{
	size_t	 i, j;
	int	 sep = 0;

	nx->reason = PG_REASON_EACH;
	say(nx, "nobody goes now");
	for (i = 0; i < f->n; i++) {
		if (!p[i].checks || p[i].why[0] == '\0')
			continue;
		say(nx, "%s %s", sep++ ? ";" : ":", f->nodes[i].name);
		for (j = i + 1; j < f->n; j++)
			if (p[j].checks && strcmp(p[i].why, p[j].why) == 0) {
				say(nx, ", %s", f->nodes[j].name);
				p[j].why[0] = '\0';
			}
		say(nx, ": %s", p[i].why);
	}
	if (sep == 0)
		say(nx, ": no node's checks run");
}

/* No check goes for node i's hold. */
static void
hold(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	const struct pg_fleet_node	*n = &f->nodes[i];
	char				 a[PG_DURATION_MAX];
	char				 vis[PG_STATUS_TEXT_MAX * 4 + 1];

	nx->reason = PG_REASON_HELD;
	nx->node = i;
	say(nx, "held for %s by %s", pg_duration_text(n->st.hold_ms, a),
	    n->st.hold_by[0] != '\0' ? n->st.hold_by : n->name);
	if (n->st.hold_why[0] != '\0') {
		pg_fleet_safe(n->st.hold_why, vis, sizeof(vis));
		say(nx, " (%s)", vis);
	}
	say(nx, ": nobody goes");
}

/* No check goes while node i is unreachable, by policy. */
static void
unreachable(const struct pg_fleet *f, size_t i, const char *policy,
    struct pg_next *nx)
{
	nx->reason = PG_REASON_UNREACHABLE;
	nx->node = i;
	say(nx, "nobody while %s is unreachable (%s)", f->nodes[i].name,
	    policy);
}

/* No check goes for node i's error: its own record, or its answer. */
static void
error(const struct pg_fleet *f, size_t i, struct pg_next *nx)
{
	nx->reason = PG_REASON_INVALID;
	nx->node = i;
	say(nx, f->nodes[i].self ? "%s cannot read its own record: its check "
	    "fails" : "%s answers an error: checks that ask it refuse to "
	    "decide", f->nodes[i].name);
}

/*
 * No check goes: for a hold (the longest), this node's own record, a
 * node's error answer, an unreachable node (unreachable = skip), a run,
 * claim or check going on an active node; or each for its own reason.
 */
static void
nobody(const struct pg_fleet *f, struct pred *p, struct pg_next *nx)
{
	const struct pg_fleet_node	*n;
	size_t				 i, held = f->n, self = f->n;
	size_t				 bad = f->n, lost = f->n, busy = f->n;

	for (i = 0; i < f->n; i++) {
		n = &f->nodes[i];
		if (n->has_status && n->st.hold_ms > 0 && (held == f->n ||
		    n->st.hold_ms > f->nodes[held].st.hold_ms))
			held = i;
		if (n->self && !PG_ANSWER_OK(n->kind))
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
		each(f, p, nx);
}

/*
 * On etcd (pollguard(7), STRICT MODE ON ETCD) no check goes while etcd
 * does not answer; the node that holds the key goes again; without a
 * holder, etcd gives the key to the first check that asks.
 */
static void
by_etcd(const struct pg_fleet *f, struct pg_next *nx)
{
	size_t	 i;

	for (i = 0; i < f->n; i++) {
		if (f->nodes[i].self || PG_ANSWER_OK(f->nodes[i].kind))
			continue;
		if (f->nodes[i].kind == PG_ANSWER_UNREACHABLE)
			unreachable(f, i, "backend = etcd", nx);
		else
			error(f, i, nx);
		return;
	}
	if (f->holder < f->n && !PG_ANSWER_OK(f->nodes[f->holder].kind))
		error(f, f->holder, nx);
	else if (f->holder < f->n)
		active(f, f->holder, nx);
	else
		anyone(f, nx);
}

int
pg_fleet_next(const struct pg_fleet *f, struct pg_next *nx)
{
	struct pg_seen		*seen;
	struct pred		*p;
	size_t			 i, go = f->n, ngo = 0;

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
		several(f, p, nx);
	else if (ngo == 1)
		one(f, p, go, nx);
	else
		nobody(f, p, nx);
	free(seen);
	free(p);
	return 0;
}
