/* SPDX-License-Identifier: ISC */
/*
 * pollguard-touch: record activity, keep it fresh while a job runs
 * (bin/touch-run.c) or data streams through, release it, or hold.
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "touch.h"

#define FILTER_REFRESH_MS	1000

static __dead void
usage(void)
{
	fprintf(stderr,
	    "usage: pollguard-touch [-c file] cluster\n"
	    "       pollguard-touch [-c file] [-t duration] cluster -- command "
	    "[argument ...]\n"
	    "       pollguard-touch -f [-c file] cluster\n"
	    "       pollguard-touch -H duration [-c file] [-m message] "
	    "cluster\n"
	    "       pollguard-touch -r [-c file] cluster\n");
	exit(EX_USAGE);
}

void
touch_refresh(struct tool *t, int fatal)
{
	static int	 reported;	/* errno of the failure last reported */

	touch_lease_keep(t);
	if (pg_state_touch(&t->state, t->cluster->id) == 0) {
		reported = 0;
		return;
	}
	if (errno != reported) {
		reported = errno;
		tool_error("cannot record activity in %s/%s: %s",
		    t->state.path, t->cluster->id, strerror(errno));
	}
	if (fatal)
		exit(EX_CANTCREAT);
}

/* Copy with read(2) and write(2): line-by-line readers see no delay. */
static __dead void
filter(struct tool *t)
{
	static char	 buf[65536];
	ssize_t		 n;
	int64_t		 last = 0, now;
	int		 saved;

	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		tool_die_errno(EX_OSERR, "signal");
	for (;;) {
		if ((n = read(STDIN_FILENO, buf, sizeof(buf))) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0 || pg_write_all(STDOUT_FILENO, buf, n) == -1)
			break;
		now = tool_clock_ms(CLOCK_BOOTTIME);
		if (last == 0 || now - last >= FILTER_REFRESH_MS) {
			touch_refresh(t, 0);
			last = now;
		}
	}
	saved = errno;
	touch_refresh(t, n == 0);
	if (n == 0)
		exit(0);
	if (n > 0 && saved == EPIPE) {
		/* The reader is gone: end as filters do. */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	errno = saved;
	tool_die_errno(EX_IOERR, n == -1 ? "standard input" :
	    "standard output");
}

/*
 * Hold the cluster on this node for ms (0: lift it). No activity, no run
 * lock: it can be set while a run is going.
 */
static __dead void
hold(struct tool *t, int64_t ms, const char *msg)
{
	struct pg_hold	 h;
	struct passwd	*pw;
	char		 by[PG_HOLD_TEXT_MAX], left[PG_DURATION_MAX];
	const char	*id = t->cluster->id;

	if (ms == 0) {
		if (pg_hold_remove(&t->state, id) == -1)
			tool_die_errno(EX_CANTCREAT, "cannot lift the hold in "
			    "%s/.%s.side", t->state.path, id);
		tool_log(t, LOG_NOTICE, "%s: hold lifted", id);
		exit(0);
	}
	/* Who set it, for peers' operators: a user name, else the UID. */
	if ((pw = getpwuid(getuid())) == NULL || (size_t)snprintf(by,
	    sizeof(by), "%s@%s", pw->pw_name, t->cfg->node) >= sizeof(by) ||
	    pg_hold_make(&h, ms, by, msg) == -1) {
		snprintf(by, sizeof(by), "%lu@%s", (unsigned long)getuid(),
		    t->cfg->node);
		/* The message passed in main: only the name can fail. */
		if (pg_hold_make(&h, ms, by, msg) == -1)
			tool_die_errno(EX_SOFTWARE, "hold by %s", by);
	}
	if (pg_hold_write(&t->state, id, &h) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot write the hold in "
		    "%s/.%s.side", t->state.path, id);
	tool_log(t, LOG_NOTICE, "%s: held for %s by %s%s%s", id,
	    pg_duration_text(ms, left), h.by, h.why[0] != '\0' ? ": " : "",
	    h.why);
	exit(0);
}

int
main(int argc, char *argv[])
{
	static struct tool	 t;	/* static: reachable until exit */
	char		**av = argv;
	struct pg_hold	 h;
	const char	*conf = NULL, *errstr, *msg = NULL;
	int64_t		 limit_ms = -1, hold_ms = -1;
	int		 ch, fflag = 0, rflag = 0;

	argv[0] = (char *)getprogname();
	/* '+': options end at the cluster, so the command keeps its own. */
	while ((ch = getopt(argc, argv, "+H:c:fm:rt:")) != -1) {
		switch (ch) {
		case 'H':
			if (pg_duration_parse(optarg, 0, PG_HOLD_MAX_MS,
			    &hold_ms, &errstr) == -1)
				tool_die(EX_USAGE, "-H %s: %s (a duration up "
				    "to 7d, or 0 to lift the hold)", optarg,
				    errstr);
			break;
		case 'c':
			conf = optarg;
			break;
		case 'f':
			fflag = 1;
			break;
		case 'm':
			msg = optarg;
			break;
		case 'r':
			rflag = 1;
			break;
		case 't':
			if (pg_duration_parse(optarg, 0, PG_WAIT_MAX_MS,
			    &limit_ms, &errstr) == 0 && limit_ms > 0 &&
			    limit_ms < PG_RUNTIME_MIN_MS)
				errstr = "too small";
			if (errstr != NULL)
				tool_die(EX_USAGE, "-t %s: %s (a duration from "
				    "100ms to 30d, or 0 for no limit)", optarg,
				    errstr);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || (fflag && rflag) || (limit_ms >= 0 && argc == 1) ||
	    (msg != NULL && hold_ms <= 0) || (argc > 1 && (fflag || rflag ||
	    argc < 3 || strcmp(argv[1], "--") != 0)) || (hold_ms >= 0 &&
	    (argc > 1 || fflag || rflag || limit_ms >= 0)))
		usage();
	/* The message is checked before the configuration is read. */
	if (hold_ms > 0 && pg_hold_make(&h, hold_ms, NULL, msg) == -1)
		tool_die(EX_USAGE, "-m: %s", errno == ENAMETOOLONG ?
		    "message too long (at most 127 bytes)" : "a message is "
		    "printable ASCII, without control characters or a blank "
		    "at either end");

	openlog(getprogname(), LOG_PID, LOG_USER);
	tool_setup(&t, conf, argv[0]);
	touch_lease_start(&t, av, rflag, hold_ms >= 0);
	if (hold_ms >= 0)
		hold(&t, hold_ms, msg);
	if (argc > 1)
		touch_run(&t, argv + 2, limit_ms >= 0 ? limit_ms :
		    t.cluster->max_runtime_ms);
	if (fflag)
		filter(&t);
	if (!rflag)
		touch_refresh(&t, 1);
	else if (pg_state_remove(&t.state, t.cluster->id) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot remove %s/%s",
		    t.state.path, t.cluster->id);
	return 0;
}
