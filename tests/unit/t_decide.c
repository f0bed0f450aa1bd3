/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for decide.c: pg_decide, against the rule in pollguard.h and
 * an independently written reference, over every combination of answers
 * of up to three peers; then a table of the rules of issue 13 that read
 * statuses: hold, handover, cooldown, rotation, peers before 0.4.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"

#define WAIT	(10 * 60 * 1000LL)

/* The answer kinds of the exhaustive loop. */
enum kind {
	K_ACTIVE,	/* elapsed one ms below wait */
	K_EXACT,	/* elapsed exactly wait */
	K_NEVER,
	K_UNREACHABLE,
	K_INVALID,
	K_COUNT
};

static const char *const kind_names[] = {
	"active", "exactly-wait", "never", "unreachable", "invalid"
};

static const char *const verdict_names[] = {
	"GO", "SKIP_ACTIVE", "SKIP_LOCAL", "SKIP_UNREACHABLE",
	"REFUSE_INVALID"
};

static const char *
vname(int v)
{
	if (v >= 0 && v < 4)
		return verdict_names[v];
	if (v == PG_REFUSE_INVALID)
		return verdict_names[4];
	return "(bad verdict)";
}

static struct pg_answer
answer(enum kind k, int64_t wait)
{
	struct pg_answer	 a;

	/* elapsed_ms 0 where it is meaningless: it must not be looked at. */
	memset(&a, 0, sizeof(a));
	switch (k) {
	case K_ACTIVE:
		a.kind = PG_ANSWER_ELAPSED;
		a.elapsed_ms = wait - 1;
		break;
	case K_EXACT:
		a.kind = PG_ANSWER_ELAPSED;
		a.elapsed_ms = wait;
		break;
	case K_NEVER:
		a.kind = PG_ANSWER_NEVER;
		break;
	case K_UNREACHABLE:
		a.kind = PG_ANSWER_UNREACHABLE;
		break;
	default:
		a.kind = PG_ANSWER_INVALID;
		break;
	}
	return a;
}

/*
 * The reference: the header's rule written out as a table of questions.
 * Returns the verdict; *need is the kind the deciding peer must have, or
 * -1 when no peer decides.
 */
static int
reference(int local, enum pg_unreachable policy, const enum kind *k,
    size_t n, int *need)
{
	int	 has[K_COUNT] = { 0 };
	size_t	 i;

	for (i = 0; i < n; i++)
		has[k[i]] = 1;
	*need = -1;
	if (local)
		return PG_SKIP_LOCAL;
	if (has[K_ACTIVE]) {
		*need = K_ACTIVE;
		return PG_SKIP_ACTIVE;
	}
	if (has[K_INVALID]) {
		*need = K_INVALID;
		return PG_REFUSE_INVALID;
	}
	if (has[K_UNREACHABLE] && policy == PG_UNREACHABLE_SKIP) {
		*need = K_UNREACHABLE;
		return PG_SKIP_UNREACHABLE;
	}
	return PG_GO;
}

static void
decide(int64_t wait, enum pg_unreachable policy, int local,
    const struct pg_answer *a, size_t n, struct pg_decision *d)
{
	struct pg_cluster	 c;
	struct pg_seen		 seen[8];
	size_t			 i;

	/* The answers as check has them: one pg_seen per peer. */
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n && i < 8; i++) {
		seen[i].name = "peer";
		seen[i].answer = a[i];
	}
	/* Garbage first: every field the verdict relies on must be set. */
	memset(d, 0xa5, sizeof(*d));
	memset(&c, 0, sizeof(c));
	c.wait_ms = wait;
	c.cooldown_ms = wait;
	c.unreachable = policy;
	pg_decide(&c, "self", NULL, local, seen, n, d);
}

/* One explicit case with a known verdict and deciding peer. */
static void
check(const char *name, int64_t wait, enum pg_unreachable policy, int local,
    const struct pg_answer *a, size_t n, enum pg_verdict want,
    int want_standalone, size_t want_peer)
{
	struct pg_decision	 d;

	decide(wait, policy, local, a, n, &d);
	if (!is_int(d.verdict, want, "%s: %s", name, vname(want)))
		diag("got %s", vname(d.verdict));
	if (want_standalone >= 0)
		is_int(d.standalone != 0, want_standalone, "%s: standalone %d",
		    name, want_standalone);
	if (want == PG_SKIP_ACTIVE || want == PG_SKIP_UNREACHABLE ||
	    want == PG_REFUSE_INVALID)
		is_int(d.peer, want_peer, "%s: peer %zu", name, want_peer);
}

#define A(k, e)		{ (k), (e) }
#define EL(e)		A(PG_ANSWER_ELAPSED, e)
#define NEVER		A(PG_ANSWER_NEVER, 0)
#define UNREACH		A(PG_ANSWER_UNREACHABLE, 0)
#define INVALID		A(PG_ANSWER_INVALID, 0)
#define N(a)		(sizeof(a) / sizeof((a)[0]))

static void
test_rules(void)
{
	const struct pg_answer	 active[] = { EL(0) };
	const struct pg_answer	 below[] = { EL(WAIT - 1) };
	const struct pg_answer	 equal[] = { EL(WAIT) };
	const struct pg_answer	 above[] = { EL(WAIT + 1) };
	const struct pg_answer	 huge[] = { EL(PG_NEVER) };
	const struct pg_answer	 never[] = { NEVER };
	const struct pg_answer	 unreach[] = { UNREACH };
	const struct pg_answer	 invalid[] = { INVALID };
	const struct pg_answer	 third[] = { NEVER, EL(WAIT), EL(5) };
	const struct pg_answer	 second_unreach[] = { NEVER, UNREACH, NEVER };
	const struct pg_answer	 second_invalid[] = { EL(WAIT), INVALID };
	const struct pg_answer	 inv_act[] = { INVALID, EL(1) };
	const struct pg_answer	 act_inv[] = { EL(1), INVALID };
	const struct pg_answer	 unr_inv[] = { UNREACH, INVALID };
	const struct pg_answer	 inv_unr[] = { INVALID, UNREACH };
	const struct pg_answer	 unr_act[] = { UNREACH, EL(WAIT - 1) };
	const struct pg_answer	 all_go[] = { NEVER, EL(WAIT), UNREACH,
	    EL(PG_NEVER) };
	struct pg_answer	 sentinel[2] = { NEVER, EL(0) };

	/* Every misconfiguration kind refuses, before an unreachable skip. */
	{
		static const enum pg_answer_kind bad[] = { PG_ANSWER_REFUSED,
		    PG_ANSWER_UNKNOWN, PG_ANSWER_SELF, PG_ANSWER_INVALID };
		struct pg_answer	 two[2];
		size_t			 k;

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			two[0] = (struct pg_answer)UNREACH;
			two[1].kind = bad[k];
			two[1].elapsed_ms = 0;
			ok(PG_ANSWER_BAD(bad[k]), "kind %d is bad", bad[k]);
			check("bad kind after unreachable", WAIT,
			    PG_UNREACHABLE_SKIP, 0, two, 2, PG_REFUSE_INVALID,
			    0, 1);
		}
		ok(!PG_ANSWER_BAD(PG_ANSWER_UNREACHABLE) &&
		    !PG_ANSWER_BAD(PG_ANSWER_NEVER) &&
		    !PG_ANSWER_BAD(PG_ANSWER_ELAPSED), "answers are not bad");
	}

	/* No peers: go, standalone; a local run still skips. */
	check("no peers", WAIT, PG_UNREACHABLE_RUN, 0, NULL, 0, PG_GO, 1, 0);
	check("no peers, policy skip", WAIT, PG_UNREACHABLE_SKIP, 0, NULL, 0,
	    PG_GO, 1, 0);
	check("no peers, local run", WAIT, PG_UNREACHABLE_RUN, 1, NULL, 0,
	    PG_SKIP_LOCAL, 0, 0);

	/* A local run beats everything. */
	check("local run, peer active", WAIT, PG_UNREACHABLE_RUN, 1, active, 1,
	    PG_SKIP_LOCAL, 0, 0);
	check("local run, peer invalid", WAIT, PG_UNREACHABLE_SKIP, 1,
	    invalid, 1, PG_SKIP_LOCAL, 0, 0);
	check("local run, peer never", WAIT, PG_UNREACHABLE_RUN, 1, never, 1,
	    PG_SKIP_LOCAL, 0, 0);

	/* Elapsed against wait: strictly below skips, equal allows. */
	check("elapsed 0", WAIT, PG_UNREACHABLE_RUN, 0, active, 1,
	    PG_SKIP_ACTIVE, 0, 0);
	check("elapsed wait - 1", WAIT, PG_UNREACHABLE_RUN, 0, below, 1,
	    PG_SKIP_ACTIVE, 0, 0);
	check("elapsed == wait", WAIT, PG_UNREACHABLE_RUN, 0, equal, 1,
	    PG_GO, 0, 0);
	check("elapsed wait + 1", WAIT, PG_UNREACHABLE_RUN, 0, above, 1,
	    PG_GO, 0, 0);
	check("elapsed PG_NEVER", WAIT, PG_UNREACHABLE_RUN, 0, huge, 1,
	    PG_GO, 0, 0);
	check("elapsed PG_NEVER, wait 30d", PG_WAIT_MAX_MS,
	    PG_UNREACHABLE_SKIP, 0, huge, 1, PG_GO, 0, 0);
	check("elapsed wait - 1, wait 30d", PG_WAIT_MAX_MS,
	    PG_UNREACHABLE_RUN, 0, (struct pg_answer[]){ EL(PG_WAIT_MAX_MS -
	    1) }, 1, PG_SKIP_ACTIVE, 0, 0);
	check("elapsed 10s, wait 10s", PG_WAIT_MIN_MS, PG_UNREACHABLE_RUN, 0,
	    (struct pg_answer[]){ EL(PG_WAIT_MIN_MS) }, 1, PG_GO, 0, 0);
	check("never", WAIT, PG_UNREACHABLE_RUN, 0, never, 1, PG_GO, 0, 0);
	check("never, policy skip", WAIT, PG_UNREACHABLE_SKIP, 0, never, 1,
	    PG_GO, 0, 0);
	check("the third peer active", WAIT, PG_UNREACHABLE_RUN, 0, third,
	    N(third), PG_SKIP_ACTIVE, 0, 2);

	/* Unreachable peers follow the policy. */
	check("unreachable, policy run", WAIT, PG_UNREACHABLE_RUN, 0, unreach,
	    1, PG_GO, 0, 0);
	check("unreachable, policy skip", WAIT, PG_UNREACHABLE_SKIP, 0,
	    unreach, 1, PG_SKIP_UNREACHABLE, 0, 0);
	check("second unreachable, policy skip", WAIT, PG_UNREACHABLE_SKIP, 0,
	    second_unreach, N(second_unreach), PG_SKIP_UNREACHABLE, 0, 1);
	check("second unreachable, policy run", WAIT, PG_UNREACHABLE_RUN, 0,
	    second_unreach, N(second_unreach), PG_GO, 0, 0);

	/* Invalid answers refuse under either policy. */
	check("invalid, policy run", WAIT, PG_UNREACHABLE_RUN, 0, invalid, 1,
	    PG_REFUSE_INVALID, 0, 0);
	check("invalid, policy skip", WAIT, PG_UNREACHABLE_SKIP, 0, invalid,
	    1, PG_REFUSE_INVALID, 0, 0);
	check("second invalid", WAIT, PG_UNREACHABLE_RUN, 0, second_invalid,
	    N(second_invalid), PG_REFUSE_INVALID, 0, 1);

	/* Precedence: active, then invalid, then unreachable. */
	check("invalid then active", WAIT, PG_UNREACHABLE_SKIP, 0, inv_act,
	    N(inv_act), PG_SKIP_ACTIVE, 0, 1);
	check("active then invalid", WAIT, PG_UNREACHABLE_SKIP, 0, act_inv,
	    N(act_inv), PG_SKIP_ACTIVE, 0, 0);
	check("unreachable then invalid, policy skip", WAIT,
	    PG_UNREACHABLE_SKIP, 0, unr_inv, N(unr_inv), PG_REFUSE_INVALID,
	    0, 1);
	check("invalid then unreachable, policy skip", WAIT,
	    PG_UNREACHABLE_SKIP, 0, inv_unr, N(inv_unr), PG_REFUSE_INVALID,
	    0, 0);
	check("unreachable then active, policy skip", WAIT,
	    PG_UNREACHABLE_SKIP, 0, unr_act, N(unr_act), PG_SKIP_ACTIVE, 0, 1);
	check("never, wait, unreachable, huge: policy run", WAIT,
	    PG_UNREACHABLE_RUN, 0, all_go, N(all_go), PG_GO, 0, 0);
	check("never, wait, unreachable, huge: policy skip", WAIT,
	    PG_UNREACHABLE_SKIP, 0, all_go, N(all_go), PG_SKIP_UNREACHABLE, 0,
	    2);

	/* Only n answers are read. */
	check("an active answer beyond n is ignored", WAIT,
	    PG_UNREACHABLE_RUN, 0, sentinel, 1, PG_GO, 0, 0);
	check("an active answer beyond n = 0 is ignored", WAIT,
	    PG_UNREACHABLE_RUN, 0, sentinel + 1, 0, PG_GO, 1, 0);
}

static void
test_exhaustive(void)
{
	static const int64_t waits[] = { WAIT, PG_WAIT_MIN_MS, PG_WAIT_MAX_MS };
	struct pg_answer	 a[4];
	struct pg_decision	 d;
	enum kind		 k[3];
	char			 desc[128];
	size_t			 n, i, combos, c, w;
	int			 local, policy, want, need, good;

	for (w = 0; w < sizeof(waits) / sizeof(waits[0]); w++)
	for (n = 0; n <= 3; n++) {
		for (combos = 1, i = 0; i < n; i++)
			combos *= K_COUNT;
		for (c = 0; c < combos; c++)
		for (policy = 0; policy < 2; policy++)
		for (local = 0; local < 2; local++) {
			size_t	 rest = c;

			desc[0] = '\0';
			for (i = 0; i < n; i++) {
				k[i] = rest % K_COUNT;
				rest /= K_COUNT;
				a[i] = answer(k[i], waits[w]);
				strlcat(desc, kind_names[k[i]], sizeof(desc));
				strlcat(desc, i + 1 < n ? "," : "",
				    sizeof(desc));
			}
			/* Beyond n: an active answer that must not count. */
			for (i = n; i < 4; i++)
				a[i] = answer(K_ACTIVE, waits[w]);
			want = reference(local, policy, k, n, &need);
			decide(waits[w], policy, local, a, n, &d);
			good = (int)d.verdict == want;
			if (good && need >= 0)
				good = d.peer < n &&
				    k[d.peer] == (enum kind)need;
			if (good && n > 0)
				good = d.standalone == 0;
			if (good && n == 0)
				good = (d.standalone != 0) == (want == PG_GO);
			ok(good, "wait %lld [%s] %s%s: %s", (long long)waits[w],
			    n == 0 ? "no peers" : desc,
			    policy == PG_UNREACHABLE_SKIP ? "skip" : "run",
			    local ? ", local run" : "", vname(want));
			if (!good)
				diag("got %s, peer %zu, standalone %d",
				    vname(d.verdict), d.peer, d.standalone);
		}
	}
}


/*
 * The status rules. A peer: how it answered and what its status says.
 * Times are ms before now; -1: not set.
 */
enum how { H_NONE, H_STATUS, H_OLD, H_UNREACH };

struct peer {
	enum how	 how;
	int64_t		 elapsed;	/* PG_NEVER: never */
	int		 failures;
	int		 running;
	int64_t		 end;		/* last run ended; -1: no run */
	int64_t		 claim;		/* -1: none */
	int64_t		 hold;		/* 0: none */
};

#define MIN	(60 * 1000LL)
#define COOL	(5 * MIN)
/* A peer: idle, healthy; active; failed 1 min ago and idle since. */
#define IDLE	{ H_STATUS, 20 * MIN, 0, 0, 20 * MIN, -1, 0 }
#define BUSY	{ H_STATUS, 1000, 0, 0, 1000, -1, 0 }
#define FAILED(e) { H_STATUS, (e), 1, 0, (e), -1, 0 }
#define OLD(e)	{ H_OLD, (e), 0, 0, -1, -1, 0 }
#define DOWN	{ H_UNREACH, 0, 0, 0, -1, -1, 0 }

struct row {
	const char	*name;
	enum pg_on_failure on_failure;
	struct peer	 own;		/* how: H_NONE for own unknown */
	struct peer	 p[3];		/* how H_NONE: no such peer */
	enum pg_verdict	 verdict;
	enum pg_reason	 reason;
	size_t		 peer;		/* deciding peer; 9: do not check */
	size_t		 failed;	/* peer not counted; 9: none */
	const char	*text;		/* part of pg_decision_text */
};

static const struct row rows[] = {
	{ "healthy, an idle peer: go", 0, IDLE, { IDLE }, PG_GO,
	    PG_REASON_GO, 9, 9, "go" },
	{ "an active peer: skip", 0, IDLE, { IDLE, BUSY }, PG_SKIP_ACTIVE,
	    PG_REASON_ACTIVE, 1, 9, "skip: p1 was active 1s ago" },
	{ "an age that cannot be formatted reads ?, not garbage", 0, IDLE,
	    { IDLE, { H_STATUS, -5, 0, 0, -1, -1, 0 } }, PG_SKIP_ACTIVE,
	    PG_REASON_ACTIVE, 1, 9, "skip: p1 was active ? ago" },
	{ "held here: skip", 0, { H_STATUS, 20 * MIN, 0, 0, -1, -1, 9000 },
	    { IDLE }, PG_SKIP_ACTIVE, PG_REASON_HELD, 9, 9,
	    "skip: held by ops for 9s more (shown by this node): disk" },
	{ "held by a peer: skip", 0, IDLE,
	    { IDLE, { H_STATUS, PG_NEVER, 0, 0, -1, -1, 60000 } },
	    PG_SKIP_ACTIVE, PG_REASON_HELD, 1, 9, "(shown by p1)" },
	{ "held beats an active peer", 0, IDLE,
	    { BUSY, { H_STATUS, PG_NEVER, 0, 0, -1, -1, 1 } },
	    PG_SKIP_ACTIVE, PG_REASON_HELD, 1, 9, "held" },
	{ "held, on_failure stay: skip too", PG_ON_FAILURE_STAY, IDLE,
	    { { H_STATUS, PG_NEVER, 0, 0, -1, -1, 1 } },
	    PG_SKIP_ACTIVE, PG_REASON_HELD, 0, 9, "held" },
	{ "a held peer unreachable: no hold seen", 0, IDLE,
	    { { H_UNREACH, 0, 0, 0, -1, -1, 60000 } }, PG_GO,
	    PG_REASON_GO, 9, 9, "go" },
	{ "a failed peer, idle since: not counted, go", 0, IDLE,
	    { FAILED(MIN), IDLE }, PG_GO, PG_REASON_GO, 9, 0,
	    "go: handover (p0's last run failed: exit 1)" },
	{ "a failed peer, on_failure stay: skip", PG_ON_FAILURE_STAY, IDLE,
	    { FAILED(MIN) }, PG_SKIP_ACTIVE, PG_REASON_ACTIVE, 0, 9,
	    "was active" },
	{ "a failed peer still running: skip", 0, IDLE,
	    { { H_STATUS, 1000, 2, 1, MIN, -1, 0 } }, PG_SKIP_ACTIVE,
	    PG_REASON_ACTIVE, 0, 9, "was active" },
	{ "a failed peer that claimed since: skip", 0, IDLE,
	    { { H_STATUS, 500, 1, 0, MIN, 500, 0 } }, PG_SKIP_ACTIVE,
	    PG_REASON_ACTIVE, 0, 9, "was active" },
	{ "a failed peer whose claim is older than its end: skip", 0, IDLE,
	    { { H_STATUS, 3000, 1, 0, 1000, 3000, 0 } }, PG_SKIP_ACTIVE,
	    PG_REASON_ACTIVE, 0, 9, "was active" },
	{ "a failed peer active after its end: skip", 0, IDLE,
	    { { H_STATUS, 5000, 1, 0, MIN, -1, 0 } }, PG_SKIP_ACTIVE,
	    PG_REASON_ACTIVE, 0, 9, "was active" },
	{ "a failed peer, last refresh within the slack: not counted", 0,
	    IDLE, { { H_STATUS, MIN - 999, 1, 0, MIN, -1, 0 } }, PG_GO,
	    PG_REASON_GO, 9, 0, "handover" },
	{ "a failed peer and an active one: skip", 0, IDLE,
	    { FAILED(MIN), BUSY }, PG_SKIP_ACTIVE, PG_REASON_ACTIVE, 1, 0,
	    "p1 was active" },
	{ "a peer before 0.4, active: skip", 0, IDLE, { OLD(1000) },
	    PG_SKIP_ACTIVE, PG_REASON_ACTIVE, 0, 9, "was active" },
	{ "own failed 1 min ago, a healthy peer: hand over", 0, FAILED(MIN),
	    { IDLE }, PG_SKIP_ACTIVE, PG_REASON_COOLDOWN, 9, 9,
	    "skip: handing over after a failed run (exit 1, 1m ago; "
	    "cooldown 5m)" },
	{ "own failed, on_failure stay: go", PG_ON_FAILURE_STAY,
	    FAILED(MIN), { IDLE }, PG_GO, PG_REASON_GO, 9, 9, "go" },
	{ "own failed past cooldown: go", 0, FAILED(COOL), { IDLE }, PG_GO,
	    PG_REASON_GO, 9, 9, "go" },
	{ "own failed, only a peer before 0.4 (healthy): hand over", 0,
	    FAILED(MIN), { OLD(20 * MIN) }, PG_SKIP_ACTIVE,
	    PG_REASON_COOLDOWN, 9, 9, "handing over" },
	{ "own failed, no peer reachable: policy run, go", 0, FAILED(MIN),
	    { DOWN, DOWN }, PG_GO, PG_REASON_GO, 9, 9, "go" },
	{ "own failed, a peer failed later, one healthy: hand over", 0,
	    FAILED(2 * MIN), { FAILED(MIN), IDLE }, PG_SKIP_ACTIVE,
	    PG_REASON_COOLDOWN, 9, 0, "handing over" },
	{ "all failed, this one last: skip", 0, FAILED(MIN),
	    { FAILED(2 * MIN), FAILED(3 * MIN) }, PG_SKIP_ACTIVE,
	    PG_REASON_COOLDOWN, 9, 0, "handing over" },
	{ "all failed, another later: this one's turn", 0, FAILED(2 * MIN),
	    { FAILED(MIN), FAILED(3 * MIN) }, PG_GO, PG_REASON_GO, 9, 0,
	    "go: handover" },
	{ "all failed, oldest failure: this one's turn", 0, FAILED(3 * MIN),
	    { FAILED(MIN), FAILED(2 * MIN) }, PG_GO, PG_REASON_GO, 9, 0,
	    "go" },
	{ "all failed, a tie, self sorts first: skip", 0, FAILED(MIN),
	    { FAILED(MIN) }, PG_SKIP_ACTIVE, PG_REASON_COOLDOWN, 9, 0,
	    "handing over" },
	{ "own failed by a signal: the text says so", 0,
	    { H_STATUS, 20 * MIN, 1, 0, MIN, -1, 0 }, { IDLE },
	    PG_SKIP_ACTIVE, PG_REASON_COOLDOWN, 9, 9, "(signal 9," },
	{ "own unknown (NULL): only peers count", 0, { H_NONE }, { IDLE },
	    PG_GO, PG_REASON_GO, 9, 9, "go" },
	{ "local run beats a hold", 0,
	    { H_STATUS, 20 * MIN, 0, 0, -1, -1, 9000 }, { IDLE },
	    PG_SKIP_LOCAL, PG_REASON_LOCAL, 9, 9, "still going" },
};

static void
fill(struct pg_seen *s, struct pg_status *st, const struct peer *p)
{
	pg_status_init(st);
	strlcpy(st->cluster, "c", sizeof(st->cluster));
	st->elapsed_ms = p->elapsed;
	st->failures = p->failures;
	st->running = p->running;
	if (p->end >= 0) {
		st->last = 1;
		st->last_end_ms = p->end;
		st->last_exit = p->failures > 0 ? 1 : 0;
	}
	st->claim_ms = p->claim;
	st->hold_ms = p->hold;
	if (p->hold > 0) {
		strlcpy(st->hold_by, "ops", sizeof(st->hold_by));
		strlcpy(st->hold_why, "disk", sizeof(st->hold_why));
	}
	if (s == NULL)
		return;
	s->answer.kind = p->how == H_UNREACH ? PG_ANSWER_UNREACHABLE :
	    p->elapsed == PG_NEVER ? PG_ANSWER_NEVER : PG_ANSWER_ELAPSED;
	s->answer.elapsed_ms = p->how == H_UNREACH ? 0 : p->elapsed;
	s->has_status = p->how == H_STATUS;
	s->old = p->how == H_OLD;
	if (s->has_status)
		s->status = *st;
}

static void
test_status_rules(void)
{
	const struct row	*r;
	struct pg_cluster	 c;
	struct pg_decision	 d;
	struct pg_seen		 seen[3];
	struct pg_status	 own, st;
	char			 text[PG_TEXT_MAX];
	static const char	*names[] = { "p0", "p1", "p2" };
	size_t			 i, n, k;

	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		r = &rows[k];
		memset(&c, 0, sizeof(c));
		c.wait_ms = WAIT;
		c.cooldown_ms = COOL;
		c.on_failure = r->on_failure;
		memset(seen, 0, sizeof(seen));
		for (n = 0; n < 3 && r->p[n].how != H_NONE; n++) {
			seen[n].name = names[n];
			fill(&seen[n], &st, &r->p[n]);
		}
		fill(NULL, &own, &r->own);
		if (strstr(r->name, "signal") != NULL) {
			own.last_exit = -1;
			own.last_signal = 9;
		}
		memset(&d, 0xa5, sizeof(d));
		pg_decide(&c, "m", r->own.how == H_NONE ? NULL : &own,
		    r->verdict == PG_SKIP_LOCAL, seen, n, &d);
		is_int(d.verdict, r->verdict, "%s: verdict", r->name);
		is_int(d.reason, r->reason, "%s: reason", r->name);
		if (r->peer != 9)
			is_int(d.peer, r->peer, "%s: deciding peer", r->name);
		if (r->verdict != PG_SKIP_LOCAL)
			is_int(d.failed, r->failed == 9 ? n : r->failed,
			    "%s: peer not counted", r->name);
		pg_decision_text(&d, &c, r->own.how == H_NONE ? NULL : &own,
		    seen, n, text, sizeof(text));
		like(text, r->text, "%s: text", r->name);
	}

	/* The tie the other way round: the name that sorts last goes. */
	memset(&c, 0, sizeof(c));
	c.wait_ms = WAIT;
	c.cooldown_ms = COOL;
	memset(seen, 0, sizeof(seen));
	seen[0].name = "a";
	fill(&seen[0], &st, &(struct peer)FAILED(MIN));
	fill(NULL, &own, &(struct peer)FAILED(MIN));
	pg_decide(&c, "z", &own, 0, seen, 1, &d);
	is_int(d.verdict, PG_GO, "all failed, a tie, self sorts last: go");

	/* Every node's view of an all-failed round: exactly one skips. */
	for (i = 0; i < 3; i++) {
		struct peer	 f[3] = { FAILED(MIN), FAILED(2 * MIN),
				    FAILED(3 * MIN) };
		size_t		 j, m = 0;

		memset(seen, 0, sizeof(seen));
		for (j = 0; j < 3; j++)
			if (j != i) {
				seen[m].name = names[j];
				fill(&seen[m++], &st, &f[j]);
			}
		fill(NULL, &own, &f[i]);
		pg_decide(&c, names[i], &own, 0, seen, m, &d);
		is_int(d.verdict, i == 0 ? PG_SKIP_ACTIVE : PG_GO,
		    "rotation: node %zu of 3, its run ended %zu min ago: %s",
		    i, i + 1, i == 0 ? "skips" : "eligible");
	}
}

int
main(void)
{
	test_rules();
	test_exhaustive();
	test_status_rules();
	return done_testing();
}
