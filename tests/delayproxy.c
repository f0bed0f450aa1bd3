/* SPDX-License-Identifier: ISC */
/*
 * delayproxy: a test helper, never installed. A TCP proxy on loopback
 * that delays and drops connections on demand, so that tests can put a
 * slow or lossy link between nodes: this kernel has no netem.
 *
 *	delayproxy [-v] [-d mean[:jitter]] [-f ctlfile] [-n maxconn]
 *	    [-s seed] [-w both|up|down] [-x fraction[:mode]]
 *	    -l addr:port target-addr:port
 *
 * It listens on addr:port (port 0: one the kernel picks) and says
 * "delayproxy: listening on ADDR:PORT" on stderr once it does. Each
 * connection it accepts is forwarded to the target, or dropped:
 *
 *	-d mean[:jitter]	delay in milliseconds (0): every byte read
 *				from one side is written to the other no
 *				sooner than this after it was read, the end
 *				of the stream too. Each connection draws one
 *				delay per direction, uniformly from
 *				mean-jitter..mean+jitter (never below 0).
 *	-w both|up|down		which directions are delayed (both); up is
 *				client to target.
 *	-x fraction[:mode]	drop this share (0 to 1) of the connections:
 *				mode close (accept and end the stream at once,
 *				read and discard until the client's end),
 *				reset (accept and reset) or blackhole (accept, read
 *				and discard, never answer, until 30 s after
 *				the client ended its stream; a half-close and
 *				a close look alike). Default mode: close.
 *	-f ctlfile		re-read at every accept and on SIGUSR1: lines
 *				"delay MEAN [JITTER]", "dir both|up|down",
 *				"drop FRACTION [MODE]"; what it does not say,
 *				and everything when it is missing, is as the
 *				options say. Replace it with rename(2) so that
 *				no half-written file is read; a malformed one
 *				is reported and ignored.
 *	-n maxconn		connections forwarded at once (128); more are
 *				closed at once.
 *	-s seed			seed of the random draws (default: from the
 *				PID and the clock), for a replayable run.
 *	-v			one line on stderr per connection.
 *
 * A connection whose target refuses is reset, as the target would have
 * done. One process, poll(2), no threads, 16 KiB buffered per direction
 * and connection. SIGTERM or SIGINT ends it with status 0.
 */
#include <sys/types.h>
#include <sys/socket.h>

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

#define BUFSZ	PROXY_BUFSZ
#define MS_MAX	600000		/* a delay or a jitter, at most */
#define NSEG	64		/* chunks in flight per direction */
#define LINGER	30000		/* ms a blackhole keeps a client that ended */

enum drop { DROP_CLOSE, DROP_RESET, DROP_BLACKHOLE };

/* What a new connection gets: the options, then the control file. */
struct setting {
	long		 mean, jitter;	/* ms */
	int		 up, down;	/* which directions are delayed */
	double		 drop;
	enum drop	 mode;
};

/* One chunk read from a side: n bytes (0: the end of the stream). */
struct seg {
	size_t		 n;
	int64_t		 due;		/* ms, CLOCK_MONOTONIC */
};

struct dir {
	char		 buf[BUFSZ];
	size_t		 off, len;	/* queued: buf[off..off+len) */
	struct seg	 seg[NSEG];
	int		 head, nseg;
	long		 delay;
	int		 eof;		/* the source ended */
	int		 done;		/* and the end was passed on */
};

struct conn {
	int		 cfd, tfd;	/* client, target */
	int		 connecting;
	int		 blackhole;	/* drop: read, discard, never answer */
	int		 fin;		/* and the end of stream sent at once */
	int		 chup, thup;	/* that side is gone: not polled */
	int64_t		 until;		/* a blackhole's end, once the client's */
	long		 id;
	struct dir	 up, down;	/* up: cfd to tfd */
};

static volatile sig_atomic_t	 reread, quit;
static struct setting		 opt, cur;
static const char		*ctlfile;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		reread = 1;
	else
		quit = 1;
}

static double
rnd01(void)
{
	return (double)(proxy_rnd() >> 11) / 9007199254740992.0;
}

static long
draw_delay(const struct setting *s)
{
	long	 d;

	if (s->jitter <= 0)
		return s->mean;
	d = s->mean - s->jitter +
	    (long)(proxy_rnd() % (uint64_t)(2 * s->jitter + 1));
	return d < 0 ? 0 : d;
}

/* "mean[:jitter]" */
static int
parse_delay(char *s, struct setting *st)
{
	char	*j = strchr(s, ':');

	if (j != NULL)
		*j++ = '\0';
	if (proxy_num(s, 0, MS_MAX, &st->mean) == -1)
		return -1;
	st->jitter = 0;
	return j == NULL ? 0 : proxy_num(j, 0, MS_MAX, &st->jitter);
}

static int
parse_dir(const char *s, struct setting *st)
{
	if (strcmp(s, "both") == 0)
		st->up = st->down = 1;
	else if (strcmp(s, "up") == 0) {
		st->up = 1;
		st->down = 0;
	} else if (strcmp(s, "down") == 0) {
		st->up = 0;
		st->down = 1;
	} else
		return -1;
	return 0;
}

static int
parse_mode(const char *s, enum drop *m)
{
	if (strcmp(s, "close") == 0)
		*m = DROP_CLOSE;
	else if (strcmp(s, "reset") == 0)
		*m = DROP_RESET;
	else if (strcmp(s, "blackhole") == 0)
		*m = DROP_BLACKHOLE;
	else
		return -1;
	return 0;
}

static int
parse_drop(const char *frac, const char *mode, struct setting *st)
{
	char	*end;

	errno = 0;
	st->drop = strtod(frac, &end);
	if (errno != 0 || end == frac || *end != '\0' || !(st->drop >= 0) ||
	    st->drop > 1)
		return -1;
	st->mode = DROP_CLOSE;
	return mode == NULL ? 0 : parse_mode(mode, &st->mode);
}

/*
 * The setting for new connections: the options, changed by what the
 * control file says. A malformed file leaves the options alone: a
 * nemesis that wrote nonsense must see it, not a half-applied change.
 */
static void
load(void)
{
	struct setting	 s = opt;
	FILE		*f;
	char		 line[256], *w[4], *p;
	int		 n, lineno = 0, bad = 0;

	cur = opt;
	if (ctlfile == NULL || (f = fopen(ctlfile, "r")) == NULL)
		return;
	while (!bad && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		n = 0;
		for (p = strtok(line, " \t\r\n"); p != NULL && n < 4;
		    p = strtok(NULL, " \t\r\n"))
			w[n++] = p;
		if (n == 0 || w[0][0] == '#')
			continue;
		if (strcmp(w[0], "delay") == 0 && (n == 2 || n == 3))
			bad = proxy_num(w[1], 0, MS_MAX, &s.mean) == -1 ||
			    (n == 3 ? proxy_num(w[2], 0, MS_MAX,
			    &s.jitter) == -1 : (s.jitter = 0));
		else if (strcmp(w[0], "dir") == 0 && n == 2)
			bad = parse_dir(w[1], &s) == -1;
		else if (strcmp(w[0], "drop") == 0 && (n == 2 || n == 3))
			bad = parse_drop(w[1], n == 3 ? w[2] : NULL, &s) == -1;
		else
			bad = 1;
	}
	fclose(f);
	if (bad)
		warnx("%s:%d: malformed, ignored", ctlfile, lineno);
	else
		cur = s;
}

/* Close with a reset: the peer sees ECONNRESET, not an orderly end. */
static void
reset_close(int fd)
{
	struct linger	 l = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(fd);
}

static void
conn_free(struct conn *c)
{
	if (c->cfd != -1)
		close(c->cfd);
	if (c->tfd != -1)
		close(c->tfd);
	free(c);
}

/* Can the direction take another chunk from its source? */
static int
dir_room(const struct dir *d)
{
	return !d->eof && d->nseg < NSEG && (d->off > 0 || d->len < BUFSZ);
}

/* ms until the head chunk is due: 0 now, -1 nothing queued. */
static int64_t
dir_wait(const struct dir *d, int64_t now)
{
	if (d->nseg == 0 || d->done)
		return -1;
	return d->seg[d->head].due > now ? d->seg[d->head].due - now : 0;
}

/* Read a chunk from fd into d; -1 when the connection must end. */
static int
dir_read(struct dir *d, int fd, int64_t now)
{
	struct seg	*s;
	ssize_t		 n;

	if (d->off + d->len == BUFSZ) {
		memmove(d->buf, d->buf + d->off, d->len);
		d->off = 0;
	}
	n = read(fd, d->buf + d->off + d->len, BUFSZ - d->off - d->len);
	if (n == -1)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	s = &d->seg[(d->head + d->nseg++) % NSEG];
	s->n = (size_t)n;
	s->due = now + d->delay;
	d->len += (size_t)n;
	if (n == 0)
		d->eof = 1;
	return 0;
}

/* Write what is due from d to fd; -1 when the connection must end. */
static int
dir_write(struct dir *d, int fd, int64_t now)
{
	struct seg	*s;
	ssize_t		 n;

	while (d->nseg > 0 && (s = &d->seg[d->head])->due <= now) {
		if (s->n == 0) {
			shutdown(fd, SHUT_WR);
			d->done = 1;
			d->nseg = 0;
			return 0;
		}
		n = write(fd, d->buf + d->off, s->n);
		if (n == -1)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		s->n -= (size_t)n;
		d->off += (size_t)n;
		d->len -= (size_t)n;
		if (d->len == 0)
			d->off = 0;
		if (s->n > 0)
			return 0;
		d->head = (d->head + 1) % NSEG;
		d->nseg--;
	}
	return 0;
}

static struct conn *
conn_new(int cfd, const struct sockaddr_storage *tss, socklen_t tlen,
    long id)
{
	struct conn	*c;
	double		 dice;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		close(cfd);
		return NULL;
	}
	c->cfd = cfd;
	c->tfd = -1;
	c->id = id;
	dice = rnd01();
	if (dice < cur.drop) {
		proxy_log(id, "dropped (%s)",
		    cur.mode == DROP_CLOSE ? "close" :
		    cur.mode == DROP_RESET ? "reset" : "blackhole");
		if (cur.mode == DROP_RESET) {
			reset_close(cfd);
			free(c);
			return NULL;
		}
		/*
		 * Closed at once: the end of stream now, and the socket
		 * kept until the client's, since closing it with a request
		 * unread would reset it instead.
		 */
		if (cur.mode == DROP_CLOSE) {
			shutdown(cfd, SHUT_WR);
			c->fin = 1;
		}
		c->blackhole = 1;
		return c;
	}
	c->up.delay = cur.up ? draw_delay(&cur) : 0;
	c->down.delay = cur.down ? draw_delay(&cur) : 0;
	if ((c->tfd = socket(tss->ss_family, SOCK_STREAM | SOCK_NONBLOCK,
	    0)) == -1) {
		warn("socket");
		conn_free(c);
		return NULL;
	}
	if (connect(c->tfd, (const struct sockaddr *)tss, tlen) == -1) {
		if (errno != EINPROGRESS) {
			proxy_log(id, "connect: %s", strerror(errno));
			reset_close(cfd);
			c->cfd = -1;
			conn_free(c);
			return NULL;
		}
		c->connecting = 1;
	}
	proxy_log(id, "delay up %ldms, down %ldms", c->up.delay,
	    c->down.delay);
	return c;
}

/* Handle poll's answer for one connection; 0 when it has ended. */
static int
conn_step(struct conn *c, short cre, short tre, int64_t now)
{
	int	 e = 0;
	char	 junk[4096];
	ssize_t	 n;
	socklen_t elen = sizeof(e);

	/*
	 * A half-close and a close look alike from here: a blackhole keeps
	 * a client that ended its stream for LINGER ms, never answering.
	 */
	if (c->blackhole) {
		if (c->chup)
			return now < c->until;
		if (cre == 0)
			return 1;
		n = read(c->cfd, junk, sizeof(junk));
		if (n == 0 && c->fin)
			return 0;
		if (n == 0) {
			c->chup = 1;
			c->until = now + LINGER;
		}
		return n >= 0 || errno == EAGAIN || errno == EINTR;
	}
	if (c->connecting && tre != 0) {
		getsockopt(c->tfd, SOL_SOCKET, SO_ERROR, &e, &elen);
		if (e != 0) {
			proxy_log(c->id, "connect: %s", strerror(e));
			reset_close(c->cfd);
			c->cfd = -1;
			return 0;
		}
		c->connecting = 0;
		tre &= ~POLLOUT;
	}
	/*
	 * A side that hung up after its end of stream can take nothing
	 * more: what was queued for it is dropped, and it is no longer
	 * polled (poll would report the hangup again and again).
	 */
	if ((cre & (POLLHUP | POLLERR)) && c->up.eof) {
		c->chup = c->down.done = 1;
		c->down.nseg = 0;
	}
	if ((tre & (POLLHUP | POLLERR)) && c->down.eof) {
		c->thup = c->up.done = 1;
		c->up.nseg = 0;
	}
	if ((cre & (POLLIN | POLLHUP | POLLERR)) && dir_room(&c->up) &&
	    dir_read(&c->up, c->cfd, now) == -1)
		return 0;
	if (!c->connecting && (tre & (POLLIN | POLLHUP | POLLERR)) &&
	    dir_room(&c->down) && dir_read(&c->down, c->tfd, now) == -1)
		return 0;
	if (!c->connecting && dir_write(&c->up, c->tfd, now) == -1)
		return 0;
	if (dir_write(&c->down, c->cfd, now) == -1)
		return 0;
	return !(c->up.done && c->down.done);
}

static short
conn_events(const struct conn *c, int target, int64_t now)
{
	const struct dir	*in = target ? &c->down : &c->up;
	const struct dir	*out = target ? &c->up : &c->down;
	short			 ev = 0;

	if (c->blackhole)
		return target ? 0 : POLLIN;
	if (target && c->connecting)
		return POLLOUT;
	if (dir_room(in))
		ev |= POLLIN;
	if (dir_wait(out, now) == 0)
		ev |= POLLOUT;
	return ev;
}

static void
usage(void)
{
	fprintf(stderr, "usage: delayproxy [-v] [-d mean[:jitter]] "
	    "[-f ctlfile] [-n maxconn] [-s seed]\n"
	    "\t[-w both|up|down] [-x fraction[:mode]] "
	    "-l addr:port target-addr:port\n");
	exit(64);
}

int
main(int argc, char *argv[])
{
	static const int	 sigs[] = { SIGUSR1, SIGTERM, SIGINT, 0 };
	struct proxy_opts	 po = { .usage = usage };
	sigset_t		 empty;
	struct conn		**conns;
	struct pollfd		*pfd;
	struct timespec		 ts, *tsp;
	char			*m;
	long			 maxconn = 128, id = 0, v;
	int64_t			 now, w, wait;
	int			 ch, lfd, nconn = 0, i, n;

	opt.up = opt.down = 1;
	while ((ch = getopt(argc, argv, "d:f:l:n:s:vw:x:")) != -1) {
		switch (ch) {
		case 'd':
			if (parse_delay(optarg, &opt) == -1)
				errx(64, "-d %s: want MEAN[:JITTER] in ms",
				    optarg);
			break;
		case 'f':
			ctlfile = optarg;
			break;
		case 'n':
			if (proxy_num(optarg, 1, 4096, &maxconn) == -1)
				errx(64, "-n %s: want 1..4096", optarg);
			break;
		case 'w':
			if (parse_dir(optarg, &opt) == -1)
				errx(64, "-w %s: want both, up or down",
				    optarg);
			break;
		case 'x':
			if ((m = strchr(optarg, ':')) != NULL)
				*m++ = '\0';
			if (parse_drop(optarg, m, &opt) == -1)
				errx(64, "-x: want FRACTION (0..1)"
				    "[:close|reset|blackhole]");
			break;
		default:
			/* -l, -s, -v; or usage */
			proxy_opt(&po, ch, optarg);
		}
	}
	proxy_opts_end(&po, argc - optind, argv + optind);
	if ((conns = calloc(maxconn, sizeof(*conns))) == NULL ||
	    (pfd = calloc(2 * maxconn + 1, sizeof(*pfd))) == NULL)
		err(71, "calloc");
	lfd = proxy_listen(&po, SOCK_NONBLOCK, 128);
	proxy_signals(on_signal, sigs, &empty);
	load();

	while (!quit) {
		if (reread) {
			reread = 0;
			load();
		}
		now = proxy_now_ms();
		wait = -1;
		pfd[0].fd = lfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < nconn; i++) {
			pfd[1 + 2 * i].fd = conns[i]->chup ? -1 :
			    conns[i]->cfd;
			pfd[1 + 2 * i].events = conn_events(conns[i], 0, now);
			pfd[2 + 2 * i].fd = conns[i]->thup ? -1 :
			    conns[i]->tfd;
			pfd[2 + 2 * i].events = conn_events(conns[i], 1, now);
			if (conns[i]->until > 0 && (wait == -1 ||
			    conns[i]->until - now < wait))
				wait = conns[i]->until > now ?
				    conns[i]->until - now : 0;
			if ((w = dir_wait(&conns[i]->up, now)) > 0 &&
			    !conns[i]->connecting && (wait == -1 || w < wait))
				wait = w;
			if ((w = dir_wait(&conns[i]->down, now)) > 0 &&
			    (wait == -1 || w < wait))
				wait = w;
		}
		if (wait >= 0) {
			ts.tv_sec = wait / 1000;
			ts.tv_nsec = (wait % 1000) * 1000000;
			tsp = &ts;
		} else
			tsp = NULL;
		n = ppoll(pfd, 1 + 2 * nconn, tsp, &empty);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			err(71, "ppoll");
		}
		now = proxy_now_ms();
		for (i = 0; i < nconn; i++) {
			if (conn_step(conns[i], pfd[1 + 2 * i].revents,
			    pfd[2 + 2 * i].revents, now))
				continue;
			proxy_log(conns[i]->id, "closed");
			conn_free(conns[i]);
			/* Keep the pollfd pairs in step with conns. */
			conns[i] = conns[nconn - 1];
			pfd[1 + 2 * i] = pfd[2 * nconn - 1];
			pfd[2 + 2 * i] = pfd[2 * nconn];
			nconn--;
			i--;
		}
		if (pfd[0].revents & POLLIN) {
			int	 cfd;

			while ((cfd = proxy_accept(lfd, SOCK_NONBLOCK)) != -1) {
				if (nconn == maxconn) {
					close(cfd);
					continue;
				}
				load();
				v = ++id;
				if ((conns[nconn] = conn_new(cfd, &po.tss,
				    po.tlen, v)) != NULL)
					nconn++;
			}
		}
	}
	for (i = 0; i < nconn; i++)
		conn_free(conns[i]);
	free(conns);
	free(pfd);
	close(lfd);
	return 0;
}
