/* SPDX-License-Identifier: ISC */
/*
 * pgrace.c: the race rounds of pgbench (bench/pgbench.c).
 *
 *	pgbench race [-m] [-n rounds] [-j parallel] [-C clusters] [-t secs]
 *	    [-r refs] [-e dir] -d dir [-d dir ...]
 *	    cmd [arg ...] ::: cmd [arg ...] [::: ...]
 *
 * Race rounds: before a round, the record of its cluster is removed from
 * every -d directory, so every node may go. Then each command is started
 * (an argument "{}" is replaced by the cluster ID), all of them blocked on
 * one pipe, and the pipe is closed: they go at the same instant. -j rounds
 * (1) run at once, each on its own cluster r0, r1, ... r(C-1) (C is 100),
 * used in turn. Up to -n rounds (100), no new batch after -t seconds
 * (600). With -e, the standard error of command I in round R goes to
 * the file R.I in that directory. One line per round:
 *
 *	round ROUND CLUSTER MILLISECONDS STATUS [STATUS ...]
 *
 * With -m, the line goes on with "|" and each command's time from the
 * start to its end, in nanoseconds: the time to a go of the one that
 * went. With -r N, the last N commands are not raced: after each round
 * (rounds then run one at a time, as with -j 1), each of them runs
 * alone, its record removed first like the others', and is reported as
 * alt reports a run, so that a reference is timed between the rounds:
 *
 *	run ROUND CMD NANOSECONDS STATUS
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pgbench.h"

/*
 * A child that waits on the barrier: blocked in read until the parent
 * closes the pipe, then it execs at once.
 */
static pid_t
armed(char **cmd, const char *id, int bar[2], const char *errf)
{
	char	*args[64], c;
	pid_t	 pid;
	int	 i, fd;

	for (i = 0; cmd[i] != NULL && i < 63; i++)
		args[i] = strcmp(cmd[i], "{}") == 0 ? (char *)id : cmd[i];
	args[i] = NULL;
	if ((pid = fork()) == -1)
		die("fork");
	if (pid != 0)
		return pid;
	close(bar[1]);
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
	}
	if (errf != NULL && (fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC,
	    0644)) != -1)
		dup2(fd, 2);
	while (read(bar[0], &c, 1) == -1 && errno == EINTR)
		;
	close(bar[0]);
	execvp(args[0], args);
	_exit(127);
}

int
race(int argc, char *argv[])
{
	struct opts	 o = { .rounds = 100, .par = 1, .nclus = 100,
			    .secs = 600 };
	char		 path[4096], ids[PARALLEL_MAX][24], errf[4096];
	pid_t		 pids[PARALLEL_MAX][CMDS_MAX];
	int		 sts[PARALLEL_MAX][CMDS_MAX];
	int64_t		 t0, end, took[PARALLEL_MAX][CMDS_MAX];
	long		 r, b;
	pid_t		 pid;
	int		 bar[2], i, j, k, st, left, nrace;

	i = options(argc, argv, "+C:d:e:j:mn:r:t:", &o);
	split(argc - i, argv + i);
	if (o.refs >= ncmds)
		usage();
	nrace = ncmds - (int)o.refs;
	if (o.par > o.nclus)
		o.par = o.nclus;
	if (o.refs > 0)
		o.par = 1;
	end = now_ns() + (int64_t)o.secs * 1000000000;
	for (r = 0; r < o.rounds && now_ns() < end; r += b) {
		b = o.rounds - r < o.par ? o.rounds - r : o.par;
		/* Every node may go: no record in any state directory. */
		for (j = 0; j < b; j++) {
			snprintf(ids[j], sizeof(ids[j]), "r%ld",
			    (r + j) % o.nclus);
			for (i = 0; i < o.ndirs; i++) {
				snprintf(path, sizeof(path), "%s/%s", o.dirs[i],
				    ids[j]);
				if (unlink(path) == -1 && errno != ENOENT)
					die(path);
			}
		}
		if (pipe(bar) == -1)
			die("pipe");
		for (k = 0; k < b * nrace; k++) {
			j = k / nrace;
			i = k % nrace;
			if (o.err != NULL)
				snprintf(errf, sizeof(errf), "%s/%ld.%d",
				    o.err, r + j, i);
			pids[j][i] = armed(cmds[i], ids[j], bar,
			    o.err != NULL ? errf : NULL);
		}
		close(bar[0]);
		t0 = now_ns();
		close(bar[1]);		/* go */
		for (left = b * nrace; left > 0; left--) {
			if ((pid = wait(&st)) == -1)
				die("wait");
			for (j = 0; j < b; j++)
				for (k = 0; k < nrace; k++)
					if (pids[j][k] == pid) {
						sts[j][k] = status_of(st);
						took[j][k] = now_ns() - t0;
					}
		}
		t0 = now_ns() - t0;
		for (j = 0; j < b; j++) {
			printf("round %ld %s %lld", r + j, ids[j],
			    (long long)(t0 / 1000000));
			for (i = 0; i < nrace; i++)
				printf(" %d", sts[j][i]);
			if (o.each) {
				printf(" |");
				for (i = 0; i < nrace; i++)
					printf(" %lld", (long long)took[j][i]);
			}
			printf("\n");
		}
		/* The references, each alone, on the round's cluster. */
		for (k = nrace; k < ncmds; k++) {
			for (i = 0; i < o.ndirs; i++) {
				snprintf(path, sizeof(path), "%s/%s", o.dirs[i],
				    ids[0]);
				if (unlink(path) == -1 && errno != ENOENT)
					die(path);
			}
			t0 = run1(cmds[k], "/dev/null", "/dev/null", NULL, &st);
			printf("run %ld %d %lld %d\n", r, k, (long long)t0, st);
		}
		fflush(stdout);
	}
	return 0;
}
