/* SPDX-License-Identifier: ISC */
/*
 * pollguard-check: may this node poll now (pollguard(7))? The options; the
 * decision is bin/check-decide.c's (check_decide), shared with
 * pollguard-run.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define OPTS	"c:Enqv"
#define USAGE	"usage: pollguard-check [-Enqv] [-c file] cluster\n"

static int
check(int argc, char *argv[])
{
	static struct tool	 t;	/* static: reachable until exit */
	const char		*conf = NULL;
	int64_t			 started;
	int			 ch, claim = 1, lockfd, bad = 0;

	if (pg_clock(CLOCK_BOOTTIME, &started) == -1)
		started = INT64_MAX;	/* never "after it started" */

	argv[0] = (char *)getprogname();
	tool_options(argc, argv, OPTS, USAGE);
	while ((ch = getopt(argc, argv, OPTS)) != -1) {
		switch (ch) {
		case 'E':
			tool_exit_err = 255;
			break;
		case 'c':
			conf = optarg;
			break;
		case 'n':
			claim = 0;
			break;
		case 'q':
			t.quiet = 1;
			break;
		case 'v':
			t.verbose = 1;
			break;
		default:
			bad = 1;	/* the usage once -E is known */
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1 || bad)
		tool_usage(USAGE);

	openlog(getprogname(), LOG_PID, LOG_USER);
	/* A reader gone (check -v | head) must not kill a claim's check. */
	signal(SIGPIPE, SIG_IGN);
	tool_setup(&t, conf, argv[0]);
	/* The claim lock stays held until exit: doc/SAFETY.md, 1, step 7. */
	return check_decide(&t, claim, started, &lockfd, NULL);
}

int
main(int argc, char *argv[])
{
	int	 status = tool_status(check(argc, argv));

	/* Without libcurl's and OpenSSL's exit handlers (BENCHMARKS.md). */
	fflush(NULL);
	_exit(status);
}
