/* SPDX-License-Identifier: ISC */
/*
 * etcd.h: the tools' side of the etcd backend (bin/etcd.c): messages,
 * exit statuses and the lease record, over lib/etcd.c. Linked into
 * pollguard-check, pollguard-status and pollguard-touch-curl only.
 */
#ifndef ETCD_H
#define ETCD_H

#include "fleet.h"
#include "lease.h"
#include "tool.h"

/* The exit status of a failed request: 3, 76 or EX_OSERR. */
int	 etcd_status(enum pg_etcd_result);

/*
 * pollguard-check on an etcd cluster: claim the key (or with -n only
 * read it) and record the lease. Returns the exit status: 0 go, 1 held
 * by another node, 3 etcd unreachable, 76 refused or nonsense.
 */
int	 etcd_check(struct tool *, int);

/*
 * pollguard-touch: this node must hold the key. Read the lease record
 * (none or lost: exit 1), keep the lease alive once (exit 3, 76 on
 * failure) and put the fencing token in POLLGUARD_FENCING_TOKEN.
 */
void	 etcd_hold_start(struct tool *);

/*
 * Keep the lease alive when a third of its TTL has passed since the
 * last keepalive (now: CLOCK_BOOTTIME ms), retrying every half second.
 * 1 once, when the lease is lost: etcd says it is gone, or no keepalive
 * was confirmed by the deadline, a margin before the lease can expire
 * (the send time of the last one confirmed and its TTL). No request
 * runs past the deadline. Else 0.
 */
int	 etcd_hold_refresh(struct tool *, int64_t);

/* When etcd_hold_refresh is due next (CLOCK_BOOTTIME ms); 0 once lost. */
int64_t	 etcd_hold_due(void);

/* True once the lease is lost. */
int	 etcd_hold_lost(void);

/* Make the next etcd_hold_refresh keep the lease alive: a run's end. */
void	 etcd_hold_force(void);

/* pollguard-touch -r: revoke the lease (deleting the key) and forget it. */
void	 etcd_release(struct tool *);

/*
 * pollguard-status: the key's holder as a node of the fleet, read from
 * etcd (elapsed: the wait less the lease's time left). n->name is NULL
 * when nobody holds the key; a failure sets n->kind and n->why.
 */
void	 etcd_fleet(const struct pg_config *, const struct pg_cluster *,
	    struct pg_fleet_node *);

#endif /* ETCD_H */
