/* SPDX-License-Identifier: ISC */
/*
 * What the test proxies share (tests/delayproxy.c, tests/pathproxy.c,
 * tests/stallproxy.c): test helpers, never installed, none of lib/.
 * Functions that return an int return -1 with errno set when they fail,
 * unless said otherwise.
 */
#ifndef PROXY_H
#define PROXY_H

#include <sys/types.h>
#include <sys/socket.h>

#include <signal.h>
#include <stdint.h>

#define PROXY_BUFSZ	16384	/* bytes read from a side at once */

/* The command line of a proxy with one target, as far as all say it. */
struct proxy_opts {
	void			(*usage)(void);	/* the caller's: exits */
	const char		*listen_at;	/* -l addr:port */
	const char		*seed;		/* -s seed; NULL: none */
	struct sockaddr_storage	 lss, tss;	/* listen on, forward to */
	socklen_t		 llen, tlen;
};

/* Set by -v: proxy_log says something. */
extern int	 proxy_verbose;

/* Take -l, -s or -v with its argument; another option: po->usage. */
void		 proxy_opt(struct proxy_opts *po, int ch, const char *arg);

/*
 * After the options, the operands argv: po->usage unless they are the
 * target alone and -l was given. Seeds proxy_rnd and resolves both
 * addresses, numeric "addr:port" or "[addr6]:port"; exits 64 when one
 * is not.
 */
void		 proxy_opts_end(struct proxy_opts *po, int argc,
		    char *argv[]);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t		 proxy_now_ms(void);

/*
 * Seed proxy_rnd with the number seed says (strtoull, any base), or from
 * the PID and the clock when it is NULL.
 */
void		 proxy_seed(const char *seed);

/* The next of the seeded random numbers. */
uint64_t	 proxy_rnd(void);

/* *v = the decimal number s, 0 when it is one from lo to hi. */
int		 proxy_num(const char *s, long lo, long hi, long *v);

/*
 * A socket (SOCK_STREAM | flags) listening on the address of -l, with
 * backlog; po->lss then holds the address it got, said on stderr as
 * "PROG: listening on ADDR:PORT". It exits 71 when it cannot.
 */
int		 proxy_listen(struct proxy_opts *po, int flags, int backlog);

/* The next connection on lfd (accept4 flags), with TCP_NODELAY. */
int		 proxy_accept(int lfd, int flags);

/* A blocking socket connected to sa. */
int		 proxy_connect(const struct sockaddr *sa, socklen_t salen);

/* All n bytes of p to fd, again after EINTR. */
int		 proxy_write_all(int fd, const void *p, size_t n);

/*
 * fn for each of the signals in sigs (a list ended by 0), blocked from
 * now on, their mask before into *old unless it is NULL; SIGPIPE
 * ignored. A proxy lets them in only in ppoll, so that no flag that fn
 * sets is missed.
 */
int		 proxy_signals(void (*fn)(int), const int *sigs,
		    sigset_t *old);

/* With -v: "PROG: conn ID: " and the message on stderr. */
void		 proxy_log(long id, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

#endif
