/* SPDX-License-Identifier: ISC */
/* check-claim.c: the rounds and the claim (doc/SAFETY.md, 1, steps 3-7). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decide.h"
#include "check.h"

static volatile sig_atomic_t	 got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
	pg_peers_stop = 1;	/* round 2 need not run to its timeout */
}

static void
report(struct tool *t, const struct pg_round *r, int second)
{
	const struct pg_cluster	*c = t->cluster;
	const struct pg_peer	*p;
	const struct pg_seen	*s;
	const char		*again = second ? "again: " : "";
	char			 ago[32], wait[32];
	size_t			 i;

	pg_duration_format(c->wait_ms, wait, sizeof(wait));
	for (i = 0; i < r->n; i++) {
		p = &t->cfg->peers[c->peers[i]];
		s = &r->seen[i];
		switch (s->answer.kind) {
		case PG_ANSWER_ELAPSED:
			pg_duration_format(s->answer.elapsed_ms, ago,
			    sizeof(ago));
			tool_explain(t, "%s: %s%s: %s: %s %s ago (wait %s)%s%s",
			    c->id, again, p->name, s->why,
			    s->has_status && s->status.claim_ms >= 0 ?
			    "claimed" : s->answer.elapsed_ms < c->wait_ms ?
			    "active" : "idle", ago, wait, pg_handover_ignores(
			    c->on_failure, s) ? "; its last run failed: not "
			    "counted" : "", s->old ? " (before 0.4)" : "");
			break;
		case PG_ANSWER_NEVER:
			tool_explain(t, "%s: %s%s: never: idle%s", c->id,
			    again, p->name, s->old ? " (before 0.4)" : "");
			break;
		case PG_ANSWER_UNREACHABLE:
			tool_warn(t, "cluster %s: %speer %s (%s) unreachable: "
			    "%s; %s", c->id, again, p->name, p->url, s->why,
			    c->unreachable == PG_UNREACHABLE_SKIP ?
			    "skipping the round (unreachable = skip)" :
			    "counts as never");
			break;
		case PG_ANSWER_SELF:
			tool_error("cluster %s: peer %s (%s) is this node, %s, "
			    "or a host of the same node name: if this host is "
			    "%s, set node = %s in [pollguard]; if not, fix the "
			    "peer's url, or that host's node", c->id, p->name,
			    p->url, t->cfg->node, p->name, p->name);
			break;
		default:
			tool_error("cluster %s: peer %s (%s) answered %s: "
			    "check its [peer %s] section and its serve's "
			    "config%s", c->id, p->name, p->url, s->why,
			    p->name, s->answer.kind == PG_ANSWER_REFUSED ?
			    " (user and password must match its [serve], and "
			    "its allow list this host)" : s->answer.kind ==
			    PG_ANSWER_UNKNOWN ? " (a wrong url, or no "
			    "[cluster] of that ID there)" : "");
			break;
		}
	}
}

void
check_ask(struct tool *t, struct pg_round *r, const struct pg_round *first)
{
	if (pg_peers_ask_some(t->cfg, t->cluster, first, NULL, r) == -1)
		tool_die_errno(EX_OSERR, "asking the peers of %s",
		    t->cluster->id);
	/* A round a signal cut short: its silent peers were not slow. */
	if (!got_signal)
		report(t, r, first != NULL);
}

/* Sleep ns, or until a signal that withdraws the claim. */
static void
nap(int64_t ns)
{
	struct timespec	 ts;

	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !got_signal)
		;
}

/* Sleep when a peer showed no status (doc/SAFETY.md, 1, 4); 1: slept. */
static int
settle_sleep(const struct tool *t, const struct pg_round *first)
{
	const char	*id = t->cluster->id;
	int64_t		 ns = pg_settle_sleep_ns(t->cfg->settle_ms);
	size_t		 i;

	for (i = 0; i < first->n; i++)
		if (!pg_peer_fast(&first->seen[i]))
			break;
	if (i == first->n) {
		tool_explain(t, "%s: go, claimed; settling at once: every peer "
		    "shows its status", id);
		return 0;
	}
	tool_explain(t, "%s: go, claimed; %s shows no status (before 0.4, or "
	    "a proxy): settling %" PRId64 "ms", id, first->seen[i].name,
	    ns / 1000000);
	nap(ns);
	return 1;
}

/* Take the claim back: put back the record that was there before it. */
static void
withdraw(struct tool *t, const struct pg_stamp *rec, const char *old,
    size_t oldlen)
{
	if (pg_state_restore(&t->state, t->cluster->id, rec, old, oldlen) ==
	    -1)
		tool_error("cannot withdraw the claim in %s/%s: %s",
		    t->state.path, t->cluster->id, strerror(errno));
}

/* After a signal, with the claim out: withdraw it, die of the signal. */
static void
interrupted(struct tool *t, const struct pg_stamp *rec, const char *old,
    size_t oldlen)
{
	if (!got_signal)
		return;
	withdraw(t, rec, old, oldlen);
	tool_decided(t, "%s: interrupted: claim withdrawn", t->cluster->id);
	signal(got_signal, SIG_DFL);
	raise(got_signal);
	exit(128 + got_signal);
}

/*
 * Keep the claim, lengthened to pg_claim_keep_horizon first, or withdraw
 * (*why): past the wait, a failed write, no longer our claim.
 */
static enum pg_verdict
keep(struct tool *t, const struct pg_claim *cl, struct pg_stamp *rec,
    enum pg_settle_why *why)
{
	const char	*id = t->cluster->id;
	int64_t		 h, first = rec->horizon_ms, now;
	int		 r;

	*why = PG_LOST_SLOW_WRITE;
	if ((h = pg_claim_keep_horizon(cl, t->cluster->wait_ms)) == 0)
		return PG_SKIP_ACTIVE;
	if (h == rec->horizon_ms) {
		*why = PG_KEEP;
		return PG_GO;
	}
	if ((r = pg_state_lengthen(&t->state, id, rec, h)) == 1) {
		/* After the first horizon: a peer may have read no claim. */
		if (pg_clock(CLOCK_BOOTTIME, &now) == -1 ||
		    now - rec->claim_ns >= first * 1000000) {
			*why = PG_LOST_EXPIRED;
			return PG_SKIP_ACTIVE;
		}
		*why = PG_KEEP;
		return PG_GO;
	}
	if (r == 0)
		*why = PG_LOST_OVERWRITTEN;
	else
		tool_error("cannot lengthen the claim in %s/%s: %s",
		    t->state.path, id, strerror(errno));
	return PG_SKIP_ACTIVE;
}

/*
 * Ask the pending peers again after 1, 2, 4 .. 32 ms until each decided
 * or the deadline passed (pg_settle_poll). r is refilled here.
 */
static enum pg_verdict
poll_pending(struct tool *t, struct pg_claim *cl, struct pg_round *r,
    int *pending, enum pg_settle_why *why, size_t *peer,
    const struct pg_stamp *rec, const char *old, size_t oldlen)
{
	const struct pg_cluster	*c = t->cluster;
	enum pg_verdict		 v = PG_GO;
	int64_t			 backoff = 1;
	size_t			 i;

	while (v == PG_GO && *why == PG_WAIT) {
		for (i = 0; i < r->n; i++)
			if (pending[i])
				tool_explain(t, "%s: %s: waiting for %s to "
				    "decide", c->id, t->cfg->node,
				    r->seen[i].name);
		nap(backoff * 1000000);
		if (backoff < 32)
			backoff *= 2;
		interrupted(t, rec, old, oldlen);
		pg_round_free(r);
		if (pg_peers_ask_some(t->cfg, c, NULL, pending, r) == -1)
			tool_die_errno(EX_OSERR, "asking the peers of %s",
			    c->id);
		interrupted(t, rec, old, oldlen);
		cl->end_ns = r->end_ns;
		v = pg_settle_poll(cl, c->wait_ms, r->seen, r->n, pending, why,
		    peer);
	}
	return v;
}

/* The claim lock stays held until exit: doc/SAFETY.md, 1, step 7. */
int
claim_and_settle(struct tool *t, const struct pg_round *first,
    int64_t prev_check_ns)
{
	const struct pg_cluster	*c = t->cluster;
	struct pg_stamp		 rec;
	struct pg_claim		 cl;
	struct pg_round		 r;
	struct pg_seen		 self, *by = NULL;
	enum pg_settle_why	 why;
	enum pg_verdict		 v;
	char			 old[PG_RECORD_MAX], text[PG_TEXT_MAX];
	ssize_t			 oldlen;
	size_t			 peer, i;
	int			*pending;

	if ((oldlen = pg_state_read_raw(&t->state, c->id, old,
	    sizeof(old))) == -1)
		oldlen = 0;	/* damaged: read_own said so; not restored */

	tool_catch(on_signal, 0);

	memset(&cl, 0, sizeof(cl));
	cl.node = t->cfg->node;
	cl.settle_ms = t->cfg->settle_ms;
	cl.timeout_ms = t->cfg->timeout_ms;
	cl.horizon_ms = pg_claim_horizon(t->cfg->timeout_ms,
	    t->cfg->settle_ms);
	cl.on_failure = c->on_failure;
	cl.prev_check_ns = prev_check_ns;	/* pg_yield_ignores */
	cl.yield_slack_ms = c->prefer_slack_ms;
	if (pg_state_claim(&t->state, c->id, cl.horizon_ms, &rec,
	    &cl.visible_ns) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot record activity in %s/%s",
		    t->state.path, c->id);
	cl.claim_ns = rec.mono_ns;
	cl.start_ns = first->start_ns;
	cl.slept = settle_sleep(t, first);
	interrupted(t, &rec, old, oldlen);
	check_ask(t, &r, first);
	interrupted(t, &rec, old, oldlen);
	cl.end_ns = r.end_ns;
	for (i = 0; i < r.n; i++)
		r.seen[i].answered =
		    first->seen[i].answer.kind != PG_ANSWER_UNREACHABLE;

	if ((pending = calloc(r.n + 1, sizeof(*pending))) == NULL)
		tool_die_errno(EX_OSERR, "memory");
	v = pg_settle(&cl, c->wait_ms, c->unreachable, r.seen, r.n, pending,
	    &why, &peer);
	if (v == PG_GO && why == PG_WAIT)
		v = poll_pending(t, &cl, &r, pending, &why, &peer, &rec, old,
		    oldlen);
	free(pending);
	if (v == PG_GO && (v = keep(t, &cl, &rec, &why)) == PG_GO) {
		if (pg_still_counted(&t->state, c, t->cfg->node,
		    t->cfg->settle_ms, &rec, &why, &self)) {
			pg_round_free(&r);
			tool_decided(t, "%s: keep the claim: go", c->id);
			return PG_GO;
		}
		v = PG_SKIP_ACTIVE;
		if (why == PG_LOST_HELD)
			by = &self;
	}
	if (v != PG_GO && why == PG_KEEP)
		why = PG_LOST_SLOW_WRITE;
	withdraw(t, &rec, old, oldlen);
	pg_settle_text(why, by != NULL ? by : &r.seen[peer], text,
	    sizeof(text));
	if (pg_settle_warns(why))
		tool_warn(t, "cluster %s: %s", c->id, text);
	else
		tool_decided(t, "%s: %s", c->id, text);
	pg_round_free(&r);
	return v;
}
