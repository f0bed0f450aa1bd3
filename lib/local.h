/* SPDX-License-Identifier: ISC */
/*
 * local.h: this node's own status of a cluster, from its state
 * directory (local.c): what pollguard-serve answers, and what
 * pollguard-check and pollguard-status read of their own node.
 */
#ifndef PG_LOCAL_H
#define PG_LOCAL_H

#include "conf.h"
#include "decide.h"
#include "proto.h"
#include "state.h"

/*
 * local.c: this node's status of a cluster, from its state directory.
 */

/*
 * Fill in *s for cluster c on this node (node: its name): activity,
 * claim, and what the state directory records of runs and holds. st may
 * be NULL (no state directory yet: never active). 0, or -1 with errno
 * (EBADMSG: a damaged record).
 */
int	 pg_status_local(struct pg_state *, const struct pg_cluster *,
	    const char *, struct pg_status *);

/*
 * pg_status_local as pollguard-serve answers it to peers: with "deciding"
 * (pg_claim_held, tested before the record is read; yes when it cannot be
 * told) and cfg's settle and timeout, when st is not NULL.
 */
int	 pg_status_serve(struct pg_state *, const struct pg_config *,
	    const struct pg_cluster *, struct pg_status *);

/*
 * After pollguard-check kept its claim (rec, as written): does this node
 * still count for its peers? Reads its status (pg_status_local, for node)
 * and the clock, and judges it as a peer would (pg_handover_ignores, by
 * on_failure = handover), its claim counted only while more than
 * settle_ms/4 + 50 ms of the horizon are left. 1 when still counted;
 * else 0 and *why: PG_LOST_SELF (the status cannot be read),
 * PG_LOST_HELD (a hold on this node) or PG_LOST_EXPIRED. *self is this
 * node's answer as judged, for pg_settle_text.
 */
int	 pg_still_counted(struct pg_state *, const struct pg_cluster *,
	    const char *, int64_t, const struct pg_stamp *,
	    enum pg_settle_why *, struct pg_seen *);

#endif /* PG_LOCAL_H */
