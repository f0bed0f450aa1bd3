/* SPDX-License-Identifier: ISC */
/*
 * base.h: what every layer of the library (lib/pollguard.h) uses: limits,
 * clocks, durations, names and the "key value" text format.
 *
 * Every function of the library never exits and never prints; one that
 * returns int returns 0, or -1 with the reason in errno or in the
 * caller's error buffer, unless its declaration says otherwise.
 */
#ifndef PG_BASE_H
#define PG_BASE_H

#include <sys/types.h>

#include <limits.h>
#include <time.h>
#include <stddef.h>
#include <stdint.h>

#ifndef PG_VERSION
#error "PG_VERSION is not defined: build with make, which reads VERSION"
#endif

#define PG_NAME_MAX	64	/* cluster IDs, peer and node names */
#define PG_VALUE_MAX	200	/* inih reads at most 199 characters a line */
#define PG_ERR_MAX	512	/* size for error buffers */
#define PG_WHY_MAX	160	/* what a peer said, for people */
#define PG_NEVER	INT64_MAX	/* elapsed: never active */
#define PG_WAIT_MIN_MS	(10LL * 1000)	/* a cluster's wait, at least */
#define PG_WAIT_MAX_MS	(30LL * 24 * 3600 * 1000)	/* and at most */

/* clock.c: a clock (CLOCK_BOOTTIME, ...) in nanoseconds into *ns. */
int	 pg_clock(clockid_t, int64_t *);

/*
 * duration.c: a decimal integer and a unit ms, s, m, h or d (none: s),
 * from min to max, in ms into *ms; or -1 and *errstr "invalid", "too
 * small" or "too large", as strtonum(3).
 */
int	 pg_duration_parse(const char *, int64_t, int64_t, int64_t *,
	    const char **);

/*
 * Format milliseconds for people, in at most two units and leaving out
 * what is zero: "250ms", "3.2s", "10s", "12m5s", "2h", "3d4h"; PG_NEVER
 * formats as "never". Negative or truncated: -1.
 */
int	 pg_duration_format(int64_t, char *, size_t);

/*
 * For a message: pg_duration_format into buf (PG_DURATION_MAX), or "?";
 * returns buf.
 */
#define PG_DURATION_MAX	32
const char	*pg_duration_text(int64_t, char *);

/*
 * A cluster ID: 1 to PG_NAME_MAX of [A-Za-z0-9._-], not starting with
 * '.' or '-' (IDs name files and URL segments, and are arguments).
 */
int	 pg_cluster_id_valid(const char *);

/* The same rule for peer and node names. */
int	 pg_peer_name_valid(const char *);

/*
 * The time from now to the earliest of at[0..n) that is set (> 0), at
 * least 0; with none set, to INT64_MAX.
 */
int64_t	 pg_time_left(int64_t, const int64_t *, size_t);

/*
 * kv.c: lines of a key (1 to PG_KV_KEY_MAX of [a-z0-9_]), one space and
 * a value: the side and lease records and the status answer. No I/O.
 */

/*
 * Append printf-formatted text to buf (len bytes) at *off and advance
 * *off: 0, or -1 and *off unchanged when it does not fit.
 */
int	 pg_appendf(char *, size_t, size_t *, const char *, ...)
	    __attribute__((__format__(__printf__, 4, 5)));

/* The end of a formatter: off, or -1 with ENAMETOOLONG when r is not 0. */
int	 pg_kv_done(int, size_t);

#define PG_KV_KEY_MAX	32	/* a key's length */
#define PG_KV_CRLF	0x1	/* a CR before a line's LF is not part of it */
#define PG_KV_BLANK	0x2	/* a blank line ends the block (else: SYNTAX) */
#define PG_KV_STRICT	0x4	/* an unknown key is an error (else: skipped) */

enum pg_kv_error {
	PG_KV_NO_LF = 1,	/* the last line has no LF */
	PG_KV_LONG,		/* longer than line_max, or a NUL in it */
	PG_KV_SYNTAX,		/* not "key value" */
	PG_KV_UNKNOWN,		/* PG_KV_STRICT: a key not known */
	PG_KV_TWICE		/* a known key again */
};

/* A reader of lines; the fields after flags say what it read last. */
struct pg_kv {
	const char		*p;		/* the next line */
	const char		*end;
	const char *const	*keys;		/* NULL last; 32 at most */
	int			 flags;		/* PG_KV_* */
	size_t			 line_max;	/* without its end; 0: any */
	unsigned int		 seen;		/* a bit per known key read */
	size_t			 nline;		/* lines read, from 1 */
	const char		*line;		/* that line, without its end */
	size_t			 len;
	unsigned int		 key;		/* its key's index in keys */
	const char		*val;		/* its value, val[0..vlen) */
	size_t			 vlen;
	enum pg_kv_error	 error;		/* why pg_kv_next said -1 */
};

/* Read the lines of buf[0..len) with these keys and flags. */
void	 pg_kv_init(struct pg_kv *, const char *, size_t, const char *const *,
	    int);

/*
 * A file: at most max bytes, the line magic (with its LF), then keys.
 * 0, or -1 when it is not such a file (errno untouched).
 */
int	 pg_kv_begin(struct pg_kv *, const char *, size_t, size_t,
	    const char *, const char *const *, int);

/*
 * The next line of a known key: 1, with key and val set. 0 at the end
 * (or a blank line, with PG_KV_BLANK). -1 with error (PG_KV_TWICE: key
 * says which).
 */
int	 pg_kv_next(struct pg_kv *);

/* True when each of the n bytes at s is from lo to hi. */
int	 pg_bytes_within(const char *, size_t, char, char);

/*
 * A number from lo to hi, all of s[0..n): 1 to 19 decimal digits. 0 and
 * *v, or -1 with *v 0 (errno untouched either way).
 */
int	 pg_kv_num(const char *, size_t, int64_t, int64_t, int64_t *);

#endif /* PG_BASE_H */
