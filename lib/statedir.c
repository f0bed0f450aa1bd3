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

/* ".CLUSTER.undo", of a cluster ID that can be: state-int.h. */
static int
is_undo_name(const char *name)
{
	char		 id[PG_NAME_MAX + 1];
	size_t		 n = strlen(name), sl = strlen("." PG_UNDO_SUFFIX);

	if (name[0] != '.' || n <= sl + 1 || n - sl - 1 > PG_NAME_MAX ||
	    strcmp(name + n - sl, "." PG_UNDO_SUFFIX) != 0)
		return 0;
	memcpy(id, name + 1, n - sl - 1);
	id[n - sl - 1] = '\0';
	return pg_cluster_id_valid(id);
}

/*
 * Temporary files of killed writers (one in progress is younger than 1s),
 * and claims' links to the records they replaced, left by a crash, by the
 * change time that the link set (one removed early only makes a
 * withdrawal write the record's bytes again).
 */
static void
sweep(struct pg_state *st)
{
	struct dirent	*de;
	struct stat	 sb;
	DIR		*d;
	time_t		 now = time(NULL), stale, t;
	int		 fd, tmp;

	if ((fd = dup(st->dirfd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if ((tmp = is_tmp_name(de->d_name)))
			stale = now - TMP_STALE_S;
		else if (is_undo_name(de->d_name))
			stale = now - PG_UNDO_STALE_S;
		else
			continue;
		if (fstatat(st->dirfd, de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(sb.st_mode))
			continue;
		t = tmp ? sb.st_mtime : sb.st_ctime;
		if (t < stale)
			unlinkat(st->dirfd, de->d_name, 0);
	}
	closedir(d);
}

int
pg_state_open(struct pg_state *st, const char *path, int create, char *err,
    size_t errlen)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	struct stat		 sb;
	char			 why[PG_ERR_MAX];
	int			 saved;

	st->dirfd = p->recfd = -1;
	p->undolen = -1;
	st->refused[0] = st->why[0] = '\0';
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
	/*
	 * Walked from /, trusted on the way, never through another's link;
	 * made 0755 when absent: pollguard.conf(5), SECURITY CONSIDERATIONS.
	 */
	if ((st->dirfd = pg_trust_open(path, PG_TRUST_DIR | (create ?
	    PG_TRUST_MKDIR : 0), 0, NULL, st->real, why, sizeof(why))) == -1 ||
	    fstat(st->dirfd, &sb) == -1) {
		saved = errno;
		snprintf(err, errlen, "state directory %s: %s", path,
		    st->dirfd == -1 ? why : strerror(errno));
		pg_state_close(st);
		errno = saved;	/* EPERM: serve answers 500, not "never" */
		return -1;
	}
	p->dev = sb.st_dev;
	p->ino = sb.st_ino;
	if (create)
		sweep(st);
	return 0;
}

int
pg_state_moved(struct pg_state *st)
{
	struct pg_state_priv	*p = pg_state_priv(st);
	struct stat		 sb;

	if (st->dirfd == -1)
		return 1;
	if (stat(st->path, &sb) == -1)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
	return sb.st_dev != p->dev || sb.st_ino != p->ino;
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
	char			 err[PG_ERR_MAX], real[PATH_MAX];
	int			 fd;

	/*
	 * Walked again at each call: gone, replaced, made writable by others
	 * since, or a directory or link on the way: opened again, or refused.
	 */
	st->why[0] = '\0';
	if (st->dirfd != -1) {
		if ((fd = pg_trust_open(path, PG_TRUST_DIR, 0, NULL, real, err,
		    sizeof(err))) != -1 && fstat(fd, &now) == 0 &&
		    now.st_dev == p->dev && now.st_ino == p->ino) {
			close(fd);
			return st;
		}
		if (fd != -1)
			close(fd);
		pg_state_close(st);
	}
	if (pg_state_open(st, path, 0, err, sizeof(err)) == 0)
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

int
pg_state_openat(struct pg_state *st, const char *name, int flags)
{
	char	 path[PATH_MAX];
	int	 fd;

	st->why[0] = '\0';
	fd = openat(st->dirfd, name,
	    flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
	if (fd == -1) {
		if (errno == ELOOP)
			strlcpy(st->why, "a symbolic link, which is never "
			    "followed", sizeof(st->why));
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/%s", st->path, name) >=
	    (int)sizeof(path))
		strlcpy(path, name, sizeof(path));
	if (pg_trust_file(fd, path, st->why, sizeof(st->why)) == -1)
		return pg_close_fail(fd);
	return fd;
}

const char *
pg_state_strerror(const struct pg_state *st, int errnum)
{
	if ((errnum == ELOOP || errnum == EPERM) && st->why[0] != '\0')
		return st->why;
	return strerror(errnum);
}

/* One fstat, for the owner: doc/STATE.md, "Reading a file". */
ssize_t
pg_state_get(struct pg_state *st, const char *cluster, const char *suffix,
    char *buf, size_t len)
{
	char		 nbuf[PG_STATE_NAME_MAX], b;
	const char	*name;
	ssize_t		 n, more;
	int		 fd;

	st->why[0] = '\0';
	if ((name = file_name(nbuf, sizeof(nbuf), cluster, suffix)) == NULL)
		return -1;
	if ((fd = pg_state_openat(st, name, O_RDONLY)) == -1)
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

	/* An earlier refusal is not why this call fails (pg_state_strerror). */
	st->why[0] = '\0';
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
