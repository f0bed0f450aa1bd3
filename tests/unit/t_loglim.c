/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for loglimit.c, the bound on pollguard-serve's log lines: the
 * first line of each kind from each client in a minute, then counts; the
 * bound on lines in all and on clients told apart; the summaries when the
 * minute is over, and the next minute; the record of inetd mode as a file
 * (made, read back, damaged, refused through a link or a second name or
 * in a directory others may write, locked by a stuck holder), and
 * pg_loglim_shared with and without its directory.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pollguard.h"
#include "tap.h"

#define T0	1000000		/* ms: the first line of a minute */

static struct pg_client
client(const char *addr)
{
	struct pg_client	 c;

	pg_client_parse(&c, addr);
	return c;
}

/* The summaries due at now, joined with "|". */
static const char *
summaries(struct pg_loglim *ll, int64_t now)
{
	static char	 all[4096];
	char		 line[PG_LOGLIM_SUMMARY_MAX];

	all[0] = '\0';
	while (pg_loglim_summary(ll, now, line, sizeof(line))) {
		if (all[0] != '\0')
			strlcat(all, "|", sizeof(all));
		strlcat(all, line, sizeof(all));
	}
	return all;
}

static void
minute(void)
{
	struct pg_loglim	 ll;
	struct pg_client	 a = client("127.0.0.1"), b = client("::1");
	struct pg_client	 none = client(NULL);
	int			 i, n;

	pg_loglim_init(&ll);
	is_int(pg_loglim_due(&ll), INT64_MAX, "nothing counted: nothing due");
	is_int(pg_loglim_admit(&ll, T0, &a, 503, 1), 1, "a's first 503: logged");
	for (n = i = 0; i < 4999; i++)
		n += pg_loglim_admit(&ll, T0 + i / 100, &a, 503, 1);
	is_int(n, 0, "a's 4999 more 503: none logged");
	is_int(pg_loglim_admit(&ll, T0 + 50, &a, 403, 1), 1,
	    "a's first 403: logged (another kind)");
	is_int(pg_loglim_admit(&ll, T0 + 50, &a, 403, 1), 0, "its second: not");
	is_int(pg_loglim_admit(&ll, T0 + 60, &b, 503, 1), 1,
	    "b's first 503: logged (another client)");
	is_int(pg_loglim_admit(&ll, T0 + 60, &none, PG_LOGLIM_ERRORS, 2), 1,
	    "an unknown client's first error, two lines: logged");
	is_int(pg_loglim_admit(&ll, T0 + 60, &none, PG_LOGLIM_ERRORS, 2), 0,
	    "its second: not");
	is_int(pg_loglim_admit(&ll, T0 + 60, &a, 299, 1), 1,
	    "a status of no kind of its own: logged once");
	is_int(pg_loglim_admit(&ll, T0 + 60, &a, 298, 1), 0,
	    "another one: the same kind, counted");
	is_int(pg_loglim_due(&ll), T0 + PG_LOGLIM_MINUTE,
	    "counted: the summaries are due a minute after the first line");
	is_str(summaries(&ll, T0 + PG_LOGLIM_MINUTE - 1), "",
	    "no summary before the minute is over");
	is_int(pg_loglim_admit(&ll, T0 + PG_LOGLIM_MINUTE - 1, &a, 503, 1), 0,
	    "still the same minute: counted");
	is_str(summaries(&ll, T0 + PG_LOGLIM_MINUTE),
	    "5002 more refused from 127.0.0.1 in the last minute "
	    "(403 x 1, 503 x 5000, others x 1)|"
	    "1 more refused from - in the last minute (errors x 1)",
	    "the minute over: one summary a client that had lines counted");
	is_int(pg_loglim_due(&ll), INT64_MAX, "then nothing is due");
	is_int(pg_loglim_admit(&ll, T0 + PG_LOGLIM_MINUTE, &a, 503, 1), 1,
	    "the next minute: a's first 503 is logged again");
	is_str(summaries(&ll, T0 + 2 * PG_LOGLIM_MINUTE), "",
	    "a minute with nothing counted: no summary");
	is_int(pg_loglim_admit(&ll, T0 + 2 * PG_LOGLIM_MINUTE, &a, 503, 1), 1,
	    "and after it, the first is logged");
	/* A record of another boot: a minute that begins after now. */
	pg_loglim_admit(&ll, T0 + 2 * PG_LOGLIM_MINUTE, &a, 503, 1);
	is_str(summaries(&ll, 5), "1 more refused from 127.0.0.1 in the "
	    "last minute (503 x 1)", "a minute begun after now: given at once");
}

static void
bounds(void)
{
	struct pg_loglim	 ll;
	struct pg_client	 c;
	char			 addr[32], *s;
	int			 i, k, n, lines;
	const int		 st[] = { 400, 401, 403, 404, 405, 408, 431, 500,
	    503, 505 };

	/* Many clients, every kind each: the first lines stop at the bound. */
	pg_loglim_init(&ll);
	for (n = i = 0; i < 1000; i++) {
		snprintf(addr, sizeof(addr), "10.0.%d.%d", i / 250, i % 250);
		c = client(addr);
		for (k = 0; k < (int)(sizeof(st) / sizeof(st[0])); k++)
			n += pg_loglim_admit(&ll, T0, &c, st[k], 1);
	}
	is_int(n, PG_LOGLIM_LINES, "1000 clients, 10 kinds each: %d lines "
	    "logged in the minute", PG_LOGLIM_LINES);
	s = strdup(summaries(&ll, T0 + PG_LOGLIM_MINUTE));
	for (lines = 1, i = 0; s[i] != '\0'; i++)
		lines += s[i] == '|';
	/* The first 4 had all their lines logged: nothing to sum up. */
	is_int(lines, PG_LOGLIM_CLIENTS - 4 + 1, "and %d summaries: one a "
	    "client told apart with lines counted, one for the others",
	    PG_LOGLIM_CLIENTS - 4 + 1);
	like(s, "10 more refused from 10.0.0.4 in the last minute (400 x 1, "
	    "401 x 1, 403 x 1, 404 x 1, 405 x 1, 408 x 1, 431 x 1, 500 x 1, "
	    "503 x 1, 505 x 1)|", "the fifth: every line counted");
	like(s, "|9840 more refused from other clients in the last minute "
	    "(400 x 984, 401 x 984,", "the others: counted, never logged");
	free(s);

	/* One of the others is not logged even when lines are left. */
	pg_loglim_init(&ll);
	for (i = 0; i < PG_LOGLIM_CLIENTS; i++) {
		snprintf(addr, sizeof(addr), "10.1.0.%d", i);
		c = client(addr);
		pg_loglim_admit(&ll, T0, &c, 503, 1);
	}
	c = client("10.2.0.1");
	is_int(pg_loglim_admit(&ll, T0, &c, 503, 1), 0,
	    "the table full, a new client's first line: counted");
}

static void
file(void)
{
	struct pg_loglim	 ll, back;
	struct pg_client	 a = client("192.0.2.7");
	char			 dir[PATH_MAX], path[PATH_MAX + 16];
	char			 err[PG_ERR_MAX], other[PATH_MAX + 32];
	char			 sum[PG_LOGLIM_CLIENTS + 1][PG_LOGLIM_SUMMARY_MAX];
	struct stat		 sb;
	time_t			 t;
	size_t			 nsum;
	int			 fd, fd2, n, i;

	snprintf(dir, sizeof(dir), "%s", tap_tmpdir("t_loglim"));
	chmod(dir, 0700);
	snprintf(path, sizeof(path), "%s/%s", dir, PG_LOGLIM_FILE);
	fd = pg_loglim_open(dir, err, sizeof(err));
	ok(fd != -1, "open: the file is made (%s)", fd == -1 ? err : "");
	ok(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0600 &&
	    sb.st_uid == geteuid(), "... mode 0600, this user's");
	is_int(pg_loglim_load(fd, &ll), 0, "load: an empty file");
	is_int(pg_loglim_due(&ll), INT64_MAX, "... reads as a new record");
	pg_loglim_admit(&ll, T0, &a, 403, 1);
	pg_loglim_admit(&ll, T0, &a, 403, 1);
	is_int(pg_loglim_save(fd, &ll), 0, "save");
	close(fd);
	fd = pg_loglim_open(dir, err, sizeof(err));
	is_int(pg_loglim_load(fd, &back), 0, "load it again");
	ok(memcmp(&ll, &back, sizeof(ll)) == 0, "... the same record");
	is_int(pg_loglim_admit(&back, T0 + 1, &a, 403, 1), 0,
	    "... in which a's 403 was logged already");
	pg_loglim_save(fd, &back);
	/* Damaged: a byte of the magic number. */
	if (pwrite(fd, "X", 1, 0) != 1)
		diag("pwrite failed");
	is_int(pg_loglim_load(fd, &back), 0, "a damaged record: loaded");
	is_int(pg_loglim_admit(&back, T0 + 1, &a, 403, 1), 1,
	    "... as a new one");
	pg_loglim_save(fd, &back);

	/* A stuck holder: given up after PG_LOGLIM_WAIT seconds. */
	fd2 = open(path, O_RDWR | O_CLOEXEC);
	flock(fd2, LOCK_EX);
	t = time(NULL);
	n = pg_loglim_load(fd, &back);
	is_int(n == -1 ? errno : 0, EWOULDBLOCK,
	    "locked by another: load fails (EWOULDBLOCK)");
	/* Not before; a busy machine may take longer. */
	ok(time(NULL) - t >= PG_LOGLIM_WAIT - 1 && time(NULL) - t <= 60,
	    "... after PG_LOGLIM_WAIT seconds");
	close(fd2);
	close(fd);

	/* Not to be opened: a second name, a link, others may write. */
	snprintf(other, sizeof(other), "%s.2", path);
	if (link(path, other) == 0) {
		errno = 0;
		is_int(pg_loglim_open(dir, err, sizeof(err)), -1,
		    "a second hard link to it: refused");
		is_int(errno, EPERM, "... EPERM");
		like(err, "not a regular file of this user only", "... why");
		unlink(other);
	}
	unlink(path);
	if (symlink("/etc/passwd", path) == -1)
		diag("symlink failed");
	errno = 0;
	is_int(pg_loglim_open(dir, err, sizeof(err)), -1,
	    "a symbolic link planted: refused");
	is_int(errno, ELOOP, "... not followed (ELOOP)");
	unlink(path);
	chmod(dir, 0777);
	errno = 0;
	is_int(pg_loglim_open(dir, err, sizeof(err)), -1,
	    "a directory others may write: refused");
	is_int(errno, EPERM, "... EPERM");
	like(err, "writable by group or others", "... why");
	ok(lstat(path, &sb) == -1, "... and nothing made in it");
	chmod(dir, 0700);

	/* Through $RUNTIME_DIRECTORY, as systemd sets it. */
	setenv("RUNTIME_DIRECTORY", dir, 1);
	n = 0;
	for (i = 0; i < 100; i++)
		n += pg_loglim_shared(T0 + i, &a, 503, 1, sum, &nsum);
	is_int(n, 1, "shared: 100 lines of one kind, one logged");
	is_int(pg_loglim_shared(T0 + PG_LOGLIM_MINUTE, &a, 503, 1, sum, &nsum),
	    1, "the minute over: the next is logged");
	is_int(nsum, 1, "... after one summary");
	is_str(sum[0], "99 more refused from 192.0.2.7 in the last minute "
	    "(503 x 99)", "... of the 99 others");
	/* A process that read the clock before another took the lock. */
	is_int(pg_loglim_shared(T0 + PG_LOGLIM_MINUTE - 500, &a, 503, 1, sum,
	    &nsum), 0, "a refusal stamped before the minute's start, while "
	    "waiting for the lock: counted in it, not logged");
	is_int(nsum, 0, "... and no summary: the minute goes on");
	snprintf(other, sizeof(other), "%s/none", dir);
	setenv("RUNTIME_DIRECTORY", other, 1);
	n = 0;
	for (i = 0; i < 3; i++)
		n += pg_loglim_shared(T0, &a, 503, 1, sum, &nsum);
	is_int(n, 3, "no such directory: every line logged");
}

int
main(void)
{
	minute();
	bounds();
	file();
	return done_testing();
}
