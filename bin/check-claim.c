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
#include "check-peer.h"

static volatile sig_atomic_t	 got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
	pg_peers_stop = 1;	/* round 2 need not run to its timeout */
}

/*
 * The first peer of r that answered without its status, or NULL; not one
 * that shows it, of 0.4 or later, only without a state directory yet.
 */
static const char *
shows_none(const struct pg_round *r)
{
	size_t	 i;

	for (i = 0; i < r->n; i++)
		if ((r->seen[i].answer.kind == PG_ANSWER_ELAPSED ||
		    r->seen[i].answer.kind == PG_ANSWER_NEVER) &&
		    !r->seen[i].has_status)
			return r->seen[i].name;
	return NULL;
}

/*
 * A go beside a peer without status: what D does not cover (doc/SAFETY.md,
 * 4; pollguard(7), COMPATIBILITY).
 */
static void
uncovered(const struct tool *t, const char *name)
{
	char	 d[PG_DURATION_MAX];

	tool_decided(t, "%s: %s shows no status (before 0.4, or a proxy): "
	    "this go is safe beside a 0.3.0 check there held up to %s "
	    "between sending a question and reading its clock; one held up "
	    "longer is not covered and may go too", t->cluster->id, name,
	    pg_duration_text(pg_settle_old_ns(t->cfg->settle_ms) / 1000000,
	    d));
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

/*
 * Sleep when a peer showed no status (doc/SAFETY.md, 1, 4), longer at
 * rate R (ppm); 1: slept.
 */
static int
settle_sleep(const struct tool *t, const struct pg_round *first,
    int64_t rate)
{
	const char	*id = t->cluster->id;
	int64_t		 ns = pg_settle_sleep_ns(t->cfg->settle_ms, rate);
	size_t		 i;

	for (i = 0; i < first->n; i++)
		if (!pg_peer_fast(&first->seen[i]))
			break;
	if (i == first->n) {
		tool_explain(t, "%s: go, claimed; settling at once: every peer "
		    "shows its status", id);
		return 0;
	}
	/* D more, and 1 % of it, as of settle/2 (doc/SAFETY.md, 4). */
	ns += pg_settle_old_ns(t->cfg->settle_ms) * 101 / 100;
	tool_explain(t, "%s: go, claimed; %s %s: settling %" PRId64 "ms", id,
	    first->seen[i].name, peer_no_rule(&first->seen[i]), ns / 1000000);
	if (!check_wait(ns))
		nap(ns);
	return 1;
}

/*
 * Take the claim back: put back the record that was there before it. When
 * that fails, the claim stands for that record while it is active, and is
 * removed once it would be idle (doc/STATE.md, "Withdrawal"); the check
 * tries again each second meanwhile, unless a signal ends it.
 */
static void
withdraw(struct tool *t, const struct pg_stamp *rec, const char *old,
    size_t oldlen)
{
	const char	*id = t->cluster->id;
	char		 left[PG_DURATION_MAX];
	int64_t		 ms;
	int		 r, tries;

	for (tries = 0; pg_state_restore(&t->state, id, rec, old, oldlen) ==
	    -1; tries++) {
		if (tries == 0)
			tool_error("cannot withdraw the claim in %s/%s: %s",
			    t->state.path, id, tool_strerror(errno));
		if ((r = pg_state_unclaim(&t->state, id, rec,
		    t->cluster->wait_ms, &ms)) == 1)
			tool_warn(t, "%s: the claim removed instead: the "
			    "record it replaced was idle", id);
		else if (r == -1)
			tool_error("cannot remove the claim in %s/%s either: "
			    "%s", t->state.path, id, tool_strerror(errno));
		if (r != 0 || ms == 0 || got_signal)
			return;
		if (tries == 0)
			tool_warn(t, "%s: the claim stands for the record it "
			    "replaced, active %s more: trying again until "
			    "then", id, pg_duration_text(ms, left));
		nap((ms < 1000 ? ms : 1000) * 1000000);
	}
	if (tries > 0)
		tool_warn(t, "%s: claim withdrawn after all", id);
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
		    t->state.path, id, tool_strerror(errno));
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
claim_and_settle(struct tool *t, struct pg_round *first,
    int64_t prev_check_ns, const struct pg_status *own,
    const struct pg_decision *d0)
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
	int64_t			 rate;
	size_t			 peer, i;
	int			*pending, ch;
	const char		*bare;

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
	/* This clock's bound (doc/SAFETY.md, 3); not read: 500 ppm. */
	if (pg_clock_rate(&cl.rate_ppm) == -1)
		cl.rate_ppm = -1;
	if (pg_state_claim(&t->state, c->id, cl.horizon_ms, &rec,
	    &cl.visible_ns) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot record activity in %s/%s",
		    t->state.path, c->id);
	cl.claim_ns = rec.mono_ns;
	cl.start_ns = first->start_ns;
	cl.slept = settle_sleep(t, first, pg_rates(cl.rate_ppm, first->seen,
	    first->n, &i));
	interrupted(t, &rec, old, oldlen);
	if (check_round2(t, &r, first)) {
		/* Round 1 ended beside round 2: its go must stand. */
		interrupted(t, &rec, old, oldlen);
		if ((ch = check_late(t, own, d0, first, text,
		    sizeof(text))) != PG_GO) {
			check_round2_abort();
			pg_round_free(&r);
			withdraw(t, &rec, old, oldlen);
			check_unchecked(t);
			if (ch == -1)
				tool_die(EX_PROTOCOL, "cluster %s: %s", c->id,
				    text);
			tool_decided(t, "%s: %s; claim withdrawn", c->id,
			    text);
			return ch;
		}
		check_round2_end(t, &r);
	}
	interrupted(t, &rec, old, oldlen);
	cl.end_ns = r.end_ns;
	for (i = 0; i < r.n; i++)
		r.seen[i].answered =
		    first->seen[i].answer.kind != PG_ANSWER_UNREACHABLE;
	if (pg_clock_rate(&rate) == 0 && rate > cl.rate_ppm)
		cl.rate_ppm = rate;
	rate = pg_rates(cl.rate_ppm, r.seen, r.n, &i);
	if (pg_rate_counted(cl.rate_ppm) > PG_RATE_OLD ||
	    pg_peer_rate(&r.seen[i]) > PG_RATE_OLD)
		tool_explain(t, "%s: clock rates: this node's up to %" PRId64
		    " ppm, %s's up to %" PRId64 " ppm: the bounds widened by %"
		    PRId64 " ppm", c->id, pg_rate_counted(cl.rate_ppm),
		    r.seen[i].name, pg_peer_rate(&r.seen[i]), rate);

	if ((pending = calloc(r.n + 1, sizeof(*pending))) == NULL)
		tool_die_errno(EX_OSERR, "memory");
	v = pg_settle(&cl, c->wait_ms, c->unreachable, r.seen, r.n, pending,
	    &why, &peer);
	bare = shows_none(&r);
	if (v == PG_GO && why == PG_WAIT)
		v = poll_pending(t, &cl, &r, pending, &why, &peer, &rec, old,
		    oldlen);
	free(pending);
	if (v == PG_GO && (v = keep(t, &cl, &rec, &why)) == PG_GO) {
		if (pg_still_counted(&t->state, c, t->cfg->node,
		    t->cfg->settle_ms, &rec, &why, &self)) {
			pg_round_free(&r);
			if (bare != NULL)
				uncovered(t, bare);
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
	pg_settle_text(why, cl.rate_ppm, by != NULL ? by : &r.seen[peer],
	    text, sizeof(text));
	if (pg_settle_warns(why))
		tool_warn(t, "cluster %s: %s", c->id, text);
	else
		tool_decided(t, "%s: %s", c->id, text);
	pg_round_free(&r);
	return v;
}
