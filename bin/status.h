/* SPDX-License-Identifier: ISC */
/*
 * status.h: pollguard-status's parts; bin/status-ask.c asks the nodes,
 * bin/status-plugin.c is -p.
 */
#ifndef STATUS_H
#define STATUS_H

#include "fleet.h"
#include "proto.h"
#include "tool.h"

/*
 * Fill in f (r keeps the answers it points into): this node first (st;
 * NULL: no state yet), then the peers; on etcd, the key's holder.
 */
void	 status_ask(const struct pg_config *, const struct pg_cluster *,
	    struct pg_state *, struct pg_round *, struct pg_fleet *);

/*
 * -p: main's -c, the arguments after the options, -w, -C, whether the
 * options were wrong, and the usage (printed then, on stderr). Prints the
 * plugin's line; exits with its state.
 */
__dead void	 status_plugin(const char *, int, char **, const char *,
		    const char *, int, const char *);

/*
 * -t (bin/status-test.c): ask the peers of every cluster (or only that
 * one), print a line for each problem, or one "ok" line: 1 when there
 * was a problem, else 0.
 */
int	 status_test(const struct pg_config *, const struct pg_cluster *);

/*
 * On etcd (bin/etcd.c): the key's holder as a fleet node (n->name NULL:
 * none); a failure sets n->kind and n->why.
 */
void	 etcd_fleet(const struct pg_config *, const struct pg_cluster *,
	    struct pg_fleet_node *);

#endif /* STATUS_H */
