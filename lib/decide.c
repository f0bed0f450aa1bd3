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
