/* SPDX-License-Identifier: ISC */
/*
 * pgbench: the timing helper of make bench (bench/run), never installed.
 * It times what a shell cannot time without adding its own fork to every
 * run, and holds the barrier of the race rounds. This file has main, what
 * the subcommands share (pgbench.h) and alt; bench/pgnet.c has req, fan
 * and sink, bench/pgrace.c race.
 *
 *	pgbench alt [-n rounds] [-w warmup] [-t secs] [-i file] [-o file]
 *	    [-e file] [-d file ...] cmd [arg ...] ::: cmd [arg ...] [::: ...]
 *
 * Alternating runs: each round runs every command once, in the order
 * given (A B A B ...), each with stdin from -i (default /dev/null) and
 * stdout to -o (default /dev/null) and stderr appended to -e (default:
 * inherited). Commands are started with posix_spawn, without a shell.
 * After -w rounds that are not reported (1), up to -n rounds (20) are,
 * but no new round starts after -t seconds (60). Each -d file is removed
 * before every run, untimed: a check's state record, so that no run
 * follows a claim of the one before (a check within a claim's horizon
 * skips). One line per run:
 *
 *	run ROUND CMD NANOSECONDS STATUS
 *
 * CMD counts from 0; STATUS is the exit status, or 128 + the signal.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pgbench.h"

extern char	**environ;

char	**cmds[CMDS_MAX];
int	  ncmds;

void
usage(void)
{
	fprintf(stderr,
	    "usage: pgbench alt [-n rounds] [-w warmup] [-t secs] [-i file] "
	    "[-o file]\n"
	    "           [-e file] [-d file ...] cmd [arg ...] ::: cmd [arg ...] "
	    "[::: ...]\n"
	    "       pgbench req [-n rounds] [-w warmup] [-t secs] [-H field] "
	    "[-p path]\n"
	    "           host:port ...\n"
	    "       pgbench fan [-p path] port ...\n"
	    "       pgbench sink [-a] [-t secs]\n"
	    "       pgbench race [-m] [-n rounds] [-j parallel] [-C clusters] "
	    "[-t secs] [-r refs]\n"
	    "           [-e dir] -d dir ...\n"
	    "           cmd [arg ...] ::: cmd [arg ...] [::: ...]\n");
	exit(64);
}

void
die(const char *what)
{
	fprintf(stderr, "pgbench: %s: %s\n", what, strerror(errno));
	exit(71);
}

int64_t
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A number argument in min..max (strtonum, from libbsd); else exit 64. */
long
number(const char *s, long min, long max)
{
	const char	*errstr;
	long		 n;

	n = strtonum(s, min, max, &errstr);
	if (errstr != NULL) {
		fprintf(stderr, "pgbench: %s: %s (from %ld to %ld)\n",
		    s, errstr, min, max);
		exit(64);
	}
	return n;
}

/* The numeric options: where they go and their ranges. */
static const struct numopt {
	int	 ch;
	size_t	 off;
	long	 min, max;
} numopts[] = {
	{ 'C', offsetof(struct opts, nclus), 1, 256 },
	{ 'j', offsetof(struct opts, par), 1, PARALLEL_MAX },
	{ 'n', offsetof(struct opts, rounds), 1, ROUNDS_MAX },
	{ 'r', offsetof(struct opts, refs), 0, CMDS_MAX - 1 },
	{ 't', offsetof(struct opts, secs), 1, 3600 },
	{ 'w', offsetof(struct opts, warm), 0, ROUNDS_MAX },
};

/*
 * Parse the options of a subcommand, those in "allowed" (getopt's
 * letters; a leading "+" stops at the first operand, a command), into o,
 * which holds the subcommand's defaults. Returns optind.
 */
int
options(int argc, char *argv[], const char *allowed, struct opts *o)
{
	size_t	 i;
	int	 ch;

	while ((ch = getopt(argc, argv, allowed)) != -1) {
		for (i = 0; i < sizeof(numopts) / sizeof(numopts[0]); i++)
			if (numopts[i].ch == ch)
				break;
		if (i < sizeof(numopts) / sizeof(numopts[0])) {
			*(long *)(void *)((char *)o + numopts[i].off) =
			    number(optarg, numopts[i].min, numopts[i].max);
			continue;
		}
		switch (ch) {
		case 'H':
			o->field = optarg;
			break;
		case 'a':
			o->hold = 1;
			break;
		case 'd':
			if (o->ndirs == DIRS_MAX)
				usage();
			o->dirs[o->ndirs++] = optarg;
			break;
		case 'e':
			o->err = optarg;
			break;
		case 'i':
			o->in = optarg;
			break;
		case 'm':
			o->each = 1;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'p':
			o->path = optarg;
			break;
		default:
			usage();
		}
	}
	return optind;
}

/* Split argv at ":::" into cmds[]. */
void
split(int argc, char *argv[])
{
	int	 i;

	ncmds = 0;
	if (argc == 0)
		usage();
	cmds[ncmds++] = argv;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], ":::") != 0)
			continue;
		argv[i] = NULL;
		if (ncmds == CMDS_MAX || i + 1 == argc)
			usage();
		cmds[ncmds++] = argv + i + 1;
	}
	for (i = 0; i < ncmds; i++)
		if (cmds[i][0] == NULL)
			usage();
}

int
status_of(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/*
 * Run one command, its files opened anew (each run reads its input from
 * the start), and return the time from the spawn to the end of waitpid.
 */
int64_t
run1(char **cmd, const char *in, const char *out, const char *errf,
    int *status)
{
	posix_spawn_file_actions_t	 fa;
	int64_t				 t0;
	pid_t				 pid;
	int				 st;

	if (posix_spawn_file_actions_init(&fa) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 1, out,
	    O_WRONLY | O_CREAT | O_TRUNC, 0644) != 0)
		die("posix_spawn_file_actions");
	if (errf != NULL && posix_spawn_file_actions_addopen(&fa, 2, errf,
	    O_WRONLY | O_CREAT | O_APPEND, 0644) != 0)
		die("posix_spawn_file_actions");
	t0 = now_ns();
	if ((errno = posix_spawnp(&pid, cmd[0], &fa, NULL, cmd,
	    environ)) != 0)
		die(cmd[0]);
	if (waitpid(pid, &st, 0) == -1)
		die("waitpid");
	t0 = now_ns() - t0;
	posix_spawn_file_actions_destroy(&fa);
	*status = status_of(st);
	return t0;
}

static int
alt(int argc, char *argv[])
{
	struct opts	 o = { .in = "/dev/null", .out = "/dev/null",
			    .rounds = 20, .warm = 1, .secs = 60 };
	int64_t		 t0, end;
	long		 r;
	int		 i, j, st;

	i = options(argc, argv, "+d:e:i:n:o:t:w:", &o);
	split(argc - i, argv + i);
	end = now_ns() + (int64_t)o.secs * 1000000000;
	for (r = -o.warm; r < o.rounds; r++) {
		if (r >= 0 && now_ns() >= end)
			break;
		for (i = 0; i < ncmds; i++) {
			for (j = 0; j < o.ndirs; j++)
				if (unlink(o.dirs[j]) == -1 && errno != ENOENT)
					die(o.dirs[j]);
			t0 = run1(cmds[i], o.in, o.out, o.err, &st);
			if (r >= 0)
				printf("run %ld %d %lld %d\n", r, i,
				    (long long)t0, st);
		}
		fflush(stdout);
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc < 2)
		usage();
	optind = 1;
	if (strcmp(argv[1], "alt") == 0)
		return alt(argc - 1, argv + 1);
	if (strcmp(argv[1], "req") == 0)
		return req(argc - 1, argv + 1);
	if (strcmp(argv[1], "fan") == 0)
		return fan(argc - 1, argv + 1);
	if (strcmp(argv[1], "sink") == 0)
		return sink(argc - 1, argv + 1);
	if (strcmp(argv[1], "race") == 0)
		return race(argc - 1, argv + 1);
	usage();
}
