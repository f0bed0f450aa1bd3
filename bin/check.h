/* SPDX-License-Identifier: ISC */
/* check.h: pollguard-check's rounds and its claim (bin/check-claim.c). */
#ifndef CHECK_H
#define CHECK_H

#include "proto.h"
#include "tool.h"

/*
 * Ask the peers of the cluster into *r: round 1 (first NULL), or round 2,
 * the peers of round 1 again. Say what each answered (-v), warn of the
 * unreachable, complain of nonsense; exit 71 when they cannot be asked.
 */
void	 check_ask(struct tool *, struct pg_round *, const struct pg_round *);

/*
 * A go after round 1 (first), with peers and settle > 0: claim, settle,
 * ask again, then keep the claim or withdraw it, restoring the record
 * that was there (doc/SAFETY.md, section 1). prev_check_ns: this node's
 * previous check (pg_prefer_prev_check). Returns the exit status; a
 * signal while the claim is out withdraws it, then ends the check by
 * that signal.
 */
int	 claim_and_settle(struct tool *, const struct pg_round *, int64_t);

#endif /* CHECK_H */
