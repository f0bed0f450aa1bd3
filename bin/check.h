/* SPDX-License-Identifier: ISC */
/* check.h: pollguard-check's rounds and its claim (bin/check-claim.c). */
#ifndef CHECK_H
#define CHECK_H

#include "proto.h"
#include "tool.h"

/*
 * Ask the peers into *r: round 1 (first NULL), or round 2 (first's peers).
 * Report the answers; exit 71 when they cannot be asked.
 */
void	 check_ask(struct tool *, struct pg_round *, const struct pg_round *);

/*
 * After round 1's go (first), with peers and settle > 0: claim, settle,
 * ask again, keep or withdraw the claim (doc/SAFETY.md, section 1).
 * prev_check_ns: pg_prefer_prev_check. Returns the exit status; a signal
 * withdraws the claim and ends the check by it.
 */
int	 claim_and_settle(struct tool *, const struct pg_round *, int64_t);

/* On etcd (bin/etcd.c): claim the key (-n: read it); the exit status. */
int	 etcd_check(struct tool *, int);

#endif /* CHECK_H */
