/* SPDX-License-Identifier: ISC */
/*
 * check-side.c: what a check records for the prefer order (pollguard(7),
 * PREFERRED NODE; .CLUSTER.side), and says of a peer that orders by
 * another.
 */
#include <errno.h>
#include <string.h>

#include "decide.h"
#include "check.h"

/* This check's record before it (had: there was one) and its start. */
static struct pg_checked	 side_prev;
static struct pg_stamp		 side_start;
static int			 side_had = -1;	/* -1: not recorded */

/* Write this check's record: the one before it, then this check's. */
static void
side_write(struct tool *t, int go, const char *yield)
{
	const struct pg_cluster	*c = t->cluster;
	struct pg_checked	 ck = side_prev;

	pg_checked_next(&ck, side_had, &side_start,
	    c->wait_ms + c->prefer_slack_ms, go, yield);
	if (pg_checked_write(&t->state, c->id, &ck) == -1)
		tool_warn(t, "cannot record the check in %s/.%s.side: %s",
		    t->state.path, c->id, tool_strerror(errno));
}

void
check_checked(struct tool *t, const struct pg_stamp *start, int go,
    const char *yield)
{
	const struct pg_cluster	*c = t->cluster;

	if (c->prefer[0] == '\0')	/* only prefer reads it */
		return;
	if ((side_had = pg_checked_read(&t->state, c->id, &side_prev)) == -1)
		side_had = 0;
	side_start = *start;
	side_write(t, go, yield);
}

void
check_unchecked(struct tool *t)
{
	if (side_had != -1)
		side_write(t, 0, NULL);
}

void
check_disagree(const struct tool *t, const struct pg_seen *s)
{
	struct tool	 loud = *t;
	char		 its[PG_VALUE_MAX + 2], mine[PG_VALUE_MAX + 2];

	loud.verbose = 1;
	tool_warn(&loud, "cluster %s: peer %s announces prefer %s, this node "
	    "%s: prefer is not applied until they agree", t->cluster->id,
	    s->name, s->has_status ? tool_order(its, sizeof(its),
	    s->status.prefer) : "none (no status: before 0.4, or a proxy)",
	    tool_order(mine, sizeof(mine), t->cluster->prefer));
}
