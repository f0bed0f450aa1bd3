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

/*
 * pidfile.c: the pidfile of standalone mode. open: create or open it and
 * lock it, never through a symbolic link (ELOOP), refusing what is not a
 * regular file of the effective user (EPERM): a descriptor, or -1 with
 * errno and in err "FILE: why"; another process holds it: EEXIST and its
 * PID in *other (0: not yet written). write: this process's PID into it.
 * remove: unlink it while it is still fd's file, and close fd.
 */
int	 pg_pidfile_open(const char *, pid_t *, char *, size_t);
int	 pg_pidfile_write(int);
void	 pg_pidfile_remove(int, const char *);

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
	struct pg_client client;	/* whom it answers, for the log */
	int		 status;
	int		 minor;		/* HTTP/1.minor */
	int		 head;		/* HEAD: no body on the wire */
	const char	*extra;		/* header lines, CRLF each, or NULL */
	char		 hdr[PG_NAME_MAX + 32];	/* what extra may point to */
	char		 hdrs[256];	/* extra and Pollguard-Nonce */
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
 * loglimit.c: the lines a flood of refusals logs, bounded (pollguard-serve(8),
 * LOGGING). In a minute, from each client address, the first line of each
 * kind (a status, or PG_LOGLIM_ERRORS: a record that could not be read) is
 * logged, up to PG_LOGLIM_LINES lines in all; the others are counted, and
 * summed up when the minute is over, one line a client: "N more refused
 * from ADDR in the last minute (503 x N)". PG_LOGLIM_CLIENTS addresses are
 * told apart in a minute; the lines of any other are only counted, in one
 * line for "other clients". So a minute takes at most PG_LOGLIM_LINES +
 * PG_LOGLIM_CLIENTS + 1 lines. Minutes and now are ms of PG_CONN_CLOCK.
 */
#define PG_LOGLIM_MINUTE	60000
#define PG_LOGLIM_LINES		40
#define PG_LOGLIM_CLIENTS	16
#define PG_LOGLIM_KINDS		12
#define PG_LOGLIM_ERRORS	0	/* the kind of an error of a 200 */
#define PG_LOGLIM_SUMMARY_MAX	400	/* a summary line, with its NUL */

struct pg_loglim_client {
	uint32_t	 used;
	int32_t		 family;	/* as pg_client; 0: address unknown */
	unsigned char	 addr[16];
	uint32_t	 logged;	/* the kinds logged, a bit each */
	uint32_t	 count[PG_LOGLIM_KINDS];	/* not logged */
};

/* Plain data: under inetd it is a file, shared by the processes. */
struct pg_loglim {
	uint32_t	 magic, size;
	int64_t		 start;		/* the minute's; 0: none begun */
	uint32_t	 lines;		/* logged in it */
	uint32_t	 next;		/* the next summary to give */
	struct pg_loglim_client	 c[PG_LOGLIM_CLIENTS + 1]; /* last: others */
};

void	 pg_loglim_init(struct pg_loglim *);

/*
 * Once the minute is over at now, its summaries, one into buf per call: 1;
 * then 0, and the next minute begins with the next line admitted. Call it
 * before pg_loglim_admit.
 */
int	 pg_loglim_summary(struct pg_loglim *, int64_t, char *, size_t);

/*
 * A line of status (or PG_LOGLIM_ERRORS) from client c at now, n lines
 * long: 1 to log it, or 0: it is counted instead.
 */
int	 pg_loglim_admit(struct pg_loglim *, int64_t, const struct pg_client *,
	    int, int);

/* When summaries are due; INT64_MAX when nothing is counted. */
int64_t	 pg_loglim_due(const struct pg_loglim *);

/*
 * Both at once: the summaries due into sum (*nsum of them, at most
 * PG_LOGLIM_CLIENTS + 1), then the line of c (NULL: none) admitted: 1 or
 * 0, as pg_loglim_admit (1 for none).
 */
int	 pg_loglim_step(struct pg_loglim *, int64_t, const struct pg_client *,
	    int, int, char [][PG_LOGLIM_SUMMARY_MAX], size_t *);

/*
 * The record shared by the processes of inetd mode: the file serve-log in
 * the directory dir, which must be trusted (pg_trust), created there, or
 * opened when it is a regular file of the effective user and nothing else
 * (no symbolic link followed). open: a descriptor, or -1 with errno and
 * "DIR/serve-log: why" in err. load: lock it (waiting PG_LOGLIM_WAIT
 * seconds at most, polling less often as it waits: else -1 with
 * EWOULDBLOCK) and read it into *ll; what is not such a record (empty,
 * damaged, another version) reads as a new one. save: write *ll back
 * and unlock.
 */
#define PG_LOGLIM_FILE	"serve-log"
#define PG_LOGLIM_WAIT	10
int	 pg_loglim_open(const char *, char *, size_t);
int	 pg_loglim_load(int, struct pg_loglim *);
int	 pg_loglim_save(int, const struct pg_loglim *);

/*
 * pg_loglim_step on the record in $RUNTIME_DIRECTORY (as systemd sets it
 * for RuntimeDirectory=), else in PG_LOGLIM_DIR, in one open, load and
 * save. When it cannot be used (no such directory): *nsum 0, and 1.
 */
#define PG_LOGLIM_DIR	"/run/pollguard"
int	 pg_loglim_shared(int64_t, const struct pg_client *, int, int,
	    char [][PG_LOGLIM_SUMMARY_MAX], size_t *);

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
 * exit status (EX_NOUSER, EX_OSERR; EX_CONFIG: uid 65534) and why in err.
 */
int	 pg_drop_privileges(const char *, char *, size_t);

#endif /* PG_SERVE_H */
