/* SPDX-License-Identifier: ISC */
/* touch-run.c: pollguard-touch -- command (touch.h, touch_run). */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
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

static void
on_sigchld(int sig)
{
	(void)sig;
}

__dead void
touch_run(struct tool *t, char **cmd, int64_t limit_ms)
{
	struct pg_outcome	 o;
	struct sigaction	 sa;
	struct timespec		 ts;
	sigset_t		 set, old;
	int64_t			 interval, next, left, now, deadline = 0;
	int64_t			 killat = 0, at[5], lease;
	pid_t			 pid;
	int			 lockfd, r, sig, st, status = 0, saved;
	int			 reaped = 0, timed_out = 0, code;
	const char		*id = t->cluster->id;

	if ((r = pg_lock_take(&t->state, id, &lockfd)) == -1)
		tool_die_errno(EX_IOERR, "%s/.%s.lock", t->state.path, id);
	if (r == 0)
		tool_die(EXIT_RUNNING, "%s: a run on this node is still going",
		    id);
	touch_refresh(t, 1);
	touch_ping(t, PG_PING_START);

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

	/* Reap the job's orphans: a late init's zombies keep a group alive. */
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
	/* Both sides set the group; EACCES: the child has run exec. */
	if (setpgid(pid, pid) == -1 && errno != EACCES)
		tool_error("setpgid %ld: %s", (long)pid, strerror(errno));
	if (pg_outcome_start(&t->state, id, pid, &o) == -1)
		tool_error("cannot record the start of the run in %s/.%s."
		    "side: %s", t->state.path, id, strerror(errno));

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
			touch_refresh(t, 0);
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
	if (pg_outcome_finish(&t->state, id, status, timed_out, &o) == -1)
		tool_error("cannot record the outcome of the run in %s/.%s."
		    "side: %s", t->state.path, id, strerror(errno));
	close(lockfd);
	code = timed_out ? EXIT_TIMEDOUT : WIFSIGNALED(status) ?
	    128 + WTERMSIG(status) : WEXITSTATUS(status);
	touch_ping(t, code);
	exit(code);
}
