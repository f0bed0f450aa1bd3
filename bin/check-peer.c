/* SPDX-License-Identifier: ISC */
/* check-peer.c: what a check says of a peer (bin/check-peer.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "decide.h"
#include "check-peer.h"

void
peer_unreachable(struct tool *t, const struct pg_peer *p,
    const struct pg_seen *s, const char *again)
{
	const struct pg_cluster	*c = t->cluster;
	struct tool		 loud = *t;
	int			 cron = 0;

	/*
	 * Under cron, which mails what a job prints, and not only to syslog:
	 * the first time, then once an hour (pollguard-check(1), -q, -v).
	 */
	if (!t->quiet && !t->verbose && !isatty(STDERR_FILENO) &&
	    pg_unreachable_due(&t->state, c->id, p->name,
	    PEER_LOUD_EVERY_MS) != 0)
		loud.verbose = cron = 1;
	tool_warn(&loud, "cluster %s: %speer %s (%s) unreachable: %s; %s; "
	    "'pollguard-status -t' checks the fleet%s", c->id, again, p->name,
	    p->url, s->why, c->unreachable == PG_UNREACHABLE_SKIP ?
	    "skipping the round (unreachable = skip)" : "counts as never: "
	    "this node may poll beside it", cron ? " (said once an hour)" :
	    "");
}

void
peers_answered(struct tool *t, const struct pg_round *r)
{
	const char	*names[PG_PEERS_MAX];
	size_t		 i, n = 0;

	for (i = 0; i < r->n && n < PG_PEERS_MAX; i++)
		if (r->seen[i].answer.kind != PG_ANSWER_UNREACHABLE)
			names[n++] = r->seen[i].name;
	if (pg_unreachable_clear(&t->state, t->cluster->id, names, n,
	    PEER_LOUD_EVERY_MS) == -1)
		tool_warn(t, "cluster %s: the record of unreachable peers: "
		    "%s", t->cluster->id, strerror(errno));
}

const char *
peer_no_rule(const struct pg_seen *s)
{
	if (!PG_ANSWER_OK(s->answer.kind))
		return "did not answer";
	return s->has_status ? "has no state directory yet (it has never "
	    "checked)" : "shows no status (before 0.4, or a proxy)";
}
