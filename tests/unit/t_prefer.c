/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the prefer rules (decide.c): the order, eligibility,
 * the yield and its records (the checked file, the status keys); then a
 * simulation of whole rounds on three nodes through pg_decide, in every
 * order of checks, through failover, failback, a daily job, a flapping
 * preferred node, failback = no and a disagreement, and with every kind of run
 * (under pollguard-touch, a pipeline through -f, a start that could not
 * be recorded, a killed pollguard-touch): never two pollers in a round,
 * never a go beside another node's job, and the empty rounds counted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"

#define MS	1000000LL
#define S	(1000 * MS)

static struct pg_cluster
cluster(const char *prefer, int64_t wait_ms)
{
	struct pg_cluster	 c;

	memset(&c, 0, sizeof(c));
	strlcpy(c.id, "mail", sizeof(c.id));
	strlcpy(c.prefer, prefer, sizeof(c.prefer));
	c.wait_ms = wait_ms;
	c.cooldown_ms = wait_ms;
	c.failback = 1;
	c.failback_after_ms = wait_ms;
	c.prefer_slack_ms = 5300 < wait_ms / 4 ? 5300 : wait_ms / 4;
	return c;
}

/* A peer that answered a status. */
static struct pg_seen
peer(const char *name, const char *prefer, int64_t elapsed, int64_t checked,
    int64_t checking)
{
	struct pg_seen	 s;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.has_status = 1;
	pg_status_init(&s.status);
	strlcpy(s.status.prefer, prefer, sizeof(s.status.prefer));
	s.status.elapsed_ms = elapsed;
	s.status.checked_ms = checked;
	s.status.checking_ms = checking;
	s.answer.kind = elapsed == PG_NEVER ? PG_ANSWER_NEVER :
	    PG_ANSWER_ELAPSED;
	s.answer.elapsed_ms = elapsed;
	return s;
}

static void
test_order(void)
{
	struct pg_cluster	 c = cluster("b,A", 60000);

	ok(pg_prefer_before(&c, "b", "a"), "order: b before a (listed)");
	ok(!pg_prefer_before(&c, "a", "b"), "order: a not before b");
	ok(pg_prefer_before(&c, "a", "c"), "order: listed a before unlisted c");
	ok(!pg_prefer_before(&c, "d", "B"), "order: unlisted d after B (case)");
	ok(pg_prefer_before(&c, "C", "d"), "order: unlisted by strcasecmp");
	ok(!pg_prefer_before(&c, "c", "C"), "order: a node not before itself");
	c.prefer[0] = '\0';
	ok(pg_prefer_before(&c, "alpha", "Beta"), "order: no prefer: names");
}

static void
test_disagree(void)
{
	struct pg_cluster	 c = cluster("a,b", 60000);
	struct pg_seen		 s[3];

	s[0] = peer("a", "A,B", 1000, 1000, 0);
	s[1] = peer("b", "a,b", PG_NEVER, PG_NEVER, -1);
	s[2] = peer("c", "a,b", 1000, 1000, 0);
	is_int(pg_prefer_disagree(&c, s, 3), 3, "disagree: all agree (case)");
	strlcpy(s[2].status.prefer, "b,a", sizeof(s[2].status.prefer));
	is_int(pg_prefer_disagree(&c, s, 3), 2, "disagree: c says b,a");
	s[2].status.prefer[0] = '\0';
	is_int(pg_prefer_disagree(&c, s, 3), 2, "disagree: c says none");
	s[2].answer.kind = PG_ANSWER_UNREACHABLE;
	is_int(pg_prefer_disagree(&c, s, 3), 3,
	    "disagree: an unreachable peer is not asked");
	s[2] = peer("c", "a,b", 1000, 1000, 0);
	s[2].has_status = 0;
	is_int(pg_prefer_disagree(&c, s, 3), 2,
	    "disagree: a peer before 0.4 cannot agree");
	c.prefer[0] = '\0';
	is_int(pg_prefer_disagree(&c, s, 1), 0,
	    "disagree: no prefer here, one there");
	s[0].status.prefer[0] = s[1].status.prefer[0] = '\0';
	s[2].status.prefer[0] = '\0';
	is_int(pg_prefer_disagree(&c, s, 3), 3,
	    "disagree: no prefer anywhere (old peers too)");
}

static void
test_eligible(void)
{
	struct pg_cluster	 c = cluster("a,b", 60000);
	struct pg_seen		 s = peer("a", "a,b", 90000, 1000, 60000);

	ok(pg_prefer_eligible(&c, &s), "eligible: checked 1s ago");
	ok(pg_prefer_healthy(&c, &s), "healthy: checking exactly wait");
	s.status.checking_ms = 59999;
	ok(!pg_prefer_healthy(&c, &s), "healthy: not for 1ms less");
	s.status.checked_ms = 60000 + 5300 - 1;
	ok(pg_prefer_eligible(&c, &s), "eligible: checked wait + slack - 1");
	s.status.checked_ms = 60000 + 5300;
	ok(!pg_prefer_eligible(&c, &s), "eligible: not at wait + slack");
	s.status.checked_ms = PG_NEVER;
	ok(!pg_prefer_eligible(&c, &s), "eligible: not when never checked");
	s.status.checked_ms = 1000;
	s.status.failures = 1;
	s.status.last = 1;
	s.status.last_end_ms = 1000;
	ok(!pg_prefer_eligible(&c, &s), "eligible: not in cooldown");
	c.on_failure = PG_ON_FAILURE_STAY;
	ok(pg_prefer_eligible(&c, &s), "eligible: failing, on_failure stay");
	s.status.failures = 0;
	strlcpy(s.status.prefer, "b,a", sizeof(s.status.prefer));
	ok(!pg_prefer_eligible(&c, &s), "eligible: not with another order");
	strlcpy(s.status.prefer, "a,b", sizeof(s.status.prefer));
	s.answer.kind = PG_ANSWER_UNREACHABLE;
	ok(!pg_prefer_eligible(&c, &s), "eligible: not when unreachable");
	s.answer.kind = PG_ANSWER_ELAPSED;
	s.has_status = 0;
	ok(!pg_prefer_eligible(&c, &s), "eligible: not before 0.4");
}

/* pg_yield_ignores at this node's rate not known (the oscillator's). */
static int
ignores(const char *node, int64_t prev, int64_t slack,
    const struct pg_seen *s)
{
	return pg_yield_ignores(node, prev, slack, -1, s);
}

static void
test_yield_ignores(void)
{
	struct pg_seen	 s = peer("b", "a,b", 50000, 500, 900000);
	int64_t		 prev = 1000 * S, slack = 5300;

	/*
	 * We read it at 1060s; b yielded 61s before, at 999s; its last run
	 * began at 1006s and ended at 1010s, 50s ago, when it was last
	 * active.
	 */
	s.recv_ns = 1060 * S;
	strlcpy(s.status.yield, "A", sizeof(s.status.yield));
	s.status.yielded_ms = 61000;
	s.status.last = 1;
	s.status.last_exit = 0;
	s.status.last_end_ms = 50000;
	s.status.last_duration_ms = 4000;
	ok(ignores("a", prev, slack, &s), "yield: to us, before our "
	    "previous check, its last run over: not counted");
	s.status.yielded_ms = 60000 - 5300;
	ok(ignores("a", prev, slack, &s), "yield: exactly slack after our "
	    "previous check: not counted");
	s.status.yielded_ms = 60000 - 5300 - 1;
	ok(!ignores("a", prev, slack, &s), "yield: 1ms later: its last run "
	    "may be of this round: counted");
	/*
	 * doc/SAFETY.md, 3: a rate beyond the oscillators' widens the test.
	 * At 40000 ppm more, 54.7s / (1 - 0.04) is 56.98s at the most.
	 */
	s.status.rate_ppm = 40500;
	s.status.yielded_ms = 60000 - 5300;
	ok(!ignores("a", prev, slack, &s), "yield: b's clock up to 40500 "
	    "ppm: exactly the slack is not enough: counted");
	s.status.yielded_ms = 56979;
	ok(!ignores("a", prev, slack, &s), "yield: ... 56.979s: counted");
	s.status.yielded_ms = 56980;
	ok(ignores("a", prev, slack, &s), "yield: ... 56.98s: not counted");
	s.status.rate_ppm = -1;
	ok(pg_yield_ignores("a", prev, slack, 40500, &s), "yield: the same "
	    "at this node's clock up to 40500 ppm: not counted");
	s.status.yielded_ms = 56979;
	ok(!pg_yield_ignores("a", prev, slack, 40500, &s), "yield: ... "
	    "56.979s: counted");
	s.status.yielded_ms = 61000;
	ok(!ignores("c", prev, slack, &s), "yield: to another node");
	ok(!ignores("a", INT64_MIN, slack, &s), "yield: our previous "
	    "check not known");
	s.status.claim_ms = 2000;
	ok(!ignores("a", prev, slack, &s), "yield: a claim reported");
	s.status.claim_ms = -1;
	s.status.running = 1;
	ok(!ignores("a", prev, slack, &s), "yield: its run going");
	s.status.running = 0;

	/* Its last run is over only by its records, never by their absence. */
	s.status.last = 0;
	ok(!ignores("a", prev, slack, &s), "yield: no run recorded "
	    "(a pipeline through touch -f, heartbeats): counted");
	s.status.last = 1;
	s.status.last_end_ms = 61001;
	s.status.last_duration_ms = 4000;
	s.status.failures = 1;
	ok(!ignores("a", prev, slack, &s), "yield: the last run "
	    "recorded ended before the yield (the last run's start not "
	    "recorded, or its touch killed): counted");
	s.status.failures = 0;
	s.status.last_end_ms = 50000;
	s.status.last_duration_ms = 11000;
	ok(!ignores("a", prev, slack, &s), "yield: a run that ended "
	    "after the yield, begun at its very moment: counted");
	s.status.last_duration_ms = 10999;
	ok(ignores("a", prev, slack, &s), "yield: a run begun 1ms "
	    "after the yield: not counted");
	s.status.last_duration_ms = 4000;
	s.status.elapsed_ms = 50000 - 1000;
	ok(ignores("a", prev, slack, &s), "yield: active 1s after "
	    "the end (the run's last refresh): not counted");
	s.status.elapsed_ms = 50000 - 1001;
	s.answer.elapsed_ms = s.status.elapsed_ms;
	ok(!ignores("a", prev, slack, &s), "yield: active since the "
	    "end (a pipeline, a heartbeat): counted");
	s.status.elapsed_ms = s.answer.elapsed_ms = 52000;
	ok(ignores("a", prev, slack, &s), "yield: last active just "
	    "before the end: not counted");
	s.status.elapsed_ms = s.answer.elapsed_ms = 50000;

	/* A check of b deciding: only the records count. */
	s.status.deciding = 1;
	ok(ignores("a", prev, slack, &s), "yield: a check deciding, "
	    "its last run over: not counted");
	s.status.last = 0;
	ok(!ignores("a", prev, slack, &s), "yield: a check deciding "
	    "(held up before it starts the last run): counted");
	s.status.deciding = 0;
	s.status.last = 1;

	/* Extreme answers: compared, never overflowing. */
	s.status.last_duration_ms = INT64_MAX - 1;
	ok(!ignores("a", prev, slack, &s), "yield: a run of "
	    "INT64_MAX - 1 ms: counted");
	s.status.last_duration_ms = 4000;
	s.status.elapsed_ms = s.answer.elapsed_ms = INT64_MAX - 1;
	s.status.last_end_ms = 0;
	s.status.yielded_ms = 61000;
	ok(ignores("a", prev, slack, &s), "yield: elapsed "
	    "INT64_MAX - 1 ms, the end just now: nothing since: not counted");
	s.status.elapsed_ms = s.answer.elapsed_ms = 50000;
	s.status.last_end_ms = 50000;
	s.status.yield[0] = '\0';
	ok(!ignores("a", prev, slack, &s), "yield: none announced");
}

static void
test_records(void)
{
	struct pg_checked	 ck, back;
	struct pg_stamp		 t0, t1;
	struct pg_status	 st, rd;
	char			 buf[PG_STATUS_MAX], why[128];
	size_t			 used;
	int			 n;

	memset(&t0, 0, sizeof(t0));
	strlcpy(t0.boot_id, "0123456789abcdef0123456789abcdef0123",
	    sizeof(t0.boot_id));
	t0.mono_ns = 100 * S;
	t0.wall_ns = 1700000000 * S;
	t1 = t0;
	t1.mono_ns += 60 * S;
	t1.wall_ns += 60 * S;

	pg_checked_next(&ck, 0, &t0, 65300, 1, "a");
	ok(ck.since.mono_ns == t0.mono_ns && strcmp(ck.yield, "a") == 0,
	    "checked: first check, a go before yielding to a");
	pg_checked_next(&ck, 1, &t1, 65300, 0, NULL);
	ok(ck.since.mono_ns == t0.mono_ns && ck.last.mono_ns == t1.mono_ns,
	    "checked: a gap of 60s within wait + slack: since stays");
	ok(strcmp(ck.yield, "a") == 0 && ck.yielded.mono_ns == t0.mono_ns,
	    "checked: a skip keeps the yield and its moment");
	n = pg_checked_format(&ck, buf, sizeof(buf));
	ok(n > 0 && pg_checked_parse(buf, n, &back) == 0 &&
	    memcmp(&ck, &back, sizeof(ck)) == 0, "checked: format, parse");
	ok(pg_checked_parse(buf, n - 1, &back) == -1, "checked: cut: refused");
	pg_checked_next(&ck, 1, &t1, 65300, 1, NULL);
	ok(ck.yield[0] == '\0', "checked: a go clears the yield");
	pg_checked_next(&ck, 1, &t1, 65300, 0, NULL);
	t1.mono_ns += 66 * S;
	pg_checked_next(&ck, 1, &t1, 65300, 0, NULL);
	ok(ck.since.mono_ns == t1.mono_ns, "checked: a gap of 66s: since "
	    "starts again");

	pg_status_init(&st);
	strlcpy(st.cluster, "mail", sizeof(st.cluster));
	strlcpy(st.prefer, "alpha,Beta", sizeof(st.prefer));
	st.elapsed_ms = 5;
	st.checked_ms = 1200;
	st.checking_ms = 86400000;
	strlcpy(st.yield, "alpha", sizeof(st.yield));
	st.yielded_ms = 3000;
	n = pg_status_format(&st, buf, sizeof(buf));
	like(buf, "prefer alpha,Beta\nchecked 1200\nchecking 86400000\n"
	    "yield alpha\nyielded 3000\n", "status: the prefer keys");
	ok(n > 0 && pg_status_parse(buf, n, &rd, &used, why, sizeof(why)) ==
	    0 && strcmp(rd.prefer, st.prefer) == 0 && rd.checked_ms == 1200 &&
	    rd.checking_ms == 86400000 && strcmp(rd.yield, "alpha") == 0 &&
	    rd.yielded_ms == 3000, "status: read back");
	pg_status_init(&st);
	strlcpy(st.cluster, "mail", sizeof(st.cluster));
	n = pg_status_format(&st, buf, sizeof(buf));
	ok(strstr(buf, "prefer") == NULL && strstr(buf, "checked") == NULL &&
	    strstr(buf, "yield") == NULL, "status: none of them when unset");
#define BAD(text, name) do {						\
	ok(pg_status_parse(text, strlen(text), &rd, &used, why,		\
	    sizeof(why)) == -1, "status: refused: %s", name);		\
} while (0)
	BAD("cluster mail\nelapsed 5\nprefer a,,b\n", "prefer a,,b");
	BAD("cluster mail\nelapsed 5\nprefer a b\n", "prefer a b");
	BAD("cluster mail\nelapsed 5\nprefer a,\n", "prefer a,");
	BAD("cluster mail\nelapsed 5\nchecked never\n", "checked never");
	BAD("cluster mail\nelapsed 5\nyield a\n", "yield without yielded");
	BAD("cluster mail\nelapsed 5\nchecking 2\n", "checking without checked");
	BAD("cluster mail\nelapsed 5\nyield a/b\nyielded 1\n", "yield a/b");
#undef BAD
}

/*
 * The simulation. Every node is a state directory in miniature: its
 * activity record (a go claims, the job runs JOB and refreshes until it
 * ends), its run lock, what its runs record (by their kind, below), its
 * checked record, and whether its serve answers and its cron checks. A
 * round: every node whose cron runs checks, one second apart, in the
 * order given; each sees the others' statuses at that moment.
 */
#define NN	3
static const char *const names[NN] = { "a", "b", "c" };

/*
 * How the job runs, and so what a node's status shows of it: under
 * pollguard-touch -- command (the run lock, its start and end
 * recorded); a pipeline through pollguard-touch -f (activity only); under
 * pollguard-touch whose start could not be recorded (a full disk: the
 * lock held, the end recorded); under pollguard-touch killed KILL after
 * the go (the job goes on, unrefreshed and without the lock, and no end
 * is recorded).
 */
enum kind { RUN_TOUCH, RUN_PIPE, RUN_NOSTART, RUN_KILLED, RUN_KINDS };
static const char *const kinds[RUN_KINDS] = {
	"touch -- command", "touch -f pipeline", "start not recorded",
	"touch killed"
};
#define KILL	(1 * S)
/* The job starts this long after its check began: the settle round. */
#define START	(100 * MS)

struct node {
	struct pg_cluster c;
	int		 serve, cron;
	int64_t		 go_ns;		/* last go; -1: never */
	int64_t		 prev_go_ns;	/* the go before; -1: none */
	struct pg_checked ck;
	int		 had;
};

struct sim {
	struct node	 n[NN];
	enum kind	 kind;		/* of every run */
	int64_t		 job_ns;	/* how long a run takes */
	int64_t		 horizon_ms;
	int		 overlaps;	/* goes while another's job ran */
};

static struct pg_stamp
at(int64_t t)
{
	struct pg_stamp	 s;

	memset(&s, 0, sizeof(s));
	s.mono_ns = t;
	s.wall_ns = t;
	return s;
}

/* Node k's run lock at t: its pollguard-touch is alive. */
static int
locked(const struct sim *m, int k, int64_t t)
{
	const struct node	*x = &m->n[k];
	int64_t			 end = x->go_ns + m->job_ns;

	if (x->go_ns < 0 || t >= end || m->kind == RUN_PIPE)
		return 0;
	return m->kind != RUN_KILLED || t < x->go_ns + KILL;
}

static void
status_of(const struct sim *m, int k, int64_t t, struct pg_status *st)
{
	const struct node	*x = &m->n[k];
	struct pg_stamp		 now = at(t);
	int64_t			 end, active, ended = -1;

	pg_status_init(st);
	strlcpy(st->cluster, "mail", sizeof(st->cluster));
	strlcpy(st->node, names[k], sizeof(st->node));
	strlcpy(st->prefer, x->c.prefer, sizeof(st->prefer));
	st->at_ns = t;
	if (x->go_ns >= 0) {
		end = x->go_ns + m->job_ns;
		/* The latest refresh: the end, or the kill. */
		active = m->kind == RUN_KILLED ? x->go_ns + KILL : end;
		if (active > t)
			active = t;
		st->running = m->kind == RUN_TOUCH ? t < end :
		    m->kind == RUN_KILLED && t < x->go_ns + KILL;
		if ((t - x->go_ns) / MS < m->horizon_ms)
			st->claim_ms = st->elapsed_ms = (t - x->go_ns) / MS;
		else
			st->elapsed_ms = (t - active) / MS;
		/* The latest end recorded: this run's, else the one before. */
		if (m->kind == RUN_TOUCH || m->kind == RUN_NOSTART)
			ended = t >= end ? end : x->prev_go_ns >= 0 ?
			    x->prev_go_ns + m->job_ns : -1;
		if (ended >= 0 && ended <= t) {
			st->last = 1;
			st->last_exit = 0;
			st->last_end_ms = (t - ended) / MS;
			st->last_duration_ms = (m->job_ns - START) / MS;
		}
		if (m->kind == RUN_KILLED && t >= x->go_ns + KILL)
			st->failures = 1;
	}
	if (x->had) {
		st->checked_ms = pg_stamp_elapsed(&x->ck.last, &now);
		st->checking_ms = pg_stamp_elapsed(&x->ck.since, &now);
		if (x->ck.yield[0] != '\0') {
			strlcpy(st->yield, x->ck.yield, sizeof(st->yield));
			st->yielded_ms = pg_stamp_elapsed(&x->ck.yielded,
			    &now);
		}
	}
}

/*
 * Node k checks at t: 1 when it goes. A go while the job of a node that
 * answers still runs is an overlap (a node that is down took its job
 * with it).
 */
static int
check(struct sim *m, int k, int64_t t, char *why, size_t len)
{
	struct node		*x = &m->n[k];
	struct pg_seen		 seen[NN - 1];
	struct pg_status	 own;
	struct pg_decision	 d;
	struct pg_stamp		 now = at(t);
	size_t			 n = 0;
	int			 j, go;

	status_of(m, k, t, &own);
	for (j = 0; j < NN; j++) {
		if (j == k)
			continue;
		memset(&seen[n], 0, sizeof(seen[n]));
		seen[n].name = names[j];
		seen[n].sent_ns = seen[n].recv_ns = t;
		if (m->n[j].serve) {
			seen[n].has_status = 1;
			status_of(m, j, t, &seen[n].status);
			seen[n].answer.elapsed_ms = seen[n].status.elapsed_ms;
			seen[n].answer.kind = seen[n].answer.elapsed_ms ==
			    PG_NEVER ? PG_ANSWER_NEVER : PG_ANSWER_ELAPSED;
		} else
			seen[n].answer.kind = PG_ANSWER_UNREACHABLE;
		n++;
	}
	pg_decide(&x->c, names[k], &own, locked(m, k, t), seen, n, &d);
	pg_decision_text(&d, &x->c, &own, seen, n, why, len);
	go = d.verdict == PG_GO;
	pg_checked_next(&x->ck, x->had, &now, x->c.wait_ms +
	    x->c.prefer_slack_ms, go, d.yield ? seen[d.prefer].name : NULL);
	x->had = 1;
	if (go) {
		for (j = 0; j < NN; j++)
			if (j != k && m->n[j].serve && m->n[j].go_ns >= 0 &&
			    t < m->n[j].go_ns + m->job_ns)
				m->overlaps++;
		x->prev_go_ns = x->go_ns;
		x->go_ns = t;
	}
	return go;
}

/*
 * Round r at r * interval, nodes in the order given ("bca"); the nodes
 * that went, as letters, into who.
 */
static void
round_(struct sim *m, int64_t interval, int r, const char *order, char *who,
    int verbose)
{
	char	 why[PG_TEXT_MAX];
	size_t	 w = 0;
	int	 i, k;

	for (i = 0; order[i] != '\0'; i++) {
		k = order[i] - 'a';
		if (!m->n[k].cron)
			continue;
		if (check(m, k, r * interval * MS + i * S, why, sizeof(why)))
			who[w++] = names[k][0];
		if (verbose)
			diag("round %d: %s %s", r, names[k], why);
	}
	who[w] = '\0';
}

static void
sim_init(struct sim *m, const char *prefer, int64_t wait_ms, int64_t job,
    enum kind kind)
{
	int	 k;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->job_ns = job;
	m->horizon_ms = 5300;
	for (k = 0; k < NN; k++) {
		m->n[k].c = cluster(prefer, wait_ms);
		m->n[k].serve = m->n[k].cron = 1;
		m->n[k].go_ns = m->n[k].prev_go_ns = -1;
	}
}

static const char *const orders[] = {
	"abc", "acb", "bac", "bca", "cab", "cba"
};

/*
 * A script: one string a round of who is up ("abc": all; "bc": a's
 * serve and cron are down; "Abc": a's serve answers, its cron is
 * stopped). Run it in every fixed order and in rotating orders; return
 * the rounds' pollers of the last run in *out ("a.b": one letter a
 * round, '.' for none, '2' for two), and count bad rounds.
 */
struct result {
	int	 doubles;	/* rounds with two or more pollers */
	int	 overlaps;	/* goes while another node's job ran */
	int	 empty;		/* rounds with none, after the first */
	int	 maxempty;	/* the most empty rounds in a row */
	char	 pollers[64];
};

/* The runs of every node in run(): test_run_kinds changes them. */
static enum kind	 run_kind = RUN_TOUCH;
static int64_t		 run_job = 20 * S;

static void
run(const char *prefer, int64_t wait_ms, int64_t interval, int failback,
    int64_t failback_after, const char *const *script, int nr, int o,
    const char *cprefer, struct result *res)
{
	struct sim	 m;
	char		 order[NN + 1], who[NN + 1];
	int		 r, k, row = 0;

	sim_init(&m, prefer, wait_ms, run_job, run_kind);
	if (cprefer != NULL)
		strlcpy(m.n[2].c.prefer, cprefer, sizeof(m.n[2].c.prefer));
	for (k = 0; k < NN; k++) {
		m.n[k].c.failback = failback;
		m.n[k].c.failback_after_ms = failback_after;
	}
	memset(res, 0, sizeof(*res));
	for (r = 0; r < nr; r++) {
		for (k = 0; k < NN; k++) {
			m.n[k].serve = strchr(script[r], names[k][0]) !=
			    NULL || strchr(script[r], names[k][0] - 32) !=
			    NULL;
			m.n[k].cron = strchr(script[r], names[k][0]) != NULL;
		}
		strlcpy(order, orders[o < 6 ? o : (r * 5 + o) % 6],
		    sizeof(order));
		round_(&m, interval, r + 1, order, who,
		    getenv("VERBOSE") != NULL);
		res->pollers[r] = who[0] == '\0' ? '.' : who[1] != '\0' ?
		    '2' : who[0];
		if (who[0] != '\0' && who[1] != '\0')
			res->doubles++;
		if (who[0] == '\0' && r > 0) {
			res->empty++;
			if (++row > res->maxempty)
				res->maxempty = row;
		} else
			row = 0;
	}
	res->pollers[r] = '\0';
	res->overlaps = m.overlaps;
}

/* Rounds (counting from 0) of the first poller x at or after from. */
static int
first(const char *p, int from, char x)
{
	const char	*q = strchr(p + from, x);

	return q == NULL ? -1 : (int)(q - p);
}

#define MIN	(60 * 1000LL)
#define DAY	(24 * 60 * MIN)

static void
test_rounds(void)
{
	/* a down in rounds 6-11, back from round 12. */
	static const char *const fail[] = {
		"abc", "abc", "abc", "abc", "abc", "abc",
		"bc", "bc", "bc", "bc", "bc", "bc",
		"abc", "abc", "abc", "abc", "abc", "abc", "abc", "abc",
	};
	/* a's cron stops in round 6, its serve still answers. */
	static const char *const stopped[] = {
		"abc", "abc", "abc", "abc", "abc", "abc",
		"Abc", "Abc", "Abc", "Abc", "Abc", "Abc",
		"abc", "abc", "abc", "abc", "abc", "abc", "abc", "abc",
	};
	/* a flaps: up one round in three. */
	static const char *const flap[] = {
		"abc", "abc", "abc", "abc", "abc", "abc",
		"bc", "bc", "abc", "bc", "bc", "abc", "bc", "bc", "abc",
		"bc", "Abc", "bc", "abc", "bc",
	};
	struct result	 res;
	int		 o, bad, f, nr = 20;

	/* Every hour, wait 2h; failback after 2h: two rounds. */
	for (bad = 0, o = 0; o < 7; o++) {
		run("a,b", 120 * MIN, 60 * MIN, 1, 120 * MIN, fail, nr, o,
		    NULL, &res);
		f = first(res.pollers, 12, 'a');
		if (res.doubles || res.maxempty > 0 ||
		    res.pollers[5] != 'a' ||
		    first(res.pollers, 6, 'b') != 6 ||
		    strspn(res.pollers + 6, "b") < 6 || f < 0 || f > 16 ||
		    strspn(res.pollers + f, "a") != (size_t)(nr - f))
			bad++;
		diag("hourly, a down 6-11, order %s: %s", o < 6 ? orders[o] :
		    "rotating", res.pollers);
	}
	is_int(bad, 0, "hourly: a polls, b within one round of a's "
	    "failure, a again at most 2 rounds after failback_after; never "
	    "two, never none");

	/* failback_after 0: a back in round 12 polls by round 14. */
	for (bad = 0, o = 0; o < 7; o++) {
		run("a,b", 120 * MIN, 60 * MIN, 1, 0, fail, nr, o, NULL, &res);
		f = first(res.pollers, 12, 'a');
		if (res.doubles || res.maxempty > 0 || f < 13 || f > 14)
			bad++;
		diag("failback_after 0, order %s: %s", o < 6 ? orders[o] :
		    "rotating", res.pollers);
	}
	is_int(bad, 0, "failback within two rounds of a's return, none empty");

	/* a's cron stops: its record ages out, then b. */
	for (bad = 0, o = 0; o < 7; o++) {
		run("a,b", 120 * MIN, 60 * MIN, 1, 120 * MIN, stopped, nr, o,
		    NULL, &res);
		if (res.doubles || res.maxempty > 2 ||
		    first(res.pollers, 6, 'b') > 8)
			bad++;
		diag("a's cron stops 6-11, order %s: %s", o < 6 ? orders[o] :
		    "rotating", res.pollers);
	}
	is_int(bad, 0, "cron stopped: b takes over once a's checks are "
	    "older than wait + slack; never two");

	/* Daily, wait 1d: the same, one round a day. */
	for (bad = 0, o = 0; o < 7; o++) {
		run("a,b", DAY, DAY, 1, DAY, fail, nr, o, NULL, &res);
		f = first(res.pollers, 12, 'a');
		if (res.doubles || res.empty > 0 || f < 0 || f > 16 ||
		    first(res.pollers, 6, 'b') != 6)
			bad++;
		diag("daily, order %s: %s", o < 6 ? orders[o] : "rotating",
		    res.pollers);
	}
	is_int(bad, 0, "daily: exactly once every day across failover and "
	    "failback");

	/* A flapping a never gets the cluster back; b polls throughout. */
	for (bad = 0, o = 0; o < 7; o++) {
		run("a,b", 120 * MIN, 60 * MIN, 1, 120 * MIN, flap, nr, o,
		    NULL, &res);
		if (res.doubles || res.empty > 0 ||
		    strspn(res.pollers + 6, "b") != (size_t)(nr - 6))
			bad++;
		diag("flapping a, order %s: %s", o < 6 ? orders[o] :
		    "rotating", res.pollers);
	}
	is_int(bad, 0, "flapping: no ping-pong, b polls every round");

	/* failback = no: b stays. */
	for (bad = 0, o = 0; o < 7; o++) {
		run("a,b", 120 * MIN, 60 * MIN, 0, 0, fail, nr, o, NULL, &res);
		if (res.doubles || res.empty > 0 || res.pollers[6] == 'a' ||
		    strspn(res.pollers + 6, (char []){ res.pollers[6], '\0' })
		    != (size_t)(nr - 6))
			bad++;
		diag("failback = no, order %s: %s", o < 6 ? orders[o] :
		    "rotating", res.pollers);
	}
	is_int(bad, 0, "failback = no: the substitute stays the poller");

	/* c disagrees: plain, sticky rules everywhere; never two. */
	for (bad = 0, o = 0; o < 7; o++) {
		run("a,b", 120 * MIN, 60 * MIN, 1, 0, fail, nr, o, "c,b", &res);
		if (res.doubles || res.maxempty > 1 ||
		    strspn(res.pollers, (char []){ res.pollers[0], '\0' }) <
		    6)
			bad++;
		diag("c says c,b, order %s: %s", o < 6 ? orders[o] :
		    "rotating", res.pollers);
	}
	is_int(bad, 0, "disagreement: sticky, never two, never none");
}

/*
 * Every kind of run, in a fleet like the one that found issue 26: wait
 * 16s, cron every 8s, checks 1s apart, jobs of 12s, longer than an
 * interval. a is down in rounds 5-10 and back from round 11; b takes
 * over and hands back. However the runs are made, and whatever the
 * order of the checks, no node goes while the job of a node that
 * answers still runs, and a polls again. A run that records no end
 * costs rounds at the hand-back: b counts until it has been idle for
 * wait, at most (job + wait) / interval rounds without a poller; one
 * that records its end costs none but the round its long job spans.
 */
static void
test_run_kinds(void)
{
	static const char *const script[] = {
		"abc", "abc", "abc", "abc",
		"bc", "bc", "bc", "bc", "bc", "bc",
		"abc", "abc", "abc", "abc", "abc", "abc", "abc", "abc",
		"abc", "abc", "abc", "abc",
	};
	struct result	 res;
	int64_t		 wait = 16000, interval = 8000, job = 12 * S;
	int		 k, o, bad, nr = 22, most, last;

	run_job = job;
	for (k = 0; k < RUN_KINDS; k++) {
		run_kind = k;
		most = k == RUN_TOUCH || k == RUN_NOSTART ? 1 :
		    (int)((job / MS + wait + interval - 1) / interval) - 1;
		for (bad = 0, o = 0; o < 7; o++) {
			run("a,b", wait, interval, 1, wait, script, nr, o,
			    NULL, &res);
			/* The last round's poller, or the one before. */
			last = res.pollers[nr - 1] != '.' ? nr - 1 : nr - 2;
			if (res.doubles || res.overlaps ||
			    res.pollers[last] != 'a' || res.maxempty > most)
				bad++;
			diag("%s, order %s: %s (%d overlaps)", kinds[k],
			    o < 6 ? orders[o] : "rotating", res.pollers,
			    res.overlaps);
		}
		is_int(bad, 0, "%s: no go beside another node's job, "
		    "failback, empty rounds in a row: at most %d", kinds[k],
		    most);
	}
	run_kind = RUN_TOUCH;
	run_job = 20 * S;
}

int
main(void)
{
	test_order();
	test_disagree();
	test_eligible();
	test_yield_ignores();
	test_records();
	test_rounds();
	test_run_kinds();
	return done_testing();
}
