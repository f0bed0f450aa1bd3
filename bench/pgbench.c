/* SPDX-License-Identifier: ISC */
/*
 * pgbench: the timing helper of make bench (bench/run), never installed.
 * It times what a shell cannot time without adding its own fork to every
 * run, and holds the barrier of the race rounds.
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
 *
 *	pgbench req [-n rounds] [-w warmup] [-t secs] [-p path]
 *	    host:port [host:port ...]
 *
 * Alternating HTTP requests, one new connection each: connect, send
 * "GET path HTTP/1.0", read until the server closes, close. The path is
 * /v1/elapsed/mail unless -p. Output as alt; STATUS is 0 when the answer
 * starts "HTTP/1.x 200", 1 otherwise, 2 when the connection failed.
 *
 *	pgbench fan [-p path] port [port ...]
 *
 * The floor of a check with peers: one request to each port on 127.0.0.1
 * at once, over plain non-blocking sockets, as pollguard-check sends it
 * (HTTP/1.1), each read until the server closes. Exit 0 when every
 * answer is a 200, 1 otherwise. Meant to be timed by alt.
 *
 *	pgbench sink [-t secs]
 *
 * A peer that never answers: listen on 127.0.0.1, a port the kernel
 * picks, print "port N", and never accept; the kernel completes the
 * handshakes and queues the requests. Exits after -t seconds (600).
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
#include <sys/socket.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CMDS_MAX	16
#define FAN_MAX		256
#define DIRS_MAX	8
#define ROUNDS_MAX	100000
#define PARALLEL_MAX	64

extern char	**environ;

static char	**cmds[CMDS_MAX];
static int	  ncmds;

static __attribute__((__noreturn__)) void
usage(void)
{
	fprintf(stderr,
	    "usage: pgbench alt [-n rounds] [-w warmup] [-t secs] [-i file] "
	    "[-o file]\n"
	    "           [-e file] [-d file ...] cmd [arg ...] ::: cmd [arg ...] "
	    "[::: ...]\n"
	    "       pgbench req [-n rounds] [-w warmup] [-t secs] [-p path] "
	    "host:port ...\n"
	    "       pgbench fan [-p path] port ...\n"
	    "       pgbench sink [-t secs]\n"
	    "       pgbench race [-m] [-n rounds] [-j parallel] [-C clusters] "
	    "[-t secs] [-r refs]\n"
	    "           [-e dir] -d dir ...\n"
	    "           cmd [arg ...] ::: cmd [arg ...] [::: ...]\n");
	exit(64);
}

static void
die(const char *what)
{
	fprintf(stderr, "pgbench: %s: %s\n", what, strerror(errno));
	exit(71);
}

static int64_t
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A number argument in min..max (strtonum, from libbsd); else exit 64. */
static long
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

/* The options of the subcommands; each accepts those its usage lists. */
struct opts {
	const char	*in, *out, *err, *path, *dirs[DIRS_MAX];
	long		 rounds, warm, secs, par, nclus, refs;
	int		 ndirs, each;
};

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
static int
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
static void
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

static int
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
static int64_t
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

/* "host:port" (IPv4) into a socket address. */
static void
address(const char *spec, struct sockaddr_in *sin)
{
	char		 host[64];
	const char	*colon;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if ((colon = strrchr(spec, ':')) == NULL ||
	    (size_t)(colon - spec) >= sizeof(host))
		usage();
	memcpy(host, spec, colon - spec);
	host[colon - spec] = '\0';
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		usage();
	sin->sin_port = htons(number(colon + 1, 1, 65535));
}

/* One request on a new connection: 0 a 200, 1 another answer, 2 none. */
static int
request(const struct sockaddr_in *sin, const char *req, size_t reqlen)
{
	char	 buf[4096];
	size_t	 got = 0;
	ssize_t	 n;
	int	 fd, ok;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		die("socket");
	if (connect(fd, (const struct sockaddr *)sin, sizeof(*sin)) == -1 ||
	    write(fd, req, reqlen) != (ssize_t)reqlen) {
		close(fd);
		return 2;
	}
	while ((n = read(fd, buf + got, sizeof(buf) - got)) > 0) {
		got += n;
		if (got == sizeof(buf))
			got = 16;	/* keep the status line */
	}
	close(fd);
	if (got < 12)
		return 2;
	ok = memcmp(buf, "HTTP/1.", 7) == 0 && memcmp(buf + 8, " 200", 4) == 0;
	return ok ? 0 : 1;
}

static int
req(int argc, char *argv[])
{
	struct sockaddr_in	 sin[CMDS_MAX];
	struct opts		 o = { .path = "/v1/elapsed/mail",
				    .rounds = 20, .warm = 1, .secs = 60 };
	char			 buf[512];
	int64_t			 t0, end;
	long			 r;
	int			 i, n, st, len;

	i = options(argc, argv, "n:p:t:w:", &o);
	argc -= i;
	argv += i;
	if (argc < 1 || argc > CMDS_MAX)
		usage();
	n = argc;
	for (i = 0; i < n; i++)
		address(argv[i], &sin[i]);
	len = snprintf(buf, sizeof(buf), "GET %s HTTP/1.0\r\n"
	    "Host: 127.0.0.1\r\n\r\n", o.path);
	if (len < 0 || (size_t)len >= sizeof(buf))
		usage();
	signal(SIGPIPE, SIG_IGN);
	end = now_ns() + (int64_t)o.secs * 1000000000;
	for (r = -o.warm; r < o.rounds; r++) {
		if (r >= 0 && now_ns() >= end)
			break;
		for (i = 0; i < n; i++) {
			t0 = now_ns();
			st = request(&sin[i], buf, len);
			t0 = now_ns() - t0;
			if (r >= 0)
				printf("run %ld %d %lld %d\n", r, i,
				    (long long)t0, st);
		}
	}
	return 0;
}

static int
fan(int argc, char *argv[])
{
	struct pollfd		 pfd[FAN_MAX];
	struct sockaddr_in	 sin;
	struct opts		 o = { .path = "/v1/elapsed/mail" };
	char			 req[512], buf[4096];
	size_t			 got[FAN_MAX];
	ssize_t			 n;
	int			 sent[FAN_MAX], ok[FAN_MAX];
	int			 i, len, left, bad = 0;

	i = options(argc, argv, "p:", &o);
	argc -= i;
	argv += i;
	if (argc < 1 || argc > FAN_MAX)
		usage();
	len = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\n"
	    "Host: 127.0.0.1\r\nAccept: */*\r\n\r\n", o.path);
	if (len < 0 || (size_t)len >= sizeof(req))
		usage();
	signal(SIGPIPE, SIG_IGN);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < argc; i++) {
		sin.sin_port = htons(number(argv[i], 1, 65535));
		pfd[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (pfd[i].fd == -1)
			die("socket");
		if (connect(pfd[i].fd, (struct sockaddr *)&sin,
		    sizeof(sin)) == -1 && errno != EINPROGRESS)
			die("connect");
		pfd[i].events = POLLOUT;
		sent[i] = ok[i] = 0;
		got[i] = 0;
	}
	for (left = argc; left > 0; ) {
		if (poll(pfd, argc, 5000) <= 0)
			break;
		for (i = 0; i < argc; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if (!sent[i]) {
				sent[i] = 1;
				pfd[i].events = POLLIN;
				if (write(pfd[i].fd, req, len) == len)
					continue;
			} else {
				n = read(pfd[i].fd, buf, sizeof(buf));
				if (n > 0 && got[i] == 0 && n >= 12 &&
				    memcmp(buf, "HTTP/1.", 7) == 0 &&
				    memcmp(buf + 8, " 200", 4) == 0)
					ok[i] = 1;
				if (n > 0)
					got[i] += n;
				if (n > 0 || (n == -1 && errno == EAGAIN))
					continue;
			}
			close(pfd[i].fd);
			pfd[i].fd = -1;
			left--;
		}
	}
	for (i = 0; i < argc; i++) {
		if (pfd[i].fd != -1)
			close(pfd[i].fd);
		if (!ok[i])
			bad = 1;
	}
	return bad;
}

static int
sink(int argc
, char *argv[])
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	struct opts		 o = { .secs = 600 };
	int			 fd;

	if (options(argc, argv, "t:", &o) != argc)
		usage();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 128) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		die("listen");
	printf("port %u\n", ntohs(sin.sin_port));
	fflush(stdout);
	sleep(o.secs);
	return 0;
}

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

static int
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
