/* SPDX-License-Identifier: ISC */
/* touch-run.c: pollguard-touch -- command (touch.h, touch_run). */
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor.h"
#include "touch.h"

#define HEARTBEAT_MIN_MS	1000
#define EXIT_TIMEDOUT		124	/* as timeout(1) */
#define EXIT_RUNNING		EX_TEMPFAIL	/* a run is still going */

static int	 ifd = -1, iwd = -1;	/* the watch of the state directory */

static void
on_sigchld(int sig)
{
	(void)sig;
}

int
touch_watch(const struct tool *t)
{
	char	 parent[PATH_MAX], *slash;

	if (ifd == -1 &&
	    (ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) != -1 &&
	    (fcntl(ifd, F_SETOWN, getpid()) == -1 ||
	    fcntl(ifd, F_SETFL, O_ASYNC | O_NONBLOCK) == -1)) {
		close(ifd);
		ifd = -1;
	}
	if (ifd == -1 || t->state.dirfd == -1)
		return ifd;
	if (iwd != -1)
		inotify_rm_watch(ifd, iwd);
	strlcpy(parent, t->state.real, sizeof(parent));
	if ((slash = strrchr(parent, '/')) == parent)
		slash[1] = '\0';	/* "/" */
	else if (slash != NULL)
		*slash = '\0';
	iwd = inotify_add_watch(ifd, parent, IN_CREATE | IN_DELETE |
	    IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF |
	    IN_ONLYDIR);
	return ifd;
}

int
touch_watched(const struct tool *t)
{
	char			 buf[4096]
	    __attribute__((__aligned__(__alignof__(struct inotify_event))));
	const struct inotify_event *e;
	const char		*base = strrchr(t->state.real, '/');
	ssize_t			 n, i;
	int			 hit = 0;

	base = base != NULL ? base + 1 : t->state.real;
	while ((n = read(ifd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i += sizeof(*e) + e->len) {
			e = (const struct inotify_event *)(buf + i);
			if (e->len == 0 || strcmp(e->name, base) == 0)
				hit = 1;
		}
	return hit;
}

/*
 * In the state directory made or opened again: the run lock, and the
 * outcome of this run as it was (doc/STATE.md, "The directory"). 0, or -1
 * when either fails, said.
 */
static int
again(struct tool *t, int *lockfd, const struct pg_outcome *o)
{
	const char	*id = t->cluster->id;
	int		 fd, r;

	if ((r = pg_lock_take(&t->state, id, &fd)) != 1) {
		tool_error("%s: %s/.%s.lock: %s", id, t->state.path, id,
		    r == 0 ? "another run holds it" : tool_strerror(errno));
		return -1;
	}
	close(*lockfd);
	*lockfd = fd;
	if (pg_outcome_write(&t->state, id, o) == -1) {
		tool_error("%s: cannot record the run in %s/.%s.side: %s", id,
		    t->state.path, id, tool_strerror(errno));
		return -1;
	}
	return 0;
}

/* The run lock, or exit (75 when another run holds it). */
static int
lock(struct tool *t)
{
	const char	*id = t->cluster->id;
	int		 fd, r;

	if ((r = pg_lock_take(&t->state, id, &fd)) == -1)
		tool_die_errno(EX_IOERR, "%s/.%s.lock", t->state.path, id);
	if (r == 0)
		tool_die(EXIT_RUNNING, "%s: a run on this node is still going",
		    id);
	return fd;
}

__dead void
touch_run(struct tool *t, char **cmd, int64_t limit_ms, int lockfd,
    int claimfd)
{
	struct pg_outcome	 o;
	struct sigaction	 sa;
	struct timespec		 ts;
	sigset_t		 set, old;
	int64_t			 interval, next, left, now, deadline = 0;
	int64_t			 killat = 0, at[5], lease;
	pid_t			 pid;
	int			 r, sig, st, status = 0, saved, gate[2];
	int			 reaped = 0, timed_out = 0, code, told = 0;
	const char		*id = t->cluster->id;
	char			 go;

	if (lockfd == -1)
		lockfd = lock(t);
	/* The directory made again meanwhile: the lock there. */
	if (touch_refresh(t, 1) == 1) {
		close(lockfd);
		lockfd = lock(t);
	}

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
	sigaddset(&set, SIGIO);
	if (sigprocmask(SIG_BLOCK, &set, &old) == -1)
		tool_die_errno(EX_OSERR, "sigprocmask");
	touch_watch(t);	/* SIGIO is blocked, and taken below */

	/* Reap the job's orphans: a late init's zombies keep a group alive. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		tool_error("prctl PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	/* A pipeline of the job (-f) finds the run lock held by its run. */
	if (setenv("POLLGUARD_CLUSTER", id, 1) == -1)
		tool_die_errno(EX_OSERR, "setenv");
	/* The job waits at the gate while its start is recorded and pinged. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate) == -1)
		tool_die_errno(EX_OSERR, "socketpair");
	fflush(NULL);
	if ((pid = fork()) == -1)
		tool_die_errno(EX_OSERR, "fork");
	if (pid == 0) {
		setpgid(0, 0);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &sa, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(gate[1]);
		while ((r = read(gate[0], &go, 1)) == -1 && errno == EINTR)
			;
		if (r != 1)
			_exit(126);	/* the supervisor is gone */
		execvp(cmd[0], cmd);
		saved = errno;
		fprintf(stderr, "%s: %s: %s\n", getprogname(), cmd[0],
		    strerror(saved));
		_exit(saved == ENOENT ? 127 : 126);
	}
	/* Both sides set the group; EACCES: the child has run exec. */
	if (setpgid(pid, pid) == -1 && errno != EACCES)
		tool_error("setpgid %ld: %s", (long)pid, strerror(errno));
	close(gate[0]);
	if (pg_outcome_start(&t->state, id, pid, &o) == -1)
		tool_error("cannot record the start of the run in %s/.%s."
		    "side: %s", t->state.path, id, tool_strerror(errno));
	/* The run recorded: a check's claim lock has done its work. */
	if (claimfd != -1)
		close(claimfd);
	touch_ping(t, PG_PING_START);
	/* A job already gone (killed meanwhile) is reaped below. */
	send(gate[1], "", 1, MSG_NOSIGNAL);
	close(gate[1]);

	interval = t->cluster->wait_ms / 3;
	if (interval < HEARTBEAT_MIN_MS)
		interval = HEARTBEAT_MIN_MS;
	now = tool_clock_ms(CLOCK_BOOTTIME);
	next = now + interval;
	if (limit_ms > 0)
		deadline = now + limit_ms;
	for (;;) {
		now = tool_clock_ms(CLOCK_BOOTTIME);
		/* The job is being stopped: the runtime limit has no say. */
		if ((lease = touch_lease_lost(t, pid, now, reaped,
		    &killat)) == INT64_MIN) {
			deadline = 0;
			continue;
		}
		if (next - now <= 0) {
			if ((r = touch_refresh(t, 0)) == 1) {
				touch_watch(t);
				if (again(t, &lockfd, &o) == -1)
					r = -2;
			}
			/* Unseen by the peers: told as at its limit. */
			if (r == -2 && !told && !reaped) {
				told = 1;
				deadline = 0;
				killat = now + t->cluster->kill_after_ms;
				tool_error("%s: the job runs unseen by the "
				    "peers (state directory %s): SIGTERM to "
				    "its process group", id, t->state.path);
				kill(-pid, SIGTERM);
			}
			next += interval;
			/* After a suspend: */
			if (next <= tool_clock_ms(CLOCK_BOOTTIME))
				next = tool_clock_ms(CLOCK_BOOTTIME) + interval;
			continue;
		}
		/* A job reaped, even just now, did not time out. */
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
		/* After a timeout, the job ends when its whole group has. */
		if (reaped && (killat == 0 || kill(-pid, 0) == -1))
			break;
		at[0] = next;
		at[1] = deadline;
		at[2] = killat;
		at[3] = reaped ? now + 100 : 0;		/* the group's end */
		at[4] = lease;
		left = pg_time_left(now, at, 5);
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000;
		if ((sig = sigtimedwait(&set, NULL, &ts)) == -1) {
			if (errno != EAGAIN && errno != EINTR)
				tool_die_errno(EX_OSERR, "sigtimedwait");
			continue;
		}
		if (sig == SIGIO) {
			if (ifd != -1 && touch_watched(t))
				next = now;	/* refresh, and look */
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
	touch_lease_end();
	touch_refresh(t, 0);
	if (t->state.dirfd == -1)
		tool_error("%s: the outcome of the run is not recorded: no "
		    "state directory %s", id, t->state.path);
	else if (pg_outcome_finish(&t->state, id, status, timed_out, &o) ==
	    -1)
		tool_error("cannot record the outcome of the run in %s/.%s."
		    "side: %s", t->state.path, id, tool_strerror(errno));
	close(lockfd);
	code = timed_out ? EXIT_TIMEDOUT : WIFSIGNALED(status) ?
	    128 + WTERMSIG(status) : WEXITSTATUS(status);
	touch_ping(t, code);
	exit(code);
}
