/* SPDX-License-Identifier: ISC */
/* etcd.h: the tools' side of the etcd backend; touch.h's lease hooks too. */
#ifndef ETCD_H
#define ETCD_H

#include "fleet.h"
#include "lease.h"
#include "tool.h"

/* pollguard-check: claim the key (-n: read it); the exit status. */
int	 etcd_check(struct tool *, int);

/*
 * pollguard-status: the key's holder as a fleet node (n->name NULL: none);
 * a failure sets n->kind and n->why.
 */
void	 etcd_fleet(const struct pg_config *, const struct pg_cluster *,
	    struct pg_fleet_node *);

#endif /* ETCD_H */
