/* SPDX-License-Identifier: ISC */
/*
 * decide.h: the rule, pure functions of plain data (decide.c), and this
 * node's own status of a cluster, what the rule reads of it (local.c).
 * doc/SAFETY.md and doc/PREFER.md argue it; pollguard(7) names it.
 */
#ifndef PG_DECIDE_H
#define PG_DECIDE_H

#include "conf.h"
#include "proto.h"
#include "state.h"

enum pg_verdict {
	PG_GO = 0,		/* exit 0 */
	PG_SKIP_ACTIVE = 1,	/* a peer active, a hold, handing over */
	PG_SKIP_LOCAL = 2,	/* a run on this node still going */
	PG_SKIP_UNREACHABLE = 3,/* unreachable peer, policy skip */
	PG_REFUSE_INVALID = 76	/* a peer answered nonsense: EX_PROTOCOL */
};

/* Why pg_decide decided as it did, and why pg_fleet_next predicts so. */
enum pg_reason {
	PG_REASON_GO,
	PG_REASON_LOCAL,	/* SKIP_LOCAL */
	PG_REASON_HELD,		/* SKIP_ACTIVE: held (by peer, or own) */
	PG_REASON_ACTIVE,	/* SKIP_ACTIVE: peer active within wait */
	PG_REASON_COOLDOWN,	/* SKIP_ACTIVE: handing over after failing */
	PG_REASON_INVALID,	/* REFUSE_INVALID */
	PG_REASON_UNREACHABLE,	/* SKIP_UNREACHABLE */
	PG_REASON_PREFERRED,	/* SKIP_ACTIVE: idle; a preferred peer goes */
	PG_REASON_YIELD,	/* SKIP_ACTIVE: yielded (failback) */
	PG_REASON_EACH		/* pg_fleet_next only: each skips its way */
};

struct pg_decision {
	enum pg_verdict	 verdict;
	enum pg_reason	 reason;
	int		 standalone;	/* go for want of peers: warn */
	int		 own;		/* HELD: the hold is this node's */
	size_t		 peer;		/* index of the deciding peer */
	/* The peers below are indices; n: none. */
	size_t		 failed;	/* failed, handover: not counted */
	size_t		 prefer;	/* the preferred peer, or yield to */
	int		 yield;		/* GO: the last before yielding */
	size_t		 yielded;	/* yields to us: not counted */
	size_t		 disagree;	/* another prefer order: none applied */
};

/* A run's last refresh may come this long after its end. */
#define PG_HANDOVER_SLACK_MS	1000

/* Under on_failure, the peer's activity does not count (SAFETY.md, 7). */
int	 pg_handover_ignores(enum pg_on_failure, const struct pg_seen *);

/*
 * Decide round 1 of cluster c for node, own being its status (NULL: not
 * known, as with 0.3), local_run set when its run lock is held, from
 * seen[0..n). doc/SAFETY.md, section 1, has the order of the rules.
 */
void	 pg_decide(const struct pg_cluster *, const char *,
	    const struct pg_status *, int, const struct pg_seen *, size_t,
	    struct pg_decision *);

#define PG_TEXT_MAX	512	/* a decision for people */

/* pg_decide's decision for people and the log; its arguments. */
void	 pg_decision_text(const struct pg_decision *,
	    const struct pg_cluster *, const struct pg_status *,
	    const struct pg_seen *, size_t, char *, size_t);

/*
 * The settle round (pollguard(7), CLAIM AND SETTLE; doc/SAFETY.md). Times
 * are this node's CLOCK_BOOTTIME in ns; each bound that compares two
 * clocks is widened by R, this node's rate bound and the peer's (ppm,
 * doc/SAFETY.md, section 3).
 */

/* A bound as the rule counts it: BASE to PG_RATE_MAX; -1 (none): BASE. */
int64_t	 pg_rate_counted(int64_t);

/* A peer's bound, counted: BASE when its status says none. */
int64_t	 pg_peer_rate(const struct pg_seen *);

/* The peer of seen[0..n) with the highest bound, the first of equals. */
size_t	 pg_peers_fastest(const struct pg_seen *, size_t);

/*
 * R in ppm: this node's bound (-1: not known) and the highest of
 * seen[0..n)'s, counted; *fastest: that peer (n when none).
 */
int64_t	 pg_rates(int64_t, const struct pg_seen *, size_t, size_t *);

struct pg_claim {
	const char	*node;		/* this node's name */
	int64_t		 claim_ns;	/* the stamp of our claim */
	int64_t		 visible_ns;	/* when its rename was done */
	int64_t		 start_ns;	/* round 1 began */
	int64_t		 end_ns;	/* round 2 (or this poll) ended */
	int64_t		 settle_ms;	/* the configured settle */
	int64_t		 timeout_ms;	/* the configured timeout */
	int64_t		 horizon_ms;	/* pg_claim_horizon */
	enum pg_on_failure on_failure;	/* pg_handover_ignores */
	int		 slept;		/* round 2 came after the sleep */
	int64_t		 prev_check_ns;	/* pg_yield_ignores: this node's */
	int64_t		 yield_slack_ms;	/* previous check; slack */
	int64_t		 rate_ppm;	/* this node's clock (pg_clock_rate) */
};

enum pg_settle_why {
	PG_KEEP,
	PG_LOST_EARLIER,
	PG_LOST_NAME,
	PG_LOST_SLOW_WRITE,	/* pollguard-check's: slow to be visible */
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
	PG_LOST_EXPIRED,	/* pollguard-check's: horizon passed */
	PG_LOST_OVERWRITTEN,	/* pollguard-check's: record replaced */
	PG_LOST_SELF,		/* pg_still_counted: own status unread */
	PG_LOST_RAN,		/* pg_still_counted: a run since the claim */
	PG_LOST_RATE,		/* too close to order at the clocks' rates */
	PG_LOST_SLOW_RATE,	/* too slow at the clocks' rates */
	PG_LOST_OLD_RATE	/* this clock too fast for a peer before 0.5 */
};

/*
 * The claim horizon in ms: 2 * timeout + 1.5 * settle + 1 s; shorter than
 * the wait of a cluster with peers (pg_config_load checks).
 */
int64_t	 pg_claim_horizon(int64_t, int64_t);

/*
 * The sleep before round 2 in ns for settle (ms) and R (ppm: this node's
 * bound and its peers' highest, counted): settle/2, and max(1 %, R) of
 * settle more.
 */
int64_t	 pg_settle_sleep_ns(int64_t, int64_t);

/* 1 when the peer announces the fast rule ("deciding" in its status). */
int	 pg_peer_fast(const struct pg_seen *);

/*
 * D in ns for settle (ms): how late a peer that shows no status (0.3.0,
 * which stamps a question's sending after writing it) may place our
 * claim; settle, or less where the round would not fit (above 3.1 s).
 * Beside such a peer the sleep before round 2 is D and 1 % of it longer,
 * and pg_settle keeps against its claim only when it lies more than
 * max(W, visible - claim) + D after ours (doc/SAFETY.md, 4).
 */
int64_t	 pg_settle_old_ns(int64_t);

/* The first fast peer with another settle or timeout; n when none. */
size_t	 pg_settle_disagrees(int64_t, int64_t, const struct pg_seen *, size_t);

/*
 * Keep the claim c after round 2 (seen[0..n), wait_ms, the unreachable
 * policy)? doc/SAFETY.md, section 2, has the rule. Sets every pending[i]
 * to 0 or 1, and *peer: the deciding peer (0 with PG_KEEP). PG_GO: keep
 * (*why PG_KEEP, or PG_WAIT with pending[i] 1 for the peers to ask
 * again), else the verdict to withdraw with; *why and *peer say why.
 */
enum pg_verdict	 pg_settle(const struct pg_claim *, int64_t,
	    enum pg_unreachable, const struct pg_seen *, size_t, int *,
	    enum pg_settle_why *, size_t *);

/*
 * The pending peers asked again: returns as pg_settle and clears pending[i]
 * of a peer decided; seen[i] matters only where pending[i] is set (the
 * others are "not asked").
 */
enum pg_verdict	 pg_settle_poll(const struct pg_claim *, int64_t,
	    const struct pg_seen *, size_t, int *, enum pg_settle_why *,
	    size_t *);

/*
 * The horizon a kept claim needs, in ms (doc/SAFETY.md, section 4); 0 when
 * it would reach wait_ms: withdraw.
 */
int64_t	 pg_claim_keep_horizon(const struct pg_claim *, int64_t);

/*
 * What pg_settle decided, for people; this node's clock's bound (ppm, as
 * pg_claim's), s the deciding peer's answer.
 */
void	 pg_settle_text(enum pg_settle_why, int64_t, const struct pg_seen *,
	    char *, size_t);

/* 1 when withdrawing for why is worth a warning, not the rule at work. */
int	 pg_settle_warns(enum pg_settle_why);

/* The preferred node (doc/PREFER.md). */

/* True when node a comes before b in c's order (listed, then by name). */
int	 pg_prefer_before(const struct pg_cluster *, const char *,
	    const char *);

/* The first peer that answered with another order than c's; n: none. */
size_t	 pg_prefer_disagree(const struct pg_cluster *, const struct pg_seen *,
	    size_t);

/* The peer is eligible, or healthy too (doc/PREFER.md, "The rules"). */
int	 pg_prefer_eligible(const struct pg_cluster *, const struct pg_seen *);
int	 pg_prefer_healthy(const struct pg_cluster *, const struct pg_seen *);

/* This node's previous check in CLOCK_BOOTTIME ns; INT64_MIN: unknown. */
int64_t	 pg_prefer_prev_check(const struct pg_status *);

/*
 * The peer yields to node: its activity does not count (doc/PREFER.md,
 * rule 4). Then this node's previous check (CLOCK_BOOTTIME ns), the
 * cluster's prefer slack (ms) and this node's clock's bound (ppm, -1: not
 * known), which with the peer's widens the slack (doc/SAFETY.md, 3).
 */
int	 pg_yield_ignores(const char *, int64_t, int64_t, int64_t,
	    const struct pg_seen *);

/*
 * The checked record to write at a check begun at now, after *ck (had: 0
 * when none): since restarts after a gap over gap_ms; a go clears the
 * yield, or sets it to yield (not NULL: its last go), a skip keeps it.
 */
void	 pg_checked_next(struct pg_checked *, int, const struct pg_stamp *,
	    int64_t, int, const char *);

/* local.c: this node's own status. */

/*
 * Fill in *s for cluster c on node from state st (NULL: none yet, never
 * active). 0, or -1 with errno (EBADMSG: a damaged record).
 */
int	 pg_status_local(struct pg_state *, const struct pg_cluster *,
	    const char *, struct pg_status *);

/*
 * pg_status_local as served to peers: with deciding, settle and timeout
 * when st is not NULL.
 */
int	 pg_status_serve(struct pg_state *, const struct pg_config *,
	    const struct pg_cluster *, struct pg_status *);

/*
 * After a claim rec was kept: 1 when this node still counts for peers
 * until its job's start is recorded; else 0 and *why (PG_LOST_SELF,
 * _HELD, _EXPIRED, or _RAN: a run began on this node at or after the
 * claim); *self: its answer.
 */
int	 pg_still_counted(struct pg_state *, const struct pg_cluster *,
	    const char *, int64_t, const struct pg_stamp *,
	    enum pg_settle_why *, struct pg_seen *);

#endif /* PG_DECIDE_H */
