#include <string.h>
#include <strings.h>

#include "pollguard.h"

void
pg_decide(int64_t wait_ms, enum pg_unreachable policy, int local_run,
    const struct pg_answer *ans, size_t n, struct pg_decision *d)
{
	size_t	 i, invalid = n, unreachable = n;

	d->verdict = PG_GO;
	d->standalone = 0;
	d->peer = 0;
	if (local_run) {
		d->verdict = PG_SKIP_LOCAL;
		return;
	}
	for (i = 0; i < n; i++) {
		switch (ans[i].kind) {
		case PG_ANSWER_ELAPSED:
			/* Strict, as in the reference: equal allows. */
			if (ans[i].elapsed_ms < wait_ms) {
				d->verdict = PG_SKIP_ACTIVE;
				d->peer = i;
				return;
			}
			break;
		case PG_ANSWER_NEVER:
			break;
		case PG_ANSWER_UNREACHABLE:
			if (unreachable == n)
				unreachable = i;
			break;
		default:
			if (invalid == n)
				invalid = i;
			break;
		}
	}
	if (invalid < n) {
		d->verdict = PG_REFUSE_INVALID;
		d->peer = invalid;
	} else if (unreachable < n && policy == PG_UNREACHABLE_SKIP) {
		d->verdict = PG_SKIP_UNREACHABLE;
		d->peer = unreachable;
	} else
		d->standalone = n == 0;
}

int64_t
pg_claim_horizon(int64_t timeout_ms, int64_t settle_ms)
{
	return 2 * timeout_ms + settle_ms + settle_ms / 2 + 1000;
}

/*
 * See pollguard(7), "Claim and settle", for why this is safe. In short:
 * a node keeps its claim only when it is sure to beat every claim it
 * sees, and the relation "beats" is one-sided for any two claims, so two
 * nodes that saw each other cannot both keep theirs. A claim a node did
 * not see landed after that node settled, more than settle/4 later than
 * its own, and loses to it.
 */
enum pg_verdict
pg_settle(const struct pg_claim *c, int64_t wait_ms,
    enum pg_unreachable policy, const struct pg_seen *seen, size_t n,
    enum pg_settle_why *why, size_t *peer)
{
	const int64_t	 ms = 1000000;
	int64_t		 window = c->settle_ms * ms / 4, lo;
	size_t		 i, invalid = n, unreachable = n;

	*peer = 0;
	if (c->visible_ns - c->claim_ns > window) {
		*why = PG_LOST_SLOW_WRITE;
		return PG_SKIP_ACTIVE;
	}
	if (c->end_ns - c->start_ns > c->horizon_ms * ms - window - 50 * ms) {
		*why = PG_LOST_SLOW_ROUND;
		return PG_SKIP_ACTIVE;
	}
	for (i = 0; i < n; i++) {
		switch (seen[i].answer.kind) {
		case PG_ANSWER_ELAPSED:
			break;
		case PG_ANSWER_NEVER:
			continue;
		case PG_ANSWER_UNREACHABLE:
			if (seen[i].answered) {
				*peer = i;
				*why = PG_LOST_VANISHED;
				return PG_SKIP_ACTIVE;
			}
			if (unreachable == n)
				unreachable = i;
			continue;
		default:
			if (invalid == n)
				invalid = i;
			continue;
		}
		if (seen[i].answer.elapsed_ms >= wait_ms)
			continue;
		/* When the peer claimed, relative to our claim: lo..hi. */
		lo = seen[i].sent_ns - (seen[i].answer.elapsed_ms + 1) * ms -
		    c->claim_ns;
		if (lo > window || (lo >= -window &&
		    strcasecmp(c->node, seen[i].name) < 0))
			continue;
		*peer = i;
		*why = lo < -window ? PG_LOST_EARLIER : PG_LOST_NAME;
		return PG_SKIP_ACTIVE;
	}
	if (invalid < n) {
		*peer = invalid;
		*why = PG_LOST_INVALID;
		return PG_REFUSE_INVALID;
	}
	if (unreachable < n && policy == PG_UNREACHABLE_SKIP) {
		*peer = unreachable;
		*why = PG_LOST_UNREACHABLE;
		return PG_SKIP_UNREACHABLE;
	}
	*why = PG_KEEP;
	return PG_GO;
}
