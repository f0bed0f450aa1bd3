/* SPDX-License-Identifier: ISC */
/* local.h: this node's own status of a cluster (local.c). */
#ifndef PG_LOCAL_H
#define PG_LOCAL_H

#include "conf.h"
#include "decide.h"
#include "proto.h"
#include "state.h"

/*
 * Fill in *s for cluster c on node from state st (NULL: none yet, never
 * active). 0, or -1 with errno (EBADMSG: a damaged record).
 */
int	 pg_status_local(struct pg_state *, const struct pg_cluster *,
	    const char *, struct pg_status *);

/* pg_status_local as served to peers: with deciding, settle, timeout. */
int	 pg_status_serve(struct pg_state *, const struct pg_config *,
	    const struct pg_cluster *, struct pg_status *);

/*
 * After a claim rec was kept: 1 when this node still counts for peers;
 * else 0 and *why (PG_LOST_SELF, _HELD or _EXPIRED); *self: its answer.
 */
int	 pg_still_counted(struct pg_state *, const struct pg_cluster *,
	    const char *, int64_t, const struct pg_stamp *,
	    enum pg_settle_why *, struct pg_seen *);

#endif /* PG_LOCAL_H */
