/* SPDX-License-Identifier: ISC */
/*
 * What the test proxies share: see proxy.h. Test helpers, never
 * installed, none of lib/.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proxy.h"

int			 proxy_verbose;
static uint64_t		 rng;

int64_t
proxy_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
proxy_seed(const char *seed)
{
	struct timespec	 ts;

	if (seed != NULL) {
		rng = strtoull(seed, NULL, 0);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	rng = (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec;
}

/* splitmix64: small, seedable, good enough for a test's dice. */
uint64_t
proxy_rnd(void)
{
	uint64_t	 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int
proxy_num(const char *s, long lo, long hi, long *v)
{
	const char	*errstr;
	long long	 n;

	n = strtonum(s, lo, hi, &errstr);
	if (errstr != NULL)
		return -1;
	*v = (long)n;
	return 0;
}

/*
 * The address spec names into ss and sslen, AI_PASSIVE when passive; -1,
 * a getaddrinfo error said on stderr, when it names none.
 */
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

void
proxy_opt(struct proxy_opts *po, int ch, const char *arg)
{
	switch (ch) {
	case 'l':
		po->listen_at = arg;
		break;
	case 's':
		po->seed = arg;
		break;
	case 'v':
		proxy_verbose = 1;
		break;
	default:
		po->usage();
	}
}

void
proxy_opts_end(struct proxy_opts *po, int argc, char *argv[])
{
	if (argc != 1 || po->listen_at == NULL)
		po->usage();
	proxy_seed(po->seed);
	if (resolve(po->listen_at, 1, &po->lss, &po->llen) == -1 ||
	    resolve(argv[0], 0, &po->tss, &po->tlen) == -1)
		errx(64, "want ADDR:PORT, numeric");
}

int
proxy_listen(struct proxy_opts *po, int flags, int backlog)
{
	struct sockaddr	*sa = (struct sockaddr *)&po->lss;
	char		 host[NI_MAXHOST], serv[NI_MAXSERV];
	int		 fd, on = 1;

	if ((fd = socket(sa->sa_family, SOCK_STREAM | flags, 0)) == -1)
		err(71, "socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, sa, po->llen) == -1)
		err(71, "bind %s", po->listen_at);
	if (listen(fd, backlog) == -1)
		err(71, "listen");
	po->llen = sizeof(po->lss);
	getsockname(fd, sa, &po->llen);
	getnameinfo(sa, po->llen, host, sizeof(host), serv, sizeof(serv),
	    NI_NUMERICHOST | NI_NUMERICSERV);
	warnx("listening on %s:%s", host, serv);
	return fd;
}

int
proxy_accept(int lfd, int flags)
{
	int	 fd, on = 1;

	if ((fd = accept4(lfd, NULL, NULL, flags)) != -1)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	return fd;
}

int
proxy_connect(const struct sockaddr *sa, socklen_t salen)
{
	int	 fd, e;

	if ((fd = socket(sa->sa_family, SOCK_STREAM, 0)) == -1)
		return -1;
	if (connect(fd, sa, salen) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
proxy_write_all(int fd, const void *p, size_t n)
{
	const char	*b = p;
	ssize_t		 w;

	while (n > 0) {
		if ((w = write(fd, b, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int
proxy_signals(void (*fn)(int), const int *sigs, sigset_t *old)
{
	struct sigaction	 sa;
	sigset_t		 block;
	int			 i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (i = 0; sigs[i] != 0; i++)
		sigaddset(&block, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &block, old) == -1)
		return -1;
	for (i = 0; sigs[i] != 0; i++)
		if (sigaction(sigs[i], &sa, NULL) == -1)
			return -1;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

void
proxy_log(long id, const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[1024];

	if (!proxy_verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warnx("conn %ld: %s", id, msg);
}
