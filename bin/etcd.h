/* SPDX-License-Identifier: ISC */
/*
 * etcd.h: the tools' side of the etcd backend (bin/etcd.c): messages,
 * exit statuses and the lease record, over lib/etcd.c. Linked into
 * pollguard-check, pollguard-status and pollguard-touch-curl only; the
 * latter's lease hooks (touch.h) are there too.
 */
#ifndef ETCD_H
#define ETCD_H

#include "fleet.h"
#include "lease.h"
#include "tool.h"

/*
 * pollguard-check on an etcd cluster: claim the key (or with -n only
 * read it) and record the lease. Returns the exit status: 0 go, 1 held
 * by another node, 3 etcd unreachable, 76 refused or nonsense.
 */
int	 etcd_check(struct tool *, int);

/*
 * pollguard-status: the key's holder as a node of the fleet, read from
 * etcd (elapsed: the wait less the lease's time left). n->name is NULL
 * when nobody holds the key; a failure sets n->kind and n->why.
 */
void	 etcd_fleet(const struct pg_config *, const struct pg_cluster *,
	    struct pg_fleet_node *);

#endif /* ETCD_H */
