/* SPDX-License-Identifier: ISC */
/*
 * decide.h: the rule, pure functions of plain data: go or skip after
 * one round, keep or withdraw a claim after the settle round (decide.c),
 * and the preferred node (prefer.c).
 */
#ifndef PG_DECIDE_H
#define PG_DECIDE_H

#include "conf.h"
#include "proto.h"
#include "state.h"

/* decide.c */

enum pg_verdict {
	PG_GO = 0,		/* exit 0 */
	PG_SKIP_ACTIVE = 1,	/* exit 1: a peer was active within wait,
				   or the cluster is held, or handing over */
	PG_SKIP_LOCAL = 2,	/* exit 2: a run on this node still going */
	PG_SKIP_UNREACHABLE = 3,/* exit 3: unreachable peer, policy skip */
	PG_REFUSE_INVALID = 76	/* a peer answered nonsense: EX_PROTOCOL */
};

/*
 * Why pg_decide decided as it did: one reason a verdict. pg_fleet_next
 * says with the same reasons why a cluster's next round goes as it does.
 */
enum pg_reason {
	PG_REASON_GO,		/* nothing against us */
	PG_REASON_LOCAL,	/* SKIP_LOCAL */
	PG_REASON_HELD,		/* SKIP_ACTIVE: held (by peer, or own) */
	PG_REASON_ACTIVE,	/* SKIP_ACTIVE: peer was active within wait */
	PG_REASON_COOLDOWN,	/* SKIP_ACTIVE: our last run failed less
				   than cooldown ago; handing over */
	PG_REASON_INVALID,	/* REFUSE_INVALID: peer answered nonsense */
	PG_REASON_UNREACHABLE,	/* SKIP_UNREACHABLE */
	PG_REASON_PREFERRED,	/* SKIP_ACTIVE: a more preferred peer is
				   eligible, and this node is idle */
	PG_REASON_YIELD,	/* SKIP_ACTIVE: this node yielded to a
				   preferred peer (failback) */
	PG_REASON_EACH		/* pg_fleet_next only: no check goes, each
				   skips for a reason of its own */
};

struct pg_decision {
	enum pg_verdict	 verdict;
	enum pg_reason	 reason;
	int		 standalone;	/* go for want of peers: warn */
	int		 own;		/* HELD: the hold is this node's */
	size_t		 peer;		/* index of the deciding peer */
	size_t		 failed;	/* a peer whose failed run did not
					   count against us; n: none */
	/* pollguard(7), PREFERRED NODE; each n when none */
	size_t		 prefer;	/* PREFERRED, YIELD: the preferred peer;
					   GO with yield: the one to yield to */
	int		 yield;		/* GO: this run is the last before
					   yielding to seen[prefer] */
	size_t		 yielded;	/* a peer whose yield to us did not
					   count against us */
	size_t		 disagree;	/* a peer with another prefer order:
					   prefer is not applied */
};

/*
 * Activity this long after a run's end still counts as that run's own
 * (its last refresh): handover and yield.
 */
#define PG_HANDOVER_SLACK_MS	1000

/*
 * True when, under on_failure, a peer's answer does not count as activity
 * against this node: on_failure is handover, it answered a status, its
 * last run failed, and since that run's end it has neither claimed (no
 * claim is reported at all) nor been active (elapsed is at least the
 * time since the end, less PG_HANDOVER_SLACK_MS). pg_decide and
 * pg_settle both use this, so round 1 and round 2 agree on who is
 * active.
 */
int	 pg_handover_ignores(enum pg_on_failure, const struct pg_seen *);

/*
 * Decide for one round of cluster c, as node (this node's name), own
 * being this node's status (NULL: not known, as with 0.3). In order: a
 * local run still holding the lock skips (LOCAL); a hold shown by this
 * node or any peer that answered skips (HELD); a peer whose elapsed is
 * below wait (strictly; equal allows) skips (ACTIVE), unless
 * pg_handover_ignores it; with on_failure handover and this node in
 * cooldown, skip (COOLDOWN) when some peer answered that is not in
 * cooldown (a peer before 0.4 never is), or when every peer that answered
 * is in cooldown too and this node's run ended last (ties: the name that
 * sorts first, strcasecmp, skips); a bad answer (PG_ANSWER_BAD) refuses;
 * an unreachable peer skips when the policy says so; otherwise go. With
 * no peers, go, standalone.
 */
void	 pg_decide(const struct pg_cluster *, const char *,
	    const struct pg_status *, int, const struct pg_seen *, size_t,
	    struct pg_decision *);

#define PG_TEXT_MAX	512	/* a decision for people */

/*
 * The decision d of pg_decide for people, and for the log, without the
 * cluster: "go", "skip: b was active 3s ago", "skip: held by ops for 10m
 * more (shown by b): disk swap", "skip: handing over after a failed run
 * (exit 1, 20s ago; cooldown 5m)", ... The arguments are pg_decide's.
 */
void	 pg_decision_text(const struct pg_decision *,
	    const struct pg_cluster *, const struct pg_status *,
	    const struct pg_seen *, size_t, char *, size_t);

/*
 * The settle round, after a claim: does this node keep it? pollguard(7),
 * CLAIM AND SETTLE, has the argument and the names below. All times are
 * this node's CLOCK_BOOTTIME in ns; two hosts' clocks may run at rates up
 * to PG_DRIFT_DIV apart.
 */
#define PG_DRIFT_DIV	1000	/* 1/1000: 0.1%, twice NTP's 500 ppm */

struct pg_claim {
	const char	*node;		/* this node's name */
	int64_t		 claim_ns;	/* the stamp of our claim */
	int64_t		 visible_ns;	/* when its rename was done */
	int64_t		 start_ns;	/* round 1 began */
	int64_t		 end_ns;	/* round 2 ended */
	int64_t		 settle_ms;	/* the configured settle */
	int64_t		 timeout_ms;	/* the configured timeout */
	int64_t		 horizon_ms;	/* pg_claim_horizon */
	enum pg_on_failure on_failure;	/* pg_handover_ignores */
	int		 slept;		/* round 2 came after the settle
					   sleep (pg_settle_sleep_ns) */
	int64_t		 prev_check_ns;	/* pg_yield_ignores: this node's */
	int64_t		 yield_slack_ms;	/* previous check; slack */
};

/* Why pg_settle decided as it did; pg_settle and pg_settle_poll say when. */
enum pg_settle_why {
	PG_KEEP,
	PG_LOST_EARLIER,
	PG_LOST_NAME,
	PG_LOST_SLOW_WRITE,	/* set by pollguard-check: the claim took
				   too long to become visible to lengthen
				   it within the wait */
	PG_LOST_SLOW_ROUND,
	PG_LOST_VANISHED,
	PG_LOST_UNREACHABLE,	/* unreachable peer, policy skip */
	PG_LOST_INVALID,	/* a peer answered nonsense */
	PG_LOST_HELD,
	PG_WAIT,
	PG_LOST_KEPT,
	PG_LOST_POLL,
	PG_LOST_RULE,
	PG_LOST_DISAGREE,
	PG_LOST_UNSEEN,
	PG_LOST_EXPIRED,	/* set by pollguard-check: our claim's
				   horizon passed, or nearly, before we
				   could go (pg_still_counted) */
	PG_LOST_OVERWRITTEN,	/* set by pollguard-check: a writer on
				   this node replaced our claim before we
				   could lengthen it */
	PG_LOST_SELF		/* set by pollguard-check: our own status
				   cannot be read to tell EXPIRED */
};

/*
 * The claim horizon in ms: 2 * timeout + 1.5 * settle + 1 s. Claims are
 * reported as such for this long; it must be shorter than every wait of
 * a cluster with peers (pg_config_load checks).
 */
int64_t	 pg_claim_horizon(int64_t, int64_t);

/*
 * How long to sleep between the claim and round 2, in ns: settle/2 and
 * 1% more, for the clocks' drift (pollguard(7)).
 */
int64_t	 pg_settle_sleep_ns(int64_t);

/*
 * 1 when the peer's answer announces the fast rule ("deciding" in its
 * status): the pair decides by it.
 */
int	 pg_peer_fast(const struct pg_seen *);

/*
 * The first peer of seen[0..n) that announces the fast rule with a
 * settle or a timeout other than settle_ms and timeout_ms; n when none.
 */
size_t	 pg_settle_disagrees(int64_t, int64_t, const struct pg_seen *, size_t);

/*
 * Decide whether to keep the claim, from the answers of round 2, by one
 * rule for every peer, whatever this node concludes about it
 * (doc/SAFETY.md). A peer that shows a hold makes us withdraw
 * (PG_LOST_HELD); one reachable in round 1 (answered) but not in round 2
 * too (PG_LOST_VANISHED): it may have claimed in between, unseen. A
 * peer that answered never, or at least wait_ms, or that
 * pg_yield_ignores (with c->prev_check_ns, c->yield_slack_ms) or
 * pg_handover_ignores (with c->on_failure) is not active. An active
 * peer:
 * - not reached in round 1 loses us the round (PG_LOST_UNSEEN), claim
 *   or not: nothing bounds when it became active;
 * - without the settle sleep (c->slept not set), one that does not
 *   announce the rule (pg_peer_fast) does too (PG_LOST_RULE);
 * - one announcing another settle or timeout does too
 *   (PG_LOST_DISAGREE);
 * - is ignored when its claim certainly lies more than
 *   max(settle/4, visible - claim) after ours: it saw ours as the
 *   earlier claim;
 * - else, when it announces the rule and our name sorts first
 *   (strcasecmp), is pending (pending[i] set: we keep only if it
 *   withdraws, pg_settle_poll);
 * - else beats us (PG_LOST_EARLIER when it certainly claimed more than
 *   settle/4 before us, else PG_LOST_NAME).
 * Rounds longer than the horizon allows lose (from the start of round 1
 * to the end of round 2: more than horizon - settle/4 - 50ms,
 * PG_LOST_SLOW_ROUND). Returns the verdict (PG_GO keeps the claim;
 * PG_SKIP_* or PG_REFUSE_INVALID withdraw it) and stores the reason in
 * *why and the deciding peer's index in *peer. PG_GO with *why PG_WAIT:
 * peers are pending (pending[0..n), set here to 0 or 1): ask them again.
 */
enum pg_verdict	 pg_settle(const struct pg_claim *, int64_t,
	    enum pg_unreachable, const struct pg_seen *, size_t, int *,
	    enum pg_settle_why *, size_t *);

/*
 * The pending peers asked again (seen[i] matters only where pending[i]
 * is set; c->end_ns is when this ask ended). A peer still deciding stays
 * pending; one that decided with its claim gone (not active, as
 * pg_settle counts it: pg_handover_ignores with c->on_failure,
 * pg_yield_ignores) withdrew, and is no longer pending; one that decided
 * and is still active kept it (PG_LOST_KEPT); one that does not answer,
 * or not by the fast rule, makes us withdraw (PG_LOST_POLL). Past the
 * deadline of pg_settle (PG_LOST_SLOW_ROUND) we withdraw, whatever the
 * answers. Returns as pg_settle: PG_GO and PG_WAIT while peers are
 * pending, PG_GO and PG_KEEP when none is left.
 */
enum pg_verdict	 pg_settle_poll(const struct pg_claim *, int64_t,
	    const struct pg_seen *, size_t, int *, enum pg_settle_why *,
	    size_t *);

/*
 * How long the horizon of a kept claim must be, in ms: the configured
 * one, lengthened by however much more than settle/4 the claim took to
 * become visible, so that a peer's round 2 that may still come sees the
 * claim and not a later refresh (pollguard(7)). 0 when that would reach
 * the wait time: the claim must then be withdrawn.
 */
int64_t	 pg_claim_keep_horizon(const struct pg_claim *, int64_t);

/*
 * What pg_settle decided, for people: "keep the claim: go", "withdraw: b
 * claimed earlier", ... s is the deciding peer's answer.
 */
void	 pg_settle_text(enum pg_settle_why, const struct pg_seen *, char *,
	    size_t);

/*
 * 1 when a claim withdrawn for why is worth a warning (a want of time,
 * of an answer or of certainty); 0 when it is the rule at work (another
 * node's claim, a hold, the policy), a decision to log as such.
 */
int	 pg_settle_warns(enum pg_settle_why);

/* prefer.c */

/* The peer answered the question: reachable, its status (if any) read. */
int	 pg_answered(const struct pg_seen *);

/*
 * True when node a comes before node b in c's order: the prefer list
 * first, in its order, then the nodes it does not list by strcasecmp.
 * Names compare without case.
 */
int	 pg_prefer_before(const struct pg_cluster *, const char *,
	    const char *);

/*
 * The first peer (index) that answered but announces another order than
 * c->prefer (a status without prefer, or none at all, is another order
 * when c has one); n when all agree. A peer that did not answer is not
 * asked about it.
 */
size_t	 pg_prefer_disagree(const struct pg_cluster *, const struct pg_seen *,
	    size_t);

/*
 * True when the peer counts as a node that will poll if it may: it
 * answered a status announcing c's order, its latest check is less than
 * wait + prefer_slack ago (its cron runs), and, under on_failure
 * handover, it is not in cooldown after a failed run. healthy: also its
 * checks have run without a gap for failback_after.
 */
int	 pg_prefer_eligible(const struct pg_cluster *, const struct pg_seen *);
int	 pg_prefer_healthy(const struct pg_cluster *, const struct pg_seen *);

/*
 * This node's previous check as a moment of its CLOCK_BOOTTIME (ns),
 * from its own status (pg_status_local); INT64_MIN when not known.
 */
int64_t	 pg_prefer_prev_check(const struct pg_status *);

/*
 * True when a peer's activity does not count against node (this node):
 * the peer yields to it, its last run is over by its own records, and
 * the yield was decided no later than slack ms after this node's previous
 * check (prev_ns, of pg_prefer_prev_check). prefer.c states the records
 * and argues it; pg_decide and pg_settle both use this.
 */
int	 pg_yield_ignores(const char *, int64_t, int64_t,
	    const struct pg_seen *);

/*
 * The prefer rules, for pg_decide once nothing else stops this node: d
 * is a GO. Sets d->prefer and, when a more preferred peer is eligible,
 * turns d into a skip (PREFERRED: this node is idle; YIELD: it has
 * yielded) or marks the go as the last run before a yield (d->yield).
 */
void	 pg_prefer_decide(const struct pg_cluster *, const char *,
	    const struct pg_status *, const struct pg_seen *, size_t,
	    struct pg_decision *);

/*
 * The checked record to write at a check that began at now, after prev
 * (had: 0 when there was none): since carries on unless the gap since
 * prev's last check exceeds gap_ms; a go clears the yield, a go that is
 * the last before a yield sets it (to name, decided now), a skip keeps
 * it.
 */
void	 pg_checked_next(struct pg_checked *, int, const struct pg_stamp *,
	    int64_t, int, const char *);

#endif /* PG_DECIDE_H */
