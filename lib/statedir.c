/* SPDX-License-Identifier: ISC */
/* statedir.c: the state directory, and reading and writing its files. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "state-int.h"

#define TMP_PREFIX	".tmp."
#define TMP_HEX		16	/* put's name: TMP_PREFIX and 16 hex digits */
#define TMP_STALE_S	60

/* Exactly put's name: a cluster "tmp" has lock files ".tmp.lock". */
static int
is_tmp_name(const char *name)
{
	const char	*hex = name + sizeof(TMP_PREFIX) - 1;

	return strncmp(name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) == 0 &&
	    strlen(hex) == TMP_HEX && strspn(hex, "0123456789abcdef") ==
	    TMP_HEX;
}

/* Temporary files of killed writers: one in progress is younger than 1s. */
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
	struct pg_state_priv	*p = pg_state_priv(st);
	struct stat		 sb;
	int			 created = 0;

	st->dirfd = p->recfd = -1;
	p->undolen = -1;
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
	p->dev = sb.st_dev;
	p->ino = sb.st_ino;
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
		errno = EPERM;	/* not ENOENT: serve would take it as absent */
		return -1;
	}
	if (create)
		sweep(st);
	return 0;
}

void
pg_state_close(struct pg_state *st)
{
	struct pg_state_priv	*p = pg_state_priv(st);

	if (st->dirfd != -1) {	/* else recfd was never set */
		if (p->recfd != -1)
			close(p->recfd);
		close(st->dirfd);
	}
	st->dirfd = p->recfd = -1;
}

struct pg_state *
pg_serve_state(struct pg_state *st, const char *path)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	struct stat		 now;
	char			 err[PG_ERR_MAX];
	int			 moved;

	if (st->dirfd != -1) {
		if (stat(path, &now) == -1)
			moved = errno == ENOENT || errno == ENOTDIR;
		else
			moved = now.st_dev != p->dev || now.st_ino != p->ino;
		if (moved)
			pg_state_close(st);
	}
	if (st->dirfd != -1 || pg_state_open(st, path, 0, err,
	    sizeof(err)) == 0)
		return st;
	if (errno == ENOENT)
		return NULL;
	strlcpy(st->refused, err, sizeof(st->refused));
	return st;
}

int
pg_state_name(char *buf, size_t len, const char *cluster, const char *suffix)
{
	if (strlen(cluster) > PG_NAME_MAX ||
	    (size_t)snprintf(buf, len, ".%s.%s", cluster, suffix) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static const char *
file_name(char *buf, size_t len, const char *cluster, const char *suffix)
{
	if (suffix == NULL)
		return cluster;
	return pg_state_name(buf, len, cluster, suffix) == -1 ? NULL : buf;
}

/* No fstat: doc/STATE.md, "Reading a file". */
ssize_t
pg_state_get(struct pg_state *st, const char *cluster, const char *suffix,
    char *buf, size_t len)
{
	char		 nbuf[PG_STATE_NAME_MAX], b;
	const char	*name;
	ssize_t		 n, more;
	int		 fd;

	if ((name = file_name(nbuf, sizeof(nbuf), cluster, suffix)) == NULL)
		return -1;
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
			return pg_close_fail(fd);
		n = 0;
	}
	if (n == 0 || more != 0) {
		errno = EBADMSG;
		return pg_close_fail(fd);
	}
	close(fd);
	return n;
}

int
pg_close_fail(int fd)
{
	int	 saved = errno;

	close(fd);
	errno = saved;
	return -1;
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

int
pg_state_put(struct pg_state *st, const char *cluster, const char *suffix,
    const char *buf, size_t len)
{
	char		 nbuf[PG_STATE_NAME_MAX], tmp[32];
	const char	*name;
	int		 fd, saved;

	if ((name = file_name(nbuf, sizeof(nbuf), cluster, suffix)) == NULL)
		return -1;
	if (buf == NULL)
		return unlinkat(st->dirfd, name, 0) == -1 && errno != ENOENT ?
		    -1 : 0;
	snprintf(tmp, sizeof(tmp), TMP_PREFIX "%08x%08x", arc4random(),
	    arc4random());
	fd = openat(st->dirfd, tmp,
	    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd == -1)
		return -1;
	/* 0644 whatever the umask; fsync before the rename (doc/STATE.md). */
	if (fchmod(fd, 0644) == -1 || pg_write_all(fd, buf, len) == -1 ||
	    fsync(fd) == -1)
		pg_close_fail(fd);
	else if (close(fd) == 0 &&
	    renameat(st->dirfd, tmp, st->dirfd, name) == 0)
		return 0;
	saved = errno;
	unlinkat(st->dirfd, tmp, 0);
	errno = saved;
	return -1;
}
