/*
 * state.c: the state directory. Stamps of this host's clocks, the record
 * format, and the records themselves: read by anyone, replaced atomically
 * by writers that exclude each other; the outcome of the job's runs; the
 * run lock and the claim lock; a hold on the cluster; when checks ran.
 */
#include <sys/file.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#endif
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pollguard.h"

#define MAGIC		"pollguard-state 1 "
#define RECORD_MAX	PG_RECORD_MAX
#define BOOT_ID_FILE	"/proc/sys/kernel/random/boot_id"

static void
boot_id(char *buf)
{
	static char	 cached[PG_BOOT_ID_LEN + 1];
	static int	 done;
	char		 tmp[PG_BOOT_ID_LEN + 2];
	ssize_t		 n;
	int		 fd;

	if (!done) {
		done = 1;
		if ((fd = open(BOOT_ID_FILE, O_RDONLY | O_CLOEXEC)) != -1) {
			n = read(fd, tmp, sizeof(tmp));
			close(fd);
			if (n == PG_BOOT_ID_LEN + 1 &&
			    tmp[PG_BOOT_ID_LEN] == '\n' &&
			    strspn(tmp, "0123456789abcdef-") ==
			    PG_BOOT_ID_LEN)
				memcpy(cached, tmp, PG_BOOT_ID_LEN);
		}
	}
	memcpy(buf, cached, sizeof(cached));
}

int
pg_stamp_now(struct pg_stamp *st)
{
	st->claim_ns = st->horizon_ms = 0;
	boot_id(st->boot_id);
	if (pg_clock(CLOCK_BOOTTIME, &st->mono_ns) == -1 ||
	    pg_clock(CLOCK_REALTIME, &st->wall_ns) == -1)
		return -1;
	if (st->wall_ns < 0)
		st->wall_ns = 0;
	return 0;
}

static int
same_boot(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	/* Without boot IDs, a monotonic clock behind the record means a reboot. */
	if (rec->boot_id[0] != '\0' && now->boot_id[0] != '\0')
		return strcmp(rec->boot_id, now->boot_id) == 0;
	return rec->mono_ns <= now->mono_ns;
}

/* The record's claim is there and its horizon has not passed. */
static int
in_horizon(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	return rec->claim_ns > 0 && same_boot(rec, now) &&
	    now->mono_ns >= rec->claim_ns &&
	    (now->mono_ns - rec->claim_ns) / 1000000 < rec->horizon_ms;
}

int64_t
pg_stamp_elapsed(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	int64_t	 up, wall;

	if (same_boot(rec, now))
		return now->mono_ns > rec->mono_ns ?
		    (now->mono_ns - rec->mono_ns) / 1000000 : 0;
	up = now->mono_ns / 1000000;
	wall = (now->wall_ns - rec->wall_ns) / 1000000;
	return wall > up ? wall : up;
}

int64_t
pg_record_elapsed(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	if (in_horizon(rec, now))
		return (now->mono_ns - rec->claim_ns) / 1000000;
	return pg_stamp_elapsed(rec, now);
}

int
pg_stamp_format(const struct pg_stamp *st, char *buf, size_t len)
{
	int	 r;

	if (st->claim_ns > 0)
		r = snprintf(buf, len, MAGIC "%s %" PRId64 " %" PRId64 " %"
		    PRId64 " %" PRId64 "\n", st->boot_id[0] != '\0' ?
		    st->boot_id : "-", st->mono_ns, st->wall_ns, st->claim_ns,
		    st->horizon_ms);
	else
		r = snprintf(buf, len, MAGIC "%s %" PRId64 " %" PRId64 "\n",
		    st->boot_id[0] != '\0' ? st->boot_id : "-", st->mono_ns,
		    st->wall_ns);
	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return r;
}

static int
parse_ns(const char *s, size_t n, int64_t *ns)
{
	char		 digits[24];
	const char	*errstr;

	if (n == 0 || n >= sizeof(digits) || strspn(s, "0123456789") < n)
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	*ns = strtonum(digits, 0, INT64_MAX, &errstr);
	return errstr == NULL ? 0 : -1;
}

static int
bad(struct pg_stamp *st)
{
	memset(st, 0, sizeof(*st));
	errno = EBADMSG;
	return -1;
}

int
pg_stamp_parse(const char *buf, size_t len, struct pg_stamp *st)
{
	const char	*p, *end, *sp;
	size_t		 n;

	memset(st, 0, sizeof(*st));
	if (len <= sizeof(MAGIC) - 1 || len > RECORD_MAX ||
	    buf[len - 1] != '\n' || memchr(buf, '\0', len) != NULL ||
	    memcmp(buf, MAGIC, sizeof(MAGIC) - 1) != 0)
		goto bad;
	p = buf + sizeof(MAGIC) - 1;
	end = buf + len - 1;

	if ((sp = memchr(p, ' ', end - p)) == NULL)
		goto bad;
	n = sp - p;
	if (n == 1 && *p == '-')
		st->boot_id[0] = '\0';
	else if (n == PG_BOOT_ID_LEN &&
	    strspn(p, "0123456789abcdef-") >= PG_BOOT_ID_LEN)
		memcpy(st->boot_id, p, PG_BOOT_ID_LEN);
	else
		goto bad;
	p = sp + 1;
	if ((sp = memchr(p, ' ', end - p)) == NULL ||
	    parse_ns(p, sp - p, &st->mono_ns) == -1)
		goto bad;
	p = sp + 1;
	/* Then the wall clock, or that and a claim: moment and horizon. */
	if ((sp = memchr(p, ' ', end - p)) == NULL)
		return parse_ns(p, end - p, &st->wall_ns) == -1 ? bad(st) : 0;
	if (parse_ns(p, sp - p, &st->wall_ns) == -1)
		goto bad;
	p = sp + 1;
	if ((sp = memchr(p, ' ', end - p)) == NULL ||
	    parse_ns(p, sp - p, &st->claim_ns) == -1 || st->claim_ns == 0 ||
	    parse_ns(sp + 1, end - sp - 1, &st->horizon_ms) == -1 ||
	    st->claim_ns > st->mono_ns || st->horizon_ms > PG_WAIT_MAX_MS)
		goto bad;
	return 0;
bad:
	return bad(st);
}

#define TMP_PREFIX	".tmp."
#define TMP_HEX		16	/* put's name: TMP_PREFIX and 16 hex digits */
#define TMP_STALE_S	60

/*
 * A name put gives its temporary files, exactly: the lock files of a
 * cluster named "tmp" or "tmp.x" (".tmp.lock", ".tmp.x.rec") also begin
 * with TMP_PREFIX, and removing a lock file while it is held would let a
 * second holder in.
 */
static int
is_tmp_name(const char *name)
{
	const char	*hex = name + sizeof(TMP_PREFIX) - 1;

	return strncmp(name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) == 0 &&
	    strlen(hex) == TMP_HEX && strspn(hex, "0123456789abcdef") ==
	    TMP_HEX;
}

/*
 * A writer killed between creating its temporary file and renaming it
 * leaves the file behind. Remove those that are clearly abandoned; a
 * writer in progress is younger than a second.
 */
static void
sweep(struct pg_state *st)
{
	struct dirent	*de;
	struct stat	 sb;
	DIR		*d;
	time_t		 now = time(NULL);
	int		 fd;

	if ((fd = dup(st->dirfd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (is_tmp_name(de->d_name) && fstatat(st->dirfd,
		    de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(sb.st_mode) &&
		    sb.st_mtime < now - TMP_STALE_S)
			unlinkat(st->dirfd, de->d_name, 0);
	closedir(d);
}

int
pg_state_open(struct pg_state *st, const char *path, int create, char *err,
    size_t errlen)
{
	struct stat	 sb;
	int		 created = 0;

	st->dirfd = st->recfd = -1;
	st->undolen = -1;
	st->refused[0] = '\0';
	if (path[0] != '/') {
		snprintf(err, errlen, "state directory %s: not an absolute "
		    "path", path);
		errno = EINVAL;
		return -1;
	}
	if (strlcpy(st->path, path, sizeof(st->path)) >= sizeof(st->path)) {
		snprintf(err, errlen, "state directory %s: name too long",
		    path);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (create && mkdir(path, 0755) == 0)
		created = 1;
	else if (create && errno != EEXIST) {
		snprintf(err, errlen, "cannot create state directory %s: %s",
		    path, strerror(errno));
		return -1;
	}
	/* 0755 whatever the umask: pollguard-serve reads it as another user. */
	if ((st->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1 || (created && fchmod(st->dirfd, 0755) == -1) ||
	    fstat(st->dirfd, &sb) == -1) {
		snprintf(err, errlen, "state directory %s: %s", path,
		    strerror(errno));
		pg_state_close(st);
		return -1;
	}
	st->dev = sb.st_dev;
	st->ino = sb.st_ino;
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		/* Shared, like /tmp: chmod would be the wrong advice. */
		if (sb.st_mode & S_ISVTX)
			snprintf(err, errlen, "state directory %s is shared "
			    "(mode %04o): give pollguard a directory of its "
			    "own, writable by its owner only", path,
			    (unsigned int)(sb.st_mode & 07777));
		else
			snprintf(err, errlen, "state directory %s is writable "
			    "by group or others (mode %04o); run: chmod go-w "
			    "%s", path, (unsigned int)(sb.st_mode & 07777),
			    path);
		pg_state_close(st);
		errno = EPERM;	/* not ENOENT: serve must not take it as absent */
		return -1;
	}
	if (create)
		sweep(st);
	return 0;
}

void
pg_state_close(struct pg_state *st)
{
	/* recfd is set only by pg_state_open, which sets dirfd too. */
	if (st->dirfd != -1 && st->recfd != -1)
		close(st->recfd);
	if (st->dirfd != -1)
		close(st->dirfd);
	st->dirfd = st->recfd = -1;
}

/*
 * Read a whole small file of the directory: its length, 0 when absent.
 * No fstat (pollguard-serve reads a record for every request): a record
 * is replaced by rename, never rewritten, so one read sees all of it,
 * and a file that fills buf is read once more to tell "exactly len"
 * from "too long". Anything but a regular file of 1 to len bytes is
 * EBADMSG: a directory fails the read (EISDIR), a FIFO gives EOF or
 * EAGAIN (O_NONBLOCK: one planted here must not hang the reader), and
 * a device (only root can make one) gives too little, too much, or
 * bytes that are no record.
 */
static ssize_t
read_small(struct pg_state *st, const char *name, char *buf, size_t len)
{
	ssize_t		 n, more;
	char		 b;
	int		 fd, saved;

	fd = openat(st->dirfd, name,
	    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	while ((n = read(fd, buf, len)) == -1 && errno == EINTR)
		;
	more = 0;
	if (n == (ssize_t)len)
		while ((more = read(fd, &b, 1)) == -1 && errno == EINTR)
			;
	if (n == -1 || more == -1) {
		if (errno != EISDIR && errno != EAGAIN)
			goto fail;
		n = 0;
	}
	if (n == 0 || more != 0) {
		errno = EBADMSG;
		goto fail;
	}
	close(fd);
	return n;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

ssize_t
pg_state_read_raw(struct pg_state *st, const char *cluster, char *buf,
    size_t len)
{
	return read_small(st, cluster, buf, len < RECORD_MAX ? len :
	    RECORD_MAX);
}

int
pg_state_read(struct pg_state *st, const char *cluster, struct pg_stamp *rec)
{
	char		 buf[RECORD_MAX];
	ssize_t		 n;

	if ((n = pg_state_read_raw(st, cluster, buf, sizeof(buf))) <= 0)
		return n;
	return pg_stamp_parse(buf, n, rec) == -1 ? -1 : 1;
}

int
pg_write_all(int fd, const void *p, size_t len)
{
	const char	*buf = p;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/* Replace the record with these bytes: temporary file, fsync, rename. */
static int
put(struct pg_state *st, const char *cluster, const char *buf, size_t len)
{
	char	 tmp[32];
	int	 fd, saved;

	/* Cluster IDs never start with a dot, so this cannot clash. */
	snprintf(tmp, sizeof(tmp), TMP_PREFIX "%08x%08x", arc4random(),
	    arc4random());
	fd = openat(st->dirfd, tmp,
	    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd == -1)
		return -1;
	/*
	 * 0644 whatever the umask: pollguard-serve reads it as another user.
	 * fsync first, so that after a power cut the new name has data.
	 */
	if (fchmod(fd, 0644) == -1 || pg_write_all(fd, buf, len) == -1 ||
	    fsync(fd) == -1) {
		saved = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) == -1) {
		saved = errno;
		goto fail;
	}
	if (renameat(st->dirfd, tmp, st->dirfd, cluster) == -1) {
		saved = errno;
		goto fail;
	}
	return 0;
fail:
	unlinkat(st->dirfd, tmp, 0);
	errno = saved;
	return -1;
}

/*
 * The record lock: an flock(2) lock on ".CLUSTER.rec", held by every
 * writer of the record (write, touch, claim, restore, remove) around its
 * read-modify-write, so that a restore's "is my claim still there?" and
 * its rename are one step that no touch can fall between.
 *
 * Lock order: claim lock (".CLUSTER.claim") -> record lock, never the
 * reverse: nothing takes the claim lock while holding the record lock.
 * The run lock (".CLUSTER.lock") is never waited for (pg_lock_take and
 * pg_claim_lock do not wait; pg_lock_held only tests). The record lock
 * is held only inside the functions below, across a few system calls and
 * one fsync, and nothing else is taken or waited for while it is held: no
 * cycle is possible.
 *
 * Readers (pollguard-serve, pg_state_read) never take it: a record is
 * replaced by rename, so a reader sees the old one or the new one, never
 * waits, and needs no write access to the directory. The lock file is
 * created by the first writer, mode 0600 (anyone who could open it could
 * hold the lock and stall every writer), and never removed: removing a
 * lock file that is held would let a second holder in. sweep() leaves it.
 * A writer killed while holding the lock holds it no longer: the kernel
 * closes its descriptors, and the flock lock goes with the last one.
 *
 * The descriptor is opened once per state handle, cluster and process
 * (pollguard-touch -f refreshes every second: one flock pair each time,
 * no open) and is close-on-exec. flock locks belong to the open file
 * description, which a forked child shares: a child (a new PID) opens its
 * own, so that it excludes its parent as any other process would.
 */
static int	 lock_open(struct pg_state *, const char *, const char *, int);

static int
rec_lock(struct pg_state *st, const char *cluster)
{
	pid_t	 pid = getpid();

	if (strlen(cluster) > PG_NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (st->recfd != -1 && (st->recpid != pid ||
	    strcmp(st->reccluster, cluster) != 0)) {
		close(st->recfd);	/* a child's close leaves the lock */
		st->recfd = -1;
	}
	if (st->recfd == -1) {
		if ((st->recfd = lock_open(st, cluster, "rec",
		    O_RDONLY | O_CREAT)) == -1)
			return -1;
		st->recpid = pid;
		strlcpy(st->reccluster, cluster, sizeof(st->reccluster));
	}
	/* EINTR: check's signal handlers do not restart; the lock must. */
	while (flock(st->recfd, LOCK_EX) == -1)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* Release the record lock; errno stays what the writer left. */
static void
rec_unlock(struct pg_state *st)
{
	int	 saved = errno;

	flock(st->recfd, LOCK_UN);
	errno = saved;
}

static int
write_locked(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec)
{
	char	 buf[RECORD_MAX];
	int	 len;

	if ((len = pg_stamp_format(rec, buf, sizeof(buf))) == -1)
		return -1;
	return put(st, cluster, buf, len);
}

int
pg_state_write(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec)
{
	int	 r;

	if (rec_lock(st, cluster) == -1)
		return -1;
	r = write_locked(st, cluster, rec);
	rec_unlock(st);
	return r;
}

int
pg_state_touch(struct pg_state *st, const char *cluster)
{
	struct pg_stamp	 now, old;
	int		 r;

	if (rec_lock(st, cluster) == -1)
		return -1;
	/*
	 * The time is read under the lock: touches then replace each other
	 * in the order of their times, and the record is the latest.
	 */
	if (pg_stamp_now(&now) == -1) {
		rec_unlock(st);
		return -1;
	}
	/*
	 * Keep a claim while its horizon lasts: peers still settling a claim
	 * of their own must see when this round was claimed. A record that
	 * cannot be read has no claim to keep.
	 */
	if (pg_state_read(st, cluster, &old) == 1 && in_horizon(&old, &now)) {
		now.claim_ns = old.claim_ns;
		now.horizon_ms = old.horizon_ms;
	}
	r = write_locked(st, cluster, &now);
	rec_unlock(st);
	return r;
}

int
pg_state_claim(struct pg_state *st, const char *cluster, int64_t horizon_ms,
    struct pg_stamp *rec, int64_t *visible_ns)
{
	struct pg_stamp	 done;
	int		 len, r = -1;

	st->undolen = -1;
	if (rec_lock(st, cluster) == -1)
		return -1;
	if (pg_stamp_now(rec) == -1)
		goto out;
	rec->claim_ns = rec->mono_ns;
	rec->horizon_ms = horizon_ms;
	if ((len = pg_stamp_format(rec, st->undoby, sizeof(st->undoby))) == -1)
		goto out;
	/* What the claim replaces, for pg_state_restore (-1: unreadable). */
	st->undolen = pg_state_read_raw(st, cluster, st->undo,
	    sizeof(st->undo));
	if (put(st, cluster, st->undoby, len) == -1 ||
	    pg_stamp_now(&done) == -1) {
		st->undolen = -1;
		goto out;
	}
	strlcpy(st->undocluster, cluster, sizeof(st->undocluster));
	*visible_ns = done.mono_ns;
	r = 0;
out:
	rec_unlock(st);
	return r;
}

/*
 * Under the record lock: is the record on disk still the bytes buf (our
 * claim)? 1 yes, 0 no (someone wrote since, or it is damaged), -1 with
 * errno.
 */
static int
still_ours(struct pg_state *st, const char *cluster, const char *buf,
    int blen)
{
	char	 now[RECORD_MAX];
	ssize_t	 n;

	if ((n = pg_state_read_raw(st, cluster, now, sizeof(now))) == -1)
		return errno == EBADMSG ? 0 : -1;
	return n == blen && memcmp(now, buf, blen) == 0;
}

/* This handle's last pg_state_claim wrote buf to cluster's record. */
static int
made_claim(const struct pg_state *st, const char *cluster, const char *buf)
{
	return st->undolen >= 0 && strcmp(st->undocluster, cluster) == 0 &&
	    strcmp(st->undoby, buf) == 0;
}

int
pg_state_lengthen(struct pg_state *st, const char *cluster,
    struct pg_stamp *rec, int64_t horizon_ms)
{
	struct pg_stamp	 longer = *rec;
	char		 buf[RECORD_MAX], by[RECORD_MAX];
	int		 blen, len, r;

	longer.horizon_ms = horizon_ms;
	if ((blen = pg_stamp_format(rec, buf, sizeof(buf))) == -1 ||
	    (len = pg_stamp_format(&longer, by, sizeof(by))) == -1)
		return -1;
	if (rec_lock(st, cluster) == -1)
		return -1;
	if ((r = still_ours(st, cluster, buf, blen)) == 1)
		r = put(st, cluster, by, len) == -1 ? -1 : 1;
	rec_unlock(st);
	if (r != 1)
		return r;
	/* The longer claim is ours to take back, as the claim was. */
	if (made_claim(st, cluster, buf))
		memcpy(st->undoby, by, len + 1);
	*rec = longer;
	return 1;
}

static int
remove_locked(struct pg_state *st, const char *cluster)
{
	if (unlinkat(st->dirfd, cluster, 0) == -1 && errno != ENOENT)
		return -1;
	return 0;
}

int
pg_state_restore(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec, const char *old, size_t len)
{
	char	 buf[RECORD_MAX], prev[RECORD_MAX];
	int	 blen, r;

	if ((blen = pg_stamp_format(rec, buf, sizeof(buf))) == -1)
		return -1;
	/*
	 * When this handle made the claim, put back what the claim replaced,
	 * read under the record lock: what the caller read before claiming
	 * misses a touch made between that read and the claim.
	 */
	if (made_claim(st, cluster, buf)) {
		memcpy(prev, st->undo, st->undolen);
		old = prev;
		len = st->undolen;
	}
	if (len > sizeof(prev)) {
		errno = EINVAL;
		return -1;
	}
	if (rec_lock(st, cluster) == -1)
		return -1;
	/* Only our own claim is taken back; a later writer's record stays. */
	if ((r = still_ours(st, cluster, buf, blen)) == 1)
		r = (len == 0 ? remove_locked(st, cluster) :
		    put(st, cluster, old, len)) == -1 ? -1 : 1;
	rec_unlock(st);
	if (r != -1)
		st->undolen = -1;
	return r;
}

int
pg_state_remove(struct pg_state *st, const char *cluster)
{
	int	 r;

	if (rec_lock(st, cluster) == -1)
		return -1;
	r = remove_locked(st, cluster);
	rec_unlock(st);
	return r;
}

/*
 * The run lock is a record lock on ".CLUSTER.lock". Unlike flock(2) it can
 * be tested (GETLK) without being taken, so checking it never makes a run
 * that starts at the same moment fail. Linux's open file description locks
 * are used where there are any: closing another descriptor of the file,
 * as a test in the holding process does, does not drop them as it drops
 * classic POSIX locks. With close-on-exec, the job does not inherit it.
 */
#ifdef F_OFD_SETLK
#define LOCK_SET	F_OFD_SETLK
#define LOCK_GET	F_OFD_GETLK
#else
#define LOCK_SET	F_SETLK
#define LOCK_GET	F_GETLK
#endif

static int
lock_open(struct pg_state *st, const char *cluster, const char *kind,
    int flags)
{
	char	 name[PG_NAME_MAX + 16];

	if ((size_t)snprintf(name, sizeof(name), ".%s.%s", cluster, kind) >=
	    sizeof(name)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return openat(st->dirfd, name,
	    flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
}

static int
lock_take(struct pg_state *st, const char *cluster, const char *kind,
    int *fdp)
{
	struct flock	 fl;
	struct stat	 sb;
	int		 fd, saved;

	if ((fd = lock_open(st, cluster, kind, O_RDWR | O_CREAT)) == -1)
		return -1;
	/*
	 * Anyone who can open the lock file can hold a read lock on it and
	 * so make this node skip: it is the owner's alone (older versions
	 * made it 0644).
	 */
	if (fstat(fd, &sb) == -1 ||
	    ((sb.st_mode & 077) && fchmod(fd, 0600) == -1)) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, LOCK_SET, &fl) == -1) {
		saved = errno;
		close(fd);
		if (saved == EACCES || saved == EAGAIN)
			return 0;
		errno = saved;
		return -1;
	}
	*fdp = fd;
	return 1;
}

int
pg_lock_take(struct pg_state *st, const char *cluster, int *fdp)
{
	return lock_take(st, cluster, "lock", fdp);
}

int
pg_claim_lock(struct pg_state *st, const char *cluster, int *fdp)
{
	return lock_take(st, cluster, "claim", fdp);
}

int
pg_lock_held(struct pg_state *st, const char *cluster)
{
	struct flock	 fl;
	int		 fd, saved;

	if ((fd = lock_open(st, cluster, "lock", O_RDONLY)) == -1)
		return errno == ENOENT ? 0 : -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, LOCK_GET, &fl) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	return fl.l_type != F_UNLCK;
}

/*
 * Is there an open file description write lock on dev:ino in /proc/locks?
 * Its lines read "N: OFDLCK ADVISORY WRITE -1 MAJ:MIN:INO START END"
 * (major and minor in hex); "N: -> ..." lines are waiters.
 */
static int
proc_locks_held(dev_t dev, ino_t ino)
{
	FILE		*fp;
	char		 line[256], kind[16], mode[16], access[16];
	unsigned int	 maj, min;
	unsigned long	 i;
	int		 held = 0;

	if ((fp = fopen("/proc/locks", "re")) == NULL)
		return -1;
	while (!held && fgets(line, sizeof(line), fp) != NULL)
		held = sscanf(line, "%*d: %15s %15s %15s %*d %x:%x:%lu", kind,
		    mode, access, &maj, &min, &i) == 6 &&
		    strcmp(kind, "OFDLCK") == 0 &&
		    strcmp(access, "WRITE") == 0 && i == (unsigned long)ino &&
		    maj == major(dev) && min == minor(dev);
	if (ferror(fp)) {
		fclose(fp);
		errno = EIO;
		return -1;
	}
	fclose(fp);
	return held;
}

/*
 * The claim lock is taken only as a write lock (pg_claim_lock), so only a
 * write lock means a check: a read lock, which anyone who could open the
 * file could take, says nothing. The test needs no write access: it is
 * made by pollguard-serve, which may run as another user; with the lock
 * file closed to that user (0600), the kernel's list of locks says it.
 */
int
pg_claim_held(struct pg_state *st, const char *cluster)
{
	struct flock	 fl;
	struct stat	 sb;
	char		 name[PG_NAME_MAX + 16];
	int		 fd, saved;

	if ((fd = lock_open(st, cluster, "claim", O_RDONLY)) == -1) {
		if (errno == ENOENT)
			return 0;
		if (errno != EACCES && errno != EPERM)
			return -1;
		snprintf(name, sizeof(name), ".%s.claim", cluster);
		if (fstatat(st->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
			return errno == ENOENT ? 0 : -1;
		return proc_locks_held(sb.st_dev, sb.st_ino);
	}
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, LOCK_GET, &fl) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	return fl.l_type == F_WRLCK;
}

int
pg_stamp_in_horizon(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	return in_horizon(rec, now);
}

/*
 * The outcome file, ".CLUSTER.outcome": a leading dot, as the lock files
 * have, since "CLUSTER.outcome" could be the record of another cluster.
 * It is written by put() under the cluster's record lock, so it is
 * replaced atomically and its writers exclude each other; readers take
 * no lock. Its text:
 *
 *	pollguard-outcome 1
 *	running 0|1
 *	pid PID
 *	start BOOT MONO WALL
 *	end BOOT MONO WALL		(from here on: when a run ended)
 *	duration_ms MS
 *	exit STATUS | signal NUMBER
 *	timed_out 0|1
 *	success BOOT MONO WALL		(when a run succeeded)
 *	failures N
 */
#define OUTCOME_MAGIC	"pollguard-outcome 1\n"

enum {
	K_RUNNING, K_PID, K_START, K_END, K_DURATION, K_EXIT, K_SIGNAL,
	K_TIMED_OUT, K_FAILURES, K_SUCCESS
};
static const char *const outcome_keys[] = {
	"running", "pid", "start", "end", "duration_ms", "exit", "signal",
	"timed_out", "failures", "success", NULL
};

/*
 * Append a line "KEY BOOT MONO WALL", a stamp as the activity record has
 * it (pg_appendf).
 */
static int
stamp_fields(char *buf, size_t len, size_t *off, const char *key,
    const struct pg_stamp *s)
{
	return pg_appendf(buf, len, off, "%s %s %" PRId64 " %" PRId64 "\n",
	    key, s->boot_id[0] != '\0' ? s->boot_id : "-", s->mono_ns,
	    s->wall_ns);
}

/* The end of a formatter: its length, or -1 when something did not fit. */
static int
formatted(int r, size_t off)
{
	if (r != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return off;
}

static int
outcome_name(char *buf, size_t len, const char *cluster)
{
	if (strlen(cluster) > PG_NAME_MAX ||
	    (size_t)snprintf(buf, len, ".%s.outcome", cluster) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
pg_outcome_format(const struct pg_outcome *o, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	r |= pg_appendf(buf, len, &off, OUTCOME_MAGIC "running %d\npid %ld\n",
	    o->running ? 1 : 0, (long)o->pid);
	r |= stamp_fields(buf, len, &off, "start", &o->start);
	if (o->ended) {
		r |= stamp_fields(buf, len, &off, "end", &o->end);
		r |= pg_appendf(buf, len, &off, "duration_ms %" PRId64 "\n"
		    "%s %d\ntimed_out %d\n", o->duration_ms, o->signal > 0 ?
		    "signal" : "exit", o->signal > 0 ? o->signal :
		    o->exit_status, o->timed_out ? 1 : 0);
	}
	if (o->succeeded)
		r |= stamp_fields(buf, len, &off, "success", &o->success);
	r |= pg_appendf(buf, len, &off, "failures %" PRId64 "\n",
	    o->failures);
	return formatted(r, off);
}

/* A number in lo..hi, the whole of s[0..n). */
static int
outcome_num(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *v)
{
	if (parse_ns(s, n, v) == -1 || *v < lo || *v > hi)
		return -1;
	return 0;
}

/* "BOOT MONO WALL", the whole of s[0..n), as a record has them. */
static int
outcome_stamp(const char *s, size_t n, struct pg_stamp *st)
{
	const char	*end = s + n, *sp, *sp2;

	memset(st, 0, sizeof(*st));
	if ((sp = memchr(s, ' ', n)) == NULL ||
	    (sp2 = memchr(sp + 1, ' ', end - sp - 1)) == NULL)
		return -1;
	if (sp - s == 1 && *s == '-')
		st->boot_id[0] = '\0';
	else if (sp - s == PG_BOOT_ID_LEN &&
	    strspn(s, "0123456789abcdef-") >= PG_BOOT_ID_LEN)
		memcpy(st->boot_id, s, PG_BOOT_ID_LEN);
	else
		return -1;
	return parse_ns(sp + 1, sp2 - sp - 1, &st->mono_ns) == -1 ||
	    parse_ns(sp2 + 1, end - sp2 - 1, &st->wall_ns) == -1 ? -1 : 0;
}

static int
outcome_bad(struct pg_outcome *o)
{
	memset(o, 0, sizeof(*o));
	errno = EBADMSG;
	return -1;
}

/*
 * The small "key value" files beside a record (outcome, hold): a magic
 * first line, then lines of a key, one space and a value. kv_begin checks
 * the whole file (size, last LF, no NUL, the magic line) and points *p
 * past the magic; kv_next reads the next line of a known key: 1 with its
 * index in *k and its value in v[0..*n), 0 at the end, -1 when a line is
 * malformed or a known key comes twice. Keys of later versions are
 * skipped.
 */
static int
kv_begin(const char *buf, size_t len, const char *magic, size_t max,
    const char **p)
{
	size_t	 m = strlen(magic);

	if (len < m || len > max || buf[len - 1] != '\n' ||
	    memchr(buf, '\0', len) != NULL || memcmp(buf, magic, m) != 0)
		return -1;
	*p = buf + m;
	return 0;
}

static int
kv_next(const char **p, const char *end, const char *const *keys,
    unsigned int *seen, unsigned int *k, const char **v, size_t *n)
{
	const char	*nl, *sp;

	for (; *p < end; *p = nl + 1) {
		nl = memchr(*p, '\n', end - *p);
		if ((sp = memchr(*p, ' ', nl - *p)) == NULL || sp == *p)
			return -1;
		for (*k = 0; keys[*k] != NULL; (*k)++)
			if (strlen(keys[*k]) == (size_t)(sp - *p) &&
			    memcmp(keys[*k], *p, sp - *p) == 0)
				break;
		if (keys[*k] == NULL)
			continue;	/* a later version's: ignored */
		if (*seen & (1U << *k))
			return -1;
		*seen |= 1U << *k;
		*v = sp + 1;
		*n = nl - sp - 1;
		*p = nl + 1;
		return 1;
	}
	return 0;
}

int
pg_outcome_parse(const char *buf, size_t len, struct pg_outcome *o)
{
	const char	*p, *val;
	unsigned int	 seen = 0, k;
	int64_t		 v;
	size_t		 n;
	int		 r;

	memset(o, 0, sizeof(*o));
	o->exit_status = -1;
	if (kv_begin(buf, len, OUTCOME_MAGIC, PG_OUTCOME_MAX, &p) == -1)
		return outcome_bad(o);
	while ((r = kv_next(&p, buf + len, outcome_keys, &seen, &k, &val,
	    &n)) == 1) {
		switch (k) {
		case K_START:
		case K_END:
		case K_SUCCESS:
			if (outcome_stamp(val, n, k == K_START ? &o->start :
			    k == K_END ? &o->end : &o->success) == -1)
				return outcome_bad(o);
			continue;
		case K_PID:
			if (outcome_num(val, n, 0, INT_MAX, &v) == -1)
				return outcome_bad(o);
			o->pid = v;
			continue;
		case K_EXIT:
			if (outcome_num(val, n, 0, 255, &v) == -1)
				return outcome_bad(o);
			o->exit_status = v;
			continue;
		case K_SIGNAL:
			if (outcome_num(val, n, 1, 127, &v) == -1)
				return outcome_bad(o);
			o->signal = v;
			continue;
		case K_DURATION:
		case K_FAILURES:
			if (outcome_num(val, n, 0, INT64_MAX, &v) == -1)
				return outcome_bad(o);
			*(k == K_DURATION ? &o->duration_ms : &o->failures) = v;
			continue;
		default:	/* running, timed_out: flags */
			if (outcome_num(val, n, 0, 1, &v) == -1)
				return outcome_bad(o);
			*(k == K_RUNNING ? &o->running : &o->timed_out) = v;
			continue;
		}
	}
	if (r == -1)
		return outcome_bad(o);
	/* A run's start, its end with one result, or neither of those. */
	o->ended = (seen & (1U << K_END)) != 0;
	o->succeeded = (seen & (1U << K_SUCCESS)) != 0;
	if ((seen & (1U << K_RUNNING | 1U << K_START | 1U << K_FAILURES)) !=
	    (1U << K_RUNNING | 1U << K_START | 1U << K_FAILURES) ||
	    (!o->running && !o->ended))
		return outcome_bad(o);
	if (o->ended ? !(seen & (1U << K_DURATION)) ||
	    !(seen & (1U << K_EXIT)) == !(seen & (1U << K_SIGNAL)) :
	    (seen & (1U << K_DURATION | 1U << K_EXIT | 1U << K_SIGNAL |
	    1U << K_TIMED_OUT)) != 0)
		return outcome_bad(o);
	return 0;
}

int
pg_outcome_read(struct pg_state *st, const char *cluster,
    struct pg_outcome *o)
{
	char		 name[PG_NAME_MAX + 16], buf[PG_OUTCOME_MAX];
	ssize_t		 n;

	if (outcome_name(name, sizeof(name), cluster) == -1)
		return -1;
	if ((n = read_small(st, name, buf, sizeof(buf))) <= 0)
		return n;
	return pg_outcome_parse(buf, n, o) == -1 ? -1 : 1;
}

/* put(), of a file beside the cluster's record, under its record lock. */
static int
put_locked(struct pg_state *st, const char *cluster, const char *name,
    const char *buf, size_t len)
{
	int	 r;

	if (rec_lock(st, cluster) == -1)
		return -1;
	r = put(st, name, buf, len);
	rec_unlock(st);
	return r;
}

/* Write *o under the record lock. */
static int
outcome_put(struct pg_state *st, const char *cluster,
    const struct pg_outcome *o)
{
	char	 name[PG_NAME_MAX + 16], buf[PG_OUTCOME_MAX];
	int	 len;

	if (outcome_name(name, sizeof(name), cluster) == -1 ||
	    (len = pg_outcome_format(o, buf, sizeof(buf))) == -1)
		return -1;
	return put_locked(st, cluster, name, buf, len);
}

int
pg_outcome_start(struct pg_state *st, const char *cluster, pid_t pid,
    struct pg_outcome *o)
{
	struct pg_outcome	 old;

	/*
	 * Only the holder of the run lock starts and finishes runs, so the
	 * file cannot change between this read and the write.
	 */
	if (pg_outcome_read(st, cluster, &old) != 1) {
		memset(&old, 0, sizeof(old));
		old.exit_status = -1;
	}
	*o = old;
	if (old.running && o->failures < INT64_MAX)
		o->failures++;
	o->running = 1;
	o->pid = pid;
	if (pg_stamp_now(&o->start) == -1)
		return -1;
	return outcome_put(st, cluster, o);
}

int
pg_outcome_finish(struct pg_state *st, const char *cluster, int status,
    int timed_out, struct pg_outcome *o)
{
	int	 failed;

	o->running = 0;
	o->ended = 1;
	if (pg_stamp_now(&o->end) == -1)
		return -1;
	o->duration_ms = strcmp(o->end.boot_id, o->start.boot_id) == 0 &&
	    o->end.mono_ns > o->start.mono_ns ?
	    (o->end.mono_ns - o->start.mono_ns) / 1000000 : 0;
	if (WIFSIGNALED(status)) {
		o->exit_status = -1;
		o->signal = WTERMSIG(status);
	} else {
		o->exit_status = WEXITSTATUS(status);
		o->signal = 0;
	}
	o->timed_out = timed_out != 0;
	failed = o->timed_out || o->signal != 0 || o->exit_status != 0;
	if (!failed) {
		o->failures = 0;
		o->succeeded = 1;
		o->success = o->end;
	} else if (o->failures < INT64_MAX)
		o->failures++;
	return outcome_put(st, cluster, o);
}

enum pg_run
pg_outcome_run(struct pg_state *st, const char *cluster,
    const struct pg_outcome *o)
{
	struct pg_outcome	 again;
	int			 held;

	if (o == NULL)
		return PG_RUN_NONE;
	if (!o->running)
		return PG_RUN_DONE;
	if ((held = pg_lock_held(st, cluster)) == 1)
		return PG_RUN_RUNNING;
	if (held == 0) {
		/* The run may have ended since o was read: read again. */
		if (pg_outcome_read(st, cluster, &again) == 1 &&
		    (!again.running || again.start.mono_ns !=
		    o->start.mono_ns))
			return PG_RUN_DONE;
		return PG_RUN_DIED;
	}
	if (o->pid > 0 && kill(o->pid, 0) == -1 && errno == ESRCH)
		return PG_RUN_DIED;
	return PG_RUN_RUNNING;
}

/*
 * The hold file, ".CLUSTER.hold", named, written and read as the outcome
 * file is. Its text:
 *
 *	pollguard-hold 1
 *	until BOOT MONO WALL	the moment it ends, on this host's clocks
 *	ms MS			how long it was set for
 *	by USER@NODE		(optional)
 *	why MESSAGE		(optional; the rest of the line)
 *
 * The end is stored rather than the start so that, within a boot, the
 * time left is a difference of monotonic clocks like every elapsed time;
 * ms bounds a hold read after a reboot, when only the wall clock is left.
 */
#define HOLD_MAGIC	"pollguard-hold 1\n"

enum { H_UNTIL, H_MS, H_BY, H_WHY };
static const char *const hold_keys[] = { "until", "ms", "by", "why", NULL };

static int
hold_name(char *buf, size_t len, const char *cluster)
{
	if (strlen(cluster) > PG_NAME_MAX ||
	    (size_t)snprintf(buf, len, ".%s.hold", cluster) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * A text of a hold, s[0..n): printable ASCII, no blank at either end, so
 * that it stays one line of the file and of the status answer. 0, or -1
 * with errno.
 */
static int
hold_text(const char *s, size_t n)
{
	size_t	 i;

	if (n >= PG_HOLD_TEXT_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			break;
	if (i < n || (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
pg_hold_make(struct pg_hold *h, int64_t ms, const char *by, const char *why)
{
	memset(h, 0, sizeof(*h));
	if (by == NULL)
		by = "";
	if (why == NULL)
		why = "";
	if (ms < 1 || ms > PG_HOLD_MAX_MS) {
		errno = EINVAL;
		return -1;
	}
	if (hold_text(by, strlen(by)) == -1 ||
	    hold_text(why, strlen(why)) == -1 ||
	    pg_stamp_now(&h->until) == -1)
		return -1;
	h->until.mono_ns += ms * 1000000;
	h->until.wall_ns += ms * 1000000;
	h->ms = ms;
	strlcpy(h->by, by, sizeof(h->by));
	strlcpy(h->why, why, sizeof(h->why));
	return 0;
}

int64_t
pg_hold_left(const struct pg_hold *h, const struct pg_stamp *now)
{
	struct pg_stamp	 set = h->until;
	int64_t		 left;

	/* The moment it was set; its boot is the boot of the hold. */
	set.mono_ns -= h->ms * 1000000;
	set.wall_ns -= h->ms * 1000000;
	if (same_boot(&set, now))
		left = (h->until.mono_ns - now->mono_ns) / 1000000;
	else
		left = h->ms - pg_stamp_elapsed(&set, now);
	if (left > h->ms)
		left = h->ms;
	return left > 0 ? left : 0;
}

int
pg_hold_format(const struct pg_hold *h, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	if (h->ms < 1 || h->ms > PG_HOLD_MAX_MS) {
		errno = EINVAL;
		return -1;
	}
	if (hold_text(h->by, strnlen(h->by, sizeof(h->by))) == -1 ||
	    hold_text(h->why, strnlen(h->why, sizeof(h->why))) == -1)
		return -1;
	r |= pg_appendf(buf, len, &off, HOLD_MAGIC);
	r |= stamp_fields(buf, len, &off, "until", &h->until);
	r |= pg_appendf(buf, len, &off, "ms %" PRId64 "\n", h->ms);
	if (h->by[0] != '\0')
		r |= pg_appendf(buf, len, &off, "by %s\n", h->by);
	if (h->why[0] != '\0')
		r |= pg_appendf(buf, len, &off, "why %s\n", h->why);
	return formatted(r, off);
}

static int
hold_bad(struct pg_hold *h)
{
	memset(h, 0, sizeof(*h));
	errno = EBADMSG;
	return -1;
}

int
pg_hold_parse(const char *buf, size_t len, struct pg_hold *h)
{
	const char	*p, *val;
	unsigned int	 seen = 0, k;
	size_t		 n;
	int		 r;

	memset(h, 0, sizeof(*h));
	if (kv_begin(buf, len, HOLD_MAGIC, PG_HOLD_FILE_MAX, &p) == -1)
		return hold_bad(h);
	while ((r = kv_next(&p, buf + len, hold_keys, &seen, &k, &val,
	    &n)) == 1) {
		switch (k) {
		case H_UNTIL:
			if (outcome_stamp(val, n, &h->until) == -1)
				return hold_bad(h);
			continue;
		case H_MS:
			if (outcome_num(val, n, 1, PG_HOLD_MAX_MS,
			    &h->ms) == -1)
				return hold_bad(h);
			continue;
		default:	/* by, why */
			if (n == 0 || hold_text(val, n) == -1)
				return hold_bad(h);
			memcpy(k == H_BY ? h->by : h->why, val, n);
			continue;
		}
	}
	if (r == -1)
		return hold_bad(h);
	/* The end cannot be earlier after boot than the time it was set for. */
	if ((seen & (1U << H_UNTIL | 1U << H_MS)) !=
	    (1U << H_UNTIL | 1U << H_MS) ||
	    h->until.mono_ns < h->ms * 1000000)
		return hold_bad(h);
	return 0;
}

int
pg_hold_read(struct pg_state *st, const char *cluster, struct pg_hold *h,
    int64_t *left_ms)
{
	char		 name[PG_NAME_MAX + 16], buf[PG_HOLD_FILE_MAX];
	struct pg_stamp	 now;
	ssize_t		 n;

	if (hold_name(name, sizeof(name), cluster) == -1)
		return -1;
	if ((n = read_small(st, name, buf, sizeof(buf))) <= 0)
		return n;
	if (pg_hold_parse(buf, n, h) == -1 || pg_stamp_now(&now) == -1)
		return -1;
	*left_ms = pg_hold_left(h, &now);
	return *left_ms > 0;
}

int
pg_hold_write(struct pg_state *st, const char *cluster,
    const struct pg_hold *h)
{
	char	 name[PG_NAME_MAX + 16], buf[PG_HOLD_FILE_MAX];
	int	 len;

	if (hold_name(name, sizeof(name), cluster) == -1 ||
	    (len = pg_hold_format(h, buf, sizeof(buf))) == -1)
		return -1;
	return put_locked(st, cluster, name, buf, len);
}

int
pg_hold_remove(struct pg_state *st, const char *cluster)
{
	char	 name[PG_NAME_MAX + 16];
	int	 r;

	if (hold_name(name, sizeof(name), cluster) == -1 ||
	    rec_lock(st, cluster) == -1)
		return -1;
	r = remove_locked(st, name);
	rec_unlock(st);
	return r;
}

/*
 * Other small files beside a record, ".CLUSTER.SUFFIX" (the etcd lease
 * record, lib/lease.c; the checked file below): the same atomic
 * replacement under the record lock, and the same bounded read.
 */
static int
aux_name(char *buf, size_t len, const char *cluster, const char *suffix)
{
	if (strlen(cluster) > PG_NAME_MAX ||
	    (size_t)snprintf(buf, len, ".%s.%s", cluster, suffix) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * The checked file, ".CLUSTER.checked", named, written and read as the
 * outcome file is. Its text:
 *
 *	pollguard-checked 1
 *	last BOOT MONO WALL	the latest check began
 *	since BOOT MONO WALL	checks have run without a longer gap since
 *	yield NODE		(optional) the preferred node it yields to
 *	yielded BOOT MONO WALL	(with yield) when it decided to
 */
#define CHECKED_MAGIC	"pollguard-checked 1\n"

enum { C_LAST, C_SINCE, C_YIELD, C_YIELDED };
static const char *const checked_keys[] = {
	"last", "since", "yield", "yielded", NULL
};

static int
checked_name(char *buf, size_t len, const char *cluster)
{
	return aux_name(buf, len, cluster, "checked");
}

int
pg_checked_format(const struct pg_checked *ck, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	if (ck->yield[0] != '\0' && !pg_peer_name_valid(ck->yield)) {
		errno = EINVAL;
		return -1;
	}
	r |= pg_appendf(buf, len, &off, CHECKED_MAGIC);
	r |= stamp_fields(buf, len, &off, "last", &ck->last);
	r |= stamp_fields(buf, len, &off, "since", &ck->since);
	if (ck->yield[0] != '\0') {
		r |= pg_appendf(buf, len, &off, "yield %s\n", ck->yield);
		r |= stamp_fields(buf, len, &off, "yielded", &ck->yielded);
	}
	return formatted(r, off);
}

static int
checked_bad(struct pg_checked *ck)
{
	memset(ck, 0, sizeof(*ck));
	errno = EBADMSG;
	return -1;
}

int
pg_checked_parse(const char *buf, size_t len, struct pg_checked *ck)
{
	const char	*p, *val;
	unsigned int	 seen = 0, k;
	size_t		 n;
	int		 r;

	memset(ck, 0, sizeof(*ck));
	if (kv_begin(buf, len, CHECKED_MAGIC, PG_CHECKED_MAX, &p) == -1)
		return checked_bad(ck);
	while ((r = kv_next(&p, buf + len, checked_keys, &seen, &k, &val,
	    &n)) == 1) {
		if (k == C_YIELD) {
			if (n == 0 || n > PG_NAME_MAX)
				return checked_bad(ck);
			memcpy(ck->yield, val, n);
			ck->yield[n] = '\0';
			if (!pg_peer_name_valid(ck->yield))
				return checked_bad(ck);
			continue;
		}
		if (outcome_stamp(val, n, k == C_LAST ? &ck->last :
		    k == C_SINCE ? &ck->since : &ck->yielded) == -1)
			return checked_bad(ck);
	}
	if (r == -1 ||
	    (seen & (1U << C_LAST | 1U << C_SINCE)) !=
	    (1U << C_LAST | 1U << C_SINCE) ||
	    !(seen & (1U << C_YIELD)) != !(seen & (1U << C_YIELDED)))
		return checked_bad(ck);
	return 0;
}

int
pg_checked_read(struct pg_state *st, const char *cluster,
    struct pg_checked *ck)
{
	char		 name[PG_NAME_MAX + 16], buf[PG_CHECKED_MAX];
	ssize_t		 n;

	if (checked_name(name, sizeof(name), cluster) == -1)
		return -1;
	if ((n = read_small(st, name, buf, sizeof(buf))) <= 0)
		return n;
	return pg_checked_parse(buf, n, ck) == -1 ? -1 : 1;
}

int
pg_checked_write(struct pg_state *st, const char *cluster,
    const struct pg_checked *ck)
{
	char	 name[PG_NAME_MAX + 16], buf[PG_CHECKED_MAX];
	int	 len;

	if (checked_name(name, sizeof(name), cluster) == -1 ||
	    (len = pg_checked_format(ck, buf, sizeof(buf))) == -1)
		return -1;
	return put_locked(st, cluster, name, buf, len);
}

int
pg_state_aux_write(struct pg_state *st, const char *cluster,
    const char *suffix, const char *buf, size_t len)
{
	char	 name[PG_NAME_MAX + 32];

	if (aux_name(name, sizeof(name), cluster, suffix) == -1)
		return -1;
	return put_locked(st, cluster, name, buf, len);
}

ssize_t
pg_state_aux_read(struct pg_state *st, const char *cluster,
    const char *suffix, char *buf, size_t len)
{
	char	 name[PG_NAME_MAX + 32];

	if (aux_name(name, sizeof(name), cluster, suffix) == -1)
		return -1;
	return read_small(st, name, buf, len);
}

int
pg_state_aux_remove(struct pg_state *st, const char *cluster,
    const char *suffix)
{
	char	 name[PG_NAME_MAX + 32];
	int	 r;

	if (aux_name(name, sizeof(name), cluster, suffix) == -1 ||
	    rec_lock(st, cluster) == -1)
		return -1;
	r = remove_locked(st, name);
	rec_unlock(st);
	return r;
}
