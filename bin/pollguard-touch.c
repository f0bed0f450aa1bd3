/*
 * pollguard-touch: record activity in a cluster, keep it fresh while a
 * job runs or while data streams through, or release it.
 */
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define FILTER_REFRESH_MS	1000
#define HEARTBEAT_MIN_MS	1000

static __dead void
usage(void)
{
	fprintf(stderr,
	    "usage: pollguard-touch [-c file] cluster\n"
	    "       pollguard-touch [-c file] cluster -- command [argument ...]\n"
	    "       pollguard-touch -f [-c file] cluster\n"
	    "       pollguard-touch -r [-c file] cluster\n");
	exit(EX_USAGE);
}

static int64_t
now_ms(void)
{
	int64_t	 ns;

	if (pg_clock(CLOCK_BOOTTIME, &ns) == -1)
		tool_die_errno(EX_OSERR, "clock");
	return ns / 1000000;
}

/*
 * Record activity now. A failure is reported once, until a refresh
 * succeeds again or fails for another reason (a filter refreshes every
 * second); when fatal, the tool ends (before work starts, or at the end
 * of a filter); otherwise the work goes on.
 */
static void
refresh(struct tool *t, int fatal)
{
	static int	 reported;	/* errno of the failure last reported */

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

static void
on_sigchld(int sig)
{
	(void)sig;
}

static __dead void
run(struct tool *t, char **cmd)
{
	struct sigaction	 sa;
	struct timespec		 ts;
	sigset_t		 set, old;
	int64_t			 interval, next, left;
	pid_t			 pid;
	int			 lockfd, r, sig, status, saved;

	if ((r = pg_lock_take(&t->state, t->cluster->id, &lockfd)) == -1)
		tool_die_errno(EX_IOERR, "%s/.%s.lock", t->state.path,
		    t->cluster->id);
	if (r == 0)
		tool_die(EXIT_RUNNING, "%s: a run on this node is still going",
		    t->cluster->id);
	refresh(t, 1);

	/* Signals are taken synchronously with sigtimedwait, not handled. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) == -1)
		tool_die_errno(EX_OSERR, "sigaction");
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, &old) == -1)
		tool_die_errno(EX_OSERR, "sigprocmask");

	fflush(NULL);
	if ((pid = fork()) == -1)
		tool_die_errno(EX_OSERR, "fork");
	if (pid == 0) {
		sa.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &sa, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(cmd[0], cmd);
		saved = errno;
		fprintf(stderr, "%s: %s: %s\n", getprogname(), cmd[0],
		    strerror(saved));
		_exit(saved == ENOENT ? 127 : 126);
	}

	interval = t->cluster->wait_ms / 3;
	if (interval < HEARTBEAT_MIN_MS)
		interval = HEARTBEAT_MIN_MS;
	next = now_ms() + interval;
	for (;;) {
		left = next - now_ms();
		if (left <= 0) {
			refresh(t, 0);
			next += interval;
			if (next <= now_ms())	/* after a suspend */
				next = now_ms() + interval;
			continue;
		}
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000;
		if ((sig = sigtimedwait(&set, NULL, &ts)) == -1) {
			if (errno != EAGAIN && errno != EINTR)
				tool_die_errno(EX_OSERR, "sigtimedwait");
			continue;
		}
		if (sig != SIGCHLD) {
			kill(pid, sig);
			continue;
		}
		if ((r = waitpid(pid, &status, WNOHANG)) == -1)
			tool_die_errno(EX_OSERR, "waitpid");
		if (r == pid)
			break;
	}
	refresh(t, 0);
	close(lockfd);
	if (WIFSIGNALED(status))
		exit(128 + WTERMSIG(status));
	exit(WEXITSTATUS(status));
}

/*
 * Copy stdin to stdout with read(2) and write(2): whatever arrives is
 * passed on at once, so line-by-line consumers see no added delay.
 */
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
		if ((n = read(STDIN_FILENO, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			saved = errno;
			refresh(t, 0);
			errno = saved;
			tool_die_errno(EX_IOERR, "standard input");
		}
		if (n == 0)
			break;
		if (pg_write_all(STDOUT_FILENO, buf, n) == -1) {
			saved = errno;
			refresh(t, 0);
			if (saved == EPIPE) {
				/* The reader is gone: end as filters do. */
				signal(SIGPIPE, SIG_DFL);
				raise(SIGPIPE);
			}
			errno = saved;
			tool_die_errno(EX_IOERR, "standard output");
		}
		now = now_ms();
		if (last == 0 || now - last >= FILTER_REFRESH_MS) {
			refresh(t, 0);
			last = now;
		}
	}
	refresh(t, 1);
	exit(0);
}

int
main(int argc, char *argv[])
{
	static struct tool	 t;	/* static: reachable until exit */
	const char	*conf = NULL;
	int		 ch, fflag = 0, rflag = 0;

	/* '+': options end at the cluster, so the command keeps its own. */
	while ((ch = getopt(argc, argv, "+c:fr")) != -1) {
		switch (ch) {
		case 'c':
			conf = optarg;
			break;
		case 'f':
			fflag = 1;
			break;
		case 'r':
			rflag = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || (fflag && rflag))
		usage();
	if (argc > 1 && (fflag || rflag || argc < 3 ||
	    strcmp(argv[1], "--") != 0))
		usage();

	tool_init();
	tool_setup(&t, conf, argv[0]);
	if (argc > 1)
		run(&t, argv + 2);
	if (fflag)
		filter(&t);
	if (rflag) {
		if (pg_state_remove(&t.state, t.cluster->id) == -1)
			tool_die_errno(EX_CANTCREAT, "cannot remove %s/%s",
			    t.state.path, t.cluster->id);
		return 0;
	}
	refresh(&t, 1);
	return 0;
}
