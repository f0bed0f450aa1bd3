/*
 * pollguard-touch: record activity in a cluster, keep it fresh while a
 * job runs or while data streams through, or release it; or put the
 * cluster on hold.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#ifdef PG_ETCD
#include "etcd.h"
#endif

#ifndef PG_LIBEXECDIR
#define PG_LIBEXECDIR	"/usr/local/lib/pollguard"	/* make LIBEXECDIR= */
#endif
#define TOUCH_ETCD	"pollguard-touch-etcd"

#define FILTER_REFRESH_MS	1000
#define HEARTBEAT_MIN_MS	1000
#define EXIT_TIMEDOUT		124	/* as timeout(1) */

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

#ifdef PG_ETCD
	/* The lease first: it is what other nodes see. */
	if (t->cluster->backend == PG_BACKEND_ETCD)
		etcd_hold_refresh(t, now_ms());
#endif
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

/*
 * Time to sleep until the earliest of the times that are set (> 0), never
 * less than none: one already past is due now.
 */
static int64_t
until(int64_t now, int64_t next, int64_t deadline, int64_t killat,
    int64_t poll)
{
	int64_t	 d = next;

	if (deadline > 0 && deadline < d)
		d = deadline;
	if (killat > 0 && killat < d)
		d = killat;
	if (poll > 0 && poll < d)
		d = poll;
	return d > now ? d - now : 0;
}

#ifdef PG_ETCD
/*
 * Keep the lease alive when due; once it is lost while the job runs, say
 * so (etcd_hold_refresh did) and, under on_lease_lost = kill, stop the
 * job's process group as the runtime limit does, SIGKILL counted from
 * the SIGTERM (a keepalive may have taken time since now). 1 when it did.
 */
static int
lease_lost(struct tool *t, pid_t pid, int64_t now, int reaped,
    int64_t *killat)
{
	static int	 done;

	if (t->cluster->backend != PG_BACKEND_ETCD || done)
		return 0;
	if (!etcd_hold_lost() && !etcd_hold_refresh(t, now))
		return 0;
	done = 1;
	if (reaped || t->cluster->on_lease_lost == PG_LEASE_LOST_WARN)
		return 0;
	tool_error("%s: the lease is lost: SIGTERM to the job's process "
	    "group (on_lease_lost = kill)", t->cluster->id);
	kill(-pid, SIGTERM);
	if (*killat == 0)
		*killat = now_ms() + t->cluster->kill_after_ms;
	return 1;
}
#else
/*
 * A cluster on etcd is pollguard-touch-etcd's, which links libcurl and
 * jansson (this program does not): beside this one, else in the
 * libexec directory.
 */
static __dead void
exec_etcd(char **argv)
{
	char	 self[PATH_MAX], path[PATH_MAX], *slash;
	ssize_t	 n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			slash[1] = '\0';
			if ((size_t)snprintf(path, sizeof(path), "%s%s", self,
			    TOUCH_ETCD) < sizeof(path) &&
			    access(path, X_OK) == 0)
				execv(path, argv);
		}
	}
	execv(PG_LIBEXECDIR "/" TOUCH_ETCD, argv);
	tool_die_errno(EX_UNAVAILABLE, "the cluster is on etcd, but %s",
	    PG_LIBEXECDIR "/" TOUCH_ETCD);
}
#endif

/*
 * Run the job in a process group of its own, so that signals and the
 * runtime limit reach all of it, grandchildren too; keep the activity
 * fresh; record the outcome of the run.
 */
static __dead void
run(struct tool *t, char **cmd, int64_t limit_ms)
{
	struct pg_outcome	 o;
	struct sigaction	 sa;
	struct timespec		 ts;
	sigset_t		 set, old;
	int64_t			 interval, next, left, now, deadline = 0;
	int64_t			 killat = 0, poll = 0;
	pid_t			 pid;
	int			 lockfd, r, sig, st, status = 0, saved;
	int			 reaped = 0, timed_out = 0;
	const char		*id = t->cluster->id;

	if ((r = pg_lock_take(&t->state, id, &lockfd)) == -1)
		tool_die_errno(EX_IOERR, "%s/.%s.lock", t->state.path, id);
	if (r == 0)
		tool_die(EXIT_RUNNING, "%s: a run on this node is still going",
		    id);
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

	/*
	 * The job's orphans become ours, not init's, and are reaped here at
	 * once: under an init that reaps late (a container's shell), their
	 * zombies would keep the group "alive" until SIGKILL.
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		tool_error("prctl PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	fflush(NULL);
	if ((pid = fork()) == -1)
		tool_die_errno(EX_OSERR, "fork");
	if (pid == 0) {
		setpgid(0, 0);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &sa, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(cmd[0], cmd);
		saved = errno;
		fprintf(stderr, "%s: %s: %s\n", getprogname(), cmd[0],
		    strerror(saved));
		_exit(saved == ENOENT ? 127 : 126);
	}
	/*
	 * Both sides set the group, so that it exists before anything is
	 * sent to it, whichever runs first. EACCES: the child has already
	 * set it and run exec.
	 */
	if (setpgid(pid, pid) == -1 && errno != EACCES)
		tool_error("setpgid %ld: %s", (long)pid, strerror(errno));
	if (pg_outcome_start(&t->state, id, pid, &o) == -1)
		tool_error("cannot record the start of the run in %s/.%s."
		    "side: %s", t->state.path, id, strerror(errno));

	interval = t->cluster->wait_ms / 3;
	if (interval < HEARTBEAT_MIN_MS)
		interval = HEARTBEAT_MIN_MS;
	now = now_ms();
	next = now + interval;
	if (limit_ms > 0)
		deadline = now + limit_ms;
	for (;;) {
		now = now_ms();
#ifdef PG_ETCD
		/* The job is being stopped: the runtime limit has no say. */
		if (lease_lost(t, pid, now, reaped, &killat)) {
			deadline = 0;
			continue;
		}
#endif
		if (next - now <= 0) {
			refresh(t, 0);
			next += interval;
			if (next <= now_ms())	/* after a suspend */
				next = now_ms() + interval;
			continue;
		}
		/*
		 * A job that has ended, even just now, did not time out: its
		 * reaping, like a lost lease's SIGTERM, cleared the deadline.
		 */
		if (deadline > 0 && now >= deadline) {
			deadline = 0;
			timed_out = 1;
			killat = now + t->cluster->kill_after_ms;
			tool_warn(t, "%s: the job ran for %lld ms, its limit: "
			    "SIGTERM to its process group", id,
			    (long long)limit_ms);
			kill(-pid, SIGTERM);
		}
		if (killat > 0 && now >= killat) {
			killat = 0;
			tool_warn(t, "%s: the job's process group outlived "
			    "SIGTERM: SIGKILL", id);
			kill(-pid, SIGKILL);
		}
		/*
		 * After a timeout, the job ends when its whole group has: a
		 * grandchild that ignores SIGTERM outlives the child.
		 */
		if (reaped && (killat == 0 || kill(-pid, 0) == -1))
			break;
		poll = reaped ? now + 100 : 0;
		left = until(now, next, deadline, killat, poll);
#ifdef PG_ETCD
		left = until(now, now + left, etcd_hold_due(), 0, 0);
#endif
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000;
		if ((sig = sigtimedwait(&set, NULL, &ts)) == -1) {
			if (errno != EAGAIN && errno != EINTR)
				tool_die_errno(EX_OSERR, "sigtimedwait");
			continue;
		}
		if (sig != SIGCHLD) {
			kill(-pid, sig);
			continue;
		}
		/* The job, and any orphan of its that ended. */
		while ((r = waitpid(-1, &st, WNOHANG)) > 0)
			if (r == pid) {
				status = st;
				reaped = 1;
				deadline = 0;
			}
		if (r == -1 && errno != ECHILD)
			tool_die_errno(EX_OSERR, "waitpid");
	}
#ifdef PG_ETCD
	if (t->cluster->backend == PG_BACKEND_ETCD)
		etcd_hold_force();
#endif
	refresh(t, 0);
	if (pg_outcome_finish(&t->state, id, status, timed_out, &o) == -1)
		tool_error("cannot record the outcome of the run in %s/.%s."
		    "side: %s", t->state.path, id, strerror(errno));
	close(lockfd);
	if (timed_out)
		exit(EXIT_TIMEDOUT);
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

/*
 * Put the cluster on hold on this node for ms (0: lift the hold). The
 * hold is this node's to publish (pollguard-serve) and every node's check
 * to honour; it records no activity and takes no run lock, so it can be
 * set while a run is going.
 */
static __dead void
hold(struct tool *t, int64_t ms, const char *msg)
{
	struct pg_hold	 h;
	struct passwd	*pw;
	char		 by[PG_STATUS_TEXT_MAX], left[32];
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
	if (pg_duration_format(ms, left, sizeof(left)) == -1)
		strlcpy(left, "?", sizeof(left));
	tool_log(t, LOG_NOTICE, "%s: held for %s by %s%s%s", id, left, h.by,
	    h.why[0] != '\0' ? ": " : "", h.why);
	exit(0);
}

int
main(int argc, char *argv[])
{
	static struct tool	 t;	/* static: reachable until exit */
	char		**av = argv;
	struct pg_hold	 h;
	const char	*conf = NULL, *errstr, *topt = NULL, *msg = NULL;
	int64_t		 limit_ms = -1, hold_ms = -1;
	int		 ch, fflag = 0, rflag = 0;

	argv[0] = (char *)getprogname();	/* getopt names it, not its path */
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
			topt = optarg;
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
	if (argc < 1 || (fflag && rflag))
		usage();
	if (argc > 1 && (fflag || rflag || argc < 3 ||
	    strcmp(argv[1], "--") != 0))
		usage();
	if (topt != NULL && argc == 1)
		usage();
	if ((msg != NULL && hold_ms < 0) || (hold_ms >= 0 && (argc > 1 ||
	    fflag || rflag || topt != NULL)) || (msg != NULL && hold_ms == 0))
		usage();
	/* The message is checked before the configuration is read. */
	if (hold_ms > 0 && pg_hold_make(&h, hold_ms, NULL, msg) == -1)
		tool_die(EX_USAGE, "-m: %s", errno == ENAMETOOLONG ?
		    "message too long (at most 127 bytes)" : "a message is "
		    "printable ASCII, without control characters or a blank "
		    "at either end");

	tool_init();
	tool_setup(&t, conf, argv[0]);
#ifdef PG_ETCD
	(void)av;
	if (t.cluster->backend == PG_BACKEND_ETCD && rflag)
		etcd_release(&t);
	else if (t.cluster->backend == PG_BACKEND_ETCD && hold_ms < 0)
		etcd_hold_start(&t);
#else
	if (t.cluster->backend == PG_BACKEND_ETCD)
		exec_etcd(av);
#endif
	if (hold_ms >= 0)
		hold(&t, hold_ms, msg);
	if (argc > 1)
		run(&t, argv + 2, limit_ms >= 0 ? limit_ms :
		    t.cluster->max_runtime_ms);
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
