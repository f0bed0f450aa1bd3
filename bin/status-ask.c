/* SPDX-License-Identifier: ISC */
/*
 * status-ask.c: pollguard-status's question to a cluster's nodes
 * (status.h, status_ask), for the table and for -p (bin/status-plugin.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "status.h"

/* A peer as the round saw it (before 0.4: its activity only). */
static void
peer_node(const struct pg_seen *s, struct pg_fleet_node *n)
{
	n->name = s->name;
	n->kind = s->answer.kind;
	pg_status_init(&n->st);
	if (!PG_ANSWER_OK(n->kind))
		strlcpy(n->why, s->why, sizeof(n->why));
	else if (s->has_status) {
		n->has_status = 1;
		n->st = s->status;
	} else
		n->st.elapsed_ms = s->answer.kind == PG_ANSWER_NEVER ?
		    PG_NEVER : s->answer.elapsed_ms;
}

/* This node as its serve tells a peer (a damaged record: unreachable). */
static void
self_node(const struct pg_config *cfg, const struct pg_cluster *c,
    struct pg_state *st, struct pg_fleet_node *n)
{
	n->name = cfg->node;
	n->self = 1;
	n->kind = PG_ANSWER_ELAPSED;
	n->has_status = pg_status_serve(st, cfg, c, &n->st) == 0;
	if (n->has_status)
		return;
	n->kind = PG_ANSWER_UNREACHABLE;
	if (errno == EBADMSG)
		snprintf(n->why, sizeof(n->why), "its state record %.300s/%s "
		    "is not valid; 'pollguard-touch %s' replaces it",
		    st->path, c->id, c->id);
	else
		snprintf(n->why, sizeof(n->why), "its state record %.300s/%s:"
		    " %s", st != NULL ? st->path : cfg->state, c->id,
		    st != NULL ? pg_state_strerror(st, errno) :
		    strerror(errno));
	pg_status_init(&n->st);
}

void
status_ask(const struct pg_config *cfg, const struct pg_cluster *c,
    struct pg_state *st, struct pg_round *r, struct pg_fleet *f)
{
	size_t	 i;

	memset(r, 0, sizeof(*r));
	if (c->npeers > 0 && pg_peers_ask_some(cfg, c, NULL, NULL, r) == -1)
		tool_die_errno(EX_OSERR, "asking the peers of %s", c->id);
	f->cluster = c;
	f->n = r->n + 1;
	/* One more: on etcd (no peers), the key's holder, zeroed. */
	if ((f->nodes = calloc(f->n + 1, sizeof(*f->nodes))) == NULL)
		tool_die_errno(EX_OSERR, "memory");
	self_node(cfg, c, st, &f->nodes[0]);
	for (i = 0; i < r->n; i++)
		peer_node(&r->seen[i], &f->nodes[i + 1]);
	if (c->backend != PG_BACKEND_ETCD)
		return;
	etcd_fleet(cfg, c, &f->nodes[1]);
	f->holder = 2;			/* none */
	if (f->nodes[1].name == NULL)	/* nobody holds the key */
		return;
	if (strcasecmp(f->nodes[1].name, cfg->node) == 0) {
		f->holder = 0;
		return;
	}
	f->n = 2;
	if (PG_ANSWER_OK(f->nodes[1].kind))
		f->holder = 1;
}
