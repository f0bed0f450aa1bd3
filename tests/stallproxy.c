/* SPDX-License-Identifier: ISC */
/*
 * stallproxy: a test helper, never installed. TCP proxies on loopback
 * that forward until told to stall, then accept and never answer: a
 * server that is there but hung, not one that refuses.
 *
 *	stallproxy [-w word] port ...
 *
 * For each port it listens on 127.0.0.1 and a port the kernel picks,
 * says "stallproxy: listening on 127.0.0.1:PORT" on stderr, in the
 * order of the arguments, and forwards each connection it accepts to
 * 127.0.0.1:port. All of them stall at once:
 *
 *	SIGUSR2		now;
 *	SIGUSR1		right after the next answer that holds word (default
 *			"TTL", which etcd's lease answers hold) has been
 *			passed on whole to its client: once the targets
 *			have then sent nothing for QUIET ms (a keepalive's
 *			answer is a stream, whose last chunk may come in a
 *			read of its own). The word must come in one read:
 *			etcd writes its short answers at once.
 *
 * Stalled, it says "stallproxy: stalled at MS" (CLOCK_BOOTTIME
 * milliseconds, the clock of /proc/uptime), closes its connections to
 * the targets, and from then on reads and discards what clients send,
 * existing connections and new ones alike, closes a connection when its
 * client does, and never writes a byte. SIGTERM or SIGINT ends it with
 * status 0. One process, ppoll(2), no threads.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proxy.h"

#define PORTS_MAX	8
#define CONNS_MAX	256
#define QUIET		100	/* ms */

struct conn {
	int	 client, target;	/* -1: none */
};

static volatile sig_atomic_t	 armed, stall_now, done;
static struct conn		 conns[CONNS_MAX];
static int			 lfd[PORTS_MAX], tport[PORTS_MAX], nports;
static int			 stalled;
static long long		 quiet_until;	/* a match seen: stall then */
static const char		*word = "TTL";

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		armed = 1;
	else if (sig == SIGUSR2)
		stall_now = 1;
	else
		done = 1;
}

static long long
boottime_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) == -1)
		err(1, "clock_gettime");
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
stall(const char *why)
{
	int	 i;

	if (stalled)
		return;
	stalled = 1;
	quiet_until = 0;
	for (i = 0; i < CONNS_MAX; i++)
		if (conns[i].target != -1) {
			close(conns[i].target);
			conns[i].target = -1;
		}
	fprintf(stderr, "stallproxy: stalled at %lld (%s)\n", boottime_ms(),
	    why);
}

static void
drop(struct conn *c)
{
	if (c->client != -1)
		close(c->client);
	if (c->target != -1)
		close(c->target);
	c->client = c->target = -1;
}

static void
accept_one(int k)
{
	struct sockaddr_in	 sin;
	struct conn		*c = NULL;
	int			 fd, i;

	if ((fd = accept(lfd[k], NULL, NULL)) == -1)
		return;
	for (i = 0; i < CONNS_MAX && c == NULL; i++)
		if (conns[i].client == -1)
			c = &conns[i];
	if (c == NULL) {
		close(fd);
		return;
	}
	c->client = fd;
	if (stalled)
		return;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(tport[k]);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((c->target = proxy_connect((struct sockaddr *)&sin,
	    sizeof(sin))) == -1)
		drop(c);
}

/* Data from one side of c: passed on, or (stalled) discarded. */
static void
pass(struct conn *c, int from_client)
{
	char	 buf[PROXY_BUFSZ];
	ssize_t	 n;
	int	 from = from_client ? c->client : c->target;
	int	 to = from_client ? c->target : c->client;

	if ((n = read(from, buf, sizeof(buf))) == -1 && errno == EINTR)
		return;
	if (n <= 0) {
		drop(c);
		return;
	}
	if (stalled)
		return;
	if (proxy_write_all(to, buf, n) == -1) {
		drop(c);
		return;
	}
	if (!from_client && (quiet_until > 0 || (armed && memmem(buf, n,
	    word, strlen(word)) != NULL)))
		quiet_until = boottime_ms() + QUIET;
}

int
main(int argc, char *argv[])
{
	static const int	 sigs[] = { SIGUSR1, SIGUSR2, SIGTERM, SIGINT,
				    0 };
	struct pollfd		 pfd[PORTS_MAX + 2 * CONNS_MAX];
	struct conn		*who[PORTS_MAX + 2 * CONNS_MAX];
	struct sockaddr_in	 sin;
	socklen_t		 len;
	sigset_t		 none;
	const char		*errstr;
	struct timespec		 ts;
	long long		 left = 0;
	int			 ch, i, k, n, one = 1;

	while ((ch = getopt(argc, argv, "w:")) != -1) {
		switch (ch) {
		case 'w':
			word = optarg;
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > PORTS_MAX || *word == '\0')
		goto usage;

	/* In ppoll every signal is let in, whatever the mask before. */
	sigemptyset(&none);
	if (proxy_signals(on_signal, sigs, NULL) == -1)
		err(1, "sigaction");

	for (i = 0; i < CONNS_MAX; i++)
		conns[i].client = conns[i].target = -1;
	for (nports = 0; nports < argc; nports++) {
		tport[nports] = strtonum(argv[nports], 1, 65535, &errstr);
		if (errstr != NULL)
			errx(1, "port %s: %s", argv[nports], errstr);
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(sin);
		if ((lfd[nports] = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
		    setsockopt(lfd[nports], SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof(one)) == -1 ||
		    bind(lfd[nports], (struct sockaddr *)&sin,
		    sizeof(sin)) == -1 || listen(lfd[nports], 64) == -1 ||
		    getsockname(lfd[nports], (struct sockaddr *)&sin,
		    &len) == -1)
			err(1, "listen");
		fprintf(stderr, "stallproxy: listening on 127.0.0.1:%d\n",
		    ntohs(sin.sin_port));
	}

	while (!done) {
		if (stall_now)
			stall("told to");
		if (quiet_until > 0 && (left = quiet_until - boottime_ms()) <= 0)
			stall("after an answer");
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000;
		n = 0;
		for (k = 0; k < nports; k++) {
			pfd[n].fd = lfd[k];
			pfd[n].events = POLLIN;
			who[n++] = NULL;
		}
		for (i = 0; i < CONNS_MAX; i++) {
			if (conns[i].client == -1)
				continue;
			pfd[n].fd = conns[i].client;
			pfd[n].events = POLLIN;
			who[n++] = &conns[i];
			if (conns[i].target == -1)
				continue;
			pfd[n].fd = conns[i].target;
			pfd[n].events = POLLIN;
			who[n++] = &conns[i];
		}
		if (ppoll(pfd, n, quiet_until > 0 ? &ts : NULL, &none) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "ppoll");
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (who[i] == NULL)
				accept_one(i);
			else if (pfd[i].fd == who[i]->client)
				pass(who[i], 1);
			else if (pfd[i].fd == who[i]->target)
				pass(who[i], 0);
		}
	}
	return 0;
usage:
	fprintf(stderr, "usage: stallproxy [-w word] port ...\n");
	return 1;
}
