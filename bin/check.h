/* SPDX-License-Identifier: ISC */
/*
 * check.h: pollguard-check's decision (bin/check-decide.c), its rounds
 * (bin/check-round.c) and its claim (bin/check-claim.c); pollguard-run's
 * too.
 */
#ifndef CHECK_H
#define CHECK_H

#include "decide.h"
#include "proto.h"
#include "tool.h"

/*
 * The decision (pollguard(7)) for t, after tool_setup: 0 to go (claimed,
 * unless claim is 0: -n), else the skip (1 to 3) or an error status.
 * started: when the check began (CLOCK_BOOTTIME ns). On a claimed go,
 * *claimfd holds the claim lock until the caller closes it (doc/SAFETY.md,
 * 1, step 7); runfd NULL skips (2) while the run lock is held, else the
 * lock is taken into *runfd for the caller's run (a skip, 2, when another
 * run holds it). Either is -1 when not held; a skip holds neither.
 */
int	 check_decide(struct tool *, int, int64_t, int *, int *);

/*
 * A peer whose round-1 question is open this part of the timeout after
 * round 1 began, when every other peer has answered, is silent: it does
 * not hold back the claim (doc/SAFETY.md, 4, "A peer that does not
 * answer"); when nothing came from it in round 1, its round-2 question
 * lasts until round 1's timeout, or this part of the timeout after it
 * was sent, whichever is later.
 */
#define CHECK_SILENT_DIV	4

/*
 * Round 1 into *r, reported; 1 when it is left open instead, for the
 * claim (early: the check claims with settle > 0), as a peer is silent,
 * unreachable = run and pg_decide over the answers (this node's status
 * own) goes. Exit 71 when the peers cannot be asked.
 */
int	 check_round1(struct tool *, const struct pg_status *,
	    struct pg_round *, int);

/*
 * Sleep ns, asking round 1 meanwhile; 0 when round 1 is not open, or
 * could not be asked meanwhile (the caller then sleeps ns).
 */
int	 check_wait(int64_t);

/*
 * Round 2 into *r, reported, and 0; or, when round 1 (first) was open,
 * ask round 2 and end round 1 with the same timeout as ever, reported,
 * and 1: then check_late, and check_round2_end to end round 2 (reported)
 * or check_round2_abort to give it up.
 */
int	 check_round2(struct tool *, struct pg_round *, struct pg_round *);
void	 check_round2_end(struct tool *, struct pg_round *);
void	 check_round2_abort(void);

/*
 * Record this check for the prefer order (bin/check-side.c): its start,
 * go, and whom it yields to after this run. A failure costs only the
 * preference.
 */
void	 check_checked(struct tool *, const struct pg_stamp *, int,
	    const char *);

/*
 * Round 1, decided again late, does not go: this check's record for the
 * prefer order (doc/PREFER.md) as a skip's, written over the go that was
 * recorded before the claim.
 */
void	 check_unchecked(struct tool *);

/* A peer s that announces another prefer order: loud, also under cron. */
void	 check_disagree(const struct tool *, const struct pg_seen *);

/*
 * The first peer of r that announces another settle or timeout than this
 * node's, and its text; r->n: none.
 */
size_t	 check_disagrees(const struct tool *, const struct pg_round *, char *,
	    size_t);

/*
 * Round 1 (r) decided again with its late answers, after a go (d0) by
 * this node's status own: PG_GO when the go stands; else the verdict, or
 * -1 when a peer announces another settle or timeout, with its text.
 */
int	 check_late(struct tool *, const struct pg_status *,
	    const struct pg_decision *, const struct pg_round *, char *,
	    size_t);

/*
 * After round 1's go (first, d by this node's status own), with peers and
 * settle > 0: claim, settle, ask again, keep or withdraw the claim
 * (doc/SAFETY.md, section 1). prev_check_ns: pg_prefer_prev_check.
 * Returns the exit status; a signal withdraws the claim and ends the
 * check by it.
 */
int	 claim_and_settle(struct tool *, struct pg_round *, int64_t,
	    const struct pg_status *, const struct pg_decision *);

/* On etcd (bin/etcd.c): claim the key (-n: read it); the exit status. */
int	 etcd_check(struct tool *, int);

#endif /* CHECK_H */
