/* SPDX-License-Identifier: ISC */
/*
 * decide.c: go or skip after one round, the preferred node among them,
 * keep or withdraw a claim after the settle round; pure, for the tests
 * and doc/model/ (doc/SAFETY.md, doc/PREFER.md).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decide.h"

#define MS	1000000LL	/* ns */

/* The position of name in the comma-separated list, or INT_MAX. */
static int
position(const char *list, const char *name)
{
	size_t	 n, len = strlen(name);
	int	 i;

	for (i = 0; *list != '\0'; i++) {
		n = strcspn(list, ",");
		if (n == len && strncasecmp(list, name, len) == 0)
			return i;
		list += n + (list[n] == ',');
	}
	return INT_MAX;
}

int
pg_prefer_before(const struct pg_cluster *c, const char *a, const char *b)
{
	int	 ia = position(c->prefer, a), ib = position(c->prefer, b);

	if (ia != ib)
		return ia < ib;
	return strcasecmp(a, b) < 0;
}

static int
answered(const struct pg_seen *s)
{
	return s->answer.kind == PG_ANSWER_ELAPSED ||
	    s->answer.kind == PG_ANSWER_NEVER;
}

size_t
pg_prefer_disagree(const struct pg_cluster *c, const struct pg_seen *seen,
    size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (answered(&seen[i]) && strcasecmp(seen[i].has_status ?
		    seen[i].status.prefer : "", c->prefer) != 0)
			return i;
	return n;
}

int
pg_prefer_eligible(const struct pg_cluster *c, const struct pg_seen *s)
{
	const struct pg_status	*st = &s->status;

	return answered(s) && s->has_status && c->prefer[0] != '\0' &&
	    strcasecmp(st->prefer, c->prefer) == 0 &&
	    st->checked_ms < c->wait_ms + c->prefer_slack_ms &&
	    !(c->on_failure == PG_ON_FAILURE_HANDOVER &&
	    pg_status_cooldown(st, c->cooldown_ms));
}

int
pg_prefer_healthy(const struct pg_cluster *c, const struct pg_seen *s)
{
	return pg_prefer_eligible(c, s) && s->status.checking_ms >= 0 &&
	    s->status.checking_ms >= c->failback_after_ms;
}

/* A check of an earlier boot is negative: only differences matter. */
int64_t
pg_prefer_prev_check(const struct pg_status *own)
{
	if (own == NULL || own->at_ns <= 0 || own->checked_ms == PG_NEVER ||
	    own->checked_ms > INT64_MAX / MS / 4)
		return INT64_MIN;
	return own->at_ns - own->checked_ms * MS;
}

/*
 * doc/PREFER.md, rule 4 and "Why no round is doubled, lost or run twice";
 * the yield's age is widened by the rates beyond the oscillators' (the
 * gap between firings covers theirs, doc/SAFETY.md, section 3).
 */
int
pg_yield_ignores(const char *node, int64_t prev_ns, int64_t slack_ms,
    int64_t rate_ppm, const struct pg_seen *s)
{
	const struct pg_status	*st = &s->status;
	int64_t			 r = pg_rate_counted(rate_ppm) +
				    pg_peer_rate(s) - 2 * PG_RATE_BASE;

	return prev_ns != INT64_MIN && s->has_status &&
	    s->answer.kind == PG_ANSWER_ELAPSED &&
	    st->yielded_ms <= INT64_MAX / MS / 4 &&
	    st->yield[0] != '\0' && strcasecmp(st->yield, node) == 0 &&
	    !st->running && st->claim_ms < 0 &&
	    st->last && st->last_end_ms < st->yielded_ms &&
	    st->last_duration_ms < st->yielded_ms - st->last_end_ms &&
	    st->last_end_ms - st->elapsed_ms <= PG_HANDOVER_SLACK_MS &&
	    s->recv_ns - st->yielded_ms * MS + st->yielded_ms * r <=
	    prev_ns + slack_ms * MS;
}

/* The prefer rules on a go (doc/PREFER.md, "The rules", 1 to 3). */
static enum pg_reason
prefer_decide(const struct pg_cluster *c, const char *node,
    const struct pg_status *own, const struct pg_seen *seen, size_t n,
    struct pg_decision *d)
{
	size_t	 i, best = n;

	if (c->prefer[0] == '\0' || d->disagree < n)
		return PG_REASON_GO;
	for (i = 0; i < n; i++)
		if (pg_prefer_before(c, seen[i].name, node) &&
		    pg_prefer_eligible(c, &seen[i]) && (best == n ||
		    pg_prefer_before(c, seen[i].name, seen[best].name)))
			best = i;
	if (best == n)
		return PG_REASON_GO;
	d->prefer = best;
	if (own == NULL || own->elapsed_ms >= c->wait_ms)
		return PG_REASON_PREFERRED;
	if (!c->failback || !pg_prefer_healthy(c, &seen[best]))
		return PG_REASON_GO;
	/* A yield lasts at most two waits when that node never polls. */
	if (strcasecmp(own->yield, seen[best].name) == 0 &&
	    own->yielded_ms < 2 * c->wait_ms)
		return PG_REASON_YIELD;
	d->yield = 1;
	return PG_REASON_GO;
}

/* doc/SAFETY.md, section 7, "Handover". */
int
pg_handover_ignores(enum pg_on_failure on_failure, const struct pg_seen *s)
{
	const struct pg_status	*st = &s->status;

	return on_failure == PG_ON_FAILURE_HANDOVER && s->has_status &&
	    s->answer.kind == PG_ANSWER_ELAPSED && pg_status_failed(st) &&
	    st->claim_ms < 0 &&
	    st->last_end_ms - st->elapsed_ms <= PG_HANDOVER_SLACK_MS;
}

/* In cooldown: hand over? Not when no peer answered (pollguard(7)). */
static int
hand_over(const struct pg_cluster *c, const char *node,
    const struct pg_status *own, const struct pg_seen *seen, size_t n)
{
	const struct pg_status	*st;
	size_t			 i, heard = 0;
	int			 last = 1;

	for (i = 0; i < n; i++) {
		if (!answered(&seen[i]))
			continue;
		heard++;
		st = &seen[i].status;
		if (!seen[i].has_status ||
		    !pg_status_cooldown(st, c->cooldown_ms))
			return 1;
		/* Times since the end: smaller ended later. */
		if (st->last_end_ms < own->last_end_ms ||
		    (st->last_end_ms == own->last_end_ms &&
		    strcasecmp(node, seen[i].name) > 0))
			last = 0;
	}
	return heard > 0 && last;
}

static const enum pg_verdict verdicts[] = {
	[PG_REASON_GO] = PG_GO,
	[PG_REASON_LOCAL] = PG_SKIP_LOCAL,
	[PG_REASON_HELD] = PG_SKIP_ACTIVE,
	[PG_REASON_ACTIVE] = PG_SKIP_ACTIVE,
	[PG_REASON_COOLDOWN] = PG_SKIP_ACTIVE,
	[PG_REASON_INVALID] = PG_REFUSE_INVALID,
	[PG_REASON_UNREACHABLE] = PG_SKIP_UNREACHABLE,
	[PG_REASON_PREFERRED] = PG_SKIP_ACTIVE,
	[PG_REASON_YIELD] = PG_SKIP_ACTIVE
};

static enum pg_reason
reason(const struct pg_cluster *c, const char *node,
    const struct pg_status *own, int local_run, const struct pg_seen *seen,
    size_t n, struct pg_decision *d)
{
	const struct pg_answer	*a;
	size_t			 i, invalid = n, unreachable = n;

	if (local_run)
		return PG_REASON_LOCAL;
	if ((d->own = own != NULL && own->hold_ms > 0))
		return PG_REASON_HELD;
	for (i = 0; i < n; i++)
		if (seen[i].has_status && answered(&seen[i]) &&
		    seen[i].status.hold_ms > 0) {
			d->peer = i;
			return PG_REASON_HELD;
		}
	for (i = 0; i < n; i++) {
		a = &seen[i].answer;
		if (a->kind == PG_ANSWER_UNREACHABLE && unreachable == n)
			unreachable = i;
		else if (PG_ANSWER_BAD(a->kind) && invalid == n)
			invalid = i;
		/* Strict, as in the reference: equal allows. */
		if (a->kind != PG_ANSWER_ELAPSED || a->elapsed_ms >= c->wait_ms)
			continue;
		if (pg_handover_ignores(c->on_failure, &seen[i])) {
			if (d->failed == n)
				d->failed = i;
		} else if (pg_yield_ignores(node, pg_prefer_prev_check(own),
		    c->prefer_slack_ms, own != NULL ? own->rate_ppm : -1,
		    &seen[i])) {
			if (d->yielded == n)
				d->yielded = i;
		} else {
			d->peer = i;
			return PG_REASON_ACTIVE;
		}
	}
	if (c->on_failure == PG_ON_FAILURE_HANDOVER && own != NULL &&
	    pg_status_cooldown(own, c->cooldown_ms) &&
	    hand_over(c, node, own, seen, n))
		return PG_REASON_COOLDOWN;
	d->peer = invalid < n ? invalid : unreachable;
	if (invalid < n)
		return PG_REASON_INVALID;
	if (unreachable < n && c->unreachable == PG_UNREACHABLE_SKIP)
		return PG_REASON_UNREACHABLE;
	d->peer = 0;
	d->standalone = n == 0;
	return prefer_decide(c, node, own, seen, n, d);
}

void
pg_decide(const struct pg_cluster *c, const char *node,
    const struct pg_status *own, int local_run, const struct pg_seen *seen,
    size_t n, struct pg_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->failed = d->prefer = d->yielded = n;
	d->disagree = pg_prefer_disagree(c, seen, n);
	d->reason = reason(c, node, own, local_run, seen, n, d);
	d->verdict = verdicts[d->reason];
}

int64_t
pg_claim_horizon(int64_t timeout_ms, int64_t settle_ms)
{
	return 2 * timeout_ms + settle_ms + settle_ms / 2 + 1000;
}

int64_t
pg_rate_counted(int64_t ppm)
{
	return ppm < PG_RATE_BASE ? PG_RATE_BASE : ppm > PG_RATE_MAX ?
	    PG_RATE_MAX : ppm;
}

int64_t
pg_peer_rate(const struct pg_seen *s)
{
	return pg_rate_counted(s->has_status ? s->status.rate_ppm : -1);
}

size_t
pg_peers_fastest(const struct pg_seen *seen, size_t n)
{
	size_t	 i, best = n;

	for (i = 0; i < n; i++)
		if (best == n || pg_peer_rate(&seen[i]) >
		    pg_peer_rate(&seen[best]))
			best = i;
	return best;
}

int64_t
pg_rates(int64_t own, const struct pg_seen *seen, size_t n, size_t *fastest)
{
	*fastest = pg_peers_fastest(seen, n);
	return pg_rate_counted(own) + (*fastest < n ?
	    pg_peer_rate(&seen[*fastest]) : PG_RATE_BASE);
}

/* ppm of settle ms is ns; R of at least 1 % (doc/SAFETY.md, 4). */
int64_t
pg_settle_sleep_ns(int64_t settle_ms, int64_t rate_ppm)
{
	if (rate_ppm < 10000)
		rate_ppm = 10000;
	if (rate_ppm > 2 * PG_RATE_MAX)
		rate_ppm = 2 * PG_RATE_MAX;
	return settle_ms * MS / 2 + settle_ms * rate_ppm;
}

/*
 * The peer's claim moment relative to ours: lo (doc/SAFETY.md, 3), at
 * this node's bound and the peer's (ppm, counted). The drift covers e and
 * its 1 ms measured on the peer's clock, and the span, at R / (1 - peer).
 */
static int64_t
lower_bound(const struct pg_claim *c, const struct pg_seen *s, int64_t own,
    int64_t peer)
{
	int64_t	 e = s->answer.elapsed_ms * MS, x, d = 1000000 - peer;
	int64_t	 r = own + peer, drift;

	x = e + MS + llabs(s->sent_ns - c->claim_ns);
	drift = x / d * r + (x % d * r + d - 1) / d + 1;
	return s->sent_ns - e - MS - drift - c->claim_ns;
}

int
pg_peer_fast(const struct pg_seen *s)
{
	return s->has_status && s->status.deciding >= 0;
}

/*
 * A 0.3.0 check held up to settle between its write and its stamp; less
 * above 3.1 s, where the sleep with two rounds of a whole timeout would
 * leave less than 100 ms before too_slow's deadline (doc/SAFETY.md, 4).
 */
int64_t
pg_settle_old_ns(int64_t settle_ms)
{
	int64_t	 d = settle_ms * MS, most;

	most = (settle_ms * MS * 74 / 100 + 840 * MS) * 100 / 101;
	return d < most ? d : most;
}

size_t
pg_settle_disagrees(int64_t settle_ms, int64_t timeout_ms,
    const struct pg_seen *seen, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (pg_peer_fast(&seen[i]) &&
		    (seen[i].status.settle_ms != settle_ms ||
		    seen[i].status.timeout_ms != timeout_ms))
			return i;
	return n;
}

/*
 * Rounds longer than the horizon allows (doc/SAFETY.md, section 4) at R
 * (ppm): a peer's horizon, on its clock, is shorter on ours by H * R.
 */
static int
too_slow(const struct pg_claim *c, int64_t rate_ppm)
{
	return c->end_ns - c->start_ns > c->horizon_ms * MS -
	    c->settle_ms * MS / 4 - 50 * MS - c->horizon_ms * rate_ppm;
}

/*
 * Too slow at this node's bound and seen[0..n)'s highest? PG_KEEP: no;
 * else the why, and *i set to the fastest clock's peer when the rate is.
 */
static enum pg_settle_why
slow_why(const struct pg_claim *c, const struct pg_seen *seen, size_t n,
    size_t *i)
{
	size_t	 f;

	if (!too_slow(c, pg_rates(c->rate_ppm, seen, n, &f)))
		return PG_KEEP;
	if (too_slow(c, 2 * PG_RATE_BASE))
		return PG_LOST_SLOW_ROUND;
	*i = f < n ? f : 0;
	return PG_LOST_SLOW_RATE;
}

/* Active, as both settle rounds count a peer: a kept claim always is. */
static int
counted(const struct pg_claim *c, int64_t wait_ms, const struct pg_seen *s)
{
	return s->answer.kind == PG_ANSWER_ELAPSED &&
	    s->answer.elapsed_ms < wait_ms &&
	    !pg_handover_ignores(c->on_failure, s) &&
	    !pg_yield_ignores(c->node, c->prev_check_ns, c->yield_slack_ms,
	    c->rate_ppm, s);
}

/* Decide v for w, peer i deciding. */
static enum pg_verdict
out(enum pg_verdict v, enum pg_settle_why w, size_t i,
    enum pg_settle_why *why, size_t *peer)
{
	*why = w;
	*peer = i;
	return v;
}

/* Withdraw the claim for w, peer i deciding. */
static enum pg_verdict
lost(enum pg_settle_why w, size_t i, enum pg_settle_why *why, size_t *peer)
{
	return out(PG_SKIP_ACTIVE, w, i, why, peer);
}

/* doc/SAFETY.md, section 2. */
enum pg_verdict
pg_settle(const struct pg_claim *c, int64_t wait_ms,
    enum pg_unreachable policy, const struct pg_seen *seen, size_t n,
    int *pending, enum pg_settle_why *why, size_t *peer)
{
	const struct pg_seen	*s;
	enum pg_settle_why	 slow;
	int64_t			 window = c->settle_ms * MS / 4;
	int64_t			 later, lo, past;
	int64_t			 own = pg_rate_counted(c->rate_ppm);
	size_t			 i, invalid = n, unreachable = n, active = n;
	size_t			 wait = n;

	later = c->visible_ns - c->claim_ns;
	if (later < window)
		later = window;
	if (n > 0)
		memset(pending, 0, n * sizeof(*pending));
	for (i = 0; i < n; i++) {
		s = &seen[i];
		if (s->answer.kind == PG_ANSWER_UNREACHABLE && s->answered)
			return lost(PG_LOST_VANISHED, i, why, peer);
		if (s->answer.kind == PG_ANSWER_UNREACHABLE && unreachable == n)
			unreachable = i;
		else if (PG_ANSWER_BAD(s->answer.kind) && invalid == n)
			invalid = i;
		if (!answered(s))
			continue;
		/* A hold put on while we settled: let it be. */
		if (s->has_status && s->status.hold_ms > 0)
			return lost(PG_LOST_HELD, i, why, peer);
		/* Before 0.5, it orders our claim at 0.1 % (SAFETY.md, 3). */
		if (own > PG_RATE_OLD && !(s->has_status &&
		    s->status.rate_ppm >= 0))
			return lost(PG_LOST_OLD_RATE, i, why, peer);
		if (!counted(c, wait_ms, s))
			continue;
		if (active == n)
			active = i;
		/* doc/SAFETY.md, section 4, "What round 2 sees". */
		if (!s->answered)
			return lost(PG_LOST_UNSEEN, i, why, peer);
		if (!c->slept && !pg_peer_fast(s))
			return lost(PG_LOST_RULE, i, why, peer);
		if (pg_settle_disagrees(c->settle_ms, c->timeout_ms, s, 1) == 0)
			return lost(PG_LOST_DISAGREE, i, why, peer);
		lo = lower_bound(c, s, own, pg_peer_rate(s));
		past = later + (pg_peer_fast(s) ? 0 :
		    pg_settle_old_ns(c->settle_ms));
		if (lo > past)
			continue;
		if (pg_peer_fast(s) && strcasecmp(c->node, s->name) < 0) {
			pending[i] = 1;
			if (wait == n)
				wait = i;
			continue;
		}
		/* Ordered at the oscillators' rates, not at these. */
		if (lower_bound(c, s, PG_RATE_BASE, PG_RATE_BASE) > past)
			return lost(PG_LOST_RATE, i, why, peer);
		return lost(lo < -window ? PG_LOST_EARLIER : PG_LOST_NAME, i,
		    why, peer);
	}
	i = active < n ? active : 0;
	if ((slow = slow_why(c, seen, n, &i)) != PG_KEEP)
		return lost(slow, i, why, peer);
	if (invalid < n)
		return out(PG_REFUSE_INVALID, PG_LOST_INVALID, invalid, why,
		    peer);
	if (unreachable < n && policy == PG_UNREACHABLE_SKIP)
		return out(PG_SKIP_UNREACHABLE, PG_LOST_UNREACHABLE,
		    unreachable, why, peer);
	return out(PG_GO, wait < n ? PG_WAIT : PG_KEEP, wait < n ? wait : 0,
	    why, peer);
}

/* "Not deciding, claim gone": withdrew (doc/SAFETY.md, section 4). */
enum pg_verdict
pg_settle_poll(const struct pg_claim *c, int64_t wait_ms,
    const struct pg_seen *seen, size_t n, int *pending,
    enum pg_settle_why *why, size_t *peer)
{
	const struct pg_seen	*s;
	enum pg_settle_why	 slow;
	size_t			 i, wait = n;

	for (i = 0; i < n && !pending[i]; i++)
		;
	if (i == n)
		i = 0;
	/* Only the pending peers were asked: the others count as BASE. */
	if ((slow = slow_why(c, seen, n, &i)) != PG_KEEP)
		return lost(slow, i, why, peer);
	for (i = 0; i < n; i++) {
		if (!pending[i])
			continue;
		s = &seen[i];
		if (!answered(s) || !pg_peer_fast(s))
			return lost(PG_LOST_POLL, i, why, peer);
		if (s->status.hold_ms > 0)
			return lost(PG_LOST_HELD, i, why, peer);
		if (pg_settle_disagrees(c->settle_ms, c->timeout_ms, s, 1) == 0)
			return lost(PG_LOST_DISAGREE, i, why, peer);
		if (s->status.deciding) {
			if (wait == n)
				wait = i;
			continue;
		}
		if (counted(c, wait_ms, s))
			return lost(PG_LOST_KEPT, i, why, peer);
		pending[i] = 0;		/* it withdrew */
	}
	return out(PG_GO, wait < n ? PG_WAIT : PG_KEEP, wait < n ? wait : 0,
	    why, peer);
}

int64_t
pg_claim_keep_horizon(const struct pg_claim *c, int64_t wait_ms)
{
	int64_t	 late = c->visible_ns - c->claim_ns - c->settle_ms * MS / 4;
	int64_t	 h = c->horizon_ms;

	if (late > 0)
		h += (late + MS - 1) / MS;
	return h < wait_ms ? h : 0;
}

void
pg_decision_text(const struct pg_decision *d, const struct pg_cluster *c,
    const struct pg_status *own, const struct pg_seen *seen, size_t n,
    char *buf, size_t len)
{
	const struct pg_seen	*s = d->peer < n ? &seen[d->peer] : NULL;
	const struct pg_seen	*p = d->prefer < n ? &seen[d->prefer] : NULL;
	const struct pg_status	*st;
	char			 t1[PG_DURATION_MAX], t2[PG_DURATION_MAX];
	char			 how[32];

	switch (d->reason) {
	case PG_REASON_LOCAL:
		snprintf(buf, len, "skip: a run on this node is still going");
		return;
	case PG_REASON_HELD:
		st = d->own || s == NULL ? own : &s->status;
		snprintf(buf, len, "skip: held by %s for %s more (shown by %s)"
		    "%s%s", st->hold_by[0] != '\0' ? st->hold_by : "someone",
		    pg_duration_text(st->hold_ms, t1),
		    d->own || s == NULL ? "this node" : s->name,
		    st->hold_why[0] != '\0' ? ": " : "", st->hold_why);
		return;
	case PG_REASON_ACTIVE:
		snprintf(buf, len, "skip: %s was active %s ago", s->name,
		    pg_duration_text(s->answer.elapsed_ms, t1));
		return;
	case PG_REASON_COOLDOWN:
		pg_status_last_text(own, how, sizeof(how));
		snprintf(buf, len, "skip: handing over after a failed run (%s, "
		    "%s ago; cooldown %s)", how,
		    pg_duration_text(own->last_end_ms, t1),
		    pg_duration_text(c->cooldown_ms, t2));
		return;
	case PG_REASON_INVALID:
		snprintf(buf, len, "no decision: %s answered %s", s->name,
		    s->why);
		return;
	case PG_REASON_UNREACHABLE:
		snprintf(buf, len, "skip: %s is unreachable (unreachable = "
		    "skip)", s->name);
		return;
	case PG_REASON_PREFERRED:
		snprintf(buf, len, "skip: %s is preferred and healthy",
		    p->name);
		return;
	case PG_REASON_YIELD:
		snprintf(buf, len, "skip: yielding to %s, the preferred node "
		    "(failback)", p->name);
		return;
	default:
		break;
	}
	/* A go while a more preferred peer is eligible: why this node goes. */
	if (p != NULL && d->yield)
		snprintf(buf, len, "go: the last run before yielding to %s "
		    "(preferred and healthy)", p->name);
	else if (p != NULL && !c->failback)
		snprintf(buf, len, "go: this node polls; %s is preferred but "
		    "failback = no", p->name);
	else if (p != NULL) {
		snprintf(buf, len, "go: this node polls; %s is preferred but "
		    "its checks have run only %s (failback_after %s)",
		    p->name, pg_duration_text(p->status.checking_ms < 0 ? 0 :
		    p->status.checking_ms, t1),
		    pg_duration_text(c->failback_after_ms, t2));
	} else if (d->yielded < n)
		snprintf(buf, len, "go: %s yields to this node (preferred)",
		    seen[d->yielded].name);
	else if (d->failed < n) {
		pg_status_last_text(&seen[d->failed].status, how, sizeof(how));
		snprintf(buf, len, "go: handover (%s's last run failed: %s)",
		    seen[d->failed].name, how);
	} else
		snprintf(buf, len, "go");
}

/*
 * pg_settle_text's format (args: name, why); none: written out there.
 * warns: pg_settle_warns.
 */
static const struct {
	const char	*fmt;
	int		 warns;
} settle_texts[] = {
	[PG_KEEP] = { "keep the claim: go", 0 },
	[PG_LOST_EARLIER] = { "withdraw: %s claimed earlier", 0 },
	[PG_LOST_SLOW_WRITE] = { "claim withdrawn: writing it took too long "
	    "to order it safely against peers", 1 },
	[PG_LOST_SLOW_ROUND] = { "claim withdrawn: asking the peers took too "
	    "long to order claims safely", 1 },
	[PG_LOST_VANISHED] = { "claim withdrawn: peer %s answered before "
	    "the claim but not after it (%s); it may have claimed too", 1 },
	[PG_WAIT] = { "waiting for %s to decide", 0 },
	[PG_LOST_KEPT] = { "withdraw: %s kept its claim", 0 },
	[PG_LOST_POLL] = { "claim withdrawn: %s, deciding too, did not show "
	    "its status again (%s)", 1 },
	[PG_LOST_RULE] = { "claim withdrawn: %s is active and shows no "
	    "status, and round 2 came without the settle sleep", 1 },
	[PG_LOST_DISAGREE] = { NULL, 1 },
	[PG_LOST_UNSEEN] = { "claim withdrawn: %s could not be reached in "
	    "round 1 and is active: it may be polling", 1 },
	[PG_LOST_EXPIRED] = { "claim withdrawn: the claim's horizon passed, "
	    "or nearly, before it could go, so peers may no longer count "
	    "this node", 1 },
	[PG_LOST_OVERWRITTEN] = { "claim withdrawn: the record was written "
	    "over on this node while the claim was out", 1 },
	[PG_LOST_SELF] = { "claim withdrawn: this node's own status cannot "
	    "be read to tell whether peers still count it", 1 },
	[PG_LOST_RAN] = { "claim withdrawn: a run began on this node after "
	    "the claim; had it failed, peers would stop counting this node "
	    "before the job started", 1 },
	[PG_LOST_RATE] = { NULL, 1 },
	[PG_LOST_SLOW_RATE] = { NULL, 1 },
	[PG_LOST_OLD_RATE] = { NULL, 1 }
};
/* A reason added to enum pg_settle_why needs its row above. */
typedef char settle_texts_whole[sizeof(settle_texts) /
    sizeof(settle_texts[0]) == PG_LOST_OLD_RATE + 1 ? 1 : -1];

void
pg_settle_text(enum pg_settle_why why, int64_t rate_ppm,
    const struct pg_seen *s, char *buf, size_t len)
{
	const struct pg_status	*st = &s->status;
	int64_t			 own = pg_rate_counted(rate_ppm);

	if (why == PG_LOST_RATE)
		snprintf(buf, len, "claim withdrawn: %s claimed too close to "
		    "this node's claim to order the two at the clocks' rates "
		    "(%s's up to %" PRId64 " ppm, this node's up to %" PRId64
		    " ppm)", s->name, s->name, pg_peer_rate(s), own);
	else if (why == PG_LOST_SLOW_RATE)
		snprintf(buf, len, "claim withdrawn: asking the peers took too "
		    "long to order claims safely at the clocks' rates (%s's "
		    "up to %" PRId64 " ppm, this node's up to %" PRId64 " ppm)",
		    s->name, pg_peer_rate(s), own);
	else if (why == PG_LOST_OLD_RATE)
		snprintf(buf, len, "claim withdrawn: this node's clock runs at "
		    "up to %" PRId64 " ppm, more than %s (before 0.5: no rate "
		    "in its status) allows for", own, s->name);
	else if (why == PG_LOST_NAME && s->has_status)
		snprintf(buf, len, "withdraw: %s claimed at nearly the same "
		    "moment and its name sorts first", s->name);
	else if (why == PG_LOST_NAME)
		snprintf(buf, len, "withdraw: %s claimed too close to this "
		    "node's claim to order the two, and shows no status to "
		    "wait for (before 0.4, or behind a proxy)", s->name);
	else if (why == PG_LOST_HELD)
		snprintf(buf, len, "withdraw: %s shows a hold (by %s)", s->name,
		    st->hold_by[0] != '\0' ? st->hold_by : "someone");
	else if (why == PG_LOST_DISAGREE)
		snprintf(buf, len, "claim withdrawn: %s announces settle %"
		    PRId64 "ms and timeout %" PRId64 "ms, unlike this node",
		    s->name, st->settle_ms, st->timeout_ms);
	else if (settle_texts[why].fmt != NULL)
		snprintf(buf, len, settle_texts[why].fmt, s->name, s->why);
	else
		snprintf(buf, len, "withdraw: %s", s->why);
}

int
pg_settle_warns(enum pg_settle_why why)
{
	return settle_texts[why].warns;
}

void
pg_checked_next(struct pg_checked *ck, int had, const struct pg_stamp *now,
    int64_t gap_ms, int go, const char *yield)
{
	struct pg_checked	 prev = *ck;

	if (!had || pg_stamp_elapsed(&prev.last, now) > gap_ms)
		prev.since = *now;
	memset(ck, 0, sizeof(*ck));
	ck->last = *now;
	ck->since = prev.since;
	if (go && yield != NULL) {
		strlcpy(ck->yield, yield, sizeof(ck->yield));
		ck->yielded = *now;
	} else if (!go && had && prev.yield[0] != '\0') {
		strlcpy(ck->yield, prev.yield, sizeof(ck->yield));
		ck->yielded = prev.yielded;
	}
	ck->last.claim_ns = ck->last.horizon_ms = 0;
}
