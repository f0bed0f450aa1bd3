/* SPDX-License-Identifier: ISC */
/* local.h: this node's own status of a cluster (local.c). */
#ifndef PG_LOCAL_H
#define PG_LOCAL_H

#include "conf.h"
#include "decide.h"
#include "proto.h"
#include "state.h"

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
 * (pg_claim_held) and cfg's settle and timeout, when st is not NULL.
 */
int	 pg_status_serve(struct pg_state *, const struct pg_config *,
	    const struct pg_cluster *, struct pg_status *);

/*
 * After pollguard-check kept its claim (rec, as written): does this node
 * still count for its peers? 1 when so; else 0 and *why: PG_LOST_SELF
 * (its status cannot be read), PG_LOST_HELD or PG_LOST_EXPIRED. *self is
 * this node's answer, for pg_settle_text.
 */
int	 pg_still_counted(struct pg_state *, const struct pg_cluster *,
	    const char *, int64_t, const struct pg_stamp *,
	    enum pg_settle_why *, struct pg_seen *);

#endif /* PG_LOCAL_H */
