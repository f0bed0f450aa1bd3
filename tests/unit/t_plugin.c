/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for plugin.c (pollguard-status -p): each state and what
 * makes it, their order, the line exactly as the Monitoring Plugins
 * guidelines want it (one line, "|" only before the perfdata, perfdata
 * 'label'=value[UOM];warn;crit;min;max), and for ping.c's pure parts:
 * the run ID and the URLs.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor.h"
#include "tap.h"

#define WAIT	600000			/* 10m */
#define WARN	(2 * WAIT)
#define CRIT	(3 * WAIT)

static struct pg_fleet_node	 nodes[3];
static struct pg_cluster	 cluster;
static struct pg_fleet		 fleet = { &cluster, nodes, 3, 3 };
static struct pg_plugin		 opt;
static char			 line[PG_PLUGIN_LINE_MAX];

/* What node n answered: its kind, and whether a status (0.4 on). */
static void
answer(struct pg_fleet_node *n, enum pg_answer_kind kind, int has_status)
{
	n->kind = kind;
	n->has_status = has_status;
}

/* Three nodes a (self), b and c: all answered; b succeeded 4m ago. */
static void
reset(void)
{
	static const char *const names[] = { "a", "b", "c" };
	size_t	 i;

	memset(nodes, 0, sizeof(nodes));
	memset(&cluster, 0, sizeof(cluster));
	strlcpy(cluster.id, "mail", sizeof(cluster.id));
	cluster.wait_ms = WAIT;
	cluster.unreachable = PG_UNREACHABLE_RUN;
	cluster.on_failure = PG_ON_FAILURE_HANDOVER;
	for (i = 0; i < 3; i++) {
		nodes[i].name = names[i];
		answer(&nodes[i], PG_ANSWER_ELAPSED, 1);
		pg_status_init(&nodes[i].st);
	}
	nodes[0].self = 1;
	nodes[1].st.last_success_ms = 240000;
	nodes[1].st.elapsed_ms = 235000;
	fleet.n = 3;
	opt.warn_ms = WARN;
	opt.crit_ms = CRIT;
	opt.known_ms = 0;
	opt.serve_why = NULL;
}

static int
check(void)
{
	return pg_plugin_check(&fleet, &opt, line, sizeof(line));
}

/*
 * The line as the guidelines want it: "POLLGUARD STATE - text | perfdata"
 * and one newline; the text without '|' or control characters; each
 * perfdata item 'label'=value[UOM];[warn];[crit];[min];[max].
 */
static int
well_formed(const char *s)
{
	static regex_t	 re, item;
	static int	 ready;
	const char	*bar, *p;
	char		 one[256];
	size_t		 n;

	if (!ready) {
		if (regcomp(&re, "^POLLGUARD (OK|WARNING|CRITICAL|UNKNOWN) - "
		    "[^|]+ \\| ", REG_EXTENDED) != 0 ||
		    regcomp(&item, "^'[^'=]+'=(U|-?[0-9]+(\\.[0-9]+)?(s|%|B|"
		    "KB|MB|GB|TB|c)?)(;(-?[0-9.]*)){0,4}$", REG_EXTENDED) != 0)
			return 0;
		ready = 1;
	}
	n = strlen(s);
	if (n == 0 || s[n - 1] != '\n' || strchr(s, '\n') != s + n - 1)
		return 0;
	for (p = s; *p != '\n'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	if (regexec(&re, s, 0, NULL, 0) != 0 ||
	    (bar = strchr(s, '|')) == NULL || strchr(bar + 1, '|') != NULL)
		return 0;
	for (p = bar + 2; *p != '\n'; p += n + (p[n] == ' ')) {
		n = strcspn(p, " \n");
		if (n == 0 || n >= sizeof(one))
			return 0;
		memcpy(one, p, n);
		one[n] = '\0';
		if (regexec(&item, one, 0, NULL, 0) != 0) {
			diag("perfdata item: %s", one);
			return 0;
		}
	}
	return 1;
}

static void
test_ok(void)
{
	reset();
	is_int(check(), PG_PLUGIN_OK, "all answer, a success 4m ago: OK");
	is_str(line, "POLLGUARD OK - mail: last success 4m ago on b; "
	    "3 of 3 nodes answer | 'since_success'=240s;1200;1800;0 "
	    "'failures'=0;2;;0 'reachable'=3;;;0;3 'running'=0;;1;0;3\n",
	    "OK: the line");
	ok(well_formed(line), "OK: the line is well formed");

	/* The freshest success anywhere counts, a fraction of a second too. */
	nodes[2].st.last_success_ms = 61500;
	check();
	like(line, "last success 1m1s ago on c", "the freshest success");
	like(line, "'since_success'=61.5s;", "seconds with their fraction");

	/* Exactly at a threshold is not yet older than it. */
	reset();
	nodes[1].st.last_success_ms = WARN;
	is_int(check(), PG_PLUGIN_OK, "last success exactly 2 x wait ago: OK");
	nodes[1].st.last_success_ms = WARN + 1;
	is_int(check(), PG_PLUGIN_WARNING, "1 ms more: WARNING");
	like(line, "POLLGUARD WARNING - mail: last success 20m ago on b "
	    "(warning: 20m)", "WARNING: the text says the threshold");
	nodes[1].st.last_success_ms = CRIT;
	is_int(check(), PG_PLUGIN_WARNING, "exactly 3 x wait: WARNING");
	nodes[1].st.last_success_ms = CRIT + 1000;
	is_int(check(), PG_PLUGIN_CRITICAL, "older than 3 x wait: CRITICAL");
	like(line, "POLLGUARD CRITICAL - mail: last success 30m1s ago on b "
	    "(critical: 30m)", "CRITICAL: the text");
	like(line, "'since_success'=1801s;1200;1800;0 ", "its perfdata");
	ok(well_formed(line), "CRITICAL: well formed");

	/* Thresholds of the options. */
	reset();
	opt.warn_ms = 60000;
	opt.crit_ms = 90500;
	nodes[1].st.last_success_ms = 70000;
	is_int(check(), PG_PLUGIN_WARNING, "-w 1m: WARNING at 70s");
	like(line, "'since_success'=70s;60;90.5;0 ", "thresholds in seconds");
}

static void
test_never(void)
{
	reset();
	nodes[1].st.last_success_ms = PG_NEVER;
	nodes[1].st.elapsed_ms = PG_NEVER;
	is_int(check(), PG_PLUGIN_OK, "no success, nothing known: OK");
	like(line, "- mail: no success yet; 3 of 3 nodes answer | "
	    "'since_success'=U;1200;1800;0 ", "no success: U");
	ok(well_formed(line), "U is well formed");

	opt.known_ms = 5 * 60000;
	check();
	like(line, "no success yet, in the 5m known;", "the age known");
	opt.known_ms = WARN + 1;
	is_int(check(), PG_PLUGIN_WARNING, "configured 2 x wait ago: WARNING");
	opt.known_ms = CRIT + 60000;
	is_int(check(), PG_PLUGIN_CRITICAL, "configured 31m ago: CRITICAL");
	like(line, "POLLGUARD CRITICAL - mail: no success in the 31m known "
	    "(critical: 30m); 3 of 3 nodes answer", "CRITICAL: never");

	/* What the nodes say vouches for the age as well. */
	opt.known_ms = 0;
	nodes[2].st.checked_ms = 60000;
	nodes[2].st.checking_ms = CRIT + 2000;
	is_int(check(), PG_PLUGIN_CRITICAL, "checks for 30m2s, never a "
	    "success: CRITICAL");
	nodes[2].st.checking_ms = -1;
	nodes[2].st.elapsed_ms = WARN + 1000;
	is_int(check(), PG_PLUGIN_WARNING, "active 20m1s ago: WARNING");
	nodes[2].st.elapsed_ms = PG_NEVER;
	nodes[2].st.last = 1;
	nodes[2].st.last_exit = 1;
	nodes[2].st.last_end_ms = CRIT;
	nodes[2].st.last_duration_ms = 1000;
	is_int(check(), PG_PLUGIN_CRITICAL, "a failed run began 30m1s ago: "
	    "CRITICAL");
	/* The largest a peer may say: no overflow (UBSan, check-sanitize). */
	nodes[2].st.last_end_ms = PG_NEVER - 1;
	nodes[2].st.last_duration_ms = PG_NEVER - 1;
	is_int(check(), PG_PLUGIN_CRITICAL, "a run begun at the largest time "
	    "a peer can say: CRITICAL");
}

static void
test_critical(void)
{
	reset();
	nodes[0].st.running = 1;
	is_int(check(), PG_PLUGIN_OK, "one node runs: OK");
	like(line, "'running'=1;;1;0;3", "running: 1");
	nodes[2].st.running = 1;
	is_int(check(), PG_PLUGIN_CRITICAL, "two nodes run: CRITICAL");
	like(line, "POLLGUARD CRITICAL - mail: runs on 2 nodes at once: a, c; "
	    "last success 4m ago on b; 3 of 3 nodes answer", "who runs");
	like(line, "'running'=2;;1;0;3", "running: 2");

	/* The worst first, every reason named. */
	nodes[1].st.hold_ms = 3600000;
	nodes[1].st.last_success_ms = CRIT + 1000;
	is_int(check(), PG_PLUGIN_CRITICAL, "two reasons: CRITICAL");
	like(line, "- mail: runs on 2 nodes at once: a, c; last success 30m1s "
	    "ago on b (critical: 30m); held on b, 1h left; 3 of 3 nodes "
	    "answer |", "both, then the warning");
}

static void
test_warning(void)
{
	reset();
	nodes[2].st.hold_ms = 7200000;
	is_int(check(), PG_PLUGIN_WARNING, "a hold: WARNING");
	like(line, "POLLGUARD WARNING - mail: held on c, 2h left; last "
	    "success 4m ago on b; 3 of 3", "the hold");

	reset();
	nodes[2].st.failures = 2;
	is_int(check(), PG_PLUGIN_OK, "2 failures in a row: OK");
	like(line, "'failures'=2;2;;0", "failures: 2");
	nodes[2].st.failures = 3;
	is_int(check(), PG_PLUGIN_WARNING, "3 failures in a row: WARNING");
	like(line, "WARNING - mail: c failed 3 runs in a row;", "who failed");
	like(line, "'failures'=3;2;;0", "failures: 3, above the warning 2");

	reset();
	answer(&nodes[2], PG_ANSWER_UNREACHABLE, 0);
	strlcpy(nodes[2].why, "Connection refused | or so",
	    sizeof(nodes[2].why));
	is_int(check(), PG_PLUGIN_WARNING, "a node unreachable: WARNING");
	like(line, "WARNING - mail: c does not answer (Connection refused / "
	    "or so); last success 4m ago on b; 2 of 3 nodes answer |",
	    "why, '|' as '/'");
	like(line, "'reachable'=2;;;0;3", "reachable: 2 of 3");
	ok(well_formed(line), "well formed");
	answer(&nodes[2], PG_ANSWER_REFUSED, 0);
	is_int(check(), PG_PLUGIN_WARNING, "a node refuses: WARNING");

	/* Its success is not known: the others' counts. */
	reset();
	answer(&nodes[1], PG_ANSWER_UNKNOWN, 0);
	nodes[2].st.last_success_ms = 100000;
	check();
	like(line, "last success 1m40s ago on c", "only what answered counts");

	reset();
	opt.serve_why = "Connection refused";
	is_int(check(), PG_PLUGIN_WARNING, "this node's serve down: WARNING");
	like(line, "WARNING - mail: the serve of a (this node) does not "
	    "answer (Connection refused); last success 4m ago on b; 2 of 3 "
	    "nodes answer", "this node's serve");
}

static void
test_unknown(void)
{
	reset();
	answer(&nodes[0], PG_ANSWER_UNREACHABLE, 0);
	strlcpy(nodes[0].why, "its state record /x/mail is not valid",
	    sizeof(nodes[0].why));
	is_int(check(), PG_PLUGIN_UNKNOWN, "own record unreadable: UNKNOWN");
	like(line, "POLLGUARD UNKNOWN - mail: a (this node): its state record "
	    "/x/mail is not valid; last success 4m ago on b; 2 of 3",
	    "UNKNOWN: why");
	answer(&nodes[2], PG_ANSWER_UNREACHABLE, 0);
	is_int(check(), PG_PLUGIN_UNKNOWN, "UNKNOWN above WARNING");
	nodes[0].st.running = 1;
	nodes[1].st.running = 1;
	answer(&nodes[2], PG_ANSWER_ELAPSED, 1);
	nodes[2].st.running = 1;
	is_int(check(), PG_PLUGIN_CRITICAL, "CRITICAL above UNKNOWN");

	pg_plugin_unknown(line, sizeof(line), "x.conf:3: unknown key | \n");
	is_str(line, "POLLGUARD UNKNOWN - x.conf:3: unknown key / ?\n",
	    "pg_plugin_unknown: one line, no '|'");
}

static void
test_old(void)
{
	/* A node before 0.4 shows its activity only: it stands for a run. */
	reset();
	nodes[1].st.last_success_ms = PG_NEVER;
	answer(&nodes[2], PG_ANSWER_ELAPSED, 0);
	nodes[2].st.elapsed_ms = 90000;
	is_int(check(), PG_PLUGIN_OK, "an old node active 90s ago: OK");
	like(line, "last success 1m30s ago on c", "its activity counts");
	nodes[2].st.elapsed_ms = CRIT + 1;
	is_int(check(), PG_PLUGIN_CRITICAL, "active 30m ago: CRITICAL");
}

static void
test_long(void)
{
	static char	 why[PG_ERR_MAX];

	/* Long reasons: the line stays within its size, perfdata whole. */
	reset();
	memset(why, 'x', sizeof(why) - 1);
	answer(&nodes[1], PG_ANSWER_INVALID, 0);
	answer(&nodes[2], PG_ANSWER_INVALID, 0);
	strlcpy(nodes[1].why, why, sizeof(nodes[1].why));
	strlcpy(nodes[2].why, why, sizeof(nodes[2].why));
	check();
	ok(strlen(line) < sizeof(line) && well_formed(line),
	    "long reasons: well formed (%zu bytes)", strlen(line));
	like(line, "... | 'since_success'=U;", "cut short with ...");
}

static void
test_ping(void)
{
	char	 rid[PG_RID_LEN + 1], rid2[PG_RID_LEN + 1], url[128];
	size_t	 i;
	int	 good = 1;

	pg_ping_rid(rid);
	pg_ping_rid(rid2);
	is_int(strlen(rid), 36, "run ID: 36 characters");
	for (i = 0; i < 36; i++)
		if ((i == 8 || i == 13 || i == 18 || i == 23) ? rid[i] != '-' :
		    !isxdigit((unsigned char)rid[i]) || isupper(
		    (unsigned char)rid[i]))
			good = 0;
	ok(good, "run ID: 8-4-4-4-12 lower-case hex (%s)", rid);
	ok(rid[14] == '4' && strchr("89ab", rid[19]) != NULL,
	    "run ID: a version 4 UUID, RFC 4122 variant");
	ok(strcmp(rid, rid2) != 0, "two run IDs differ");

	is_int(pg_ping_url(url, sizeof(url), "https://hc.example/p/abc",
	    PG_PING_START, rid2), 0, "start URL");
	ok(strncmp(url, "https://hc.example/p/abc/start?rid=", 35) == 0 &&
	    strcmp(url + 35, rid2) == 0, "start URL: %s", url);
	pg_ping_url(url, sizeof(url), "http://h:8/x//", 0, "R");
	is_str(url, "http://h:8/x/0?rid=R", "success, trailing '/' dropped");
	pg_ping_url(url, sizeof(url), "http://h", 124, "R");
	is_str(url, "http://h/124?rid=R", "a runtime-limit kill: 124");
	pg_ping_url(url, sizeof(url), "http://h", 255, "R");
	is_str(url, "http://h/255?rid=R", "255");
	errno = 0;
	ok(pg_ping_url(url, sizeof(url), "http://h", 256, "R") == -1 &&
	    errno == EINVAL, "256: EINVAL");
	errno = 0;
	ok(pg_ping_url(url, 20, "http://h.example", 1, "R") == -1 &&
	    errno == ENAMETOOLONG, "too long: ENAMETOOLONG");
	pg_ping_host(url, sizeof(url), "https://hc-ping.com/0f2c/mail");
	is_str(url, "hc-ping.com", "the host, not the key");
	pg_ping_host(url, sizeof(url), "http://[::1]:8000");
	is_str(url, "[::1]:8000", "the host and port");
}

int
main(void)
{
	test_ok();
	test_never();
	test_critical();
	test_warning();
	test_unknown();
	test_old();
	test_long();
	test_ping();
	return done_testing();
}
