/* SPDX-License-Identifier: ISC */
/*
 * trust.c: a file the tools may act on, as sshd's StrictModes (OpenSSH's
 * auth_secure_path) and doas have it: no one but root and the user
 * running the tool can change it, or replace it or a directory above it.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"

/* Who may own what the tools trust: root, or the user running them. */
static int
trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

const char *
pg_user_text(uid_t uid, char *buf, size_t len)
{
	struct passwd	*pw;

	if (uid == 0)
		snprintf(buf, len, "root");
	else if ((pw = getpwuid(uid)) != NULL)
		snprintf(buf, len, "%s (uid %lu)", pw->pw_name,
		    (unsigned long)uid);
	else
		snprintf(buf, len, "uid %lu", (unsigned long)uid);
	return buf;
}

/* close(2) fd, keeping errno: errno, for refuse. */
static int
close_keep(int fd)
{
	int	 saved = errno;

	close(fd);
	errno = saved;
	return saved;
}

static int
refuse(char *err, size_t errlen, int errnum, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	errno = errnum;
	return -1;
}

/*
 * sb, of name (path as given; above: a directory above it): 0, or -1 with
 * EPERM and why in err.
 */
static int
check(const struct stat *sb, const char *name, int above, char *err,
    size_t errlen)
{
	unsigned int	 mode = sb->st_mode & 07777;
	char		 owner[PG_NAME_MAX + 32], me[PG_NAME_MAX + 32];
	char		 who[sizeof(me) + 40];

	pg_user_text(sb->st_uid, owner, sizeof(owner));
	if (!trusted_owner(sb->st_uid)) {
		if (geteuid() == 0)
			snprintf(who, sizeof(who), "root");
		else
			snprintf(who, sizeof(who), "root or %s, who runs this",
			    pg_user_text(geteuid(), me, sizeof(me)));
		if (above)
			return refuse(err, errlen, EPERM, "the directory %s "
			    "above it is owned by %s, mode %04o: it must "
			    "belong to %s", name, owner, mode, who);
		return refuse(err, errlen, EPERM, "owned by %s, mode %04o: it "
		    "must belong to %s", owner, mode, who);
	}
	if (!(mode & (S_IWGRP | S_IWOTH)))
		return 0;
	/* Above it, like /tmp: no one can replace there what is not theirs. */
	if (above && (mode & S_ISVTX))
		return 0;
	if (above)
		return refuse(err, errlen, EPERM, "the directory %s above it "
		    "is writable by group or others (owner %s, mode %04o); "
		    "run: chmod go-w %s", name, owner, mode, name);
	/* Shared, like /tmp itself: chmod would be the wrong advice. */
	if (S_ISDIR(sb->st_mode) && (mode & S_ISVTX))
		return refuse(err, errlen, EPERM, "shared (owner %s, mode "
		    "%04o): give pollguard a directory of its own, writable by "
		    "its owner only", owner, mode);
	return refuse(err, errlen, EPERM, "writable by group or others (owner "
	    "%s, mode %04o); run: chmod go-w %s", owner, mode, name);
}

/* What pg_trust_open walks: where it is (an O_PATH descriptor), by name. */
struct walk {
	int	 cur;
	char	 at[PATH_MAX];		/* cur's path, with no link in it */
	char	 rest[PATH_MAX];	/* what is left to walk */
	int	 links;
};

/*
 * Move to dir (open O_PATH), a directory above the file: checked. known:
 * its stat, when the caller has it (one fstat per name walked), or NULL.
 */
static int
walk_into(struct walk *w, int dir, const struct stat *known, const char *name,
    char *err, size_t errlen)
{
	struct stat	 sb;
	char		*slash;
	size_t		 n;

	if (known != NULL)
		sb = *known;
	else if (fstat(dir, &sb) == -1)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return refuse(err, errlen, ENOTDIR, "%s", strerror(ENOTDIR));
	if (name[0] == '/')
		strlcpy(w->at, "/", sizeof(w->at));
	else if (strcmp(name, "..") == 0) {
		if ((slash = strrchr(w->at, '/')) != NULL)
			slash[slash == w->at] = '\0';
	} else {
		n = strlen(w->at);
		if (snprintf(w->at + n, sizeof(w->at) - n, "%s%s",
		    n > 1 ? "/" : "", name) >= (int)(sizeof(w->at) - n))
			return refuse(err, errlen, ENAMETOOLONG, "%s",
			    strerror(ENAMETOOLONG));
	}
	if (check(&sb, w->at, 1, err, errlen) == -1)
		return -1;
	if (w->cur != -1)
		close(w->cur);
	w->cur = dir;
	return 0;
}

/*
 * The symbolic link fd (O_PATH), name in the walk: followed when root or
 * the user running this owns it, its target walked before what is left.
 */
static int
walk_link(struct walk *w, int fd, const struct stat *sb, const char *name,
    char *err, size_t errlen)
{
	char		 target[PATH_MAX], rest[PATH_MAX];
	char		 owner[PG_NAME_MAX + 32];
	ssize_t		 n;
	int		 root;

	if (++w->links > PG_TRUST_LINKS)
		return refuse(err, errlen, ELOOP, "%s", strerror(ELOOP));
	/* In its directory, which is trusted: no one else replaces it. */
	if (!trusted_owner(sb->st_uid))
		return refuse(err, errlen, EPERM, "the symbolic link %s%s%s on "
		    "its way is owned by %s: only links of root or of the "
		    "user running this are followed", w->at,
		    strcmp(w->at, "/") == 0 ? "" : "/", name,
		    pg_user_text(sb->st_uid, owner, sizeof(owner)));
	if ((n = readlinkat(fd, "", target, sizeof(target))) == -1)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	if (n == 0 || (size_t)n >= sizeof(target))
		return refuse(err, errlen, ENAMETOOLONG, "%s", strerror(
		    ENAMETOOLONG));
	target[n] = '\0';
	if (snprintf(rest, sizeof(rest), "%s/%s", target, w->rest) >=
	    (int)sizeof(rest))
		return refuse(err, errlen, ENAMETOOLONG, "%s", strerror(
		    ENAMETOOLONG));
	memcpy(w->rest, rest, sizeof(rest));
	if (target[0] != '/')
		return 0;
	if ((root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	if (walk_into(w, root, NULL, "/", err, errlen) == -1) {
		close_keep(root);
		return -1;
	}
	return 0;
}

/* The next name of w->rest into name (NAME_MAX + 1): 1, or 0 at its end. */
static int
walk_next(struct walk *w, char *name, size_t len, int *last)
{
	char	*p = w->rest, *end;
	size_t	 n;

	while (*p == '/')
		p++;
	if (*p == '\0')
		return 0;
	n = strcspn(p, "/");
	if (n >= len)
		n = len - 1;	/* the open says ENAMETOOLONG, or ENOENT */
	memcpy(name, p, n);
	name[n] = '\0';
	end = p + strcspn(p, "/");
	*last = end[strspn(end, "/")] == '\0';
	memmove(w->rest, end, strlen(end) + 1);
	return 1;
}

int
pg_trust_open(const char *path, int how, int oflags, char *last, char *real,
    char *err, size_t errlen)
{
	struct walk	 w;
	struct stat	 sb, at;
	char		 name[NAME_MAX + 1], cwd[PATH_MAX];
	int		 fd = -1, root, islast, made = 0, tries = 0, slashed;

	w.cur = -1;
	w.links = 0;
	/* "FILE/", as open(2) has it: FILE must be a directory. */
	slashed = path[0] != '\0' && path[strlen(path) - 1] == '/';
	strlcpy(w.at, "/", sizeof(w.at));
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)) == NULL)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	if (snprintf(w.rest, sizeof(w.rest), "%s/%s", path[0] == '/' ? "" :
	    cwd, path) >= (int)sizeof(w.rest))
		return refuse(err, errlen, ENAMETOOLONG, "%s", strerror(
		    ENAMETOOLONG));
	if ((root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	if (walk_into(&w, root, NULL, "/", err, errlen) == -1) {
		close(root);
		return -1;
	}
	for (;;) {
		if (!walk_next(&w, name, sizeof(name), &islast)) {
			/* "/", or a name that ended in ".": no file's. */
			refuse(err, errlen, EISDIR, "%s", strerror(EISDIR));
			goto fail;
		}
		if (strcmp(name, ".") == 0 && !islast)
			continue;
		if (islast && (how & PG_TRUST_PARENT)) {
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
				refuse(err, errlen, EISDIR, "%s",
				    strerror(EISDIR));
				goto fail;
			}
			strlcpy(last, name, NAME_MAX + 1);
			if (real != NULL)
				strlcpy(real, w.at, PATH_MAX);
			return w.cur;
		}
		fd = openat(w.cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOENT && islast &&
		    (how & PG_TRUST_MKDIR) && tries++ < 3) {
			if (mkdirat(w.cur, name, 0755) == 0)
				made = 1;
			else if (errno != EEXIST) {
				refuse(err, errlen, errno, "%s",
				    strerror(errno));
				goto fail;
			}
			strlcpy(w.rest, name, sizeof(w.rest));
			continue;
		}
		if (fd == -1 || fstat(fd, &sb) == -1) {
			refuse(err, errlen, errno, "%s", strerror(errno));
			goto fail;
		}
		if (S_ISLNK(sb.st_mode)) {
			if (walk_link(&w, fd, &sb, name, err, errlen) == -1)
				goto fail;
			close(fd);
			fd = -1;
			continue;
		}
		if (!islast) {
			if (walk_into(&w, fd, &sb, name, err, errlen) == -1)
				goto fail;
			fd = -1;
			continue;
		}
		break;
	}
	/* The file itself: as given, for the messages; then opened. */
	if ((how & PG_TRUST_DIR || slashed) && !S_ISDIR(sb.st_mode)) {
		refuse(err, errlen, ENOTDIR, "%s", strerror(ENOTDIR));
		goto fail;
	}
	/* Before its owner and mode: /dev/null is root's, 0666. */
	if ((how & PG_TRUST_REG) && !S_ISREG(sb.st_mode)) {
		refuse(err, errlen, EINVAL, "not a regular file");
		goto fail;
	}
	if (check(&sb, path, 0, err, errlen) == -1)
		goto fail;
	if (real != NULL && snprintf(real, PATH_MAX, "%s%s%s", w.at,
	    strcmp(w.at, "/") == 0 ? "" : "/", name) >= PATH_MAX) {
		refuse(err, errlen, ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
		goto fail;
	}
	root = fd;
	if (how & PG_TRUST_DIR)
		fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		fd = openat(w.cur, name, oflags | O_NOFOLLOW | O_CLOEXEC);
	close(root);
	if (fd == -1 || fstat(fd, &at) == -1) {
		refuse(err, errlen, errno, "%s", strerror(errno));
		goto fail;
	}
	if (at.st_dev != sb.st_dev || at.st_ino != sb.st_ino) {
		refuse(err, errlen, EAGAIN, "replaced while it was opened");
		goto fail;
	}
	/* 0755 whatever the umask: pollguard-serve reads it as another user. */
	if (made && fchmod(fd, 0755) == -1) {
		refuse(err, errlen, errno, "%s", strerror(errno));
		goto fail;
	}
	close(w.cur);
	return fd;
fail:
	if (fd != -1)
		close_keep(fd);
	close_keep(w.cur);
	return -1;
}

int
pg_trust(int fd, const char *path, char *real, char *err, size_t errlen)
{
	struct stat	 sb, at;
	char		 buf[PATH_MAX];
	int		 again;

	if (real == NULL)
		real = buf;
	real[0] = '\0';
	if (fstat(fd, &sb) == -1)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	/* In no directory (a memfd, or removed since): none can replace it. */
	if (sb.st_nlink == 0)
		return check(&sb, path, 0, err, errlen);
	/* What path leads to, walked as pg_trust_open does: fd's file. */
	if ((again = pg_trust_open(path, S_ISDIR(sb.st_mode) ? PG_TRUST_DIR :
	    0, O_PATH, NULL, real, err, errlen)) == -1)
		return -1;
	if (fstat(again, &at) == -1)
		return refuse(err, errlen, close_keep(again), "%s",
		    strerror(errno));
	close(again);
	if (at.st_dev != sb.st_dev || at.st_ino != sb.st_ino)
		return refuse(err, errlen, EAGAIN, "replaced while it was "
		    "opened");
	return 0;
}

int
pg_trust_file(int fd, const char *path, char *err, size_t errlen)
{
	struct stat	 sb;

	if (fstat(fd, &sb) == -1)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	/* Written 0644 or 0600 by the tools: more is someone's doing. */
	return check(&sb, path, 0, err, errlen);
}
