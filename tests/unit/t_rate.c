/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the clocks' rates (doc/SAFETY.md, section 3): the bound
 * pg_clock_rate_of reads from adjtimex(2)'s fields, and each bound of the
 * settle round that compares two clocks, widened by R, this node's bound
 * and the peer's: the lower bound of a peer's claim, the round-2
 * deadline against the claim horizon, the sleep before round 2, and the
 * refusal beside a peer before 0.5. The property tests run clocks at any
 * rate within their bounds, up to chrony's maxslewrate (83,333 ppm) on
 * one node, and require that no bound is ever wrong; they are
 * randomized and reproducible (PG_SEED=N replays a run).
 */
#include <sys/timex.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"
#include "rng.h"

#define MS	1000000LL		/* nanoseconds */
#define SEC	(1000 * MS)
#define WAIT	(10 * 60 * 1000LL)	/* ms */
#define CLAIM	(1000 * SEC)
#define SETTLE	500LL
#define TIMEOUT	2000LL
#define W	(SETTLE * MS / 4)
#define HORIZON	5750LL
#define SLEW	83333LL			/* chrony's maxslewrate, ppm */

static int	 pend[4];

static int64_t
rate_of(long tick, long freq, long offset, long ss_offset, long hz)
{
	struct timex	 tx, ss;

	memset(&tx, 0, sizeof(tx));
	memset(&ss, 0, sizeof(ss));
	tx.tick = tick;
	tx.freq = freq;
	tx.offset = offset;
	ss.offset = ss_offset;
	return pg_clock_rate_of(&tx, &ss, hz);
}

static void
test_rate_of(void)
{
	struct timex	 tx;
	int64_t		 ppm;

	is_int(rate_of(10000, 0, 0, 0, 100), 500, "nominal tick, no freq, no "
	    "offset: the oscillator's 500 ppm");
	is_int(rate_of(9600, 0, 0, 0, 100), 40500, "tick 9600 of 10000: 4 %% "
	    "slow, 40000 ppm more");
	is_int(rate_of(10400, 0, 0, 0, 100), 40500, "tick 10400: 4 %% fast");
	is_int(rate_of(9167, 0, 0, 0, 100), 83800, "tick 9167: 83300 ppm "
	    "(chrony slewing at its maxslewrate)");
	is_int(rate_of(10001, 0, 0, 0, 100), 600, "tick 10001: 100 ppm, the "
	    "smallest step at USER_HZ 100");
	is_int(rate_of(960, 0, 0, 0, 1000), 40500, "USER_HZ 1000: tick 960 "
	    "of 1000");
	is_int(rate_of(10000, 12L << 16, 0, 0, 100), 512, "freq 12 ppm");
	is_int(rate_of(10000, -(12L << 16), 0, 0, 100), 512, "freq -12 ppm: "
	    "the same");
	is_int(rate_of(10000, 1, 0, 0, 100), 501, "freq 1/65536 ppm: rounded "
	    "up");
	is_int(rate_of(10000, 500L << 16, 0, 0, 100), 1000, "freq 500 ppm, "
	    "the kernel's most");
	is_int(rate_of(10000, 0, 1, 0, 100), 1000, "an offset slewed by the "
	    "PLL: 500 ppm more");
	is_int(rate_of(10000, 0, -20, 0, 100), 1000, "a negative offset too");
	is_int(rate_of(10000, 0, 0, 7, 100), 1000, "adjtime(3)'s offset left "
	    "to slew: 500 ppm more");
	is_int(rate_of(10000, 0, 3, 7, 100), 1000, "both: counted once");
	is_int(rate_of(9600, -(100L << 16), 5, 0, 100), 41100, "tick, freq "
	    "and offset add up, whatever their signs");
	is_int(rate_of(10000, 0, 0, 0, 0), PG_RATE_MAX, "USER_HZ not known: "
	    "the most");
	is_int(rate_of(0, 0, 0, 0, 100), PG_RATE_MAX, "tick 0: at most "
	    "PG_RATE_MAX");
	is_int(rate_of(10000, LONG_MAX, 0, 0, 100), PG_RATE_MAX, "freq "
	    "LONG_MAX: at most PG_RATE_MAX");
	memset(&tx, 0, sizeof(tx));
	tx.tick = 10000;
	tx.offset = 1;
	is_int(pg_clock_rate_of(&tx, NULL, 100), 1000, "no adjtime(3) read: "
	    "the PLL's offset alone");
	ok(pg_clock_rate(&ppm) == 0 && ppm >= PG_RATE_BASE &&
	    ppm <= PG_RATE_MAX, "this host's clock: %" PRId64 " ppm", ppm);
}

static void
test_counted(void)
{
	struct pg_seen	 s;

	is_int(pg_rate_counted(-1), PG_RATE_BASE, "not said: 500");
	is_int(pg_rate_counted(0), PG_RATE_BASE, "0: no less than the "
	    "oscillator's 500");
	is_int(pg_rate_counted(40500), 40500, "40500: as said");
	is_int(pg_rate_counted(999999), PG_RATE_MAX, "999999: at most "
	    "PG_RATE_MAX");
	memset(&s, 0, sizeof(s));
	pg_status_init(&s.status);
	s.status.rate_ppm = 40500;
	is_int(pg_peer_rate(&s), PG_RATE_BASE, "a peer without status: 500, "
	    "whatever its struct holds");
	s.has_status = 1;
	is_int(pg_peer_rate(&s), 40500, "a peer's status: its rate");
	s.status.rate_ppm = -1;
	is_int(pg_peer_rate(&s), PG_RATE_BASE, "a status before 0.5: 500");
}

static void
test_rates(void)
{
	struct pg_seen	 s[3];
	size_t		 i, f;

	memset(s, 0, sizeof(s));
	for (i = 0; i < 3; i++) {
		pg_status_init(&s[i].status);
		s[i].has_status = 1;
	}
	s[1].status.rate_ppm = 40500;
	s[2].status.rate_ppm = 40500;
	is_int(pg_rates(-1, s, 3, &f), 41000, "R: 500 and the fastest peer's "
	    "40500");
	is_int(f, 1, "... the first of the fastest");
	is_int(pg_rates(83833, s, 1, &f), 84333, "R: this node's 83833 and a "
	    "peer that says none");
	is_int(pg_rates(-1, NULL, 0, &f), 1000, "R without peers: 500 twice");
	is_int(f, 0, "... none (n)");
}

/* A claim of node at CLAIM, visible 2ms later, at this node's rate. */
static struct pg_claim
claim_of(const char *node, int64_t rate)
{
	struct pg_claim	 c;

	memset(&c, 0, sizeof(c));
	c.node = node;
	c.claim_ns = CLAIM;
	c.visible_ns = CLAIM + 2 * MS;
	c.start_ns = CLAIM - 40 * MS;
	c.end_ns = CLAIM + 300 * MS;
	c.settle_ms = SETTLE;
	c.timeout_ms = TIMEOUT;
	c.horizon_ms = HORIZON;
	c.rate_ppm = rate;
	return c;
}

/* An active 0.5 peer (rate -1: before 0.5) that claimed e ms ago. */
static struct pg_seen
peer(const char *name, int64_t e, int64_t sent, int64_t rate)
{
	struct pg_seen	 s;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.answer.kind = PG_ANSWER_ELAPSED;
	s.answer.elapsed_ms = e;
	s.answered = 1;
	s.sent_ns = sent;
	s.recv_ns = sent + 1 * MS;
	s.has_status = 1;
	pg_status_init(&s.status);
	s.status.elapsed_ms = s.status.claim_ms = e;
	s.status.deciding = 0;
	s.status.settle_ms = SETTLE;
	s.status.timeout_ms = TIMEOUT;
	s.status.rate_ppm = rate;
	return s;
}

static int
settle(const struct pg_claim *c, const struct pg_seen *s, size_t n,
    size_t *who)
{
	enum pg_settle_why	 why;
	size_t			 p = 0;

	pg_settle(c, WAIT, PG_UNREACHABLE_RUN, s, n, pend, &why, &p);
	if (who != NULL)
		*who = p;
	return why;
}

/*
 * The lower bound of doc/SAFETY.md, section 3, written out again, at this
 * node's bound a and the peer's b (ppm): sent - e - 1ms - drift, where
 * drift is (e + 1ms + |sent - claim|) * (a + b) / (1 - b), rounded up,
 * and 1ns; relative to the claim.
 */
static int64_t
bound(int64_t claim, int64_t sent, int64_t e, int64_t a, int64_t b)
{
	long double	 x = e * MS + MS + llabs(sent - claim);
	long double	 d = x * (a + b) / (1000000 - b);
	int64_t		 drift = (int64_t)d;

	if ((long double)drift < d)
		drift++;
	return sent - e * MS - MS - drift - 1 - claim;
}

/* The least sent at which bound() exceeds lo. */
static int64_t
sent_above(int64_t lo, int64_t e, int64_t a, int64_t b)
{
	int64_t	 x = CLAIM, y = CLAIM + 100 * SEC, m;

	while (x < y) {
		m = x + (y - x) / 2;
		if (bound(CLAIM, m, e, a, b) > lo)
			y = m;
		else
			x = m + 1;
	}
	return x;
}

/*
 * The case (issue 32, item 4): b's clock 4 % slow; a's check held
 * 5.2s between its claim and round 2; b claimed 30ms before a and kept.
 * b's 5.23s since its claim read as 5.0208s on its clock.
 */
static void
test_lower_bound(void)
{
	struct pg_claim	 c;
	struct pg_seen	 s;
	int64_t		 e = 5020, sent = CLAIM + 5200 * MS, at;
	size_t		 who;
	char		 text[PG_TEXT_MAX];
	static const struct {
		int64_t	 own, peer;
	} r[] = {
		{ -1, -1 }, { 500, 40500 }, { 40500, 500 }, { 512, 83833 },
		{ 83833, 500 }, { 1000, 1000 }, { 500, 200000 }
	};
	size_t		 i;

	c = claim_of("m", -1);
	s = peer("b", e, sent, -1);
	is_int(settle(&c, &s, 1, NULL), PG_KEEP, "b's slow clock, its rate "
	    "not said (0.4): its claim seems 179ms after ours: kept beside it");
	s = peer("b", e, sent, 40500);
	is_int(settle(&c, &s, 1, &who), PG_LOST_RATE, "b's clock up to 40500 "
	    "ppm said: the widened bound leaves no room: withdraw");
	is_int(who, 0, "... b named");
	pg_settle_text(PG_LOST_RATE, c.rate_ppm, &s, text, sizeof(text));
	is_str(text, "claim withdrawn: b claimed too close to this node's "
	    "claim to order the two at the clocks' rates (b's up to 40500 ppm, "
	    "this node's up to 500 ppm)", "... and its clock's rate");
	ok(pg_settle_warns(PG_LOST_RATE), "... a warning");
	c = claim_of("m", 40500);
	s = peer("b", e, sent, 500);
	is_int(settle(&c, &s, 1, NULL), PG_LOST_RATE, "this node's clock up "
	    "to 40500 ppm, b's 500: the same");
	c = claim_of("a", 40500);
	is_int(settle(&c, &s, 1, NULL), PG_WAIT, "our name first, b announces "
	    "the rule: wait for it, as for any near claim");
	c = claim_of("m", -1);
	s = peer("b", 300, CLAIM + 10 * MS, 83833);
	is_int(settle(&c, &s, 1, NULL), PG_LOST_EARLIER, "a claim clearly "
	    "earlier: earlier, whatever the rates");

	/* At the thresholds, to the nanosecond, at each pair of rates. */
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		c = claim_of("m", r[i].own);
		at = sent_above(W, e, pg_rate_counted(r[i].own),
		    pg_rate_counted(r[i].peer));
		s = peer("b", e, at, r[i].peer);
		if (!is_int(settle(&c, &s, 1, NULL), PG_KEEP, "own %" PRId64
		    ", peer %" PRId64 ": lo = W + 1ns: kept", r[i].own,
		    r[i].peer))
			diag("sent %" PRId64, at - CLAIM);
		s.sent_ns = at - 1;
		ok(settle(&c, &s, 1, NULL) != PG_KEEP, "own %" PRId64 ", peer %"
		    PRId64 ": lo = W: not", r[i].own, r[i].peer);
	}
}

/*
 * The property: a peer whose claim came, in true time, no later than our
 * claim became visible must never be kept against, whatever each clock's
 * rate within its bound. Clocks run at 1 + d ppm of true time, d within
 * the bound each says; times below are true ns from our claim.
 */
static int64_t
clock_at(int64_t t, int64_t d)
{
	return CLAIM + t + (int64_t)((long double)t * d / 1000000);
}

static int64_t
pick_bound(void)
{
	static const int64_t	 b[] = { 500, 512, 1000, 1500, 10500, 40500,
	    SLEW + 500, SLEW + 1000 };

	if (between(0, 3) == 0)
		return between(PG_RATE_BASE, SLEW + 1000);
	return b[between(0, sizeof(b) / sizeof(b[0]) - 1)];
}

static void
test_property(void)
{
	struct pg_claim	 c;
	struct pg_seen	 s;
	int64_t		 ra, rb, da, db, v, tb, ts, tr, e, rs;
	int		 i, why, bad = 0, old_bad = 0, ordered = 0, keep = 0;
	int		 one;

	for (i = 0; i < 200000; i++) {
		/* Safety up to 83,333 ppm on one node: the other at 500. */
		one = (int)between(0, 2);
		ra = one == 1 ? PG_RATE_BASE : pick_bound();
		rb = one == 0 ? PG_RATE_BASE : pick_bound();
		if (one == 2 && ra > 2000 && rb > 2000)
			rb = PG_RATE_BASE;
		da = between(0, 3) == 0 ? (between(0, 1) ? ra : -ra) :
		    between(-ra, ra);
		db = between(0, 3) == 0 ? (between(0, 1) ? rb : -rb) :
		    between(-rb, rb);
		v = between(0, 1) ? between(20000, 3 * MS) :
		    between(0, 400 * MS);
		/* The peer claimed up to 2s before our claim was visible. */
		tb = v - between(0, 2 * SEC);
		ts = v + between(0, 4500 * MS);
		if (ts < tb)
			ts = tb;
		tr = ts + between(20000, 5 * MS);
		/* Its serve's reading, rounded down to ms. */
		e = (tr - tb + (int64_t)((long double)(tr - tb) * db /
		    1000000)) / MS;
		if (e < 0)
			e = 0;
		c = claim_of("m", ra);
		c.visible_ns = clock_at(v, da);
		c.start_ns = clock_at(-between(1 * MS, 40 * MS), da);
		c.end_ns = clock_at(tr + between(20000, 2 * MS), da);
		s = peer("b", e, clock_at(ts, da), rb);
		s.recv_ns = clock_at(tr + 10000, da);
		why = settle(&c, &s, 1, NULL);
		if (why == PG_KEEP || why == PG_WAIT) {
			if (bad++ < 5)
				diag("kept: own %" PRId64 " at %+" PRId64
				    ", peer %" PRId64 " at %+" PRId64 ", v %"
				    PRId64 ", tb %" PRId64 ", ts %" PRId64
				    ", e %" PRId64, ra, da, rb, db, v, tb, ts,
				    e);
		}
		ordered += why == PG_LOST_RATE || why == PG_LOST_NAME ||
		    why == PG_LOST_EARLIER;
		/* The same round before 0.5: no rate said on either side. */
		c.rate_ppm = -1;
		s.status.rate_ppm = -1;
		rs = settle(&c, &s, 1, NULL);
		old_bad += rs == PG_KEEP || rs == PG_WAIT;
	}
	is_int(bad, 0, "200000 rounds, clocks up to 83,333 ppm: a claim made "
	    "before ours was visible is never kept against (seed %" PRIu64
	    ")", seed);
	diag("%d decided by the bound; with no rate said, %d kept", ordered,
	    old_bad);
	ok(ordered > 150000, "most of them decided by the bound, not by the "
	    "deadline");
	ok(old_bad > 100, "without the rates (0.4's 0.1 %%), the same rounds "
	    "keep against such claims");

	/* And a claim truly later than v by the widening and W is kept. */
	for (i = 0, keep = 0; i < 20000; i++) {
		ra = pick_bound();
		rb = pick_bound();
		da = between(-ra, ra);
		db = between(-rb, rb);
		v = between(20000, 3 * MS);
		ts = v + between(0, 3 * SEC);
		tb = v + W * 2 + (ts - v + 2 * MS) * (ra + rb) * 3 / 1000000 +
		    3 * MS;
		if (tb > ts)
			ts = tb + between(0, 100 * MS);
		tr = ts + between(20000, 5 * MS);
		e = (tr - tb + (int64_t)((long double)(tr - tb) * db /
		    1000000)) / MS;
		c = claim_of("m", ra);
		c.visible_ns = clock_at(v, da);
		c.end_ns = clock_at(tr + 1 * MS, da);
		s = peer("b", e, clock_at(ts, da), rb);
		keep += settle(&c, &s, 1, NULL) == PG_KEEP;
	}
	is_int(keep, 20000, "a claim later by W and three times the widening: "
	    "always kept against (the bound is no wider than it must be)");
}

/*
 * The round-2 deadline: rounds of this node (B) that end by it end, in
 * true time, before a peer A's claim, reported for H - W after it became
 * visible on A's clock, stops being reported.
 */
static void
test_deadline(void)
{
	struct pg_claim	 c;
	struct pg_seen	 s[2];
	enum pg_settle_why why;
	int64_t		 base, d, ra, rb;
	long double	 lb, la;
	size_t		 who;
	int		 i, bad = 0;
	char		 text[PG_TEXT_MAX];

	s[0] = peer("a", 60000, CLAIM + 10 * MS, -1);
	s[0].answer.kind = PG_ANSWER_NEVER;
	s[0].status.elapsed_ms = PG_NEVER;
	s[0].status.claim_ms = -1;
	s[0].status.rate_ppm = 500;
	s[1] = s[0];
	s[1].name = "b";
	base = HORIZON * MS - W - 50 * MS;
	c = claim_of("m", -1);
	c.end_ns = c.start_ns + base - HORIZON * 1000;
	is_int(settle(&c, s, 2, NULL), PG_KEEP, "R = 1000 ppm: the deadline "
	    "is H - W - 50ms - H * R (5.75ms less)");
	c.end_ns++;
	is_int(settle(&c, s, 2, NULL), PG_LOST_SLOW_ROUND, "... 1ns more: too "
	    "slow, as before 0.5");
	s[1].status.rate_ppm = 40500;
	c.end_ns = c.start_ns + base - HORIZON * 41000;
	is_int(settle(&c, s, 2, NULL), PG_KEEP, "b up to 40500 ppm: H * R = "
	    "235.75ms less");
	c.end_ns++;
	is_int(settle(&c, s, 2, &who), PG_LOST_SLOW_RATE, "... 1ns more: "
	    "withdraw, for the rate");
	is_int(who, 1, "... b named, the fastest clock");
	pg_settle_text(PG_LOST_SLOW_RATE, c.rate_ppm, &s[who], text,
	    sizeof(text));
	is_str(text, "claim withdrawn: asking the peers took too long to "
	    "order claims safely at the clocks' rates (b's up to 40500 ppm, "
	    "this node's up to 500 ppm)", "... its text");
	c.end_ns = c.start_ns + base - HORIZON * 1000 + 1;
	is_int(settle(&c, s, 2, NULL), PG_LOST_SLOW_ROUND, "too slow at "
	    "1000 ppm too: the old reason");
	s[1].status.rate_ppm = 500;
	c = claim_of("m", SLEW + 500);
	c.end_ns = c.start_ns + base - HORIZON * (SLEW + 1000) + 1;
	is_int(settle(&c, s, 2, NULL), PG_LOST_SLOW_RATE, "this node up to "
	    "83833 ppm: the same");
	/* pg_settle_poll: only the pending peers were asked again. */
	pend[0] = 0;
	pend[1] = 1;
	s[1].status.rate_ppm = 40500;
	s[1].status.deciding = 1;
	s[1].answer.kind = PG_ANSWER_ELAPSED;
	s[1].answer.elapsed_ms = s[1].status.elapsed_ms = 100;
	c = claim_of("m", -1);
	c.end_ns = c.start_ns + base - HORIZON * 41000 + 1;
	pg_settle_poll(&c, WAIT, s, 2, pend, &why, &who);
	is_int(why, PG_LOST_SLOW_RATE, "asked again: the pending peer's rate "
	    "shortens the deadline too");
	c.end_ns--;
	pend[1] = 1;
	pg_settle_poll(&c, WAIT, s, 2, pend, &why, &who);
	is_int(why, PG_WAIT, "... 1ns less: waiting for it still");

	/* At every pair of bounds, the true times at the worst rates. */
	for (i = 0; i < 20000; i++) {
		ra = pick_bound();
		rb = pick_bound();
		c = claim_of("m", rb);
		s[1] = peer("b", 60000, CLAIM, ra);
		s[1].answer.kind = PG_ANSWER_NEVER;
		/* The longest round B keeps, found by bisection. */
		for (base = 0, d = 20 * SEC; base < d; ) {
			int64_t	 m = base + (d - base + 1) / 2;

			c.end_ns = c.start_ns + m;
			if (settle(&c, &s[1], 1, NULL) == PG_KEEP)
				base = m;
			else
				d = m - 1;
		}
		lb = (long double)base / (1 - rb / 1e6L);
		la = (long double)(HORIZON * MS - W) / (1 + ra / 1e6L);
		if (lb >= la && bad++ < 5)
			diag("a %" PRId64 ", b %" PRId64 ": %" PRId64 "ns on "
			    "b's clock outlast a's horizon", ra, rb, base);
	}
	is_int(bad, 0, "20000 pairs of bounds: B's longest round, at its "
	    "slowest, ends before A's claim, at A's fastest, stops showing");
}

/*
 * The sleep before round 2 (doc/SAFETY.md, 4, a 0.5 node A and a 0.3
 * node B, case 2): settle/2 on A's clock must outlast 2W on B's with room
 * for B's own 0.1 %.
 */
static void
test_sleep(void)
{
	int64_t		 ra, rb, settle, ns;
	long double	 on_b;
	int		 i, bad = 0;

	is_int(pg_settle_sleep_ns(500, 1000), 255 * MS, "R = 1000 ppm: "
	    "settle/2 + 1 %% of settle, as before 0.5");
	is_int(pg_settle_sleep_ns(500, 10000), 255 * MS, "R = 1 %%: the same");
	is_int(pg_settle_sleep_ns(500, 41000), 270500 * 1000, "R = 41000 ppm: "
	    "settle/2 + 4.1 %% of settle");
	is_int(pg_settle_sleep_ns(500, SLEW + 1000), 250 * MS + 500 *
	    (SLEW + 1000), "R = 84333 ppm: settle/2 + 8.4 %% of settle");
	is_int(pg_settle_sleep_ns(500, 5000000), 250 * MS + 500 *
	    2 * PG_RATE_MAX, "R beyond 2 * PG_RATE_MAX: no more");
	for (i = 0; i < 20000; i++) {
		ra = pick_bound();
		rb = PG_RATE_BASE;	/* B shows no status: 500 */
		settle = between(1, 60000);
		ns = pg_settle_sleep_ns(settle, ra + rb);
		/* At A's fastest and B's slowest, seen on B's clock. */
		on_b = (long double)ns / (1 + ra / 1e6L) * (1 - rb / 1e6L);
		if (on_b < settle * MS / 2 * 1.001L && bad++ < 5)
			diag("a %" PRId64 ", settle %" PRId64 ": %Lf", ra,
			    settle, on_b);
	}
	is_int(bad, 0, "the sleep at R outlasts settle/2 and 0.1 %% on the "
	    "other clock, at every bound");
}

/* Beside a peer before 0.5, this node's clock must stay within 1500. */
static void
test_old_peer(void)
{
	struct pg_claim	 c;
	struct pg_seen	 s;
	size_t		 who;
	char		 text[PG_TEXT_MAX];

	c = claim_of("m", PG_RATE_OLD);
	s = peer("b", 60000, CLAIM + 10 * MS, -1);
	s.answer.kind = PG_ANSWER_NEVER;
	s.status.elapsed_ms = PG_NEVER;
	s.status.claim_ms = -1;
	is_int(settle(&c, &s, 1, NULL), PG_KEEP, "this node at 1500 ppm, an "
	    "idle 0.4 peer: keep");
	c.rate_ppm = PG_RATE_OLD + 1;
	is_int(settle(&c, &s, 1, &who), PG_LOST_OLD_RATE, "at 1501 ppm: "
	    "withdraw (0.4 orders our claim at 0.1 %%)");
	pg_settle_text(PG_LOST_OLD_RATE, c.rate_ppm, &s, text, sizeof(text));
	is_str(text, "claim withdrawn: this node's clock runs at up to 1501 "
	    "ppm, more than b (before 0.5: no rate in its status) allows for",
	    "... its text");
	s.has_status = 0;
	is_int(settle(&c, &s, 1, NULL), PG_LOST_OLD_RATE, "a peer without "
	    "status (0.3, a proxy): the same");
	s.has_status = 1;
	s.status.rate_ppm = 500;
	is_int(settle(&c, &s, 1, NULL), PG_KEEP, "a 0.5 peer: keep");
	s.answer.kind = PG_ANSWER_UNREACHABLE;
	s.answered = 0;
	s.has_status = 0;
	is_int(settle(&c, &s, 1, NULL), PG_KEEP, "a peer unreachable in both "
	    "rounds (unreachable = run): as before");
}

int
main(void)
{
	rng_init("");
	test_rate_of();
	test_counted();
	test_rates();
	test_lower_bound();
	test_property();
	test_deadline();
	test_sleep();
	test_old_peer();
	return done_testing();
}
