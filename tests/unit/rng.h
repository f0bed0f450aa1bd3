/* SPDX-License-Identifier: ISC */
/*
 * A reproducible random source for the unit tests' random loops, header
 * only, after tap.h: splitmix64, seeded from PG_SEED or arc4random, the
 * seed printed so that PG_SEED=N replays a run.
 *
 *	rng_init(what);		seed it; "# WHATseed N (PG_SEED=N replays it)"
 *	rnd();			the next 64 bits
 *	between(lo, hi);	uniform in [lo, hi]
 *	seed			the seed, for messages
 */
#ifndef RNG_H
#define RNG_H

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

static uint64_t	 rng_state, seed;

static uint64_t
rnd(void)
{
	/* splitmix64: small, good enough, reproducible from the seed. */
	uint64_t	 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int64_t TAP_UNUSED
between(int64_t lo, int64_t hi)
{
	return hi <= lo ? lo : lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static void
rng_init(const char *what)
{
	const char	*env;

	if ((env = getenv("PG_SEED")) != NULL)
		seed = strtoull(env, NULL, 0);
	else
		seed = ((uint64_t)arc4random() << 32) | arc4random();
	rng_state = seed;
	diag("%sseed %" PRIu64 " (PG_SEED=%" PRIu64 " replays it)", what,
	    seed, seed);
}

#endif /* RNG_H */
