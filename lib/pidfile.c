/* SPDX-License-Identifier: ISC */
/*
 * pidfile.c: pollguard-serve's pidfile (serve.h). Not libbsd's
 * pidfile_open: it follows a symbolic link and truncates its target,
 * which in /tmp anyone may plant. Here the file is opened from its
 * directory, walked and trusted as pg_trust_open does, never through a
 * link, and refused when it has another name (a hard link to a root file
 * where fs.protected_hardlinks is 0).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"

#define PIDFILE_TRIES	3	/* opens that find the file replaced */
#define PIDFILE_READS	4	/* reads of a holder's PID, 5 ms apart */

/* close(2), keeping errno: -1. */
static int
close_fail(int fd)
{
	int	 saved = errno;

	close(fd);
	errno = saved;
	return -1;
}

/*
 * Another's file at path (name in dirfd), a link there, or one with more
 * names: why, in err (EPERM, ELOOP).
 */
static int
refused(const char *path, int dirfd, const char *name, int fd, int errnum,
    char *err, size_t errlen)
{
	struct stat	 sb;
	char		 owner[PG_NAME_MAX + 32], me[PG_NAME_MAX + 32];
	int		 r;

	r = fd != -1 ? fstat(fd, &sb) : fstatat(dirfd, name, &sb,
	    AT_SYMLINK_NOFOLLOW);
	/* In a sticky directory, open may say EACCES of a link. */
	if (errnum == ELOOP || (fd == -1 && r == 0 && S_ISLNK(sb.st_mode))) {
		snprintf(err, errlen, "%s: a symbolic link, which is never "
		    "followed; remove it", path);
		errno = ELOOP;
		return -1;
	}
	if (r == -1 || (S_ISREG(sb.st_mode) && sb.st_uid == geteuid() &&
	    sb.st_nlink == 1)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errnum));
		errno = errnum;
		return -1;
	}
	/* A hard link to another file (fs.protected_hardlinks = 0). */
	if (S_ISREG(sb.st_mode) && sb.st_uid == geteuid())
		snprintf(err, errlen, "%s: %lu names (hard links) for one "
		    "file, owner %s, mode %04o: a pidfile must be a file of "
		    "its own; remove it", path, (unsigned long)sb.st_nlink,
		    pg_user_text(sb.st_uid, owner, sizeof(owner)),
		    (unsigned int)(sb.st_mode & 07777));
	else
		snprintf(err, errlen, "%s: %s %s, mode %04o: a pidfile must be "
		    "a regular file of %s, who runs this; remove it", path,
		    S_ISREG(sb.st_mode) ? "owned by" :
		    "not a regular file; owner",
		    pg_user_text(sb.st_uid, owner, sizeof(owner)),
		    (unsigned int)(sb.st_mode & 07777),
		    pg_user_text(geteuid(), me, sizeof(me)));
	errno = EPERM;
	return -1;
}

/* The PID written by the process that holds the lock on fd; 0: none. */
static pid_t
holder(int fd)
{
	struct timespec	 ts = { 0, 5000000 };
	const char	*errstr;
	char		 buf[24];
	ssize_t		 n;
	long long	 pid;
	int		 i;

	for (i = 0; i < PIDFILE_READS; i++) {
		if ((n = pread(fd, buf, sizeof(buf) - 1, 0)) > 0) {
			buf[n] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			pid = strtonum(buf, 1, INT32_MAX, &errstr);
			return errstr == NULL ? (pid_t)pid : 0;
		}
		nanosleep(&ts, NULL);	/* it has not written it yet */
	}
	return 0;
}

/* path's directory, walked as pg_trust_open does, and name in it. */
static int
pidfile_dir(const char *path, char *name, char *err, size_t errlen)
{
	char	 why[PG_ERR_MAX];
	int	 dirfd;

	if ((dirfd = pg_trust_open(path, PG_TRUST_PARENT, 0, name, NULL, why,
	    sizeof(why))) == -1)
		snprintf(err, errlen, "%s: %.400s", path, why);
	return dirfd;
}

int
pg_pidfile_open(const char *path, pid_t *other, char *err, size_t errlen)
{
	struct stat	 sb, at;
	char		 name[NAME_MAX + 1];
	int		 dirfd, fd, i;

	*other = 0;
	if ((dirfd = pidfile_dir(path, name, err, errlen)) == -1)
		return -1;
	for (i = 0; i < PIDFILE_TRIES; i++) {
		fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
		if (fd == -1) {
			refused(path, dirfd, name, -1, errno, err, errlen);
			return close_fail(dirfd);
		}
		if (fstat(fd, &sb) == -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			return close_fail(dirfd);
		}
		if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
		    sb.st_nlink != 1) {
			refused(path, dirfd, name, fd, EPERM, err, errlen);
			close(fd);
			return close_fail(dirfd);
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
			if (errno == EWOULDBLOCK && (*other = holder(fd)) > 0)
				snprintf(err, errlen, "%s: already running as "
				    "PID %ld", path, (long)*other);
			else if (errno == EWOULDBLOCK)
				snprintf(err, errlen, "%s: in use by another "
				    "process", path);
			else
				snprintf(err, errlen, "%s: %s", path,
				    strerror(errno));
			if (errno == EWOULDBLOCK)
				errno = EEXIST;
			close_fail(fd);
			return close_fail(dirfd);
		}
		/* Still the file of that name, not one removed meanwhile. */
		if (fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW) == 0 &&
		    at.st_dev == sb.st_dev && at.st_ino == sb.st_ino) {
			if (ftruncate(fd, 0) == 0) {
				close(dirfd);
				return fd;
			}
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			unlinkat(dirfd, name, 0);
			close_fail(fd);
			return close_fail(dirfd);
		}
		close(fd);
	}
	close(dirfd);
	snprintf(err, errlen, "%s: replaced while it was opened", path);
	errno = EAGAIN;
	return -1;
}

int
pg_pidfile_write(int fd)
{
	char	 buf[24];
	int	 n;

	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1)
		return -1;
	return pwrite(fd, buf, n, 0) == n ? 0 : -1;
}

void
pg_pidfile_remove(int fd, const char *path)
{
	struct stat	 sb, at;
	char		 name[NAME_MAX + 1], err[PG_ERR_MAX];
	int		 dirfd;

	/* Only this file: whatever else is there now is someone else's. */
	if (fstat(fd, &sb) == 0 &&
	    (dirfd = pidfile_dir(path, name, err, sizeof(err))) != -1) {
		if (fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW) == 0 &&
		    at.st_dev == sb.st_dev && at.st_ino == sb.st_ino)
			unlinkat(dirfd, name, 0);
		close(dirfd);
	}
	close(fd);
}
