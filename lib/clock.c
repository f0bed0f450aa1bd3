/* SPDX-License-Identifier: ISC */
/*
 * clock.c: the one place that reads the clocks, and the bound on the
 * rate of this node's clock (doc/SAFETY.md, section 3). Callers check
 * failure: a decision taken on a clock that could not be read is no
 * decision.
 */
#include <sys/timex.h>

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

/* |a - b| / b in ppm, rounded up; b > 0, both far from the ends. */
static int64_t
ppm_of(int64_t a, int64_t b)
{
	int64_t	 d = llabs(a - b);

	return d > INT64_MAX / 1000000 ? PG_RATE_MAX :
	    (d * 1000000 + b - 1) / b;
}

int64_t
pg_clock_rate_of(const struct timex *tx, const struct timex *ss, long hz)
{
	int64_t	 rho = PG_RATE_BASE, tick, freq;

	/* The length of a tick against its nominal 1 s / USER_HZ. */
	if (hz > 0 && hz <= 1000000) {
		tick = tx->tick;
		rho += ppm_of(tick, 1000000 / hz);
	} else
		rho += PG_RATE_MAX;
	/* freq: ppm with a 16-bit fraction, rounded up. */
	freq = llabs((int64_t)tx->freq);
	rho += freq > INT64_MAX / 2 ? PG_RATE_MAX : (freq + 65535) / 65536;
	/* An offset slewed by the kernel's PLL or by adjtime(3). */
	if (tx->offset != 0 || (ss != NULL && ss->offset != 0))
		rho += PG_RATE_SLEW;
	return rho > PG_RATE_MAX ? PG_RATE_MAX : rho;
}

int
pg_clock_rate(int64_t *ppm)
{
	struct timex	 tx = { 0 }, ss = { 0 };
	long		 hz;

	if (adjtimex(&tx) == -1 || (hz = sysconf(_SC_CLK_TCK)) <= 0)
		return -1;
	/* Read only, so unprivileged: what adjtime(3) has left to slew. */
	ss.modes = ADJ_OFFSET_SS_READ;
	if (adjtimex(&ss) == -1)
		ss.offset = 1;		/* not known: taken as slewing */
	*ppm = pg_clock_rate_of(&tx, &ss, hz);
	return 0;
}
