/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for fleet.c: which node pollguard-status says goes next
 * (every case of the rule), the table exactly, and the JSON: its fields,
 * and strings escaped so that any byte stays valid JSON (the
 * command-line test feeds the output to a JSON parser too); then the
 * property, over random fleets: next says what the checks do.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"
#include "rng.h"

#define WAIT	60000

static struct pg_cluster	 cl;
static struct pg_fleet_node	 nodes[3];
static struct pg_fleet		 fleet = { &cl, nodes, 3, 3 };

/*
 * Cluster mail, wait 1m, the defaults; three nodes a (self), b and c:
 * all answered their status, never active.
 */
static void
reset(void)
{
	static const char *const names[] = { "a", "b", "c" };
	size_t	 i;

	memset(&cl, 0, sizeof(cl));
	strlcpy(cl.id, "mail", sizeof(cl.id));
	cl.wait_ms = WAIT;
	cl.unreachable = PG_UNREACHABLE_RUN;
	cl.on_failure = PG_ON_FAILURE_HANDOVER;
	cl.cooldown_ms = WAIT;
	cl.failback = 1;
	cl.failback_after_ms = WAIT;
	cl.prefer_slack_ms = WAIT / 4;
	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < 3; i++) {
		nodes[i].name = names[i];
		nodes[i].kind = PG_ANSWER_ELAPSED;
		nodes[i].has_status = 1;
		pg_status_init(&nodes[i].st);
	}
	nodes[0].self = 1;
	fleet.cluster = &cl;
	fleet.n = 3;
}

/* Node i did not answer: kind, and why. */
static void
down(size_t i, enum pg_answer_kind kind, const char *why)
{
	nodes[i].kind = kind;
	nodes[i].has_status = 0;
	strlcpy(nodes[i].why, why, sizeof(nodes[i].why));
	pg_status_init(&nodes[i].st);
}

/* Node i answered before 0.4: /v1/elapsed only. */
static void
old(size_t i, int64_t elapsed_ms)
{
	nodes[i].kind = PG_ANSWER_ELAPSED;
	nodes[i].has_status = 0;
	pg_status_init(&nodes[i].st);
	nodes[i].st.elapsed_ms = elapsed_ms;
}

/* Several checks would go: the first to run. */
static void
is_any(const struct pg_next *nx, const char *desc)
{
	ok(nx->reason == PG_REASON_GO && nx->node == fleet.n, "%s", desc);
	if (nx->reason != PG_REASON_GO || nx->node != fleet.n)
		diag("next: %s", nx->text);
}

static void
test_next(void)
{
	struct pg_next	 nx;

	reset();
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "nobody ever active: any");
	is_str(nx.text, "nobody active within wait 1m: the first check to "
	    "run goes", "any: text");

	nodes[1].st.elapsed_ms = WAIT;
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "active exactly wait ago: any (strict)");

	nodes[1].st.elapsed_ms = 12000;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_ACTIVE, "b active 12s ago: active");
	is_int(nx.node, 1, "b's check alone goes: b");
	is_str(nx.text, "b: active 12s ago (wait 1m), keeps polling",
	    "active: text");
	/*
	 * b and c both active: each check counts the other's activity, b's
	 * too (0.4.0's order named b, the most recent, as the one that
	 * keeps polling). Nobody goes until c's ages past the wait.
	 */
	nodes[2].st.elapsed_ms = 30000;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_EACH, "b and c active: no check goes");
	is_int(nx.node, 3, "b and c active: no node named");
	is_str(nx.text, "nobody goes now: a, c: b was active 12s ago; b: c was "
	    "active 30s ago", "each: the checks' reasons, by node");

	/* b failed its last run and is idle since: handing over. */
	nodes[1].st.last = 1;
	nodes[1].st.last_exit = 1;
	nodes[1].st.failures = 1;
	nodes[1].st.last_end_ms = 12000;
	nodes[2].st.elapsed_ms = PG_NEVER;
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "b failed, handover: not counted");
	is_str(nx.text, "b's last run failed, handing over; nobody active "
	    "within wait 1m: the first check to run goes", "handover: text");
	cl.on_failure = PG_ON_FAILURE_STAY;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.node, 1, "b failed, on_failure = stay: b keeps polling");
	cl.on_failure = PG_ON_FAILURE_HANDOVER;
	nodes[2].st.elapsed_ms = 30000;
	nodes[1].st.running = 1;
	nodes[1].st.pid = 4242;
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "b: active 12s ago, running (pid 4242) (wait 1m), "
	    "keeps polling", "active and running: text");

	/*
	 * A node before 0.4 active while b's run goes: its check, by 0.3's
	 * rule, counts b's activity (0.4.0's order named c, the most
	 * recent); b's run goes on.
	 */
	old(2, 500);
	pg_fleet_next(&fleet, &nx);
	is_int(nx.node, 1, "an elapsed-only node active during b's run: b");
	nodes[1].st.running = 0;
	nodes[1].st.elapsed_ms = PG_NEVER;
	nodes[1].st.failures = 0;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_ACTIVE, "an elapsed-only node counts with "
	    "its activity");
	is_int(nx.node, 2, "... and its check, by 0.3's rule, goes: c");
	nodes[1].st.running = 1;
	nodes[1].st.elapsed_ms = 12000;
	nodes[1].st.failures = 1;

	down(2, PG_ANSWER_UNREACHABLE, "timed out");
	pg_fleet_next(&fleet, &nx);
	is_int(nx.node, 1, "an unreachable node does not count: b");

	reset();
	down(2, PG_ANSWER_UNREACHABLE, "timed out");
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "unreachable, policy run: any");
	is_str(nx.text, "nobody active within wait 1m: the first check to "
	    "run goes (c unreachable: counted as never)",
	    "unreachable, policy run: says so");
	cl.unreachable = PG_UNREACHABLE_SKIP;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_UNREACHABLE, "unreachable, policy skip");
	is_str(nx.text, "nobody while c is unreachable (unreachable = skip)",
	    "unreachable, policy skip: text");
	/*
	 * b active: a's check skips for b, b's for c (0.4.0's order named
	 * b as the one that keeps polling; its check exits 3).
	 */
	nodes[1].st.elapsed_ms = 1000;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_UNREACHABLE, "b active, c unreachable, "
	    "unreachable = skip: b's check skips too");
	is_int(nx.node, 2, "... for c");

	down(1, PG_ANSWER_REFUSED, "401 Unauthorized");
	nodes[0].st.elapsed_ms = 1000;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_INVALID, "an error answer before activity");
	is_str(nx.text, "b answers an error: checks that ask it refuse to "
	    "decide", "error: text");
	down(0, PG_ANSWER_UNREACHABLE, "its state record is not valid");
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "a cannot read its own record: its check fails",
	    "error of this node's own record: text");
	nodes[0].kind = PG_ANSWER_ELAPSED;
	nodes[0].has_status = 1;
	down(1, PG_ANSWER_REFUSED, "401 Unauthorized");

	nodes[2].kind = PG_ANSWER_ELAPSED;
	nodes[2].has_status = 1;
	nodes[2].st.hold_ms = 60000;
	nodes[0].st.hold_ms = 300000;
	strlcpy(nodes[0].st.hold_by, "root@a", sizeof(nodes[0].st.hold_by));
	strlcpy(nodes[0].st.hold_why, "disk\nswap",
	    sizeof(nodes[0].st.hold_why));
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_HELD, "a hold before everything");
	is_int(nx.node, 0, "the longest hold");
	is_str(nx.text, "held for 5m by root@a (disk\\nswap): nobody goes",
	    "held: text, the why escaped");
	nodes[0].st.hold_by[0] = '\0';
	nodes[0].st.hold_why[0] = '\0';
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "held for 5m by a: nobody goes",
	    "held without by: the node");
}

static void
test_table(void)
{
	char	*t;

	reset();
	nodes[0].st.elapsed_ms = 12000;
	nodes[0].st.running = 1;
	nodes[0].st.pid = 4242;
	nodes[0].st.last = 1;
	nodes[0].st.last_exit = 0;
	nodes[0].st.last_duration_ms = 3200;
	nodes[0].st.last_end_ms = 300000;
	nodes[1].st.elapsed_ms = 7200000;
	nodes[1].st.last = 1;
	nodes[1].st.last_signal = 9;
	nodes[1].st.last_exit = -1;
	nodes[1].st.last_duration_ms = 60000;
	nodes[1].st.last_end_ms = 7200000;
	nodes[1].st.failures = 3;
	nodes[1].st.hold_ms = 1000;
	strlcpy(nodes[1].st.hold_by, "ops", sizeof(nodes[1].st.hold_by));
	/* Their clocks' bounds (doc/SAFETY.md, 3): b's slews fast. */
	nodes[0].st.rate_ppm = 512;
	nodes[1].st.rate_ppm = 40500;
	down(2, PG_ANSWER_UNREACHABLE, "timed out");
	/* The hold is what comes next; see it in the table. */
	t = pg_fleet_table(&fleet, 1);
	is_str(t,
	    "CLUSTER  NODE      REACH        ACTIVE   RUNNING   LAST"
	    "                  FAILS  RATE      HOLD\n"
	    "mail     a (self)  yes          12s ago  pid 4242  "
	    "exit 0, 3.2s, 5m ago  0      512ppm    -\n"
	    "mail     b         yes          2h ago   no        "
	    "signal 9, 1m, 2h ago  3      40500ppm  1s by ops\n"
	    "mail     c         unreachable  -        -         "
	    "-                     -      -         -\n"
	    "mail     next      held for 1s by ops: nobody goes\n",
	    "the table, each node's clock's rate");
	free(t);

	nodes[1].st.hold_ms = 0;
	nodes[1].has_status = 0;
	nodes[1].st.claim_ms = 900;
	nodes[1].st.elapsed_ms = 900;
	nodes[0].st.last_timeout = 1;
	/*
	 * b, before 0.4, claimed while a's run goes: by 0.3's rule its
	 * check counts a's activity, and a's run goes on (0.4.0's order
	 * named b, the most recent activity).
	 */
	t = pg_fleet_table(&fleet, 1);
	is_str(t,
	    "CLUSTER  NODE      REACH         ACTIVE             RUNNING   "
	    "LAST                     FAILS  RATE    HOLD\n"
	    "mail     a (self)  yes           12s ago            pid 4242  "
	    "timed out, 3.2s, 5m ago  0      512ppm  -\n"
	    "mail     b         elapsed only  900ms ago (claim)  -         "
	    "-                        -      -       -\n"
	    "mail     c         unreachable   -                  -         "
	    "-                        -      -       -\n"
	    "mail     next      a: active 12s ago, running (pid 4242) "
	    "(wait 1m), keeps polling\n",
	    "the table: elapsed only, a claim, timed out");
	free(t);
}

/* The JSON of the fleet, checked for pieces. */
static void
test_json(void)
{
	char	*j;

	reset();
	nodes[0].st.elapsed_ms = 5000;
	nodes[0].st.last = 1;
	nodes[0].st.last_exit = 2;
	nodes[0].st.last_duration_ms = 10;
	nodes[0].st.last_end_ms = 20;
	nodes[0].st.last_success_ms = 30;
	nodes[0].st.failures = 1;
	nodes[0].st.rate_ppm = 83833;
	nodes[0].st.hold_ms = 100;
	strlcpy(nodes[0].st.hold_why, "a \"q\" \\ \x01\x7f\xc3",
	    sizeof(nodes[0].st.hold_why));
	nodes[1].has_status = 0;
	down(2, PG_ANSWER_INVALID, "not a number: \"x\"");
	j = pg_fleet_json("0.4.0", "a", &fleet, 1);
	like(j, "{\"version\":\"0.4.0\",\"node\":\"a\",\"clusters\":[{"
	    "\"id\":\"mail\",\"wait_ms\":60000,\"unreachable\":\"run\","
	    "\"next\":{\"reason\":\"held\",\"node\":\"a\",\"text\":",
	    "json: the top and the cluster");
	like(j, "{\"name\":\"a\",\"self\":true,\"reachable\":true,"
	    "\"answer\":\"status\",\"error\":null,\"version\":null,"
	    "\"elapsed_ms\":5000,\"claim_ms\":null,\"deciding\":null,\"running\":false,"
	    "\"pid\":null,\"last\":{\"exit\":2,\"signal\":null,"
	    "\"timed_out\":false,\"duration_ms\":10,\"end_ms\":20},"
	    "\"last_success_ms\":30,\"failures\":1,\"rate_ppm\":83833,"
	    "\"prefer\":null,"
	    "\"checked_ms\":null,\"checking_ms\":null,\"yield\":null,"
	    "\"hold\":{\"left_ms\":100,\"by\":null,", "json: a full node");
	like(j, "\"why\":\"a \\\"q\\\" \\\\ \\u0001\\u007f\\u00c3\"}}",
	    "json: quotes, backslashes, control and high bytes escaped");
	like(j, "{\"name\":\"b\",\"self\":false,\"reachable\":true,"
	    "\"answer\":\"elapsed\",\"error\":null,\"version\":null,"
	    "\"elapsed_ms\":null,\"claim_ms\":null,\"deciding\":null,\"running\":null,"
	    "\"pid\":null,\"last\":null,\"last_success_ms\":null,"
	    "\"failures\":null,\"rate_ppm\":null,\"prefer\":null,"
	    "\"checked_ms\":null,"
	    "\"checking_ms\":null,\"yield\":null,\"hold\":null}",
	    "json: an elapsed-only node that never polled");
	like(j, "{\"name\":\"c\",\"self\":false,\"reachable\":false,"
	    "\"answer\":\"invalid\",\"error\":\"not a number: \\\"x\\\"\",",
	    "json: an invalid answer and its reason");
	ok(strlen(j) > 0 && j[strlen(j) - 1] == '\n' &&
	    strchr(j, '\n') == j + strlen(j) - 1, "json: one line");
	free(j);

	/* The preference: order, checks, a yield. */
	nodes[1].has_status = 1;
	strlcpy(nodes[1].st.prefer, "a,b", sizeof(nodes[1].st.prefer));
	nodes[1].st.checked_ms = 4000;
	nodes[1].st.checking_ms = 70000;
	strlcpy(nodes[1].st.yield, "a", sizeof(nodes[1].st.yield));
	nodes[1].st.yielded_ms = 3000;
	j = pg_fleet_json("0.4.0", "a", &fleet, 1);
	like(j, "\"failures\":0,\"rate_ppm\":null,\"prefer\":\"a,b\","
	    "\"checked_ms\":4000,"
	    "\"checking_ms\":70000,\"yield\":{\"to\":\"a\",\"ms\":3000},"
	    "\"hold\":null}", "json: prefer, checks and a yield");
	free(j);

	j = pg_fleet_json("0.4.0", "a", &fleet, 0);
	is_str(j, "{\"version\":\"0.4.0\",\"node\":\"a\",\"clusters\":[]}\n",
	    "json: no clusters");
	free(j);
}

/* The fleet's "next" names node (a PG_NEXT_ reason) why. */
static void
next_is(enum pg_reason why, size_t node, const char *desc)
{
	struct pg_next	 nx;

	pg_fleet_next(&fleet, &nx);
	ok(nx.reason == why && nx.node == node, "%s", desc);
	if (nx.reason != why || nx.node != node)
		diag("next: %s", nx.text);
}

/*
 * With prefer, "next" is the node whose own check would go, each node
 * deciding from its status and what the others show (pg_decide).
 */
static void
test_prefer(void)
{
	struct pg_cluster	 c;
	struct pg_next		 nx;
	size_t			 i;

	memset(&c, 0, sizeof(c));
	strlcpy(c.id, "mail", sizeof(c.id));
	c.wait_ms = WAIT;
	c.unreachable = PG_UNREACHABLE_RUN;
	c.on_failure = PG_ON_FAILURE_HANDOVER;
	c.cooldown_ms = WAIT;
	strlcpy(c.prefer, "b,a,c", sizeof(c.prefer));
	c.failback = 1;
	c.failback_after_ms = 600000;
	c.prefer_slack_ms = WAIT / 4;
	/* Every node checks every 30 s, for an hour now; nobody active. */
	reset();
	for (i = 0; i < 3; i++) {
		strlcpy(nodes[i].st.prefer, c.prefer,
		    sizeof(nodes[i].st.prefer));
		nodes[i].st.checked_ms = 10000;
		nodes[i].st.checking_ms = 3600000;
	}
	fleet.cluster = &c;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_PREFERRED,
	    "prefer, nobody active: preferred");
	is_int(nx.node, 1, "prefer, nobody active: b, the first in order");
	is_str(nx.text, "b: its check goes, the others skip (prefer b,a,c)",
	    "preferred: text");

	/* a polls as the substitute; b is back: a makes its last run. */
	nodes[0].st.elapsed_ms = 12000;
	next_is(PG_REASON_ACTIVE, 0,
	    "substitute a active, b healthy: a goes once more, to yield");
	/* a yielded to b 2 s before b's previous check: b takes over. */
	strlcpy(nodes[0].st.yield, "b", sizeof(nodes[0].st.yield));
	nodes[0].st.yielded_ms = 12000;
	nodes[0].st.last = 1;
	nodes[0].st.last_exit = 0;
	nodes[0].st.last_end_ms = 11000;
	next_is(PG_REASON_PREFERRED, 1,
	    "a yielded to b: b goes next, not the active a");
	/*
	 * b's previous check 40 s ago, the slack 15 s: a yield 20 s ago
	 * came after both, it is not for this check of b; 30 s ago, it is.
	 */
	nodes[1].st.checked_ms = 40000;
	nodes[0].st.yielded_ms = 20000;
	/*
	 * Here and below, while b counts a, no check goes: a's skips, since
	 * it yielded (0.4.0's order named a as the one that keeps polling).
	 */
	next_is(PG_REASON_EACH, 3,
	    "a yielded after b's previous check and the slack: not b");
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "nobody goes now: a: yielding to b, the preferred node "
	    "(failback); b, c: a was active 12s ago", "each: the yield");
	nodes[0].st.yielded_ms = 30000;
	next_is(PG_REASON_PREFERRED, 1,
	    "a yielded before b's previous check and the slack: b");
	/*
	 * Only when a's records show its last run over: begun and ended
	 * after the yield, nothing since. Else a counts as active, as its
	 * own check and b's say.
	 */
	nodes[0].st.last = 0;
	next_is(PG_REASON_EACH, 3,
	    "a yielded, no run recorded (a pipeline through touch -f): "
	    "nobody");
	nodes[0].st.last = 1;
	nodes[0].st.last_end_ms = 31000;
	next_is(PG_REASON_EACH, 3, "a yielded, the last run recorded ended "
	    "before (its start not recorded, its touch killed): nobody");
	nodes[0].st.last_end_ms = 11000;
	nodes[0].st.elapsed_ms = 9000;
	next_is(PG_REASON_EACH, 3,
	    "a yielded, active 2 s after its last run ended: nobody");
	nodes[0].st.elapsed_ms = 12000;
	next_is(PG_REASON_PREFERRED, 1,
	    "a yielded, its last run over, nothing since: b");
	nodes[1].st.checked_ms = 10000;
	nodes[0].st.yielded_ms = 12000;
	/*
	 * c announces another order: no check applies the preference. a's
	 * goes (0.4.0's order named a alone), and so does b's: a's yield
	 * still stands, and b does not count a's last run.
	 */
	strlcpy(nodes[2].st.prefer, "c,b,a", sizeof(nodes[2].st.prefer));
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "c announces another order: a and b go");
	is_str(nx.text, "a, b would go: the first check to run goes",
	    "... says which");
	strlcpy(nodes[2].st.prefer, c.prefer, sizeof(nodes[2].st.prefer));
	/* b's checks have run only a minute: not healthy, a stays. */
	nodes[0].st.yield[0] = '\0';
	nodes[1].st.checking_ms = 60000;
	next_is(PG_REASON_ACTIVE, 0,
	    "b back only a minute (failback_after 10m): a keeps polling");

	/* b's cron does not run: a, the next in order, goes. */
	nodes[0].st.elapsed_ms = PG_NEVER;
	nodes[1].st.checked_ms = 2 * WAIT;
	next_is(PG_REASON_PREFERRED, 0,
	    "b does not check: a, next in order, goes");

	/*
	 * A node unreachable: the checks apply prefer all the same, asking
	 * only the nodes that answered whether they agree (0.4.0 made no
	 * prediction by prefer then).
	 */
	nodes[1].st.checked_ms = 10000;
	down(2, PG_ANSWER_UNREACHABLE, "timed out");
	next_is(PG_REASON_PREFERRED, 1, "a node unreachable: b, by prefer");
	/* Without prefer: as before. */
	reset();
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "no prefer: any");
}

/* One check alone goes, whatever the reason: it is named. */
static void
test_one(void)
{
	struct pg_next	 nx;

	/* b failed and is in cooldown; c is down: only a's check goes. */
	reset();
	nodes[1].st.last = 1;
	nodes[1].st.last_exit = 1;
	nodes[1].st.failures = 1;
	nodes[1].st.last_end_ms = 20000;
	nodes[1].st.elapsed_ms = 20000;
	down(2, PG_ANSWER_UNREACHABLE, "timed out");
	pg_fleet_next(&fleet, &nx);
	is_int(nx.reason, PG_REASON_GO, "b handing over, c down: one go");
	is_int(nx.node, 0, "... a's");
	is_str(nx.text, "a: its check goes, the others skip (b's last run "
	    "failed, handing over; c unreachable: counted as never)",
	    "one go: text");
	/* Alone, or with a peer that is down. */
	fleet.n = 1;
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "a: its check goes (no peers)", "no peers: text");
	fleet.n = 2;
	down(1, PG_ANSWER_UNREACHABLE, "timed out");
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "a: its check goes (b unreachable: counted as never)",
	    "the only peer down: text");
	fleet.n = 3;

	/* This node's record cannot be read: its serve answers 500. */
	reset();
	down(0, PG_ANSWER_UNREACHABLE, "its state record is not valid");
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "a's record unreadable: b and c go");
	is_str(nx.text, "nobody active within wait 1m: the first check to run "
	    "goes (a's record unreadable: counted as never)",
	    "a's record unreadable: text");
	cl.unreachable = PG_UNREACHABLE_SKIP;
	next_is(PG_REASON_INVALID, 0, "... unreachable = skip: nobody, for a");

	/* A hold: 0.3 does not see it, so a node before 0.4 goes. */
	reset();
	nodes[0].st.hold_ms = 60000;
	next_is(PG_REASON_HELD, 0, "held: nobody goes");
	old(2, PG_NEVER);
	next_is(PG_REASON_GO, 2, "held, c before 0.4: c's check goes");
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "c: its check goes, the others skip",
	    "held, c before 0.4: text");

	/* A claim kept on b, its run starting: b keeps polling. */
	reset();
	nodes[1].st.elapsed_ms = 900;
	nodes[1].st.claim_ms = 900;
	next_is(PG_REASON_ACTIVE, 1, "b's claim kept: b keeps polling");
	/* A check deciding on b, before its claim: a and c go meanwhile. */
	nodes[1].st.elapsed_ms = PG_NEVER;
	nodes[1].st.claim_ms = -1;
	nodes[1].st.deciding = 1;
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "b deciding, its claim not yet seen: a and c go");
}

/* backend = etcd: etcd orders the claims, not pg_decide. */
static void
test_etcd(void)
{
	struct pg_next	 nx;

	reset();
	cl.backend = PG_BACKEND_ETCD;
	fleet.n = 2;
	fleet.holder = 1;
	nodes[1].st.elapsed_ms = 20000;
	next_is(PG_REASON_ACTIVE, 1, "etcd: the holder goes again");
	fleet.holder = 0;
	nodes[0].st.elapsed_ms = 5000;
	fleet.n = 1;
	next_is(PG_REASON_ACTIVE, 0, "etcd: this node holds the key");
	down(0, PG_ANSWER_UNREACHABLE, "its state record is not valid");
	next_is(PG_REASON_INVALID, 0, "etcd: this node holds the key, and "
	    "cannot read its record: nobody");
	nodes[0].kind = PG_ANSWER_ELAPSED;
	fleet.holder = 2;
	pg_fleet_next(&fleet, &nx);
	is_any(&nx, "etcd: nobody holds the key: the first check");
	fleet.n = 2;
	down(1, PG_ANSWER_UNREACHABLE, "no endpoint answered");
	nodes[1].name = "(etcd)";
	next_is(PG_REASON_UNREACHABLE, 1, "etcd unreachable: nobody");
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "nobody while (etcd) is unreachable (backend = etcd)",
	    "etcd unreachable: text");
	down(1, PG_ANSWER_REFUSED, "401");
	next_is(PG_REASON_INVALID, 1, "etcd refuses: nobody");
	nodes[1].name = "b";
	fleet.n = 3;
	fleet.holder = 3;
}

/*
 * The property: for any fleet, "next" says what the checks do. A world
 * is a cluster's config and 1 to 5 nodes, a (this node) first, each as
 * it answers: its status (0.4 on), its activity only (before 0.4; a
 * run going there is not seen, and only goes while the node is active),
 * or no answer (down: no check runs) or an error. Each node's check is
 * run here as bin/pollguard-check.c runs it, apart from fleet.c: its own
 * record, the run lock, the claim lock and a kept claim, then pg_decide
 * with its own status, by its own prefer order; a node before 0.4 by
 * 0.3.0's rule (lib/decide.c at 475fb03). A node whose checked record
 * says its checks have not run within wait and the slack runs none.
 * Random and reproducible: the seed is printed, PG_SEED=N replays it.
 */
#define NODES	5
#define AT	(INT64_MAX / 4)		/* the checks' moment, ns */

/* True one time in n. */
static int
one_in(int n)
{
	return rnd() % (uint64_t)n == 0;
}

struct world {
	struct pg_cluster	 c;
	struct pg_fleet_node	 node[NODES];
	int			 run03[NODES];	/* before 0.4: a run going */
	size_t			 n;
};

/* A time since something: never, below wait, at it, or above. */
static int64_t
since(int64_t wait)
{
	switch (between(0, 4)) {
	case 0:
		return PG_NEVER;
	case 1:
		return between(0, 3000);
	case 2:
		return between(0, wait - 1);
	case 3:
		return wait;
	default:
		return between(wait, 3 * wait);
	}
}

/* A prefer order of some of the n names, in some order; maybe none. */
static void
order(char *buf, size_t len, size_t n)
{
	static const char	*const names[] = { "a", "b", "c", "d", "e" };
	size_t			 i, j, k, m = between(0, n);
	size_t			 pick[NODES];

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		pick[i] = i;
	for (i = 0; i < m; i++) {
		j = between(i, n - 1);
		k = pick[i];
		pick[i] = pick[j];
		pick[j] = k;
		if (i > 0)
			strlcat(buf, ",", len);
		strlcat(buf, names[pick[i]], len);
	}
}

/* A status as pg_status_serve makes it: activity, runs, hold, checks. */
static void
status(struct world *w, size_t i, struct pg_status *st)
{
	int64_t	 wait = w->c.wait_ms;

	pg_status_init(st);
	st->elapsed_ms = since(wait);
	if (st->elapsed_ms < 5000 && one_in(4))
		st->claim_ms = st->elapsed_ms;
	st->running = one_in(6);
	st->pid = st->running ? between(1, 99999) : 0;
	st->deciding = one_in(12) ? 1 : one_in(8) ? -1 : 0;
	if ((st->last = !one_in(3))) {
		st->last_exit = one_in(3);
		st->failures = st->last_exit ? (int)between(1, 3) : 0;
		st->last_duration_ms = between(0, 5000);
		st->last_end_ms = st->elapsed_ms == PG_NEVER ? since(wait) :
		    st->elapsed_ms + between(-2000, 2000);
		if (st->last_end_ms < 0)
			st->last_end_ms = 0;
	}
	if (one_in(10)) {
		st->hold_ms = between(1, 3 * wait);
		strlcpy(st->hold_by, "ops", sizeof(st->hold_by));
	}
	if (i == 0 || !one_in(5))
		strlcpy(st->prefer, w->c.prefer, sizeof(st->prefer));
	else
		order(st->prefer, sizeof(st->prefer), w->n);
	if (st->prefer[0] == '\0')
		return;
	st->checked_ms = one_in(6) ? PG_NEVER : one_in(5) ?
	    between(wait, 2 * wait) : between(0, wait);
	st->checking_ms = one_in(6) ? -1 : between(0, 2 * wait);
	if (one_in(3)) {
		st->yield[0] = 'a' + between(0, w->n - 1);
		st->yield[1] = '\0';
		st->yielded_ms = between(0, 3 * wait);
	}
}

static void
world(struct world *w)
{
	static const char	*const names[] = { "a", "b", "c", "d", "e" };
	struct pg_fleet_node	*n;
	int64_t			 wait;
	size_t			 i;

	memset(w, 0, sizeof(*w));
	w->n = between(1, NODES);
	wait = between(10, 600) * 1000;
	strlcpy(w->c.id, "mail", sizeof(w->c.id));
	w->c.wait_ms = wait;
	w->c.unreachable = one_in(3) ? PG_UNREACHABLE_SKIP :
	    PG_UNREACHABLE_RUN;
	w->c.on_failure = one_in(4) ? PG_ON_FAILURE_STAY :
	    PG_ON_FAILURE_HANDOVER;
	w->c.cooldown_ms = one_in(2) ? wait : between(1000, 2 * wait);
	w->c.failback = !one_in(4);
	w->c.failback_after_ms = one_in(2) ? wait : between(0, 2 * wait);
	w->c.prefer_slack_ms = between(0, wait / 4);
	if (one_in(2))
		order(w->c.prefer, sizeof(w->c.prefer), w->n);
	for (i = 0; i < w->n; i++) {
		n = &w->node[i];
		n->name = names[i];
		n->self = i == 0;
		n->kind = PG_ANSWER_ELAPSED;
		pg_status_init(&n->st);
		if (i == 0 && one_in(30)) {
			n->kind = PG_ANSWER_UNREACHABLE;	/* a 500 */
			strlcpy(n->why, "its record is damaged",
			    sizeof(n->why));
		} else if (i > 0 && one_in(8)) {
			n->kind = PG_ANSWER_UNREACHABLE;
			strlcpy(n->why, "timed out", sizeof(n->why));
		} else if (i > 0 && one_in(25)) {
			n->kind = between(PG_ANSWER_REFUSED, PG_ANSWER_INVALID);
			strlcpy(n->why, "nonsense", sizeof(n->why));
		} else if (i > 0 && one_in(5)) {
			n->st.elapsed_ms = since(wait);	/* before 0.4 */
			w->run03[i] = n->st.elapsed_ms < wait && one_in(3);
		} else {
			n->has_status = 1;
			status(w, i, &n->st);
		}
	}
}

/* Peer j's answer to node i's check: status read when i is 0.4 on. */
static void
answer(const struct world *w, size_t i, size_t j, struct pg_seen *s)
{
	const struct pg_fleet_node	*p = &w->node[j];

	memset(s, 0, sizeof(*s));
	s->name = p->name;
	s->sent_ns = s->recv_ns = AT;
	pg_status_init(&s->status);
	s->answer.kind = p->kind;
	strlcpy(s->why, p->why, sizeof(s->why));
	if (!PG_ANSWER_OK(p->kind))
		return;
	s->answer.elapsed_ms = p->st.elapsed_ms;
	if (p->st.elapsed_ms == PG_NEVER)
		s->answer.kind = PG_ANSWER_NEVER;
	if (w->node[i].has_status && p->has_status) {
		s->has_status = 1;
		s->status = p->st;
	}
}

/* 0.3.0's round 1 (lib/decide.c at 475fb03), with no run going. */
static int
go03(const struct pg_cluster *c, const struct pg_seen *seen, size_t n)
{
	size_t	 i;
	int	 bad = 0, lost = 0;

	for (i = 0; i < n; i++)
		if (seen[i].answer.kind == PG_ANSWER_ELAPSED &&
		    seen[i].answer.elapsed_ms < c->wait_ms)
			return 0;
		else if (seen[i].answer.kind == PG_ANSWER_UNREACHABLE)
			lost = 1;
		else if (!PG_ANSWER_OK(seen[i].answer.kind))
			bad = 1;
	return !bad && !(lost && c->unreachable == PG_UNREACHABLE_SKIP);
}

/*
 * Node i's check: 1 go, 0 no go, -1 none runs (the node is down, or
 * answered an error, or its cron does not run). *busy: a run, a check
 * or a kept claim is going on there.
 */
static int
goes(const struct world *w, size_t i, int *busy)
{
	const struct pg_fleet_node	*n = &w->node[i];
	struct pg_decision		 d;
	struct pg_cluster		 c = w->c;
	struct pg_status		 own = n->st;
	struct pg_seen			 seen[NODES];
	size_t				 j, k;

	*busy = 0;
	if (!PG_ANSWER_OK(n->kind))
		return n->self ? 0 : -1;	/* read_own() dies */
	if (n->has_status && n->st.prefer[0] != '\0' &&
	    n->st.checked_ms >= c.wait_ms + c.prefer_slack_ms)
		return -1;
	for (j = k = 0; j < w->n; j++)
		if (j != i)
			answer(w, i, j, &seen[k++]);
	if (!n->has_status) {
		*busy = w->run03[i];
		return !*busy && go03(&c, seen, k);
	}
	/* pg_lock_held, pg_claim_lock, a kept claim: skip, exit 2. */
	if ((*busy = own.running || own.deciding == 1 || own.claim_ms >= 0))
		return 0;
	strlcpy(c.prefer, own.prefer, sizeof(c.prefer));
	own.at_ns = AT;
	pg_decide(&c, n->name, &own, 0, seen, k, &d);
	return d.verdict == PG_GO;
}

/* A world for diag: the config and each node. */
static void
show(const struct world *w, const struct pg_next *nx)
{
	const struct pg_status	*st;
	size_t			 i;
	int			 busy;

	diag("wait %" PRId64 " cooldown %" PRId64 " %s %s prefer \"%s\" "
	    "failback %d after %" PRId64 " slack %" PRId64, w->c.wait_ms,
	    w->c.cooldown_ms, w->c.unreachable ? "skip" : "run",
	    w->c.on_failure ? "stay" : "handover", w->c.prefer,
	    w->c.failback, w->c.failback_after_ms, w->c.prefer_slack_ms);
	for (i = 0; i < w->n; i++) {
		st = &w->node[i].st;
		diag("%s: goes %d kind %d status %d run03 %d elapsed %" PRId64
		    " claim %" PRId64 " running %d deciding %d last %d exit %d "
		    "failures %d end %" PRId64 " hold %" PRId64 " prefer "
		    "\"%s\" checked %" PRId64 " checking %" PRId64 " yield "
		    "\"%s\" %" PRId64, w->node[i].name, goes(w, i, &busy),
		    w->node[i].kind, w->node[i].has_status, w->run03[i],
		    st->elapsed_ms, st->claim_ms, st->running, st->deciding,
		    st->last, st->last_exit, st->failures, st->last_end_ms,
		    st->hold_ms, st->prefer, st->checked_ms, st->checking_ms,
		    st->yield, st->yielded_ms);
	}
	diag("next: reason %d node %zu: %s", nx->reason, nx->node, nx->text);
}

/* What next promises of the checks, against what they do: "" or why not. */
static const char *
broken(const struct world *w, const struct pg_next *nx)
{
	size_t	 i, go = 0, x = nx->node;
	int	 busy, g, xgoes = 0, xbusy = 0;

	if (nx->text[0] == '\0')
		return "no text";
	if (x > w->n)
		return "a node out of range";
	for (i = 0; i < w->n; i++) {
		g = goes(w, i, &busy);
		go += g == 1;
		if (i == x) {
			xgoes = g == 1;
			xbusy = busy;
		}
	}
	switch (nx->reason) {
	case PG_REASON_GO:
	case PG_REASON_PREFERRED:
		if (x == w->n)
			return nx->reason == PG_REASON_GO && go >= 2 ? "" :
			    "fewer than two checks go";
		return xgoes && go == 1 ? "" : "not its check alone goes";
	case PG_REASON_ACTIVE:
		if (x == w->n || w->node[x].st.elapsed_ms >= w->c.wait_ms)
			return "no node active within wait";
		return go == (size_t)xgoes && (xgoes || xbusy) ? "" :
		    "another check goes, or it neither goes nor is busy";
	case PG_REASON_HELD:
	case PG_REASON_INVALID:
	case PG_REASON_UNREACHABLE:
	case PG_REASON_EACH:
		return go == 0 ? "" : "a check goes";
	default:
		return "a reason next does not give";
	}
}

static void
test_property(int rounds)
{
	struct world	 w;
	struct pg_fleet	 f;
	struct pg_next	 nx;
	const char	*why;
	int		 i, bad = 0, seen[PG_REASON_EACH + 2];

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < rounds; i++) {
		world(&w);
		f.cluster = &w.c;
		f.nodes = w.node;
		f.n = w.n;
		f.holder = w.n;
		if (pg_fleet_next(&f, &nx) == -1)
			why = "no prediction";
		else
			why = broken(&w, &nx);
		if (nx.reason == PG_REASON_GO && nx.node == w.n)
			seen[PG_REASON_EACH + 1]++;
		else
			seen[nx.reason]++;
		if (why[0] == '\0')
			continue;
		if (bad++ < 3) {
			diag("fleet %d: %s", i, why);
			show(&w, &nx);
		}
	}
	ok(bad == 0, "%d random fleets: next says what the checks do (%d "
	    "not)", rounds, bad);
	diag("any %d, go %d, preferred %d, active %d, held %d, error %d, "
	    "unreachable %d, none %d", seen[PG_REASON_EACH + 1],
	    seen[PG_REASON_GO], seen[PG_REASON_PREFERRED],
	    seen[PG_REASON_ACTIVE], seen[PG_REASON_HELD],
	    seen[PG_REASON_INVALID], seen[PG_REASON_UNREACHABLE],
	    seen[PG_REASON_EACH]);
	ok(seen[PG_REASON_EACH + 1] && seen[PG_REASON_GO] &&
	    seen[PG_REASON_PREFERRED] && seen[PG_REASON_ACTIVE] &&
	    seen[PG_REASON_HELD] && seen[PG_REASON_INVALID] &&
	    seen[PG_REASON_UNREACHABLE] && seen[PG_REASON_EACH],
	    "the random fleets reach every answer next gives");
}

int
main(void)
{
	rng_init("");
	test_next();
	test_one();
	test_etcd();
	test_prefer();
	test_table();
	test_json();
	test_property(50000);
	return done_testing();
}
