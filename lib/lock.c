/* SPDX-License-Identifier: ISC */
/* lock.c: the record, run and claim locks (doc/STATE.md, Locks). */
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

static int
lock_open(struct pg_state *st, const char *cluster, const char *kind,
    int flags)
{
	char	 name[PG_STATE_NAME_MAX];

	if (pg_state_name(name, sizeof(name), cluster, kind) == -1)
		return -1;
	return pg_state_openat(st, name, flags);
}

/* One descriptor per handle, cluster and process (doc/STATE.md). */
int
pg_rec_lock(struct pg_state *st, const char *cluster)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	pid_t			 pid = getpid();

	if (p->recfd != -1 && (p->recpid != pid ||
	    strcmp(p->reccluster, cluster) != 0)) {
		close(p->recfd);	/* a child's close leaves the lock */
		p->recfd = -1;
	}
	if (p->recfd == -1) {
		/* lock_open refuses a name too long for reccluster. */
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

#ifdef F_OFD_SETLK
#define LOCK_SET	F_OFD_SETLK
#define LOCK_GET	F_OFD_GETLK
#else
#define LOCK_SET	F_SETLK
#define LOCK_GET	F_GETLK
#endif

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
		pg_close_fail(fd);
		return errno == EACCES || errno == EAGAIN ? 0 : -1;
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
 * Another process's strongest lock on the file: F_UNLCK (also when there
 * is none), F_RDLCK or F_WRLCK; -2 with errno when it cannot be opened,
 * -1 with errno when it cannot be tested.
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
 * An OFD write lock on dev:ino in /proc/locks? Its lines read "N: OFDLCK
 * ADVISORY WRITE -1 MAJ:MIN:INO START END" (major and minor in hex);
 * "N: -> ..." lines are waiters.
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

/* Only a write lock is a check's: anyone may take a read lock. */
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
