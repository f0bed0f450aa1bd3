#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

static int
clock_ns(clockid_t id, int64_t *ns)
{
	struct timespec	 ts;

	if (clock_gettime(id, &ts) == -1)
		return -1;
	*ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return 0;
}

int
pg_stamp_now(struct pg_stamp *st)
{
	st->claim_ns = st->horizon_ms = 0;
	boot_id(st->boot_id);
	if (clock_ns(CLOCK_BOOTTIME, &st->mono_ns) == -1 ||
	    clock_ns(CLOCK_REALTIME, &st->wall_ns) == -1)
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
#define TMP_STALE_S	60

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
		if (strncmp(de->d_name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) ==
		    0 && fstatat(st->dirfd, de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
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

	st->dirfd = -1;
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
	if (st->dirfd != -1)
		close(st->dirfd);
	st->dirfd = -1;
}

ssize_t
pg_state_read_raw(struct pg_state *st, const char *cluster, char *buf,
    size_t len)
{
	struct stat	 sb;
	ssize_t		 n;
	int		 fd, saved;

	/* O_NONBLOCK: a FIFO planted here must not hang the reader. */
	fd = openat(st->dirfd, cluster,
	    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &sb) == -1)
		goto fail;
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0 ||
	    (size_t)sb.st_size > len || sb.st_size > RECORD_MAX) {
		errno = EBADMSG;
		goto fail;
	}
	/* Records are replaced, never rewritten: one read sees all of it. */
	while ((n = read(fd, buf, len)) == -1 && errno == EINTR)
		;
	if (n == -1)
		goto fail;
	if (n != sb.st_size) {
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

int
pg_state_write(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec)
{
	char	 buf[RECORD_MAX];
	int	 len;

	if ((len = pg_stamp_format(rec, buf, sizeof(buf))) == -1)
		return -1;
	return put(st, cluster, buf, len);
}

int
pg_state_touch(struct pg_state *st, const char *cluster)
{
	struct pg_stamp	 now, old;

	if (pg_stamp_now(&now) == -1)
		return -1;
	/*
	 * Keep a claim while its horizon lasts: peers still settling a claim
	 * of their own must see when this round was claimed. A record that
	 * cannot be read has no claim to keep.
	 */
	if (pg_state_read(st, cluster, &old) == 1 && in_horizon(&old, &now)) {
		now.claim_ns = old.claim_ns;
		now.horizon_ms = old.horizon_ms;
	}
	return pg_state_write(st, cluster, &now);
}

int
pg_state_claim(struct pg_state *st, const char *cluster, int64_t horizon_ms,
    struct pg_stamp *rec, int64_t *visible_ns)
{
	struct pg_stamp	 done;

	if (pg_stamp_now(rec) == -1)
		return -1;
	rec->claim_ns = rec->mono_ns;
	rec->horizon_ms = horizon_ms;
	if (pg_state_write(st, cluster, rec) == -1 ||
	    pg_stamp_now(&done) == -1)
		return -1;
	*visible_ns = done.mono_ns;
	return 0;
}

int
pg_state_restore(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec, const char *old, size_t len)
{
	char	 buf[RECORD_MAX], now[RECORD_MAX];
	ssize_t	 n;
	int	 blen;

	/* Only our own claim is taken back; a later writer's record stays. */
	if ((blen = pg_stamp_format(rec, buf, sizeof(buf))) == -1)
		return -1;
	if ((n = pg_state_read_raw(st, cluster, now, sizeof(now))) == -1) {
		if (errno != EBADMSG)
			return -1;
		return 0;
	}
	if (n != blen || memcmp(now, buf, blen) != 0)
		return 0;
	if (len == 0)
		return pg_state_remove(st, cluster) == -1 ? -1 : 1;
	return put(st, cluster, old, len) == -1 ? -1 : 1;
}

int
pg_state_remove(struct pg_state *st, const char *cluster)
{
	if (unlinkat(st->dirfd, cluster, 0) == -1 && errno != ENOENT)
		return -1;
	return 0;
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
