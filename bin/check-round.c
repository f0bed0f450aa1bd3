/* SPDX-License-Identifier: ISC */
/*
 * check-round.c: asking the peers, round 1 and round 2 (doc/SAFETY.md, 1,
 * steps 2 and 5). A peer silent in round 1 while the others have answered
 * does not hold back the claim: its question stays open beside the settle
 * round (doc/SAFETY.md, 4, "A peer that does not answer").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decide.h"
#include "check.h"
#include "check-peer.h"

#define MS	1000000LL

/* Round 1 while it is asked past the claim; else NULL. */
static struct pg_asking	*asking;
static struct pg_round	*round1;
static int64_t		 deadline1;	/* its start + timeout */
static int		*silent;	/* open at the claim, then no byte */

static __dead void
failed(const struct tool *t)
{
	tool_die_errno(EX_OSERR, "asking the peers of %s", t->cluster->id);
}

static void
report(struct tool *t, const struct pg_round *r, int second)
{
	const struct pg_cluster	*c = t->cluster;
	const struct pg_peer	*p;
	const struct pg_seen	*s;
	const char		*again = second ? "again: " : "";
	char			 ago[32], wait[32], rate[80];
	size_t			 i;

	pg_duration_format(c->wait_ms, wait, sizeof(wait));
	for (i = 0; i < r->n; i++) {
		p = &t->cfg->peers[c->peers[i]];
		s = &r->seen[i];
		/* doc/SAFETY.md, 3: a clock beyond NTP's discipline. */
		rate[0] = '\0';
		if (pg_peer_rate(s) > PG_RATE_OLD)
			snprintf(rate, sizeof(rate), "; its clock's rate up to "
			    "%" PRId64 " ppm widens the bounds",
			    pg_peer_rate(s));
		switch (s->answer.kind) {
		case PG_ANSWER_ELAPSED:
			pg_duration_format(s->answer.elapsed_ms, ago,
			    sizeof(ago));
			tool_explain(t, "%s: %s%s: %s: %s %s ago (wait %s)"
			    "%s%s%s", c->id, again, p->name, s->why,
			    s->has_status && s->status.claim_ms >= 0 ?
			    "claimed" : s->answer.elapsed_ms < c->wait_ms ?
			    "active" : "idle", ago, wait, pg_handover_ignores(
			    c->on_failure, s) ? "; its last run failed: not "
			    "counted" : "", rate, s->old ? " (before 0.4)" :
			    "");
			break;
		case PG_ANSWER_NEVER:
			tool_explain(t, "%s: %s%s: never: idle%s%s", c->id,
			    again, p->name, rate, s->old ? " (before 0.4)" :
			    "");
			break;
		case PG_ANSWER_UNREACHABLE:
			peer_unreachable(t, p, s, again);
			break;
		case PG_ANSWER_SELF:
			tool_error("cluster %s: peer %s (%s) is this node, %s, "
			    "or a host of the same node name: if this host is "
			    "%s, set node = %s in [pollguard]; if not, fix the "
			    "peer's url, or that host's node", c->id, p->name,
			    p->url, t->cfg->node, p->name, p->name);
			break;
		default:
			tool_error("cluster %s: peer %s (%s) answered %s: "
			    "check its [peer %s] section and its serve's "
			    "config%s", c->id, p->name, p->url, s->why,
			    p->name, s->answer.kind == PG_ANSWER_REFUSED ?
			    " (user and password must match its [serve], and "
			    "its allow list this host)" : s->answer.kind ==
			    PG_ANSWER_UNKNOWN ? " (a wrong url, or no "
			    "[cluster] of that ID there)" : "");
			break;
		}
	}
}

/* Round 2 into *r, of round 1's (first's) peers, reported. */
static void
ask2(struct tool *t, struct pg_round *r, const struct pg_round *first)
{
	if (pg_peers_ask_some(t->cfg, t->cluster, first, NULL, r) == -1)
		failed(t);
	/* A round a signal cut short: its silent peers were not slow. */
	if (!pg_peers_stop)
		report(t, r, 1);
}

int
check_round1(struct tool *t, const struct pg_status *own, struct pg_round *r,
    int early)
{
	const struct pg_cluster	*c = t->cluster;
	struct pg_decision	 d;
	int64_t			 to = t->cfg->timeout_ms * MS;
	size_t			 i, open = 0;

	if ((asking = pg_asking_new()) == NULL ||
	    pg_asking_start(asking, t->cfg, c, NULL, NULL, r) == -1)
		failed(t);
	deadline1 = r->start_ns + to;
	early = early && c->unreachable == PG_UNREACHABLE_RUN;
	if (early && pg_asking_run(asking, r->start_ns + to /
	    CHECK_SILENT_DIV, r) == -1)
		failed(t);
	/*
	 * One peer silent, every other answered: a go counting it as never
	 * claims, and keeps asking it (two or more: wait, as before).
	 */
	for (i = 0, open = 0; early && !pg_peers_stop && i < r->n; i++)
		open += pg_asking_open(asking, r, i);
	if (open == 1 && pg_settle_disagrees(t->cfg->settle_ms,
	    t->cfg->timeout_ms, r->seen, r->n) == r->n) {
		pg_decide(c, t->cfg->node, own, 0, r->seen, r->n, &d);
		if (d.verdict == PG_GO) {
			if ((silent = calloc(r->n + 1, sizeof(*silent))) ==
			    NULL)
				failed(t);
			for (i = 0; i < r->n; i++)
				silent[i] = pg_asking_open(asking, r, i);
			for (i = 0; !silent[i]; i++)
				;
			tool_explain(t, "%s: %s has not answered in %" PRId64
			    "ms, and no other peer is waited for: claiming "
			    "now; its question stays open until round 1's "
			    "timeout",
			    c->id, r->seen[i].name, t->cfg->timeout_ms /
			    CHECK_SILENT_DIV);
			round1 = r;
			return 1;
		}
	}
	if (pg_asking_run(asking, deadline1, r) == -1 ||
	    pg_asking_end(asking, r) == -1)
		failed(t);
	pg_asking_free(asking);
	asking = NULL;
	if (!pg_peers_stop) {
		report(t, r, 0);
		peers_answered(t, r);
	}
	return 0;
}

int
check_wait(int64_t ns)
{
	int64_t	 now, until;

	if (round1 == NULL || pg_clock(CLOCK_BOOTTIME, &now) == -1)
		return 0;
	/*
	 * pg_asking_run returns before until only on a signal or when
	 * libcurl fails: then the caller sleeps ns, longer than needed.
	 */
	until = now + ns;
	if (pg_asking_run(asking, until, NULL) == -1 ||
	    pg_clock(CLOCK_BOOTTIME, &now) == -1)
		return 0;
	return now >= until || pg_peers_stop;
}

int
check_round2(struct tool *t, struct pg_round *r, struct pg_round *first)
{
	size_t	 i;

	if (round1 == NULL) {
		ask2(t, r, first);
		return 0;
	}
	if (pg_asking_start(asking, t->cfg, t->cluster, first, NULL, r) ==
	    -1 || pg_asking_run(asking, deadline1, first) == -1 ||
	    pg_asking_end(asking, first) == -1)
		failed(t);
	/* Nothing came for the whole timeout: it had its timeout. */
	for (i = 0; i < first->n; i++)
		silent[i] = silent[i] &&
		    first->seen[i].answer.kind == PG_ANSWER_UNREACHABLE &&
		    !pg_asking_heard(asking, first, i);
	if (!pg_peers_stop) {
		report(t, first, 0);
		peers_answered(t, first);
	}
	return 1;
}

void
check_round2_end(struct tool *t, struct pg_round *r)
{
	int64_t	 to = t->cfg->timeout_ms * MS, cut, now;
	size_t	 i;

	/* Silent since round 1: asked again until its timeout, or T/4. */
	cut = r->start_ns + to / CHECK_SILENT_DIV;
	if (cut < deadline1)
		cut = deadline1;
	for (i = 0; i < r->n; i++)
		if (silent[i])
			break;
	if (i < r->n) {
		if (pg_asking_run(asking, cut, r) == -1 ||
		    pg_clock(CLOCK_BOOTTIME, &now) == -1)
			failed(t);
		for (i = 0; i < r->n; i++)
			if (silent[i] && pg_asking_open(asking, r, i)) {
				pg_asking_drop(asking, r, i, now);
				snprintf(r->seen[i].why, PG_WHY_MAX, "timed "
				    "out, silent since round 1");
			}
	}
	if (pg_asking_run(asking, r->start_ns + to, r) == -1 ||
	    pg_asking_end(asking, r) == -1)
		failed(t);
	check_round2_abort();
	if (!pg_peers_stop)
		report(t, r, 1);
}

void
check_round2_abort(void)
{
	pg_asking_free(asking);
	asking = NULL;
	round1 = NULL;
	free(silent);
	silent = NULL;
}

size_t
check_disagrees(const struct tool *t, const struct pg_round *r, char *text,
    size_t len)
{
	size_t	 i;

	if ((i = pg_settle_disagrees(t->cfg->settle_ms, t->cfg->timeout_ms,
	    r->seen, r->n)) < r->n)
		snprintf(text, len, "peer %s announces settle %" PRId64 "ms "
		    "and timeout %" PRId64 "ms, this node settle %" PRId64
		    "ms and timeout %" PRId64 "ms: settle and timeout must be "
		    "the same on every node of a cluster", r->seen[i].name,
		    r->seen[i].status.settle_ms, r->seen[i].status.timeout_ms,
		    t->cfg->settle_ms, t->cfg->timeout_ms);
	return i;
}

int
check_late(struct tool *t, const struct pg_status *own,
    const struct pg_decision *d0, const struct pg_round *r, char *text,
    size_t len)
{
	struct pg_decision	 d;

	if (check_disagrees(t, r, text, len) < r->n)
		return -1;
	pg_decide(t->cluster, t->cfg->node, own, 0, r->seen, r->n, &d);
	if (d.disagree < r->n && d0->disagree >= r->n)
		check_disagree(t, &r->seen[d.disagree]);
	pg_decision_text(&d, t->cluster, own, r->seen, r->n, text, len);
	/* The preference recorded before the claim (doc/PREFER.md, 3). */
	if (d.verdict == PG_GO && (d.yield != d0->yield ||
	    (d.yield && d.prefer != d0->prefer))) {
		snprintf(text, len, "skip: a late answer in round 1 changes "
		    "whom this node yields to");
		return PG_SKIP_ACTIVE;
	}
	return d.verdict;
}
