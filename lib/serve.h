/* SPDX-License-Identifier: ISC */
/* serve.h: pollguard-serve's side of the peer protocol (doc/PROTOCOL.md). */
#ifndef PG_SERVE_H
#define PG_SERVE_H

#include "conf.h"
#include "proto.h"
#include "state.h"

/*
 * listen.c: parse "addr:port", "[addr]:port" or ":port" (IPv6's any, IPv4
 * too) into *ss (a struct sockaddr_storage). -1 and *errstr on failure.
 */
int	 pg_listen_parse(const char *, void *, const char **);

/*
 * A listening socket (non-blocking, close-on-exec) on that address, IPv4
 * for ":port" without IPv6, with a listen queue of backlog. The address
 * bound ("[::]:8080") in name; -1 and the reason in err on failure.
 */
int	 pg_listen_open(const char *, int, char *, size_t, char *, size_t);

/* Raise the soft limit of open files to want: want, or the limit left. */
uint64_t pg_listen_nofile(uint64_t);

/* serve.c: the answer to a request. Pure but for reading the records. */

#define PG_ADDRSTR_MAX	46	/* INET6_ADDRSTRLEN */
#define PG_LOG_MAX	1024	/* a log line, escaped */

struct pg_client {
	int		 family;	/* AF_INET, AF_INET6; 0: unknown */
	unsigned char	 addr[16];	/* network byte order */
	char		 name[PG_ADDRSTR_MAX];	/* "-" when unknown */
};

/*
 * *c from a struct sockaddr_storage, or from text ("::1", "[::1]" as in
 * $SOCAT_PEERADDR); NULL: unknown. IPv4-mapped IPv6 is IPv4.
 */
void	 pg_client_sockaddr(struct pg_client *, const void *);
void	 pg_client_parse(struct pg_client *, const char *);

/* True when the config's allow list admits the client (no list: all). */
int	 pg_serve_allowed(const struct pg_config *, const struct pg_client *);

struct pg_reply {
	int		 status;
	int		 minor;		/* HTTP/1.minor */
	int		 head;		/* HEAD: no body on the wire */
	const char	*extra;		/* header lines, CRLF each, or NULL */
	char		 hdr[PG_NAME_MAX + 32];	/* what extra may point to */
	char		*body;		/* malloc'd, or NULL */
	size_t		 bodylen;
	int		 level;		/* syslog priority of log; -1: none */
	char		 log[PG_LOG_MAX];	/* escaped, no newline */
	char		 err[PG_LOG_MAX];	/* damaged records (LOG_ERR), or
						   "" */
};

/*
 * The answer to in[0..inlen), of which pg_request_parse said status (and
 * req), or 408, or 400 (closed early). Allow list first (403, req may be
 * NULL), then credentials, then the route. Records come from st (NULL:
 * none). Free with pg_reply_free.
 */
void	 pg_serve_answer(int, const struct pg_request *, const char *, size_t,
	    const struct pg_client *, const struct pg_config *,
	    struct pg_state *, struct pg_reply *);

/* A bare error answer (500, 503): the reason phrase as body, no log. */
void	 pg_reply_error(struct pg_reply *, int);

/* The bytes on the wire, malloc'd: 0, or -1 with errno. */
int	 pg_reply_format(const struct pg_reply *, char **, size_t *);
void	 pg_reply_free(struct pg_reply *);

/*
 * conn.c: one client connection, polled by pollguard-serve. A call that
 * answers returns 1, the log lines then in c->reply (level, log, err).
 */

/* The lingering close: at most this long, and this many bytes. */
#define PG_CONN_DRAIN_MS	1000
#define PG_CONN_DRAIN_MAX	(64 * 1024)

enum pg_conn_state {
	PG_CONN_READ,		/* reading the request head: poll for input */
	PG_CONN_WRITE,		/* writing the answer: poll for output */
	PG_CONN_DRAIN,		/* sent: read what the client still sends */
	PG_CONN_DONE		/* to be freed */
};

struct pg_conn {
	int		 rfd, wfd;	/* the same socket, or stdin, stdout */
	enum pg_conn_state state;
	int64_t		 deadline;	/* ms of PG_CONN_CLOCK */
	char		*in;
	size_t		 inlen, incap;
	char		*out;
	size_t		 outlen, outoff;
	size_t		 drained;
	int		 whole;		/* read: one whole head, nothing more */
	struct pg_client client;
	struct pg_reply	 reply;		/* once answered: the log lines */
};

/* The clock of deadlines. */
#define PG_CONN_CLOCK	CLOCK_MONOTONIC

/*
 * A connection read from rfd, answered on wfd, from the client at from
 * (NULL: the socket's peer, or $SOCAT_PEERADDR). One cfg refuses is
 * answered 403 at once (PG_CONN_WRITE). cfg NULL: the caller answers.
 * NULL with errno when out of memory; the descriptors stay open.
 */
struct pg_conn	*pg_conn_new(int, int, const void *, const struct pg_config *);

/* Answer with r, freed here, within cfg's timeout (NULL: DRAIN_MS). */
void	 pg_conn_reply(struct pg_conn *, struct pg_reply *,
	    const struct pg_config *);

/*
 * c's descriptor is ready: read (answer once the head is complete or
 * cannot be; an end of input with nothing read is PG_CONN_DONE), or drain
 * once. Records from cfg's state directory, held in *st.
 */
int	 pg_conn_ready(struct pg_conn *, const struct pg_config *,
	    struct pg_state *);

/* Past the deadline at now: 408 for a request being read, else DONE. */
int	 pg_conn_expire(struct pg_conn *, int64_t, const struct pg_config *,
	    struct pg_state *);

/* Write what the client takes; once all is out, drain or close. */
void	 pg_conn_write(struct pg_conn *);

/* Close rfd (wfd is the same socket, or stdout) and free c. */
void	 pg_conn_free(struct pg_conn *);

/*
 * Refuse a connection (fd, from) beyond nconn open ones: a 503 if it
 * fits in the socket, then close fd. r holds the log line.
 */
void	 pg_conn_refuse(int, const void *, int, struct pg_reply *);

/*
 * Accept a connection on lfd into conns (*n of max; one more is refused)
 * and read it at once. 0 and *log, the reply to log or NULL; -1 with
 * errno when none was accepted (EAGAIN: none waits).
 */
int	 pg_conn_accept(int, struct pg_conn **, size_t *, size_t,
	    const struct pg_config *, struct pg_state *, struct pg_reply *,
	    const struct pg_reply **);

/* 1 when fd is a socket, as inetd, systemd (Accept=yes) and socat give. */
int	 pg_conn_is_socket(int);

/*
 * Become user (run_as; "" or not root: stay), after binding. 0, or the
 * exit status (EX_NOUSER, EX_OSERR) and why in err.
 */
int	 pg_drop_privileges(const char *, char *, size_t);

#endif /* PG_SERVE_H */
