/* SPDX-License-Identifier: ISC */
/*
 * fleet.h: what pollguard-status shows of a cluster across its nodes
 * (fleet.c): which node would go next, and the table and JSON it prints.
 * Pure: no I/O; the tool fills in one struct pg_fleet per cluster.
 */
#ifndef PG_FLEET_H
#define PG_FLEET_H

#include "conf.h"
#include "decide.h"
#include "proto.h"

/*
 * One node as pollguard-status reached it, which is taken for what the
 * check of every other node reaches too. kind: its answer, as in a
 * check's round (ELAPSED or NEVER: it answered, and which one is
 * st.elapsed_ms's to say). This node (self) is read from its state
 * directory: when its record cannot be read, kind is UNREACHABLE, what
 * the 500 its serve answers then is to its peers' checks.
 */
struct pg_fleet_node {
	const char	*name;
	int		 self;		/* this node */
	enum pg_answer_kind kind;
	int		 has_status;	/* it answered its status (0.4 on) */
	char		 why[PG_ERR_MAX];	/* why it did not answer, for
						   people, escaped; or "" */
	struct pg_status st;	/* has_status: all of it; else, when it
				   answered (before 0.4), elapsed_ms only;
				   else pg_status_init */
};

/* One cluster: its nodes, this node among them. */
struct pg_fleet {
	const struct pg_cluster *cluster;	/* its config: the rule */
	struct pg_fleet_node *nodes;
	size_t		 n;
	size_t		 holder;	/* backend etcd: the node whose lease
					   holds the key; n or more: none */
};

#define PG_NEXT_TEXT_MAX	(PG_STATUS_TEXT_MAX * 6)

struct pg_next {
	enum pg_reason	 reason;
	size_t		 node;		/* the node it names; n: none */
	char		 text[PG_NEXT_TEXT_MAX];	/* for people */
};

/*
 * Who would go next: the decision each node's pollguard-check makes
 * now (pg_decide's round 1, as bin/pollguard-check.c calls it), from its
 * own status and what the others show. A run going, a check deciding or
 * a claim kept on a node makes its check skip (LOCAL). A node before
 * 0.4 decides as 0.3 did: pg_decide without its own status, the others'
 * unseen, no prefer; that a run is going there is not seen (a run keeps
 * its node active). A node that did not answer is not predicted (taken
 * for down), nor is one whose checks have not run within wait and
 * prefer_slack by its status (its cron does not run). Then, nx->reason:
 * - GO, no node: two checks or more would go; the race closure picks one.
 * - ACTIVE: node was active within wait, and no other check would go;
 *   its check would go, or a run, a claim or a check is going on there
 *   (before 0.4: its run, not seen).
 * - PREFERRED, or GO: node's check alone would go; PREFERRED when prefer
 *   is applied.
 * - no check would go: HELD (the node with the longest hold), INVALID
 *   (this node cannot read its own record, or checks refuse for the
 *   node's answer), UNREACHABLE (checks skip for it, unreachable =
 *   skip), ACTIVE (a run, claim or check going on node, active within
 *   wait, keeps it polling), else EACH (each check skips for a reason of
 *   its own: the text lists them).
 * With backend = etcd, etcd orders the claims: the holder goes again
 * (ACTIVE), nobody while etcd does not answer (UNREACHABLE, INVALID),
 * otherwise anyone (GO). 0, or -1 and ENOMEM.
 */
int	 pg_fleet_next(const struct pg_fleet *, struct pg_next *);

/*
 * The table for people: a header, a line per node of each cluster and a
 * "next" line per cluster, in aligned columns, no trailing blanks. A
 * malloc'd string, or NULL with errno.
 */
char	*pg_fleet_table(const struct pg_fleet *, size_t);

/*
 * The same as one JSON object and a newline (pollguard-status(1) has the
 * schema): version and node are this node's. Strings are escaped: '"',
 * '\\', control characters and bytes above 0x7e as \uXXXX. A malloc'd
 * string, or NULL with errno.
 */
char	*pg_fleet_json(const char *, const char *, const struct pg_fleet *,
	    size_t);

#endif /* PG_FLEET_H */
