/* SPDX-License-Identifier: ISC */
/* serve.h: pollguard-serve's side of the peer protocol. */
#ifndef PG_SERVE_H
#define PG_SERVE_H

#include "conf.h"
#include "proto.h"
#include "state.h"

/* listen.c: the address pollguard-serve listens on, and its open files. */

/*
 * Parse "addr:port" (IPv4), "[addr]:port" (IPv6) or ":port" (every
 * address: IPv6's any, which takes IPv4 too) into *ss (a struct
 * sockaddr_storage), port 0 to 65535. On failure return -1 and point
 * *errstr at why ("not [addr]:port", "port invalid", "not an IPv4
 * address", ...).
 */
int	 pg_listen_parse(const char *, void *, const char **);

/*
 * A listening TCP socket (non-blocking, close-on-exec, SO_REUSEADDR) on
 * the address of pg_listen_parse; ":port" falls back to IPv4 where the
 * kernel has no IPv6, with a listen queue of backlog connections (the
 * kernel caps it at net.core.somaxconn). Store the address bound
 * ("127.0.0.1:8080", "[::]:8080") in name. -1 and the reason in err on
 * failure.
 */
int	 pg_listen_open(const char *, int, char *, size_t, char *, size_t);

/*
 * Raise the soft limit of open files to want, as far as the hard limit
 * allows. Returns want when that many fit, or when the limits cannot be
 * read; else the lower limit in force.
 */
uint64_t pg_listen_nofile(uint64_t);

/*
 * serve.c: the answer to a request. Pure but for reading the state
 * records: no sockets, no syslog, no exits. pollguard-serve, the unit
 * tests and the fuzzer all get their answers from here.
 */

#define PG_ADDRSTR_MAX	46	/* INET6_ADDRSTRLEN */
#define PG_LOG_MAX	1024	/* a log line, escaped */

/* The client: its address as the allow list sees it, and for the log. */
struct pg_client {
	int		 family;	/* AF_INET, AF_INET6; 0: unknown */
	unsigned char	 addr[16];	/* network byte order */
	char		 name[PG_ADDRSTR_MAX];	/* "-" when unknown */
};

/*
 * Set *c from a socket address (struct sockaddr_storage, or NULL:
 * unknown), or from a printable one ("192.0.2.1", "::1", "[::1]" as
 * socat's SOCAT_PEERADDR has it; NULL or not an address: unknown). An
 * IPv4-mapped IPv6 address is the IPv4 address.
 */
void	 pg_client_sockaddr(struct pg_client *, const void *);
void	 pg_client_parse(struct pg_client *, const char *);

/* True when the config's allow list admits the client (no list: all). */
int	 pg_serve_allowed(const struct pg_config *, const struct pg_client *);

struct pg_reply {
	int		 status;
	int		 minor;		/* of the status line: HTTP/1.minor */
	int		 head;		/* HEAD: no body on the wire */
	const char	*extra;		/* header lines, CRLF each, or NULL */
	char		 hdr[PG_NAME_MAX + 32];	/* what extra may point to */
	char		*body;		/* malloc'd, or NULL */
	size_t		 bodylen;	/* Content-Length */
	int		 level;		/* syslog priority of log; -1: none */
	char		 log[PG_LOG_MAX];	/* escaped, no newline */
	char		 err[PG_LOG_MAX];	/* a damaged record, for
						   LOG_ERR, escaped; "" when
						   none */
};

/*
 * The answer to a client's request. status is what pg_request_parse said
 * of in[0..inlen) (req filled in by it), or 408 (deadline passed) or 400
 * (the client closed mid-request). The allow list is checked first: a
 * refused client gets 403 whatever it sent, and req may then be NULL.
 * Then credentials (401), then the route: /v1/elapsed/CLUSTER (404
 * unknown; its body "never\n" or milliseconds), /v1/elapsed,
 * /v1/status/CLUSTER, /v1/status (doc/PROTOCOL.md), /metrics.
 * Records are read from st (NULL: none, every cluster is never); a
 * damaged one is 500 for its cluster and in r->err. The log line names
 * the client, the status and the request line as far as it came.
 * Free with pg_reply_free.
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
 * conn.c: one client connection. pollguard-serve polls; these accept it,
 * read the request head (at most PG_REQ_HEAD_MAX bytes, within the
 * config's timeout), answer it (pg_serve_answer), write the answer and
 * close lingering. A call that answers returns 1, and the answer's log
 * lines are then in c->reply (level, log, err) for the caller to log.
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
 * A connection read from rfd and answered on wfd, from the client at
 * from (a struct sockaddr_storage; NULL: the socket's peer, else socat's
 * $SOCAT_PEERADDR). A client the allow list of cfg refuses is answered
 * 403 at once, before it can hold a slot until the deadline: its state
 * is then PG_CONN_WRITE and c->reply is to be logged. cfg NULL: no config
 * to answer from, the caller answers (pg_conn_reply). NULL with errno
 * when out of memory; the descriptors stay open.
 */
struct pg_conn	*pg_conn_new(int, int, const void *, const struct pg_config *);

/*
 * Answer with r, freed here: write it from now on, within the timeout of
 * cfg (NULL: PG_CONN_DRAIN_MS).
 */
void	 pg_conn_reply(struct pg_conn *, struct pg_reply *,
	    const struct pg_config *);

/*
 * c's descriptor is ready. PG_CONN_READ: read, and answer once the head
 * is complete or cannot be; the client's end of input before that is a
 * bad request (400), or with nothing read PG_CONN_DONE (no request, no
 * answer). Records come from the state directory of cfg, held in *st
 * (pg_serve_state). PG_CONN_DRAIN: one read, so that a blocking
 * descriptor blocks once; done at the client's end of input, an error,
 * or once PG_CONN_DRAIN_MAX bytes were read. 1 when answered, else 0.
 */
int	 pg_conn_ready(struct pg_conn *, const struct pg_config *,
	    struct pg_state *);

/*
 * At now (ms of PG_CONN_CLOCK) past the deadline: a request still being read
 * is answered 408 (return 1); any other connection is PG_CONN_DONE.
 * Else, and before the deadline, 0.
 */
int	 pg_conn_expire(struct pg_conn *, int64_t, const struct pg_config *,
	    struct pg_state *);

/*
 * PG_CONN_WRITE: write what the client takes; once all is out, drain
 * (PG_CONN_DRAIN, at most PG_CONN_DRAIN_MS) or close at once
 * (PG_CONN_DONE) when there is nothing to drain.
 */
void	 pg_conn_write(struct pg_conn *);

/* Close rfd (wfd is the same socket, or stdout) and free c. */
void	 pg_conn_free(struct pg_conn *);

/*
 * Refuse a connection (fd, from accept; client address from) beyond the
 * limit of nconn open ones: read what it already sent, a 503 if it fits
 * in the socket, close fd. r holds the log line (LOG_NOTICE).
 */
void	 pg_conn_refuse(int, const void *, int, struct pg_reply *);

/*
 * Accept a connection waiting on the listening socket lfd (non-blocking)
 * into conns, which hold *n of at most max, and read at once what it has
 * sent; one beyond max is refused (pg_conn_refuse, into *r). 0 and *log:
 * the reply to log (*r, or the new connection's), or NULL (none yet, or
 * no memory for it: closed). -1 with errno when none was accepted
 * (EAGAIN: none is waiting; EMFILE, ENFILE: out of descriptors).
 */
int	 pg_conn_accept(int, struct pg_conn **, size_t *, size_t,
	    const struct pg_config *, struct pg_state *, struct pg_reply *,
	    const struct pg_reply **);

/* 1 when fd is a socket, as inetd, systemd (Accept=yes) and socat give. */
int	 pg_conn_is_socket(int);

/*
 * Become user (the config's run_as; "" or not root: stay as is), after
 * binding and before any connection is read. 0, or the exit status
 * (EX_NOUSER: no such user, EX_OSERR: not dropped) and why in err.
 */
int	 pg_drop_privileges(const char *, char *, size_t);

#endif /* PG_SERVE_H */
