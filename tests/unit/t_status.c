/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for status.c: the status answer written and read back,
 * what a reader of this version accepts from a later one (unknown keys),
 * and what it refuses (each known key out of range, repeats, broken
 * lines).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"

static struct pg_status
full(void)
{
	struct pg_status	 st;

	pg_status_init(&st);
	strlcpy(st.cluster, "mail", sizeof(st.cluster));
	strlcpy(st.node, "alpha", sizeof(st.node));
	strlcpy(st.version, "0.4.0", sizeof(st.version));
	st.elapsed_ms = 412000;
	st.claim_ms = 1200;
	st.running = 1;
	st.pid = 4242;
	st.last = 1;
	st.last_exit = 3;
	st.last_timeout = 1;
	st.last_duration_ms = 5300;
	st.last_end_ms = 60000;
	st.last_success_ms = 3600000;
	st.failures = 2;
	st.hold_ms = 300000;
	strlcpy(st.hold_by, "root@alpha", sizeof(st.hold_by));
	strlcpy(st.hold_why, "disk swap, back at 14:00", sizeof(st.hold_why));
	return st;
}

/* Parse the whole of s as one block: 0 or -1, why in why. */
static int
parse(const char *s, struct pg_status *st, char *why, size_t wlen)
{
	size_t	 used = 0;

	why[0] = '\0';
	return pg_status_parse(s, strlen(s), st, &used, why, wlen);
}

static void
test_round_trip(void)
{
	struct pg_status	 st = full(), back;
	char			 buf[PG_STATUS_MAX], why[128];
	size_t			 used;
	int			 n;

	n = pg_status_format(&st, buf, sizeof(buf));
	ok(n > 0, "format a full status (%d bytes)", n);
	is_str(buf, "cluster mail\nnode alpha\nversion 0.4.0\nelapsed 412000\n"
	    "claim 1200\nrunning 1\npid 4242\nlast_exit 3\nlast_timeout 1\n"
	    "last_duration 5300\nlast_end 60000\nlast_success 3600000\n"
	    "failures 2\nhold 300000\nhold_by root@alpha\n"
	    "hold_why disk swap, back at 14:00\n", "the lines, in order");
	is_int(pg_status_parse(buf, n, &back, &used, why, sizeof(why)), 0,
	    "read back");
	is_int(used, n, "read back: all of it");
	ok(memcmp(&st, &back, sizeof(st)) == 0, "read back: the same status");

	pg_status_init(&st);
	strlcpy(st.cluster, "idle", sizeof(st.cluster));
	n = pg_status_format(&st, buf, sizeof(buf));
	is_str(buf, "cluster idle\nelapsed never\nrunning 0\n"
	    "last_success never\nfailures 0\n", "an empty status");
	is_int(parse(buf, &back, why, sizeof(why)), 0, "empty: read back");
	ok(memcmp(&st, &back, sizeof(st)) == 0, "empty: the same status");

	st = full();
	st.last_signal = 9;
	st.last_exit = -1;
	n = pg_status_format(&st, buf, sizeof(buf));
	like(buf, "\nlast_signal 9\n", "killed: last_signal");
	ok(strstr(buf, "last_exit") == NULL, "killed: no last_exit");
	is_int(parse(buf, &back, why, sizeof(why)), 0, "killed: read back");
	ok(memcmp(&st, &back, sizeof(st)) == 0, "killed: the same status");

	st = full();
	strlcpy(st.hold_why, "a\tb\nc", sizeof(st.hold_why));
	n = pg_status_format(&st, buf, sizeof(buf));
	like(buf, "\nhold_why a\\tb\\nc\n", "hold_why: escaped on one line");
	is_int(parse(buf, &back, why, sizeof(why)), 0, "escaped: read back");
	is_str(back.hold_why, "a\\tb\\nc", "escaped: stays escaped");

	/* Printable text never grows: 127 backslashes still read back. */
	st = full();
	memset(st.hold_why, '\\', sizeof(st.hold_why) - 1);
	st.hold_why[sizeof(st.hold_why) - 1] = '\0';
	n = pg_status_format(&st, buf, sizeof(buf));
	is_int(parse(buf, &back, why, sizeof(why)), 0,
	    "127 backslashes: read back");
	is_str(back.hold_why, st.hold_why, "127 backslashes: unchanged");

	st = full();
	is_int(pg_status_format(&st, buf, 40), -1, "too small a buffer: -1");
}

static void
test_later_versions(void)
{
	struct pg_status	 st;
	char			 why[128];
	const char		*two = "cluster a\nelapsed 5\nprefer x,y\n\n"
				    "cluster b\nelapsed never\n\n";
	size_t			 used;

	is_int(parse("cluster mail\nelapsed 7\nsome_new_key anything at all"
	    "\nfailures 1\n", &st, why, sizeof(why)), 0,
	    "an unknown key is skipped");
	is_int(st.failures, 1, "and the keys after it are read");
	is_int(parse("cluster mail\r\nelapsed 7\r\n", &st, why, sizeof(why)),
	    0, "CRLF line ends");
	is_int(st.elapsed_ms, 7, "CRLF: elapsed");

	is_int(pg_status_parse(two, strlen(two), &st, &used, why,
	    sizeof(why)), 0, "two blocks: the first");
	is_str(st.cluster, "a", "two blocks: cluster a");
	is_int(pg_status_parse(two + used, strlen(two) - used, &st, &used,
	    why, sizeof(why)), 0, "two blocks: the second");
	is_str(st.cluster, "b", "two blocks: cluster b");
	ok(st.elapsed_ms == PG_NEVER, "two blocks: b never");
}

static void
test_refused(void)
{
	static const struct {
		const char	*in;
		const char	*why;
	} t[] = {
		{ "", "no cluster" },
		{ "cluster mail\n", "no elapsed" },
		{ "elapsed 5\ncluster mail\n", "line 1" },
		{ "cluster mail\nelapsed 5", "no end of line" },
		{ "cluster mail\nelapsed 5\nelapsed 6\n", "elapsed twice" },
		{ "cluster mail\nelapsed -5\n", "elapsed: invalid" },
		{ "cluster mail\nelapsed +5\n", "elapsed: invalid" },
		{ "cluster mail\nelapsed 5 \n", "elapsed: invalid" },
		{ "cluster mail\nelapsed 9223372036854775807\n", "invalid" },
		{ "cluster mail\nelapsed 99999999999999999999\n", "invalid" },
		{ "cluster mail\nelapsed\n", "not \"key value\"" },
		{ "cluster mail\nElapsed 5\n", "not \"key value\"" },
		{ "cluster mail\n elapsed 5\n", "not \"key value\"" },
		{ "cluster ../x\nelapsed 5\n", "cluster: invalid" },
		{ "cluster mail\nnode a b\nelapsed 5\n", "node: invalid" },
		{ "cluster mail\nelapsed 5\nrunning 2\n", "running: invalid" },
		{ "cluster mail\nelapsed 5\npid 0\n", "pid: invalid" },
		{ "cluster mail\nelapsed 5\nlast_exit 256\n", "invalid" },
		{ "cluster mail\nelapsed 5\nlast_signal 0\n", "invalid" },
		{ "cluster mail\nelapsed 5\nlast_exit 1\nlast_signal 9\n",
		    "both" },
		{ "cluster mail\nelapsed 5\nhold 0\n", "hold: invalid" },
		{ "cluster mail\nelapsed 5\nhold_why \033[2J\n", "invalid" },
		{ "cluster mail\nelapsed 5\nhold_by \n", "invalid" },
		{ "cluster mail\nelapsed 5\nfailures x\n", "invalid" },
		{ "cluster mail\nelapsed 5\ndeciding maybe\nsettle 500\n"
		    "timeout 2000\n", "deciding: invalid" },
		{ "cluster mail\nelapsed 5\ndeciding Yes\nsettle 500\n"
		    "timeout 2000\n", "deciding: invalid" },
		{ "cluster mail\nelapsed 5\ndeciding no\nsettle -1\n"
		    "timeout 2000\n", "settle: invalid" },
		{ "cluster mail\nelapsed 5\ndeciding no\nsettle 500\n"
		    "timeout x\n", "timeout: invalid" },
		{ "cluster mail\nelapsed 5\ndeciding no\n",
		    "deciding, settle and timeout go together" },
		{ "cluster mail\nelapsed 5\ndeciding no\nsettle 500\n",
		    "deciding, settle and timeout go together" },
		{ "cluster mail\nelapsed 5\nsettle 500\n",
		    "deciding, settle and timeout go together" },
		{ "cluster mail\nelapsed 5\nsettle 500\ntimeout 2000\n",
		    "deciding, settle and timeout go together" },
		{ "cluster mail\nelapsed 5\ndeciding no\ndeciding yes\n"
		    "settle 500\ntimeout 2000\n", "deciding twice" },
		{ "cluster mail\nelapsed 5\nrate -1\n", "rate: invalid" },
		{ "cluster mail\nelapsed 5\nrate 1000000\n", "rate: invalid" },
		{ "cluster mail\nelapsed 5\nrate 5.5\n", "rate: invalid" },
		{ "cluster mail\nelapsed 5\nrate 500\nrate 600\n",
		    "rate twice" },
		{ "cluster mail\nelapsed 5\nwait -1\n", "wait: invalid" },
		{ "cluster mail\nelapsed 5\non_failure Stay\n",
		    "on_failure: invalid" },
		{ "cluster mail\nelapsed 5\nbackend etcd 2\n",
		    "backend: invalid" },
		{ "cluster mail\nelapsed 5\nwait 5\nwait 5\n", "wait twice" },
	};
	struct pg_status	 st;
	char			 why[128], big[PG_STATUS_LINE_MAX + 64];
	size_t			 i, used;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!is_int(parse(t[i].in, &st, why, sizeof(why)), -1,
		    "refused: %s", t[i].why))
			continue;
		like(why, t[i].why, "refused: why says %s", t[i].why);
	}
	memcpy(big, "cluster mail\nelapsed 5\nhold_why ", 32);
	memset(big + 32, 'x', sizeof(big) - 34);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	is_int(parse(big, &st, why, sizeof(why)), -1, "a line too long");
	is_int(pg_status_parse("cluster mail\nelapsed 5\0\n", 24, &st, &used,
	    why, sizeof(why)), -1, "a NUL in a line");
}

/*
 * The fast rule's keys: written only when deciding is said, read back;
 * absent, the peer decides by the settle rule (-1).
 */
static void
test_deciding(void)
{
	struct pg_status	 st, back;
	char			 buf[PG_STATUS_MAX], why[128];

	pg_status_init(&st);
	is_int(st.deciding, -1, "init: deciding not said");
	strlcpy(st.cluster, "mail", sizeof(st.cluster));
	st.elapsed_ms = 5;
	ok(pg_status_format(&st, buf, sizeof(buf)) > 0, "formatted");
	ok(strstr(buf, "deciding") == NULL && strstr(buf, "settle") == NULL,
	    "not said: no deciding, settle or timeout line");
	st.deciding = 1;
	st.settle_ms = 500;
	st.timeout_ms = 2000;
	ok(pg_status_format(&st, buf, sizeof(buf)) > 0, "formatted");
	like(buf, "\ndeciding yes\nsettle 500\ntimeout 2000\n",
	    "deciding yes, settle and timeout in ms");
	is_int(parse(buf, &back, why, sizeof(why)), 0, "read back");
	is_int(back.deciding, 1, "deciding yes");
	is_int(back.settle_ms, 500, "settle 500");
	is_int(back.timeout_ms, 2000, "timeout 2000");
	st.deciding = 0;
	st.settle_ms = 0;
	ok(pg_status_format(&st, buf, sizeof(buf)) > 0, "formatted");
	like(buf, "\ndeciding no\nsettle 0\n", "deciding no, settle 0");
	is_int(parse(buf, &back, why, sizeof(why)), 0, "read back");
	is_int(back.deciding, 0, "deciding no");
	is_int(back.settle_ms, 0, "settle 0");
	is_int(parse("cluster mail\nelapsed 5\n", &back, why, sizeof(why)), 0,
	    "a status before the fast rule");
	ok(back.deciding == -1 && back.settle_ms == -1 &&
	    back.timeout_ms == -1, "... says none of them (-1)");
}

/* Its clock's bound, ppm (doc/PROTOCOL.md; doc/SAFETY.md, 3). */
static void
test_rate(void)
{
	struct pg_status	 st, back;
	char			 buf[PG_STATUS_MAX], why[128];

	pg_status_init(&st);
	is_int(st.rate_ppm, -1, "init: rate not said");
	strlcpy(st.cluster, "mail", sizeof(st.cluster));
	st.elapsed_ms = 5;
	ok(pg_status_format(&st, buf, sizeof(buf)) > 0, "formatted");
	ok(strstr(buf, "rate") == NULL, "not said: no rate line");
	st.deciding = 0;
	st.settle_ms = 500;
	st.timeout_ms = 2000;
	st.rate_ppm = 40500;
	ok(pg_status_format(&st, buf, sizeof(buf)) > 0, "formatted");
	like(buf, "\ntimeout 2000\nrate 40500\n", "rate after the rule's keys");
	is_int(parse(buf, &back, why, sizeof(why)), 0, "read back");
	is_int(back.rate_ppm, 40500, "rate 40500");
	is_int(parse("cluster mail\nelapsed 5\nrate 0\n", &back, why,
	    sizeof(why)), 0, "rate 0 reads");
	is_int(back.rate_ppm, 0, "... as 0 (the rule counts it as 500)");
	is_int(parse("cluster mail\nelapsed 5\nrate 999999\n", &back, why,
	    sizeof(why)), 0, "rate 999999 reads");
	is_int(parse("cluster mail\nelapsed 5\n", &back, why, sizeof(why)), 0,
	    "a status before 0.5");
	is_int(back.rate_ppm, -1, "... says no rate (-1)");
}

/* The settings pollguard-status -t compares (doc/PROTOCOL.md, 0.5). */
static void
test_settings(void)
{
	struct pg_status	 st, back;
	char			 buf[PG_STATUS_MAX], why[128];

	pg_status_init(&st);
	is_int(st.wait_ms, -1, "init: wait not said");
	strlcpy(st.cluster, "mail", sizeof(st.cluster));
	st.elapsed_ms = 5;
	ok(pg_status_format(&st, buf, sizeof(buf)) > 0, "formatted");
	ok(strstr(buf, "wait") == NULL && strstr(buf, "on_failure") == NULL &&
	    strstr(buf, "backend") == NULL, "not said: no settings lines");
	st.wait_ms = 600000;
	strlcpy(st.on_failure, "stay", sizeof(st.on_failure));
	strlcpy(st.backend, "etcd", sizeof(st.backend));
	ok(pg_status_format(&st, buf, sizeof(buf)) > 0, "formatted");
	like(buf, "\nwait 600000\non_failure stay\nbackend etcd\n",
	    "wait, on_failure, backend");
	is_int(parse(buf, &back, why, sizeof(why)), 0, "read back");
	is_int(back.wait_ms, 600000, "wait 600000");
	is_str(back.on_failure, "stay", "on_failure stay");
	is_str(back.backend, "etcd", "backend etcd");
	is_int(parse("cluster mail\nelapsed 5\n", &back, why, sizeof(why)), 0,
	    "a status before 0.5");
	ok(back.wait_ms == -1 && back.on_failure[0] == '\0' &&
	    back.backend[0] == '\0', "... says none of them");
}

int
main(void)
{
	test_settings();
	test_round_trip();
	test_deciding();
	test_rate();
	test_later_versions();
	test_refused();
	return done_testing();
}
