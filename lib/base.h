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
 * The bound on a clock's rate, in ppm (doc/SAFETY.md, section 3): the
 * oscillator's PG_RATE_BASE, plus what the kernel applies (a tick other
 * than nominal, the frequency offset), plus PG_RATE_SLEW while it slews
 * an offset. At most PG_RATE_MAX; a peer that says none counts as BASE.
 */
#define PG_RATE_BASE	500
#define PG_RATE_SLEW	500
#define PG_RATE_MAX	500000
/* Beside a peer before 0.5, this node's own bound must stay within. */
#define PG_RATE_OLD	1500

/*
 * The bound of adjtimex(2)'s answers to modes 0 (tx) and, unless NULL,
 * ADJ_OFFSET_SS_READ (ss), at hz ticks a second (sysconf _SC_CLK_TCK).
 */
struct timex;
int64_t	 pg_clock_rate_of(const struct timex *, const struct timex *, long);

/* This node's bound now, into *ppm: adjtimex(2), read only. */
int	 pg_clock_rate(int64_t *);

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
 * trust.c: a file the tools may act on (pollguard.conf(5), SECURITY
 * CONSIDERATIONS), as sshd's StrictModes has it.
 *
 * pg_trust_open: open path (absolute, or relative to the working
 * directory) by walking it from /, one name at a time, with openat(2)
 * from the directory before and never through a symbolic link (OpenSSH's
 * safe_path, on descriptors): each directory on the way is owned by root
 * or the effective user and writable by neither group nor others, save
 * that one with the sticky bit (/tmp) may be writable by all; a symbolic
 * link is followed only when root or the effective user owns it, at most
 * PG_TRUST_LINKS of them; the file itself is owned so and writable by
 * neither group nor others. What is checked is what is opened. how:
 * PG_TRUST_DIR, a directory, opened O_RDONLY (oflags unused); with
 * PG_TRUST_MKDIR it is made, 0755, when absent. PG_TRUST_PARENT: the
 * descriptor (O_PATH) of the directory that holds the last name, which
 * goes to last (NAME_MAX + 1 bytes) and is neither opened nor followed.
 * Else the file, opened with oflags and O_NOFOLLOW; with PG_TRUST_REG it
 * must be a regular file (EINVAL), as a config must. Its path with no link
 * in it (the directory's, with PG_TRUST_PARENT) goes to real (PATH_MAX
 * bytes) unless it is NULL. pg_trust: the same checks for a file already
 * open as fd, named path; EAGAIN when path no longer leads to it.
 * pg_trust_file: fd's owner is root or the effective user, and group
 * and others cannot write it (path for the chmod hint). A descriptor, or 0;
 * or -1 with errno (EPERM: not to be trusted; EAGAIN: replaced meanwhile)
 * and in err what is wrong, for the caller to put after the file's name:
 * "owned by nobody (uid 65534), mode 0666: ...", "the directory D above
 * it is ...", always with the owner and the mode.
 */
#define PG_TRUST_DIR	0x1
#define PG_TRUST_MKDIR	0x2
#define PG_TRUST_PARENT	0x4
#define PG_TRUST_REG	0x8
#define PG_TRUST_LINKS	40

int	 pg_trust_open(const char *, int, int, char *, char *, char *,
	    size_t);
int	 pg_trust(int, const char *, char *, char *, size_t);
int	 pg_trust_file(int, const char *, char *, size_t);

/* A user for a message: "root", "NAME (uid N)" or "uid N"; buf. */
const char	*pg_user_text(uid_t, char *, size_t);

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
