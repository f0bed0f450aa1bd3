/* SPDX-License-Identifier: ISC */
/*
 * lock.c: the record, run and claim locks of a cluster (doc/STATE.md,
 * Locks), and the kernel's list of locks, /proc/locks, for a reader that
 * may not open a lock file.
 */
#include <sys/file.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "state-int.h"

/* A lock file of cluster: ".CLUSTER.KIND". */
static int
lock_open(struct pg_state *st, const char *cluster, const char *kind,
    int flags)
{
	char	 name[PG_STATE_NAME_MAX];

	if (pg_state_name(name, sizeof(name), cluster, kind) == -1)
		return -1;
	return openat(st->dirfd, name,
	    flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
}

/*
 * The record lock is held only inside the writers of record.c and
 * side.c, across a few system calls and one fsync, and nothing else is
 * taken or waited for while it is held: no cycle is possible. The lock
 * file is mode 0600 (anyone who could open it could hold the lock and
 * stall every writer) and never removed: removing a lock file that is
 * held would let a second holder in.
 *
 * The descriptor is opened once per state handle, cluster and process
 * (pollguard-touch -f refreshes every second: one flock pair each time,
 * no open) and is close-on-exec. flock locks belong to the open file
 * description, which a forked child shares: a child (a new PID) opens its
 * own, so that it excludes its parent as any other process would.
 */
int
pg_rec_lock(struct pg_state *st, const char *cluster)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	pid_t			 pid = getpid();

	if (strlen(cluster) > PG_NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (p->recfd != -1 && (p->recpid != pid ||
	    strcmp(p->reccluster, cluster) != 0)) {
		close(p->recfd);	/* a child's close leaves the lock */
		p->recfd = -1;
	}
	if (p->recfd == -1) {
		if ((p->recfd = lock_open(st, cluster, "rec",
		    O_RDONLY | O_CREAT)) == -1)
			return -1;
		p->recpid = pid;
		strlcpy(p->reccluster, cluster, sizeof(p->reccluster));
	}
	/* EINTR: check's signal handlers do not restart; the lock must. */
	while (flock(p->recfd, LOCK_EX) == -1)
		if (errno != EINTR)
			return -1;
	return 0;
}

void
pg_rec_unlock(struct pg_state *st)
{
	int	 saved = errno;

	flock(pg_state_priv(st)->recfd, LOCK_UN);
	errno = saved;
}

/*
 * The run and claim locks are fcntl(2) locks, which can be tested without
 * being taken. Linux's open file description locks are used where there
 * are any: closing another descriptor of the file, as a test in the
 * holding process does, does not drop them as it drops classic POSIX
 * locks.
 */
#ifdef F_OFD_SETLK
#define LOCK_SET	F_OFD_SETLK
#define LOCK_GET	F_OFD_GETLK
#else
#define LOCK_SET	F_SETLK
#define LOCK_GET	F_GETLK
#endif

/* F_OFD_SETLK or _GETLK (cmd) of a write lock on the whole file at fd. */
static int
lock_fcntl(int fd, int cmd, struct flock *fl)
{
	memset(fl, 0, sizeof(*fl));
	fl->l_type = F_WRLCK;
	fl->l_whence = SEEK_SET;
	return fcntl(fd, cmd, fl);
}

static int
lock_take(struct pg_state *st, const char *cluster, const char *kind,
    int *fdp)
{
	struct flock	 fl;
	struct stat	 sb;
	int		 fd;

	if ((fd = lock_open(st, cluster, kind, O_RDWR | O_CREAT)) == -1)
		return -1;
	/* 0600 (doc/STATE.md), also where an older version made it 0644. */
	if (fstat(fd, &sb) == -1 ||
	    ((sb.st_mode & 077) && fchmod(fd, 0600) == -1))
		return pg_close_fail(fd);
	if (lock_fcntl(fd, LOCK_SET, &fl) == -1) {
		/* Another process holds it. */
		if (errno == EACCES || errno == EAGAIN) {
			close(fd);
			return 0;
		}
		return pg_close_fail(fd);
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

/*
 * The strongest lock another process holds on a cluster's lock file of
 * this kind: F_UNLCK (also when there is no such file), F_RDLCK or
 * F_WRLCK; -2 with errno when the file cannot be opened, -1 when it
 * cannot be tested.
 */
static int
lock_test(struct pg_state *st, const char *cluster, const char *kind)
{
	struct flock	 fl;
	int		 fd;

	if ((fd = lock_open(st, cluster, kind, O_RDONLY)) == -1)
		return errno == ENOENT ? F_UNLCK : -2;
	if (lock_fcntl(fd, LOCK_GET, &fl) == -1)
		return pg_close_fail(fd);
	close(fd);
	return fl.l_type;
}

int
pg_lock_held(struct pg_state *st, const char *cluster)
{
	int	 type;

	if ((type = lock_test(st, cluster, "lock")) < 0)
		return -1;
	return type != F_UNLCK;
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
 * file could take, says nothing.
 */
int
pg_claim_held(struct pg_state *st, const char *cluster)
{
	struct stat	 sb;
	char		 name[PG_STATE_NAME_MAX];
	int		 type;

	if ((type = lock_test(st, cluster, "claim")) >= 0)
		return type == F_WRLCK;
	if (type == -1 || (errno != EACCES && errno != EPERM))
		return -1;
	pg_state_name(name, sizeof(name), cluster, "claim");
	if (fstatat(st->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	return proc_locks_held(sb.st_dev, sb.st_ino);
}
