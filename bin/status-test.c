/* SPDX-License-Identifier: ISC */
/*
 * status-test.c: pollguard-status -t, the fleet check (pollguard-status(1),
 * FLEET CHECK): does every peer answer, as the node its section names,
 * with the settings, a version and a clock that this node can share a
 * cluster with?
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decide.h"
#include "status.h"

#define MS	1000000LL	/* ns */

/* What -t found so far: problems (exit 1) and what it could not compare. */
struct tally {
	const char	*cluster;
	const char	*node;
	int		 problems;
	int		 notes;
};

/* One line on stdout, "CLUSTER: NODE: ..."; a problem unless note. */
static void
say(struct tally *t, int note, const char *fmt, ...)
	__attribute__((__format__(__printf__, 3, 4)));
static void
say(struct tally *t, int note, const char *fmt, ...)
{
	va_list	 ap;

	printf("%s: %s: ", t->cluster, t->node);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (note)
		t->notes++;
	else
		t->problems++;
}

/* A duration setting: "settle is 1s here, 500ms on b". */
static void
differs_ms(struct tally *t, const char *key, int64_t mine, int64_t its)
{
	char	 a[PG_DURATION_MAX], b[PG_DURATION_MAX];

	if (mine != its)
		say(t, 0, "%s is %s here, %s on %s", key,
		    pg_duration_text(mine, a), pg_duration_text(its, b),
		    t->node);
}

static void
differs_word(struct tally *t, const char *key, const char *mine,
    const char *its)
{
	if (strcasecmp(mine, its) != 0)
		say(t, 0, "%s is %s here, %s on %s", key,
		    mine[0] != '\0' ? mine : "none",
		    its[0] != '\0' ? its : "none", t->node);
}

/* major.minor of a version; 0 when it is not one. */
static int
version_of(const char *v, unsigned int *major, unsigned int *minor)
{
	return sscanf(v, "%u.%u", major, minor) == 2;
}

/*
 * The settings every node of a cluster shares (doc/PROTOCOL.md, the 0.5
 * keys; settle and timeout only from a node with a state directory).
 */
static void
settings(struct tally *t, const struct pg_config *cfg,
    const struct pg_cluster *c, const struct pg_status *st)
{
	if (st->wait_ms >= 0) {
		differs_ms(t, "wait", c->wait_ms, st->wait_ms);
		differs_word(t, "on_failure", c->on_failure ==
		    PG_ON_FAILURE_STAY ? "stay" : "handover", st->on_failure);
		differs_word(t, "backend", c->backend == PG_BACKEND_ETCD ?
		    "etcd" : "peers", st->backend);
	} else
		say(t, 1, "cannot compare wait, on_failure and backend: %s is "
		    "%s", t->node, st->version[0] != '\0' ? st->version :
		    "before 0.5");
	if (st->deciding >= 0) {
		differs_ms(t, "settle", cfg->settle_ms, st->settle_ms);
		differs_ms(t, "timeout", cfg->timeout_ms, st->timeout_ms);
	} else
		say(t, 1, "cannot compare settle and timeout: %s has no state "
		    "directory yet (it has never checked)", t->node);
	differs_word(t, "prefer", c->prefer, st->prefer);
}

/*
 * Clocks (doc/SAFETY.md, 3): a bound beyond what the rule counts, this
 * node's beyond what a peer before 0.5 allows, or rates that leave a
 * round that takes its timeouts no room before a peer's claim horizon.
 */
static void
clocks(struct tally *t, const struct pg_config *cfg, const struct pg_seen *s,
    int64_t own)
{
	int64_t	 h, r, room, round;

	if (s->has_status && s->status.rate_ppm > PG_RATE_MAX) {
		say(t, 0, "its clock runs at up to %" PRId64 " ppm, beyond the "
		    "%d ppm the settle round allows for", s->status.rate_ppm,
		    PG_RATE_MAX);
		return;
	}
	if (!(s->has_status && s->status.rate_ppm >= 0) &&
	    pg_rate_counted(own) > PG_RATE_OLD) {
		say(t, 0, "this node's clock runs at up to %" PRId64 " ppm, "
		    "more than %s (no rate: before 0.5) allows for: this node "
		    "withdraws every claim beside it; slew at most 500 ppm "
		    "until every node runs 0.5", pg_rate_counted(own), t->node);
		return;
	}
	if (cfg->settle_ms == 0)
		return;
	r = pg_rate_counted(own) + pg_peer_rate(s);
	h = pg_claim_horizon(cfg->timeout_ms, cfg->settle_ms);
	round = 2 * cfg->timeout_ms * MS + pg_settle_sleep_ns(cfg->settle_ms,
	    r) + (pg_peer_fast(s) ? 0 : pg_settle_old_ns(cfg->settle_ms) *
	    101 / 100);
	room = h * MS - cfg->settle_ms * MS / 4 - 50 * MS - h * r;
	if (round > room)
		say(t, 0, "clocks at up to %" PRId64 " ppm there and %" PRId64
		    " ppm here leave a round that takes its timeouts no time "
		    "before the claim horizon: such rounds withdraw their "
		    "claims", pg_peer_rate(s), pg_rate_counted(own));
}

/* One peer's answer, as test_cluster asked it. */
static void
test_peer(struct tally *t, const struct pg_config *cfg,
    const struct pg_cluster *c, const struct pg_peer *p,
    const struct pg_seen *s, int64_t own)
{
	const struct pg_status	*st = &s->status;
	unsigned int		 major, minor;

	t->node = p->name;
	switch (s->answer.kind) {
	case PG_ANSWER_ELAPSED:
	case PG_ANSWER_NEVER:
		break;
	case PG_ANSWER_UNREACHABLE:
		say(t, 0, "unreachable at %s: %s", p->url, s->why);
		return;
	case PG_ANSWER_SELF:
		say(t, 0, "%s answers as this node, %s: fix the url of [peer "
		    "%s]", p->url, cfg->node, p->name);
		return;
	default:
		say(t, 0, "%s answered %s", p->url, s->why);
		return;
	}
	if (!s->has_status) {
		say(t, 1, "cannot compare: %s shows no status (before 0.4, or "
		    "a proxy that passes only /v1/elapsed/): its name, version "
		    "and settings are not known", p->name);
		clocks(t, cfg, s, own);
		return;
	}
	if (st->node[0] != '\0' && strcasecmp(st->node, p->name) != 0) {
		say(t, 0, "%s answers as node %s: fix the url of [peer %s]",
		    p->url, st->node, p->name);
		return;
	}
	if (st->version[0] == '\0')
		say(t, 1, "cannot compare versions: %s does not say its own",
		    p->name);
	else if (!version_of(st->version, &major, &minor) || major != 0 ||
	    minor < 3) {
		say(t, 0, "version %s cannot share a cluster with this "
		    "node's %s (pollguard(7), COMPATIBILITY)", st->version,
		    PG_VERSION);
		return;
	}
	settings(t, cfg, c, st);
	clocks(t, cfg, s, own);
}

/* Ask c's peers, compare; the peers asked into *npeers. */
static void
test_cluster(struct tally *t, const struct pg_config *cfg,
    const struct pg_cluster *c, int64_t own, size_t *npeers)
{
	struct pg_round	 r;
	size_t		 i;

	t->cluster = c->id;
	if (c->npeers == 0)
		return;
	if (pg_peers_ask_some(cfg, c, NULL, NULL, &r) == -1)
		tool_die_errno(EX_OSERR, "asking the peers of %s", c->id);
	for (i = 0; i < r.n; i++)
		test_peer(t, cfg, c, &cfg->peers[c->peers[i]], &r.seen[i],
		    own);
	*npeers += r.n;
	pg_round_free(&r);
}

int
status_test(const struct pg_config *cfg, const struct pg_cluster *only)
{
	struct tally	 t;
	size_t		 i, n = 0, nc = only != NULL ? 1 : cfg->nclusters;
	int64_t		 own;

	memset(&t, 0, sizeof(t));
	/* Not read: the oscillator's alone, as a peer would count it. */
	if (pg_clock_rate(&own) == -1)
		own = -1;
	for (i = 0; i < nc; i++)
		test_cluster(&t, cfg, only != NULL ? only : &cfg->clusters[i],
		    own, &n);
	if (t.problems == 0)
		printf("ok: %zu cluster%s, %zu peer%s agree with this node%s\n",
		    nc, nc == 1 ? "" : "s", n, n == 1 ? "" : "s", t.notes > 0 ?
		    ", where they could be compared" : "");
	if (fflush(stdout) == EOF)
		tool_die_errno(EX_IOERR, "stdout");
	return t.problems > 0;
}
