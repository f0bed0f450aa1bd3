/* SPDX-License-Identifier: ISC */
/*
 * check-peer.h: what a check says of a peer (bin/check-peer.c), for
 * every tool that decides as pollguard-check does.
 */
#ifndef CHECK_PEER_H
#define CHECK_PEER_H

#include "proto.h"
#include "tool.h"

/* How often an unreachable peer is reported under cron: once an hour. */
#define PEER_LOUD_EVERY_MS	(3600 * 1000)

/*
 * Peer p (seen s) cannot be reached; again: "" in round 1, "again: " in
 * round 2. A warning to syslog, and on stderr on a terminal or with -v
 * (every time), never with -q, and otherwise (under cron, which mails
 * it) once an hour per peer and cluster, by the record of
 * pg_unreachable_due in t's state directory.
 */
void	 peer_unreachable(struct tool *, const struct pg_peer *,
	    const struct pg_seen *, const char *);

/*
 * Round 1 r has ended: the next outage of each peer that answered it is
 * said at once, under cron too (pg_unreachable_clear).
 */
void	 peers_answered(struct tool *, const struct pg_round *);

/*
 * Why a peer s does not show that it decides by the rule of 0.4 (no
 * deciding, settle and timeout), for people: it did not answer, its
 * status is not seen (before 0.4, or a proxy), or it has no state
 * directory yet.
 */
const char	*peer_no_rule(const struct pg_seen *);

#endif /* CHECK_PEER_H */
