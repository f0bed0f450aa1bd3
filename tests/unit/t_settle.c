/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the settle round: pg_claim_horizon and pg_settle, against
 * the rule in pollguard.h (one rule for every peer); then the property the
 * rule exists for: two nodes that both claimed a round never both keep
 * it, whatever each sees of the other (0.3 nodes, decided by settle03;
 * gateways that hide a peer's status).
 *
 * The property tests simulate whole rounds on one global time line (each
 * node reads its own clock, offset from it): round 1, the claim and when
 * it becomes visible, the sleep, round 2 with answers computed from what
 * each peer's record says at the moment it answers (the time since its
 * claim within the horizon, since its latest refresh after it; the old
 * record again once a loser withdrew), and the decision. They are
 * randomized and reproducible: the seed is printed, PG_SEED=N replays it.
 */
#include <err.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pollguard.h"
#include "tap.h"
#include "rng.h"

#define MS	1000000LL		/* nanoseconds */
#define SEC	(1000 * MS)
#define WAIT	(10 * 60 * 1000LL)	/* ms */

static const char *const why_names[] = {
	"KEEP", "LOST_EARLIER", "LOST_NAME", "LOST_SLOW_WRITE",
	"LOST_SLOW_ROUND", "LOST_VANISHED", "LOST_UNREACHABLE",
	"LOST_INVALID", "LOST_HELD", "WAIT", "LOST_KEPT", "LOST_POLL",
	"LOST_RULE", "LOST_DISAGREE", "LOST_UNSEEN", "LOST_EXPIRED",
	"LOST_OVERWRITTEN", "LOST_SELF", "LOST_RAN", "LOST_RATE",
	"LOST_SLOW_RATE", "LOST_OLD_RATE"
};

/* pg_settle's pending peers, where a test does not look at them. */
static int	 pend[8];

static const char *
wname(int w)
{
	return w >= 0 && w <= PG_LOST_OLD_RATE ? why_names[w] : "(bad why)";
}

/* The verdict that goes with a reason. */
static int
verdict_of(int why)
{
	switch (why) {
	case PG_KEEP:
	case PG_WAIT:
		return PG_GO;
	case PG_LOST_UNREACHABLE:
		return PG_SKIP_UNREACHABLE;
	case PG_LOST_INVALID:
		return PG_REFUSE_INVALID;
	default:
		return PG_SKIP_ACTIVE;
	}
}

static void
test_horizon(void)
{
	int64_t	 h;

	is_int(pg_claim_horizon(2000, 500), 5750, "horizon of the defaults: "
	    "5.75s");
	is_int(pg_claim_horizon(100, 0), 1200, "horizon, timeout 100ms, no "
	    "settle");
	is_int(pg_claim_horizon(1000, 100), 3150, "horizon, 1s and 100ms");
	is_int(pg_claim_horizon(60000, 10000), 136000, "horizon of the maxima");
	is_int(pg_claim_horizon(5000, 2000), 14000, "horizon, 5s and 2s");
	is_int(pg_claim_horizon(3000, 2000), 10000, "horizon, 3s and 2s: 10s");
	h = pg_claim_horizon(1000, 101);
	ok(h == 3151 || h == 3152, "horizon, odd settle 101ms: 3151 or 3152 "
	    "(got %lld)", (long long)h);
}

/*
 * Direct tests of the rule: one claim at CLAIM, settle 500ms (window
 * W = 125ms), horizon 5750ms. A peer without status may be 0.3.0, which
 * places our claim up to D = settle too late (pg_settle_old_ns): its
 * claim is ignored only beyond max(W, visible - claim) + D.
 */

#define CLAIM	(1000 * SEC)
#define SETTLE	500LL
#define TIMEOUT	2000LL
#define W	(SETTLE * MS / 4)
#define HORIZON	5750LL
#define D	(SETTLE * MS)

static struct pg_claim
claim_of(const char *node)
{
	struct pg_claim	 c;

	memset(&c, 0, sizeof(c));
	c.node = node;
	c.claim_ns = CLAIM;
	c.visible_ns = CLAIM + 2 * MS;
	c.start_ns = CLAIM - 40 * MS;
	c.end_ns = CLAIM + 2 * MS + SETTLE * MS + 30 * MS;
	c.settle_ms = SETTLE;
	c.timeout_ms = TIMEOUT;
	c.horizon_ms = HORIZON;
	c.slept = 1;		/* peers without status may be 0.3 nodes */
	return c;
}

static struct pg_seen
seen_kind(const char *name, enum pg_answer_kind kind, int64_t e)
{
	struct pg_seen	 s;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.answer.kind = kind;
	s.answer.elapsed_ms = kind == PG_ANSWER_ELAPSED ? e :
	    kind == PG_ANSWER_NEVER ? PG_NEVER : 0;
	s.answered = kind != PG_ANSWER_UNREACHABLE;	/* in round 1 */
	s.sent_ns = CLAIM + 400 * MS;
	s.recv_ns = CLAIM + 410 * MS;
	return s;
}

/*
 * The lower bound of doc/SAFETY.md, section 3, written out again: sent -
 * e - 1ms - drift, relative to the claim, where drift is (e + 1ms +
 * |sent - claim|) * R / (1 - peer), rounded up, + 1ns; here at the
 * oscillators' rates, 500 ppm each (R = 1000 ppm).
 */
static int64_t
bound(int64_t claim, int64_t sent, int64_t e)
{
	int64_t	 span = sent > claim ? sent - claim : claim - sent;
	int64_t	 x = e * MS + MS + span;

	return sent - e * MS - MS - ((x * 1000 + 999499) / 999500 + 1) -
	    claim;
}

/* The round-2 deadline at R = 1000 ppm: horizon - W - 50ms - H * R. */
#define DEADLINE(h, w)	((h) * MS - (w) - 50 * MS - (h) * 1000)

/*
 * The first moment sent at which bound() reaches lo. It grows by 0 or 1
 * per ns after the claim (by up to 2 before it), so after the claim it
 * is exactly lo.
 */
static int64_t
sent_for(int64_t claim, int64_t lo, int64_t e)
{
	int64_t	 a = claim + lo, b = claim + lo + 3 * (e * MS + MS) + 10 * SEC,
		 m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (bound(claim, m, e) < lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * A peer that answered e ms, whose interval [bound, recv - e] begins at
 * CLAIM + lo and is width ns wider than the rounding and the drift.
 */
static struct pg_seen
seen_at(const char *name, int64_t lo, int64_t width, int64_t e)
{
	struct pg_seen	 s;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.answer.kind = PG_ANSWER_ELAPSED;
	s.answer.elapsed_ms = e;
	s.answered = 1;			/* in round 1 */
	s.sent_ns = sent_for(CLAIM, lo, e);
	if (bound(CLAIM, s.sent_ns, e) != lo)
		errx(1, "seen_at: no moment gives lo %lld", (long long)lo);
	s.recv_ns = s.sent_ns + width;
	return s;
}

/* Run pg_settle; check verdict and reason agree; return the reason. */
static int
settle(const struct pg_claim *c, enum pg_unreachable pol,
    const struct pg_seen *s, size_t n, size_t *peer, const char *name)
{
	enum pg_settle_why	 why = (enum pg_settle_why)-1;
	enum pg_verdict		 v;
	size_t			 p = (size_t)-1;

	v = pg_settle(c, WAIT, pol, s, n, pend, &why, &p);
	if ((int)v != verdict_of(why))
		ok(0, "%s: verdict %d goes with %s", name, v, wname(why));
	if (peer != NULL)
		*peer = p;
	return why;
}

static void
why_is(const struct pg_claim *c, enum pg_unreachable pol,
    const struct pg_seen *s, size_t n, int want, const char *name)
{
	int	 w;

	w = settle(c, pol, s, n, NULL, name);
	if (!is_int(w, want, "%s: %s", name, wname(want)))
		diag("got %s", wname(w));
}

/* One of two reasons is right (a boundary the header leaves open). */
static void
why_either(const struct pg_claim *c, const struct pg_seen *s, size_t n,
    int a, int b, const char *name)
{
	int	 w;

	w = settle(c, PG_UNREACHABLE_RUN, s, n, NULL, name);
	ok(w == a || w == b, "%s: %s or %s (got %s)", name, wname(a),
	    wname(b), wname(w));
}

static void
one(const struct pg_seen *s, int want, const char *name)
{
	struct pg_claim	 c = claim_of("m");

	why_is(&c, PG_UNREACHABLE_RUN, s, 1, want, name);
}

/* A peer that announces the rule: seen_at with deciding, settle, timeout. */
static struct pg_seen
fast_at(const char *name, int64_t lo, int64_t e, int deciding)
{
	struct pg_seen	 s = seen_at(name, lo, 0, e);

	s.has_status = 1;
	pg_status_init(&s.status);
	s.status.elapsed_ms = e;
	s.status.deciding = deciding;
	s.status.settle_ms = SETTLE;
	s.status.timeout_ms = TIMEOUT;
	return s;
}

/* A peer of a table: without status, or announcing the rule. */
static struct pg_seen
peer_at(const char *name, int64_t lo, int64_t e, int rule)
{
	return rule ? fast_at(name, lo, e, 1) : seen_at(name, lo, 0, e);
}

/* Why a near claim of a peer without status loses even to a later name. */
#define NO_WAIT	": a near claim of a peer without status: withdraw, even " \
		"when our name sorts first (a 0.3 node or a gateway's view " \
		"cannot be waited for)"

static void
test_settle_basic(void)
{
	struct pg_claim	 c = claim_of("m");
	struct pg_seen	 s[4];
	size_t		 i, peer;
	int		 w;
	static const struct {
		const char		*name;
		enum pg_answer_kind	 kind;
		int64_t			 e;
		int			 want;
		const char		*what;
	} t[] = {
		{ "a", PG_ANSWER_NEVER, 0, PG_KEEP, "never" },
		{ "a", PG_ANSWER_ELAPSED, WAIT, PG_KEEP,
		    "elapsed = wait: idle" },
		{ "a", PG_ANSWER_ELAPSED, WAIT + 1, PG_KEEP,
		    "elapsed above wait: idle" },
		{ "a", PG_ANSWER_ELAPSED, INT64_MAX - 1, PG_KEEP,
		    "elapsed 2^63-2: idle" },
		{ "a", PG_ANSWER_ELAPSED, WAIT - 1, PG_LOST_EARLIER,
		    "elapsed wait - 1: active long ago" },
		{ "z", PG_ANSWER_ELAPSED, 5000, PG_LOST_EARLIER,
		    "elapsed 5s, a larger name: earlier" },
	};

	why_is(&c, PG_UNREACHABLE_RUN, NULL, 0, PG_KEEP, "no peers");
	why_is(&c, PG_UNREACHABLE_SKIP, NULL, 0, PG_KEEP,
	    "no peers, policy skip");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s[0] = seen_kind(t[i].name, t[i].kind, t[i].e);
		one(&s[0], t[i].want, t[i].what);
	}

	s[0] = seen_kind("a", PG_ANSWER_UNREACHABLE, 0);
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_KEEP,
	    "unreachable, policy run: counts as never");
	why_is(&c, PG_UNREACHABLE_SKIP, s, 1, PG_LOST_UNREACHABLE,
	    "unreachable, policy skip");
	/* Reachable in round 1, gone in round 2: it may have claimed. */
	s[0].answered = 1;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_VANISHED,
	    "answered round 1, unreachable now, policy run: withdraw");
	why_is(&c, PG_UNREACHABLE_SKIP, s, 1, PG_LOST_VANISHED,
	    "answered round 1, unreachable now, policy skip: withdraw");
	/*
	 * Unreachable in round 1, active in round 2, its activity looking
	 * later than our claim: a job's refresh after an old claim, maybe.
	 */
	s[0] = seen_kind("z", PG_ANSWER_ELAPSED, 0);
	s[0].answered = 0;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_UNSEEN,
	    "unreachable in round 1, active in round 2: withdraw");
	s[0].has_status = 1;
	pg_status_init(&s[0].status);
	s[0].status.elapsed_ms = 0;
	s[0].status.deciding = 0;
	s[0].status.settle_ms = SETTLE;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_UNSEEN,
	    "... also when it announces the rule");
	/* A later claim it reports may hide a job without the run lock. */
	s[0].status.claim_ms = 0;
	s[0].status.timeout_ms = c.timeout_ms;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_UNSEEN,
	    "unreachable in round 1, a later claim reported: withdraw");
	s[0] = seen_kind("z", PG_ANSWER_NEVER, 0);
	s[0].answered = 0;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_KEEP,
	    "unreachable in round 1, never active: keep");
	s[0] = seen_kind("a", PG_ANSWER_INVALID, 0);
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_INVALID, "invalid");
	why_is(&c, PG_UNREACHABLE_SKIP, s, 1, PG_LOST_INVALID,
	    "invalid, policy skip");

	/* The deciding peer among ones that do not decide. */
	s[0] = seen_kind("a", PG_ANSWER_NEVER, 0);
	s[1] = seen_kind("b", PG_ANSWER_ELAPSED, WAIT);
	s[2] = seen_kind("c", PG_ANSWER_UNREACHABLE, 0);
	s[3] = seen_kind("d", PG_ANSWER_ELAPSED, 3000);
	w = settle(&c, PG_UNREACHABLE_RUN, s, 4, &peer, "index");
	is_int(w, PG_LOST_EARLIER, "the fourth peer active: earlier");
	is_int(peer, 3, "the fourth peer decides");
	s[3] = seen_kind("d", PG_ANSWER_INVALID, 0);
	w = settle(&c, PG_UNREACHABLE_RUN, s, 4, &peer, "index");
	is_int(w, PG_LOST_INVALID, "the fourth peer invalid");
	is_int(peer, 3, "the invalid peer decides");
	s[3] = seen_kind("d", PG_ANSWER_NEVER, 0);
	w = settle(&c, PG_UNREACHABLE_SKIP, s, 4, &peer, "index");
	is_int(w, PG_LOST_UNREACHABLE, "the third peer unreachable, skip");
	is_int(peer, 2, "the unreachable peer decides");
	s[1] = seen_at("a0", 10 * MS, 0, 300);
	w = settle(&c, PG_UNREACHABLE_RUN, s, 4, &peer, "index");
	is_int(w, PG_LOST_NAME, "the second peer: a close claim, its name "
	    "first");
	is_int(peer, 1, "the close claim decides");

	/* A peer we beat, or wait for, does not hide one that beats us. */
	s[0] = seen_at("z", W + D + 10 * MS, 0, 300);	/* we win */
	s[1] = seen_at("zz", D + 200 * MS, 0, 100);	/* clearly later */
	s[2] = seen_at("a", -200 * MS, 0, 700);		/* clearly earlier */
	w = settle(&c, PG_UNREACHABLE_RUN, s, 3, &peer, "mixed");
	is_int(w, PG_LOST_EARLIER, "two we beat, one earlier: earlier");
	is_int(peer, 2, "the earlier one decides");
	w = settle(&c, PG_UNREACHABLE_RUN, s, 2, &peer, "mixed");
	is_int(w, PG_KEEP, "two we beat: keep");
	s[1] = fast_at("zz", 10 * MS, 300, 1);		/* to wait for */
	w = settle(&c, PG_UNREACHABLE_RUN, s, 3, &peer, "mixed");
	is_int(w, PG_LOST_EARLIER, "one we beat, one to wait for, one "
	    "earlier: earlier");
	is_int(peer, 2, "the earlier one decides, not the one waited for");
	w = settle(&c, PG_UNREACHABLE_RUN, s, 2, &peer, "mixed");
	ok(w == PG_WAIT && peer == 1 && pend[0] == 0 && pend[1] == 1,
	    "one we beat, one to wait for: wait for it (got %s, peer %zu)",
	    wname(w), peer);

	/* Anything that loses is no PG_GO, whatever else there is. */
	s[0] = seen_at("z", W + D + 10 * MS, 0, 300);
	s[1] = seen_kind("b", PG_ANSWER_INVALID, 0);
	w = settle(&c, PG_UNREACHABLE_RUN, s, 2, NULL, "win and invalid");
	is_int(w, PG_LOST_INVALID, "a claim we beat and an invalid: invalid");
	s[1] = seen_kind("b", PG_ANSWER_UNREACHABLE, 0);
	w = settle(&c, PG_UNREACHABLE_SKIP, s, 2, NULL, "win and unreach.");
	is_int(w, PG_LOST_UNREACHABLE,
	    "a claim we beat and an unreachable, skip: unreachable");
	s[1] = seen_kind("b", PG_ANSWER_INVALID, 0);
	s[2] = seen_at("a", -200 * MS, 0, 700);
	w = settle(&c, PG_UNREACHABLE_SKIP, s, 3, NULL, "invalid, earlier");
	ok(w == PG_LOST_INVALID || w == PG_LOST_EARLIER,
	    "invalid and earlier: one of them (got %s)", wname(w));
}

/*
 * Where the peer's claim lies, relative to ours (visible 2ms after it:
 * the threshold for "later" is W): later by more than W is ignored when
 * the peer announces the rule, by more than W + D when it shows no
 * status; any other claim of a peer that announces the rule is waited
 * for when our name sorts first (its outcome decides); everything else
 * loses, a near claim of a peer without status whatever the names.
 */
static void
test_settle_window(void)
{
	struct pg_seen	 s;
	char		 name[256];
	size_t		 i;
	static const struct {
		int64_t		 lo;
		const char	*what;
		int		 small, large, rule;	/* a; z; z announcing */
	} t[] = {
		{ -W - 1 * MS, "-W - 1ms",
		    PG_LOST_EARLIER, PG_LOST_EARLIER, PG_WAIT },
		{ -W - 1, "-W - 1ns",
		    PG_LOST_EARLIER, PG_LOST_EARLIER, PG_WAIT },
		{ -W + 1, "-W + 1ns", PG_LOST_NAME, PG_LOST_NAME, PG_WAIT },
		{ -W + 1 * MS, "-W + 1ms",
		    PG_LOST_NAME, PG_LOST_NAME, PG_WAIT },
		{ -1 * MS, "-1ms", PG_LOST_NAME, PG_LOST_NAME, PG_WAIT },
		{ 0, "0", PG_LOST_NAME, PG_LOST_NAME, PG_WAIT },
		{ 1 * MS, "+1ms", PG_LOST_NAME, PG_LOST_NAME, PG_WAIT },
		{ W - 1 * MS, "+W - 1ms", PG_LOST_NAME, PG_LOST_NAME, PG_WAIT },
		{ W - 1, "+W - 1ns", PG_LOST_NAME, PG_LOST_NAME, PG_WAIT },
		{ W + 1, "+W + 1ns", PG_LOST_NAME, PG_LOST_NAME, PG_KEEP },
		{ W + 1 * MS, "+W + 1ms", PG_LOST_NAME, PG_LOST_NAME, PG_KEEP },
		{ W + D / 2, "+W + D/2", PG_LOST_NAME, PG_LOST_NAME, PG_KEEP },
		{ W + D - 1 * MS, "+W + D - 1ms",
		    PG_LOST_NAME, PG_LOST_NAME, PG_KEEP },
		{ W + D - 1, "+W + D - 1ns",
		    PG_LOST_NAME, PG_LOST_NAME, PG_KEEP },
		{ W + D + 1, "+W + D + 1ns", PG_KEEP, PG_KEEP, PG_KEEP },
		{ W + D + 1 * MS, "+W + D + 1ms", PG_KEEP, PG_KEEP, PG_KEEP },
		{ 2 * SEC, "+2s", PG_KEEP, PG_KEEP, PG_KEEP },
		{ -2 * SEC, "-2s", PG_LOST_EARLIER, PG_LOST_EARLIER, PG_WAIT },
	};
	static const struct {
		const char	*name;
		int64_t		 lo, width, e;
		int		 want;
		const char	*what;
	} wide[] = {
		{ "z", -W - 1 * MS, 2 * SEC, 3000, PG_LOST_EARLIER,
		    "wide, from before -W to after +W, z > m" },
		{ "a", -W - 1 * MS, 2 * SEC, 3000, PG_LOST_EARLIER,
		    "wide, from before -W to after +W, a < m" },
		{ "z", -W - 1, 100 * MS, 3000, PG_LOST_EARLIER,
		    "wide, 1ns before -W into the window, z > m" },
		{ "z", -W + 1 * MS, 2 * SEC, 3000, PG_LOST_NAME,
		    "wide, from inside the window to after it, z > m" NO_WAIT },
		{ "a", -W + 1 * MS, 2 * SEC, 3000, PG_LOST_NAME,
		    "wide, from inside the window to after it, a < m" },
		{ "a", W - 1 * MS, 2 * SEC, 3000, PG_LOST_NAME,
		    "wide, from just inside +W to after, a < m" },
		{ "a", W + 1 * MS, 5 * SEC, 3000, PG_LOST_NAME,
		    "wide, all after +W, not all after +W + D, a < m" },
		{ "a", W + D + 1 * MS, 5 * SEC, 3000, PG_KEEP,
		    "wide, all after +W + D, a < m" },
		{ "z", -5 * SEC, 4 * SEC, 4000, PG_LOST_EARLIER,
		    "wide, all before -W, z > m" },
	};

	/* sent == recv: the interval is the 1ms of rounding. */
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(name, sizeof(name), "sent = recv, lo at %s, "
		    "name a < m", t[i].what);
		s = seen_at("a", t[i].lo, 0, 3000);
		one(&s, t[i].small, name);
		snprintf(name, sizeof(name), "sent = recv, lo at %s, "
		    "name z > m%s", t[i].what,
		    t[i].large == PG_LOST_NAME ? NO_WAIT : "");
		s = seen_at("z", t[i].lo, 0, 3000);
		one(&s, t[i].large, name);
		snprintf(name, sizeof(name), "sent = recv, lo at %s, e = 0, "
		    "name z > m%s", t[i].what,
		    t[i].large == PG_LOST_NAME ? NO_WAIT : "");
		s = seen_at("z", t[i].lo, 0, 0);
		one(&s, t[i].large, name);
		snprintf(name, sizeof(name), "sent = recv, lo at %s, "
		    "name z > m, announcing the rule%s", t[i].what,
		    t[i].rule == PG_WAIT ? ": not later, our name first: wait "
		    "until it has decided" : "");
		s = fast_at("z", t[i].lo, 3000, 1);
		one(&s, t[i].rule, name);
	}

	/*
	 * Exactly on a boundary the truth lies strictly after lo, so either
	 * reading is safe; the header leaves it open.
	 */
	{
		struct pg_claim	 c = claim_of("m");

		s = seen_at("z", -W, 0, 3000);
		why_either(&c, &s, 1, PG_LOST_NAME, PG_LOST_EARLIER,
		    "lo exactly at -W, name z > m, no status: withdraw either "
		    "way");
		s = seen_at("a", -W, 0, 3000);
		why_either(&c, &s, 1, PG_LOST_NAME, PG_LOST_EARLIER,
		    "lo exactly at -W, name a < m");
		s = seen_at("a", W, 0, 3000);
		why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_LOST_NAME,
		    "lo exactly at +W, name a < m, no status: within W + D");
		s = seen_at("a", W + D, 0, 3000);
		why_either(&c, &s, 1, PG_KEEP, PG_LOST_NAME,
		    "lo exactly at +W + D, name a < m");
		s = seen_at("z", W + D, 0, 3000);
		why_either(&c, &s, 1, PG_KEEP, PG_LOST_NAME,
		    "lo exactly at +W + D, name z > m");
		s = fast_at("z", W, 3000, 1);
		why_either(&c, &s, 1, PG_KEEP, PG_WAIT,
		    "lo exactly at +W, name z > m, announcing the rule");
	}

	/* Wide intervals: uncertainty makes us lose, never win. */
	for (i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
		s = seen_at(wide[i].name, wide[i].lo, wide[i].width,
		    wide[i].e);
		one(&s, wide[i].want, wide[i].what);
	}
}

/*
 * Names decide only a near claim of a peer that announces the rule: the
 * first name waits for the other's outcome, the other withdraws. The
 * header says strcasecmp, as config.c finds this node among the peers:
 * case is ignored, and names equal but for case sort neither first (both
 * withdraw: safe). A peer without status beats a near claim whatever the
 * names.
 */
static void
test_name_order(void)
{
	struct pg_claim	 c;
	struct pg_seen	 s;
	size_t		 i;
	static const struct {
		const char	*node, *peer;
		int		 rule;		/* the peer announces it */
		int		 want;
		const char	*what;
	} t[] = {
		{ "m", "m0", 1, PG_WAIT, "name m0 > m: wait for it" },
		{ "m", "l9", 1, PG_LOST_NAME, "name l9 < m" },
		{ "m", "m0", 0, PG_LOST_NAME, "name m0 > m" NO_WAIT },
		{ "m", "l9", 0, PG_LOST_NAME, "name l9 < m, no status" },
		{ "node-b", "node-a", 1, PG_LOST_NAME, "node-a beats node-b" },
		{ "node-a", "node-b", 1, PG_WAIT,
		    "node-a waits for node-b" },
		{ "node-10", "node-9", 1, PG_WAIT,
		    "node-10 waits for node-9 (no numeric order)" },
		{ "node_a", "node-a", 1, PG_LOST_NAME,
		    "node-a beats node_a ('-' before '_')" },
		/* Case is ignored, as when a host finds itself among peers. */
		{ "B", "a", 1, PG_LOST_NAME,
		    "node B loses to a (ignoring case: 'a' < 'b')" },
		{ "a", "B", 1, PG_WAIT,
		    "node a waits for B (ignoring case: 'a' < 'b')" },
		/* Names equal but for case sort neither first. */
		{ "Node", "node", 1, PG_LOST_NAME,
		    "node Node loses to node (equal ignoring case)" },
		{ "node", "Node", 1, PG_LOST_NAME,
		    "node node loses to Node (equal ignoring case)" },
	};

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		c = claim_of(t[i].node);
		s = peer_at(t[i].peer, 0, 3000, t[i].rule);
		why_is(&c, PG_UNREACHABLE_RUN, &s, 1, t[i].want, t[i].what);
	}
}

/*
 * D leaves room: the sleep beside a peer without status and two rounds
 * of a whole timeout end 100ms or more before the deadline, horizon - W
 * - 50ms, for every settle and timeout; D is settle up to 3.1s, and
 * grows with settle.
 */
static void
test_old_room(void)
{
	int64_t	 s, t, room, left = INT64_MAX, prev = 0, d;
	int	 short_ = 0, lower = 0, smaller = 0;

	for (s = 100; s <= 10000; s++) {
		d = pg_settle_old_ns(s);
		if (s <= 3100 && d != s * MS)
			short_++;
		if (d < prev)
			smaller++;
		if (d > s * MS)
			lower++;
		prev = d;
		for (t = 100; t <= 60000; t += t < 1000 ? 100 : 1000) {
			room = (pg_claim_horizon(t, s) - 50) * MS - s * MS / 4 -
			    2 * t * MS - pg_settle_sleep_ns(s, 1000) -
			    d * 101 / 100;
			if (room < left)
				left = room;
		}
	}
	ok(left >= 100 * MS, "D: two whole rounds and the sleep leave 100ms "
	    "or more before the deadline (%lld ns at least)",
	    (long long)left);
	is_int(short_, 0, "D: settle for every settle up to 3.1s");
	is_int(lower, 0, "D: never more than settle");
	is_int(smaller, 0, "D: grows with settle");
}

/*
 * A claim that became visible late: a peer's claim is ignored only when
 * it certainly lies more than max(W, visible - claim) after ours (a peer
 * that claimed before ours became visible may not have seen it), and D
 * more when the peer shows no status. Then rounds that took too long,
 * the keep horizon, and other settles.
 */
static void
test_settle_slow(void)
{
	struct pg_claim	 c;
	struct pg_seen	 s[2];
	int64_t		 limit;
	size_t		 i;
	static const struct {
		int64_t		 vis, lo;	/* after our claim */
		int		 rule;		/* the peer announces it */
		int		 want;
		const char	*what;
	} t[] = {
		{ W + 1 * MS, W + MS / 2, 0, PG_LOST_NAME,
		    "claim visible W + 1ms after it: a claim W + 0.5ms later "
		    "is not ignored" },
		{ W + 1 * MS, W + MS / 2, 1, PG_WAIT,
		    "claim visible W + 1ms after it: a claim W + 0.5ms later "
		    "of a peer announcing the rule is waited for" },
		{ W + 1 * MS, W + 1 * MS + 1, 0, PG_LOST_NAME,
		    "claim visible W + 1ms after it: a claim visible - claim "
		    "+ 1ns later is not ignored: no status" },
		{ W + 1 * MS, W + 1 * MS + 1, 1, PG_KEEP,
		    "claim visible W + 1ms after it: a claim visible - claim "
		    "+ 1ns later of a peer announcing the rule is ignored" },
		{ W + 1 * MS, W + 1 * MS + D - 1, 0, PG_LOST_NAME,
		    "claim visible W + 1ms after it: a claim visible - claim "
		    "+ D - 1ns later is not ignored" },
		{ W + 1 * MS, W + 1 * MS + D + 1, 0, PG_KEEP,
		    "claim visible W + 1ms after it: a claim visible - claim "
		    "+ D + 1ns later is ignored" },
		{ W + 1 * MS, W + 2 * MS + D, 0, PG_KEEP,
		    "claim visible W + 1ms after it: a claim visible - claim "
		    "+ D + 1ms later is ignored" },
		{ W + 1, W + 2 + D, 0, PG_KEEP,
		    "claim visible W + 1ns after it: a claim W + D + 2ns later "
		    "is ignored" },
		{ W, W + 1 + D, 0, PG_KEEP,
		    "claim visible exactly W after it: a claim W + D + 1ns "
		    "later is ignored" },
		{ W - 1 * MS, W + 1 + D, 0, PG_KEEP,
		    "claim visible W - 1ms after it: a claim W + D + 1ns later "
		    "is ignored (the threshold stays W + D)" },
		{ W - 1 * MS, W - MS / 2 + D, 0, PG_LOST_NAME,
		    "claim visible W - 1ms after it: a claim W + D - 0.5ms "
		    "later is not ignored" },
		{ 0, W + 1 + D, 0, PG_KEEP,
		    "claim visible at once: a claim W + D + 1ns later is "
		    "ignored" },
		{ 0, W + 1, 0, PG_LOST_NAME,
		    "claim visible at once: a claim W + 1ns later is not: no "
		    "status" },
		{ 0, W + 1, 1, PG_KEEP,
		    "claim visible at once: a claim W + 1ns later of a peer "
		    "announcing the rule is ignored" },
		{ 0, 10 * MS, 0, PG_LOST_NAME,
		    "claim visible at once: a claim 10ms later is not" },
		{ 5 * SEC, 10 * MS, 0, PG_LOST_NAME,
		    "claim visible after 5s: a claim 10ms later is not "
		    "ignored" },
		{ 5 * SEC, 5 * SEC - 1 * MS, 0, PG_LOST_NAME,
		    "claim visible after 5s: a claim 5s - 1ms later is not "
		    "ignored" },
		{ 5 * SEC, 5 * SEC - 1 * MS, 1, PG_WAIT,
		    "claim visible after 5s: a claim 5s - 1ms later of a peer "
		    "announcing the rule is waited for" },
		{ 5 * SEC, 5 * SEC + 1 * MS, 0, PG_LOST_NAME,
		    "claim visible after 5s: a claim 5s + 1ms later is not "
		    "ignored: no status" },
		{ 5 * SEC, 5 * SEC + D - 1 * MS, 0, PG_LOST_NAME,
		    "claim visible after 5s: a claim 5s + D - 1ms later is not "
		    "ignored" },
		{ 5 * SEC, 5 * SEC + D + 1 * MS, 0, PG_KEEP,
		    "claim visible after 5s: a claim 5s + D + 1ms later is "
		    "ignored" },
		{ 5 * SEC, 5 * SEC + 1 * MS, 1, PG_KEEP,
		    "claim visible after 5s: a claim 5s + 1ms later of a peer "
		    "announcing the rule is ignored" },
	};
	static const struct {
		int64_t		 settle;
		int64_t		 vis, lo;	/* after our claim */
		const char	*name;
		int		 want;
		const char	*what;
	} other[] = {
		/* settle 2s: W = 500ms. */
		{ 2000, 2 * MS, -450 * MS, "z", PG_LOST_NAME,
		    "settle 2s: 450ms before is within the window, z > m"
		    NO_WAIT },
		{ 2000, 2 * MS, -550 * MS, "z", PG_LOST_EARLIER,
		    "settle 2s: 550ms before is clearly earlier" },
		{ 2000, 2 * MS, 450 * MS, "a", PG_LOST_NAME,
		    "settle 2s: 450ms after is within the window, a < m" },
		{ 2000, 2 * MS, 550 * MS, "a", PG_LOST_NAME,
		    "settle 2s: 550ms after is within W + D (2.5s)" },
		{ 2000, 2 * MS, 2450 * MS, "a", PG_LOST_NAME,
		    "settle 2s: 2.45s after is within W + D" },
		{ 2000, 2 * MS, 2550 * MS, "a", PG_KEEP,
		    "settle 2s: 2.55s after is clearly later" },
		{ 2000, 450 * MS, 2480 * MS, "z", PG_LOST_NAME,
		    "settle 2s, visible after 450ms: 2.48s after is within "
		    "the window and D" },
		{ 2000, 450 * MS, 2510 * MS, "z", PG_KEEP,
		    "settle 2s, visible after 450ms: 2.51s after is clearly "
		    "later" },
		/* settle 101ms: W = 25.25ms. */
		{ 101, 2 * MS, -25 * MS, "z", PG_LOST_NAME,
		    "settle 101ms: 25ms before is within the window" NO_WAIT },
		{ 101, 2 * MS, -26 * MS, "z", PG_LOST_EARLIER,
		    "settle 101ms: 26ms before is clearly earlier" },
		{ 101, 2 * MS, 25 * MS, "z", PG_LOST_NAME,
		    "settle 101ms: 25ms after is within the window" },
		{ 101, 2 * MS, 126 * MS, "z", PG_LOST_NAME,
		    "settle 101ms: 126ms after is within W + D (126.25ms)" },
		{ 101, 2 * MS, 127 * MS, "z", PG_KEEP,
		    "settle 101ms: 127ms after is clearly later" },
	};

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		c = claim_of("m");
		c.visible_ns = c.claim_ns + t[i].vis;
		/* Within the deadline after 5s: less by H * R (5.75ms). */
		c.end_ns = c.visible_ns + SETTLE * MS + 20 * MS;
		s[0] = peer_at("z", t[i].lo, 300, t[i].rule);
		why_is(&c, PG_UNREACHABLE_RUN, s, 1, t[i].want, t[i].what);
	}
	/* No active peer: a late claim is kept (its horizon lengthened). */
	s[0] = seen_kind("z", PG_ANSWER_NEVER, 0);
	c = claim_of("m");
	c.visible_ns = c.claim_ns + W + 1 * MS;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_KEEP,
	    "claim visible W + 1ms after it, no active peer: keep");
	c.visible_ns = c.claim_ns + 5 * SEC;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_KEEP,
	    "claim visible after 5s, nobody active: a lone node keeps");
	why_is(&c, PG_UNREACHABLE_RUN, NULL, 0, PG_KEEP,
	    "claim visible after 5s, no peers answered: keep");

	/* s[0]: no active peer; s[1]: an active one whose claim we beat. */
	s[1] = seen_at("z", W + D + 10 * MS, 0, 300);
	limit = DEADLINE(HORIZON, W);
	c = claim_of("m");
	c.end_ns = c.start_ns + limit + 1 * MS;
	why_is(&c, PG_UNREACHABLE_RUN, &s[1], 1, PG_LOST_SLOW_ROUND,
	    "rounds took horizon - W - 50ms + 1ms, an active peer");
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_SLOW_ROUND,
	    "rounds took horizon - W - 50ms + 1ms, no active peer");
	c.end_ns = c.start_ns + limit + 1;
	why_is(&c, PG_UNREACHABLE_RUN, &s[1], 1, PG_LOST_SLOW_ROUND,
	    "rounds took horizon - W - 50ms + 1ns");
	c.end_ns = c.start_ns + limit;
	why_is(&c, PG_UNREACHABLE_RUN, &s[1], 1, PG_KEEP,
	    "rounds took exactly horizon - W - 50ms");
	c.end_ns = c.start_ns + limit - 1 * MS;
	why_is(&c, PG_UNREACHABLE_RUN, &s[1], 1, PG_KEEP,
	    "rounds took horizon - W - 50ms - 1ms");
	c.end_ns = c.start_ns + 60 * SEC;
	why_is(&c, PG_UNREACHABLE_RUN, NULL, 0, PG_LOST_SLOW_ROUND,
	    "rounds of a minute, no peers answered at all");
	/* A peer we lose to is named, however slow we were. */
	s[1] = seen_at("z", -W - 10 * MS, 0, 300);
	why_is(&c, PG_UNREACHABLE_RUN, &s[1], 1, PG_LOST_EARLIER,
	    "slow rounds and an earlier claim: earlier");

	/* A late claim that is kept gets a longer horizon, below wait. */
	c = claim_of("m");
	c.visible_ns = c.claim_ns + W;
	is_int(pg_claim_keep_horizon(&c, WAIT), HORIZON,
	    "keep horizon: visible after W: unchanged");
	c.visible_ns = c.claim_ns + W + 1;
	is_int(pg_claim_keep_horizon(&c, WAIT), HORIZON + 1,
	    "keep horizon: 1ns late: 1ms longer");
	c.visible_ns = c.claim_ns + W + 3 * SEC;
	is_int(pg_claim_keep_horizon(&c, WAIT), HORIZON + 3000,
	    "keep horizon: 3s late: 3s longer");
	is_int(pg_claim_keep_horizon(&c, HORIZON + 3001), HORIZON + 3000,
	    "keep horizon: just below wait");
	is_int(pg_claim_keep_horizon(&c, HORIZON + 3000), 0,
	    "keep horizon: reaching wait: 0, withdraw");
	is_int(pg_settle_sleep_ns(400, 1000), 204 * MS,
	    "sleep: settle/2 + settle/100");
	is_int(pg_settle_old_ns(400), 400 * MS, "D: settle");
	is_int(pg_settle_old_ns(SETTLE), D, "D: settle, 500ms");
	is_int(pg_settle_old_ns(3000), 3000 * MS, "D: settle, 3s");
	is_int(pg_settle_old_ns(10000), (7400 + 840) * MS * 100 / 101,
	    "D: settle 10s: 0.74 x settle + 840ms, less 1 %%");
	test_old_room();

	/* Another settle: the window scales. */
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		c = claim_of("m");
		c.settle_ms = other[i].settle;
		c.horizon_ms = pg_claim_horizon(2000, other[i].settle);
		c.visible_ns = c.claim_ns + other[i].vis;
		c.end_ns = c.start_ns + (other[i].settle > 1000 ? 3 * SEC :
		    500 * MS);
		s[0] = seen_at(other[i].name, other[i].lo, 0, 3000);
		why_is(&c, PG_UNREACHABLE_RUN, s, 1, other[i].want,
		    other[i].what);
	}
}

/*
 * Peers that announce the rule, case by case: a claim certainly more
 * than max(W, visible - claim) later is ignored unless a run is going
 * there; otherwise the first name waits, the other loses; then the
 * waits end in a withdrawal, a kept claim, silence or the deadline.
 */
static void
test_fast_rule(void)
{
	struct pg_claim		 c = claim_of("m");
	struct pg_seen		 s[2], o;
	enum pg_settle_why	 why;
	size_t			 i, p;
	int			 pd[2];
	int64_t			 vis;
	/* Our claim was visible 2ms after it (claim_of). */
	static const struct {
		const char	*name;
		int64_t		 lo;
		int		 running;	/* a run goes on there */
		int		 want;
		const char	*what;
	} t[] = {
		{ "z", W + 1, 0, PG_KEEP,
		    "fast: a claim certainly more than W later: keep" },
		{ "z", 2 * MS + 1, 0, PG_WAIT,
		    "fast: a claim after ours was visible but within W: not "
		    "ignored, our name first: wait" },
		{ "a", 2 * MS, 0, PG_LOST_NAME,
		    "fast: not certainly later, its name first: lose" },
		{ "a", -W - 1, 0, PG_LOST_EARLIER,
		    "fast: its claim well before ours, its name first: "
		    "EARLIER" },
		{ "a", W + 1, 0, PG_KEEP,
		    "fast: more than W later beats names" },
		{ "a", 2 * MS + 1, 0, PG_LOST_NAME,
		    "fast: after ours was visible but within W, its name "
		    "first: lose" },
		{ "z", 2 * SEC, 1, PG_KEEP,
		    "fast: a claim 2s later, a run going there: ignored, "
		    "our name first" },
		{ "a", 2 * SEC, 1, PG_KEEP,
		    "fast: a claim 2s later, a run going there: ignored, "
		    "its name first" },
		{ "z", 2 * SEC, 0, PG_KEEP,
		    "fast: a claim 2s later, no run going: keep" },
	};

	c.slept = 0;
	vis = c.visible_ns - c.claim_ns;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s[0] = fast_at(t[i].name, t[i].lo, 300, 1);
		s[0].status.running = t[i].running;
		why_is(&c, PG_UNREACHABLE_RUN, s, 1, t[i].want, t[i].what);
	}
	s[0] = fast_at("z", vis, 300, 1);
	is_int(pg_settle(&c, WAIT, PG_UNREACHABLE_RUN, s, 1, pd, &why, &p),
	    PG_GO, "fast: not certainly later, our name first: go on");
	is_int(why, PG_WAIT, "... waiting (PG_WAIT)");
	ok(pd[0] == 1 && p == 0, "... for z (pending)");
	s[0].status.settle_ms = 400;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_DISAGREE,
	    "fast: another settle: withdraw");
	is_int(pg_settle_disagrees(SETTLE, 2000, s, 1), 0,
	    "pg_settle_disagrees: finds it");
	s[0].status.settle_ms = SETTLE;
	is_int(pg_settle_disagrees(SETTLE, 2000, s, 1), 1,
	    "pg_settle_disagrees: agreed");
	s[0].status.timeout_ms = 2001;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_DISAGREE,
	    "fast: another timeout: withdraw");

	/* A late write: the threshold is visible - claim. */
	c.visible_ns = c.claim_ns + W + 1 * MS;
	vis = c.visible_ns - c.claim_ns;
	s[0] = fast_at("z", vis + 1, 300, 1);
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_KEEP,
	    "fast: a slow write, a fast peer later: keep (horizon lengthened)");
	c = claim_of("m");
	c.slept = 0;

	/* Without the sleep, an active peer that does not announce loses. */
	s[0] = seen_at("z", W + 1, 0, 300);
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_RULE,
	    "no sleep and a peer that does not announce the rule: withdraw");
	c.slept = 1;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_LOST_NAME,
	    "with the sleep: W + 1ns later is not enough without status");
	s[0] = seen_at("z", W + D + 1, 0, 300);
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_KEEP,
	    "with the sleep: the rule for it (later by more than W + D)");
	/*
	 * A claim 2s later is ordered after ours, whatever runs there: a
	 * run a check began holds that node's record (its checks skip), a
	 * run begun by hand is not one the protocol orders.
	 */
	s[0] = fast_at("z", 2 * SEC, 300, -1);
	s[0].status.running = 1;
	why_is(&c, PG_UNREACHABLE_RUN, s, 1, PG_KEEP,
	    "a claim 2s later, a run going there, a status without the "
	    "rule: keep");
	/* Per pair: a fast peer waited for, one without status beaten. */
	s[0] = seen_at("z", W + D + 1, 0, 300);
	s[1] = fast_at("y", 0, 300, 1);
	is_int(pg_settle(&c, WAIT, PG_UNREACHABLE_RUN, s, 2, pd, &why, &p),
	    PG_GO, "mixed: go on");
	ok(why == PG_WAIT && pd[0] == 0 && pd[1] == 1,
	    "mixed: waiting for the fast peer only");

	/* The polls. */
	c.slept = 0;
	pd[0] = 1;
	o = fast_at("z", 0, 300, 1);
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_GO,
	    "poll: still deciding: go on");
	ok(why == PG_WAIT && pd[0] == 1, "... still pending");
	o.status.deciding = 0;
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_SKIP_ACTIVE,
	    "poll: decided, claim still there: lose");
	is_int(why, PG_LOST_KEPT, "... it kept its claim");
	o.answer.kind = PG_ANSWER_NEVER;
	o.answer.elapsed_ms = PG_NEVER;
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_GO,
	    "poll: decided, claim gone: it withdrew");
	ok(why == PG_KEEP && pd[0] == 0, "... keep");
	pd[0] = 1;
	o = fast_at("z", 0, WAIT, 0);
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_GO,
	    "poll: decided, idle for wait: withdrew");
	pd[0] = 1;
	o = seen_kind("z", PG_ANSWER_UNREACHABLE, 0);
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_SKIP_ACTIVE,
	    "poll: unreachable: lose");
	is_int(why, PG_LOST_POLL, "... PG_LOST_POLL");
	o = seen_at("z", 0, 0, 300);
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_SKIP_ACTIVE,
	    "poll: no longer fast: lose");
	o = fast_at("z", 0, 300, 1);
	c.end_ns = c.start_ns + DEADLINE(HORIZON, W) + 1;
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_SKIP_ACTIVE,
	    "poll: past the deadline: withdraw");
	is_int(why, PG_LOST_SLOW_ROUND, "... SLOW_ROUND");
	o.status.deciding = 0;
	o.answer.kind = PG_ANSWER_NEVER;
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_SKIP_ACTIVE,
	    "poll: past the deadline, even when it withdrew");
	c.end_ns -= 1;
	is_int(pg_settle_poll(&c, WAIT, &o, 1, pd, &why, &p), PG_GO,
	    "poll: at the deadline: keep");
}

/*
 * Randomized tests.
 */

static int
chance(int percent)
{
	return (int)(rnd() % 100) < percent;
}

static void
random_name(char *buf, size_t size)
{
	/*
	 * Lower case only: names that differ in case are test_name_order's
	 * business, and the random tests should not hinge on them.
	 */
	static const char	 chars[] = "abcz019.-_";
	size_t			 i, n;

	n = 1 + rnd() % 4;
	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++)
		buf[i] = chars[rnd() % (sizeof(chars) - 1)];
	if (buf[0] == '.' || buf[0] == '-')
		buf[0] = 'n';
	buf[n] = '\0';
}

/*
 * The reference for one peer, straight from the header: a hold, or a
 * peer reached in round 1 and not in round 2, loses; an active one not
 * reached in round 1 without a claim reported loses; without the sleep,
 * one that does not announce the rule loses; one announcing another
 * settle or timeout loses; one whose claim certainly lies more than
 * max(W, visible - claim) after ours, D more (pg_settle_old_ns) when it
 * does not announce the rule, is ignored; else one announcing the rule with a
 * later name is waited for; else we lose. Boundary cases (lo exactly at
 * -W or at the threshold) are not generated.
 */
static int
reference_one(const struct pg_claim *c, enum pg_unreachable pol,
    const struct pg_seen *s, int64_t wait)
{
	const struct pg_status	*st = &s->status;
	int64_t			 w = c->settle_ms * MS / 4, later, lo;
	int			 slow, fast;

	slow = c->end_ns - c->start_ns > DEADLINE(c->horizon_ms, w);
	later = c->visible_ns - c->claim_ns > w ?
	    c->visible_ns - c->claim_ns : w;
	fast = s->has_status && st->deciding >= 0;
	switch (s->answer.kind) {
	case PG_ANSWER_ELAPSED:
	case PG_ANSWER_NEVER:
		if (s->has_status && st->hold_ms > 0)
			return PG_LOST_HELD;
		break;
	case PG_ANSWER_UNREACHABLE:
		if (s->answered)
			return PG_LOST_VANISHED;
		return slow ? PG_LOST_SLOW_ROUND :
		    pol == PG_UNREACHABLE_SKIP ? PG_LOST_UNREACHABLE : PG_KEEP;
	default:
		return slow ? PG_LOST_SLOW_ROUND : PG_LOST_INVALID;
	}
	if (s->answer.kind == PG_ANSWER_NEVER || s->answer.elapsed_ms >= wait)
		return slow ? PG_LOST_SLOW_ROUND : PG_KEEP;
	if (!s->answered)
		return PG_LOST_UNSEEN;
	if (!c->slept && !fast)
		return PG_LOST_RULE;
	if (fast && (st->settle_ms != c->settle_ms ||
	    st->timeout_ms != c->timeout_ms))
		return PG_LOST_DISAGREE;
	lo = bound(c->claim_ns, s->sent_ns, s->answer.elapsed_ms);
	if (lo > later + (fast ? 0 : pg_settle_old_ns(c->settle_ms)))
		return slow ? PG_LOST_SLOW_ROUND : PG_KEEP;
	if (fast && strcasecmp(c->node, s->name) < 0)
		return slow ? PG_LOST_SLOW_ROUND : PG_WAIT;
	return lo < -w ? PG_LOST_EARLIER : PG_LOST_NAME;
}

/*
 * pg_settle agrees with the reference: the same reason, except that a
 * slow round may be reported for another reason to withdraw; the
 * verdict that goes with the reason; the peer's index when a peer
 * decided; the peer pending exactly when we wait.
 */
static int
agrees(const struct pg_claim *c, enum pg_unreachable pol,
    const struct pg_seen *s, int64_t wait, int want, int verbose)
{
	enum pg_settle_why	 why = (enum pg_settle_why)-1;
	enum pg_verdict		 v;
	size_t			 p = 99;
	int			 pass;

	v = pg_settle(c, wait, pol, s, 1, pend, &why, &p);
	pass = want == PG_LOST_SLOW_ROUND ? v != PG_GO : (int)why == want;
	if ((int)v != verdict_of(why))
		pass = 0;
	if (why != PG_KEEP && why != PG_LOST_SLOW_ROUND && p != 0)
		pass = 0;
	if ((why == PG_WAIT || why == PG_KEEP) && pend[0] != (why == PG_WAIT))
		pass = 0;
	if (!pass && verbose)
		diag("got %s, verdict %d, peer %zu, pending %d", wname(why), v,
		    p, pend[0]);
	return pass;
}

static void
test_reference(void)
{
	struct pg_claim		 c;
	struct pg_seen		 s;
	enum pg_unreachable	 pol;
	char			 node[8], peer[8];
	int64_t			 w, later, lo, wait;
	int			 i, want, bad = 0, kinds[PG_LOST_OLD_RATE + 1];

	memset(kinds, 0, sizeof(kinds));
	for (i = 0; i < 200000; i++) {
		random_name(node, sizeof(node));
		do
			random_name(peer, sizeof(peer));
		while (strcmp(node, peer) == 0);
		memset(&c, 0, sizeof(c));
		memset(&s, 0, sizeof(s));
		c.node = node;
		c.slept = chance(70);
		c.settle_ms = chance(10) ? between(100, 10000) :
		    between(100, 2000);
		c.timeout_ms = between(100, 5000);
		c.horizon_ms = pg_claim_horizon(c.timeout_ms, c.settle_ms);
		w = c.settle_ms * MS / 4;
		c.claim_ns = between(1 * SEC, 1000000 * SEC);
		c.visible_ns = c.claim_ns + (chance(20) ? between(0, 3 * w) :
		    between(0, 5 * MS));
		later = c.visible_ns - c.claim_ns > w ?
		    c.visible_ns - c.claim_ns : w;
		c.start_ns = c.claim_ns - between(0, 3 * SEC);
		c.end_ns = c.visible_ns + between(c.settle_ms * MS / 2,
		    c.settle_ms * MS) + (chance(5) ? between(0, 20 * SEC) :
		    between(0, 50 * MS));
		wait = c.horizon_ms + between(1, 600000);
		pol = chance(50) ? PG_UNREACHABLE_SKIP : PG_UNREACHABLE_RUN;

		memset(&s, 0, sizeof(s));
		s.name = peer;
		switch (rnd() % 10) {
		case 0:
			s.answer.kind = PG_ANSWER_NEVER;
			s.answer.elapsed_ms = PG_NEVER;
			break;
		case 1:
			s.answer.kind = PG_ANSWER_UNREACHABLE;
			break;
		case 2:
			s.answer.kind = PG_ANSWER_INVALID;
			break;
		default:
			s.answer.kind = PG_ANSWER_ELAPSED;
			s.answer.elapsed_ms = chance(10) ?
			    between(0, 2 * wait) : between(0, 3000);
			break;
		}
		/* Now and then unreachable in round 1: active, it wins. */
		s.answered = chance(s.answer.kind == PG_ANSWER_UNREACHABLE ?
		    20 : 95);
		/*
		 * What its status says, when it has one: a 0.3 node or a
		 * gateway's view has none.
		 */
		if (chance(60)) {
			s.has_status = 1;
			pg_status_init(&s.status);
			s.status.elapsed_ms = s.answer.elapsed_ms;
			s.status.deciding = chance(80) ? (int)between(0, 1) :
			    -1;
			s.status.settle_ms = chance(95) ? c.settle_ms :
			    c.settle_ms + between(-1, 1);
			s.status.timeout_ms = chance(95) ? c.timeout_ms :
			    c.timeout_ms + between(-1, 1);
			s.status.claim_ms = chance(50) ? s.answer.elapsed_ms :
			    -1;
			s.status.running = chance(20);
			s.status.hold_ms = chance(2) ? between(1, 60000) : 0;
		}
		/* The interval's start near the edges, often. */
		lo = c.claim_ns + (chance(25) ? -w : chance(30) ? w :
		    chance(40) ? later : chance(50) ? later +
		    pg_settle_old_ns(c.settle_ms) : 0) + between(-3 * w, 3 * w);
		if (lo == c.claim_ns - w || lo == c.claim_ns + later ||
		    lo == c.claim_ns + later + pg_settle_old_ns(c.settle_ms))
			lo++;
		if (s.answer.kind == PG_ANSWER_ELAPSED)
			s.sent_ns = sent_for(c.claim_ns, lo - c.claim_ns,
			    s.answer.elapsed_ms);
		else
			s.sent_ns = c.visible_ns + between(0, c.settle_ms * MS);
		s.recv_ns = s.sent_ns + (chance(20) ? between(0, 3 * SEC) :
		    between(0, 3 * MS));

		want = reference_one(&c, pol, &s, wait);
		kinds[want]++;
		if (!agrees(&c, pol, &s, wait, want, bad < 5) && bad++ < 5)
			diag("seed %" PRIu64 " case %d: node %s peer %s "
			    "settle %lld horizon %lld wait %lld kind %d e %lld "
			    "lo-claim %lld recv-sent %lld vis-claim %lld "
			    "end-start %lld slept %d status %d deciding %d "
			    "running %d: want %s", seed, i, node, peer,
			    (long long)c.settle_ms, (long long)c.horizon_ms,
			    (long long)wait, s.answer.kind,
			    (long long)s.answer.elapsed_ms,
			    (long long)(lo - c.claim_ns),
			    (long long)(s.recv_ns - s.sent_ns),
			    (long long)(c.visible_ns - c.claim_ns),
			    (long long)(c.end_ns - c.start_ns), c.slept,
			    s.has_status, s.status.deciding, s.status.running,
			    wname(want));
	}
	is_int(bad, 0, "200000 random single peers agree with the header's "
	    "rule (seed %" PRIu64 ")", seed);
	for (i = 0; i <= PG_LOST_OLD_RATE; i++)
		if (kinds[i] > 0)
			diag("  %s: %d", wname(i), kinds[i]);
	ok(kinds[PG_KEEP] > 1000 && kinds[PG_WAIT] > 1000 &&
	    kinds[PG_LOST_NAME] > 1000 && kinds[PG_LOST_EARLIER] > 1000 &&
	    kinds[PG_LOST_RULE] > 1000 && kinds[PG_LOST_DISAGREE] > 100 &&
	    kinds[PG_LOST_UNSEEN] > 100 && kinds[PG_LOST_HELD] > 100,
	    "the random peers reach every rule of the header");
}

/*
 * Two claims, each node seeing the other's without its status (0.3 nodes
 * to each other, or a gateway both ways): never both keep. The views are
 * built from the truth: each answer is the time from the peer's claim to
 * the moment it answered, floored to ms, and that moment lies between
 * sent and recv.
 */
static void
test_two_views(void)
{
	struct pg_claim		 c[2];
	struct pg_seen		 s[2];
	enum pg_settle_why	 why[2];
	size_t			 p;
	char			 name[2][8];
	int64_t			 settle, horizon, w, t[2], m, off[2];
	int			 i, k, keep[2], both = 0, close = 0, wrong = 0;
	int			 nclose = 0, neither = 0, beyond, nbeyond = 0;

	for (i = 0; i < 200000; i++) {
		random_name(name[0], sizeof(name[0]));
		do
			random_name(name[1], sizeof(name[1]));
		while (strcmp(name[0], name[1]) == 0);
		beyond = 0;
		settle = chance(10) ? between(100, 10000) : between(100, 1000);
		horizon = pg_claim_horizon(between(100, 5000), settle);
		w = settle * MS / 4;
		t[0] = between(10 * SEC, 20 * SEC);
		t[1] = t[0] + (chance(50) ? between(-5 * MS, 5 * MS) :
		    chance(50) ? between(-2 * w, 2 * w) :
		    between(-settle * MS, settle * MS));
		for (k = 0; k < 2; k++) {
			off[k] = between(0, 1000000 * SEC);
			memset(&c[k], 0, sizeof(c[k]));
			c[k].node = name[k];
			c[k].claim_ns = t[k] + off[k];
			c[k].visible_ns = c[k].claim_ns + between(0, 3 * MS);
			c[k].start_ns = c[k].claim_ns - between(1 * MS,
			    300 * MS);
			c[k].settle_ms = settle;
			c[k].horizon_ms = horizon;
			c[k].slept = 1;
		}
		for (k = 0; k < 2; k++) {
			/* k asks 1 - k, after its sleep, once both claimed. */
			memset(&s[k], 0, sizeof(s[k]));
			s[k].name = name[1 - k];
			s[k].answered = 1;
			s[k].sent_ns = c[k].visible_ns - off[k] +
			    between(settle * MS / 2, settle * MS);
			m = s[k].sent_ns + (chance(80) ? between(0, 2 * MS) :
			    between(0, 1 * SEC));
			if (m < t[1 - k])
				m = t[1 - k] + between(0, 2 * MS);
			if (s[k].sent_ns > m)
				s[k].sent_ns = m;
			s[k].recv_ns = m + (chance(80) ? between(0, 2 * MS) :
			    between(0, 1 * SEC));
			s[k].answer.kind = PG_ANSWER_ELAPSED;
			s[k].answer.elapsed_ms = (m - t[1 - k]) / MS;
			/* Past the horizon serve tells another time. */
			if (s[k].answer.elapsed_ms >= horizon)
				beyond = 1;
			s[k].sent_ns += off[k];
			s[k].recv_ns += off[k];
			c[k].end_ns = s[k].recv_ns + between(0, 2 * MS);
		}
		if (beyond) {
			nbeyond++;
			continue;
		}
		for (k = 0; k < 2; k++)
			keep[k] = pg_settle(&c[k], horizon + 1000,
			    PG_UNREACHABLE_SKIP, &s[k], 1, pend, &why[k], &p) ==
			    PG_GO;
		if (keep[0] && keep[1]) {
			if (both++ < 5)
				diag("seed %" PRIu64 " case %d: both keep: "
				    "%s claimed at %lld, %s at %lld ns, "
				    "settle %lld", seed, i, name[0],
				    (long long)t[0], name[1], (long long)t[1],
				    (long long)settle);
		}
		if (!keep[0] && !keep[1])
			neither++;
		/*
		 * Close claims, quick answers: neither can wait for the
		 * other's outcome, both withdraw.
		 */
		if (llabs(t[1] - t[0]) <= 5 * MS &&
		    s[0].recv_ns - s[0].sent_ns <= 4 * MS &&
		    s[1].recv_ns - s[1].sent_ns <= 4 * MS) {
			nclose++;
			if (keep[0] || keep[1] || why[0] != PG_LOST_NAME ||
			    why[1] != PG_LOST_NAME) {
				if (close++ < 5)
					diag("seed %" PRIu64 " case %d: close "
					    "claims %s %s %lld ns apart: keep "
					    "%d %d (%s, %s)", seed, i, name[0],
					    name[1], (long long)(t[1] - t[0]),
					    keep[0], keep[1], wname(why[0]),
					    wname(why[1]));
			}
		}
		k = keep[0] ? 1 : 0;		/* the loser, if one keeps */
		if (keep[0] + keep[1] == 1 && why[k] != PG_LOST_EARLIER &&
		    why[k] != PG_LOST_NAME && why[k] != PG_LOST_SLOW_ROUND)
			wrong++;
	}
	diag("two views: %d of 200000 had neither keep, %d were close, %d "
	    "answered past the horizon (left out)", neither, nclose, nbeyond);
	is_int(both, 0, "two claims seeing each other never both keep "
	    "(seed %" PRIu64 ")", seed);
	is_int(close, 0, "claims within 5ms, quick answers, no status: both "
	    "withdraw, by name: a near claim without status is not waited for "
	    "(seed %" PRIu64 ")", seed);
	ok(nclose > 1000, "the close case was reached (%d)", nclose);
	is_int(wrong, 0, "a loser against a claim loses EARLIER or NAME");
}

/*
 * Whole rounds on one time line, of new nodes that read no status of
 * each other (gateways both ways): every peer is ordered by the rule's
 * threshold or seen withdrawn, never waited for.
 */

#define NODES		3
#define NEVER_ACT	INT64_MIN

struct node {
	char		 name[8];
	int64_t		 off;		/* its clock minus global time */
	int64_t		 old_act;	/* the record before: NEVER_ACT or a
					   moment idle for every round */
	int64_t		 start1, m1[NODES], end1;
	int		 unreach1[NODES];
	int64_t		 t, v;		/* claim, and when it is visible */
	int64_t		 sent2[NODES], m2[NODES], recv2[NODES], end2;
	int		 unreach2[NODES];
	int64_t		 withdraw;	/* after end2, when it lost */
	int64_t		 job, period;	/* a keeper's refreshes */
	int64_t		 hz;		/* a keeper's horizon, lengthened
					   when its claim was late */
	int		 claimed;	/* -1: not known yet */
	int		 kept;		/* -1: not known yet */
	enum pg_settle_why why;
};

struct world {
	int			 n;
	int64_t			 settle, timeout, horizon, wait;
	enum pg_unreachable	 policy;
	struct node		 nd[NODES];
	int			 depth;
	int			 broken;	/* the simulation itself */
};

static int	 node_claimed(struct world *, int);
static int	 node_kept(struct world *, int);

/* What node j's serve answers at global moment m. */
static struct pg_answer
answer_of(struct world *wd, int j, int64_t m)
{
	struct node		*y = &wd->nd[j];
	struct pg_answer	 a;
	int64_t			 latest, k;

	memset(&a, 0, sizeof(a));
	if (y->v <= m && node_claimed(wd, j) &&
	    !(y->withdraw <= m && !node_kept(wd, j))) {
		a.kind = PG_ANSWER_ELAPSED;
		/*
		 * Beyond the first horizon only a keeper has one, written
		 * before its job starts (here: as late as that).
		 */
		if ((m - y->t) / MS < wd->horizon || (y->job <= m &&
		    node_kept(wd, j) && (m - y->t) / MS < y->hz)) {
			a.elapsed_ms = (m - y->t) / MS;
			return a;
		}
		/* After the horizon: since the latest refresh. */
		latest = y->t;
		if (y->job <= m && node_kept(wd, j)) {
			k = (m - y->job) / y->period;
			latest = y->job + k * y->period;
		}
		a.elapsed_ms = (m - latest) / MS;
		return a;
	}
	if (y->old_act == NEVER_ACT) {
		a.kind = PG_ANSWER_NEVER;
		a.elapsed_ms = PG_NEVER;
	} else {
		a.kind = PG_ANSWER_ELAPSED;
		a.elapsed_ms = (m - y->old_act) / MS;
	}
	return a;
}

/* Round 1 of node i: does it claim? */
static int
node_claimed(struct world *wd, int i)
{
	struct node		*x = &wd->nd[i];
	struct pg_answer	 a;
	int			 j;

	if (x->claimed >= 0)
		return x->claimed;
	if (++wd->depth > 64) {
		wd->broken = 1;
		return 0;
	}
	x->claimed = 1;
	for (j = 0; j < wd->n; j++) {
		if (j == i)
			continue;
		if (x->unreach1[j]) {
			if (wd->policy == PG_UNREACHABLE_SKIP)
				x->claimed = 0;
			continue;
		}
		a = answer_of(wd, j, x->m1[j]);
		if (a.kind == PG_ANSWER_ELAPSED && a.elapsed_ms < wd->wait)
			x->claimed = 0;
	}
	wd->depth--;
	return x->claimed;
}

/* Round 2 and the decision of node i, which claimed. */
static int
node_kept(struct world *wd, int i)
{
	struct node		*x = &wd->nd[i];
	struct pg_claim		 c;
	struct pg_seen		 s[NODES];
	enum pg_verdict		 v;
	size_t			 n = 0, p;
	int			 j;

	if (x->kept >= 0)
		return x->kept;
	if (!node_claimed(wd, i))
		return x->kept = 0;
	if (++wd->depth > 64) {
		wd->broken = 1;
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.node = x->name;
	c.claim_ns = x->t + x->off;
	c.visible_ns = x->v + x->off;
	c.start_ns = x->start1 + x->off;
	c.end_ns = x->end2 + x->off;
	c.settle_ms = wd->settle;
	c.horizon_ms = wd->horizon;
	c.slept = 1;
	for (j = 0; j < wd->n; j++) {
		if (j == i)
			continue;
		memset(&s[n], 0, sizeof(s[n]));
		s[n].name = wd->nd[j].name;
		if (x->unreach2[j])
			s[n].answer.kind = PG_ANSWER_UNREACHABLE;
		else
			s[n].answer = answer_of(wd, j, x->m2[j]);
		s[n].answered = !x->unreach1[j];
		s[n].sent_ns = x->sent2[j] + x->off;
		s[n].recv_ns = x->recv2[j] + x->off;
		n++;
	}
	v = pg_settle(&c, wd->wait, wd->policy, s, n, pend, &x->why, &p);
	if ((int)v != verdict_of(x->why))
		wd->broken = 2;
	/* As pollguard-check does: keep with a longer horizon, or not. */
	if (v == PG_GO && (x->hz = pg_claim_keep_horizon(&c, wd->wait)) == 0)
		v = PG_SKIP_ACTIVE;
	x->kept = v == PG_GO;
	wd->depth--;
	return x->kept;
}

/* A random rtt: mostly quick, now and then up to the timeout. */
static int64_t
rtt(struct world *wd)
{
	if (chance(90))
		return between(50000, 3 * MS);
	return between(0, wd->timeout * MS / 2);
}

static void
make_world(struct world *wd, int n, int close)
{
	struct node	*x;
	int64_t		 w, d, r, spread;
	int		 i, j, k;

	memset(wd, 0, sizeof(*wd));
	wd->n = n;
	wd->timeout = chance(50) ? 2000 : between(100, 5000);
	wd->settle = chance(30) ? 500 : between(100, close ? 2000 : 10000);
	wd->horizon = pg_claim_horizon(wd->timeout, wd->settle);
	wd->wait = wd->horizon + (chance(20) ? 1 : between(1, 600000));
	wd->policy = close || chance(50) ? PG_UNREACHABLE_RUN :
	    PG_UNREACHABLE_SKIP;
	w = wd->settle * MS / 4;
	spread = close ? 0 : chance(40) ? between(0, 5 * MS) :
	    chance(50) ? between(0, wd->settle * MS) :
	    between(0, 3 * wd->horizon * MS);

	for (i = 0; i < n; i++) {
		x = &wd->nd[i];
		do {
			random_name(x->name, sizeof(x->name));
			for (k = 0; k < i; k++)
				if (strcmp(x->name, wd->nd[k].name) == 0)
					break;
		} while (k < i);
		x->off = between(0, 1000000 * SEC);
		x->old_act = chance(50) ? NEVER_ACT :
		    -between(wd->wait * MS, 2 * wd->wait * MS) - MS;
		x->claimed = x->kept = -1;
		x->start1 = 100 * SEC + between(0, spread);

		/*
		 * Round 1. Close worlds: every answer comes before the
		 * first claim, so every node claims.
		 */
		x->end1 = x->start1 + (close ? 300000 : 0);
		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			r = close ? between(10000, 200000) : rtt(wd);
			x->m1[j] = x->start1 + r;
			r = x->m1[j] + (close ? between(0, 100000) : rtt(wd));
			if (r > x->end1)
				x->end1 = r;
			x->unreach1[j] = !close &&
			    wd->policy == PG_UNREACHABLE_SKIP && chance(3);
		}
		x->end1 += between(0, 100000);

		/*
		 * The claim, visible after the write. Now and then the
		 * process stalls (stopped, a paused VM, swapping) for up
		 * to twice the horizon: before it claims, or before round 2.
		 */
		x->t = x->end1 + between(0, close ? 1 * MS : 2 * MS);
		if (!close && chance(3))
			x->t += between(0, 2 * wd->horizon * MS);
		x->v = x->t + (close || chance(90) ? between(20000, 1 * MS) :
		    chance(70) ? between(0, 2 * w) :
		    between(0, wd->horizon * MS));

		/* The sleep, then round 2. */
		d = between(wd->settle * MS / 2, wd->settle * MS);
		if (!close && chance(3))
			d += between(0, 2 * wd->horizon * MS);
		x->end2 = x->v + d;
		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			x->sent2[j] = x->v + d + between(0, 100000);
			x->m2[j] = x->sent2[j] + (close ?
			    between(10000, 1 * MS) : rtt(wd));
			x->recv2[j] = x->m2[j] + (close ?
			    between(10000, 1 * MS) : rtt(wd));
			if (x->recv2[j] > x->end2)
				x->end2 = x->recv2[j];
			x->unreach2[j] = !close &&
			    wd->policy == PG_UNREACHABLE_SKIP && chance(3);
		}
		x->end2 += between(0, 200000);
		x->withdraw = x->end2 + between(100000, 5 * MS);

		/* A keeper's job refreshes its record from now on. */
		x->job = x->end2 + between(1 * MS, 40 * MS);
		x->period = chance(50) ? between(1 * MS, 200 * MS) :
		    between(1 * MS, wd->wait * MS / 2);
	}
}

static void
test_worlds(int n, int close, int rounds)
{
	struct world	 wd;
	int		 i, j, k, keepers, blind, bad = 0, broken = 0;
	int		 wrong = 0, claims = 0, conflicts = 0, keeps = 0;

	for (i = 0; i < rounds; i++) {
		make_world(&wd, n, close);
		keepers = blind = 0;
		for (k = 0; k < n; k++) {
			if (node_claimed(&wd, k))
				claims++;
			if (node_kept(&wd, k)) {
				keepers++;
				keeps++;
			}
		}
		/* A keeper whose round 2 found another's claim still out. */
		for (k = 0; k < n; k++)
			for (j = 0; j < n; j++)
				if (j != k && wd.nd[k].kept == 1 &&
				    wd.nd[j].claimed == 1 &&
				    wd.nd[j].withdraw > wd.nd[k].m2[j])
					blind = 1;
		if (wd.broken) {
			broken++;
			continue;
		}
		if (keepers > 1) {
			if (bad++ < 5) {
				diag("seed %" PRIu64 " world %d: %d keepers; "
				    "settle %lld timeout %lld horizon %lld "
				    "wait %lld", seed, i, keepers,
				    (long long)wd.settle,
				    (long long)wd.timeout,
				    (long long)wd.horizon,
				    (long long)wd.wait);
				for (k = 0; k < n; k++)
					diag("  %s: start %lld claim %lld "
					    "visible %lld end %lld: claimed %d "
					    "kept %d (%s)", wd.nd[k].name,
					    (long long)wd.nd[k].start1,
					    (long long)wd.nd[k].t,
					    (long long)wd.nd[k].v,
					    (long long)wd.nd[k].end2,
					    wd.nd[k].claimed, wd.nd[k].kept,
					    wd.nd[k].claimed ?
					    wname(wd.nd[k].why) : "-");
			}
		}
		{
			int	 nclaimed = 0;

			for (k = 0; k < n; k++)
				nclaimed += wd.nd[k].claimed;
			if (nclaimed > 1)
				conflicts++;
		}
		/*
		 * Close claims, no status read: nobody can wait for another's
		 * outcome, so a claimant keeps only when its round 2 comes
		 * after every other claimant withdrew.
		 */
		if (close && blind && wrong++ < 5)
			diag("seed %" PRIu64 " world %d: close claims, %d "
			    "keepers, one with another's claim still out",
			    seed, i, keepers);
	}
	diag("%d-node worlds%s: %d rounds, %d claims, %d with concurrent "
	    "claims, %d kept", n, close ? " (close)" : "", rounds, claims,
	    conflicts, keeps);
	is_int(broken, 0, "%d-node worlds%s: the simulation is sound", n,
	    close ? " (close)" : "");
	is_int(bad, 0, "%d-node worlds%s: never two keepers (seed %" PRIu64
	    ")", n, close ? " (close)" : "", seed);
	if (close)
		is_int(wrong, 0, "%d-node close worlds, no status read: a "
		    "claimant keeps only after every near claim it saw was "
		    "withdrawn (seed %" PRIu64 ")", n, seed);
	else
		ok(conflicts > rounds / 10, "%d-node worlds: concurrent "
		    "claims are common enough to test (%d)", n, conflicts);
}

/*
 * Whole rounds, event by event on one time line: every question is
 * answered as pollguard-serve does, the claim lock tested at one moment
 * and the record read at a later one (pg_status_serve), and every node's
 * check holds its claim lock from before round 1 until it exits, after
 * restoring its record or keeping its claim. A new node sleeps only when
 * some peer did not announce the rule in round 1 and decides by
 * pg_settle; a 0.3 node reads no status, always sleeps and decides by
 * settle03. A new node reads a new peer's status unless a gateway in
 * between answers 404 to /v1/status/ (sees[i][j] 0): then that peer looks
 * like a 0.3 node to it, in every round and poll. Pending peers are
 * polled after 1, 2 .. 32 ms. Stalls (SIGSTOP, a paused VM) come after
 * the claim's rename, while polling, and before a withdrawal; serves
 * stall between the lock test and the record read.
 */

/*
 * The rule of 0.3.0 (lib/decide.c at 475fb03), which 0.3 nodes run. It
 * reads no status; a claim that took more than settle/4 to become
 * visible withdraws, with or without peers; then each active peer: lose
 * when its claim may lie more than settle/4 before ours, tie-break by
 * name within settle/4, ignore it beyond. Unlike 0.4's former path for
 * peers without status, the bound on a peer's claim has no drift in it,
 * and a peer unreachable in round 1 is ordered by its round-2 answer as
 * any other (0.4 withdraws, PG_LOST_UNSEEN; see fhole03).
 */
static enum pg_verdict
settle03(const struct pg_claim *c, int64_t wait_ms,
    enum pg_unreachable policy, const struct pg_seen *seen, size_t n,
    enum pg_settle_why *why, size_t *peer)
{
	int64_t	 window = c->settle_ms * MS / 4, lo;
	size_t	 i, invalid = n, unreachable = n;

	*peer = 0;
	if (c->visible_ns - c->claim_ns > window) {
		*why = PG_LOST_SLOW_WRITE;
		return PG_SKIP_ACTIVE;
	}
	if (c->end_ns - c->start_ns > c->horizon_ms * MS - window - 50 * MS) {
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
		lo = seen[i].sent_ns - (seen[i].answer.elapsed_ms + 1) * MS -
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

enum fphase { F_R1, F_R2, F_POLL, F_DONE };

/*
 * 1: the worlds run under unreachable = run, and a fifth of the round-1
 * questions go unanswered (round 2 is always answered): a node claims
 * without knowing such a peer, and round 2 alone must order the two,
 * with the sleep for a peer that did not announce the rule.
 */
static int	 run_policy;

struct fask {
	int64_t		 sent, lockt, recd, recv;
	int64_t		 late;		/* 0.3.0 stamped sent + late */
	int		 stage;		/* 0: to test the lock; 1: to read
					   the record; 2: answered */
	int		 unreach, deciding;
	int		 claim;		/* a is the time since a claim */
	struct pg_answer a;
};

struct fnode {
	char		 name[8];
	int		 fast;		/* a new node: announces the rule;
					   0: a 0.3 node */
	int64_t		 off, old_act, start1, lock_until;
	enum fphase	 phase;
	struct fask	 q[NODES], r2[NODES];	/* the last ask; round 2 */
	int		 asked[NODES], unreach1[NODES];
	int64_t		 end;
	int64_t		 t, v, withdraw, job, period, hz;
	int		 claimed, kept, slept, npolls;
	int		 pending[NODES];
	int64_t		 backoff;
	struct pg_claim	 c;
	enum pg_settle_why why;
};

/* The kinds of worlds. */
#define MIXED		1	/* half the nodes run 0.3 */
#define LIVELY		2	/* no stalls, quick answers */
#define GATEWAY		4	/* a third of the views read no status */
#define LATE03		8	/* 0.3 nodes are 0.3.0, held up to D
				   after a write, before its stamp */
#define LATER03		16	/* ... held up to 2 D: not covered */

struct fworld {
	int		 n, stalls, lively;
	int64_t		 settle, timeout, horizon, wait;
	int64_t		 late03;	/* 0.3.0's longest hold, ns */
	struct fnode	 nd[NODES];
	int		 sees[NODES][NODES];	/* i reads j's status */
};

/*
 * Node j's record at moment m, as its serve reads it; *claim: it reports
 * a claim within its horizon (status claim_ms).
 */
static struct pg_answer
frecord(const struct fworld *w, int j, int64_t m, int *claim)
{
	const struct fnode	*y = &w->nd[j];
	struct pg_answer	 a;
	int64_t			 latest;

	memset(&a, 0, sizeof(a));
	*claim = 0;
	if (y->claimed == 1 && y->v <= m && y->withdraw > m) {
		a.kind = PG_ANSWER_ELAPSED;
		latest = y->t;
		*claim = (m - y->t) / MS < (y->kept == 1 ? y->hz : w->horizon);
		/* Past its horizon a keeper shows its job's refreshes. */
		if ((m - y->t) / MS >= (y->kept == 1 ? y->hz : w->horizon) &&
		    y->kept == 1 && y->job <= m)
			latest = y->job + (m - y->job) / y->period * y->period,
			    *claim = 0;
		a.elapsed_ms = (m - latest) / MS;
		return a;
	}
	if (y->old_act == NEVER_ACT) {
		a.kind = PG_ANSWER_NEVER;
		a.elapsed_ms = PG_NEVER;
	} else {
		a.kind = PG_ANSWER_ELAPSED;
		a.elapsed_ms = (m - y->old_act) / MS;
	}
	return a;
}

static int64_t
frtt(struct fworld *w)
{
	if (w->lively || chance(90))
		return between(50000, 3 * MS);
	return between(0, w->timeout * MS / 2);
}

/* A stall of the checking process now and then, up to twice the horizon. */
static int64_t
fstall(struct fworld *w, int percent)
{
	if (w->lively || !chance(percent))
		return 0;
	w->stalls = 1;
	return between(0, 2 * w->horizon * MS);
}

/* Ask the peers (which: NULL for all) from moment at on. */
static void
fask(struct fworld *w, int i, const int *which, int64_t at, int64_t stall)
{
	struct fnode	*x = &w->nd[i];
	struct fask	*q;
	int		 j;

	x->end = at;
	for (j = 0; j < w->n; j++) {
		x->asked[j] = j != i && (which == NULL || which[j]);
		if (!x->asked[j])
			continue;
		q = &x->q[j];
		memset(q, 0, sizeof(*q));
		q->sent = at + between(0, 100000);
		q->lockt = q->sent + frtt(w);
		/* The serve stalls now and then between lock and record. */
		q->recd = q->lockt + (w->lively || chance(95) ?
		    between(0, 200000) : between(0, 50 * MS));
		q->recv = q->recd + frtt(w) + stall;
		/* 0.3.0 reads its clock after the write, maybe held. */
		if (!x->fast && w->late03 > 0) {
			q->late = chance(30) ? w->late03 :
			    between(0, w->late03);
			if (q->recv < q->sent + q->late)
				q->recv = q->sent + q->late;
		}
		if (run_policy)
			q->unreach = x->claimed == -1 && chance(20);
		else
			q->unreach = !w->lively && chance(2);
		if (q->recv > x->end)
			x->end = q->recv;
	}
	x->end += between(0, 100000);
}

static void
fexit(struct fworld *w, struct fnode *x, int64_t at)
{
	x->lock_until = at + between(10000, 2 * MS);
	x->phase = F_DONE;
	(void)w;
}

static void
fwithdraw(struct fworld *w, struct fnode *x)
{
	x->kept = 0;
	x->withdraw = x->end + between(100000, 3 * MS) + fstall(w, 1);
	fexit(w, x, x->withdraw);
}

static void
fkeep(struct fworld *w, struct fnode *x)
{
	if ((x->hz = pg_claim_keep_horizon(&x->c, w->wait)) == 0) {
		fwithdraw(w, x);
		return;
	}
	x->kept = 1;
	x->job = x->end + between(1 * MS, 40 * MS);
	fexit(w, x, x->end + between(100000, 3 * MS));
}

/* The answers of the last ask of node i, as pg_seen. */
static size_t
fseen(struct fworld *w, int i, struct pg_seen *s, int *map)
{
	struct fnode	*x = &w->nd[i];
	struct fask	*q;
	size_t		 n = 0;
	int		 j;

	for (j = 0; j < w->n; j++) {
		if (j == i)
			continue;
		map[n] = j;
		memset(&s[n], 0, sizeof(s[n]));
		s[n].name = w->nd[j].name;
		q = &x->q[j];
		s[n].sent_ns = q->sent + q->late + x->off;
		s[n].recv_ns = q->recv + x->off;
		s[n].answered = !x->unreach1[j];
		if (!x->asked[j] || q->unreach) {
			s[n].answer.kind = PG_ANSWER_UNREACHABLE;
			n++;
			continue;
		}
		s[n].answer = q->a;
		/*
		 * A 0.3 check does not read status; a 0.3 serve has none;
		 * a gateway's 404 to /v1/status/ leaves only /v1/elapsed/.
		 */
		if (x->fast && w->nd[j].fast && w->sees[i][j]) {
			s[n].has_status = 1;
			pg_status_init(&s[n].status);
			s[n].status.elapsed_ms = q->a.elapsed_ms;
			s[n].status.claim_ms = q->claim ? q->a.elapsed_ms : -1;
			s[n].status.deciding = q->deciding;
			s[n].status.settle_ms = w->settle;
			s[n].status.timeout_ms = w->timeout;
		}
		n++;
	}
	return n;
}

/* The next event of node i: a lock test, a record read, or the end. */
static int64_t
fnext(const struct fworld *w, int i)
{
	const struct fnode	*x = &w->nd[i];
	int64_t			 m = x->end;
	int			 j;

	if (x->phase == F_DONE)
		return INT64_MAX;
	for (j = 0; j < w->n; j++) {
		if (!x->asked[j] || x->q[j].stage == 2)
			continue;
		if (x->q[j].stage == 0 && x->q[j].lockt < m)
			m = x->q[j].lockt;
		if (x->q[j].stage == 1 && x->q[j].recd < m)
			m = x->q[j].recd;
	}
	return m;
}

static void
fstep(struct fworld *w, int i, int64_t now)
{
	struct fnode	*x = &w->nd[i];
	struct pg_seen	 s[NODES];
	enum pg_verdict	 v;
	int64_t		 d;
	size_t		 n, k, p;
	int		 j, map[NODES], pend2[NODES], allfast;

	for (j = 0; j < w->n; j++) {
		if (!x->asked[j] || x->q[j].stage == 2)
			continue;
		if (x->q[j].stage == 0 && x->q[j].lockt == now) {
			/* The lock first ... */
			x->q[j].deciding = w->nd[j].start1 - 10000 <= now &&
			    now < w->nd[j].lock_until;
			x->q[j].stage = 1;
			return;
		}
		if (x->q[j].stage == 1 && x->q[j].recd == now) {
			/* ... the record after. */
			x->q[j].a = frecord(w, j, now, &x->q[j].claim);
			x->q[j].stage = 2;
			return;
		}
	}
	n = fseen(w, i, s, map);
	switch (x->phase) {
	case F_R1:
		x->claimed = 1;
		allfast = x->fast;
		for (k = 0; k < n; k++) {
			x->unreach1[map[k]] = s[k].answer.kind ==
			    PG_ANSWER_UNREACHABLE;
			if (!pg_peer_fast(&s[k]))
				allfast = 0;
			/* unreachable = skip: unreachable peers are rare. */
			if ((s[k].answer.kind == PG_ANSWER_ELAPSED &&
			    s[k].answer.elapsed_ms < w->wait) ||
			    (!run_policy &&
			    s[k].answer.kind == PG_ANSWER_UNREACHABLE))
				x->claimed = 0;
		}
		if (!x->claimed) {
			fexit(w, x, x->end);
			return;
		}
		x->t = x->end + between(0, 2 * MS);
		x->v = x->t + (chance(90) ? between(20000, 1 * MS) :
		    chance(70) || w->lively ? between(0, w->settle * MS / 4) :
		    between(0, w->horizon * MS));
		memset(&x->c, 0, sizeof(x->c));
		x->c.node = x->name;
		x->c.claim_ns = x->t + x->off;
		x->c.visible_ns = x->v + x->off;
		x->c.start_ns = x->start1 + x->off;
		x->c.settle_ms = w->settle;
		x->c.timeout_ms = w->timeout;
		x->c.horizon_ms = w->horizon;
		x->c.slept = x->slept = !allfast;
		/* 0.3 slept a random half to all of settle. */
		d = !x->slept ? 0 : x->fast ?
		    pg_settle_sleep_ns(w->settle, 1000) +
		    pg_settle_old_ns(w->settle) * 101 / 100 :
		    between(w->settle * MS / 2, w->settle * MS);
		/* The worst moment: held up after the rename. */
		fask(w, i, NULL, x->v + d + fstall(w, 3), 0);
		x->phase = F_R2;
		return;
	case F_R2:
		memcpy(x->r2, x->q, sizeof(x->r2));
		x->c.end_ns = x->end + x->off;
		if (x->fast)
			v = pg_settle(&x->c, w->wait, run_policy ?
			    PG_UNREACHABLE_RUN : PG_UNREACHABLE_SKIP, s, n,
			    pend2, &x->why, &p);
		else
			v = settle03(&x->c, w->wait, run_policy ?
			    PG_UNREACHABLE_RUN : PG_UNREACHABLE_SKIP, s, n,
			    &x->why, &p);
		break;
	case F_POLL:
		x->c.end_ns = x->end + x->off;
		for (k = 0; k < n; k++)
			pend2[k] = x->pending[map[k]];
		v = pg_settle_poll(&x->c, w->wait, s, n, pend2, &x->why, &p);
		x->npolls++;
		break;
	default:
		return;
	}
	if (v == PG_GO && x->why == PG_WAIT) {
		memset(x->pending, 0, sizeof(x->pending));
		for (k = 0; k < n; k++)
			x->pending[map[k]] = pend2[k];
		x->backoff = x->phase == F_R2 ? 1 * MS :
		    x->backoff < 32 * MS ? 2 * x->backoff : 32 * MS;
		x->phase = F_POLL;
		fask(w, i, x->pending, x->end + x->backoff, fstall(w, 1));
		return;
	}
	if (v == PG_GO)
		fkeep(w, x);
	else
		fwithdraw(w, x);
}

static void
fmake(struct fworld *w, int n, int kind)
{
	struct fnode	*x;
	int64_t		 spread;
	int		 i, j, k;

	memset(w, 0, sizeof(*w));
	w->n = n;
	w->lively = (kind & LIVELY) != 0;
	w->timeout = chance(50) ? 2000 : between(100, 5000);
	w->settle = chance(30) ? 500 : between(100, 2000);
	w->horizon = pg_claim_horizon(w->timeout, w->settle);
	w->wait = w->horizon + (chance(20) ? 1 : between(1, 600000));
	/* The holds staged: up to settle, what D is meant to cover. */
	w->late03 = (kind & LATE03) ? w->settle * MS :
	    (kind & LATER03) ? 2 * w->settle * MS : 0;
	spread = chance(50) ? between(0, 5 * MS) : chance(50) ?
	    between(0, 50 * MS) : between(0, w->settle * MS);
	for (i = 0; i < n; i++) {
		x = &w->nd[i];
		do {
			random_name(x->name, sizeof(x->name));
			for (k = 0; k < i; k++)
				if (strcmp(x->name, w->nd[k].name) == 0)
					break;
		} while (k < i);
		x->fast = !(kind & MIXED) || chance(50);
		for (j = 0; j < n; j++)
			w->sees[i][j] = j == i || !(kind & GATEWAY) ||
			    rnd() % 3 != 0;
		x->off = between(0, 1000000 * SEC);
		x->old_act = chance(50) ? NEVER_ACT :
		    -between(w->wait * MS, 2 * w->wait * MS) - MS;
		x->claimed = x->kept = -1;
		x->withdraw = x->lock_until = INT64_MAX;
		x->period = between(1 * MS, 200 * MS);
		x->start1 = 100 * SEC + between(0, spread);
		fask(w, i, NULL, x->start1, 0);
	}
}

/*
 * 0.3.0's own hole (CHANGES, 0.4.0): a 0.3 node kept although a keeper
 * it did not reach in round 1 was active in round 2. That keeper may
 * have kept long before, its record showing its job's refreshes, which
 * 0.3 takes for a claim later than its own (unreachable = run only).
 */
static int
fhole03(const struct fworld *w)
{
	const struct fnode	*x;
	int			 i, j;

	for (i = 0; i < w->n; i++) {
		x = &w->nd[i];
		if (x->fast || x->kept != 1)
			continue;
		for (j = 0; j < w->n; j++)
			if (j != i && x->unreach1[j] && w->nd[j].kept == 1 &&
			    !x->r2[j].unreach &&
			    x->r2[j].a.kind == PG_ANSWER_ELAPSED &&
			    x->r2[j].a.elapsed_ms < w->wait)
				return 1;
	}
	return 0;
}

/*
 * 0.3.0's late stamp between two 0.3.0 nodes (LATE03): every keeper is a
 * 0.3 node. No rule of a new node orders those two.
 */
static int
fonly03(const struct fworld *w)
{
	int	 i;

	for (i = 0; i < w->n; i++)
		if (w->nd[i].fast && w->nd[i].kept == 1)
			return 0;
	return w->late03 > 0;
}

/* A moment of the time line, in ms from the start of the first round. */
static double
fms(int64_t t)
{
	return (double)(t - 100 * SEC) / MS;
}

/* Everything that happened in a round, for a failure's diag. */
static void
fstory(const struct fworld *w, int r, const char *what)
{
	const struct fnode	*x;
	const struct fask	*q;
	int			 i, j;

	diag("seed %" PRIu64 " %s, round %d: settle %lld timeout %lld "
	    "horizon %lld wait %lld (times in ms)", seed, what, r,
	    (long long)w->settle, (long long)w->timeout,
	    (long long)w->horizon, (long long)w->wait);
	for (i = 0; i < w->n; i++) {
		x = &w->nd[i];
		diag("  %s (%s): start %.3f, claimed %d at %.3f visible %.3f, "
		    "slept %d, decided at %.3f: kept %d (%s, %d polls), "
		    "withdrew at %.3f, job at %.3f", x->name,
		    x->fast ? "new" : "0.3", fms(x->start1), x->claimed,
		    fms(x->t), fms(x->v), x->slept, fms(x->end), x->kept,
		    x->claimed == 1 ? wname(x->why) : "-", x->npolls,
		    x->withdraw == INT64_MAX ? -1.0 : fms(x->withdraw),
		    x->kept == 1 ? fms(x->job) : -1.0);
		if (x->claimed != 1)
			continue;
		for (j = 0; j < w->n; j++) {
			q = &x->r2[j];
			if (j == i)
				continue;
			diag("    round 2 to %s: %s, reached in round 1 %d, "
			    "sent %.3f (stamped %.3f later), lock %.3f "
			    "(deciding %d), record %.3f (%s %lld ms, claim "
			    "%d), received %.3f",
			    w->nd[j].name, !x->fast || !w->nd[j].fast ?
			    "no status (0.3)" : w->sees[i][j] ? "status" :
			    "no status (gateway)", !x->unreach1[j],
			    fms(q->sent), (double)q->late / MS, fms(q->lockt),
			    q->deciding,
			    fms(q->recd), q->unreach ? "unreachable" :
			    q->a.kind == PG_ANSWER_NEVER ? "never" : "elapsed",
			    q->a.kind == PG_ANSWER_NEVER ? -1LL :
			    (long long)q->a.elapsed_ms, q->claim,
			    fms(q->recv));
		}
	}
}

static void
test_fast_worlds(int n, int kind, int rounds)
{
	struct fworld	 w;
	char		 what[128];
	int64_t		 t, m;
	int		 r, i, j, k, steps, keepers, claims, newclaim, allsee;
	int		 bad = 0, empty = 0, lost = 0, broken = 0, hole = 0;
	int		 conflicts = 0, polled = 0, only03 = 0;

	snprintf(what, sizeof(what), "%d-node fast worlds%s%s%s%s%s", n,
	    kind & MIXED ? " (mixed with 0.3)" : "",
	    kind & LATE03 ? " (0.3.0 held up to D after a write)" :
	    kind & LATER03 ? " (0.3.0 held up to 2 D after a write)" : "",
	    kind & GATEWAY ? " (gateways)" : "",
	    kind & LIVELY ? " (no stalls)" : "",
	    run_policy ? " (unreachable in round 1)" : "");
	for (r = 0; r < rounds; r++) {
		fmake(&w, n, kind);
		for (steps = 0; steps < 100000; steps++) {
			t = INT64_MAX;
			k = -1;
			for (i = 0; i < n; i++)
				if ((m = fnext(&w, i)) < t) {
					t = m;
					k = i;
				}
			if (k < 0)
				break;
			fstep(&w, k, t);
		}
		if (steps == 100000) {
			broken++;
			continue;
		}
		keepers = claims = newclaim = 0;
		allsee = 1;
		for (i = 0; i < n; i++) {
			keepers += w.nd[i].kept == 1;
			claims += w.nd[i].claimed == 1;
			newclaim += w.nd[i].claimed == 1 && w.nd[i].fast;
			polled += w.nd[i].npolls > 0;
			for (j = 0; j < n; j++)
				if (!w.nd[i].fast || !w.sees[i][j] ||
				    (w.nd[i].claimed == 1 &&
				    w.nd[i].unreach1[j]))
					allsee = 0;
		}
		conflicts += claims > 1;
		if (keepers > 1 && fhole03(&w)) {
			if (hole++ == 0 && !(kind & LATER03))
				fstory(&w, r, what);
		} else if (keepers > 1 && fonly03(&w))
			only03++;
		else if (keepers > 1 && bad++ < 5 && !(kind & LATER03))
			fstory(&w, r, what);
		/*
		 * Every node new and reading every other's status, no
		 * stalls: of the claimants, one keeps. Where a status cannot
		 * be read, a near claim loses both; a claimant that did not
		 * reach a peer in round 1 withdraws when it finds it active
		 * (counted, not required).
		 */
		if ((kind & LIVELY) && newclaim > 0 && keepers == 0) {
			if (!allsee)
				lost++;
			else if (empty++ < 5)
				fstory(&w, r, what);
		}
	}
	diag("%s: %d rounds, %d with concurrent claims, %d nodes polled",
	    what, rounds, conflicts, polled);
	if (hole > 0)
		diag("%s: %d rounds with two keepers through 0.3.0's own "
		    "hole (a peer unreached in round 1, active in round 2)",
		    what, hole);
	if (only03 > 0)
		diag("%s: %d rounds with two 0.3.0 keepers (its late stamp "
		    "between two 0.3.0 nodes)", what, only03);
	if ((kind & LIVELY) && ((kind & (MIXED | GATEWAY)) || run_policy))
		diag("%s: %d rounds lost by claimants that could not read "
		    "a status or reach a peer in round 1", what, lost);
	is_int(broken, 0, "%s: every round ends", what);
	/* What D does not cover (pollguard(7), COMPATIBILITY). */
	if (kind & LATER03)
		ok(bad > 0, "%s: two keepers do happen beyond D (%d rounds): "
		    "the worlds find what D does not cover", what, bad);
	else
		is_int(bad, 0, "%s: never two keepers%s (seed %" PRIu64 ")",
		    what, (kind & MIXED) && run_policy ? " (0.3.0's own hole "
		    "aside)" : "", seed);
	if (kind & LIVELY)
		is_int(empty, 0, "%s: never zero keepers among claimants that "
		    "all read each other's status and reached each other in "
		    "round 1 (seed %" PRIu64 ")", what, seed);
	ok(conflicts > rounds / 20 && polled > 0, "%s: concurrent claims "
	    "(%d) and polls (%d) reached", what, conflicts, polled);
}

/*
 * The worst case for a claim that became visible late, staged: X's write
 * takes 3 s, X sees nobody active and keeps; B asked X just before X's
 * claim became visible, so B claims too, and B's round 2, stalled, asks X
 * after X's first horizon has passed and X's job has refreshed. Without
 * the longer horizon B would see the refresh, take X for later, and keep.
 */
static void
test_slow_disk(void)
{
	struct world	 wd;
	struct node	*x, *b;

	memset(&wd, 0, sizeof(wd));
	wd.n = 2;
	wd.timeout = 2000;
	wd.settle = 500;
	wd.horizon = pg_claim_horizon(wd.timeout, wd.settle);
	wd.wait = 60 * 1000;
	wd.policy = PG_UNREACHABLE_RUN;
	x = &wd.nd[0];
	b = &wd.nd[1];
	strlcpy(x->name, "x", sizeof(x->name));
	strlcpy(b->name, "b", sizeof(b->name));
	x->old_act = b->old_act = NEVER_ACT;
	x->claimed = x->kept = b->claimed = b->kept = -1;

	x->start1 = 100 * SEC;
	x->m1[1] = x->start1 + 1 * MS;
	x->end1 = x->start1 + 2 * MS;
	x->t = x->end1 + 1 * MS;
	x->v = x->t + 3 * SEC;
	x->sent2[1] = x->v + pg_settle_sleep_ns(wd.settle, 1000);
	x->m2[1] = x->sent2[1] + 1 * MS;
	x->recv2[1] = x->end2 = x->m2[1] + 1 * MS;
	x->withdraw = x->end2 + 1 * MS;
	x->job = x->end2 + 1 * MS;
	x->period = 1 * MS;

	b->start1 = x->v - 3 * MS;
	b->m1[0] = x->v - 2 * MS;
	b->end1 = x->v + 500 * MS;
	b->t = b->end1 + 1 * MS;
	b->v = b->t + 1 * MS;
	b->sent2[0] = b->v + 2500 * MS;
	b->m2[0] = b->sent2[0] + 1 * MS;
	b->recv2[0] = b->end2 = b->m2[0] + 1 * MS;
	b->withdraw = b->end2 + 1 * MS;
	b->job = b->end2 + 1 * MS;
	b->period = 1 * MS;

	ok(b->m2[0] - x->t > wd.horizon * MS && b->m2[0] > x->job,
	    "slow disk: B asks after X's first horizon and X's refresh");
	is_int(node_claimed(&wd, 0) + node_claimed(&wd, 1), 2,
	    "slow disk: both claim");
	is_int(node_kept(&wd, 0), 1, "slow disk: X, seeing nobody, keeps");
	is_int(node_kept(&wd, 1), 0, "slow disk: B sees X's claim, loses");
	is_int(wd.broken, 0, "slow disk: the simulation is sound");
}


/*
 * Handover in round 2: a peer whose last run failed and that has been
 * idle since (pg_handover_ignores) does not beat us, whatever its
 * elapsed says; one that claimed since, or still runs, does, as any
 * peer. A hold seen in round 2 withdraws. on_failure stay: all count.
 */
static void
test_settle_handover(void)
{
	struct pg_claim	 c = claim_of("m");
	struct pg_seen	 s;

	/* Active 5 s before our claim: beats us unless ignored. */
	s = seen_at("a", -5 * SEC, 0, 5000);
	s.has_status = 1;
	pg_status_init(&s.status);
	s.status.elapsed_ms = 5000;
	s.status.failures = 1;
	s.status.last = 1;
	s.status.last_exit = 1;
	s.status.last_end_ms = 5000;
	why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_KEEP,
	    "handover: a failed, idle peer does not count");
	c.on_failure = PG_ON_FAILURE_STAY;
	why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_LOST_EARLIER,
	    "stay: the failed peer counts");
	c.on_failure = PG_ON_FAILURE_HANDOVER;
	s.status.claim_ms = 5000;
	why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_LOST_EARLIER,
	    "handover: a failed peer with a claim counts");
	s.status.claim_ms = -1;
	s.status.running = 1;
	why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_LOST_EARLIER,
	    "handover: a failed peer running again counts");
	s.status.running = 0;
	s.has_status = 0;
	why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_LOST_EARLIER,
	    "handover: a peer before 0.4 counts");

	/* A hold put on while we settled: withdraw, also from an idle peer. */
	s = seen_at("z", 1 * SEC, 0, 0);
	s.answer.kind = PG_ANSWER_NEVER;
	s.answer.elapsed_ms = PG_NEVER;
	s.has_status = 1;
	pg_status_init(&s.status);
	why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_KEEP, "no hold: keep");
	s.status.hold_ms = 60000;
	why_is(&c, PG_UNREACHABLE_RUN, &s, 1, PG_LOST_HELD,
	    "a hold in round 2: withdraw");
}

int
main(void)
{
	rng_init("");
	test_horizon();
	test_settle_basic();
	test_settle_handover();
	test_settle_window();
	test_settle_slow();
	test_name_order();
	test_fast_rule();
	test_reference();
	test_two_views();
	test_slow_disk();
	test_worlds(2, 1, 20000);
	test_worlds(3, 1, 20000);
	test_worlds(2, 0, 50000);
	test_worlds(3, 0, 50000);
	test_fast_worlds(2, LIVELY, 5000);
	test_fast_worlds(3, LIVELY, 5000);
	test_fast_worlds(2, 0, 10000);
	test_fast_worlds(3, 0, 10000);
	test_fast_worlds(2, MIXED, 5000);
	test_fast_worlds(3, MIXED, 5000);
	test_fast_worlds(2, GATEWAY, 10000);
	test_fast_worlds(3, GATEWAY, 10000);
	test_fast_worlds(2, GATEWAY | MIXED, 5000);
	test_fast_worlds(3, GATEWAY | MIXED, 5000);
	test_fast_worlds(2, GATEWAY | LIVELY, 5000);
	test_fast_worlds(3, GATEWAY | LIVELY, 5000);
	test_fast_worlds(2, MIXED | LATE03, 10000);
	test_fast_worlds(3, MIXED | LATE03, 10000);
	test_fast_worlds(2, MIXED | LATE03 | LIVELY, 10000);
	test_fast_worlds(3, GATEWAY | MIXED | LATE03, 10000);
	test_fast_worlds(2, MIXED | LATER03 | LIVELY, 10000);
	run_policy = 1;
	test_fast_worlds(2, LIVELY, 5000);
	test_fast_worlds(3, LIVELY, 5000);
	test_fast_worlds(2, MIXED, 10000);
	test_fast_worlds(3, MIXED, 10000);
	test_fast_worlds(2, 0, 5000);
	test_fast_worlds(3, 0, 5000);
	test_fast_worlds(2, GATEWAY, 5000);
	test_fast_worlds(3, GATEWAY, 5000);
	test_fast_worlds(2, GATEWAY | MIXED, 10000);
	test_fast_worlds(3, GATEWAY | MIXED, 10000);
	test_fast_worlds(2, GATEWAY | LIVELY, 5000);
	test_fast_worlds(3, GATEWAY | LIVELY, 5000);
	test_fast_worlds(2, MIXED | LATE03, 10000);
	test_fast_worlds(3, MIXED | LATE03, 10000);
	return done_testing();
}
