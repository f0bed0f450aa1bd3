/*
 * pollguard: the core library shared by pollguard-check, pollguard-touch
 * and (later) pollguard-serve.
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
#include <stddef.h>
#include <stdint.h>

#define PG_VERSION		"0.1.0"
#define PG_CONF_DEFAULT		"/etc/pollguard.conf"
#define PG_STATE_DEFAULT	"/var/lib/pollguard"
#define PG_CONF_ENV		"POLLGUARD_CONF"

#define PG_NAME_MAX	64	/* cluster IDs, peer and node names */
#define PG_VALUE_MAX	200	/* inih reads at most 199 characters a line */
#define PG_PEERS_MAX	256
#define PG_CLUSTERS_MAX	256
#define PG_ALLOW_MAX	64
#define PG_ERR_MAX	512	/* size for error buffers */

#define PG_WAIT_MIN_MS		(10LL * 1000)
#define PG_WAIT_MAX_MS		(30LL * 24 * 3600 * 1000)
#define PG_NEVER		INT64_MAX	/* elapsed: never active */

/*
 * duration.c
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
 * True when the string is a valid cluster ID: 1 to PG_NAME_MAX characters
 * of [A-Za-z0-9._-], not starting with '.' or '-'. IDs name state files
 * and URL path segments, and are command-line arguments.
 */
int	 pg_cluster_id_valid(const char *);

/* The same rule for peer and node names. */
int	 pg_peer_name_valid(const char *);

/*
 * config.c
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

struct pg_cluster {
	char		 id[PG_NAME_MAX + 1];
	char		 name[PG_VALUE_MAX];
	int64_t		 wait_ms;
	enum pg_unreachable unreachable;
	size_t		*peers;		/* indices into pg_config.peers */
	size_t		 npeers;	/* 0: standalone */
	int		 line;
};

struct pg_serve {
	char		 listen[PG_VALUE_MAX];	/* empty: inetd mode */
	char		 user[PG_VALUE_MAX];
	char		 password[PG_VALUE_MAX];
	char		 run_as[PG_NAME_MAX + 1];
	struct pg_net	 allow[PG_ALLOW_MAX];
	size_t		 nallow;		/* 0: any client */
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
 * *net; return 0, or -1 when it is not one.
 */
int	 pg_net_parse(const char *, struct pg_net *);

/* True when the address (family, network byte order) lies in the range. */
int	 pg_net_match(const struct pg_net *, int, const void *);

/*
 * state.c
 */

#define PG_BOOT_ID_LEN	36

/* A moment on this host, or an activity record. */
struct pg_stamp {
	char		 boot_id[PG_BOOT_ID_LEN + 1];	/* "" when unknown */
	int64_t		 mono_ns;	/* CLOCK_BOOTTIME: counts suspend */
	int64_t		 wall_ns;	/* CLOCK_REALTIME, only across reboots */
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
 * The record as written to disk, and back. format: the length written, or
 * -1 when it does not fit. parse: 0, or -1 with EBADMSG when malformed.
 */
int	 pg_stamp_format(const struct pg_stamp *, char *, size_t);
int	 pg_stamp_parse(const char *, size_t, struct pg_stamp *);

struct pg_state {
	int		 dirfd;
	char		 path[PATH_MAX];
};

/*
 * Open the state directory, creating its last component (mode 0755) when
 * it is missing and create is set; with create, also remove temporary
 * files that writers killed mid-write left behind (older than a minute).
 * Refuses a path that is not absolute,
 * not a directory, or writable by group or others. On failure return -1
 * and write the reason, naming the directory, to err.
 */
int	 pg_state_open(struct pg_state *, const char *, int, char *, size_t);
void	 pg_state_close(struct pg_state *);

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

/* write(2) all of a buffer, going on after EINTR. -1 with errno. */
int	 pg_write_all(int, const void *, size_t);

/* pg_state_write of pg_stamp_now. */
int	 pg_state_touch(struct pg_state *, const char *);

/* Remove the record: the cluster reads as never. No record is success. */
int	 pg_state_remove(struct pg_state *, const char *);

/*
 * Take the cluster's run lock without waiting. 1: taken, the descriptor
 * in *fd (close-on-exec; the lock lasts until it is closed). 0: another
 * process holds it. -1: failure, errno set.
 */
int	 pg_lock_take(struct pg_state *, const char *, int *);

/* 1 when a process holds the run lock, 0 when not, -1 on failure. */
int	 pg_lock_held(struct pg_state *, const char *);

/*
 * decide.c: the rule that turns answers into a verdict. Pure: no I/O.
 */

enum pg_answer_kind {
	PG_ANSWER_ELAPSED,	/* elapsed_ms is valid */
	PG_ANSWER_NEVER,	/* the peer never polled */
	PG_ANSWER_UNREACHABLE,	/* refused, timed out, no DNS, 5xx */
	PG_ANSWER_INVALID	/* 401, 403, 404, nonsense: misconfiguration */
};

struct pg_answer {
	enum pg_answer_kind kind;
	int64_t		 elapsed_ms;
};

enum pg_verdict {
	PG_GO = 0,		/* exit 0 */
	PG_SKIP_ACTIVE = 1,	/* exit 1: a peer was active within wait */
	PG_SKIP_LOCAL = 2,	/* exit 2: a run on this node still going */
	PG_SKIP_UNREACHABLE = 3,/* exit 3: unreachable peer, policy skip */
	PG_REFUSE_INVALID = 4	/* a peer answered nonsense: an error */
};

struct pg_decision {
	enum pg_verdict	 verdict;
	int		 standalone;	/* go for want of peers: warn */
	size_t		 peer;		/* index of the deciding peer */
};

/*
 * Decide for one round. In order: a local run still holding the lock
 * skips; a peer whose elapsed is below wait (strictly; equal allows)
 * skips; an invalid answer refuses; an unreachable peer skips when the
 * policy says so; otherwise go. With no peers, go, standalone.
 */
void	 pg_decide(int64_t, enum pg_unreachable, int,
	    const struct pg_answer *, size_t, struct pg_decision *);

#endif /* POLLGUARD_H */
