/*
 * local.c: this node's status of a cluster, from its state directory.
 * pollguard-serve answers it to peers (GET /v1/status/CLUSTER), and
 * pollguard-check and pollguard-status read it for this node itself, so
 * both sides see the same thing.
 */
#include <errno.h>
#include <string.h>

#include "pollguard.h"

int
pg_status_local(struct pg_state *st, const struct pg_cluster *c,
    const char *node, struct pg_status *s)
{
	struct pg_stamp	 rec, now;
	int		 r;

	pg_status_init(s);
	strlcpy(s->cluster, c->id, sizeof(s->cluster));
	strlcpy(s->node, node, sizeof(s->node));
	strlcpy(s->version, PG_VERSION, sizeof(s->version));
	if (pg_stamp_now(&now) == -1)
		return -1;
	if (st == NULL)
		return 0;
	if ((r = pg_state_read(st, c->id, &rec)) == -1)
		return -1;
	if (r == 1) {
		s->elapsed_ms = pg_record_elapsed(&rec, &now);
		if (pg_stamp_in_horizon(&rec, &now))
			s->claim_ms = s->elapsed_ms;
	}
	return 0;
}
