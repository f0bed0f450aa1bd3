/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for fleet.c: which node pollguard-status says goes next
 * (every case of the rule, in its order), the table exactly, and the
 * JSON: its fields, and strings escaped so that any byte stays valid
 * JSON (the command-line test feeds the output to a JSON parser too).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"

#define WAIT	60000

static struct pg_fleet_node	 nodes[3];
static struct pg_fleet		 fleet = { "mail", WAIT, PG_UNREACHABLE_RUN,
				    nodes, 3, PG_ON_FAILURE_HANDOVER, NULL };

/* Three nodes a (self), b and c: all answered, never active. */
static void
reset(void)
{
	static const char *const names[] = { "a", "b", "c" };
	size_t	 i;

	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < 3; i++) {
		nodes[i].name = names[i];
		nodes[i].reach = PG_REACH_STATUS;
		pg_status_init(&nodes[i].st);
	}
	nodes[0].self = 1;
	fleet.unreachable = PG_UNREACHABLE_RUN;
	fleet.on_failure = PG_ON_FAILURE_HANDOVER;
}

static void
down(size_t i, enum pg_reach r, const char *why)
{
	nodes[i].reach = r;
	strlcpy(nodes[i].why, why, sizeof(nodes[i].why));
	pg_status_init(&nodes[i].st);
}

static void
test_next(void)
{
	struct pg_next	 nx;

	reset();
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ANY, "nobody ever active: any");
	is_str(nx.text, "nobody active within wait 1m: the first check to "
	    "run goes", "any: text");

	nodes[1].st.elapsed_ms = WAIT;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ANY, "active exactly wait ago: any (strict)");

	nodes[1].st.elapsed_ms = 12000;
	nodes[2].st.elapsed_ms = 30000;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ACTIVE, "b active 12s ago: active");
	is_int(nx.node, 1, "the most recently active node: b");
	is_str(nx.text, "b: active 12s ago (wait 1m), keeps polling",
	    "active: text");

	/* b failed its last run and is idle since: handing over. */
	nodes[1].st.last = 1;
	nodes[1].st.last_exit = 1;
	nodes[1].st.failures = 1;
	nodes[1].st.last_end_ms = 12000;
	nodes[2].st.elapsed_ms = PG_NEVER;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ANY, "b failed, handover: not counted");
	is_str(nx.text, "b's last run failed, handing over; nobody active "
	    "within wait 1m: the first check to run goes", "handover: text");
	fleet.on_failure = PG_ON_FAILURE_STAY;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.node, 1, "b failed, on_failure = stay: b keeps polling");
	fleet.on_failure = PG_ON_FAILURE_HANDOVER;
	nodes[2].st.elapsed_ms = 30000;
	nodes[1].st.running = 1;
	nodes[1].st.pid = 4242;
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "b: active 12s ago, running (pid 4242) (wait 1m), "
	    "keeps polling", "active and running: text");

	/* An elapsed-only node counts with its activity. */
	nodes[2].reach = PG_REACH_ELAPSED;
	nodes[2].st.elapsed_ms = 500;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.node, 2, "an elapsed-only node active more recently: c");

	down(2, PG_REACH_UNREACHABLE, "timed out");
	pg_fleet_next(&fleet, &nx);
	is_int(nx.node, 1, "an unreachable node does not count: b");

	reset();
	down(2, PG_REACH_UNREACHABLE, "timed out");
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ANY, "unreachable, policy run: any");
	is_str(nx.text, "nobody active within wait 1m: the first check to "
	    "run goes (c unreachable: counted as never)",
	    "unreachable, policy run: says so");
	fleet.unreachable = PG_UNREACHABLE_SKIP;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_UNREACHABLE, "unreachable, policy skip");
	is_str(nx.text, "nobody while c is unreachable (unreachable = skip)",
	    "unreachable, policy skip: text");
	nodes[1].st.elapsed_ms = 1000;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ACTIVE, "an active node comes before "
	    "unreachable = skip");

	down(1, PG_REACH_REFUSED, "401 Unauthorized");
	nodes[0].st.elapsed_ms = 1000;
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ERROR, "an error answer before activity");
	is_str(nx.text, "b answers an error: checks that ask it refuse to "
	    "decide", "error: text");
	down(1, PG_REACH_ERROR, "its state record is not valid");
	pg_fleet_next(&fleet, &nx);
	is_str(nx.text, "b cannot read its own record: its check fails",
	    "error of this node's own record: text");
	down(1, PG_REACH_REFUSED, "401 Unauthorized");

	nodes[2].reach = PG_REACH_STATUS;
	nodes[2].st.hold_ms = 60000;
	nodes[0].st.hold_ms = 300000;
	strlcpy(nodes[0].st.hold_by, "root@a", sizeof(nodes[0].st.hold_by));
	strlcpy(nodes[0].st.hold_why, "disk\nswap",
	    sizeof(nodes[0].st.hold_why));
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_HELD, "a hold before everything");
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
	down(2, PG_REACH_UNREACHABLE, "timed out");
	/* The hold is what comes next; see it in the table. */
	t = pg_fleet_table(&fleet, 1);
	is_str(t,
	    "CLUSTER  NODE      REACH        ACTIVE   RUNNING   LAST"
	    "                  FAILS  HOLD\n"
	    "mail     a (self)  yes          12s ago  pid 4242  "
	    "exit 0, 3.2s, 5m ago  0      -\n"
	    "mail     b         yes          2h ago   no        "
	    "signal 9, 1m, 2h ago  3      1s by ops\n"
	    "mail     c         unreachable  -        -         "
	    "-                     -      -\n"
	    "mail     next      held for 1s by ops: nobody goes\n",
	    "the table");
	free(t);

	nodes[1].st.hold_ms = 0;
	nodes[1].reach = PG_REACH_ELAPSED;
	nodes[1].st.claim_ms = 900;
	nodes[1].st.elapsed_ms = 900;
	nodes[0].st.last_timeout = 1;
	t = pg_fleet_table(&fleet, 1);
	is_str(t,
	    "CLUSTER  NODE      REACH         ACTIVE             RUNNING   "
	    "LAST                     FAILS  HOLD\n"
	    "mail     a (self)  yes           12s ago            pid 4242  "
	    "timed out, 3.2s, 5m ago  0      -\n"
	    "mail     b         elapsed only  900ms ago (claim)  -         "
	    "-                        -      -\n"
	    "mail     c         unreachable   -                  -         "
	    "-                        -      -\n"
	    "mail     next      b: active 900ms ago (wait 1m), keeps polling\n",
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
	nodes[0].st.hold_ms = 100;
	strlcpy(nodes[0].st.hold_why, "a \"q\" \\ \x01\x7f\xc3",
	    sizeof(nodes[0].st.hold_why));
	nodes[1].reach = PG_REACH_ELAPSED;
	down(2, PG_REACH_INVALID, "not a number: \"x\"");
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
	    "\"last_success_ms\":30,\"failures\":1,\"prefer\":null,"
	    "\"checked_ms\":null,\"checking_ms\":null,\"yield\":null,"
	    "\"hold\":{\"left_ms\":100,\"by\":null,", "json: a full node");
	like(j, "\"why\":\"a \\\"q\\\" \\\\ \\u0001\\u007f\\u00c3\"}}",
	    "json: quotes, backslashes, control and high bytes escaped");
	like(j, "{\"name\":\"b\",\"self\":false,\"reachable\":true,"
	    "\"answer\":\"elapsed\",\"error\":null,\"version\":null,"
	    "\"elapsed_ms\":null,\"claim_ms\":null,\"deciding\":null,\"running\":null,"
	    "\"pid\":null,\"last\":null,\"last_success_ms\":null,"
	    "\"failures\":null,\"prefer\":null,\"checked_ms\":null,"
	    "\"checking_ms\":null,\"yield\":null,\"hold\":null}",
	    "json: an elapsed-only node that never polled");
	like(j, "{\"name\":\"c\",\"self\":false,\"reachable\":false,"
	    "\"answer\":\"invalid\",\"error\":\"not a number: \\\"x\\\"\",",
	    "json: an invalid answer and its reason");
	ok(strlen(j) > 0 && j[strlen(j) - 1] == '\n' &&
	    strchr(j, '\n') == j + strlen(j) - 1, "json: one line");
	free(j);

	/* The preference: order, checks, a yield. */
	nodes[1].reach = PG_REACH_STATUS;
	strlcpy(nodes[1].st.prefer, "a,b", sizeof(nodes[1].st.prefer));
	nodes[1].st.checked_ms = 4000;
	nodes[1].st.checking_ms = 70000;
	strlcpy(nodes[1].st.yield, "a", sizeof(nodes[1].st.yield));
	nodes[1].st.yielded_ms = 3000;
	j = pg_fleet_json("0.4.0", "a", &fleet, 1);
	like(j, "\"failures\":0,\"prefer\":\"a,b\",\"checked_ms\":4000,"
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
next_is(enum pg_next_why why, size_t node, const char *desc)
{
	struct pg_next	 nx;

	pg_fleet_next(&fleet, &nx);
	ok(nx.why == why && nx.node == node, "%s", desc);
	if (nx.why != why || nx.node != node)
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
	is_int(nx.why, PG_NEXT_PREFERRED, "prefer, nobody active: preferred");
	is_int(nx.node, 1, "prefer, nobody active: b, the first in order");
	is_str(nx.text, "b: its check goes, the others skip (prefer b,a,c)",
	    "preferred: text");

	/* a polls as the substitute; b is back: a makes its last run. */
	nodes[0].st.elapsed_ms = 12000;
	next_is(PG_NEXT_ACTIVE, 0,
	    "substitute a active, b healthy: a goes once more, to yield");
	/* a yielded to b 2 s before b's previous check: b takes over. */
	strlcpy(nodes[0].st.yield, "b", sizeof(nodes[0].st.yield));
	nodes[0].st.yielded_ms = 12000;
	nodes[0].st.last = 1;
	nodes[0].st.last_exit = 0;
	nodes[0].st.last_end_ms = 11000;
	next_is(PG_NEXT_PREFERRED, 1,
	    "a yielded to b: b goes next, not the active a");
	/*
	 * b's previous check 40 s ago, the slack 15 s: a yield 20 s ago
	 * came after both, it is not for this check of b; 30 s ago, it is.
	 */
	nodes[1].st.checked_ms = 40000;
	nodes[0].st.yielded_ms = 20000;
	next_is(PG_NEXT_ACTIVE, 0,
	    "a yielded after b's previous check and the slack: a, not b");
	nodes[0].st.yielded_ms = 30000;
	next_is(PG_NEXT_PREFERRED, 1,
	    "a yielded before b's previous check and the slack: b");
	/*
	 * Only when a's records show its last run over: begun and ended
	 * after the yield, nothing since. Else a counts as active, as its
	 * own check and b's say.
	 */
	nodes[0].st.last = 0;
	next_is(PG_NEXT_ACTIVE, 0,
	    "a yielded, no run recorded (a pipeline through touch -f): a");
	nodes[0].st.last = 1;
	nodes[0].st.last_end_ms = 31000;
	next_is(PG_NEXT_ACTIVE, 0, "a yielded, the last run recorded ended "
	    "before (its start not recorded, its touch killed): a");
	nodes[0].st.last_end_ms = 11000;
	nodes[0].st.elapsed_ms = 9000;
	next_is(PG_NEXT_ACTIVE, 0,
	    "a yielded, active 2 s after its last run ended: a");
	nodes[0].st.elapsed_ms = 12000;
	next_is(PG_NEXT_PREFERRED, 1,
	    "a yielded, its last run over, nothing since: b");
	nodes[1].st.checked_ms = 10000;
	nodes[0].st.yielded_ms = 12000;
	/* c announces another order: no preference is applied. */
	strlcpy(nodes[2].st.prefer, "c,b,a", sizeof(nodes[2].st.prefer));
	next_is(PG_NEXT_ACTIVE, 0,
	    "c announces another order: no prediction by prefer");
	strlcpy(nodes[2].st.prefer, c.prefer, sizeof(nodes[2].st.prefer));
	/* b's checks have run only a minute: not healthy, a stays. */
	nodes[0].st.yield[0] = '\0';
	nodes[1].st.checking_ms = 60000;
	next_is(PG_NEXT_ACTIVE, 0,
	    "b back only a minute (failback_after 10m): a keeps polling");

	/* b's cron does not run: a, the next in order, goes. */
	nodes[0].st.elapsed_ms = PG_NEVER;
	nodes[1].st.checked_ms = 2 * WAIT;
	next_is(PG_NEXT_PREFERRED, 0,
	    "b does not check: a, next in order, goes");

	/* A node without its status: no prediction by prefer. */
	nodes[1].st.checked_ms = 10000;
	down(2, PG_REACH_UNREACHABLE, "timed out");
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ANY, "a node unreachable: the rule without "
	    "prefer");
	/* Without prefer: as before. */
	reset();
	c.prefer[0] = '\0';
	pg_fleet_next(&fleet, &nx);
	is_int(nx.why, PG_NEXT_ANY, "no prefer: any");
	fleet.cluster = NULL;
}

int
main(void)
{
	test_next();
	test_prefer();
	test_table();
	test_json();
	return done_testing();
}
