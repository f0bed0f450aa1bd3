/* SPDX-License-Identifier: ISC */
/*
 * status.h: pollguard-status's parts. bin/pollguard-status.c has the
 * options, the asking and the table; bin/status-plugin.c is -p, one
 * cluster as a monitoring plugin sees it (over lib/plugin.c).
 */
#ifndef STATUS_H
#define STATUS_H

#include "fleet.h"
#include "proto.h"
#include "tool.h"

/* The usage, as the man page's SYNOPSIS, on stderr. */
void	 status_usage(void);

/*
 * Ask the cluster's peers and fill in f: this node first (from its state
 * directory st; NULL: none yet), then the peers in the order of the
 * config; on etcd, the key's holder. r keeps the round's answers, which
 * the nodes point into. Exits on a local failure (memory).
 */
void	 status_ask(const struct pg_config *, const struct pg_cluster *,
	    struct pg_state *, struct pg_round *, struct pg_fleet *);

/*
 * pollguard-status -p: main's -c file (or NULL), its arguments left after
 * the options, -w and -C (or NULL), and whether the options were wrong.
 * Prints the plugin's line and exits with its state (0 to 3).
 */
__dead void	 status_plugin(const char *, int, char **, const char *,
		    const char *, int);

#endif /* STATUS_H */
