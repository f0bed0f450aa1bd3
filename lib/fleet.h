/* SPDX-License-Identifier: ISC */
/*
 * fleet.h: what pollguard-status shows of a cluster across its nodes
 * (fleet.c): who would go next, the table and the JSON. Pure: no I/O.
 */
#ifndef PG_FLEET_H
#define PG_FLEET_H

#include "conf.h"
#include "decide.h"
#include "proto.h"

/*
 * One node as pollguard-status reached it, taken for what every other
 * node's check reaches too. kind: its answer (ELAPSED or NEVER: it
 * answered, st.elapsed_ms says which); self unreadable: UNREACHABLE.
 */
struct pg_fleet_node {
	const char	*name;
	int		 self;		/* this node */
	enum pg_answer_kind kind;
	int		 has_status;	/* it answered its status (0.4 on) */
	char		 why[PG_ERR_MAX];	/* why no answer, escaped */
	struct pg_status st;	/* has_status: all; else elapsed_ms */
};

/* One cluster: its nodes, this node among them. */
struct pg_fleet {
	const struct pg_cluster *cluster;
	struct pg_fleet_node *nodes;
	size_t		 n;
	size_t		 holder;	/* etcd: the key's holder; n+: none */
};

#define PG_NEXT_TEXT_MAX	(PG_STATUS_TEXT_MAX * 6)

struct pg_next {
	enum pg_reason	 reason;
	size_t		 node;
	char		 text[PG_NEXT_TEXT_MAX];
};

/*
 * Who would go next: each node's pg_decide as its check would make it now
 * (pollguard-status(1), "next"); nx->node: the node it names, n: none.
 * 0, or -1 and ENOMEM.
 */
int	 pg_fleet_next(const struct pg_fleet *, struct pg_next *);

/*
 * The table of the nf clusters for people, aligned, no trailing blanks. A
 * malloc'd string, or NULL with errno.
 */
char	*pg_fleet_table(const struct pg_fleet *, size_t);

/*
 * The same as one line of JSON (pollguard-status(1)), for this node's
 * version and name: '"' and '\' escaped with a backslash, bytes outside
 * printable ASCII as \uXXXX. A malloc'd string, or NULL with errno.
 */
char	*pg_fleet_json(const char *, const char *, const struct pg_fleet *,
	    size_t);

#endif /* PG_FLEET_H */
