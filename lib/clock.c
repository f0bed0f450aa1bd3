/* SPDX-License-Identifier: ISC */
/*
 * clock.c: the one place that reads the clocks. Callers check failure: a
 * decision taken on a clock that could not be read is no decision.
 */
#include <errno.h>
#include <time.h>

#include "base.h"

int
pg_clock(clockid_t id, int64_t *ns)
{
	struct timespec	 ts;

	if (clock_gettime(id, &ts) == -1)
		return -1;
	if (ts.tv_sec < 0 || ts.tv_sec > INT64_MAX / 1000000000 - 1) {
		errno = ERANGE;
		return -1;
	}
	*ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return 0;
}
