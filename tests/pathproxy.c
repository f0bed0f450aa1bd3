/* SPDX-License-Identifier: ISC */
/*
 * pathproxy: a test helper, never installed. An HTTP reverse proxy on
 * loopback that routes only some paths, as a gateway configured for 0.3
 * would (an nginx "location /v1/elapsed/" block): tests/cli/96c-gateway.sh
 * puts it between two nodes.
 *
 *	pathproxy [-v] [-a prefix] [-d max_ms] [-n maxconn] [-s seed]
 *	    [-w both|up|down] [-c dir] -l addr:port target-addr:port
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
 *	-c dir		a cache, as a gateway that ignores Cache-Control:
 *			no-store keeps one: each answer routed is stored
 *			in dir under its path, and a request whose path
 *			is stored there is answered from the file, the
 *			target not asked (tests/cli/32c-cache.sh). Remove
 *			the file to let the next request through.
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

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proxy.h"

#define HEAD_MAX	8192	/* bytes of a request head */
#define HEAD_MS		5000	/* to read it */
#define CONN_SECS	30	/* a connection's whole life */
#define NPREFIX		8

static volatile sig_atomic_t	 quit;
static const char		*prefix[NPREFIX];
static int			 nprefix, up = 1, down = 1;
static const char		*cache;

static void
on_signal(int sig)
{
	if (sig != SIGCHLD)
		quit = 1;
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
	proxy_write_all(fd, msg, (size_t)n);
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
	int64_t		 end = proxy_now_ms() + HEAD_MS, left;
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
		if ((left = end - proxy_now_ms()) <= 0 ||
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
 * first byte (or its end) held back delay ms; and into the file kfd (-1:
 * none), for the cache.
 */
static void
relay(int cfd, int tfd, long delay, int kfd)
{
	char	 buf[PROXY_BUFSZ];
	ssize_t	 n;

	while ((n = read(tfd, buf, sizeof(buf))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return;
		}
		sleep_ms(delay);
		delay = 0;
		if (kfd != -1 && proxy_write_all(kfd, buf, (size_t)n) == -1)
			return;
		if (proxy_write_all(cfd, buf, (size_t)n) == -1)
			return;
	}
	sleep_ms(delay);
	shutdown(cfd, SHUT_WR);
}

/* The cache file of path in buf: "/" as "_". */
static void
cache_name(char *buf, size_t len, const char *path)
{
	size_t	 i, n;

	n = (size_t)snprintf(buf, len, "%s/", cache);
	for (i = 0; path[i] != '\0' && n + 1 < len; i++)
		buf[n++] = path[i] == '/' ? '_' : path[i];
	buf[n] = '\0';
}

/* Answer from the cache: 1 when path was stored, else 0. */
static int
from_cache(int cfd, const char *path)
{
	char	 name[PATH_MAX], buf[PROXY_BUFSZ];
	ssize_t	 n;
	int	 fd;

	cache_name(name, sizeof(name), path);
	if ((fd = open(name, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (proxy_write_all(cfd, buf, (size_t)n) == -1)
			break;
	close(fd);
	shutdown(cfd, SHUT_WR);
	return 1;
}

/* A child: one connection, one request. */
static __attribute__((noreturn)) void
serve(int cfd, long id, long dup, long ddown,
    const struct sockaddr_storage *tss, socklen_t tlen, pid_t parent)
{
	char	 buf[HEAD_MAX + 1], line[512], *path;
	char	 name[PATH_MAX], tmp[PATH_MAX];
	ssize_t	 n;
	int	 tfd, kfd = -1;

	/* It ends with the proxy, and after CONN_SECS (SIGALRM) anyway. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != parent)
		_exit(0);
	alarm(CONN_SECS);
	if ((n = read_head(cfd, buf)) <= 0) {
		if (n == -1)
			answer(cfd, 400, "Bad Request");
		proxy_log(id, "%s", n == -1 ? "a head too long or with a "
		    "NUL: 400" : "no request");
		_exit(0);
	}
	sleep_ms(dup);
	buf[n] = '\0';
	/* The path is cut out of a copy: buf is forwarded as it came. */
	strlcpy(line, buf, sizeof(line));
	if ((path = request_path(line)) == NULL) {
		answer(cfd, 400, "Bad Request");
		proxy_log(id, "no request line: 400");
		_exit(0);
	}
	if (!allowed(path)) {
		sleep_ms(ddown);
		answer(cfd, 404, "Not Found");
		proxy_log(id, "%s: not routed, 404 after %ldms", shown(path),
		    dup + ddown);
		/* Until the client's end: a close with data unread resets. */
		while (read(cfd, line, sizeof(line)) > 0)
			;
		_exit(0);
	}
	if (cache != NULL && from_cache(cfd, path)) {
		proxy_log(id, "%s: answered from the cache", shown(path));
		_exit(0);
	}
	if ((tfd = proxy_connect((const struct sockaddr *)tss, tlen)) == -1) {
		proxy_log(id, "%s: target: %s", shown(path),
		    strerror(errno));
		answer(cfd, 502, "Bad Gateway");
		_exit(0);
	}
	proxy_log(id, "%s: forwarded after %ldms, answer held %ldms",
	    shown(path), dup, ddown);
	if (cache != NULL) {
		cache_name(tmp, sizeof(tmp) - 8, path);
		strlcpy(name, tmp, sizeof(name));
		strlcat(tmp, ".tmp", sizeof(tmp));
		kfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	}
	if (proxy_write_all(tfd, buf, (size_t)n) == 0)
		relay(cfd, tfd, ddown, kfd);
	/* Stored whole, or not at all. */
	if (kfd != -1 && close(kfd) == 0)
		rename(tmp, name);
	_exit(0);
}

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: pathproxy [-v] [-a prefix] [-d max_ms] "
	    "[-n maxconn] [-s seed]\n\t[-w both|up|down] [-c dir] "
	    "-l addr:port target-addr:port\n");
	exit(64);
}

int
main(int argc, char *argv[])
{
	static const int	 sigs[] = { SIGTERM, SIGINT, SIGCHLD, 0 };
	struct proxy_opts	 po = { .usage = usage };
	struct pollfd		 pfd;
	sigset_t		 empty;
	long			 maxd = 0, maxconn = 16, nconn = 0, id = 0;
	long			 dup, ddown;
	pid_t			 pid, parent = getpid();
	int			 ch, lfd, cfd;

	while ((ch = getopt(argc, argv, "a:c:d:l:n:s:vw:")) != -1) {
		switch (ch) {
		case 'a':
			if (nprefix == NPREFIX || optarg[0] != '/')
				errx(64, "-a %s: up to %d prefixes, each "
				    "starting with /", optarg, NPREFIX);
			prefix[nprefix++] = optarg;
			break;
		case 'c':
			cache = optarg;
			break;
		case 'd':
			if (proxy_num(optarg, 0, 10000, &maxd) == -1)
				errx(64, "-d %s: want 0..10000 ms", optarg);
			break;
		case 'n':
			if (proxy_num(optarg, 1, 256, &maxconn) == -1)
				errx(64, "-n %s: want 1..256", optarg);
			break;
		case 'w':
			up = strcmp(optarg, "down") != 0;
			down = strcmp(optarg, "up") != 0;
			if (strcmp(optarg, "both") != 0 && up == down)
				errx(64, "-w %s: want both, up or down",
				    optarg);
			break;
		default:
			/* -l, -s, -v; or usage */
			proxy_opt(&po, ch, optarg);
		}
	}
	proxy_opts_end(&po, argc - optind, argv + optind);
	if (nprefix == 0)
		prefix[nprefix++] = "/v1/elapsed/";
	lfd = proxy_listen(&po, SOCK_CLOEXEC | SOCK_NONBLOCK, 64);
	proxy_signals(on_signal, sigs, &empty);

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
		if ((cfd = proxy_accept(lfd, SOCK_CLOEXEC)) == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				warn("accept");
			continue;
		}
		if (nconn >= maxconn) {
			close(cfd);
			continue;
		}
		/* Drawn here, in the order of accept: one sequence per seed. */
		dup = up && maxd > 0 ?
		    (long)(proxy_rnd() % (uint64_t)(maxd + 1)) : 0;
		ddown = down && maxd > 0 ?
		    (long)(proxy_rnd() % (uint64_t)(maxd + 1)) : 0;
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
			serve(cfd, id, dup, ddown, &po.tss, po.tlen, parent);
		}
		nconn++;
		close(cfd);
	}
	/* The connections still open end with it (PR_SET_PDEATHSIG). */
	close(lfd);
	return 0;
}
