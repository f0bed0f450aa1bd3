/* SPDX-License-Identifier: ISC */
/*
 * pathproxy: a test helper, never installed. An HTTP reverse proxy on
 * loopback that routes only some paths, as a gateway configured for 0.3
 * would (an nginx "location /v1/elapsed/" block): tests/cli/96c-gateway.sh
 * puts it between two nodes.
 *
 *	pathproxy [-v] [-a prefix] [-d max_ms] [-n maxconn] [-s seed]
 *	    [-w both|up|down] -l addr:port target-addr:port
 *
 * It listens on addr:port (port 0: one the kernel picks) and says
 * "pathproxy: listening on ADDR:PORT" on stderr once it does. Of each
 * connection it reads one request head (at most 8 KiB, within 5 s):
 * when the request's path starts with one of the prefixes (-a, up to 8;
 * default /v1/elapsed/), the head is forwarded to the target and the
 * target's answer back to the client; otherwise the proxy answers with
 * its own "HTTP/1.1 404 Not Found", which has no Pollguard-Node field.
 * One request per connection: what the client sends after the head is
 * never forwarded.
 *
 *	-d max_ms	delay each direction a random 0..max_ms ms (0):
 *			the request before it is forwarded, the answer
 *			before its first byte is passed back (the proxy's
 *			own answer waits for both); one draw per direction
 *			and connection, in the order of accept, from one
 *			seeded sequence
 *	-w both|up|down	which directions are delayed (both); up is the
 *			request
 *	-n maxconn	connections handled at once (16); more are closed
 *			at once
 *	-s seed		seed of the draws (default: from the PID and the
 *			clock), for a replayable run
 *	-v		one line on stderr per connection
 *
 * A process per connection, ended after 30 s whatever it is doing; the
 * client gets a 400 for a head too long or malformed, a 502 when the
 * target refuses. SIGTERM or SIGINT ends the proxy with status 0; its
 * connections end with it.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX	8192	/* bytes of a request head */
#define HEAD_MS		5000	/* to read it */
#define CONN_SECS	30	/* a connection's whole life */
#define NPREFIX		8

static volatile sig_atomic_t	 quit;
static const char		*prefix[NPREFIX];
static int			 nprefix, verbose, up = 1, down = 1;
static uint64_t			 rng;

static void
on_signal(int sig)
{
	if (sig != SIGCHLD)
		quit = 1;
}

/* splitmix64: small, seedable, good enough for a test's dice. */
static uint64_t
rnd(void)
{
	uint64_t	 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(long ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int
parse_num(const char *s, long lo, long hi, long *v)
{
	char	*end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *v >= lo &&
	    *v <= hi ? 0 : -1;
}

static int
resolve(const char *spec, int passive, struct sockaddr_storage *ss,
    socklen_t *sslen)
{
	struct addrinfo	 hints, *res;
	char		 host[256], *port;
	int		 e;

	if (strlcpy(host, spec, sizeof(host)) >= sizeof(host) ||
	    (port = strrchr(host, ':')) == NULL)
		return -1;
	*port++ = '\0';
	if (host[0] == '[' && port[-2] == ']') {
		port[-2] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
	    (passive ? AI_PASSIVE : 0);
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0) {
		warnx("%s: %s", spec, gai_strerror(e));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sslen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t	 w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The proxy's own answer, as a gateway would give it; then the end. */
static void
answer(int fd, int code, const char *reason)
{
	char	 body[256], msg[512];
	int	 bn, n;

	bn = snprintf(body, sizeof(body), "<html><head><title>%d %s</title>"
	    "</head><body><h1>%d %s</h1></body></html>\n", code, reason,
	    code, reason);
	n = snprintf(msg, sizeof(msg), "HTTP/1.1 %d %s\r\nServer: pathproxy"
	    "\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
	    "Connection: close\r\n\r\n%s", code, reason, bn, body);
	write_all(fd, msg, (size_t)n);
	shutdown(fd, SHUT_WR);
}

/*
 * Read one request head into buf (HEAD_MAX + 1 bytes): its length, up to
 * and including the empty line; 0 when the client ended or stalled
 * first; -1 when it is longer than HEAD_MAX or holds a NUL.
 */
static ssize_t
read_head(int fd, char *buf)
{
	struct pollfd	 pfd = { fd, POLLIN, 0 };
	int64_t		 end = now_ms() + HEAD_MS, left;
	size_t		 len = 0;
	ssize_t		 n;
	char		*e;

	for (;;) {
		buf[len] = '\0';
		if ((e = strstr(buf, "\r\n\r\n")) != NULL)
			return e + 4 - buf;
		if ((e = strstr(buf, "\n\n")) != NULL)
			return e + 2 - buf;
		if (len == HEAD_MAX)
			return -1;
		if ((left = end - now_ms()) <= 0 ||
		    poll(&pfd, 1, (int)left) <= 0)
			return 0;
		if ((n = read(fd, buf + len, HEAD_MAX - len)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (memchr(buf + len, '\0', (size_t)n) != NULL)
			return -1;
		len += (size_t)n;
	}
}

/* The path of the request line "METHOD PATH VERSION", NUL-ended in buf. */
static char *
request_path(char *buf)
{
	char	*p, *e;

	if ((p = strchr(buf, ' ')) == NULL)
		return NULL;
	p++;
	if ((e = strpbrk(p, " \r\n")) == NULL || e == p)
		return NULL;
	*e = '\0';
	return p;
}

static int
allowed(const char *path)
{
	int	 i;

	for (i = 0; i < nprefix; i++)
		if (strncmp(path, prefix[i], strlen(prefix[i])) == 0)
			return 1;
	return 0;
}

/* For -v: the path with anything unprintable as '?', cut at 100 bytes. */
static const char *
shown(const char *path)
{
	static char	 buf[101];
	size_t		 i;

	for (i = 0; i < sizeof(buf) - 1 && path[i] != '\0'; i++)
		buf[i] = path[i] > ' ' && path[i] < 127 ? path[i] : '?';
	buf[i] = '\0';
	return buf;
}

/*
 * Copy the target's answer to the client until the target ends it, its
 * first byte (or its end) held back delay ms.
 */
static void
relay(int cfd, int tfd, long delay)
{
	char	 buf[16384];
	ssize_t	 n;

	while ((n = read(tfd, buf, sizeof(buf))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return;
		}
		sleep_ms(delay);
		delay = 0;
		if (write_all(cfd, buf, (size_t)n) == -1)
			return;
	}
	sleep_ms(delay);
	shutdown(cfd, SHUT_WR);
}

/* A child: one connection, one request. */
static __attribute__((noreturn)) void
serve(int cfd, long id, long dup, long ddown,
    const struct sockaddr_storage *tss, socklen_t tlen, pid_t parent)
{
	char	 buf[HEAD_MAX + 1], line[512], *path;
	ssize_t	 n;
	int	 tfd;

	/* It ends with the proxy, and after CONN_SECS (SIGALRM) anyway. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != parent)
		_exit(0);
	alarm(CONN_SECS);
	if ((n = read_head(cfd, buf)) <= 0) {
		if (n == -1)
			answer(cfd, 400, "Bad Request");
		if (verbose)
			warnx("conn %ld: %s", id, n == -1 ? "a head too long "
			    "or with a NUL: 400" : "no request");
		_exit(0);
	}
	sleep_ms(dup);
	buf[n] = '\0';
	/* The path is cut out of a copy: buf is forwarded as it came. */
	strlcpy(line, buf, sizeof(line));
	if ((path = request_path(line)) == NULL) {
		answer(cfd, 400, "Bad Request");
		if (verbose)
			warnx("conn %ld: no request line: 400", id);
		_exit(0);
	}
	if (!allowed(path)) {
		sleep_ms(ddown);
		answer(cfd, 404, "Not Found");
		if (verbose)
			warnx("conn %ld: %s: not routed, 404 after %ldms", id,
			    shown(path), dup + ddown);
		/* Until the client's end: a close with data unread resets. */
		while (read(cfd, line, sizeof(line)) > 0)
			;
		_exit(0);
	}
	if ((tfd = socket(tss->ss_family, SOCK_STREAM, 0)) == -1 ||
	    connect(tfd, (const struct sockaddr *)tss, tlen) == -1) {
		if (verbose)
			warn("conn %ld: %s: target", id, shown(path));
		answer(cfd, 502, "Bad Gateway");
		_exit(0);
	}
	if (verbose)
		warnx("conn %ld: %s: forwarded after %ldms, answer held "
		    "%ldms", id, shown(path), dup, ddown);
	if (write_all(tfd, buf, (size_t)n) == 0)
		relay(cfd, tfd, ddown);
	_exit(0);
}

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: pathproxy [-v] [-a prefix] [-d max_ms] "
	    "[-n maxconn] [-s seed]\n\t[-w both|up|down] "
	    "-l addr:port target-addr:port\n");
	exit(64);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_storage	 lss, tss;
	socklen_t		 llen, tlen;
	struct sigaction	 sa;
	struct pollfd		 pfd;
	struct timespec		 ts;
	sigset_t		 block, empty;
	const char		*listen_at = NULL;
	char			 host[NI_MAXHOST], serv[NI_MAXSERV];
	long			 maxd = 0, maxconn = 16, nconn = 0, id = 0;
	long			 dup, ddown;
	pid_t			 pid, parent = getpid();
	int			 ch, lfd, cfd, on = 1, seeded = 0;

	while ((ch = getopt(argc, argv, "a:d:l:n:s:vw:")) != -1) {
		switch (ch) {
		case 'a':
			if (nprefix == NPREFIX || optarg[0] != '/')
				errx(64, "-a %s: up to %d prefixes, each "
				    "starting with /", optarg, NPREFIX);
			prefix[nprefix++] = optarg;
			break;
		case 'd':
			if (parse_num(optarg, 0, 10000, &maxd) == -1)
				errx(64, "-d %s: want 0..10000 ms", optarg);
			break;
		case 'l':
			listen_at = optarg;
			break;
		case 'n':
			if (parse_num(optarg, 1, 256, &maxconn) == -1)
				errx(64, "-n %s: want 1..256", optarg);
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0);
			seeded = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'w':
			up = strcmp(optarg, "down") != 0;
			down = strcmp(optarg, "up") != 0;
			if (strcmp(optarg, "both") != 0 && up == down)
				errx(64, "-w %s: want both, up or down",
				    optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1 || listen_at == NULL)
		usage();
	if (nprefix == 0)
		prefix[nprefix++] = "/v1/elapsed/";
	if (!seeded) {
		clock_gettime(CLOCK_REALTIME, &ts);
		rng = (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec;
	}
	if (resolve(listen_at, 1, &lss, &llen) == -1 ||
	    resolve(argv[0], 0, &tss, &tlen) == -1)
		errx(64, "want ADDR:PORT, numeric");

	if ((lfd = socket(lss.ss_family, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1)
		err(71, "socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(lfd, (struct sockaddr *)&lss, llen) == -1)
		err(71, "bind %s", listen_at);
	if (listen(lfd, 64) == -1)
		err(71, "listen");
	llen = sizeof(lss);
	getsockname(lfd, (struct sockaddr *)&lss, &llen);
	getnameinfo((struct sockaddr *)&lss, llen, host, sizeof(host), serv,
	    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV);
	warnx("listening on %s:%s", host, serv);

	/* The signals arrive only inside ppoll: no flag is missed. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &empty);

	pfd.fd = lfd;
	pfd.events = POLLIN;
	while (!quit) {
		while (nconn > 0 && waitpid(-1, NULL, WNOHANG) > 0)
			nconn--;
		if (ppoll(&pfd, 1, NULL, &empty) == -1) {
			if (errno != EINTR)
				err(71, "ppoll");
			continue;
		}
		/* Blocking: accept4 does not pass O_NONBLOCK on. */
		if ((cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				warn("accept");
			continue;
		}
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
		if (nconn >= maxconn) {
			close(cfd);
			continue;
		}
		/* Drawn here, in the order of accept: one sequence per seed. */
		dup = up && maxd > 0 ? (long)(rnd() % (uint64_t)(maxd + 1)) :
		    0;
		ddown = down && maxd > 0 ?
		    (long)(rnd() % (uint64_t)(maxd + 1)) : 0;
		id++;
		if ((pid = fork()) == -1) {
			warn("fork");
			close(cfd);
			continue;
		}
		if (pid == 0) {
			close(lfd);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGCHLD, SIG_DFL);
			signal(SIGPIPE, SIG_IGN);
			sigprocmask(SIG_SETMASK, &empty, NULL);
			serve(cfd, id, dup, ddown, &tss, tlen, parent);
		}
		nconn++;
		close(cfd);
	}
	/* The connections still open end with it (PR_SET_PDEATHSIG). */
	close(lfd);
	return 0;
}
