/* SPDX-License-Identifier: ISC */
/*
 * connflood: a test helper, never installed. The client of the load test
 * (tests/cli/94-load.sh): it holds more connections than a shell can, and
 * sends many requests quickly.
 *
 *	connflood -f [-a addrs] [-i ms] [-k trickle] [-n conns] [-t secs]
 *	    host port
 *	connflood -s count [-t secs] host port
 *
 * -f, flood: open conns connections (1000), IPv4, 32 every 5 ms, and hold
 * them all at once. They send nothing, except `trickle' of them (0),
 * spread among the others, which send one byte of a request head that
 * never ends every -i milliseconds (200). With -a, from that many source
 * addresses in turn, 127.1.0.1 and up (127.1.X.Y, Y from 1 to 250),
 * instead of the one the system picks.
 * Each connection is read until the server closes it; the flood ends when
 * all are closed, or after -t seconds (60). Once every connection is
 * established or has failed, it prints "connected N" on standard output.
 * At the end it prints one line of counts:
 *
 *	opened N connected N failed N s408 N s408trickle N s503 N
 *	sother N closed N reset N open N connecting N t408min MS
 *	t408max MS t503max MS
 *
 * sNNN: answered with that status (s408trickle: those of them that
 * trickled); closed: closed without an answer; reset: reset without an
 * answer; open: established and still open at the end; connecting: not
 * established; tNNN: the longest (min: shortest) time from a connection's
 * connect(2) to that answer, -1 for none.
 *
 * -s, sequential: send count requests one after another, one connection
 * each, cycling through a mix of good and bad requests, each with the
 * status it must get (mail must be a cluster of the server, nosuch not).
 * Stop early after -t seconds (60). At the end:
 *
 *	done N good N bad N ms N
 *
 * and the first wrong answer on standard error. Exit 0 unless the
 * arguments or the system fail.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CONNS_MAX	10000

enum { S_NEW, S_CONNECTING, S_OPEN, S_ANSWERED, S_CLOSED, S_RESET, S_FAILED };

struct fc {
	int		 fd;
	int		 state;
	int		 trickle;
	int		 status;	/* from the status line, 0: none */
	size_t		 sent;
	long long	 t_conn;	/* ms, when connect was called */
	char		 head[16];	/* "HTTP/1.x NNN " */
	size_t		 headlen;
};

static long		 naddrs;	/* -a: source addresses */

static const char	 slow[] = "GET /v1/elapsed/mail HTTP/1.1\r\nHost: x\r\n"
			    "X-Slow: ";

static void
usage(void)
{
	fprintf(stderr, "usage: connflood -f [-a addrs] [-i ms] [-k trickle] "
	    "[-n conns] [-t secs] host port\n"
	    "       connflood -s count [-t secs] host port\n");
	exit(2);
}

static long long
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long
number(const char *s, long lo, long hi)
{
	char	*end;
	long	 n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || n < lo || n > hi) {
		fprintf(stderr, "connflood: %s: not a number from %ld to %ld\n",
		    s, lo, hi);
		exit(2);
	}
	return n;
}

/* Enough descriptors for n connections, if the hard limit allows. */
static void
raise_nofile(long n)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = (rlim_t)n + 64;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
			rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The status code in "HTTP/1.x NNN", 0 when there is none (yet). */
static int
status_of(const char *buf, size_t len)
{
	if (len < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ' ||
	    buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9')
		return 0;
	return (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + buf[11] - '0';
}

/* Read what came; the state changes when the server closes or resets. */
static void
fc_read(struct fc *c, long long now, long long *tmin, long long *tmax,
    long long *t503)
{
	char	 buf[512];
	ssize_t	 n;
	size_t	 k;
	long long t;

	while ((n = read(c->fd, buf, sizeof(buf))) > 0) {
		k = sizeof(c->head) - c->headlen;
		if ((size_t)n < k)
			k = n;
		memcpy(c->head + c->headlen, buf, k);
		c->headlen += k;
		if (c->status == 0 &&
		    (c->status = status_of(c->head, c->headlen)) != 0) {
			t = now - c->t_conn;
			if (c->status == 408) {
				if (*tmin < 0 || t < *tmin)
					*tmin = t;
				if (t > *tmax)
					*tmax = t;
			} else if (c->status == 503 && t > *t503)
				*t503 = t;
		}
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (c->status != 0)
		c->state = S_ANSWERED;
	else if (n == -1 && errno == ECONNRESET)
		c->state = S_RESET;
	else
		c->state = S_CLOSED;
	close(c->fd);
	c->fd = -1;
}

/* Open connection i: connect(2) started, or failed. */
static void
fc_open(struct fc *c, long i, struct sockaddr_in *sin)
{
	struct sockaddr_in	 src;
	long			 k = naddrs > 0 ? i % naddrs : 0;

	c->t_conn = now_ms();
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd == -1) {
		fprintf(stderr, "connflood: socket: %s\n", strerror(errno));
		c->state = S_FAILED;
		return;
	}
	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(0x7f010000 | (k / 250) << 8 |
	    (k % 250 + 1));
	if (naddrs > 0 && bind(c->fd, (struct sockaddr *)&src,
	    sizeof(src)) == -1) {
		fprintf(stderr, "connflood: bind: %s\n", strerror(errno));
		close(c->fd);
		c->fd = -1;
		c->state = S_FAILED;
		return;
	}
	if (connect(c->fd, (struct sockaddr *)sin, sizeof(*sin)) == 0)
		c->state = S_OPEN;
	else if (errno == EINPROGRESS)
		c->state = S_CONNECTING;
	else {
		close(c->fd);
		c->fd = -1;
		c->state = S_FAILED;
	}
}

/*
 * Connections are opened BATCH at a time, every BATCH_MS: a thousand SYNs
 * at once would overflow the listen queue, and the kernel, with SYN
 * cookies, then forgets connections that the client believes open.
 */
#define BATCH		32
#define BATCH_MS	5

static int
flood(struct sockaddr_in *sin, long n, long trickle, long interval,
    long secs)
{
	struct pollfd	*pfd;
	struct fc	*c;
	long long	 start, now, tick, next, tmin = -1, tmax = -1, t503 = -1;
	long		 i, k, opened = 0, pending, live, said = 0;
	long		 cnt[S_FAILED + 1], s408 = 0, s408k = 0, s503 = 0;
	long		 sother = 0;
	socklen_t	 len;
	int		 err, r, wait;

	if ((c = calloc(n, sizeof(*c))) == NULL ||
	    (pfd = calloc(n, sizeof(*pfd))) == NULL) {
		perror("connflood: calloc");
		return 1;
	}
	/* The trickling ones spread evenly among the others. */
	for (i = 0; i < n; i++) {
		c[i].fd = -1;
		c[i].state = S_NEW;
		c[i].trickle = (i + 1) * trickle / n > i * trickle / n;
	}
	start = next = now_ms();
	tick = start + interval;
	for (;;) {
		now = now_ms();
		if (opened < n && now >= next) {
			for (k = 0; k < BATCH && opened < n; k++, opened++)
				fc_open(&c[opened], opened, sin);
			next = now + BATCH_MS;
		}
		pending = n - opened;
		live = 0;
		for (i = k = 0; i < opened; i++) {
			if (c[i].state == S_CONNECTING)
				pending++;
			if (c[i].state != S_CONNECTING && c[i].state != S_OPEN)
				continue;
			live++;
			pfd[k].fd = c[i].fd;
			pfd[k].events = c[i].state == S_CONNECTING ? POLLOUT :
			    POLLIN;
			pfd[k].revents = 0;
			k++;
		}
		if (!said && pending == 0) {
			for (i = 0; i < n; i++)
				if (c[i].state == S_FAILED)
					pending++;
			printf("connected %ld\n", n - pending);
			fflush(stdout);
			said = 1;
		}
		if ((live == 0 && opened == n) || now - start >= secs * 1000)
			break;
		wait = tick > now ? (int)(tick - now) : 0;
		if (opened < n && wait > BATCH_MS)
			wait = BATCH_MS;
		r = poll(pfd, k, wait);
		if (r == -1 && errno != EINTR) {
			perror("connflood: poll");
			return 1;
		}
		now = now_ms();
		/* The same order as above: the k-th live connection. */
		for (i = k = 0; i < opened && r > 0; i++) {
			if (c[i].state != S_CONNECTING && c[i].state != S_OPEN)
				continue;
			if (pfd[k++].revents == 0)
				continue;
			if (c[i].state == S_CONNECTING) {
				len = sizeof(err);
				if (getsockopt(c[i].fd, SOL_SOCKET, SO_ERROR,
				    &err, &len) == -1 || err != 0) {
					close(c[i].fd);
					c[i].fd = -1;
					c[i].state = S_FAILED;
				} else
					c[i].state = S_OPEN;
				continue;
			}
			fc_read(&c[i], now, &tmin, &tmax, &t503);
		}
		if (now < tick)
			continue;
		/* One byte on each trickling connection that has no answer. */
		tick = now + interval;
		for (i = 0; i < opened; i++) {
			if (!c[i].trickle || c[i].state != S_OPEN ||
			    c[i].headlen > 0)
				continue;
			if (write(c[i].fd, c[i].sent < sizeof(slow) - 1 ?
			    &slow[c[i].sent] : "a", 1) == 1)
				c[i].sent++;
		}
	}

	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++) {
		cnt[c[i].state]++;
		if (c[i].status == 408) {
			s408++;
			s408k += c[i].trickle;
		} else if (c[i].status == 503)
			s503++;
		else if (c[i].status != 0)
			sother++;
		if (c[i].fd != -1)
			close(c[i].fd);
	}
	printf("opened %ld connected %ld failed %ld s408 %ld s408trickle %ld "
	    "s503 %ld sother %ld closed %ld reset %ld open %ld connecting %ld "
	    "t408min %lld t408max %lld t503max %lld\n", opened,
	    opened - cnt[S_FAILED], cnt[S_FAILED], s408, s408k, s503, sother,
	    cnt[S_CLOSED], cnt[S_RESET], cnt[S_OPEN],
	    cnt[S_CONNECTING] + cnt[S_NEW], tmin, tmax, t503);
	free(c);
	free(pfd);
	return 0;
}

/* The sequential mix: what is sent, how, and the status it must get. */
static const struct {
	const char	*req;
	int		 how;	/* 0: send, 1: send then shut down, 2: close */
	int		 want;	/* 0: no answer */
} mix[] = {
	{ "GET /v1/elapsed/mail HTTP/1.0\r\n\r\n", 0, 200 },
	{ "GET /v1/elapsed HTTP/1.1\r\nHost: x\r\n\r\n", 0, 200 },
	{ "GET /metrics HTTP/1.0\r\n\r\n", 0, 200 },
	{ "HEAD /v1/elapsed/mail HTTP/1.1\r\nHost: x\r\n\r\n", 0, 200 },
	{ "GET /v1/elapsed/mail HTTP/1.1\r\nHost: x\r\n\r\n", 0, 200 },
	{ "GET /v1/elapsed/nosuch HTTP/1.0\r\n\r\n", 0, 404 },
	{ "POST /v1/elapsed/mail HTTP/1.0\r\n\r\n", 0, 405 },
	{ "garbage\r\n\r\n", 0, 400 },
	{ "GET /v1/elapsed/mail HTTP/2.0\r\n\r\n", 0, 505 },
	{ "GET /v1/elapsed/mail HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc", 0,
	    400 },
	{ "GET /v1/el", 1, 400 },
	{ "", 2, 0 },
};

/* One request; the status it got (0: none), -1 when it failed. */
static int
one(struct sockaddr_in *sin, const char *req, int how)
{
	struct timeval	 tv = { 10, 0 };
	char		 buf[4096], head[16];
	size_t		 len = strlen(req), off = 0, hl = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)sin, sizeof(*sin)) == -1) {
		close(fd);
		return -1;
	}
	if (how == 2) {
		close(fd);
		return 0;
	}
	while (off < len) {
		if ((n = write(fd, req + off, len - off)) <= 0) {
			close(fd);
			return -1;
		}
		off += n;
	}
	if (how == 1)
		shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (hl < sizeof(head)) {
			if ((size_t)n > sizeof(head) - hl)
				n = sizeof(head) - hl;
			memcpy(head + hl, buf, n);
			hl += n;
		}
	close(fd);
	if (n == -1)
		return -1;
	return status_of(head, hl);
}

static int
sequential(struct sockaddr_in *sin, long count, long secs)
{
	long long	 start = now_ms();
	long		 i, good = 0, bad = 0;
	size_t		 m;
	int		 st;

	for (i = 0; i < count; i++) {
		if (i % 256 == 0 && now_ms() - start >= secs * 1000)
			break;
		m = i % (sizeof(mix) / sizeof(mix[0]));
		st = one(sin, mix[m].req, mix[m].how);
		if (st == mix[m].want) {
			good++;
			continue;
		}
		if (bad++ == 0)
			fprintf(stderr, "connflood: request %ld (%.40s): "
			    "status %d, want %d%s%s\n", i, mix[m].req, st,
			    mix[m].want, st == -1 ? ": " : "",
			    st == -1 ? strerror(errno) : "");
	}
	printf("done %ld good %ld bad %ld ms %lld\n", i, good, bad,
	    now_ms() - start);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in	 sin;
	long			 n = 1000, trickle = 0, interval = 200;
	long			 secs = 60, count = 0;
	int			 ch, fl = 0;

	while ((ch = getopt(argc, argv, "a:fi:k:n:s:t:")) != -1) {
		switch (ch) {
		case 'a':
			naddrs = number(optarg, 1, 250 * 256);
			break;
		case 'f':
			fl = 1;
			break;
		case 'i':
			interval = number(optarg, 1, 60000);
			break;
		case 'k':
			trickle = number(optarg, 0, CONNS_MAX);
			break;
		case 'n':
			n = number(optarg, 1, CONNS_MAX);
			break;
		case 's':
			count = number(optarg, 1, 100000000);
			break;
		case 't':
			secs = number(optarg, 1, 3600);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2 || fl == (count > 0))
		usage();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)number(argv[1], 1, 65535));
	if (inet_pton(AF_INET, argv[0], &sin.sin_addr) != 1) {
		fprintf(stderr, "connflood: %s: not an IPv4 address\n",
		    argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (fl) {
		raise_nofile(n);
		return flood(&sin, n, trickle < n ? trickle : n, interval,
		    secs);
	}
	return sequential(&sin, count, secs);
}
