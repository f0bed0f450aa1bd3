/* SPDX-License-Identifier: ISC */
/*
 * pollguard: the core library shared by pollguard-check, pollguard-touch
 * and pollguard-serve. Sections follow the source files.
 *
 * Contract for every function here: it never exits and never prints.
 * Functions returning int return 0 on success and -1 on failure unless
 * stated otherwise; the reason is in errno or in the caller's error
 * buffer, as each declaration says.
 */
#ifndef POLLGUARD_H
#define POLLGUARD_H

#include <sys/types.h>

#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stddef.h>
#include <stdint.h>

/* The release, from the file VERSION: the Makefile passes it. */
#ifndef PG_VERSION
#error "PG_VERSION is not defined: build with make, which reads VERSION"
#endif
#ifndef PG_SYSCONFDIR
#define PG_SYSCONFDIR		"/etc"		/* make SYSCONFDIR=... */
#endif
#define PG_CONF_DEFAULT		PG_SYSCONFDIR "/pollguard.conf"
#define PG_STATE_DEFAULT	"/var/lib/pollguard"
#define PG_CONF_ENV		"POLLGUARD_CONF"

#define PG_NAME_MAX	64	/* cluster IDs, peer and node names */
#define PG_VALUE_MAX	200	/* inih reads at most 199 characters a line */
#define PG_PEERS_MAX	256
#define PG_CLUSTERS_MAX	256
#define PG_ALLOW_MAX	64
/* [serve] backlog and max_connections: defaults and ranges. */
#define PG_BACKLOG_DEFAULT	1024
#define PG_BACKLOG_MAX		65535
#define PG_CONN_MAX_DEFAULT	1024
#define PG_CONN_MAX_MAX		65536
#define PG_ERR_MAX	512	/* size for error buffers */

#define PG_WAIT_MIN_MS		(10LL * 1000)
#define PG_WAIT_MAX_MS		(30LL * 24 * 3600 * 1000)
#define PG_NEVER		INT64_MAX	/* elapsed: never active */
#define PG_RUNTIME_MIN_MS	100LL		/* max_runtime, kill_after */
#define PG_KILL_AFTER_MS	(10LL * 1000)	/* kill_after's default */
#define PG_KILL_AFTER_MAX_MS	(3600LL * 1000)
#define PG_PING_TIMEOUT_MAX_MS	5000LL		/* ping_timeout's default */

/*
 * clock.c: reading the clocks.
 */

/*
 * Read a clock (CLOCK_BOOTTIME, CLOCK_MONOTONIC, CLOCK_REALTIME) in
 * nanoseconds into *ns. -1 with errno when it cannot be read.
 */
int	 pg_clock(clockid_t, int64_t *);

/*
 * duration.c: durations, and the names of clusters and nodes.
 */

/*
 * Parse a duration: a decimal integer followed by a unit ms, s, m, h or d;
 * a bare integer means seconds. On success store milliseconds in *ms and
 * return 0. On failure return -1 and point *errstr at "invalid", "too
 * small" or "too large" (as strtonum(3) does).
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
 * pg_duration_format into buf, PG_DURATION_MAX bytes, or "?" for what
 * it refuses: buf, for a message.
 */
#define PG_DURATION_MAX	32
const char	*pg_duration_text(int64_t, char *);

/*
 * True when the string is a valid cluster ID: 1 to PG_NAME_MAX characters
 * of [A-Za-z0-9._-], not starting with '.' or '-'. IDs name state files
 * and URL path segments, and are command-line arguments.
 */
int	 pg_cluster_id_valid(const char *);

/* The same rule for peer and node names. */
int	 pg_peer_name_valid(const char *);

/*
 * How long from now until the earliest of the times at[0..n) that are
 * set (> 0), never less than 0: one already past is due now. Times in
 * ms of one clock; with none set, until INT64_MAX.
 */
int64_t	 pg_time_left(int64_t, const int64_t *, size_t);

/*
 * config.c, confkey.c, confval.c: pollguard.conf(5).
 */

struct pg_net {
	int		 family;	/* AF_INET or AF_INET6 */
	unsigned char	 addr[16];	/* network byte order, host bits zero */
	unsigned int	 prefix;	/* 0..32 or 0..128 */
};

struct pg_peer {
	char		 name[PG_NAME_MAX + 1];
	char		 url[PG_VALUE_MAX];
	char		 user[PG_VALUE_MAX];
	char		 password[PG_VALUE_MAX];
	char		 cafile[PG_VALUE_MAX];
	int		 line;		/* line of the section header */
};

enum pg_unreachable {
	PG_UNREACHABLE_RUN = 0,		/* an unreachable peer counts as never */
	PG_UNREACHABLE_SKIP		/* any unreachable peer: skip the round */
};

/* What a failed run does to who polls next (pollguard(7), HANDOVER). */
enum pg_on_failure {
	PG_ON_FAILURE_HANDOVER = 0,	/* the default: healthy nodes take over */
	PG_ON_FAILURE_STAY		/* 0.3: the failing node stays the poller */
};

/* Who orders the claims of a cluster: its peers, or an etcd cluster. */
enum pg_backend {
	PG_BACKEND_PEERS = 0,
	PG_BACKEND_ETCD
};

/* What pollguard-touch -- does to a job whose etcd lease was lost. */
enum pg_lease_lost {
	PG_LEASE_LOST_KILL = 0,		/* the default: stop its process group */
	PG_LEASE_LOST_WARN		/* say so, let it run */
};

#define PG_ETCD_ENDPOINTS_MAX	8

/* The [etcd] section: where the etcd backend's clusters live. */
struct pg_etcd {
	char		 endpoints[PG_ETCD_ENDPOINTS_MAX][PG_VALUE_MAX];
	size_t		 nendpoints;	/* 0: no [etcd] section */
	char		 prefix[PG_VALUE_MAX];	/* default "/pollguard/" */
	int64_t		 timeout_ms;	/* of each request */
	char		 cafile[PG_VALUE_MAX];
	char		 cert[PG_VALUE_MAX];
	char		 key[PG_VALUE_MAX];
	char		 user[PG_VALUE_MAX];
	char		 password[PG_VALUE_MAX];
	int		 line;		/* of the section header; 0: none */
};

struct pg_cluster {
	char		 id[PG_NAME_MAX + 1];
	char		 name[PG_VALUE_MAX];
	int64_t		 wait_ms;
	enum pg_unreachable unreachable;
	int64_t		 max_runtime_ms; /* 0: no runtime limit */
	int64_t		 kill_after_ms;	/* SIGTERM to SIGKILL at the limit */
	enum pg_on_failure on_failure;
	int64_t		 cooldown_ms;	/* after a failed run; default wait */
	size_t		*peers;		/* indices into pg_config.peers */
	size_t		 npeers;	/* 0: standalone */
	int		 line;
	/* pollguard(7), PREFERRED NODE */
	char		 prefer[PG_VALUE_MAX];	/* "a,b", as the [peer] names
						   are spelt; "": no prefer */
	int		 failback;	/* 1 (the default): yield to a
					   preferred node that is back */
	int64_t		 failback_after_ms;	/* its checks must have run
						   this long; default wait */
	int64_t		 prefer_slack_ms;	/* min(claim horizon, wait/4) */
	enum pg_backend	 backend;	/* etcd: pollguard(7), STRICT MODE */
	enum pg_lease_lost on_lease_lost;
	char		 ping[PG_VALUE_MAX];	/* lib/monitor.h; "": none */
	int64_t		 ping_timeout_ms;	/* of each ping */
};

struct pg_serve {
	char		 listen[PG_VALUE_MAX];	/* empty: inetd mode */
	char		 user[PG_VALUE_MAX];
	char		 password[PG_VALUE_MAX];
	char		 run_as[PG_NAME_MAX + 1];
	struct pg_net	 allow[PG_ALLOW_MAX];
	size_t		 nallow;		/* 0: any client */
	int		 backlog;		/* listen(2) queue */
	int		 max_conn;		/* max_connections */
};

struct pg_config {
	char		 path[PATH_MAX];
	char		 node[PG_NAME_MAX + 1];
	char		 state[PATH_MAX];
	int64_t		 timeout_ms;
	int64_t		 connect_timeout_ms;
	int64_t		 settle_ms;
	struct pg_peer	*peers;
	size_t		 npeers;
	struct pg_cluster *clusters;
	size_t		 nclusters;
	struct pg_serve	 serve;
	struct pg_etcd	 etcd;
};

/*
 * The config file to use: the argument of -c when not NULL, else
 * $POLLGUARD_CONF when set and not empty, else PG_CONF_DEFAULT.
 */
const char	*pg_config_path(const char *);

/*
 * Read and validate a config file. On success return 0 and store a new
 * config in *cfgp (free it with pg_config_free). On failure return -1 and
 * write a message to err, naming the file and, where there is one, the
 * line: "FILE:LINE: what is wrong".
 */
int	 pg_config_load(const char *, struct pg_config **, char *, size_t);
void	 pg_config_free(struct pg_config *);

/* The cluster with this ID, or NULL. */
const struct pg_cluster *pg_config_cluster(const struct pg_config *,
	    const char *);

/*
 * Parse one address or CIDR range ("192.0.2.0/24", "2001:db8::1") into
 * *net; return 0, or -1 when it is not one. An IPv4-mapped one
 * ("::ffff:192.0.2.0/120") is kept as IPv4 ("192.0.2.0/24"), as serve
 * sees such a client; -1 with errno EDOM when its prefix is under 96.
 */
int	 pg_net_parse(const char *, struct pg_net *);

/* True when the address (family, network byte order) lies in the range. */
int	 pg_net_match(const struct pg_net *, int, const void *);

/*
 * kv.c: the "key value" format of the side record, the lease record and
 * the status answer: lines of a key, one space and a value (the rest of
 * the line). A key is 1 to PG_KV_KEY_MAX of [a-z0-9_]. Pure: no I/O.
 */

/*
 * Append printf-formatted text to buf (len bytes) at *off and advance
 * *off: 0, or -1, *off unchanged, when it does not fit. The record and
 * status formatters OR (|=) the results of their steps and fail once, at
 * the end.
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
	const char *const	*keys;		/* known, NULL last; 32 at most */
	int			 flags;		/* PG_KV_* */
	size_t			 line_max;	/* the longest line without its
						   end; 0: no limit */
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
 * A file: at most max bytes, its first line the version line magic (with
 * its LF), then lines of these keys. 0, or -1 when it is not such a file.
 */
int	 pg_kv_begin(struct pg_kv *, const char *, size_t, size_t,
	    const char *, const char *const *, int);

/*
 * The next line of a known key: 1, its index in key and its value in
 * val; lines of unknown keys are skipped. 0 at the end (with
 * PG_KV_BLANK, after a blank line). -1, the reason in error, when a line
 * has no LF, is longer than line_max or holds a NUL, is not "key value",
 * or has a known key read before (key then says which).
 */
int	 pg_kv_next(struct pg_kv *);

/* True when each of the n bytes at s is from lo to hi. */
int	 pg_bytes_within(const char *, size_t, char, char);

/*
 * A number from lo to hi, the whole of s[0..n): 1 to 19 decimal digits,
 * nothing else, read by strtonum. 0 and *v, or -1.
 */
int	 pg_kv_num(const char *, size_t, int64_t, int64_t, int64_t *);

/*
 * stamp.c: moments of this host and the activity record's text.
 */

#define PG_BOOT_ID_LEN	36

/* A moment on this host, or an activity record. */
struct pg_stamp {
	char		 boot_id[PG_BOOT_ID_LEN + 1];	/* "" when unknown */
	int64_t		 mono_ns;	/* CLOCK_BOOTTIME: counts suspend */
	int64_t		 wall_ns;	/* CLOCK_REALTIME, only across reboots */
	/*
	 * Records only: the moment (CLOCK_BOOTTIME) of the claim that began
	 * this round, and how long after it peers are told the time since the
	 * claim rather than since the latest refresh (see pg_record_elapsed).
	 * Both 0: no claim. pg_stamp_now sets both to 0.
	 */
	int64_t		 claim_ns;
	int64_t		 horizon_ms;
};

/* Read the clocks and the boot ID. -1 with errno when a clock fails. */
int	 pg_stamp_now(struct pg_stamp *);

/*
 * Milliseconds from the activity rec to the moment now. Within one boot
 * this is the difference of the monotonic clocks, so wall-clock steps do
 * not change it. For a record from an earlier boot it is the larger of
 * the time since boot and the wall-clock difference: never less than the
 * uptime. A record from the future (impossible within a boot) counts as 0.
 */
int64_t	 pg_stamp_elapsed(const struct pg_stamp *, const struct pg_stamp *);

/*
 * What serve reports for a record: pg_stamp_elapsed, except within the
 * claim's horizon (same boot, less than horizon_ms since claim_ns), where
 * it is the time since the claim. Refreshes by the winner's job then do
 * not hide when it claimed from peers still settling their own claims.
 */
int64_t	 pg_record_elapsed(const struct pg_stamp *, const struct pg_stamp *);

/* True while the record's claim is reported as such (same boot, horizon). */
int	 pg_stamp_in_horizon(const struct pg_stamp *, const struct pg_stamp *);

/*
 * The record as written to disk, and back. format: the length written, or
 * -1 when it does not fit. parse: 0, or -1 with EBADMSG when malformed.
 */
int	 pg_stamp_format(const struct pg_stamp *, char *, size_t);
int	 pg_stamp_parse(const char *, size_t, struct pg_stamp *);

#define PG_RECORD_MAX	160	/* the longest record, in bytes */

/*
 * statedir.c: the state directory, opened once per tool; records, locks
 * and side records are files in it.
 */

struct pg_state {
	int		 dirfd;
	char		 path[PATH_MAX];
	dev_t		 dev;		/* dirfd's, as opened: a directory */
	ino_t		 ino;		/* put in its place shows in a stat */
	/*
	 * pg_serve_state: why the directory at the path cannot be used
	 * (mode, permissions, not a directory); "" when it is open or
	 * absent. dirfd is -1 then.
	 */
	char		 refused[PG_ERR_MAX];
	/*
	 * Private to lock.c. The record lock's descriptor, opened by the
	 * first write (-1 until then), for this cluster and this process.
	 */
	int		 recfd;
	pid_t		 recpid;
	char		 reccluster[PG_NAME_MAX + 1];
	/*
	 * What the last pg_state_claim replaced, for pg_state_restore:
	 * undolen bytes (0: no record; -1: nothing kept), in the record
	 * of undocluster, replaced by the claim record undoby.
	 */
	char		 undo[PG_RECORD_MAX];
	ssize_t		 undolen;
	char		 undoby[PG_RECORD_MAX];
	char		 undocluster[PG_NAME_MAX + 1];
};

/*
 * Open the state directory, creating its last component (mode 0755) when
 * it is missing and create is set; with create, also remove temporary
 * files that writers killed mid-write left behind (older than a minute).
 * Refuses a path that is not absolute,
 * not a directory, or writable by group or others. On failure return -1
 * and write the reason, naming the directory, to err.
 *
 * Writers of a record (pg_state_write, _touch, _claim, _restore, _remove)
 * and of the files beside it exclude each other with the record lock, a
 * short flock(2) on ".CLUSTER.rec" that they wait for; readers
 * (pg_state_read, _read_raw, the side record's) never take it. Lock order: the claim lock before the record lock, never
 * the reverse; the run lock is never waited for. pg_state_close releases
 * the handle's record lock descriptor.
 */
int	 pg_state_open(struct pg_state *, const char *, int, char *, size_t);
void	 pg_state_close(struct pg_state *);

/* write(2) all of a buffer, going on after EINTR. -1 with errno. */
int	 pg_write_all(int, const void *, size_t);

/*
 * record.c: the activity record of a cluster, "CLUSTER".
 */

/*
 * Read the record of a cluster: 1 and *rec when there is one, 0 when there
 * is none ("never"), -1 on failure with errno (EBADMSG: malformed record).
 */
int	 pg_state_read(struct pg_state *, const char *, struct pg_stamp *);

/*
 * Replace the record of a cluster atomically: a reader sees the old record
 * or the new one, never a mixture, and a failure (say, a full disk) leaves
 * the old one. -1 with errno on failure.
 */
int	 pg_state_write(struct pg_state *, const char *, const struct pg_stamp *);

/*
 * Record activity now: pg_state_write of pg_stamp_now, keeping the claim
 * of the record it replaces while that claim's horizon lasts.
 */
int	 pg_state_touch(struct pg_state *, const char *);

/*
 * Claim a round: write a record of now whose claim is now, with the horizon
 * given (ms). Store the record written in *rec and the moment the rename
 * made it visible (CLOCK_BOOTTIME, ns) in *visible_ns. The handle keeps
 * the record the claim replaced, for pg_state_restore.
 */
int	 pg_state_claim(struct pg_state *, const char *, int64_t,
	    struct pg_stamp *, int64_t *);

/*
 * Lengthen this handle's claim *rec to horizon_ms, in one step under the
 * record lock, only while the record on disk is still that claim (a
 * later writer's record stays); pg_state_restore then takes back the
 * longer one as this handle's. 1: lengthened (*rec too), 0: the record
 * is no longer the claim, -1 with errno.
 */
int	 pg_state_lengthen(struct pg_state *, const char *, struct pg_stamp *,
	    int64_t);

/*
 * The record's bytes exactly as on disk, for pg_state_restore: the length
 * (at most PG_RECORD_MAX), 0 when there is none, -1 with errno.
 */
ssize_t	 pg_state_read_raw(struct pg_state *, const char *, char *, size_t);

/*
 * Take back the claim rec: put back the record it replaced (atomically, as
 * pg_state_write), or remove the record when there was none; but only
 * while the record on disk is still rec: when someone wrote since, leave
 * theirs. The check and the replacement are one step under the record
 * lock, so a touch is never undone. What is put back is what
 * pg_state_claim replaced, when this handle made the claim rec; else the
 * bytes given, as pg_state_read_raw returned them before the claim
 * (length 0: none). 1: restored, 0: left alone, -1 with errno.
 */
int	 pg_state_restore(struct pg_state *, const char *,
	    const struct pg_stamp *, const char *, size_t);

/* Remove the record: the cluster reads as never. No record is success. */
int	 pg_state_remove(struct pg_state *, const char *);

/*
 * Other small files beside a record, ".CLUSTER.SUFFIX" (the etcd lease
 * record). write: atomically, under the record lock, as
 * pg_state_write. read: the length (at most len), 0 when there is none,
 * -1 with errno (EBADMSG: not a regular file, empty or too long).
 * remove: no file is success.
 */
int	 pg_state_aux_write(struct pg_state *, const char *, const char *,
	    const char *, size_t);
ssize_t	 pg_state_aux_read(struct pg_state *, const char *, const char *,
	    char *, size_t);
int	 pg_state_aux_remove(struct pg_state *, const char *, const char *);

/*
 * lock.c: the run lock and the claim lock of a cluster (the record lock
 * is the writers' own: pg_state_open says how).
 */

/*
 * Take the cluster's run lock without waiting. 1: taken, the descriptor
 * in *fd (close-on-exec; the lock lasts until it is closed). 0: another
 * process holds it. -1: failure, errno set.
 */
int	 pg_lock_take(struct pg_state *, const char *, int *);

/*
 * Take the cluster's claim lock (".CLUSTER.claim") without waiting, as
 * pg_lock_take: pollguard-check holds it from its first question to its
 * exit, so that two checks on one node never claim, settle and restore
 * over each other.
 */
int	 pg_claim_lock(struct pg_state *, const char *, int *);

/* 1 when a process holds the run lock, 0 when not, -1 on failure. */
int	 pg_lock_held(struct pg_state *, const char *);

/*
 * Does a pollguard-check of the cluster hold the claim lock, that is, is
 * one deciding on this node? Only tests, never takes it (F_OFD_GETLK on a
 * read-only descriptor), so that asking can never make a check of this
 * node skip. A user who cannot open the 0600 lock file (pollguard-serve
 * as its own user) is answered from /proc/locks. 1: held (a write lock),
 * 0: not, -1 with errno: cannot tell.
 */
int	 pg_claim_held(struct pg_state *, const char *);

/*
 * side.c: the side record of a cluster, ".CLUSTER.side", beside its
 * activity record: the outcome of the job's runs, a hold, this node's
 * checks. Each is a part of its own, a section with a version line
 * (pollguard(7), FILES): its writer replaces it under the record lock
 * and keeps the others as they were; its reader reads it on its own, so
 * that a damaged part reads as damaged and leaves the other parts and
 * the activity record readable. A 0.3 state directory has none.
 */

#define PG_SIDE_MAX	2048	/* the longest side record, in bytes */

/*
 * The outcome of the cluster's job on this node, as pollguard-touch --
 * records it. "start" is the latest run's; "end" and the result (exit or
 * signal, timed_out, duration_ms) are the last finished run's, so that
 * they still read while the next run is going. The part is versioned,
 * one "key value" line each; readers ignore unknown keys.
 */
struct pg_outcome {
	int		 running;	/* a run started and has not ended */
	pid_t		 pid;		/* the latest run's job, 0: unknown */
	struct pg_stamp	 start;		/* the latest run began (no claim) */
	int		 ended;		/* a run has finished: what follows */
	struct pg_stamp	 end;
	int64_t		 duration_ms;
	int		 exit_status;	/* 0..255, or -1 when signalled */
	int		 signal;	/* the signal that ended it, or 0 */
	int		 timed_out;	/* killed at max_runtime */
	int64_t		 failures;	/* failed runs in a row, 0 after a
					   success */
	int		 succeeded;	/* a run has succeeded: success is set */
	struct pg_stamp	 success;	/* when the last successful run ended */
};

#define PG_OUTCOME_MAX	512	/* the longest outcome part, in bytes */

/*
 * The outcome part's text and back. format: the length, or -1 (errno
 * ENAMETOOLONG) when it does not fit. parse: 0, or -1 with EBADMSG when
 * it is not a version 1 outcome; unknown keys are skipped.
 */
int	 pg_outcome_format(const struct pg_outcome *, char *, size_t);
int	 pg_outcome_parse(const char *, size_t, struct pg_outcome *);

/*
 * Read the outcome of a cluster: 1 and *o, 0 when no run was recorded (a
 * 0.3 state directory has none), -1 with errno (EBADMSG: damaged). The
 * activity record is read apart: a damaged outcome never affects it.
 */
int	 pg_outcome_read(struct pg_state *, const char *, struct pg_outcome *);

/*
 * A run of the job began now, as process pid: record running, keeping
 * the last finished run's result and the failure count from the file
 * (a damaged or missing one counts from nothing). A run recorded as
 * running whose end was never written (pollguard-touch was killed)
 * counts as one more failure. *o gets what was written, for
 * pg_outcome_finish, also when writing fails (-1 with errno).
 */
int	 pg_outcome_start(struct pg_state *, const char *, pid_t,
	    struct pg_outcome *);

/*
 * The run begun by pg_outcome_start ended now with this wait(2) status,
 * timed out or not: record the result in *o and write it. A non-zero
 * exit, a signal or a timeout adds one to the failures, a success resets
 * them. -1 with errno when the write fails (*o is updated regardless).
 */
int	 pg_outcome_finish(struct pg_state *, const char *, int, int,
	    struct pg_outcome *);

enum pg_run {
	PG_RUN_NONE,		/* no run recorded */
	PG_RUN_DONE,		/* the last run finished */
	PG_RUN_RUNNING,		/* a run is going */
	PG_RUN_DIED		/* recorded running, but its pollguard-touch is
				   gone: the end was never recorded */
};

/*
 * What a record read by pg_outcome_read (or NULL: none) says, checked
 * against the run lock (pg_lock_held): running with the lock free is
 * DIED. When the lock cannot be tested (serve, as another user, may not
 * open the 0600 lock file), a job PID that no longer exists is DIED.
 */
enum pg_run	 pg_outcome_run(struct pg_state *, const char *,
	    const struct pg_outcome *);

/*
 * A hold on the cluster, set on this node by pollguard-touch -H. It ends at "until", a stamp of this host's clocks: within the boot that
 * set it, by CLOCK_BOOTTIME (wall-clock steps do not move it, suspend
 * counts); after a reboot, by the wall clock, but never later than ms
 * after it was set counting the uptime as passed (the time since it was
 * set is at least the uptime, as for pg_stamp_elapsed).
 */
#define PG_HOLD_MAX_MS		(7LL * 24 * 3600 * 1000)	/* 7d */
#define PG_HOLD_TEXT_MAX	128	/* by, why: PG_STATUS_TEXT_MAX */
#define PG_HOLD_FILE_MAX	512	/* the longest hold part, in bytes */

struct pg_hold {
	struct pg_stamp	 until;		/* when it ends (no claim) */
	int64_t		 ms;		/* how long it was set for */
	char		 by[PG_HOLD_TEXT_MAX];	/* "user@node"; "": not said */
	char		 why[PG_HOLD_TEXT_MAX];	/* "": not said */
};

/*
 * A hold of ms (1..PG_HOLD_MAX_MS) from now. by and why must be printable
 * ASCII without a leading or trailing blank, shorter than
 * PG_HOLD_TEXT_MAX (NULL or "": not said). 0, or -1 with errno: EINVAL
 * (ms out of range, a character refused), ENAMETOOLONG (a text too long).
 */
int	 pg_hold_make(struct pg_hold *, int64_t, const char *, const char *);

/* The hold's time left at now in ms; 0: it has ended. */
int64_t	 pg_hold_left(const struct pg_hold *, const struct pg_stamp *);

/*
 * The hold part's text and back, as the outcome's. format: the length,
 * or -1 (EINVAL: a field that pg_hold_make refuses; ENAMETOOLONG). parse:
 * 0, or -1 with EBADMSG; unknown keys are skipped.
 */
int	 pg_hold_format(const struct pg_hold *, char *, size_t);
int	 pg_hold_parse(const char *, size_t, struct pg_hold *);

/*
 * Read the hold on a cluster: 1, *h and its time left in *left_ms while
 * it lasts; 0 when there is none or it has ended; -1 with errno
 * (EBADMSG: damaged). Readers never remove an ended hold.
 */
int	 pg_hold_read(struct pg_state *, const char *, struct pg_hold *,
	    int64_t *);

/* Replace the hold atomically, under the record lock. -1 with errno. */
int	 pg_hold_write(struct pg_state *, const char *, const struct pg_hold *);

/* Lift the hold: remove its part. No hold is success. */
int	 pg_hold_remove(struct pg_state *, const char *);

/*
 * The checked part, written by pollguard-check at each check that
 * decides (not with -n) of a cluster with prefer, read and published by
 * pollguard-serve (pollguard(7), PREFERRED NODE): when the latest check
 * began, since when checks have run without a gap longer than the
 * cluster's wait plus prefer_slack, and the preferred node this node
 * yields to, with the moment it decided to.
 */
#define PG_CHECKED_MAX	384	/* the longest checked part, in bytes */

struct pg_checked {
	struct pg_stamp	 last;		/* the latest check began (no claim) */
	struct pg_stamp	 since;		/* checks without a longer gap since */
	char		 yield[PG_NAME_MAX + 1];	/* "": no yield */
	struct pg_stamp	 yielded;	/* set with yield */
};

/*
 * The checked part's text and back. format: the length, or -1 (EINVAL: a
 * yield that is not a valid name; ENAMETOOLONG). parse: 0, or -1 with
 * EBADMSG; unknown keys are skipped.
 */
int	 pg_checked_format(const struct pg_checked *, char *, size_t);
int	 pg_checked_parse(const char *, size_t, struct pg_checked *);

/* Read it: 1 and *ck, 0 when there is none, -1 with errno (EBADMSG). */
int	 pg_checked_read(struct pg_state *, const char *, struct pg_checked *);

/* Replace it atomically, under the record lock. -1 with errno. */
int	 pg_checked_write(struct pg_state *, const char *,
	    const struct pg_checked *);

/* The whole side record, read at once (pg_status_local). */
struct pg_side {
	int			 outcome;	/* 1: o is set; 0: none; -1:
						   damaged */
	struct pg_outcome	 o;
	int			 hold;		/* 1: h (it may have ended) */
	struct pg_hold		 h;
	int			 checked;	/* 1: ck */
	struct pg_checked	 ck;
};

/*
 * The side record's text, all of it: each part 1 and its value, 0 (none)
 * or -1 (damaged). 0, or -1 with EBADMSG when it is damaged as a whole
 * (every part -1). No text, len 0, is no part.
 */
int	 pg_side_parse(const char *, size_t, struct pg_side *);

/*
 * Read the side record of a cluster with one open, and parse it: 0, or
 * -1 with errno when it cannot be read or is damaged as a whole.
 */
int	 pg_side_read(struct pg_state *, const char *, struct pg_side *);

/*
 * status.c: the status answer (GET /v1/status/CLUSTER), both ends. Pure:
 * no I/O. Lines of "key value", a blank line after each cluster; readers
 * ignore keys they do not know (pollguard(7), The status answer).
 */

#define PG_STATUS_TEXT_MAX	128	/* hold_by, hold_why */
#define PG_STATUS_LINE_MAX	(PG_STATUS_TEXT_MAX * 4)	/* a value */
#define PG_STATUS_MAX		2048	/* one cluster's block */

struct pg_status {
	char		 cluster[PG_NAME_MAX + 1];
	char		 node[PG_NAME_MAX + 1];	/* "": not said */
	char		 version[32];		/* "": not said */
	int64_t		 elapsed_ms;	/* since activity; PG_NEVER */
	int64_t		 claim_ms;	/* since a claim within its horizon;
					   -1: none */
	int		 running;	/* a run is going on */
	int64_t		 pid;		/* its PID; 0: not said */
	int		 last;		/* a run ended: last_* are set */
	int		 last_exit;	/* its exit status; -1: a signal */
	int		 last_signal;	/* the signal that ended it; 0: none */
	int		 last_timeout;	/* it ran into max_runtime */
	int64_t		 last_duration_ms;
	int64_t		 last_end_ms;	/* since it ended */
	int64_t		 last_success_ms;	/* since the last run that
						   succeeded; PG_NEVER */
	int		 failures;	/* failed runs in a row */
	int64_t		 hold_ms;	/* a hold's time left; 0: no hold */
	char		 hold_by[PG_STATUS_TEXT_MAX];
	char		 hold_why[PG_STATUS_TEXT_MAX];	/* printable ASCII */
	/*
	 * The fast rule (pollguard(7)): a peer that says "deciding" decides
	 * by it, and says its settle and timeout with it. -1: not said.
	 */
	int		 deciding;	/* a check there holds the claim lock */
	int64_t		 settle_ms;
	int64_t		 timeout_ms;
	/* pollguard(7), PREFERRED NODE */
	char		 prefer[PG_VALUE_MAX];	/* its order; "": none said */
	int64_t		 checked_ms;	/* since its last check; PG_NEVER */
	int64_t		 checking_ms;	/* its checks have run without a
					   gap this long; -1: not said */
	char		 yield[PG_NAME_MAX + 1];	/* it yields to; "": no */
	int64_t		 yielded_ms;	/* since it decided to */
	int64_t		 at_ns;		/* pg_status_local only: read at
					   this CLOCK_BOOTTIME; else 0 */
};

/* An empty status: never active, no run, no hold. */
void	 pg_status_init(struct pg_status *);

/*
 * One cluster's status as lines, without the blank line that ends it:
 * the length, or -1 when it does not fit. hold_why is escaped (vis(3))
 * so that it stays one printable line.
 */
int	 pg_status_format(const struct pg_status *, char *, size_t);

/*
 * Quote up to 24 bytes of a peer's text for a message: in double quotes,
 * escaped as vis(3) does, "..." after it when there was more.
 */
void	 pg_quote(char *, size_t, const char *, size_t);

/*
 * Read one cluster's status from buf[0..len): lines up to a blank line
 * or the end. The first line must be "cluster ID" and "elapsed" must be
 * there; unknown keys are skipped; a known key twice, a value out of its
 * range, a line without LF or longer than PG_STATUS_LINE_MAX, or a NUL is
 * an error. 0 and *used (bytes read, with the blank line), or -1 and a
 * reason for people in why.
 */
int	 pg_status_parse(const char *, size_t, struct pg_status *, size_t *,
	    char *, size_t);

/* How the last run ended, for people: "exit 1", "signal 9", "timed out". */
const char	*pg_status_last_text(const struct pg_status *, char *, size_t);

/*
 * Handover (pollguard(7), HANDOVER): a status says its node's last run
 * failed when the failure streak is above 0, a run has ended and none is
 * going. Such a node is in cooldown while its last run ended less than
 * cooldown ms ago.
 */
int	 pg_status_failed(const struct pg_status *);
int	 pg_status_cooldown(const struct pg_status *, int64_t);

/*
 * decide.c: the rule that turns peers' answers into a verdict. Pure: no
 * I/O.
 */

/* What a peer's answer is. Only the first two are answers to the question. */
enum pg_answer_kind {
	PG_ANSWER_ELAPSED,	/* elapsed_ms is valid */
	PG_ANSWER_NEVER,	/* the peer never polled */
	PG_ANSWER_UNREACHABLE,	/* refused, timed out, no DNS, 5xx */
	PG_ANSWER_REFUSED,	/* 401 or 403: credentials or allow list */
	PG_ANSWER_UNKNOWN,	/* 404: a wrong url, or no such cluster there */
	PG_ANSWER_SELF,		/* the peer is this node itself */
	PG_ANSWER_INVALID	/* anything else: nonsense */
};

/* True for the kinds that are misconfiguration: REFUSED to INVALID. */
#define PG_ANSWER_BAD(k)	((k) >= PG_ANSWER_REFUSED)

/* True for the kinds that answer the question: ELAPSED and NEVER. */
#define PG_ANSWER_OK(k)		((k) <= PG_ANSWER_NEVER)

/* What a bad kind asks the operator to check, " (...)", or "". */
const char	*pg_answer_hint(enum pg_answer_kind);

struct pg_answer {
	enum pg_answer_kind kind;
	int64_t		 elapsed_ms;
};

#define PG_WHY_MAX	160	/* what a peer said, for people */

/*
 * One peer's answer to one question, and when it was asked. All times
 * are this node's CLOCK_BOOTTIME in nanoseconds.
 */
struct pg_seen {
	const char	*name;		/* the peer's name */
	struct pg_answer answer;
	char		 why[PG_WHY_MAX];	/* the answer for people,
						   already escaped */
	int64_t		 sent_ns;	/* no later than the request left */
	int64_t		 recv_ns;	/* no earlier than the answer was read */
	int		 answered;	/* round 2: it was reachable in round 1 */
	/*
	 * The peer answered GET /v1/status/CLUSTER (0.4 on): status holds
	 * what it said, and answer is read from status.elapsed_ms. 0: a
	 * peer before 0.4 (old set, it answered /v1/elapsed/CLUSTER), or no
	 * usable answer at all.
	 */
	int		 has_status;
	struct pg_status status;
	int		 old;		/* a serve before 0.4: 404 for
					   /v1/status without Pollguard-Node */
};

enum pg_verdict {
	PG_GO = 0,		/* exit 0 */
	PG_SKIP_ACTIVE = 1,	/* exit 1: a peer was active within wait,
				   or the cluster is held, or handing over */
	PG_SKIP_LOCAL = 2,	/* exit 2: a run on this node still going */
	PG_SKIP_UNREACHABLE = 3,/* exit 3: unreachable peer, policy skip */
	PG_REFUSE_INVALID = 76	/* a peer answered nonsense: EX_PROTOCOL */
};

/*
 * Why pg_decide decided as it did: one reason a verdict. pg_fleet_next
 * says with the same reasons why a cluster's next round goes as it does.
 */
enum pg_reason {
	PG_REASON_GO,		/* nothing against us */
	PG_REASON_LOCAL,	/* SKIP_LOCAL */
	PG_REASON_HELD,		/* SKIP_ACTIVE: held (by peer, or own) */
	PG_REASON_ACTIVE,	/* SKIP_ACTIVE: peer was active within wait */
	PG_REASON_COOLDOWN,	/* SKIP_ACTIVE: our last run failed less
				   than cooldown ago; handing over */
	PG_REASON_INVALID,	/* REFUSE_INVALID: peer answered nonsense */
	PG_REASON_UNREACHABLE,	/* SKIP_UNREACHABLE */
	PG_REASON_PREFERRED,	/* SKIP_ACTIVE: a more preferred peer is
				   eligible, and this node is idle */
	PG_REASON_YIELD,	/* SKIP_ACTIVE: this node yielded to a
				   preferred peer (failback) */
	PG_REASON_EACH		/* pg_fleet_next only: no check goes, each
				   skips for a reason of its own */
};

struct pg_decision {
	enum pg_verdict	 verdict;
	enum pg_reason	 reason;
	int		 standalone;	/* go for want of peers: warn */
	int		 own;		/* HELD: the hold is this node's */
	size_t		 peer;		/* index of the deciding peer */
	size_t		 failed;	/* a peer whose failed run did not
					   count against us; n: none */
	/* pollguard(7), PREFERRED NODE; each n when none */
	size_t		 prefer;	/* PREFERRED, YIELD: the preferred peer;
					   GO with yield: the one to yield to */
	int		 yield;		/* GO: this run is the last before
					   yielding to seen[prefer] */
	size_t		 yielded;	/* a peer whose yield to us did not
					   count against us */
	size_t		 disagree;	/* a peer with another prefer order:
					   prefer is not applied */
};

/*
 * Activity this long after a run's end still counts as that run's own
 * (its last refresh): handover and yield.
 */
#define PG_HANDOVER_SLACK_MS	1000

/*
 * True when, under on_failure, a peer's answer does not count as activity
 * against this node: on_failure is handover, it answered a status, its
 * last run failed, and since that run's end it has neither claimed (no
 * claim is reported at all) nor been active (elapsed is at least the
 * time since the end, less PG_HANDOVER_SLACK_MS). pg_decide and
 * pg_settle both use this, so round 1 and round 2 agree on who is
 * active.
 */
int	 pg_handover_ignores(enum pg_on_failure, const struct pg_seen *);

/*
 * Decide for one round of cluster c, as node (this node's name), own
 * being this node's status (NULL: not known, as with 0.3). In order: a
 * local run still holding the lock skips (LOCAL); a hold shown by this
 * node or any peer that answered skips (HELD); a peer whose elapsed is
 * below wait (strictly; equal allows) skips (ACTIVE), unless
 * pg_handover_ignores it; with on_failure handover and this node in
 * cooldown, skip (COOLDOWN) when some peer answered that is not in
 * cooldown (a peer before 0.4 never is), or when every peer that answered
 * is in cooldown too and this node's run ended last (ties: the name that
 * sorts first, strcasecmp, skips); a bad answer (PG_ANSWER_BAD) refuses;
 * an unreachable peer skips when the policy says so; otherwise go. With
 * no peers, go, standalone.
 */
void	 pg_decide(const struct pg_cluster *, const char *,
	    const struct pg_status *, int, const struct pg_seen *, size_t,
	    struct pg_decision *);

#define PG_TEXT_MAX	512	/* a decision for people */

/*
 * The decision d of pg_decide for people, and for the log, without the
 * cluster: "go", "skip: b was active 3s ago", "skip: held by ops for 10m
 * more (shown by b): disk swap", "skip: handing over after a failed run
 * (exit 1, 20s ago; cooldown 5m)", ... The arguments are pg_decide's.
 */
void	 pg_decision_text(const struct pg_decision *,
	    const struct pg_cluster *, const struct pg_status *,
	    const struct pg_seen *, size_t, char *, size_t);

/*
 * prefer.c: the preferred node (pollguard(7), PREFERRED NODE): order,
 * eligibility, failback and the yield. Pure: no I/O. pg_decide calls
 * them; a cluster without prefer behaves as before.
 */

/*
 * True when node a comes before node b in c's order: the prefer list
 * first, in its order, then the nodes it does not list by strcasecmp.
 * Names compare without case.
 */
int	 pg_prefer_before(const struct pg_cluster *, const char *,
	    const char *);

/*
 * The first peer (index) that answered but announces another order than
 * c->prefer (a status without prefer, or none at all, is another order
 * when c has one); n when all agree. A peer that did not answer is not
 * asked about it.
 */
size_t	 pg_prefer_disagree(const struct pg_cluster *, const struct pg_seen *,
	    size_t);

/*
 * True when the peer counts as a node that will poll if it may: it
 * answered a status announcing c's order, its latest check is less than
 * wait + prefer_slack ago (its cron runs), and, under on_failure
 * handover, it is not in cooldown after a failed run. healthy: also its
 * checks have run without a gap for failback_after.
 */
int	 pg_prefer_eligible(const struct pg_cluster *, const struct pg_seen *);
int	 pg_prefer_healthy(const struct pg_cluster *, const struct pg_seen *);

/*
 * This node's previous check as a moment of its CLOCK_BOOTTIME (ns),
 * from its own status (pg_status_local); INT64_MIN when not known.
 */
int64_t	 pg_prefer_prev_check(const struct pg_status *);

/*
 * True when a peer's activity does not count against node (this node)
 * because the peer yields to it and its last run is over by its own
 * records: the peer announces "yield NODE"; it recorded a run that began
 * and ended after the yield, and no activity since that end (but for
 * PG_HANDOVER_SLACK_MS); no run is going and no claim is reported; and
 * the yield was decided no later than slack ms after this node's previous
 * check (prev_ns, of pg_prefer_prev_check): that last run belongs to a
 * round this node has already checked in. A run that records no end (a
 * pollguard-touch -f pipeline, heartbeats, a start or end that could not
 * be written, a killed pollguard-touch) keeps the peer counted until its
 * elapsed reaches wait. pg_decide and pg_settle both use this.
 */
int	 pg_yield_ignores(const char *, int64_t, int64_t,
	    const struct pg_seen *);

/*
 * The prefer rules, for pg_decide once nothing else stops this node: d
 * is a GO. Sets d->prefer and, when a more preferred peer is eligible,
 * turns d into a skip (PREFERRED: this node is idle; YIELD: it has
 * yielded) or marks the go as the last run before a yield (d->yield).
 */
void	 pg_prefer_decide(const struct pg_cluster *, const char *,
	    const struct pg_status *, const struct pg_seen *, size_t,
	    struct pg_decision *);

/*
 * The checked record to write at a check that began at now, after prev
 * (had: 0 when there was none): since carries on unless the gap since
 * prev's last check exceeds gap_ms; a go clears the yield, a go that is
 * the last before a yield sets it (to name, decided now), a skip keeps
 * it.
 */
void	 pg_checked_next(struct pg_checked *, int, const struct pg_stamp *,
	    int64_t, int, const char *);

/*
 * proto.c: the peer protocol, both ends. Pure: no I/O.
 *
 * Requests: GET or HEAD, HTTP/1.0 or 1.1, one per connection, of
 * /v1/elapsed/CLUSTER, /v1/elapsed, /v1/status/CLUSTER, /v1/status or
 * /metrics. No body.
 */

#define PG_REQ_LINE_MAX	1024	/* request line with its CRLF; else 414 */
#define PG_REQ_HEAD_MAX	8192	/* request line and headers; else 431 */
#define PG_REQ_HEADERS_MAX 64	/* header fields; else 431 */
#define PG_AUTH_MAX	544	/* base64 of 199-byte user ":" 199-byte password */
#define PG_ANSWER_MAX	64	/* bytes of a peer's answer check reads */

enum pg_target {
	PG_TARGET_ONE,		/* /v1/elapsed/CLUSTER */
	PG_TARGET_ALL,		/* /v1/elapsed */
	PG_TARGET_METRICS,	/* /metrics */
	PG_TARGET_STATUS_ONE,	/* /v1/status/CLUSTER */
	PG_TARGET_STATUS_ALL	/* /v1/status */
};

struct pg_request {
	int		 head;		/* HEAD: headers only */
	int		 minor;		/* HTTP/1.minor: 0 or 1 */
	enum pg_target	 target;
	char		 cluster[PG_NAME_MAX + 1];
	int		 has_auth;	/* an Authorization field was sent */
	char		 auth[PG_AUTH_MAX + 1];	/* its Basic token, "" if not
						   Basic or too long */
	size_t		 linelen;	/* request line, without CRLF */
	size_t		 used;		/* bytes of the head, with the blank
					   line */
	const char	*why;		/* a 400's reason, for the log */
};

/*
 * Parse the start of a connection's input, buf[0..len): the request line
 * and header fields up to the blank line. Return 0 when it needs more
 * bytes, else an HTTP status: 200 (req is filled in), or 400, 404, 405,
 * 414, 431, 505 as soon as the bytes so far show it. Bare LF line ends
 * are accepted. req->minor and req->linelen are set as soon as the
 * request line is complete, also for errors.
 */
int	 pg_request_parse(const char *, size_t, struct pg_request *);

/* The reason phrase of a status this protocol uses, or "Error". */
const char	*pg_status_text(int);

/*
 * Format a response into buf: status line (HTTP/1.minor), Content-Type
 * "text/plain; charset=utf-8", Content-Length, Connection: close,
 * Cache-Control: no-store, the extra header lines given (each ending in
 * CRLF, or NULL), and the body unless head is set. When extra starts with
 * a Content-Type field, it replaces the default one. Return the length,
 * or -1 when it does not fit.
 */
int	 pg_response(char *, size_t, int, int, const char *, const char *,
	    size_t, int);

/*
 * 1 when the two buffers are equal, in time that depends only on the
 * length (libbsd 0.11 has no timingsafe_bcmp).
 */
int	 pg_equal_ct(const void *, const void *, size_t);

/* Base64 (RFC 4648, padded) of src into dst: the length, -1: too small. */
int	 pg_base64(const void *, size_t, char *, size_t);

/*
 * Read a peer's answer to GET /v1/elapsed/CLUSTER: the HTTP status (0
 * when there was none), its Content-Type (NULL when absent), the body
 * (at most PG_ANSWER_MAX bytes kept) and whether more was sent. Fill in
 * *a: 200 with a decimal integer (0 to 2^63-2, optional final LF or CRLF)
 * is ELAPSED; 200 with "never" is NEVER; 5xx and 0 are UNREACHABLE; 401
 * and 403 are REFUSED; 404 is UNKNOWN; everything else is INVALID. why gets a short reason for people ("401
 * Unauthorized", "not a number: \"abc\""), already safe to print.
 */
void	 pg_answer_parse(long, const char *, const char *, size_t, int,
	    struct pg_answer *, char *, size_t);

/*
 * Read a peer's answer to GET /v1/status/CLUSTER (id), of at most
 * PG_STATUS_MAX bytes, as pg_answer_parse does one to /v1/elapsed: the
 * same status, Content-Type and length rules, and named set when the
 * answer had a Pollguard-Node field. Return 1, touching nothing, for a
 * 404 without that field: a serve before 0.4, which does not know the
 * path; ask it /v1/elapsed/CLUSTER. Else return 0 and fill in *a (a 404
 * with the field is UNKNOWN: no such cluster there): a 200 whose body is
 * one status block of cluster id (pg_status_parse) gives *st, and ELAPSED
 * or NEVER from its elapsed; a block that does not parse is INVALID with
 * the parser's reason in why.
 */
int	 pg_answer_status(long, const char *, int, const char *, const char *,
	    size_t, int, struct pg_answer *, struct pg_status *, char *,
	    size_t);

/*
 * decide.c, continued: the settle round, after a claim. Does this node
 * keep it? pollguard(7), CLAIM AND SETTLE, has the argument; the names
 * below are the ones it uses.
 *
 * All times are this node's CLOCK_BOOTTIME in nanoseconds. A peer that
 * answered e ms in round 2 was last active (or claimed, within its
 * horizon) no earlier than sent - e - 1 ms - drift, where drift allows
 * for the two hosts' clocks running at rates up to PG_DRIFT_DIV apart.
 */
#define PG_DRIFT_DIV	1000	/* 1/1000: 0.1%, twice NTP's 500 ppm */

struct pg_claim {
	const char	*node;		/* this node's name */
	int64_t		 claim_ns;	/* the stamp of our claim */
	int64_t		 visible_ns;	/* when its rename was done */
	int64_t		 start_ns;	/* round 1 began */
	int64_t		 end_ns;	/* round 2 ended */
	int64_t		 settle_ms;	/* the configured settle */
	int64_t		 timeout_ms;	/* the configured timeout */
	int64_t		 horizon_ms;	/* pg_claim_horizon */
	enum pg_on_failure on_failure;	/* pg_handover_ignores */
	int		 slept;		/* round 2 came after the settle
					   sleep (pg_settle_sleep_ns) */
	int64_t		 prev_check_ns;	/* pg_yield_ignores: this node's */
	int64_t		 yield_slack_ms;	/* previous check; slack */
};

enum pg_settle_why {
	PG_KEEP,		/* no concurrent claim, or we win every one */
	PG_LOST_EARLIER,	/* a peer may have claimed clearly earlier */
	PG_LOST_NAME,		/* a claim too close to order: its name
				   sorts first (strcasecmp) */
	PG_LOST_SLOW_WRITE,	/* set by pollguard-check: the claim took
				   too long to become visible to lengthen
				   it within the wait */
	PG_LOST_SLOW_ROUND,	/* rounds took longer than the horizon allows */
	PG_LOST_VANISHED,	/* reachable in round 1, not in round 2: it
				   may have claimed unseen */
	PG_LOST_UNREACHABLE,	/* unreachable peer, policy skip */
	PG_LOST_INVALID,	/* a peer answered nonsense */
	PG_LOST_HELD,		/* a peer put the cluster on hold */
	PG_WAIT,		/* not yet: keep if the pending peers withdraw */
	PG_LOST_KEPT,		/* a pending peer kept its claim */
	PG_LOST_POLL,		/* a pending peer no longer answers (or not
				   by the fast rule) */
	PG_LOST_RULE,		/* an active peer not of the fast rule, and
				   round 2 came without the settle sleep */
	PG_LOST_DISAGREE,	/* a fast peer's settle or timeout differs */
	PG_LOST_UNSEEN,		/* active in round 2, unreachable in round 1:
				   it may be polling since before */
	PG_LOST_EXPIRED,	/* set by pollguard-check: our last run
				   failed and our claim's horizon passed
				   before we could go; peers no longer
				   count it (pg_handover_ignores) */
	PG_LOST_OVERWRITTEN,	/* set by pollguard-check: a writer on
				   this node replaced our claim before we
				   could lengthen it */
	PG_LOST_SELF		/* set by pollguard-check: our own status
				   cannot be read to tell EXPIRED */
};

/*
 * The claim horizon in ms: 2 * timeout + 1.5 * settle + 1 s. Claims are
 * reported as such for this long; it must be shorter than every wait of
 * a cluster with peers (pg_config_load checks).
 */
int64_t	 pg_claim_horizon(int64_t, int64_t);

/*
 * How long to sleep between the claim and round 2, in ns: settle/2 and
 * 1% more, for the clocks' drift (pollguard(7)).
 */
int64_t	 pg_settle_sleep_ns(int64_t);

/*
 * 1 when the peer's answer announces the fast rule ("deciding" in its
 * status): the pair decides by it.
 */
int	 pg_peer_fast(const struct pg_seen *);

/*
 * The first peer of seen[0..n) that announces the fast rule with a
 * settle or a timeout other than settle_ms and timeout_ms; n when none.
 */
size_t	 pg_settle_disagrees(int64_t, int64_t, const struct pg_seen *, size_t);

/*
 * Decide whether to keep the claim, from the answers of round 2, by one
 * rule for every peer, whatever this node concludes about it
 * (doc/SAFETY.md). A peer that shows a hold makes us withdraw
 * (PG_LOST_HELD); one reachable in round 1 (answered) but not in round 2
 * too (PG_LOST_VANISHED): it may have claimed in between, unseen. A
 * peer that answered never, or at least wait_ms, or that
 * pg_yield_ignores (with c->prev_check_ns, c->yield_slack_ms) or
 * pg_handover_ignores (with c->on_failure) is not active. An active
 * peer:
 * - not reached in round 1 and reporting no claim loses us the round
 *   (PG_LOST_UNSEEN): nothing bounds when it became active;
 * - without the settle sleep (c->slept not set), one that does not
 *   announce the rule (pg_peer_fast) does too (PG_LOST_RULE);
 * - one announcing another settle or timeout does too
 *   (PG_LOST_DISAGREE);
 * - is ignored when its claim certainly lies more than
 *   max(settle/4, visible - claim) after ours and it reports no run
 *   going: it saw ours as the earlier claim;
 * - else, when it announces the rule and our name sorts first
 *   (strcasecmp), is pending (pending[i] set: we keep only if it
 *   withdraws, pg_settle_poll);
 * - else beats us (PG_LOST_EARLIER when it certainly claimed more than
 *   settle/4 before us, else PG_LOST_NAME).
 * Rounds longer than the horizon allows lose (from the start of round 1
 * to the end of round 2: more than horizon - settle/4 - 50ms,
 * PG_LOST_SLOW_ROUND). Returns the verdict (PG_GO keeps the claim;
 * PG_SKIP_* or PG_REFUSE_INVALID withdraw it) and stores the reason in
 * *why and the deciding peer's index in *peer. PG_GO with *why PG_WAIT:
 * peers are pending (pending[0..n), set here to 0 or 1): ask them again.
 */
enum pg_verdict	 pg_settle(const struct pg_claim *, int64_t,
	    enum pg_unreachable, const struct pg_seen *, size_t, int *,
	    enum pg_settle_why *, size_t *);

/*
 * The pending peers asked again (seen[i] matters only where pending[i] is
 * set; c->end_ns is when this ask ended). A peer still deciding stays
 * pending; one that decided with its claim gone (not active, as
 * pg_settle counts it: pg_handover_ignores with c->on_failure) withdrew, and
 * is no longer pending; one that decided and is still active kept it
 * (PG_LOST_KEPT); one that does not answer, or not by the fast rule,
 * makes us withdraw (PG_LOST_POLL). Past the deadline of pg_settle
 * (PG_LOST_SLOW_ROUND) we withdraw, whatever the answers. Returns as pg_settle: PG_GO and
 * PG_WAIT while peers are pending, PG_GO and PG_KEEP when none is left.
 */
enum pg_verdict	 pg_settle_poll(const struct pg_claim *, int64_t,
	    const struct pg_seen *, size_t, int *, enum pg_settle_why *,
	    size_t *);

/*
 * How long the horizon of a kept claim must be, in ms: the configured
 * one, lengthened by however much more than settle/4 the claim took to
 * become visible, so that a peer's round 2 that may still come sees the
 * claim and not a later refresh (pollguard(7)). 0 when that would reach
 * the wait time: the claim must then be withdrawn.
 */
int64_t	 pg_claim_keep_horizon(const struct pg_claim *, int64_t);

/*
 * What pg_settle decided, for people: "keep the claim: go", "withdraw: b
 * claimed earlier", ... s is the deciding peer's answer.
 */
void	 pg_settle_text(enum pg_settle_why, const struct pg_seen *, char *,
	    size_t);

/*
 * 1 when a claim withdrawn for why is worth a warning (a want of time,
 * of an answer or of certainty); 0 when it is the rule at work (another
 * node's claim, a hold, the policy), a decision to log as such.
 */
int	 pg_settle_warns(enum pg_settle_why);

/*
 * peers.c: asking a cluster's peers, all at once, with libcurl's multi
 * interface. Only pollguard-check links this, and so libcurl.
 */

struct pg_round {
	struct pg_seen	*seen;		/* one per peer of the cluster */
	size_t		 n;
	int64_t		 start_ns;	/* CLOCK_BOOTTIME, before any request */
	int64_t		 end_ns;	/* after the last answer */
};

/* Set up libcurl once per process. -1 on failure. */
int	 pg_peers_init(void);

/*
 * Set it nonzero from a signal handler installed without SA_RESTART: a
 * round under way stops waiting for its peers, at once when the signal
 * interrupts the wait, else within a second; the peers it had no answer
 * from read as unreachable. pollguard-check sets it for a signal that
 * withdraws its claim, which must not wait out the timeout.
 */
extern volatile sig_atomic_t pg_peers_stop;

/*
 * Ask every peer of the cluster for its status (GET /v1/status/CLUSTER),
 * in parallel, within the config's timeout for the whole round; a peer
 * that answers 404 without a Pollguard-Node field (a serve before 0.4) is
 * asked GET /v1/elapsed/CLUSTER in the same round, and marked old. Fills
 * r (allocated here; free with pg_round_free). -1 with errno on a local
 * failure (memory, clock).
 */
int	 pg_peers_ask(const struct pg_config *, const struct pg_cluster *,
	    struct pg_round *);

/*
 * pg_peers_ask again, after round prev of the same cluster (or NULL):
 * peers that were old in prev are asked /v1/elapsed at once.
 */
int	 pg_peers_ask_again(const struct pg_config *,
	    const struct pg_cluster *, const struct pg_round *,
	    struct pg_round *);

/*
 * pg_peers_ask_again, asking only the peers i with which[i] set; the
 * others read as unreachable ("not asked").
 */
int	 pg_peers_ask_some(const struct pg_config *,
	    const struct pg_cluster *, const struct pg_round *, const int *,
	    struct pg_round *);
void	 pg_round_free(struct pg_round *);

/*
 * listen.c: the address pollguard-serve listens on, and its open files.
 */

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
	char		 err[PG_LOG_MAX];	/* a damaged record, for LOG_ERR,
						   escaped; "" when none */
};

/*
 * The answer to a client's request. status is what pg_request_parse said
 * of in[0..inlen) (req filled in by it), or 408 (deadline passed) or 400
 * (the client closed mid-request). The allow list is checked first: a
 * refused client gets 403 whatever it sent, and req may then be NULL.
 * Then credentials (401), then the route: /v1/elapsed/CLUSTER (404
 * unknown; its body "never\n" or milliseconds), /v1/elapsed, /metrics.
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
 * The state directory at path for serve, which never creates it: *st,
 * (re)opened when it appeared since, or was removed or replaced (the
 * records are in the one at the path now); NULL while there is none.
 * When there is one that cannot be used (a mode pg_state_open refuses,
 * no permission, not a directory), *st with dirfd -1 and the reason in
 * st->refused: serve must answer 500 then, not "never", which would hide
 * it: peers warn of a 500 and apply their unreachable policy (with
 * "skip", they skip). st->dirfd is -1 before the first call.
 */
struct pg_state	*pg_serve_state(struct pg_state *, const char *);

/*
 * local.c: this node's status of a cluster, from its state directory.
 */

/*
 * Fill in *s for cluster c on this node (node: its name): activity,
 * claim, and what the state directory records of runs and holds. st may
 * be NULL (no state directory yet: never active). 0, or -1 with errno
 * (EBADMSG: a damaged record).
 */
int	 pg_status_local(struct pg_state *, const struct pg_cluster *,
	    const char *, struct pg_status *);

/*
 * pg_status_local as pollguard-serve answers it to peers: with "deciding"
 * (pg_claim_held, tested before the record is read; yes when it cannot be
 * told) and cfg's settle and timeout, when st is not NULL.
 */
int	 pg_status_serve(struct pg_state *, const struct pg_config *,
	    const struct pg_cluster *, struct pg_status *);

/*
 * After pollguard-check kept its claim (rec, as written): does this node
 * still count for its peers? Reads its status (pg_status_local, for node)
 * and the clock, and judges it as a peer would (pg_handover_ignores, by
 * on_failure = handover), its claim counted only while more than
 * settle_ms/4 + 50 ms of the horizon are left. 1 when still counted;
 * else 0 and *why: PG_LOST_SELF (the status cannot be read),
 * PG_LOST_HELD (a hold on this node) or PG_LOST_EXPIRED. *self is this
 * node's answer as judged, for pg_settle_text.
 */
int	 pg_still_counted(struct pg_state *, const struct pg_cluster *,
	    const char *, int64_t, const struct pg_stamp *,
	    enum pg_settle_why *, struct pg_seen *);

/*
 * conn.c: one client connection. pollguard-serve polls; these accept
 * it, read the request head (at most PG_REQ_HEAD_MAX bytes, within the
 * config's timeout), answer it (pg_serve_answer), write the answer and
 * close lingering. No syslog, no exits: a call that answers returns 1,
 * and the answer's log lines are then in c->reply (level, log, err) for
 * the caller to log.
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
	int64_t		 deadline;	/* ms of pg_conn_clock */
	char		*in;
	size_t		 inlen, incap;
	char		*out;
	size_t		 outlen, outoff;
	size_t		 drained;
	int		 whole;		/* read: one whole head, nothing more */
	struct pg_client client;
	struct pg_reply	 reply;		/* once answered: the log lines */
};

/* The clock of deadlines: PG_CONN_CLOCK in ms. -1 with errno. */
#define PG_CONN_CLOCK	CLOCK_MONOTONIC
int	 pg_conn_clock(int64_t *);

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
 * cfg (NULL: PG_CONN_DRAIN_MS). Its log lines go to c->reply.
 */
void	 pg_conn_reply(struct pg_conn *, struct pg_reply *,
	    const struct pg_config *);

/*
 * PG_CONN_READ and input ready: read it, and answer once the head is
 * complete or cannot be. The client's end of input before that is a bad
 * request (400); with nothing read, no request needs no answer and the
 * connection is PG_CONN_DONE. Records come from the state directory of
 * cfg, held in *st (pg_serve_state). 1 when answered, else 0.
 */
int	 pg_conn_read(struct pg_conn *, const struct pg_config *,
	    struct pg_state *);

/*
 * At now (pg_conn_clock) past the deadline: a request still being read
 * is answered 408 (return 1); any other connection is PG_CONN_DONE.
 * Else, and before the deadline, 0.
 */
int	 pg_conn_expire(struct pg_conn *, int64_t, const struct pg_config *,
	    struct pg_state *);

/*
 * PG_CONN_WRITE: write what the client takes; once all is out, shut down
 * the writing side and drain (PG_CONN_DRAIN), at most PG_CONN_DRAIN_MS;
 * or, when the client sent one whole request head and nothing after it
 * and no byte waits unread on the socket, close at once (PG_CONN_DONE).
 */
void	 pg_conn_write(struct pg_conn *);

/*
 * PG_CONN_DRAIN and input ready: one read, so that a blocking descriptor
 * blocks once. Done at the client's end of input, an error, or once
 * PG_CONN_DRAIN_MAX bytes were read.
 */
void	 pg_conn_drain(struct pg_conn *);

/* Close rfd (wfd is the same socket, or stdout) and free c. */
void	 pg_conn_free(struct pg_conn *);

/*
 * Refuse a connection (fd, from accept; client address from) beyond the
 * limit of nconn open ones: read what it already sent, a 503 if it fits
 * in the socket, close fd. r holds the log line (LOG_NOTICE).
 */
void	 pg_conn_refuse(int, const void *, int, struct pg_reply *);

/*
 * Become user (the config's run_as; "" or not root: stay as is), after
 * binding and before any connection is read. 0, or the exit status
 * (EX_NOUSER: no such user, EX_OSERR: not dropped) and why in err.
 */
int	 pg_drop_privileges(const char *, char *, size_t);

/* What to poll for c (PG_CONN_WRITE: output on wfd, else input on rfd). */
struct pollfd;
void	 pg_conn_poll(const struct pg_conn *, struct pollfd *);

/*
 * c's descriptor is ready: read it (PG_CONN_READ, pg_conn_read) or drain
 * it (PG_CONN_DRAIN, pg_conn_drain). 1 when answered, else 0.
 */
int	 pg_conn_ready(struct pg_conn *, const struct pg_config *,
	    struct pg_state *);

/*
 * 1 when fd is a socket, as inetd, xinetd, systemd (Accept=yes) and socat
 * give on stdin; else 0.
 */
int	 pg_conn_is_socket(int);

/*
 * Accept a connection waiting on the listening socket lfd (non-blocking)
 * into conns, which hold *n of at most max, and read at once what it has
 * sent (pg_conn_read); one beyond max is refused (pg_conn_refuse, into
 * *r). 0 and *log: the reply to log (*r, or the new connection's), or
 * NULL (none yet, or no memory for it: closed). -1 with errno when none
 * was accepted (EAGAIN: none is waiting; EMFILE, ENFILE: out of
 * descriptors).
 */
int	 pg_conn_accept(int, struct pg_conn **, size_t *, size_t,
	    const struct pg_config *, struct pg_state *, struct pg_reply *,
	    const struct pg_reply **);

/*
 * fleet.c: what pollguard-status shows of a cluster across its nodes:
 * which node would go next, and the table and JSON it prints. Pure: no
 * I/O; the tool fills in one struct pg_fleet per cluster.
 */

/*
 * One node as pollguard-status reached it, which is taken for what the
 * check of every other node reaches too. kind: its answer, as in a
 * check's round (ELAPSED or NEVER: it answered, and which one is
 * st.elapsed_ms's to say). This node (self) is read from its state
 * directory: when its record cannot be read, kind is UNREACHABLE, what
 * the 500 its serve answers then is to its peers' checks.
 */
struct pg_fleet_node {
	const char	*name;
	int		 self;		/* this node */
	enum pg_answer_kind kind;
	int		 has_status;	/* it answered its status (0.4 on) */
	char		 why[PG_ERR_MAX];	/* why it did not answer, for
						   people, escaped; or "" */
	struct pg_status st;	/* has_status: all of it; else, when it
				   answered (before 0.4), elapsed_ms only;
				   else pg_status_init */
};

/* One cluster: its nodes, this node among them. */
struct pg_fleet {
	const struct pg_cluster *cluster;	/* its config: the rule */
	struct pg_fleet_node *nodes;
	size_t		 n;
	size_t		 holder;	/* backend etcd: the node whose lease
					   holds the key; n or more: none */
};

#define PG_NEXT_TEXT_MAX	(PG_STATUS_TEXT_MAX * 6)

struct pg_next {
	enum pg_reason	 reason;
	size_t		 node;		/* the node it names; n: none */
	char		 text[PG_NEXT_TEXT_MAX];	/* for people */
};

/*
 * Who would go next: the decision each node's pollguard-check makes
 * now (pg_decide's round 1, as bin/pollguard-check.c calls it), from its
 * own status and what the others show. A run going, a check deciding or
 * a claim kept on a node makes its check skip (LOCAL). A node before
 * 0.4 decides as 0.3 did: pg_decide without its own status, the others'
 * unseen, no prefer; that a run is going there is not seen (a run keeps
 * its node active). A node that did not answer is not predicted (taken
 * for down), nor is one whose checks have not run within wait and
 * prefer_slack by its status (its cron does not run). Then, nx->reason:
 * - GO, no node: two checks or more would go; the race closure picks one.
 * - ACTIVE: node was active within wait, and no other check would go;
 *   its check would go, or a run, a claim or a check is going on there
 *   (before 0.4: its run, not seen).
 * - PREFERRED, or GO: node's check alone would go; PREFERRED when prefer
 *   is applied.
 * - no check would go: HELD (the node with the longest hold), INVALID
 *   (this node cannot read its own record, or checks refuse for the
 *   node's answer), UNREACHABLE (checks skip for it, unreachable =
 *   skip), ACTIVE (a run, claim or check going on node, active within
 *   wait, keeps it polling), else EACH (each check skips for a reason of
 *   its own: the text lists them).
 * With backend = etcd, etcd orders the claims: the holder goes again
 * (ACTIVE), nobody while etcd does not answer (UNREACHABLE, INVALID),
 * otherwise anyone (GO). 0, or -1 and ENOMEM.
 */
int	 pg_fleet_next(const struct pg_fleet *, struct pg_next *);

/*
 * The table for people: a header, a line per node of each cluster and a
 * "next" line per cluster, in aligned columns, no trailing blanks. A
 * malloc'd string, or NULL with errno.
 */
char	*pg_fleet_table(const struct pg_fleet *, size_t);

/*
 * The same as one JSON object and a newline (pollguard-status(1) has the
 * schema): version and node are this node's. Strings are escaped: '"',
 * '\\', control characters and bytes above 0x7e as \uXXXX. A malloc'd
 * string, or NULL with errno.
 */
char	*pg_fleet_json(const char *, const char *, const struct pg_fleet *,
	    size_t);

/*
 * lease.c: this node's hold on an etcd-backed cluster, as pollguard-check
 * recorded it after a go, in ".CLUSTER.lease": the lease the key is
 * attached to (pollguard-touch keeps it alive, -r revokes it), the key's
 * create_revision (the fencing token) and the lease's TTL. No libcurl,
 * no jansson: pollguard-serve reads it for its local view.
 */
struct pg_lease {
	int64_t		 id;		/* the etcd lease ID, > 0 */
	int64_t		 revision;	/* the key's create_revision, > 0 */
	int64_t		 ttl_s;		/* the TTL granted, in seconds */
};

#define PG_LEASE_MAX	128	/* the lease file, in bytes */

/* The file's text (the length, -1 when it does not fit) and back (0, or
   -1 with EBADMSG: only the exact text format writes is read). */
int	 pg_lease_format(const struct pg_lease *, char *, size_t);
int	 pg_lease_parse(const char *, size_t, struct pg_lease *);

/* Read: 1 and *l, 0 when there is none, -1 with errno. */
int	 pg_lease_read(struct pg_state *, const char *, struct pg_lease *);
int	 pg_lease_write(struct pg_state *, const char *, const struct pg_lease *);
int	 pg_lease_remove(struct pg_state *, const char *);

/*
 * etcdjson.c: etcd's answers (the v3 HTTP/JSON gateway), read with
 * jansson. Pure: no I/O.
 */
#define PG_ETCD_ANSWER_MAX	(64 * 1024)	/* bytes of an answer read */
#define PG_ETCD_KEY_MAX		256		/* PREFIX and cluster ID */
#define PG_ETCD_VALUE_MAX	256
#define PG_ETCD_TOKEN_MAX	512
#define PG_ETCD_TTL_MAX		9000000000LL	/* etcd's MaxLeaseTTL, s */

enum pg_etcd_op {
	PG_ETCD_AUTH,		/* /v3/auth/authenticate */
	PG_ETCD_GRANT,		/* /v3/lease/grant */
	PG_ETCD_KEEPALIVE,	/* /v3/lease/keepalive */
	PG_ETCD_TTL,		/* /v3/lease/timetolive */
	PG_ETCD_REVOKE,		/* /v3/lease/revoke */
	PG_ETCD_TXN,		/* /v3/kv/txn: create-if-absent, else range */
	PG_ETCD_RANGE		/* /v3/kv/range of one key */
};

struct pg_etcd_kv {
	int64_t		 create_revision;	/* > 0 */
	int64_t		 mod_revision;
	int64_t		 lease;			/* 0: none */
	char		 value[PG_ETCD_VALUE_MAX];	/* NUL added */
	size_t		 valuelen;
};

struct pg_etcd_reply {
	int		 error;		/* etcd answered an error: */
	int		 code;		/* its gRPC code; -1: not said */
	char		 message[PG_WHY_MAX];	/* its message, raw */
	int64_t		 revision;	/* the header's */
	char		 token[PG_ETCD_TOKEN_MAX];	/* AUTH */
	int64_t		 id, ttl;	/* GRANT, KEEPALIVE (ttl 0: the lease
					   is gone), TTL (ttl -1: expired) */
	int		 succeeded;	/* TXN: the key was created */
	int		 found;		/* TXN failed, RANGE: the key's kv */
	struct pg_etcd_kv kv;
};

/*
 * Read the answer buf[0..len) to op about key (the key asked for, NUL
 * terminated; kvs of another key are refused). 0 and *r: an answer
 * (r->error set when it is etcd's error). -1 (errno EBADMSG, *r zeroed)
 * and a reason for people in why: not JSON, a duplicate member, more
 * than PG_ETCD_ANSWER_MAX bytes, a member of the wrong type or out of
 * range, a txn that failed without the key's range, ...
 */
int	 pg_etcd_parse(enum pg_etcd_op, const char *, const char *, size_t,
	    struct pg_etcd_reply *, char *, size_t);

/*
 * The node named by a key's value ("node NAME\n", more lines ignored):
 * 0, or -1 when the value is not pollguard's (node is then "").
 */
int	 pg_etcd_value(const struct pg_etcd_kv *, char *, size_t);

/* Base64 (RFC 4648, padded, canonical) of src into dst: the length, -1. */
int	 pg_base64_decode(const char *, size_t, void *, size_t);

/*
 * etcd.c: the etcd client, over libcurl. Endpoints are tried in order:
 * one that cannot be reached, times out, or answers that it has no
 * leader or quorum passes the request to the next; one that answers
 * stays in use. Every request is bounded by [etcd] timeout, every
 * answer by PG_ETCD_ANSWER_MAX. With [etcd] user, a token is asked for
 * at each endpoint before its first request.
 */
enum pg_etcd_result {
	PG_ETCD_OK = 0,
	PG_ETCD_HELD,		/* claim: another lease holds the key */
	PG_ETCD_LOST,		/* keepalive, revoke: the lease is gone */
	PG_ETCD_UNREACHABLE,	/* no endpoint answered: exit 3 */
	PG_ETCD_REFUSED,	/* credentials, permission, TLS: exit 76 */
	PG_ETCD_INVALID,	/* an answer that is not etcd's: exit 76 */
	PG_ETCD_ERROR		/* a local failure (memory): errno */
};

struct pg_etcd_conn;

/* Set up libcurl once per process. -1 on failure. */
int	 pg_etcd_init(void);

/* A client for the config's [etcd]; NULL with errno. */
struct pg_etcd_conn *pg_etcd_open(const struct pg_config *);
void	 pg_etcd_close(struct pg_etcd_conn *);

/*
 * The last failure, for people, escaped: "http://a:2379: Connection
 * refused", "etcdserver: permission denied", ...
 */
const char	*pg_etcd_why(const struct pg_etcd_conn *);

/* The key of a cluster: PREFIX and ID. */
int	 pg_etcd_key(const struct pg_config *, const char *, char *, size_t);

/* What a claim found: the key's holder. */
struct pg_etcd_holder {
	char		 node[PG_NAME_MAX + 1];	/* "": not pollguard's value */
	int64_t		 lease;
	int64_t		 revision;	/* its create_revision */
};

/*
 * Claim cluster c for node: grant a lease of the cluster's wait and
 * create the key on it in one transaction that succeeds only if the key
 * does not exist. mine (or NULL) is this node's lease record: when the
 * key is on that lease, this node still holds it: the lease is kept
 * alive and the claim is OK with the record unchanged. OK: *l is the
 * lease now held. HELD: *h names the holder (the lease granted is
 * revoked). Else the failure.
 */
enum pg_etcd_result pg_etcd_claim(struct pg_etcd_conn *,
	    const struct pg_cluster *, const char *, const struct pg_lease *,
	    struct pg_lease *, struct pg_etcd_holder *);

/* Read the key: OK and *h (found 1), or OK with found 0, or a failure. */
enum pg_etcd_result pg_etcd_peek(struct pg_etcd_conn *,
	    const struct pg_cluster *, struct pg_etcd_holder *, int *);

/* A lease's time left in seconds (-1: expired). */
enum pg_etcd_result pg_etcd_ttl(struct pg_etcd_conn *, int64_t, int64_t *);

/*
 * Keep a lease alive: OK and the TTL renewed in *ttl_s, or LOST. until
 * (CLOCK_BOOTTIME ms, 0: none) bounds the whole attempt, every endpoint
 * tried: each try's timeouts are cut to the time left, and none is made
 * once it has passed (UNREACHABLE).
 */
enum pg_etcd_result pg_etcd_keepalive(struct pg_etcd_conn *, int64_t,
	    int64_t, int64_t *);

/* Revoke a lease, deleting the key on it: OK, or LOST (not there). */
enum pg_etcd_result pg_etcd_revoke(struct pg_etcd_conn *, int64_t);

#endif /* POLLGUARD_H */
