/* SPDX-License-Identifier: ISC */
/*
 * pollguard-touch: record activity, keep it fresh while a job runs
 * (bin/touch-run.c) or data streams through, release it, or hold.
 */
#include <errno.h>
#include <poll.h>
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

/* '+': options end at the cluster, so the command keeps its own. */
#define OPTS	"+H:c:fm:rt:"
#define USAGE	"usage: pollguard-touch [-c file] cluster\n" \
	"       pollguard-touch [-c file] [-t duration] cluster -- command " \
	"[argument ...]\n" \
	"       pollguard-touch -f [-c file] cluster\n" \
	"       pollguard-touch -H duration [-c file] [-m message] cluster\n" \
	"       pollguard-touch -r [-c file] cluster\n"

/*
 * A pipeline's run lock, held to its end (doc/SAFETY.md, section 7, "A
 * pipeline"), taken in the state directory made again (moved), or tried
 * again while another run holds it. Said once each time it is not held,
 * unless a run of this cluster holds it with this pipeline in its job.
 */
static void
filter_lock(struct tool *t, int *fdp, int moved)
{
	static int	 said;
	const char	*id = t->cluster->id, *run;
	int		 fd, r;

	if (moved && *fdp != -1) {
		close(*fdp);
		*fdp = -1;
	}
	if (*fdp != -1 || t->state.dirfd == -1)
		return;
	if ((r = pg_lock_take(&t->state, id, &fd)) == 1) {
		*fdp = fd;
		said = 0;
		return;
	}
	if (said)
		return;
	said = 1;
	if (r == -1)
		tool_error("%s: cannot take the run lock %s/.%s.lock: %s; "
		    "passing the data on", id, t->state.path, id,
		    tool_strerror(errno));
	else if ((run = getenv("POLLGUARD_CLUSTER")) == NULL ||
	    strcmp(run, id) != 0)
		tool_log(NULL, LOG_WARNING, "%s: another run on this node "
		    "holds the run lock: the data goes through, recorded as "
		    "activity; the lock is tried again as data flows", id);
}

/* Refresh; in a state directory made again, the watch and the lock. */
static void
filter_refresh(struct tool *t, int *lockfd)
{
	int	 r;

	if ((r = touch_refresh(t, 0)) == 1)
		touch_watch(t);
	filter_lock(t, lockfd, r == 1 || r == -2);
}

/* Copy with read(2) and write(2): line-by-line readers see no delay. */
static __dead void
filter(struct tool *t)
{
	static char	 buf[65536];
	struct pollfd	 pfd[2];
	ssize_t		 n;
	int64_t		 last = 0, now;
	int		 saved, lockfd = -1;

	/* The watch's descriptor is polled: its SIGIO is not wanted. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR ||
	    signal(SIGIO, SIG_IGN) == SIG_ERR)
		tool_die_errno(EX_OSERR, "signal");
	filter_lock(t, &lockfd, 0);
	pfd[0].fd = STDIN_FILENO;
	pfd[1].fd = touch_watch(t);
	pfd[0].events = pfd[1].events = POLLIN;
	for (;;) {
		if (pfd[1].fd != -1 && poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			tool_die_errno(EX_OSERR, "poll");
		}
		/* The directory removed or replaced: made again at once. */
		if (pfd[1].fd != -1 && pfd[1].revents != 0 &&
		    touch_watched(t) && pg_state_moved(&t->state) == 1)
			filter_refresh(t, &lockfd);
		if (pfd[1].fd != -1 && pfd[0].revents == 0)
			continue;
		if ((n = read(STDIN_FILENO, buf, sizeof(buf))) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0 || pg_write_all(STDOUT_FILENO, buf, n) == -1)
			break;
		now = tool_clock_ms(CLOCK_BOOTTIME);
		if (last == 0 || now - last >= FILTER_REFRESH_MS) {
			filter_refresh(t, &lockfd);
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
	tool_options(argc, argv, OPTS, USAGE);
	while ((ch = getopt(argc, argv, OPTS)) != -1) {
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
			limit_ms = touch_limit(optarg);
			break;
		default:
			tool_usage(USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || (fflag && rflag) || (limit_ms >= 0 && argc == 1) ||
	    (msg != NULL && hold_ms <= 0) || (argc > 1 && (fflag || rflag ||
	    argc < 3 || strcmp(argv[1], "--") != 0)) || (hold_ms >= 0 &&
	    (argc > 1 || fflag || rflag || limit_ms >= 0)))
		tool_usage(USAGE);
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
	if (argc > 1) {
		touch_peers_warn(&t, av);
		touch_run(&t, argv + 2, limit_ms >= 0 ? limit_ms :
		    t.cluster->max_runtime_ms, -1, -1);
	}
	if (fflag)
		filter(&t);
	if (!rflag)
		touch_refresh(&t, 1);
	else if (pg_state_remove(&t.state, t.cluster->id) == -1)
		tool_die_errno(EX_CANTCREAT, "cannot remove %s/%s",
		    t.state.path, t.cluster->id);
	return 0;
}
