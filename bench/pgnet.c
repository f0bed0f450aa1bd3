/* SPDX-License-Identifier: ISC */
/*
 * pgnet.c: the network subcommands of pgbench (bench/pgbench.c).
 *
 *	pgbench req [-n rounds] [-w warmup] [-t secs] [-H field] [-p path]
 *	    host:port [host:port ...]
 *
 * Alternating HTTP requests, one new connection each: connect, send
 * "GET path HTTP/1.0", read until the server closes, close. The path is
 * /v1/elapsed/mail unless -p; -H adds a header field ("Name: value") to
 * every request. Output as alt; STATUS is 0 when the answer starts
 * "HTTP/1.x 200", 1 otherwise, 2 when the connection failed.
 *
 *	pgbench fan [-p path] port [port ...]
 *
 * The floor of a check with peers: one request to each port on 127.0.0.1
 * at once, over plain non-blocking sockets, as pollguard-check sends it
 * (HTTP/1.1), each read until the server closes. Exit 0 when every
 * answer is a 200, 1 otherwise. Meant to be timed by alt.
 *
 *	pgbench sink [-a] [-t secs]
 *
 * A peer that never answers: listen on 127.0.0.1, a port the kernel
 * picks, print "port N", and never accept; the kernel completes the
 * handshakes and queues the requests. With -a, accept every connection
 * and hold it open, never reading or answering: a process that accepts
 * and then hangs. Exits after -t seconds (600).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgbench.h"

#define FAN_MAX		256
#define HOLD_MAX	4096	/* connections sink -a holds at once */


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

int
req(int argc, char *argv[])
{
	struct sockaddr_in	 sin[CMDS_MAX];
	struct opts		 o = { .path = "/v1/elapsed/mail",
				    .rounds = 20, .warm = 1, .secs = 60 };
	char			 buf[512];
	int64_t			 t0, end;
	long			 r;
	int			 i, n, st, len;

	i = options(argc, argv, "H:n:p:t:w:", &o);
	argc -= i;
	argv += i;
	if (argc < 1 || argc > CMDS_MAX)
		usage();
	n = argc;
	for (i = 0; i < n; i++)
		address(argv[i], &sin[i]);
	len = snprintf(buf, sizeof(buf), "GET %s HTTP/1.0\r\n"
	    "Host: 127.0.0.1\r\n%s%s\r\n", o.path,
	    o.field != NULL ? o.field : "", o.field != NULL ? "\r\n" : "");
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

int
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

int
sink(int argc, char *argv[])
{
	struct sockaddr_in	 sin;
	struct pollfd		 pfd;
	socklen_t		 len = sizeof(sin);
	struct opts		 o = { .secs = 600 };
	int64_t			 end;
	int			 fd, c, nheld = 0;

	if (options(argc, argv, "at:", &o) != argc)
		usage();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 128) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		die("listen");
	printf("port %u\n", ntohs(sin.sin_port));
	fflush(stdout);
	end = now_ns() + (int64_t)o.secs * 1000000000;
	if (!o.hold) {
		sleep(o.secs);
		return 0;
	}
	/* Accept and hold: the descriptors stay open until the exit. */
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (now_ns() < end) {
		if (poll(&pfd, 1, (int)((end - now_ns()) / 1000000) + 1) <= 0)
			continue;
		if ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
			continue;
		if (nheld == HOLD_MAX)
			close(c);
		else
			nheld++;
	}
	return 0;
}
