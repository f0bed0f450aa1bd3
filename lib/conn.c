/* SPDX-License-Identifier: ISC */
/* One client connection of pollguard-serve, and the user it runs as. */
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"

/* The deadline ms from now; without a clock, end rather than linger. */
static void
deadline(struct pg_conn *c, int64_t ms)
{
	int64_t	 ns;

	if (pg_clock(PG_CONN_CLOCK, &ns) == -1)
		c->state = PG_CONN_DONE;
	else
		c->deadline = ns / 1000000 + ms;
}

struct pg_conn *
pg_conn_new(int rfd, int wfd, const void *from, const struct pg_config *cfg)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof(ss);
	struct pg_reply		 r;
	struct pg_conn		*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->rfd = rfd;
	c->wfd = wfd;
	c->reply.level = -1;
	deadline(c, cfg != NULL ? cfg->timeout_ms : PG_CONN_DRAIN_MS);
	if (from == NULL && getpeername(rfd, (struct sockaddr *)&ss,
	    &len) == 0)
		from = &ss;
	pg_client_sockaddr(&c->client, from);
	/* socat's EXEC hands over a socket pair, not the socket. */
	if (c->client.family == 0)
		pg_client_parse(&c->client, getenv("SOCAT_PEERADDR"));
	if (cfg != NULL && !pg_serve_allowed(cfg, &c->client)) {
		pg_serve_answer(403, NULL, NULL, 0, &c->client, cfg, NULL, &r);
		pg_conn_reply(c, &r, cfg);
	}
	return c;
}

void
pg_conn_reply(struct pg_conn *c, struct pg_reply *r,
    const struct pg_config *cfg)
{
	if (pg_reply_format(r, &c->out, &c->outlen) == -1)
		c->outlen = 0;
	pg_reply_free(r);
	c->reply = *r;
	c->reply.extra = NULL;	/* it may point into r */
	c->outoff = 0;
	c->state = PG_CONN_WRITE;
	deadline(c, cfg != NULL ? cfg->timeout_ms : PG_CONN_DRAIN_MS);
}

/* status of req, or 400 or 408 (req NULL: parse the input so far). */
static int
answer(struct pg_conn *c, int status, const struct pg_request *req,
    const struct pg_config *cfg, struct pg_state *st)
{
	struct pg_request	 part;
	struct pg_reply		 r;
	const char		*in = c->in != NULL ? c->in : "";

	if (req == NULL) {
		pg_request_parse(in, c->inlen, &part);
		req = &part;
	}
	pg_serve_answer(status, req, in, c->inlen, &c->client, cfg,
	    pg_serve_state(st, cfg->state), &r);
	pg_conn_reply(c, &r, cfg);
	return 1;
}

/* Read what is there; answer once the head is complete or cannot be. */
static int
conn_read(struct pg_conn *c, const struct pg_config *cfg,
    struct pg_state *st)
{
	struct pg_request	 req;
	char			*nb;
	ssize_t			 n;
	int			 status;

	if (c->inlen == c->incap) {
		/* The parser decides long before the buffer is full. */
		c->incap = c->incap == 0 ? 1024 : c->incap * 2;
		if (c->incap > PG_REQ_HEAD_MAX + 1)
			c->incap = PG_REQ_HEAD_MAX + 1;
		if (c->inlen == c->incap ||
		    (nb = realloc(c->in, c->incap)) == NULL)
			return answer(c, 400, NULL, cfg, st);
		c->in = nb;
	}
	n = read(c->rfd, c->in + c->inlen, c->incap - c->inlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0 && c->inlen == 0) {
		c->state = PG_CONN_DONE;
		return 0;
	}
	if (n <= 0)
		return answer(c, 400, NULL, cfg, st);
	if ((status = pg_request_parse(c->in, c->inlen += n, &req)) != 0) {
		c->whole = status == 200 && req.used == c->inlen;
		return answer(c, status, &req, cfg, st);
	}
	return 0;
}

/* One read per call: under inetd the descriptor may block. */
static void
drain(struct pg_conn *c)
{
	char	 buf[4096];
	ssize_t	 n;

	n = read(c->rfd, buf, sizeof(buf));
	if (n > 0 && (c->drained += n) < PG_CONN_DRAIN_MAX)
		return;
	if (n >= 0 || (errno != EAGAIN && errno != EINTR))
		c->state = PG_CONN_DONE;
}

int
pg_conn_ready(struct pg_conn *c, const struct pg_config *cfg,
    struct pg_state *st)
{
	if (c->state == PG_CONN_READ)
		return conn_read(c, cfg, st);
	if (c->state == PG_CONN_DRAIN)
		drain(c);
	return 0;
}

int
pg_conn_expire(struct pg_conn *c, int64_t now, const struct pg_config *cfg,
    struct pg_state *st)
{
	if (now < c->deadline)
		return 0;
	if (c->state == PG_CONN_READ)
		return answer(c, 408, NULL, cfg, st);
	c->state = PG_CONN_DONE;
	return 0;
}

/* doc/PROTOCOL.md, How pollguard implements it: The connection. */
static int
nothing_to_drain(struct pg_conn *c)
{
	char	 b;
	ssize_t	 n;

	if (!c->whole || c->rfd != c->wfd)
		return 0;
	n = recv(c->rfd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n == -1 && (errno == EAGAIN ||
	    errno == EWOULDBLOCK));
}

void
pg_conn_write(struct pg_conn *c)
{
	ssize_t	 n;

	while (c->outoff < c->outlen) {
		n = write(c->wfd, c->out + c->outoff, c->outlen - c->outoff);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			c->state = PG_CONN_DONE;
			return;
		}
		c->outoff += n;
	}
	c->state = nothing_to_drain(c) || shutdown(c->wfd, SHUT_WR) == -1 ?
	    PG_CONN_DONE : PG_CONN_DRAIN;
	deadline(c, PG_CONN_DRAIN_MS);
}

int
pg_conn_is_socket(int fd)
{
	struct stat	 sb;

	return fstat(fd, &sb) == 0 && S_ISSOCK(sb.st_mode);
}

void
pg_conn_free(struct pg_conn *c)
{
	close(c->rfd);
	free(c->in);
	free(c->out);
	free(c);
}

void
pg_conn_refuse(int fd, const void *from, int nconn, struct pg_reply *r)
{
	struct pg_client	 client;
	char			 buf[256], *out;
	size_t			 len;
	int			 drained = 0;

	pg_client_sockaddr(&client, from);
	/* Unread, it would make the close a reset, the 503 lost with it. */
	while (read(fd, buf, sizeof(buf)) > 0 && ++drained < 32)
		;
	pg_reply_error(r, 503);
	/* Best effort: a client that does not read it misses nothing. */
	if (pg_reply_format(r, &out, &len) == 0) {
		if (write(fd, out, len) == -1 && errno != EAGAIN)
			len = 0;
		free(out);
	}
	pg_reply_free(r);
	close(fd);
	r->client = client;
	r->level = LOG_NOTICE;
	snprintf(r->log, sizeof(r->log), "client %s: 503 Service Unavailable "
	    "(%d connections open)", client.name, nconn);
}

int
pg_conn_accept(int lfd, struct pg_conn **conns, size_t *n, size_t max,
    const struct pg_config *cfg, struct pg_state *st, struct pg_reply *r,
    const struct pg_reply **log)
{
	struct sockaddr_storage	 from;
	struct pg_conn		*c;
	socklen_t		 len;
	int			 fd;

	*log = NULL;
	len = sizeof(from);
	memset(&from, 0, sizeof(from));
	if ((fd = accept4(lfd, (struct sockaddr *)&from, &len,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1)
		return -1;
	if (*n == max) {
		pg_conn_refuse(fd, &from, (int)max, r);
		*log = r;
	} else if ((c = pg_conn_new(fd, fd, &from, cfg)) == NULL)
		close(fd);
	else {
		/* The request is usually here already: no poll for it. */
		if (c->state == PG_CONN_WRITE ||	/* refused: 403 */
		    pg_conn_ready(c, cfg, st))
			*log = &c->reply;
		conns[(*n)++] = c;
	}
	return 0;
}

#define UID_NOBODY	65534	/* nobody, nfsnobody: the overflow uid */

int
pg_drop_privileges(const char *user, char *err, size_t elen)
{
	struct passwd	*pw;

	if (geteuid() != 0 || user[0] == '\0')
		return 0;
	if ((pw = getpwnam(user)) == NULL) {
		snprintf(err, elen, "run_as: no user '%s'", user);
		return EX_NOUSER;
	}
	/* nobody under another name: pollguard.conf(5), SECURITY. */
	if (pw->pw_uid == UID_NOBODY) {
		snprintf(err, elen, "run_as %s: uid %lu is nobody's, shared "
		    "with other daemons; make a user for pollguard alone",
		    user, (unsigned long)pw->pw_uid);
		return EX_CONFIG;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) == -1 ||
	    setgid(pw->pw_gid) == -1 || setuid(pw->pw_uid) == -1) {
		snprintf(err, elen, "run_as %s: %s", user, strerror(errno));
		return EX_OSERR;
	}
	/* Check: a setuid that leaves a way back to root dropped nothing. */
	if (getuid() != pw->pw_uid || geteuid() != pw->pw_uid ||
	    getgid() != pw->pw_gid || getegid() != pw->pw_gid ||
	    (pw->pw_uid != 0 && setuid(0) != -1)) {
		snprintf(err, elen, "run_as %s: privileges not dropped", user);
		return EX_OSERR;
	}
	return 0;
}
