/* SPDX-License-Identifier: ISC */
/*
 * tests/preempt.so: an LD_PRELOAD shim that stands for the scheduler
 * taking the CPU away at the worst moment for pollguard-check's settle
 * round: right after a request has gone out on a TCP socket, before the
 * sender can take any time stamp. tests/cli/96-preempt.sh and
 * tests/race-load.sh run the checks under it.
 *
 * PG_PREEMPT_MS=D		sleep D ms after each successful send(),
 *				sendto(), sendmsg(), write() or writev()
 *				on a TCP socket (IPv4 or IPv6)
 * PG_PREEMPT_JITTER_MS=J	plus a random 0..J ms each time
 * PG_PREEMPT_SEED=S		seed for that randomness (default: from
 *				the PID and the clock)
 * PG_PREEMPT_RENAME_MS=D	sleep D ms (plus the jitter) after each
 *				successful rename(2) or renameat(2): a
 *				check held up right after its claim became
 *				visible, before round 2 (the fast rule's
 *				worst moment)
 * PG_PREEMPT_RENAME2_MS=D	after the second rename, sleep D ms
 *				instead: a check held up after its claim
 *				was lengthened (its last write)
 * PG_PREEMPT_PRE_RENAME2_MS=D	sleep D ms before the second rename: a
 *				check held up after round 2, before it
 *				lengthens its claim
 * PG_PREEMPT_RENAME_BARRIER=DIR
 * PG_PREEMPT_RENAME_PARTIES=N	before the first rename, create DIR/PID
 *				and wait until DIR holds N entries (at
 *				most 20 s): the checks of a round all
 *				reach their claim before any claims
 * PG_PREEMPT_RENAME_UNTIL=PATH	after the first rename, wait until PATH
 *				exists (at most 20 s), then the delay
 *				above: a check held up until a peer's
 *				claim is visible
 * PG_PREEMPT_SEND_UNTIL=PATH	before the first connect(2) on a TCP
 *				socket (not after: a peer's serve would
 *				time the held question out, 408),
 *				create PATH.held, then wait until PATH
 *				exists (at most 20 s): a check held up
 *				after it read its own status, before it
 *				asks round 1
 * PG_PREEMPT_SENT_UNTIL=PATH	the same, after the first send on a TCP
 *				socket: a check held up after its round-1
 *				question left, before it reads the answer
 *				and claims
 * PG_PREEMPT_ROUND2_UNTIL=PATH	the same, before the first connect(2)
 *				on a TCP socket after the first rename: a
 *				check held up after its claim became
 *				visible, before it connects for round 2
 * PG_PREEMPT_CLAIMED_MS=D	sleep D ms (plus the jitter) after the
 *				first flock(2) LOCK_UN that follows the
 *				first rename: a check held up after its
 *				claim became visible and it read the clock
 *				for that, before round 2 (a hold in the
 *				rename raises that reading: a slow write)
 * PG_PREEMPT_GETLK_MS=D	sleep D ms (plus the jitter) after each
 *				F_OFD_GETLK or F_GETLK: a serve held up
 *				between testing the claim lock and reading
 *				the record
 * PG_PREEMPT_ANSWER_MS=D	sleep D ms (plus the jitter) before each
 *				write on a TCP socket: an answer that
 *				arrives late, its state read early
 *
 * Without PG_PREEMPT_MS, or on any other file descriptor (files, pipes,
 * Unix sockets, UDP), the calls are passed through untouched.
 */
#include <sys/types.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static ssize_t	(*real_send)(int, const void *, size_t, int);
static ssize_t	(*real_sendto)(int, const void *, size_t, int,
		    const struct sockaddr *, socklen_t);
static ssize_t	(*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t	(*real_write)(int, const void *, size_t);
static ssize_t	(*real_writev)(int, const struct iovec *, int);
static int	(*real_rename)(const char *, const char *);
static int	(*real_renameat)(int, const char *, int, const char *);
static int	(*real_fcntl)(int, int, ...);
static int	(*real_flock)(int, int);
static int	(*real_connect)(int, const struct sockaddr *, socklen_t);

static long	 delay_ms = -1;	/* -1: no delay */
static long	 rename_ms = -1, rename2_ms = -1, pre_rename2_ms = -1;
static long	 getlk_ms = -1;
static long	 claimed_ms = -1;
static int	 claimed;
static long	 answer_ms = -1;
static long	 jitter_ms;
static const char *barrier_dir, *rename_until, *send_until, *round2_until;
static const char *sent_until;
static int	 sent1;
static long	 parties;
static int	 renamed, sent, sent2;
static uint64_t	 rng;

static void	 wait_until(int (*)(void));
static void	 hold_until(const char *);

static long
env_ms(const char *name, long dflt)
{
	const char	*s = getenv(name);
	char		*end;
	long		 v;

	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > 60000)
		return dflt;
	return v;
}

/* Also called from the wrappers: a constructor may write before ours. */
static void
resolve(void)
{
	real_send = (ssize_t (*)(int, const void *, size_t, int))
	    dlsym(RTLD_NEXT, "send");
	real_sendto = (ssize_t (*)(int, const void *, size_t, int,
	    const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "sendto");
	real_sendmsg = (ssize_t (*)(int, const struct msghdr *, int))
	    dlsym(RTLD_NEXT, "sendmsg");
	real_write = (ssize_t (*)(int, const void *, size_t))
	    dlsym(RTLD_NEXT, "write");
	real_writev = (ssize_t (*)(int, const struct iovec *, int))
	    dlsym(RTLD_NEXT, "writev");
	real_rename = (int (*)(const char *, const char *))
	    dlsym(RTLD_NEXT, "rename");
	real_renameat = (int (*)(int, const char *, int, const char *))
	    dlsym(RTLD_NEXT, "renameat");
	real_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	real_flock = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
	real_connect = (int (*)(int, const struct sockaddr *, socklen_t))
	    dlsym(RTLD_NEXT, "connect");
}

__attribute__((constructor)) static void
preempt_init(void)
{
	struct timespec	 ts;
	const char	*seed;

	if (real_writev == NULL)
		resolve();
	delay_ms = env_ms("PG_PREEMPT_MS", -1);
	jitter_ms = env_ms("PG_PREEMPT_JITTER_MS", 0);
	rename_ms = env_ms("PG_PREEMPT_RENAME_MS", -1);
	rename2_ms = env_ms("PG_PREEMPT_RENAME2_MS", rename_ms);
	pre_rename2_ms = env_ms("PG_PREEMPT_PRE_RENAME2_MS", -1);
	getlk_ms = env_ms("PG_PREEMPT_GETLK_MS", -1);
	claimed_ms = env_ms("PG_PREEMPT_CLAIMED_MS", -1);
	answer_ms = env_ms("PG_PREEMPT_ANSWER_MS", -1);
	barrier_dir = getenv("PG_PREEMPT_RENAME_BARRIER");
	parties = env_ms("PG_PREEMPT_RENAME_PARTIES", 0);
	rename_until = getenv("PG_PREEMPT_RENAME_UNTIL");
	send_until = getenv("PG_PREEMPT_SEND_UNTIL");
	sent_until = getenv("PG_PREEMPT_SENT_UNTIL");
	round2_until = getenv("PG_PREEMPT_ROUND2_UNTIL");
	if ((seed = getenv("PG_PREEMPT_SEED")) != NULL && *seed != '\0')
		rng = strtoull(seed, NULL, 10);
	else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		rng = (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec;
	}
	rng = rng * 2654435761u + 1;	/* 0 is a fixed point of xorshift */
}

/* xorshift64: enough to spread delays; not for anything secret. */
static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int
is_tcp(int fd)
{
	struct stat	 st;
	int		 v;
	socklen_t	 len;

	if (fstat(fd, &st) == -1 || !S_ISSOCK(st.st_mode))
		return 0;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) == -1 ||
	    v != SOCK_STREAM)
		return 0;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) == -1)
		return 0;
	return v == AF_INET || v == AF_INET6;
}

/* Sleep ms and the jitter, as a preempted process would; errno kept. */
static void
hold_up(long ms)
{
	struct timespec	 ts;
	int		 saved = errno;

	if (jitter_ms > 0)
		ms += (long)(next_random() % (uint64_t)(jitter_ms + 1));
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	errno = saved;
}

/*
 * After a call that sent something: when it was on a TCP socket, sleep
 * as a preempted process would. errno is the call's, untouched.
 */
static ssize_t
after(int fd, ssize_t n)
{
	if (delay_ms >= 0 && n > 0 && is_tcp(fd))
		hold_up(delay_ms);
	if (sent_until != NULL && !sent1 && n > 0 && is_tcp(fd)) {
		sent1 = 1;
		hold_until(sent_until);
	}
	return n;
}

static const char	*release;

static int
released(void)
{
	return access(release, F_OK) == 0;
}

/* Say PATH.held, then wait until PATH exists. */
static void
hold_until(const char *until)
{
	char	 path[4096];
	int	 f, saved = errno;

	snprintf(path, sizeof(path), "%s.held", until);
	if ((f = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) != -1)
		close(f);
	errno = saved;
	release = until;
	wait_until(released);
}

/*
 * Before a write on a TCP socket: an answer held back.
 */
static void
before(int fd)
{
	if (answer_ms >= 0 && is_tcp(fd))
		hold_up(answer_ms);
}

/*
 * The first connect: held until PG_PREEMPT_SEND_UNTIL exists; the first
 * after a rename, until PG_PREEMPT_ROUND2_UNTIL does.
 */
int
connect(int fd, const struct sockaddr *to, socklen_t len)
{
	if (real_writev == NULL)
		resolve();
	if (send_until != NULL && !sent && is_tcp(fd)) {
		sent = 1;
		hold_until(send_until);
	}
	if (round2_until != NULL && renamed && !sent2 && is_tcp(fd)) {
		sent2 = 1;
		hold_until(round2_until);
	}
	return real_connect(fd, to, len);
}

/* Entries in dir, not counting . and .. (-1: cannot read it). */
static long
entries(const char *dir)
{
	DIR		*d;
	struct dirent	*e;
	long		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Poll every 2 ms, 20 s at most, until done() says so. */
static void
wait_until(int (*done)(void))
{
	struct timespec	 ts = { 0, 2000000 };
	int		 i, saved = errno;

	for (i = 0; i < 10000 && !done(); i++)
		nanosleep(&ts, NULL);
	errno = saved;
}

static int
all_arrived(void)
{
	return entries(barrier_dir) >= parties;
}

/* Before the first rename: the barrier. */
static void
before_rename(void)
{
	char	 path[4096];
	int	 fd, saved = errno;

	if (renamed == 1 && pre_rename2_ms >= 0)
		hold_up(pre_rename2_ms);
	if (renamed || barrier_dir == NULL || parties <= 0)
		return;
	snprintf(path, sizeof(path), "%s/%ld", barrier_dir, (long)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) != -1)
		close(fd);
	errno = saved;
	wait_until(all_arrived);
}

/* After a rename that succeeded: the wait for a path, then the delay. */
static int
after_rename(int r)
{
	if (r != 0)
		return r;
	if (!renamed++ && rename_until != NULL) {
		release = rename_until;
		wait_until(released);
	}
	if (renamed == 2 ? rename2_ms >= 0 : rename_ms >= 0)
		hold_up(renamed == 2 ? rename2_ms : rename_ms);
	return r;
}

int
rename(const char *from, const char *to)
{
	if (real_writev == NULL)
		resolve();
	before_rename();
	return after_rename(real_rename(from, to));
}

int
renameat(int fromfd, const char *from, int tofd, const char *to)
{
	if (real_writev == NULL)
		resolve();
	before_rename();
	return after_rename(real_renameat(fromfd, from, tofd, to));
}

/* Every fcntl command pollguard uses takes an int or a pointer. */
int
fcntl(int fd, int cmd, ...)
{
	va_list	 ap;
	void	*arg;
	int	 r;

	if (real_writev == NULL)
		resolve();
	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	r = real_fcntl(fd, cmd, arg);
	if (r != -1 && getlk_ms >= 0 && (cmd == F_GETLK
#ifdef F_OFD_GETLK
	    || cmd == F_OFD_GETLK
#endif
	    ))
		hold_up(getlk_ms);
	return r;
}

/* The record lock let go after the claim's rename: held up there. */
int
flock(int fd, int op)
{
	int	 r;

	if (real_writev == NULL)
		resolve();
	r = real_flock(fd, op);
	if (r == 0 && (op & LOCK_UN) && renamed && !claimed &&
	    claimed_ms >= 0) {
		claimed = 1;
		hold_up(claimed_ms);
	}
	return r;
}

ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	if (real_writev == NULL)
		resolve();
	before(fd);
	return after(fd, real_send(fd, buf, len, flags));
}

ssize_t
sendto(int fd, const void *buf, size_t len, int flags,
    const struct sockaddr *to, socklen_t tolen)
{
	if (real_writev == NULL)
		resolve();
	before(fd);
	return after(fd, real_sendto(fd, buf, len, flags, to, tolen));
}

ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (real_writev == NULL)
		resolve();
	before(fd);
	return after(fd, real_sendmsg(fd, msg, flags));
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	if (real_writev == NULL)
		resolve();
	before(fd);
	return after(fd, real_write(fd, buf, len));
}

ssize_t
writev(int fd, const struct iovec *iov, int n)
{
	if (real_writev == NULL)
		resolve();
	before(fd);
	return after(fd, real_writev(fd, iov, n));
}
