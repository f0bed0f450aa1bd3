/* SPDX-License-Identifier: ISC */
/* prefer.c: the preferred node, pure like decide.c (doc/PREFER.md). */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "decide.h"

#define MS	1000000LL	/* ns */

/* The position of name in the comma-separated list, or INT_MAX. */
static int
position(const char *list, const char *name)
{
	size_t	 n, len = strlen(name);
	int	 i;

	for (i = 0; *list != '\0'; i++) {
		n = strcspn(list, ",");
		if (n == len && strncasecmp(list, name, len) == 0)
			return i;
		list += n + (list[n] == ',');
	}
	return INT_MAX;
}

int
pg_prefer_before(const struct pg_cluster *c, const char *a, const char *b)
{
	int	 ia = position(c->prefer, a), ib = position(c->prefer, b);

	if (ia != ib)
		return ia < ib;
	return strcasecmp(a, b) < 0;
}

int
pg_answered(const struct pg_seen *s)
{
	return s->answer.kind == PG_ANSWER_ELAPSED ||
	    s->answer.kind == PG_ANSWER_NEVER;
}

size_t
pg_prefer_disagree(const struct pg_cluster *c, const struct pg_seen *seen,
    size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (pg_answered(&seen[i]) && strcasecmp(seen[i].has_status ?
		    seen[i].status.prefer : "", c->prefer) != 0)
			return i;
	return n;
}

int
pg_prefer_eligible(const struct pg_cluster *c, const struct pg_seen *s)
{
	const struct pg_status	*st = &s->status;

	return pg_answered(s) && s->has_status && c->prefer[0] != '\0' &&
	    strcasecmp(st->prefer, c->prefer) == 0 &&
	    st->checked_ms < c->wait_ms + c->prefer_slack_ms &&
	    !(c->on_failure == PG_ON_FAILURE_HANDOVER &&
	    pg_status_cooldown(st, c->cooldown_ms));
}

int
pg_prefer_healthy(const struct pg_cluster *c, const struct pg_seen *s)
{
	return pg_prefer_eligible(c, s) && s->status.checking_ms >= 0 &&
	    s->status.checking_ms >= c->failback_after_ms;
}

/* A check of an earlier boot is negative: only differences matter. */
int64_t
pg_prefer_prev_check(const struct pg_status *own)
{
	if (own == NULL || own->at_ns <= 0 || own->checked_ms == PG_NEVER ||
	    own->checked_ms > INT64_MAX / MS / 4)
		return INT64_MIN;
	return own->at_ns - own->checked_ms * MS;
}

/* doc/PREFER.md, rule 4 and "Why no round is doubled, lost or run twice". */
int
pg_yield_ignores(const char *node, int64_t prev_ns, int64_t slack_ms,
    const struct pg_seen *s)
{
	const struct pg_status	*st = &s->status;

	return prev_ns != INT64_MIN && s->has_status &&
	    s->answer.kind == PG_ANSWER_ELAPSED &&
	    st->yielded_ms <= INT64_MAX / MS / 4 &&
	    st->yield[0] != '\0' && strcasecmp(st->yield, node) == 0 &&
	    !st->running && st->claim_ms < 0 &&
	    st->last && st->last_end_ms < st->yielded_ms &&
	    st->last_duration_ms < st->yielded_ms - st->last_end_ms &&
	    st->last_end_ms - st->elapsed_ms <= PG_HANDOVER_SLACK_MS &&
	    s->recv_ns - st->yielded_ms * MS <= prev_ns + slack_ms * MS;
}

/* doc/PREFER.md, "The rules", 1 to 3. */
enum pg_reason
pg_prefer_decide(const struct pg_cluster *c, const char *node,
    const struct pg_status *own, const struct pg_seen *seen, size_t n,
    struct pg_decision *d)
{
	size_t	 i, best = n;

	if (c->prefer[0] == '\0' || d->disagree < n)
		return PG_REASON_GO;
	for (i = 0; i < n; i++)
		if (pg_prefer_before(c, seen[i].name, node) &&
		    pg_prefer_eligible(c, &seen[i]) && (best == n ||
		    pg_prefer_before(c, seen[i].name, seen[best].name)))
			best = i;
	if (best == n)
		return PG_REASON_GO;
	d->prefer = best;
	if (own == NULL || own->elapsed_ms >= c->wait_ms)
		return PG_REASON_PREFERRED;
	if (!c->failback || !pg_prefer_healthy(c, &seen[best]))
		return PG_REASON_GO;
	/* A yield lasts at most two waits when that node never polls. */
	if (strcasecmp(own->yield, seen[best].name) == 0 &&
	    own->yielded_ms < 2 * c->wait_ms)
		return PG_REASON_YIELD;
	d->yield = 1;
	return PG_REASON_GO;
}

void
pg_checked_next(struct pg_checked *ck, int had, const struct pg_stamp *now,
    int64_t gap_ms, int go, const char *yield)
{
	struct pg_checked	 prev = *ck;

	if (!had || pg_stamp_elapsed(&prev.last, now) > gap_ms)
		prev.since = *now;
	memset(ck, 0, sizeof(*ck));
	ck->last = *now;
	ck->since = prev.since;
	if (go && yield != NULL) {
		strlcpy(ck->yield, yield, sizeof(ck->yield));
		ck->yielded = *now;
	} else if (!go && had && prev.yield[0] != '\0') {
		strlcpy(ck->yield, prev.yield, sizeof(ck->yield));
		ck->yielded = prev.yielded;
	}
	ck->last.claim_ns = ck->last.horizon_ms = 0;
}
