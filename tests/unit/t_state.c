/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for the state directory (stamp.c, statedir.c, record.c,
 * lock.c, side.c): stamps, the elapsed rule, the record
 * format, the state directory, the run lock and the record lock; the
 * outcome: its format, its starts and ends; the hold; the side record
 * that holds them, each part on its own.
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pollguard.h"
#include "state-int.h"
#include "tap.h"

#define MS	1000000LL		/* nanoseconds */
#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define SEC	(1000 * MS)

#define BOOT_A	"0284a32f-a568-48ce-ae84-37dc7d40ee3a"
#define BOOT_B	"9f3c1e2d-0000-4abc-8def-123456789abc"

static char	 base[256];

static void	 rm_rf(const char *);

static struct pg_stamp
stamp(const char *boot, int64_t mono, int64_t wall)
{
	struct pg_stamp	 s;

	memset(&s, 0, sizeof(s));
	strlcpy(s.boot_id, boot, sizeof(s.boot_id));
	s.mono_ns = mono;
	s.wall_ns = wall;
	return s;
}

static int
stamp_eq(const struct pg_stamp *a, const struct pg_stamp *b)
{
	return strcmp(a->boot_id, b->boot_id) == 0 &&
	    a->mono_ns == b->mono_ns && a->wall_ns == b->wall_ns;
}

static void
test_now(void)
{
	struct pg_stamp	 a, b;
	struct timespec	 ts;
	char		 id[64];
	FILE		*fp;

	is_int(pg_stamp_now(&a), 0, "pg_stamp_now succeeds");
	is_int(strlen(a.boot_id), PG_BOOT_ID_LEN, "boot ID has 36 characters");
	if ((fp = fopen("/proc/sys/kernel/random/boot_id", "r")) != NULL) {
		if (fgets(id, sizeof(id), fp) != NULL) {
			id[strcspn(id, "\n")] = '\0';
			is_str(a.boot_id, id, "boot ID is the kernel's");
		}
		fclose(fp);
	} else
		diag("no /proc/sys/kernel/random/boot_id");
	clock_gettime(CLOCK_BOOTTIME, &ts);
	ok(llabs((int64_t)ts.tv_sec * SEC + ts.tv_nsec - a.mono_ns) < 5 * SEC,
	    "mono_ns is CLOCK_BOOTTIME");
	clock_gettime(CLOCK_REALTIME, &ts);
	ok(llabs((int64_t)ts.tv_sec * SEC + ts.tv_nsec - a.wall_ns) < 5 * SEC,
	    "wall_ns is CLOCK_REALTIME");
	is_int(pg_stamp_now(&b), 0, "pg_stamp_now again");
	ok(b.mono_ns >= a.mono_ns, "mono_ns does not go back");
	is_str(b.boot_id, a.boot_id, "same boot ID twice");
	ok(pg_stamp_elapsed(&a, &b) >= 0 && pg_stamp_elapsed(&a, &b) < 1000,
	    "elapsed between two stamps now is small");
}

/* Cases of pg_stamp_elapsed: a record, a moment, the milliseconds between. */
static const struct elapsed_case {
	const char	*boot;		/* the record's */
	int64_t		 mono, wall;
	const char	*nboot;		/* the moment's */
	int64_t		 nmono, nwall;
	int64_t		 want;
	const char	*name;
} elapsed_cases[] = {
	/* Same boot: the monotonic difference; the wall clock is ignored. */
	{ BOOT_A, 1 * SEC, 1700000000 * SEC,
	    BOOT_A, 3 * SEC + 500 * MS, 1700000000 * SEC + 2500 * MS,
	    2500, "same boot" },
	{ BOOT_A, 1 * SEC, 1700000000 * SEC,
	    BOOT_A, 3 * SEC + 500 * MS, 0,
	    2500, "same boot, wall clock stepped back 54 years" },
	{ BOOT_A, 1 * SEC, 0,
	    BOOT_A, 3 * SEC + 500 * MS, 1700000000 * SEC,
	    2500, "same boot, wall clock stepped forward 54 years" },
	{ BOOT_A, 100 * SEC, 5 * SEC,
	    BOOT_A, 100 * SEC, 9000 * SEC,
	    0, "same boot, same moment" },
	{ BOOT_A, 10 * SEC, 0,
	    BOOT_A, 10 * SEC + 86400LL * 40 * SEC, 0,
	    86400LL * 40 * 1000, "same boot, 40 days" },
	/* From the future: 0. */
	{ BOOT_A, 50 * SEC, 1000 * SEC,
	    BOOT_A, 10 * SEC, 2000 * SEC,
	    0, "same boot, record from the future" },
	{ BOOT_A, 50 * SEC + 1, 0,
	    BOOT_A, 50 * SEC, 0,
	    0, "same boot, record 1 ns in the future" },
	/* Another boot: the larger of uptime and the wall difference. */
	{ BOOT_B, 5000 * SEC, 1000000 * SEC,
	    BOOT_A, 100 * SEC, 1003600 * SEC,
	    3600 * 1000, "other boot, wall difference above uptime" },
	{ BOOT_B, 5000 * SEC, 1000000 * SEC,
	    BOOT_A, 100 * SEC, 1000050 * SEC,
	    100 * 1000, "other boot, wall difference below uptime" },
	{ BOOT_B, 50 * SEC, 1000000 * SEC,
	    BOOT_A, 100 * SEC, 999000 * SEC,
	    100 * 1000, "other boot, wall clock stepped back: uptime" },
	{ BOOT_B, 10 * SEC, 1000000 * SEC,
	    BOOT_A, 100 * SEC, 1000000 * SEC,
	    100 * 1000, "other boot, equal wall clocks: uptime" },
	/* A record with a larger monotonic value from another boot. */
	{ BOOT_B, 900000 * SEC, 1000000 * SEC,
	    BOOT_A, 100 * SEC, 1000000 * SEC + 30 * SEC,
	    100 * 1000, "other boot, record's mono ahead: never 0" },
	{ BOOT_B, 1 * SEC, 1000000 * SEC,
	    BOOT_A, 100 * SEC + 999 * MS, 1000000 * SEC,
	    100999, "other boot, uptime in whole ms" },
};

static void
test_elapsed(void)
{
	const struct elapsed_case	*c;
	struct pg_stamp			 rec, now;

	for (c = elapsed_cases; c < elapsed_cases + NITEMS(elapsed_cases);
	    c++) {
		rec = stamp(c->boot, c->mono, c->wall);
		now = stamp(c->nboot, c->nmono, c->nwall);
		is_int(pg_stamp_elapsed(&rec, &now), c->want, "elapsed: %s",
		    c->name);
	}
}

static void
test_format(void)
{
	struct pg_stamp	 s, t;
	char		 buf[256], rec[256];
	int		 r;

	s = stamp(BOOT_A, 123456789, 1700000000123456789LL);
	r = pg_stamp_format(&s, buf, sizeof(buf));
	/* 0 by the header's general rule; the length is tolerated. */
	ok(r == 0 || (r > 0 && (size_t)r == strlen(buf)),
	    "format succeeds (returned %d)", r);
	is_str(buf, "pollguard-state 1 " BOOT_A " 123456789 "
	    "1700000000123456789\n", "format: the record line");
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0, "parse it back");
	ok(stamp_eq(&s, &t), "round trip keeps every field");

	s = stamp(BOOT_B, 0, 0);
	pg_stamp_format(&s, buf, sizeof(buf));
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0, "parse zeros");
	ok(stamp_eq(&s, &t), "round trip of zeros");

	s = stamp(BOOT_A, INT64_MAX, INT64_MAX);
	pg_stamp_format(&s, buf, sizeof(buf));
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0, "parse maxima");
	ok(stamp_eq(&s, &t), "round trip of INT64_MAX");

	/* An unknown boot ID survives the trip as unknown. */
	s = stamp("", 42, 43);
	r = pg_stamp_format(&s, buf, sizeof(buf));
	ok(r >= 0, "format with unknown boot ID succeeds");
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0,
	    "parse unknown boot ID");
	ok(stamp_eq(&s, &t), "round trip of unknown boot ID");

	/* A real stamp. */
	pg_stamp_now(&s);
	pg_stamp_format(&s, buf, sizeof(buf));
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0, "parse now");
	ok(stamp_eq(&s, &t), "round trip of now");

	/* Truncation is an error. */
	s = stamp(BOOT_A, 123456789, 1700000000123456789LL);
	snprintf(rec, sizeof(rec), "pollguard-state 1 %s %lld %lld\n", BOOT_A,
	    123456789LL, 1700000000123456789LL);
	is_int(pg_stamp_format(&s, buf, strlen(rec)), -1,
	    "format into a buffer one byte short fails");
	ok(pg_stamp_format(&s, buf, strlen(rec) + 1) != -1,
	    "format into a buffer just large enough succeeds");
	is_int(pg_stamp_format(&s, buf, 0), -1, "format into 0 bytes fails");
}

static void
parse_bad(const char *buf, size_t len, const char *name)
{
	struct pg_stamp	 t;

	errno = 0;
	is_int(pg_stamp_parse(buf, len, &t), -1, "parse rejects %s", name);
}

/* A string literal and its length, NUL bytes and all. */
#define T(lit)	lit, sizeof(lit) - 1

/* Records pg_stamp_parse refuses, and why. */
static const struct bad_record {
	const char	*text;
	size_t		 len;
	const char	*name;
} bad_records[] = {
	{ T(""), "empty" },
	{ T("\n"), "a newline" },
	{ T("pollguard-state 1 " BOOT_A " 5\n"), "missing field" },
	{ T("pollguard-state 1 " BOOT_A "\n"), "no numbers" },
	{ T("pollguard-stat 1 " BOOT_A " 5 6\n"), "wrong magic" },
	{ T("Pollguard-state 1 " BOOT_A " 5 6\n"), "magic in caps" },
	{ T("pollguard-state 2 " BOOT_A " 5 6\n"), "version 2" },
	{ T("pollguard-state 0 " BOOT_A " 5 6\n"), "version 0" },
	{ T("pollguard-state 10 " BOOT_A " 5 6\n"), "version 10" },
	{ T("pollguard-state  1 " BOOT_A " 5 6\n"), "two spaces after magic" },
	{ T("pollguard-state 1 0284a32f-a568-48ce-ae84-37dc7d40ee3 5 6\n"),
	    "boot ID of 35 characters" },
	{ T("pollguard-state 1 0284a32f-a568-48ce-ae84-37dc7d40ee3aa 5 6\n"),
	    "boot ID of 37 characters" },
	{ T("pollguard-state 1 0284a32f-a568-48ce-ae84-37dc7d40ee3g 5 6\n"),
	    "boot ID with 'g'" },
	{ T("pollguard-state 1 0284a32f-a568-48ce-ae84/37dc7d40ee3a 5 6\n"),
	    "boot ID with '/'" },
	{ T("pollguard-state 1 0284a32f-a568-48ce-ae84 37dc7d40ee3a 5 6\n"),
	    "boot ID with a space" },
	{ T("pollguard-state 1 " BOOT_A " -5 6\n"), "negative mono" },
	{ T("pollguard-state 1 " BOOT_A " 5 -6\n"), "negative wall" },
	{ T("pollguard-state 1 " BOOT_A " +5 6\n"), "mono with '+'" },
	{ T("pollguard-state 1 " BOOT_A " 0x5 6\n"), "hex mono" },
	{ T("pollguard-state 1 " BOOT_A " 5 6 7\n"), "third number" },
	{ T("pollguard-state 1 " BOOT_A " 5 6x\n"), "garbage after wall" },
	{ T("pollguard-state 1 " BOOT_A " 5 6 \n"), "space before newline" },
	{ T("pollguard-state 1 " BOOT_A " 5 6\nx"),
	    "garbage after the newline" },
	{ T("pollguard-state 1 " BOOT_A " 5 6\n\n"), "two newlines" },
	{ T("pollguard-state 1 " BOOT_A " 5  6\n"), "two spaces" },
	{ T("pollguard-state 1 " BOOT_A " 5 6\r\n"), "CR LF" },
	{ T("pollguard-state 1 " BOOT_A " 5\0 6\n"), "NUL byte" },
	{ T("pollguard-state 1 " BOOT_A " 9223372036854775808 6\n"),
	    "mono above INT64_MAX" },
	{ T("pollguard-state 1 " BOOT_A " 5 99999999999999999999\n"),
	    "wall of 20 digits" },
};

static void
test_parse(void)
{
	static const char good[] = "pollguard-state 1 " BOOT_A " 5 6\n";
	const struct bad_record	*b;
	char		 buf[512];
	struct pg_stamp	 t;
	size_t		 i;

	is_int(pg_stamp_parse(good, strlen(good), &t), 0, "parse a record");
	is_int(t.mono_ns, 5, "mono_ns");
	is_int(t.wall_ns, 6, "wall_ns");
	is_str(t.boot_id, BOOT_A, "boot_id");

	for (b = bad_records; b < bad_records + NITEMS(bad_records); b++)
		parse_bad(b->text, b->len, b->name);
	for (i = 1; i < strlen(good); i++)
		if (pg_stamp_parse(good, i, &t) != -1)
			break;
	is_int(i, strlen(good), "parse rejects every truncation");
	parse_bad(good, strlen(good) - 1, "missing newline");
	/* Overlong: a long run of leading zeros, and plain padding. */
	snprintf(buf, sizeof(buf), "pollguard-state 1 %s %0300d 6\n", BOOT_A,
	    5);
	parse_bad(buf, strlen(buf), "300-digit number");
	memset(buf, 'x', sizeof(buf));
	memcpy(buf, good, strlen(good) - 1);
	buf[sizeof(buf) - 1] = '\n';
	parse_bad(buf, sizeof(buf), "512-byte line");

	/* The parser reads len bytes, not up to a NUL. */
	memcpy(buf, good, strlen(good));
	memcpy(buf + strlen(good), "garbage", 8);
	is_int(pg_stamp_parse(buf, strlen(good), &t), 0,
	    "parse stops at len");
}

static int
count_tmp(const char *path)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, ".tmp.", 5) == 0)
			n++;
	closedir(d);
	return n;
}

static void
write_file(const char *path, const char *data, size_t len)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		err(1, "%s", path);
	if (write(fd, data, len) != (ssize_t)len)
		err(1, "write %s", path);
	close(fd);
}

static void
open_refused(const char *path, int create, const char *name)
{
	struct pg_state	 st;
	struct stat	 sb;
	char		 errbuf[PG_ERR_MAX];
	int		 r, e;

	strlcpy(errbuf, "(unset)", sizeof(errbuf));
	errno = ENOENT;
	r = pg_state_open(&st, path, create, errbuf, sizeof(errbuf));
	e = errno;
	is_int(r, -1, "state_open refuses %s", name);
	/* serve takes ENOENT as "no directory yet, no records": only then. */
	if (stat(path, &sb) == 0)
		ok(e != ENOENT && e != 0, "state_open %s: errno says why, "
		    "not ENOENT (%s)", name, strerror(e));
	if (r == 0)
		pg_state_close(&st);
	if (path[0] != '\0')
		like(errbuf, path, "state_open %s: message names the path",
		    name);
}

static void
test_dir(void)
{
	struct pg_state	 st;
	struct stat	 sb;
	char		 p[PATH_MAX], errbuf[PG_ERR_MAX];
	mode_t		 old;
	int		 r;

	/*
	 * Creates the last component, mode 0755 whatever the umask, and
	 * records 0644: pollguard-serve, another user, must read them. A
	 * root shell with umask 077 must not make a directory serve cannot
	 * read.
	 */
	snprintf(p, sizeof(p), "%s/state", base);
	old = umask(077);
	r = pg_state_open(&st, p, 1, errbuf, sizeof(errbuf));
	if (!is_int(r, 0, "state_open creates a missing directory"))
		diag("%s", errbuf);
	else {
		ok(pg_state_touch(&st, "umask") == 0, "a record, umask 077");
		pg_state_close(&st);
	}
	umask(old);
	ok(stat(p, &sb) == 0 && S_ISDIR(sb.st_mode),
	    "the directory exists");
	is_int(sb.st_mode & 07777, 0755, "created with mode 0755 (umask 077)");
	{
		char	 rp[PATH_MAX + 8];

		snprintf(rp, sizeof(rp), "%s/umask", p);
		ok(stat(rp, &sb) == 0, "the record exists");
		is_int(sb.st_mode & 07777, 0644,
		    "record written with mode 0644 (umask 077)");
		unlink(rp);
	}
	stat(p, &sb);
	r = pg_state_open(&st, p, 1, errbuf, sizeof(errbuf));
	is_int(r, 0, "state_open of an existing directory");
	if (r == 0) {
		ok(st.dirfd >= 0, "dirfd set");
		ok(fcntl(st.dirfd, F_GETFD) & FD_CLOEXEC,
		    "dirfd close-on-exec");
		is_str(st.path, p, "path kept");
		pg_state_close(&st);
	}
	r = pg_state_open(&st, p, 0, errbuf, sizeof(errbuf));
	is_int(r, 0, "state_open of an existing directory, no create");
	if (r == 0)
		pg_state_close(&st);

	snprintf(p, sizeof(p), "%s/missing", base);
	open_refused(p, 0, "a missing directory without create");
	ok(access(p, F_OK) == -1, "and does not create it");
	snprintf(p, sizeof(p), "%s/a/b", base);
	open_refused(p, 1, "a missing parent (last component only)");
	snprintf(p, sizeof(p), "%s/a", base);
	ok(access(p, F_OK) == -1, "and does not create the parent");

	open_refused("relative-state-dir", 1, "a relative path");
	ok(access("relative-state-dir", F_OK) == -1,
	    "and does not create it");
	rmdir("relative-state-dir");
	open_refused("", 1, "an empty path");

	snprintf(p, sizeof(p), "%s/file", base);
	write_file(p, "x\n", 2);
	open_refused(p, 1, "a regular file");
	open_refused(p, 0, "a regular file without create");

	snprintf(p, sizeof(p), "%s/groupw", base);
	mkdir(p, 0755);
	chmod(p, 0775);
	open_refused(p, 1, "a group-writable directory");
	snprintf(p, sizeof(p), "%s/otherw", base);
	mkdir(p, 0755);
	chmod(p, 0757);
	open_refused(p, 0, "a world-writable directory");
	snprintf(p, sizeof(p), "%s/sticky", base);
	mkdir(p, 0755);
	chmod(p, 01777);
	open_refused(p, 0, "a sticky world-writable directory");
	/* Like /tmp: the advice is a directory of its own, not chmod. */
	if (pg_state_open(&st, p, 0, errbuf, sizeof(errbuf)) == 0)
		pg_state_close(&st);
	like(errbuf, "of its own", "a shared directory: use one of its own");
	ok(strstr(errbuf, "chmod") == NULL, "a shared directory: no chmod "
	    "advice (%s)", errbuf);
	snprintf(p, sizeof(p), "%s/private", base);
	mkdir(p, 0700);
	r = pg_state_open(&st, p, 0, errbuf, sizeof(errbuf));
	is_int(r, 0, "state_open of a 0700 directory");
	if (r == 0)
		pg_state_close(&st);
}

/*
 * Trust (lib/trust.c): the directories above the state directory, its
 * owner, and the files in it; pg_serve_state checks again at each call.
 */
static void
test_trust(void)
{
	struct pg_state	 st;
	struct pg_stamp	 rec;
	struct stat	 sb;
	char		 up[300], p[320], f[340], errbuf[PG_ERR_MAX];
	char		 want[PG_ERR_MAX];
	int		 r, fd;

	snprintf(up, sizeof(up), "%s/trust", base);
	snprintf(p, sizeof(p), "%s/state", up);
	mkdir(up, 0755);
	chmod(up, 0777);
	mkdir(p, 0755);
	r = pg_state_open(&st, p, 1, errbuf, sizeof(errbuf));
	is_int(r, -1, "below a directory writable by others: refused");
	is_int(errno, EPERM, "... with EPERM");
	like(errbuf, "above it is writable by group or others (owner ",
	    "... naming that directory, its owner");
	like(errbuf, ", mode 0777)", "... and its mode");
	like(errbuf, up, "... by name");
	if (r == 0)
		pg_state_close(&st);
	chmod(up, 01777);
	r = pg_state_open(&st, p, 1, errbuf, sizeof(errbuf));
	is_int(r, 0, "below a sticky one (like /tmp): opened");
	if (r == 0)
		pg_state_close(&st);
	chmod(up, 0755);

	/* serve's handle: trusted again at each request. */
	st.dirfd = -1;
	ok(pg_serve_state(&st, p) == &st && st.dirfd != -1,
	    "pg_serve_state opens a trusted directory");
	chmod(p, 0777);
	ok(pg_serve_state(&st, p) == &st && st.dirfd == -1,
	    "made 0777 since: no longer used");
	like(st.refused, "writable by group or others (owner ",
	    "... refused says why, with the owner");
	like(st.refused, ", mode 0777)", "... and the mode");
	chmod(p, 0755);
	ok(pg_serve_state(&st, p) == &st && st.dirfd != -1 &&
	    st.refused[0] == '\0', "made 0755 again: used again");
	chmod(up, 0757);
	ok(pg_serve_state(&st, p) == &st && st.dirfd == -1,
	    "a directory above made writable by others: not used");
	chmod(up, 0755);
	ok(pg_serve_state(&st, p) == &st && st.dirfd != -1,
	    "... and made 0755 again: used");

	/* Files in it: never through a link, never another user's. */
	snprintf(f, sizeof(f), "%s/t1", p);
	write_file(f, "x", 1);
	unlink(f);
	if (symlink("/etc/passwd", f) == -1)
		err(1, "symlink %s", f);
	is_int(pg_state_read(&st, "t1", &rec), -1, "a link as the record: "
	    "not read");
	is_int(errno, ELOOP, "... ELOOP");
	like(pg_state_strerror(&st, ELOOP), "a symbolic link, which is never "
	    "followed", "... pg_state_strerror says so");
	is_int(pg_state_touch(&st, "t1"), 0, "pg_state_touch replaces it");
	ok(lstat(f, &sb) == 0 && S_ISREG(sb.st_mode), "... by a record");
	snprintf(f, sizeof(f), "%s/.t1.lock", p);
	if (symlink("/etc/passwd", f) == -1)
		err(1, "symlink %s", f);
	is_int(pg_lock_take(&st, "t1", &fd), -1, "a link as the run lock: "
	    "not taken");
	is_int(errno, ELOOP, "... ELOOP");
	unlink(f);

	/* A refusal said before is not why a later call fails. */
	snprintf(f, sizeof(f), "%s/t2", p);
	if (symlink("/etc/passwd", f) == -1)
		err(1, "symlink %s", f);
	is_int(pg_state_read(&st, "t2", &rec), -1, "a link as t2: not read");
	is_int(pg_state_put(&st, "t3", NULL, "x\n", 2), 0, "then t3 written");
	is_str(pg_state_strerror(&st, ELOOP), strerror(ELOOP),
	    "... and a later ELOOP is not said to be t2's link");
	unlink(f);

	/* A file in it that others can write: refused, with the fix. */
	snprintf(f, sizeof(f), "%s/t1", p);
	chmod(f, 0666);
	is_int(pg_state_read(&st, "t1", &rec), -1, "a record mode 0666: "
	    "not read");
	is_int(errno, EPERM, "... EPERM");
	snprintf(want, sizeof(want), "writable by group or others (owner "
	    "%s, mode 0666); run: chmod go-w %s", geteuid() == 0 ? "root" :
	    "", f);
	like(pg_state_strerror(&st, EPERM), geteuid() == 0 ? want :
	    "mode 0666); run: chmod go-w ", "... pg_state_strerror says how "
	    "to fix it");
	chmod(f, 0620);
	is_int(pg_state_read(&st, "t1", &rec), -1, "... mode 0620: not read");
	chmod(f, 0644);
	is_int(pg_state_read(&st, "t1", &rec), 1, "... 0644 again: read");
	if (geteuid() == 0) {
		snprintf(f, sizeof(f), "%s/t1", p);
		chown(f, 65534, 65534);
		is_int(pg_state_read(&st, "t1", &rec), -1,
		    "a record of user 65534: not read");
		is_int(errno, EPERM, "... EPERM");
		like(pg_state_strerror(&st, EPERM), "(uid 65534), mode 0644: "
		    "it must belong to root", "... pg_state_strerror says "
		    "whose and why");
		is_int(pg_state_touch(&st, "t1"), 0,
		    "pg_state_touch replaces it");
		ok(stat(f, &sb) == 0 && sb.st_uid == 0, "... by root's");
		is_int(pg_lock_take(&st, "t1", &fd), 1, "run lock taken");
		close(fd);
		snprintf(f, sizeof(f), "%s/.t1.lock", p);
		chown(f, 65534, 65534);
		is_int(pg_lock_take(&st, "t1", &fd), -1,
		    "a run lock of user 65534: not taken");
		is_int(errno, EPERM, "... EPERM");
		pg_state_close(&st);
		chown(p, 65534, 65534);
		r = pg_state_open(&st, p, 0, errbuf, sizeof(errbuf));
		is_int(r, -1, "a state directory of user 65534: refused");
		like(errbuf, "(uid 65534), mode 0755: it must belong to root",
		    "... naming its owner and mode");
		if (r == 0)
			pg_state_close(&st);
	} else {
		diag("not root: no files of another user");
		pg_state_close(&st);
	}
}

/* Replace the record of cluster with rec, as the writers of record.c do. */
static int
state_write(struct pg_state *st, const char *cluster,
    const struct pg_stamp *rec)
{
	char	 buf[PG_RECORD_MAX];
	int	 len;

	if ((len = pg_stamp_format(rec, buf, sizeof(buf))) == -1)
		return -1;
	return pg_state_set(st, cluster, NULL, buf, len);
}

static void
test_records(void)
{
	struct pg_state	 st;
	struct pg_stamp	 w, r, now;
	struct stat	 sb;
	char		 dirp[512], p[PATH_MAX], out[PATH_MAX];
	char		 errbuf[PG_ERR_MAX], buf[512], big[4096];
	int64_t		 e;
	ssize_t		 n;
	int		 i, fd, bad;

	snprintf(dirp, sizeof(dirp), "%s/records", base);
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == -1) {
		ok(0, "state_open %s: %s", dirp, errbuf);
		return;
	}

	errno = 0;
	is_int(pg_state_read(&st, "mail", &r), 0, "no record: 0 (never)");

	w = stamp(BOOT_A, 77 * SEC, 1700000000 * SEC);
	is_int(state_write(&st, "mail", &w), 0, "write a record");
	memset(&r, 0, sizeof(r));
	is_int(pg_state_read(&st, "mail", &r), 1, "read it: 1");
	ok(stamp_eq(&w, &r), "read gives the stamp written");
	snprintf(p, sizeof(p), "%s/mail", dirp);
	if ((fd = open(p, O_RDONLY)) != -1) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
	} else
		buf[0] = '\0';
	is_str(buf, "pollguard-state 1 " BOOT_A " 77000000000 "
	    "1700000000000000000\n", "the file holds the record line");
	ok(stat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) == 0,
	    "record is a regular file, not writable by others");
	is_int(pg_state_read(&st, "news", &r), 0,
	    "another cluster still reads never");

	w = stamp(BOOT_B, 1, 2);
	is_int(state_write(&st, "mail", &w), 0, "replace the record");
	memset(&r, 0, sizeof(r));
	is_int(pg_state_read(&st, "mail", &r), 1, "read the new one");
	ok(stamp_eq(&w, &r), "read gives the new stamp");

	is_int(pg_state_touch(&st, "mail"), 0, "touch");
	is_int(pg_state_read(&st, "mail", &r), 1, "read after touch");
	pg_stamp_now(&now);
	e = pg_stamp_elapsed(&r, &now);
	ok(e >= 0 && e < 5000, "elapsed since touch is small (%lld ms)",
	    (long long)e);
	ok(strcmp(r.boot_id, now.boot_id) == 0, "touch records this boot");

	/* Malformed records. */
	write_file(p, "garbage\n", 8);
	errno = 0;
	is_int(pg_state_read(&st, "mail", &r), -1, "garbage: -1");
	is_int(errno, EBADMSG, "garbage: errno EBADMSG");
	write_file(p, "", 0);
	errno = 0;
	is_int(pg_state_read(&st, "mail", &r), -1, "empty file: -1");
	is_int(errno, EBADMSG, "empty file: errno EBADMSG");
	write_file(p, "pollguard-state 1 " BOOT_A " 5 6", 56);
	errno = 0;
	is_int(pg_state_read(&st, "mail", &r), -1, "no newline: -1");
	is_int(errno, EBADMSG, "no newline: errno EBADMSG");
	memset(big, 'x', sizeof(big));
	memcpy(big, "pollguard-state 1 " BOOT_A " 5 6\n", 57);
	write_file(p, big, sizeof(big));
	errno = 0;
	is_int(pg_state_read(&st, "mail", &r), -1,
	    "valid line then 4 KB of garbage: -1");
	is_int(errno, EBADMSG, "valid line then garbage: errno EBADMSG");
	if ((fd = open(p, O_WRONLY | O_APPEND)) == -1)
		err(1, "%s", p);
	for (i = 1; i < 256; i++)
		if (write(fd, big, sizeof(big)) != sizeof(big))
			err(1, "write %s", p);
	close(fd);
	errno = 0;
	is_int(pg_state_read(&st, "mail", &r), -1, "1 MB record: -1");
	is_int(errno, EBADMSG, "1 MB record: errno EBADMSG");
	unlink(p);
	mkdir(p, 0755);
	errno = 0;
	is_int(pg_state_read(&st, "mail", &r), -1, "a directory as record: -1");
	rmdir(p);

	/* touch overwrites a malformed record. */
	write_file(p, "garbage\n", 8);
	is_int(pg_state_touch(&st, "mail"), 0, "touch over garbage");
	is_int(pg_state_read(&st, "mail", &r), 1, "then it reads");

	/* Remove. */
	is_int(pg_state_remove(&st, "mail"), 0, "remove");
	is_int(pg_state_read(&st, "mail", &r), 0, "after remove: never");
	ok(access(p, F_OK) == -1, "the file is gone");
	is_int(pg_state_remove(&st, "mail"), 0, "remove again: success");
	is_int(pg_state_remove(&st, "never-written"), 0,
	    "remove of a missing record: success");

	/* A failed write returns -1 and leaves no temporary file. */
	snprintf(p, sizeof(p), "%s/blocked", dirp);
	mkdir(p, 0755);
	snprintf(out, sizeof(out), "%s/blocked/x", dirp);
	write_file(out, "x", 1);
	errno = 0;
	is_int(state_write(&st, "blocked", &w), -1,
	    "write onto a non-empty directory fails");
	ok(errno != 0, "with errno set");
	is_int(count_tmp(dirp), 0, "and leaves no .tmp. file");
	ok(access(out, F_OK) == 0, "and the directory is untouched");
	unlink(out);
	rmdir(p);

	/* No temporary files left behind. */
	bad = 0;
	for (i = 0; i < 200; i++) {
		w = stamp(BOOT_A, i * SEC, i * SEC);
		if (state_write(&st, i % 2 ? "a" : "b", &w) != 0)
			bad++;
	}
	is_int(bad, 0, "200 writes succeed");
	is_int(count_tmp(dirp), 0, "no .tmp. files left");
	is_int(pg_state_read(&st, "a", &r), 1, "last write of a reads");
	is_int(r.mono_ns, 199 * SEC, "a holds the last write");
	is_int(pg_state_read(&st, "b", &r), 1, "last write of b reads");
	is_int(r.mono_ns, 198 * SEC, "b holds the last write");

	/* A symlink at the record's name: the link is replaced. */
	snprintf(out, sizeof(out), "%s/outside", base);
	write_file(out, "precious\n", 9);
	snprintf(p, sizeof(p), "%s/link", dirp);
	if (symlink(out, p) == -1)
		err(1, "symlink");
	w = stamp(BOOT_A, 5, 6);
	is_int(state_write(&st, "link", &w), 0, "write over a symlink");
	if ((fd = open(out, O_RDONLY)) != -1) {
		n = read(fd, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
	} else
		buf[0] = '\0';
	is_str(buf, "precious\n", "the symlink's target is untouched");
	ok(lstat(p, &sb) == 0 && S_ISREG(sb.st_mode),
	    "the record is now a regular file");
	is_int(pg_state_read(&st, "link", &r), 1, "and reads back");
	ok(stamp_eq(&w, &r), "with the stamp written");

	/* A dangling symlink: nothing is created at its target. */
	snprintf(out, sizeof(out), "%s/dangling-target", base);
	snprintf(p, sizeof(p), "%s/dangle", dirp);
	if (symlink(out, p) == -1)
		err(1, "symlink");
	is_int(pg_state_touch(&st, "dangle"), 0, "touch over a dangling "
	    "symlink");
	ok(access(out, F_OK) == -1, "the dangling target is not created");

	pg_state_close(&st);
	ok(st.dirfd == -1, "close resets dirfd");
}

/*
 * Claims: the two optional record fields, pg_record_elapsed, and the
 * claim, touch, read_raw and restore functions.
 */

static int
claim_eq(const struct pg_stamp *a, const struct pg_stamp *b)
{
	return stamp_eq(a, b) && a->claim_ns == b->claim_ns &&
	    a->horizon_ms == b->horizon_ms;
}

static struct pg_stamp
claimed(const char *boot, int64_t mono, int64_t wall, int64_t claim,
    int64_t horizon)
{
	struct pg_stamp	 s = stamp(boot, mono, wall);

	s.claim_ns = claim;
	s.horizon_ms = horizon;
	return s;
}

static void
test_claim_format(void)
{
	struct pg_stamp	 s, t;
	char		 buf[256], rec[256];
	size_t		 i;
	int		 r;

	s = claimed(BOOT_A, 9 * SEC, 1700000000 * SEC, 8 * SEC, 5750);
	r = pg_stamp_format(&s, buf, sizeof(buf));
	ok(r > 0 && (size_t)r == strlen(buf), "format a claim record: length "
	    "(%d)", r);
	is_str(buf, "pollguard-state 1 " BOOT_A " 9000000000 "
	    "1700000000000000000 8000000000 5750\n",
	    "format a claim record: the two fields at the end");
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0, "parse it back");
	ok(claim_eq(&s, &t), "claim round trip keeps all five fields");

	/* The claim moment may be the record's moment (pg_state_claim). */
	s = claimed(BOOT_B, 12345, 67890, 12345, 1);
	pg_stamp_format(&s, buf, sizeof(buf));
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0,
	    "parse a claim at the record's moment");
	ok(claim_eq(&s, &t), "round trip of a claim at the record's moment");

	s = claimed(BOOT_A, INT64_MAX, INT64_MAX, INT64_MAX, PG_WAIT_MAX_MS);
	r = pg_stamp_format(&s, buf, sizeof(buf));
	ok(r > 0 && r <= PG_RECORD_MAX, "the longest claim record fits "
	    "PG_RECORD_MAX (%d)", r);
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0,
	    "parse the longest claim record");
	ok(claim_eq(&s, &t), "round trip of the longest claim record");

	/* Without a claim: both 0 after parse, and no fields written. */
	s = stamp(BOOT_A, 5, 6);
	pg_stamp_format(&s, buf, sizeof(buf));
	is_str(buf, "pollguard-state 1 " BOOT_A " 5 6\n",
	    "no claim: the record has three numbers less");
	memset(&t, 0x5a, sizeof(t));
	is_int(pg_stamp_parse(buf, strlen(buf), &t), 0, "parse it");
	is_int(t.claim_ns, 0, "no claim: claim_ns 0");
	is_int(t.horizon_ms, 0, "no claim: horizon_ms 0");
	pg_stamp_now(&s);
	is_int(s.claim_ns, 0, "pg_stamp_now: claim_ns 0");
	is_int(s.horizon_ms, 0, "pg_stamp_now: horizon_ms 0");

	/* Too small a buffer. */
	s = claimed(BOOT_A, 9 * SEC, 1700000000 * SEC, 8 * SEC, 5750);
	r = pg_stamp_format(&s, rec, sizeof(rec));
	is_int(pg_stamp_format(&s, buf, r), -1,
	    "claim record into a buffer one byte short fails");
	ok(pg_stamp_format(&s, buf, r + 1) == r,
	    "claim record into a buffer just large enough");

	/* Every truncation of a claim record is refused. */
	for (i = 1; i < strlen(rec); i++)
		if (pg_stamp_parse(rec, i, &t) != -1)
			break;
	is_int(i, strlen(rec), "parse rejects every truncation of a claim "
	    "record");
}

/* Claim records pg_stamp_parse refuses, and why. */
static const struct bad_record bad_claims[] = {
	{ T("pollguard-state 1 " BOOT_A " 9 6 7\n"), "claim without horizon" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 8 9\n"), "a sixth number" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 x 8\n"), "claim not a number" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 x\n"), "horizon not a number" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 -7 8\n"), "negative claim" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 -8\n"), "negative horizon" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 +7 8\n"), "claim with '+'" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 0x8\n"), "hex horizon" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 8x\n"),
	    "garbage after horizon" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7  8\n"),
	    "two spaces before horizon" },
	{ T("pollguard-state 1 " BOOT_A " 9 6  7 8\n"),
	    "two spaces before claim" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 8 \n"), "space after horizon" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 8\r\n"),
	    "claim record, CR LF" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 \n"), "empty horizon" },
	{ T("pollguard-state 1 " BOOT_A " 9 6  8\n"), "empty claim" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 9223372036854775808 8\n"),
	    "claim above INT64_MAX" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 99999999999999999999\n"),
	    "horizon of 20 digits" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7 8\n\n"),
	    "claim record, two newlines" },
	{ T("pollguard-state 1 " BOOT_A " 9 6 7\08\n"), "claim record, NUL" },
};

static void
test_claim_parse(void)
{
	static const char good[] = "pollguard-state 1 " BOOT_A " 9 6 7 8\n";
	const struct bad_record	*b;
	struct pg_stamp	 t;

	is_int(pg_stamp_parse(good, strlen(good), &t), 0,
	    "parse a claim record");
	is_int(t.mono_ns, 9, "claim record: mono_ns");
	is_int(t.wall_ns, 6, "claim record: wall_ns");
	is_int(t.claim_ns, 7, "claim record: claim_ns");
	is_int(t.horizon_ms, 8, "claim record: horizon_ms");

	for (b = bad_claims; b < bad_claims + NITEMS(bad_claims); b++)
		parse_bad(b->text, b->len, b->name);
}

/*
 * Cases of pg_record_elapsed: records claimed at 10 s, refreshed at 11 s,
 * with a horizon of 5 s (CLAIM); the same without a claim (PLAIN); a
 * claim as pg_state_claim writes it, claim = mono (FRESH). STAMP: what
 * pg_stamp_elapsed says of the same record instead.
 */
enum { CLAIM, PLAIN, FRESH };
static const struct record_case {
	int		 rec, stamp;
	const char	*nboot;
	int64_t		 nmono, nwall;
	int64_t		 want;
	const char	*name;
} record_cases[] = {
	{ CLAIM, 0, BOOT_A, 12 * SEC, 0, 2000,
	    "within the horizon: since the claim" },
	{ CLAIM, 1, BOOT_A, 12 * SEC, 0, 1000,
	    "the same record: since the refresh" },
	{ CLAIM, 0, BOOT_A, 11 * SEC, 0, 1000,
	    "at the refresh: since the claim" },
	{ CLAIM, 0, BOOT_A, 15 * SEC - 1, 0, 4999,
	    "1ns before the horizon ends: since the claim" },
	{ CLAIM, 0, BOOT_A, 15 * SEC, 0, 4000,
	    "when the horizon ends: since the refresh" },
	{ CLAIM, 0, BOOT_A, 20 * SEC + 500 * MS, 0, 9500,
	    "after the horizon: since the refresh" },
	{ CLAIM, 0, BOOT_A, 12 * SEC, 1, 2000,
	    "within the horizon, the wall clock stepped back" },
	/* No claim: pg_stamp_elapsed. */
	{ PLAIN, 0, BOOT_A, 12 * SEC, 0, 1000,
	    "no claim: since the activity" },
	{ PLAIN, 0, BOOT_A, 10 * SEC, 0, 0,
	    "no claim, from the future: 0" },
	/* Another boot: the claim means nothing there. */
	{ CLAIM, 0, BOOT_B, 12 * SEC, 5000 * SEC + 3600 * SEC, 3600 * 1000,
	    "other boot: pg_stamp_elapsed (wall difference)" },
	{ CLAIM, 0, BOOT_B, 100 * SEC, 5000 * SEC, 100 * 1000,
	    "other boot: pg_stamp_elapsed (uptime)" },
	{ CLAIM, 0, BOOT_B, 3 * SEC, 5000 * SEC + 1 * SEC, 3000,
	    "other boot, within what would be the horizon: uptime" },
	{ FRESH, 0, BOOT_A, 10 * SEC + 1234 * MS, 0, 1234,
	    "fresh claim" },
	{ FRESH, 0, BOOT_A, 10 * SEC + 5750 * MS, 0, 5750,
	    "fresh claim, at the end of the horizon" },
	{ FRESH, 0, BOOT_A, 10 * SEC + 7 * SEC, 0, 7000,
	    "fresh claim, past the horizon" },
};

static void
test_record_elapsed(void)
{
	const struct record_case	*c;
	struct pg_stamp			 recs[3], now;

	recs[CLAIM] = claimed(BOOT_A, 11 * SEC, 5000 * SEC, 10 * SEC, 5000);
	recs[PLAIN] = stamp(BOOT_A, 11 * SEC, 5000 * SEC);
	recs[FRESH] = claimed(BOOT_A, 10 * SEC, 0, 10 * SEC, 5750);
	for (c = record_cases; c < record_cases + NITEMS(record_cases); c++) {
		now = stamp(c->nboot, c->nmono, c->nwall);
		if (c->stamp)
			is_int(pg_stamp_elapsed(&recs[c->rec], &now), c->want,
			    "elapsed: %s", c->name);
		else
			is_int(pg_record_elapsed(&recs[c->rec], &now),
			    c->want, "record elapsed: %s", c->name);
	}
}

static ssize_t
raw(struct pg_state *st, const char *cluster, char *buf)
{
	memset(buf, 0, PG_RECORD_MAX + 1);
	return pg_state_read_raw(st, cluster, buf, PG_RECORD_MAX);
}

static void
test_claim_records(void)
{
	struct pg_state	 st;
	struct pg_stamp	 rec, r, now, w, other;
	char		 dirp[512], p[PATH_MAX], errbuf[PG_ERR_MAX];
	char		 old[PG_RECORD_MAX + 1], cur[PG_RECORD_MAX + 1];
	char		 fmt[PG_RECORD_MAX + 1], big[4096];
	int64_t		 vis = -1;
	int		 fd;
	ssize_t		 n, m;

	snprintf(dirp, sizeof(dirp), "%s/claims", base);
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == -1) {
		ok(0, "state_open %s: %s", dirp, errbuf);
		return;
	}

	/* pg_state_claim. */
	pg_stamp_now(&now);
	memset(&rec, 0x5a, sizeof(rec));
	is_int(pg_state_claim(&st, "mail", 5750, &rec, &vis), 0,
	    "claim: succeeds");
	is_int(rec.claim_ns, rec.mono_ns, "claim: claim_ns is the record's "
	    "moment");
	is_int(rec.horizon_ms, 5750, "claim: the horizon given");
	is_str(rec.boot_id, now.boot_id, "claim: this boot");
	ok(rec.mono_ns >= now.mono_ns && rec.mono_ns - now.mono_ns < 5 * SEC,
	    "claim: the moment is now");
	ok(vis >= rec.claim_ns, "claim: visible no earlier than the claim");
	ok(vis - rec.claim_ns < 5 * SEC, "claim: visible soon after (%lld "
	    "ns)", (long long)(vis - rec.claim_ns));
	memset(&r, 0, sizeof(r));
	is_int(pg_state_read(&st, "mail", &r), 1, "claim: record reads");
	ok(claim_eq(&rec, &r), "claim: the record read is the one stored");
	n = raw(&st, "mail", cur);
	m = pg_stamp_format(&rec, fmt, sizeof(fmt));
	ok(n > 0 && n == m && memcmp(cur, fmt, n) == 0,
	    "read_raw: the bytes of the claim record");
	pg_stamp_now(&now);
	ok(pg_record_elapsed(&r, &now) >= 0 &&
	    pg_record_elapsed(&r, &now) < 5000, "claim: serve would say a "
	    "few ms");

	/* touch keeps a claim while its horizon lasts ... */
	pg_stamp_now(&now);
	if (now.mono_ns < 30 * SEC) {
		diag("CLOCK_BOOTTIME below 30s: touch tests skipped");
		goto restore;
	}
	w = now;
	w.mono_ns = now.mono_ns - 1 * SEC;
	w.claim_ns = now.mono_ns - 2 * SEC;
	w.horizon_ms = 60000;
	is_int(state_write(&st, "mail", &w), 0, "write a claim 2s old");
	is_int(pg_state_touch(&st, "mail"), 0, "touch it");
	memset(&r, 0, sizeof(r));
	is_int(pg_state_read(&st, "mail", &r), 1, "read after touch");
	is_int(r.claim_ns, w.claim_ns, "touch within the horizon keeps "
	    "claim_ns");
	is_int(r.horizon_ms, 60000, "touch within the horizon keeps "
	    "horizon_ms");
	ok(r.mono_ns >= now.mono_ns, "touch refreshed the moment");
	pg_stamp_now(&now);
	ok(pg_record_elapsed(&r, &now) >= 2000 &&
	    pg_record_elapsed(&r, &now) < 7000,
	    "after touch serve still says since the claim (%lld ms)",
	    (long long)pg_record_elapsed(&r, &now));
	ok(pg_stamp_elapsed(&r, &now) < 5000, "while the activity is fresh");
	is_int(pg_state_touch(&st, "mail"), 0, "touch again");
	pg_state_read(&st, "mail", &r);
	is_int(r.claim_ns, w.claim_ns, "touch again keeps the claim");

	/*
	 * ... and after it: the record keeps its last claim for the boot
	 * (lib/local.c tells from it whether a go's job has begun), while
	 * serve reports the time since the refresh.
	 */
	w.claim_ns = now.mono_ns - 10 * SEC;
	w.horizon_ms = 5000;
	state_write(&st, "mail", &w);
	is_int(pg_state_touch(&st, "mail"), 0, "touch a claim past its "
	    "horizon");
	memset(&r, 0x5a, sizeof(r));
	pg_state_read(&st, "mail", &r);
	is_int(r.claim_ns, w.claim_ns, "touch after the horizon keeps "
	    "claim_ns");
	is_int(r.horizon_ms, 5000, "touch after the horizon keeps horizon_ms");
	ok(r.mono_ns >= now.mono_ns, "and refreshes the moment");
	pg_stamp_now(&now);
	ok(!pg_stamp_in_horizon(&r, &now), "the kept claim is not in its "
	    "horizon");
	ok(pg_record_elapsed(&r, &now) < 5000, "serve says since the refresh "
	    "(%lld ms), not since the claim",
	    (long long)pg_record_elapsed(&r, &now));
	w.claim_ns = now.mono_ns - 3 * SEC;
	w.horizon_ms = 3000;
	state_write(&st, "mail", &w);
	pg_state_touch(&st, "mail");
	memset(&r, 0x5a, sizeof(r));
	pg_state_read(&st, "mail", &r);
	is_int(r.claim_ns, w.claim_ns, "touch just after the horizon keeps "
	    "the claim");
	w.claim_ns = now.mono_ns - 25 * SEC;
	w.horizon_ms = 5750;
	state_write(&st, "mail", &w);
	pg_state_touch(&st, "mail");
	pg_state_touch(&st, "mail");
	memset(&r, 0x5a, sizeof(r));
	pg_state_read(&st, "mail", &r);
	ok(r.claim_ns == w.claim_ns && r.horizon_ms == 5750, "touches long "
	    "after the claim keep it");

	/* A claim from another boot is not kept. */
	if (strcmp(now.boot_id, BOOT_B) != 0) {
		w = claimed(BOOT_B, now.mono_ns, now.wall_ns, now.mono_ns -
		    1 * SEC, 60000);
		state_write(&st, "mail", &w);
		pg_state_touch(&st, "mail");
		memset(&r, 0x5a, sizeof(r));
		pg_state_read(&st, "mail", &r);
		is_int(r.claim_ns, 0, "touch drops a claim of another boot");
		is_str(r.boot_id, now.boot_id, "and records this boot");
	}
	/* No claim: touch adds none. */
	w = stamp(now.boot_id, now.mono_ns - SEC, now.wall_ns);
	state_write(&st, "mail", &w);
	pg_state_touch(&st, "mail");
	memset(&r, 0x5a, sizeof(r));
	pg_state_read(&st, "mail", &r);
	is_int(r.claim_ns, 0, "touch of a record without a claim adds none");
	is_int(r.horizon_ms, 0, "and no horizon");

restore:
	/* read_raw and restore: no record before. */
	pg_state_remove(&st, "new");
	is_int(raw(&st, "new", old), 0, "read_raw: no record: 0");
	is_int(pg_state_claim(&st, "new", 5750, &rec, &vis), 0,
	    "claim where there was none");
	is_int(pg_state_restore(&st, "new", &rec, old, 0), 1,
	    "restore of none: 1");
	is_int(pg_state_read(&st, "new", &r), 0, "restore of none: the "
	    "record is gone");
	snprintf(p, sizeof(p), "%s/new", dirp);
	ok(access(p, F_OK) == -1, "restore of none: no file left");
	is_int(pg_state_restore(&st, "new", &rec, old, 0), 0,
	    "restore of none again: 0 (nothing of ours there)");
	is_int(pg_state_read(&st, "new", &r), 0, "still none");

	/* A record before: put back byte for byte. */
	w = stamp(BOOT_A, 77 * SEC, 1700000000 * SEC);
	state_write(&st, "prev", &w);
	n = raw(&st, "prev", old);
	m = pg_stamp_format(&w, fmt, sizeof(fmt));
	ok(n > 0 && n == m && memcmp(old, fmt, n) == 0,
	    "read_raw: the bytes of a plain record");
	is_int(pg_state_claim(&st, "prev", 5750, &rec, &vis), 0,
	    "claim over a record");
	ok(raw(&st, "prev", cur) > n, "the claim record is on disk");
	is_int(pg_state_restore(&st, "prev", &rec, old, n), 1,
	    "restore of the previous record: 1");
	m = raw(&st, "prev", cur);
	ok(m == n && memcmp(cur, old, n) == 0,
	    "restore: byte for byte the previous record");
	is_int(count_tmp(dirp), 0, "restore: no .tmp. file left");
	is_int(pg_state_restore(&st, "prev", &rec, old, n), 0,
	    "restore again: 0 (our claim is no longer there)");

	/*
	 * Lengthen: only our claim, and what is taken back afterwards is
	 * what the claim replaced under the lock, not the caller's copy.
	 */
	w = stamp(BOOT_A, 78 * SEC, 1700000000 * SEC);
	state_write(&st, "prev", &w);
	n = raw(&st, "prev", old);
	pg_state_claim(&st, "prev", 5750, &rec, &vis);
	r = rec;
	is_int(pg_state_lengthen(&st, "prev", &rec, 6000), 1,
	    "lengthen our claim: 1");
	is_int(rec.horizon_ms, 6000, "lengthen: the longer horizon given back");
	memset(&other, 0, sizeof(other));
	pg_state_read(&st, "prev", &other);
	ok(other.horizon_ms == 6000 && other.claim_ns == r.claim_ns &&
	    other.mono_ns == r.mono_ns, "lengthen: on disk, only the horizon "
	    "changed");
	is_int(pg_state_restore(&st, "prev", &rec, "stale", 5), 1,
	    "restore of the lengthened claim: 1");
	m = raw(&st, "prev", cur);
	ok(m == n && memcmp(cur, old, n) == 0, "restore after lengthen: what "
	    "the claim replaced, not the caller's stale copy");
	pg_state_claim(&st, "prev", 5750, &rec, &vis);
	pg_state_touch(&st, "prev");
	r = rec;
	is_int(pg_state_lengthen(&st, "prev", &rec, 6000), 0,
	    "lengthen over a later touch: 0");
	ok(rec.horizon_ms == 5750, "lengthen refused: the claim as it was");
	memset(&other, 0, sizeof(other));
	pg_state_read(&st, "prev", &other);
	ok(other.mono_ns > r.mono_ns, "lengthen refused: the touch stays");

	/* A previous claim record of another round comes back whole. */
	w = claimed(BOOT_A, 80 * SEC, 1700000000 * SEC, 79 * SEC, 5750);
	state_write(&st, "prev", &w);
	n = raw(&st, "prev", old);
	pg_state_claim(&st, "prev", 9000, &rec, &vis);
	is_int(pg_state_restore(&st, "prev", &rec, old, n), 1,
	    "restore of a previous claim record: 1");
	memset(&r, 0, sizeof(r));
	pg_state_read(&st, "prev", &r);
	ok(claim_eq(&r, &w), "restore: the previous claim fields are back");

	/* Whatever bytes were there come back, even a damaged record. */
	snprintf(p, sizeof(p), "%s/damaged", dirp);
	write_file(p, "garbage\n", 8);
	n = raw(&st, "damaged", old);
	is_int(n, 8, "read_raw of a damaged record: its 8 bytes");
	pg_state_claim(&st, "damaged", 5750, &rec, &vis);
	is_int(pg_state_restore(&st, "damaged", &rec, old, n), 1,
	    "restore of a damaged record: 1");
	ok(raw(&st, "damaged", cur) == 8 && memcmp(cur, "garbage\n", 8) == 0,
	    "restore: the damaged bytes are back as they were");

	/* Someone wrote since: theirs stays. */
	w = stamp(BOOT_A, 77 * SEC, 1700000000 * SEC);
	state_write(&st, "race", &w);
	n = raw(&st, "race", old);
	pg_state_claim(&st, "race", 5750, &rec, &vis);
	other = stamp(BOOT_B, 5 * SEC, 6 * SEC);
	state_write(&st, "race", &other);
	is_int(pg_state_restore(&st, "race", &rec, old, n), 0,
	    "restore after someone else wrote: 0");
	memset(&r, 0, sizeof(r));
	pg_state_read(&st, "race", &r);
	ok(claim_eq(&r, &other), "restore after someone else wrote: theirs "
	    "stays");
	is_int(pg_state_restore(&st, "race", &rec, old, 0), 0,
	    "restore of none after someone else wrote: 0");
	is_int(pg_state_read(&st, "race", &r), 1, "and theirs is not removed");

	/* A touch since (a job refreshing) is someone else, too. */
	pg_state_claim(&st, "race", 5750, &rec, &vis);
	pg_state_touch(&st, "race");
	is_int(pg_state_restore(&st, "race", &rec, old, n), 0,
	    "restore after a touch: 0");
	memset(&r, 0, sizeof(r));
	pg_state_read(&st, "race", &r);
	is_int(r.claim_ns, rec.claim_ns, "restore after a touch: the "
	    "touched record (with the claim) stays");

	/*
	 * The whole record is compared, not the claim: a touch past the
	 * horizon keeps the claim but is someone else's all the same.
	 */
	pg_stamp_now(&now);
	if (now.mono_ns > 30 * SEC) {
		w = claimed(now.boot_id, now.mono_ns - 10 * SEC, now.wall_ns,
		    now.mono_ns - 10 * SEC, 5000);
		state_write(&st, "race", &w);
		pg_state_touch(&st, "race");
		is_int(pg_state_restore(&st, "race", &w, old, n), 0,
		    "restore after a touch past the horizon, the claim kept: "
		    "0");
		memset(&r, 0, sizeof(r));
		pg_state_read(&st, "race", &r);
		ok(r.claim_ns == w.claim_ns && r.mono_ns > w.mono_ns,
		    "and the touched record stays");
	}

	/* Removed since: nothing comes back. */
	pg_state_claim(&st, "race", 5750, &rec, &vis);
	pg_state_remove(&st, "race");
	is_int(pg_state_restore(&st, "race", &rec, old, n), 0,
	    "restore after a remove: 0");
	is_int(pg_state_read(&st, "race", &r), 0, "restore after a remove: "
	    "still none");

	/* Damaged since: left alone. */
	pg_state_claim(&st, "race", 5750, &rec, &vis);
	snprintf(p, sizeof(p), "%s/race", dirp);
	write_file(p, "other\n", 6);
	is_int(pg_state_restore(&st, "race", &rec, old, n), 0,
	    "restore after someone wrote garbage: 0");
	ok(raw(&st, "race", cur) == 6 && memcmp(cur, "other\n", 6) == 0,
	    "and the garbage stays");

	/* read_raw refuses what no record can be. */
	memset(big, 'x', sizeof(big));
	write_file(p, big, sizeof(big));
	errno = 0;
	is_int(pg_state_read_raw(&st, "race", cur, PG_RECORD_MAX), -1,
	    "read_raw of 4 KB: -1");
	is_int(errno, EBADMSG, "read_raw of 4 KB: EBADMSG");
	write_file(p, big, PG_RECORD_MAX + 1);
	is_int(pg_state_read_raw(&st, "race", cur, PG_RECORD_MAX), -1,
	    "read_raw of PG_RECORD_MAX + 1 bytes: -1");
	write_file(p, big, PG_RECORD_MAX);
	is_int(pg_state_read_raw(&st, "race", cur, PG_RECORD_MAX),
	    PG_RECORD_MAX, "read_raw of PG_RECORD_MAX bytes: all of them");
	unlink(p);
	if (mkdir(p, 0755) == 0) {
		errno = 0;
		is_int(pg_state_read_raw(&st, "race", cur, PG_RECORD_MAX), -1,
		    "read_raw of a directory: -1");
		is_int(errno, EBADMSG, "read_raw of a directory: EBADMSG");
		rmdir(p);
	}
	/* A FIFO, with no writer and with one that writes nothing. */
	if (mkfifo(p, 0644) == 0) {
		errno = 0;
		is_int(pg_state_read_raw(&st, "race", cur, PG_RECORD_MAX), -1,
		    "read_raw of a FIFO without a writer: -1");
		is_int(errno, EBADMSG, "read_raw of a FIFO without a writer: "
		    "EBADMSG");
		if ((fd = open(p, O_RDWR)) != -1) {
			errno = 0;
			is_int(pg_state_read_raw(&st, "race", cur,
			    PG_RECORD_MAX), -1,
			    "read_raw of a FIFO held open: -1, at once");
			is_int(errno, EBADMSG, "read_raw of a FIFO held open: "
			    "EBADMSG");
			close(fd);
		}
		unlink(p);
	}
	pg_state_close(&st);
}

/* Run fn in a child; return its exit status or -1. */
static int
in_child(int (*fn)(struct pg_state *, const char *), struct pg_state *st,
    const char *cluster)
{
	pid_t	 pid;
	int	 status;

	fflush(stdout);
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0)
		_exit(fn(st, cluster) & 0xff);
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int
child_held(struct pg_state *st, const char *cluster)
{
	return pg_lock_held(st, cluster);
}

static int
child_take(struct pg_state *st, const char *cluster)
{
	int	 fd = -1;

	return pg_lock_take(st, cluster, &fd);
}

/*
 * No byte may be written (RLIMIT_FSIZE 0, write fails with EFBIG): as a
 * full file system, for the withdrawal, which must need no new data.
 * Meanwhile the test's own lines go to a pipe, which the limit does not
 * bound (it would drop them when stdout is a file, as under tests/run),
 * and after it to stdout.
 */
static void
no_writes(int on)
{
	static struct rlimit	 was;
	static int		 out = -1, p[2];
	struct rlimit		 rl;
	char			 buf[4096];
	ssize_t			 n;

	fflush(stdout);
	if (on) {
		if (pipe(p) == -1 || (out = dup(STDOUT_FILENO)) == -1 ||
		    dup2(p[1], STDOUT_FILENO) == -1)
			err(1, "no_writes");
		close(p[1]);
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &was);
		rl = was;
		rl.rlim_cur = 0;
		setrlimit(RLIMIT_FSIZE, &rl);
		return;
	}
	setrlimit(RLIMIT_FSIZE, &was);
	/* The pipe's last writer gone: read to its end (a few lines). */
	if (dup2(out, STDOUT_FILENO) == -1)
		err(1, "no_writes");
	close(out);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, n) != n)
			err(1, "no_writes");
	close(p[0]);
}

static ino_t
ino_of(const char *dir, const char *name)
{
	char		 p[PATH_MAX];
	struct stat	 sb;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &sb) == 0 ? sb.st_ino : 0;
}

/*
 * The withdrawal needs no new disk blocks: the claim keeps the replaced
 * file by a second name, .CLUSTER.undo, and the restore renames it back;
 * a restore that fails anyway leaves the claim only while what it
 * replaced would still count (pg_state_unclaim).
 */
static void
test_undo(void)
{
	struct pg_state	 st;
	struct pg_stamp	 rec, now, w, r;
	char		 dirp[512], errbuf[PG_ERR_MAX], p[PATH_MAX];
	char		 old[PG_RECORD_MAX + 1], cur[PG_RECORD_MAX + 1];
	int64_t		 vis, left;
	ino_t		 ino;
	ssize_t		 n;

	snprintf(dirp, sizeof(dirp), "%s/undo", base);
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == -1) {
		ok(0, "state_open %s: %s", dirp, errbuf);
		return;
	}
	pg_stamp_now(&now);
	if (now.mono_ns < 200 * SEC) {
		diag("CLOCK_BOOTTIME below 200s: withdrawal tests skipped");
		pg_state_close(&st);
		return;
	}

	/* The claim links what it replaces; the restore renames it back. */
	w = stamp(now.boot_id, now.mono_ns - 100 * SEC, now.wall_ns);
	state_write(&st, "mail", &w);
	n = raw(&st, "mail", old);
	ino = ino_of(dirp, "mail");
	is_int(pg_state_claim(&st, "mail", 5750, &rec, &vis), 0, "claim");
	ok(ino != 0 && ino_of(dirp, ".mail.undo") == ino, "the claim keeps "
	    "the record it replaced as .mail.undo, the same file");
	ok(ino_of(dirp, "mail") != ino, "and the record is the claim's");
	no_writes(1);
	is_int(pg_state_restore(&st, "mail", &rec, old, n), 1,
	    "restore where no byte can be written: 1");
	no_writes(0);
	ok(raw(&st, "mail", cur) == n && memcmp(cur, old, n) == 0,
	    "restore: byte for byte the record before");
	is_int((long long)ino_of(dirp, "mail"), (long long)ino,
	    "restore: the file of before, renamed back");
	is_int((long long)ino_of(dirp, ".mail.undo"), 0,
	    "restore: no .mail.undo left");
	is_int(count_tmp(dirp), 0, "restore: no .tmp. file left");

	/* None before: the claim links nothing, the restore removes it. */
	pg_state_remove(&st, "none");
	pg_state_claim(&st, "none", 5750, &rec, &vis);
	is_int((long long)ino_of(dirp, ".none.undo"), 0,
	    "no record before: no .none.undo");
	no_writes(1);
	is_int(pg_state_restore(&st, "none", &rec, old, 0), 1,
	    "restore of none where no byte can be written: 1");
	no_writes(0);
	is_int(pg_state_read(&st, "none", &r), 0, "and the record is gone");

	/* Lengthened, then restored: still by the link. */
	state_write(&st, "mail", &w);
	n = raw(&st, "mail", old);
	ino = ino_of(dirp, "mail");
	pg_state_claim(&st, "mail", 5750, &rec, &vis);
	is_int(pg_state_lengthen(&st, "mail", &rec, 6000), 1, "lengthen");
	no_writes(1);
	is_int(pg_state_restore(&st, "mail", &rec, old, n), 1,
	    "restore of the lengthened claim, no byte written: 1");
	no_writes(0);
	is_int((long long)ino_of(dirp, "mail"), (long long)ino,
	    "... the file of before");

	/* A refresh since is never undone, and the link goes. */
	pg_state_claim(&st, "mail", 5750, &rec, &vis);
	pg_state_touch(&st, "mail");
	is_int(pg_state_restore(&st, "mail", &rec, old, n), 0,
	    "restore after a touch: 0");
	memset(&r, 0, sizeof(r));
	pg_state_read(&st, "mail", &r);
	ok(r.mono_ns > w.mono_ns, "the touch stays");
	is_int((long long)ino_of(dirp, ".mail.undo"), 0,
	    "and no .mail.undo is left");

	/* A link that is no longer the record before is not renamed back. */
	state_write(&st, "mail", &w);
	n = raw(&st, "mail", old);
	pg_state_claim(&st, "mail", 5750, &rec, &vis);
	snprintf(p, sizeof(p), "%s/.mail.undo", dirp);
	unlink(p);
	write_file(p, "other\n", 6);
	is_int(pg_state_restore(&st, "mail", &rec, old, n), 1,
	    "restore with a changed .mail.undo: 1");
	ok(raw(&st, "mail", cur) == n && memcmp(cur, old, n) == 0,
	    "... the record before, written again, not the other file");
	is_int((long long)ino_of(dirp, ".mail.undo"), 0,
	    "... and no .mail.undo is left");

	/*
	 * The restore fails (the link gone, no byte can be written): the
	 * claim stays while the record before is active, as it would count,
	 * and is removed once that record would be idle.
	 */
	w = stamp(now.boot_id, now.mono_ns - 100 * SEC, now.wall_ns);
	state_write(&st, "mail", &w);
	n = raw(&st, "mail", old);
	pg_state_claim(&st, "mail", 5750, &rec, &vis);
	unlink(p);
	no_writes(1);
	is_int(pg_state_restore(&st, "mail", &rec, old, n), -1,
	    "restore without the link, no byte written: -1");
	left = -1;
	is_int(pg_state_unclaim(&st, "mail", &rec, 150 * 1000, &left), 0,
	    "unclaim while the record before is active (100s of 150s): 0");
	ok(left > 45 * 1000 && left <= 50 * 1000, "... for about 50s more "
	    "(%lld ms)", (long long)left);
	memset(&r, 0, sizeof(r));
	pg_state_read(&st, "mail", &r);
	is_int(r.claim_ns, rec.claim_ns, "... and the claim stays");
	is_int(pg_state_unclaim(&st, "mail", &rec, 100 * 1000, &left), 1,
	    "unclaim once the record before is idle (100s of 100s): 1");
	no_writes(0);
	is_int(pg_state_read(&st, "mail", &r), 0, "... the record removed: "
	    "never, as the idle record counts for nothing");
	is_int(pg_state_unclaim(&st, "mail", &rec, 100 * 1000, &left), 0,
	    "unclaim again: 0");
	is_int(left, 0, "... and nothing to wait for");

	/* Not the claim any more: left alone, nothing to wait for. */
	state_write(&st, "mail", &w);
	n = raw(&st, "mail", old);
	pg_state_claim(&st, "mail", 5750, &rec, &vis);
	unlink(p);
	no_writes(1);
	is_int(pg_state_restore(&st, "mail", &rec, old, n), -1,
	    "restore fails again");
	no_writes(0);
	pg_state_touch(&st, "mail");
	left = -1;
	is_int(pg_state_unclaim(&st, "mail", &rec, 10 * 1000, &left), 0,
	    "unclaim after a touch: 0");
	is_int(left, 0, "... nothing to wait for");
	is_int(pg_state_read(&st, "mail", &r), 1, "... and the touch stays");

	/* None before: the claim is removed at once. */
	pg_state_remove(&st, "none");
	pg_state_claim(&st, "none", 5750, &rec, &vis);
	is_int(pg_state_unclaim(&st, "none", &rec, 10 * 1000, &left), 1,
	    "unclaim where there was no record: 1");
	is_int(pg_state_read(&st, "none", &r), 0, "... and there is none");

	/* A damaged record before counts as long as the claim would. */
	snprintf(p, sizeof(p), "%s/dmg", dirp);
	write_file(p, "garbage\n", 8);
	pg_state_claim(&st, "dmg", 5750, &rec, &vis);
	is_int(pg_state_unclaim(&st, "dmg", &rec, 10 * 1000, &left), 0,
	    "unclaim over a damaged record: 0");
	ok(left > 9 * 1000 && left <= 10 * 1000, "... for the claim's wait "
	    "(%lld ms)", (long long)left);

	/* A link a crash left is removed once stale (tests/cli), not before. */
	snprintf(p, sizeof(p), "%s/.left.undo", dirp);
	write_file(p, "x\n", 2);
	pg_state_close(&st);
	pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf));
	ok(ino_of(dirp, ".left.undo") != 0, "a new .left.undo stays");
	pg_state_close(&st);
}

/*
 * pg_state_moved and pg_state_reopen: the directory removed, renamed or
 * replaced is noticed, made again, and given the record back.
 */
static void
test_moved(void)
{
	struct pg_state	 st;
	struct pg_stamp	 w, r;
	char		 dirp[512], moved[600], errbuf[PG_ERR_MAX];
	char		 rec[PG_RECORD_MAX + 1];
	ssize_t		 n;

	snprintf(dirp, sizeof(dirp), "%s/moved", base);
	snprintf(moved, sizeof(moved), "%s/moved.old", base);
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == -1) {
		ok(0, "state_open %s: %s", dirp, errbuf);
		return;
	}
	is_int(pg_state_moved(&st), 0, "moved: not yet");
	w = stamp(BOOT_A, 77 * SEC, 1700000000 * SEC);
	w.claim_ns = 76 * SEC;
	w.horizon_ms = 5750;
	state_write(&st, "mail", &w);
	n = raw(&st, "mail", rec);

	rm_rf(dirp);
	is_int(pg_state_moved(&st), 1, "removed: moved");
	is_int(pg_state_reopen(&st, "mail", rec, n, errbuf, sizeof(errbuf)),
	    0, "reopen: made again");
	is_int(pg_state_moved(&st), 0, "... and it is the one at its path");
	memset(&r, 0, sizeof(r));
	is_int(pg_state_read(&st, "mail", &r), 1, "... with the record");
	ok(stamp_eq(&r, &w) && r.claim_ns == w.claim_ns &&
	    r.horizon_ms == w.horizon_ms, "... as it was, its claim too");

	if (rename(dirp, moved) == -1 || mkdir(dirp, 0755) == -1)
		diag("rename or mkdir %s: %s", dirp, strerror(errno));
	is_int(pg_state_moved(&st), 1, "replaced: moved");
	w.mono_ns = 78 * SEC;
	n = pg_stamp_format(&w, rec, sizeof(rec));
	{
		struct pg_state	 other;

		if (pg_state_open(&other, dirp, 0, errbuf,
		    sizeof(errbuf)) == 0) {
			state_write(&other, "mail", &w);
			pg_state_close(&other);
		}
	}
	w.mono_ns = 79 * SEC;
	n = pg_stamp_format(&w, rec, sizeof(rec));
	is_int(pg_state_reopen(&st, "mail", rec, n, errbuf, sizeof(errbuf)),
	    0, "reopen the replacement");
	pg_state_read(&st, "mail", &r);
	is_int(r.mono_ns, 78 * SEC, "... its own record stays");

	rm_rf(dirp);
	write_file(dirp, "", 0);
	is_int(pg_state_moved(&st), 1, "a file in its place: moved");
	is_int(pg_state_reopen(&st, "mail", rec, n, errbuf, sizeof(errbuf)),
	    -1, "reopen: -1");
	like(errbuf, dirp, "... the reason names the directory");
	is_int(st.dirfd, -1, "... nothing open");
	is_int(pg_state_moved(&st), 1, "... and it still reads as moved");
	unlink(dirp);
	rm_rf(moved);
}

static void
test_lock(void)
{
	struct pg_state	 st;
	struct pg_stamp	 r;
	char		 dirp[512], p[PATH_MAX], errbuf[PG_ERR_MAX];
	int		 fd = -1, fd2 = -1, t;

	snprintf(dirp, sizeof(dirp), "%s/locks", base);
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == -1) {
		ok(0, "state_open %s: %s", dirp, errbuf);
		return;
	}

	is_int(pg_lock_held(&st, "mail"), 0, "no lock file: not held");
	is_int(in_child(child_held, &st, "mail"), 0,
	    "no lock file: not held (child)");

	t = pg_lock_take(&st, "mail", &fd);
	is_int(t, 1, "take: 1");
	ok(fd >= 0, "take: a descriptor");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	    "lock descriptor is close-on-exec");
	snprintf(p, sizeof(p), "%s/.mail.lock", dirp);
	ok(access(p, F_OK) == 0, "lock file is STATE/.mail.lock");
	is_int(pg_state_read(&st, "mail", &r), 0,
	    "the lock is not a record: still never");

	is_int(in_child(child_held, &st, "mail"), 1, "held, seen by a child");
	is_int(in_child(child_take, &st, "mail"), 0,
	    "take in a child while held: 0");
	is_int(in_child(child_held, &st, "news"), 0,
	    "another cluster's lock is free");
	is_int(in_child(child_take, &st, "news"), 1,
	    "another cluster's lock can be taken");
	is_int(in_child(child_held, &st, "mail"), 1,
	    "still held after a child tried to take it");

	/* The holder asking must not lose the lock. */
	is_int(pg_lock_held(&st, "mail"), 1, "held, seen by the holder");
	is_int(in_child(child_held, &st, "mail"), 1,
	    "still held after the holder asked");
	t = pg_lock_take(&st, "mail", &fd2);
	ok(t == 0 || t == 1, "take again in the holder: 0 or 1 (got %d)", t);
	if (t == 1)
		close(fd2);
	is_int(in_child(child_held, &st, "mail"), 1,
	    "still held after the holder took it again");

	if (fd >= 0)
		close(fd);
	is_int(in_child(child_held, &st, "mail"), 0,
	    "after close: not held (child)");
	is_int(pg_lock_held(&st, "mail"), 0, "after close: not held");
	is_int(in_child(child_take, &st, "mail"), 1,
	    "after close: a child can take it");
	fd = -1;
	is_int(pg_lock_take(&st, "mail", &fd), 1, "take again after close");
	if (fd >= 0)
		close(fd);
	pg_state_close(&st);
}

/* Milliseconds of CLOCK_BOOTTIME, for how long a call waited. */
static int64_t
ms_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(long ms)
{
	struct timespec	 ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Fork a process that takes the record lock of a cluster by hand, as
 * another writer would, says so on a pipe and then holds it: for ms
 * milliseconds, after which it writes the record other (as a writer does,
 * under the lock) and exits; or, with ms 0, until it is killed.
 */
static pid_t
holder(const char *dirp, const char *cluster, long ms,
    const struct pg_stamp *other)
{
	char	 p[PATH_MAX], tmp[PATH_MAX], buf[PG_RECORD_MAX];
	pid_t	 pid;
	int	 fd, pfd[2], len;

	if (pipe(pfd) == -1)
		err(1, "pipe");
	fflush(stdout);
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		snprintf(p, sizeof(p), "%s/.%s.rec", dirp, cluster);
		if ((fd = open(p, O_RDONLY | O_CREAT, 0600)) == -1 ||
		    flock(fd, LOCK_EX) == -1)
			_exit(2);
		write(pfd[1], "L", 1);
		if (ms == 0)
			for (;;)
				pause();
		sleep_ms(ms);
		if (other != NULL) {
			len = pg_stamp_format(other, buf, sizeof(buf));
			snprintf(p, sizeof(p), "%s/%s", dirp, cluster);
			snprintf(tmp, sizeof(tmp), "%s/.tmp.holder", dirp);
			write_file(tmp, buf, len);
			if (rename(tmp, p) == -1)
				_exit(3);
		}
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], buf, 1) != 1)
		diag("the lock holder did not start");
	close(pfd[0]);
	return pid;
}

static void
test_rec_lock(void)
{
	struct pg_state	 st;
	struct pg_state_priv *priv = pg_state_priv(&st);	/* recfd, undolen */
	struct pg_stamp	 rec, r, other;
	struct stat	 sb;
	struct timespec	 ts[2];
	char		 dirp[512], p[PATH_MAX], errbuf[PG_ERR_MAX];
	char		 old[PG_RECORD_MAX + 1], cur[PG_RECORD_MAX + 1];
	char		 touched[PG_RECORD_MAX + 1];
	const char	*kept[] = { ".tmp.rec", ".tmp.lock", ".tmp.claim" };
	int64_t		 vis, t0, waited;
	ssize_t		 n, m;
	pid_t		 pid, killer;
	size_t		 i;
	int		 status, fd = -1;

	snprintf(dirp, sizeof(dirp), "%s/reclock", base);
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == -1) {
		ok(0, "state_open %s: %s", dirp, errbuf);
		return;
	}
	alarm(60);	/* a lock never released must not hang the tests */

	/* Readers never take it, nor make its file. */
	snprintf(p, sizeof(p), "%s/.mail.rec", dirp);
	is_int(pg_state_read(&st, "mail", &r), 0, "read: no record");
	is_int(raw(&st, "mail", cur), 0, "read_raw: no record");
	ok(access(p, F_OK) == -1, "reading makes no record lock file");
	is_int(pg_state_touch(&st, "mail"), 0, "touch");
	ok(stat(p, &sb) == 0 && S_ISREG(sb.st_mode),
	    "the record lock is STATE/.mail.rec");
	is_int(sb.st_mode & 07777, 0600, "record lock file mode 0600");
	ok(priv->recfd >= 0 && (fcntl(priv->recfd, F_GETFD) & FD_CLOEXEC),
	    "record lock descriptor close-on-exec");
	snprintf(p, sizeof(p), "%s/.mail.lock", dirp);
	ok(access(p, F_OK) == -1, "touch makes no run lock file");
	snprintf(p, sizeof(p), "%s/.mail.claim", dirp);
	ok(access(p, F_OK) == -1, "touch makes no claim lock file");
	fd = priv->recfd;
	pg_state_touch(&st, "mail");
	is_int(priv->recfd, fd, "a second touch reuses the descriptor");
	is_int(pg_state_read(&st, "mail", &r), 1, "the lock is not a record");

	/*
	 * Restore while another writer holds the record lock: it waits, and
	 * then finds what that writer wrote, not its claim, and leaves it.
	 */
	pg_state_touch(&st, "race");
	n = raw(&st, "race", old);
	pg_state_claim(&st, "race", 5750, &rec, &vis);
	other = stamp(BOOT_B, 5 * SEC, 6 * SEC);
	pid = holder(dirp, "race", 300, &other);
	t0 = ms_now();
	is_int(pg_state_restore(&st, "race", &rec, old, n), 0,
	    "restore while a writer holds the record lock: 0, theirs");
	waited = ms_now() - t0;
	ok(waited >= 250, "restore waited for the record lock (%lld ms)",
	    (long long)waited);
	memset(&r, 0, sizeof(r));
	pg_state_read(&st, "race", &r);
	ok(claim_eq(&r, &other), "the record written under the lock stays");
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the holder wrote its record");

	/* A touch between the caller's read and the claim comes back. */
	state_write(&st, "race", &other);
	n = raw(&st, "race", old);
	pg_state_touch(&st, "race");
	m = raw(&st, "race", touched);
	pg_state_claim(&st, "race", 5750, &rec, &vis);
	is_int(pg_state_restore(&st, "race", &rec, old, n), 1,
	    "restore after a touch made before the claim: 1");
	ok(raw(&st, "race", cur) == m && memcmp(cur, touched, m) == 0,
	    "the touch is put back, not the record read before it");
	/* A claim this handle did not make: the bytes given come back. */
	pg_state_claim(&st, "race", 5750, &rec, &vis);
	priv->undolen = -1;
	is_int(pg_state_restore(&st, "race", &rec, old, n), 1,
	    "restore of a claim the handle forgot: 1");
	ok(raw(&st, "race", cur) == n && memcmp(cur, old, n) == 0,
	    "the bytes given are put back");

	/* A touch waits for the holder; SIGKILL releases the lock. */
	pid = holder(dirp, "mail", 0, NULL);
	fflush(stdout);
	if ((killer = fork()) == -1)
		err(1, "fork");
	if (killer == 0) {
		sleep_ms(300);
		kill(pid, SIGKILL);
		_exit(0);
	}
	t0 = ms_now();
	is_int(pg_state_touch(&st, "mail"), 0, "touch after the holder was "
	    "killed: 0");
	waited = ms_now() - t0;
	ok(waited >= 250, "touch waited until the holder was SIGKILLed "
	    "(%lld ms)", (long long)waited);
	waitpid(killer, &status, 0);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "the holder died of SIGKILL, holding the lock");

	/*
	 * flock locks belong to the open file description, which a child
	 * shares: a child writing with its parent's handle must still wait
	 * for the parent. (The test holds the handle's lock by hand.)
	 */
	flock(priv->recfd, LOCK_EX);
	fflush(stdout);
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		t0 = ms_now();
		if (pg_state_touch(&st, "mail") == -1)
			_exit(2);
		_exit(ms_now() - t0 >= 250 ? 0 : 1);
	}
	sleep_ms(300);
	flock(priv->recfd, LOCK_UN);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a forked child's touch waits for its parent's lock (status %d)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	alarm(0);
	pg_state_close(&st);
	is_int(priv->recfd, -1, "close resets recfd");

	/* Lock files are not temporary files, even for a cluster "tmp". */
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == -1) {
		ok(0, "state_open %s: %s", dirp, errbuf);
		return;
	}
	pg_state_touch(&st, "tmp");
	if (pg_lock_take(&st, "tmp", &fd) == 1)
		close(fd);
	if (pg_claim_lock(&st, "tmp", &fd) == 1)
		close(fd);
	pg_state_close(&st);
	snprintf(p, sizeof(p), "%s/.tmp.0123456789abcdef", dirp);
	write_file(p, "x\n", 2);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= 120;
	ts[1] = ts[0];
	utimensat(AT_FDCWD, p, ts, 0);
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dirp, kept[i]);
		utimensat(AT_FDCWD, p, ts, 0);
	}
	if (pg_state_open(&st, dirp, 1, errbuf, sizeof(errbuf)) == 0)
		pg_state_close(&st);
	snprintf(p, sizeof(p), "%s/.tmp.0123456789abcdef", dirp);
	ok(access(p, F_OK) == -1, "sweep removes a stale temporary file");
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dirp, kept[i]);
		ok(access(p, F_OK) == 0, "sweep leaves %s (cluster tmp)",
		    kept[i]);
	}
}

static struct pg_outcome
finished(int running, int exit_status, int sig, int timed_out,
    int64_t failures)
{
	struct pg_outcome	 o;

	memset(&o, 0, sizeof(o));
	o.running = running;
	o.pid = 4711;
	o.start = stamp(BOOT_A, 10 * SEC, 1700000000 * SEC);
	o.ended = 1;
	o.end = stamp(BOOT_B, 3 * SEC, 1700000100 * SEC);
	o.duration_ms = 1504;
	o.exit_status = exit_status;
	o.signal = sig;
	o.timed_out = timed_out;
	o.failures = failures;
	return o;
}

static int
outcome_eq(const struct pg_outcome *a, const struct pg_outcome *b)
{
	return a->running == b->running && a->pid == b->pid &&
	    stamp_eq(&a->start, &b->start) && a->ended == b->ended &&
	    (!a->ended || (stamp_eq(&a->end, &b->end) &&
	    a->duration_ms == b->duration_ms &&
	    a->exit_status == b->exit_status && a->signal == b->signal &&
	    a->timed_out == b->timed_out)) && a->failures == b->failures &&
	    a->succeeded == b->succeeded &&
	    (!a->succeeded || stamp_eq(&a->success, &b->success));
}

static void
outcome_round_trip(const struct pg_outcome *o, const char *name)
{
	struct pg_outcome	 back;
	char			 buf[PG_OUTCOME_MAX];
	int			 n;

	n = pg_outcome_format(o, buf, sizeof(buf));
	ok(n > 0 && (size_t)n < sizeof(buf), "outcome_format %s", name);
	if (n <= 0)
		return;
	is_int(pg_outcome_parse(buf, n, &back), 0, "outcome_parse %s", name);
	ok(outcome_eq(o, &back), "outcome %s: parsed back the same", name);
}

static void
test_outcome_format(void)
{
	struct pg_outcome	 o;
	char			 buf[PG_OUTCOME_MAX];
	int			 n;

	o = finished(0, 0, 0, 0, 0);
	n = pg_outcome_format(&o, buf, sizeof(buf));
	is_str(n > 0 ? buf : "", "pollguard-outcome 1\nrunning 0\npid 4711\n"
	    "start " BOOT_A " 10000000000 1700000000000000000\n"
	    "end " BOOT_B " 3000000000 1700000100000000000\n"
	    "duration_ms 1504\nexit 0\ntimed_out 0\nfailures 0\n",
	    "outcome_format: a finished run, exactly");
	outcome_round_trip(&o, "success");
	o = finished(0, 3, 0, 0, 2);
	outcome_round_trip(&o, "exit 3");
	o.succeeded = 1;
	o.success = stamp(BOOT_A, 7, 8);
	outcome_round_trip(&o, "exit 3 after an earlier success");
	n = pg_outcome_format(&o, buf, sizeof(buf));
	ok(n > 0 && strstr(buf, "\nsuccess " BOOT_A " 7 8\n") != NULL,
	    "outcome_format: the last success");
	o = finished(0, -1, 15, 1, INT64_MAX);
	outcome_round_trip(&o, "timed out, signal 15, failures at the top");
	n = pg_outcome_format(&o, buf, sizeof(buf));
	ok(n > 0 && strstr(buf, "\nsignal 15\n") != NULL &&
	    strstr(buf, "\nexit") == NULL, "outcome_format: a signal, "
	    "no exit line");
	o = finished(1, 1, 0, 0, 1);
	outcome_round_trip(&o, "running, the last run's result kept");
	memset(&o, 0, sizeof(o));
	o.running = 1;
	o.pid = 1;
	o.start = stamp("", 5, 6);
	o.exit_status = -1;
	outcome_round_trip(&o, "first run going, no boot ID");
	n = pg_outcome_format(&o, buf, sizeof(buf));
	is_str(n > 0 ? buf : "", "pollguard-outcome 1\nrunning 1\npid 1\n"
	    "start - 5 6\nfailures 0\n", "outcome_format: the first run "
	    "going, exactly");
	o = finished(0, 0, 0, 0, 0);
	errno = 0;
	is_int(pg_outcome_format(&o, buf, 40), -1, "outcome_format: too "
	    "small a buffer fails");
	is_int(errno, ENAMETOOLONG, "outcome_format: ENAMETOOLONG");
}

static void
test_outcome_parse(void)
{
	static const char *const bad[] = {
		"",
		"\n",
		"pollguard-outcome 1\n",
		"pollguard-outcome 2\nrunning 0\nstart - 1 2\nfailures 0\n",
		"pollguard-state 1 - 1 2\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\n",
		"pollguard-outcome 1\nrunning 1\nfailures 0\n",
		"pollguard-outcome 1\nstart - 1 2\nfailures 0\n",
		/* not running and never ended */
		"pollguard-outcome 1\nrunning 0\nstart - 1 2\nfailures 0\n",
		"pollguard-outcome 1\nrunning 2\nstart - 1 2\nfailures 0\n",
		"pollguard-outcome 1\nrunning 1\nrunning 1\nstart - 1 2\n"
		    "failures 0\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1\nfailures 0\n",
		"pollguard-outcome 1\nrunning 1\nstart x 1 2\nfailures 0\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2 3\nfailures 0\n",
		"pollguard-outcome 1\nrunning 1\nstart - -1 2\nfailures 0\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nfailures -1\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nfailures "
		    "9223372036854775808\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nfailures 0",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nfailures  0\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nfailures\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nfailures 0\n"
		    "nospace\n",
		"pollguard-outcome 1\nrunning 1\npid -5\nstart - 1 2\n"
		    "failures 0\n",
		/* ended: duration and exactly one of exit and signal */
		"pollguard-outcome 1\nrunning 0\nstart - 1 2\nend - 3 4\n"
		    "exit 0\nfailures 0\n",
		"pollguard-outcome 1\nrunning 0\nstart - 1 2\nend - 3 4\n"
		    "duration_ms 5\nfailures 0\n",
		"pollguard-outcome 1\nrunning 0\nstart - 1 2\nend - 3 4\n"
		    "duration_ms 5\nexit 0\nsignal 9\nfailures 0\n",
		"pollguard-outcome 1\nrunning 0\nstart - 1 2\nend - 3 4\n"
		    "duration_ms 5\nexit 256\nfailures 0\n",
		"pollguard-outcome 1\nrunning 0\nstart - 1 2\nend - 3 4\n"
		    "duration_ms 5\nsignal 0\nfailures 0\n",
		/* a result without an end */
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nexit 0\n"
		    "failures 0\n",
		"pollguard-outcome 1\nrunning 1\nstart - 1 2\nsuccess - 1\n"
		    "failures 0\n",
	};
	/* The NUL byte in an unknown key's value, which is otherwise skipped. */
	static const char	 nul[] = "pollguard-outcome 1\nrunning 1\n"
	    "failures 0\nstart - 1 2\nx a\0b\n";
	struct pg_outcome	 o;
	char			 big[PG_OUTCOME_MAX + 64];
	const char		*s;
	size_t			 i;
	int			 n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&o, 0xa5, sizeof(o));
		errno = 0;
		is_int(pg_outcome_parse(bad[i], strlen(bad[i]), &o), -1,
		    "outcome_parse rejects bad input %zu", i);
		ok(errno == EBADMSG && o.running == 0 && o.failures == 0,
		    "outcome_parse bad input %zu: EBADMSG, *o cleared", i);
	}
	s = "pollguard-outcome 1\nrunning 0\nstart - 1 2\nfuture_key a b c\n"
	    "end - 3 4\nduration_ms 5\nsignal 9\ntimed_out 1\nfailures 7\n"
	    "later 1\n";
	is_int(pg_outcome_parse(s, strlen(s), &o), 0,
	    "outcome_parse: unknown keys are ignored");
	ok(o.ended && o.signal == 9 && o.exit_status == -1 && o.timed_out &&
	    o.failures == 7 && o.end.mono_ns == 3 && o.duration_ms == 5,
	    "outcome_parse: the known keys around them are read");
	s = "pollguard-outcome 1\nfailures 2\nstart - 1 2\nrunning 1\n";
	is_int(pg_outcome_parse(s, strlen(s), &o), 0,
	    "outcome_parse: keys in any order");
	ok(o.running && !o.ended && o.failures == 2 && o.exit_status == -1,
	    "outcome_parse: a first run going");
	/* Longer than PG_OUTCOME_MAX, even if only by unknown keys. */
	n = snprintf(big, sizeof(big), "pollguard-outcome 1\nrunning 1\n"
	    "start - 1 2\nfailures 0\nx %0*d\n", PG_OUTCOME_MAX, 0);
	is_int(pg_outcome_parse(big, n, &o), -1,
	    "outcome_parse: longer than PG_OUTCOME_MAX is rejected");
	is_int(pg_outcome_parse(nul, sizeof(nul) - 1, &o), -1,
	    "outcome_parse: a NUL byte is rejected");
	is_int(pg_outcome_parse(nul, sizeof(nul) - 1 - 6, &o), 0,
	    "outcome_parse: the same without the NUL byte is read");
}

static void
test_outcome_files(void)
{
	struct pg_state		 st;
	struct pg_outcome	 o, r;
	struct pg_stamp		 rec;
	char			 dir[PATH_MAX], path[PATH_MAX + 32];
	char			 errbuf[PG_ERR_MAX];
	int			 fd;

	snprintf(dir, sizeof(dir), "%s/outcome", base);
	if (pg_state_open(&st, dir, 1, errbuf, sizeof(errbuf)) == -1) {
		diag("%s", errbuf);
		ok(0, "outcome: state directory opened");
		return;
	}
	/* A 0.3 directory: records, no outcome files. */
	is_int(pg_state_touch(&st, "c"), 0, "outcome: a 0.3 record");
	is_int(pg_outcome_read(&st, "c", &o), 0,
	    "outcome_read: a 0.3 directory has no run recorded");
	is_int(pg_outcome_run(&st, "c", NULL), PG_RUN_NONE,
	    "outcome_run: no record is NONE");

	is_int(pg_lock_take(&st, "c", &fd), 1, "outcome: run lock taken");
	is_int(pg_outcome_start(&st, "c", 4242, &o), 0, "outcome_start");
	ok(o.running && o.pid == 4242 && !o.ended && o.failures == 0,
	    "outcome_start: running, its pid, nothing ended yet");
	is_int(pg_outcome_read(&st, "c", &r), 1, "outcome_read after start");
	ok(outcome_eq(&o, &r), "outcome_read: what start wrote");
	is_int(pg_outcome_run(&st, "c", &r), PG_RUN_RUNNING,
	    "outcome_run: lock held, running");
	snprintf(path, sizeof(path), "%s/.c.side", dir);
	ok(access(path, F_OK) == 0, "the file is .CLUSTER.side");
	snprintf(path, sizeof(path), "%s/c.side", dir);
	ok(access(path, F_OK) == -1, "not CLUSTER.side (a cluster's name)");
	is_int(pg_outcome_finish(&st, "c", 3 << 8, 0, &o), 0,
	    "outcome_finish: exit 3");
	is_int(pg_outcome_read(&st, "c", &r), 1, "outcome_read after finish");
	ok(!r.running && r.ended && r.exit_status == 3 && r.signal == 0 &&
	    !r.timed_out && r.failures == 1 && r.pid == 4242 && !r.succeeded,
	    "outcome_finish: exit 3, one failure, no success yet");
	ok(r.duration_ms >= 0 && r.duration_ms < 5000 &&
	    r.end.mono_ns >= r.start.mono_ns, "outcome_finish: end and "
	    "duration");
	is_int(pg_outcome_run(&st, "c", &r), PG_RUN_DONE,
	    "outcome_run: finished is DONE");

	is_int(pg_outcome_start(&st, "c", 4243, &o), 0, "outcome_start again");
	ok(o.running && o.ended && o.exit_status == 3 && o.failures == 1,
	    "outcome_start keeps the last run's result and the failures");
	is_int(pg_outcome_finish(&st, "c", SIGKILL, 1, &o), 0,
	    "outcome_finish: killed, timed out");
	ok(o.signal == SIGKILL && o.exit_status == -1 && o.timed_out &&
	    o.failures == 2, "outcome_finish: signal, timed out, two failures");
	is_int(pg_outcome_start(&st, "c", 4244, &o), 0, "outcome_start a third");
	is_int(pg_outcome_finish(&st, "c", 0, 1, &o), 0,
	    "outcome_finish: exit 0 but timed out");
	is_int(o.failures, 3, "a timeout is a failure even with exit 0");
	is_int(pg_outcome_start(&st, "c", 4245, &o), 0, "outcome_start a fourth");
	is_int(pg_outcome_finish(&st, "c", 0, 0, &o), 0, "outcome_finish: 0");
	is_int(o.failures, 0, "a success resets the failures");
	ok(o.succeeded && stamp_eq(&o.success, &o.end),
	    "a success is remembered: its end");
	/* A start of another boot, or later on the clock: duration 0. */
	is_int(pg_outcome_start(&st, "c", 4247, &o), 0, "outcome_start: boot");
	o.start.boot_id[0] ^= 1;
	o.start.mono_ns -= 5000000000LL;
	is_int(pg_outcome_finish(&st, "c", 0, 0, &o), 0, "outcome_finish: boot");
	is_int(o.duration_ms, 0, "a run begun in another boot: duration 0");
	is_int(pg_outcome_start(&st, "c", 4248, &o), 0, "outcome_start: ahead");
	o.start.mono_ns += 5000000000LL;
	is_int(pg_outcome_finish(&st, "c", 0, 0, &o), 0, "outcome_finish: ahead");
	is_int(o.duration_ms, 0, "a start later than the end: duration 0");
	is_int(pg_outcome_start(&st, "c", 4249, &o), 0, "outcome_start: after");
	is_int(pg_outcome_finish(&st, "c", 1 << 8, 0, &o), 0,
	    "outcome_finish: a failure after the success");
	is_int(pg_outcome_read(&st, "c", &r), 1, "outcome_read: it");
	ok(r.succeeded && r.success.mono_ns < r.end.mono_ns,
	    "the last success stays through a failure");

	/* A run whose touch died: running, lock free. */
	is_int(pg_outcome_start(&st, "c", 4246, &o), 0, "outcome_start a fifth");
	close(fd);
	is_int(pg_outcome_read(&st, "c", &r), 1, "outcome_read, lock free");
	is_int(pg_outcome_run(&st, "c", &r), PG_RUN_DIED,
	    "outcome_run: running with the lock free is DIED");
	o.running = 0;
	is_int(pg_outcome_run(&st, "c", &o), PG_RUN_DONE,
	    "outcome_run: a stale copy of a finished run reads as DONE");
	is_int(pg_outcome_start(&st, "c", 4247, &o), 0, "outcome_start after "
	    "the death");
	is_int(o.failures, 2, "a run that died counts as one more failure");

	/* A damaged file: reported, the record unharmed, replaced. */
	snprintf(path, sizeof(path), "%s/.c.side", dir);
	write_file(path, "pollguard-outcome 1\nrunning", 27);
	errno = 0;
	is_int(pg_outcome_read(&st, "c", &r), -1, "outcome_read: damaged");
	is_int(errno, EBADMSG, "outcome_read: damaged is EBADMSG");
	is_int(pg_state_read(&st, "c", &rec), 1,
	    "a damaged outcome does not affect the record");
	is_int(pg_outcome_start(&st, "c", 4248, &o), 0,
	    "outcome_start over a damaged file");
	ok(o.failures == 0 && !o.ended, "a damaged file counts from nothing");
	is_int(pg_outcome_read(&st, "c", &r), 1, "and is replaced");
	is_int(count_tmp(dir), 0, "outcome: no temporary files left");
	pg_state_close(&st);
}

static struct pg_hold
held(const char *boot, int64_t until_mono, int64_t until_wall, int64_t ms,
    const char *by, const char *why)
{
	struct pg_hold	 h;

	memset(&h, 0, sizeof(h));
	h.until = stamp(boot, until_mono, until_wall);
	h.ms = ms;
	strlcpy(h.by, by, sizeof(h.by));
	strlcpy(h.why, why, sizeof(h.why));
	return h;
}

static void
test_hold_format(void)
{
	struct pg_hold	 h, back;
	char		 buf[PG_HOLD_FILE_MAX], text[PG_HOLD_TEXT_MAX + 1];
	int		 n;

	h = held(BOOT_A, 3700 * SEC, 1700003600 * SEC, 3600000, "ops@a",
	    "disk swap");
	n = pg_hold_format(&h, buf, sizeof(buf));
	is_str(n > 0 ? buf : "", "pollguard-hold 1\n"
	    "until " BOOT_A " 3700000000000 1700003600000000000\n"
	    "ms 3600000\nby ops@a\nwhy disk swap\n",
	    "hold_format: exactly");
	is_int(n > 0 ? pg_hold_parse(buf, n, &back) : -2, 0, "hold_parse");
	ok(stamp_eq(&back.until, &h.until) && back.ms == h.ms &&
	    strcmp(back.by, "ops@a") == 0 &&
	    strcmp(back.why, "disk swap") == 0, "hold: parsed back the same");

	h = held("", 3700 * SEC, 5, 1, "", "");
	n = pg_hold_format(&h, buf, sizeof(buf));
	is_str(n > 0 ? buf : "", "pollguard-hold 1\nuntil - 3700000000000 5\n"
	    "ms 1\n", "hold_format: no boot ID, no by, no why");
	is_int(n > 0 ? pg_hold_parse(buf, n, &back) : -2, 0,
	    "hold_parse: no by, no why");
	ok(back.by[0] == '\0' && back.why[0] == '\0' && back.ms == 1,
	    "hold: empty texts read as not said");

	memset(text, 'x', sizeof(text) - 2);
	text[sizeof(text) - 2] = '\0';		/* 127 bytes */
	h = held(BOOT_A, 3700 * SEC, 1, 60000, "u@n", text);
	n = pg_hold_format(&h, buf, sizeof(buf));
	ok(n > 0 && pg_hold_parse(buf, n, &back) == 0 &&
	    strcmp(back.why, text) == 0, "hold: a 127-byte why round-trips");
	h = held(BOOT_A, 3700 * SEC, 1, 60000, "u@n", "tab\there");
	errno = 0;
	ok(pg_hold_format(&h, buf, sizeof(buf)) == -1 && errno == EINVAL,
	    "hold_format: a control character is EINVAL");
	h = held(BOOT_A, 3700 * SEC, 1, 60000, "u@n", " lead");
	ok(pg_hold_format(&h, buf, sizeof(buf)) == -1,
	    "hold_format: a leading blank is refused");
	h = held(BOOT_A, 3700 * SEC, 1, PG_HOLD_MAX_MS + 1, "", "");
	ok(pg_hold_format(&h, buf, sizeof(buf)) == -1,
	    "hold_format: longer than the maximum is refused");

	errno = 0;
	ok(pg_hold_make(&h, PG_HOLD_MAX_MS + 1, NULL, NULL) == -1 &&
	    errno == EINVAL, "hold_make: above the maximum is EINVAL");
	ok(pg_hold_make(&h, 0, NULL, NULL) == -1, "hold_make: 0 is refused");
	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';		/* 128 bytes */
	errno = 0;
	ok(pg_hold_make(&h, 1000, NULL, text) == -1 && errno == ENAMETOOLONG,
	    "hold_make: a 128-byte message is ENAMETOOLONG");
	ok(pg_hold_make(&h, 1000, "u@n", "a\nb") == -1 && errno == EINVAL,
	    "hold_make: a newline is EINVAL");
	ok(pg_hold_make(&h, 1000, "u@n", "caf\xc3\xa9") == -1 &&
	    errno == EINVAL, "hold_make: non-ASCII is EINVAL");
	is_int(pg_hold_make(&h, 90000, "u@n", "why not"), 0, "hold_make");
	ok(h.ms == 90000 && strcmp(h.why, "why not") == 0 &&
	    h.until.claim_ns == 0, "hold_make: ms and why kept, no claim");
}

static void
test_hold_parse(void)
{
	static const char *const bad[] = {
		"",
		"pollguard-hold 1\n",
		"pollguard-hold 2\nuntil - 9000000000 1\nms 1\n",
		"pollguard-hold 1\nms 1\n",
		"pollguard-hold 1\nuntil - 9000000000 1\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 0\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 604800001\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 1\nms 1\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms -1\n",
		"pollguard-hold 1\nuntil - 9000000000\nms 1\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 1\nwhy \n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 1\nwhy  x\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 1\nwhy a\tb\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 1\nby a\rb\n",
		"pollguard-hold 1\nuntil - 9000000000 1\nms 1",
		/* ends before it could have been set: before boot */
		"pollguard-hold 1\nuntil - 1000 1\nms 1000\n",
		NULL
	};
	const char	*more = "pollguard-hold 1\nuntil - 9000000000 1\n"
	    "ms 1\nlater a field of 0.5\nwhy x y\n";
	struct pg_hold	 h;
	int		 i;

	for (i = 0; bad[i] != NULL; i++) {
		errno = 0;
		ok(pg_hold_parse(bad[i], strlen(bad[i]), &h) == -1 &&
		    errno == EBADMSG, "hold_parse refuses bad[%d]", i);
	}
	ok(pg_hold_parse(more, strlen(more), &h) == 0 &&
	    strcmp(h.why, "x y") == 0, "hold_parse: unknown keys skipped");
}

/*
 * Cases of pg_hold_left: a hold of an hour, set at 100 s of the boot
 * (BOOT_A, or none known), so that it ends at 3700 s; the moment; the
 * milliseconds left.
 */
static const struct hold_case {
	const char	*boot, *nboot;
	int64_t		 nmono, nwall;
	int64_t		 want;
	const char	*name;
} hold_cases[] = {
	{ BOOT_A, BOOT_A, 100 * SEC, 1700000000 * SEC, 3600000,
	    "hold_left: just set" },
	{ BOOT_A, BOOT_A, 1900 * SEC, 1600000000 * SEC, 1800000,
	    "hold_left: same boot counts the monotonic clock, not the wall" },
	{ BOOT_A, BOOT_A, 3700 * SEC, 1700003600 * SEC, 0,
	    "hold_left: ended at until" },
	{ BOOT_A, BOOT_A, 9000 * SEC, 1700003600 * SEC, 0,
	    "hold_left: ended long ago" },
	/* Another boot: the wall clock, bounded by the uptime and by ms. */
	{ BOOT_A, BOOT_B, 60 * SEC, 1700001000 * SEC, 2600000,
	    "hold_left: earlier boot, by the wall clock" },
	{ BOOT_A, BOOT_B, 3000 * SEC, 1700001000 * SEC, 600000,
	    "hold_left: earlier boot, the uptime counts as passed" },
	{ BOOT_A, BOOT_B, 60 * SEC, 1600000000 * SEC, 3540000,
	    "hold_left: earlier boot, a wall clock set back does not "
	    "lengthen it" },
	{ BOOT_A, BOOT_B, 60 * SEC, 1800000000 * SEC, 0,
	    "hold_left: earlier boot, wall clock past the end" },
	/* Without boot IDs a monotonic clock behind the setting is a reboot. */
	{ "", "", 1000 * SEC, 1700000900 * SEC, 2700000,
	    "hold_left: no boot ID, same boot" },
	{ "", "", 50 * SEC, 1700000900 * SEC, 2700000,
	    "hold_left: no boot ID, rebooted: by the wall clock" },
};

static void
test_hold_left(void)
{
	const struct hold_case	*c;
	struct pg_stamp		 now;
	struct pg_hold		 h;

	for (c = hold_cases; c < hold_cases + NITEMS(hold_cases); c++) {
		h = held(c->boot, 3700 * SEC, 1700003600 * SEC, 3600000, "",
		    "");
		now = stamp(c->nboot, c->nmono, c->nwall);
		is_int(pg_hold_left(&h, &now), c->want, "%s", c->name);
	}
}

/*
 * The hold on a cluster, from the side record: 1, *h and its time left
 * in *left_ms while it lasts; 0 when there is none or it has ended; -1
 * with errno (EBADMSG: damaged).
 */
static int
hold_read(struct pg_state *st, const char *cluster, struct pg_hold *h,
    int64_t *left_ms)
{
	struct pg_side	 sd;
	struct pg_stamp	 now;

	if (pg_side_read(st, cluster, &sd) == -1)
		return -1;
	if (sd.hold == -1)
		errno = EBADMSG;
	if (sd.hold != 1)
		return sd.hold;
	*h = sd.h;
	if (pg_stamp_now(&now) == -1)
		return -1;
	*left_ms = pg_hold_left(h, &now);
	return *left_ms > 0;
}

static void
test_hold_files(void)
{
	struct pg_state	 st;
	struct pg_stamp	 rec;
	struct pg_hold	 h, r;
	char		 dir[PATH_MAX], path[PATH_MAX + 32];
	char		 errbuf[PG_ERR_MAX];
	int64_t		 left = -1;

	snprintf(dir, sizeof(dir), "%s/hold", base);
	if (pg_state_open(&st, dir, 1, errbuf, sizeof(errbuf)) == -1) {
		diag("%s", errbuf);
		ok(0, "hold: state directory opened");
		return;
	}
	is_int(hold_read(&st, "c", &r, &left), 0, "hold_read: none");
	is_int(pg_hold_remove(&st, "c"), 0, "hold_remove: none is success");
	is_int(pg_hold_make(&h, 3600000, "ops@a", "disk swap"), 0,
	    "hold_make: an hour");
	is_int(pg_hold_write(&st, "c", &h), 0, "hold_write");
	snprintf(path, sizeof(path), "%s/.c.side", dir);
	ok(access(path, F_OK) == 0, "the file is .CLUSTER.side");
	is_int(hold_read(&st, "c", &r, &left), 1, "hold_read: held");
	ok(left > 3590000 && left <= 3600000 && strcmp(r.by, "ops@a") == 0 &&
	    strcmp(r.why, "disk swap") == 0, "hold_read: time left, by, why");
	is_int(pg_state_read(&st, "c", &rec), 0,
	    "a hold records no activity");

	/* A second's hold that ended now: reads as none, file left alone. */
	is_int(pg_stamp_now(&h.until), 0, "hold: the clocks");
	h.ms = 1000;
	is_int(pg_hold_write(&st, "c", &h), 0, "hold_write: an ended hold");
	is_int(hold_read(&st, "c", &r, &left), 0, "hold_read: ended is none");
	ok(access(path, F_OK) == 0, "hold_read never removes the file");

	is_int(pg_hold_make(&h, 60000, NULL, NULL), 0, "hold_make: a minute");
	is_int(pg_hold_write(&st, "c", &h), 0, "hold_write replaces");
	is_int(hold_read(&st, "c", &r, &left), 1, "hold_read: the new one");
	ok(r.by[0] == '\0' && r.why[0] == '\0', "hold: nothing said");
	is_int(pg_hold_remove(&st, "c"), 0, "hold_remove");
	is_int(hold_read(&st, "c", &r, &left), 0, "hold_read: lifted");

	write_file(path, "pollguard-hold 1\nuntil", 22);
	errno = 0;
	is_int(hold_read(&st, "c", &r, &left), -1, "hold_read: damaged");
	is_int(errno, EBADMSG, "hold_read: damaged is EBADMSG");
	is_int(pg_hold_remove(&st, "c"), 0, "hold_remove: a damaged hold");
	is_int(count_tmp(dir), 0, "hold: no temporary files left");
	pg_state_close(&st);
}

/* The bytes of a file, NUL-terminated, into buf: its length, or -1. */
static ssize_t
read_file(const char *path, char *buf, size_t len)
{
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/*
 * The side record: the parts side by side, each written without losing
 * the others, each read on its own; damage to one part or to the whole.
 */
static void
test_side_files(void)
{
	static const struct {
		const char	*text;
		size_t		 len;
		int		 outcome, hold, checked;
		const char	*name;
	} reads[] = {
		{ T("pollguard-outcome 1\nrunning 1\nstart - 1 2\nfailures 0\n"
		    "pollguard-hold 1\nuntil\n"), 1, -1, 0,
		    "a damaged hold, a good outcome" },
		{ T("pollguard-outcome 2\nrunning 1\n"
		    "pollguard-checked 1\nlast - 1 2\nsince - 1 2\n"), -1, 0, 1,
		    "an outcome of version 2, a good checked part" },
		{ T("pollguard-later 1\nkey value\n"
		    "pollguard-checked 1\nlast - 1 2\nsince - 1 2\n"), 0, 0, 1,
		    "a later version's section is skipped" },
		{ T("garbage\npollguard-checked 1\nlast - 1 2\nsince - 1 2\n"),
		    -1, -1, -1, "not a section first: damaged as a whole" },
		{ T("pollguard-checked 1\nlast - 1 2\nsince - 1 2\n"
		    "pollguard-checked 1\nlast - 1 2\nsince - 1 2\n"), -1, -1,
		    -1, "a part twice: damaged as a whole" },
		{ T("pollguard-checked 1\nlast - 1 2\nsince - 1 2"), -1, -1, -1,
		    "no LF at the end: damaged as a whole" },
		{ T("pollguard-checked 1\nlast - 1 2\nsince - 1 2\0\n"), -1, -1,
		    -1, "a NUL: damaged as a whole" },
	};
	struct pg_state		 st;
	struct pg_outcome	 o, r;
	struct pg_hold		 h, hr;
	struct pg_checked	 ck, cr;
	struct pg_side		 sd;
	char			 dir[PATH_MAX], path[PATH_MAX + 32];
	char			 errbuf[PG_ERR_MAX], buf[PG_SIDE_MAX + 64];
	char			 before[PG_SIDE_MAX + 64], *p;
	int64_t			 left;
	size_t			 i;
	pid_t			 pid;
	int			 fd, status, bad;

	snprintf(dir, sizeof(dir), "%s/side", base);
	if (pg_state_open(&st, dir, 1, errbuf, sizeof(errbuf)) == -1) {
		diag("%s", errbuf);
		ok(0, "side: state directory opened");
		return;
	}
	snprintf(path, sizeof(path), "%s/.c.side", dir);
	is_int(pg_side_read(&st, "c", &sd), 0, "side_read: none");
	ok(sd.outcome == 0 && sd.hold == 0 && sd.checked == 0,
	    "side_read: no part");

	/* Three writers, three parts, in their order. */
	is_int(pg_lock_take(&st, "c", &fd), 1, "side: run lock taken");
	is_int(pg_outcome_start(&st, "c", 4242, &o), 0, "side: a run starts");
	is_int(pg_hold_make(&h, 3600000, "ops@a", "disk swap"), 0,
	    "side: hold_make");
	is_int(pg_hold_write(&st, "c", &h), 0, "side: a hold");
	memset(&ck, 0, sizeof(ck));
	ck.last = stamp(BOOT_A, 20 * SEC, 1700000300 * SEC);
	ck.since = stamp(BOOT_A, 5 * SEC, 1700000285 * SEC);
	is_int(pg_checked_write(&st, "c", &ck), 0, "side: a check");
	is_int(pg_outcome_finish(&st, "c", 1 << 8, 0, &o), 0,
	    "side: the run ends");
	close(fd);
	read_file(path, buf, sizeof(buf));
	ok(strncmp(buf, "pollguard-outcome 1\n", 20) == 0 &&
	    (p = strstr(buf, "\npollguard-hold 1\n")) != NULL &&
	    strstr(p, "\npollguard-checked 1\n") != NULL,
	    "side: outcome, hold, checked, in this order");
	is_int(pg_side_read(&st, "c", &sd), 0, "side_read: all three");
	ok(sd.outcome == 1 && sd.o.ended && sd.o.exit_status == 1 &&
	    sd.o.failures == 1, "side_read: the outcome the finish wrote");
	ok(sd.hold == 1 && strcmp(sd.h.why, "disk swap") == 0,
	    "side_read: the hold, kept by the finish");
	ok(sd.checked == 1 && stamp_eq(&sd.ck.last, &ck.last),
	    "side_read: the checked part, kept by the finish");
	is_int(hold_read(&st, "c", &hr, &left), 1, "hold_read: held");
	is_int(pg_checked_read(&st, "c", &cr), 1, "checked_read: there");

	/* Lifting the hold keeps the others byte for byte. */
	p = strstr(buf, "pollguard-hold 1\n");
	*p = '\0';
	strlcpy(before, buf, sizeof(before));
	read_file(path, buf, sizeof(buf));
	strlcat(before, strstr(buf, "pollguard-checked 1\n"),
	    sizeof(before));
	is_int(pg_hold_remove(&st, "c"), 0, "hold_remove");
	read_file(path, buf, sizeof(buf));
	is_str(buf, before, "hold_remove: the rest as it was");
	is_int(hold_read(&st, "c", &hr, &left), 0, "hold_read: none");
	is_int(pg_outcome_read(&st, "c", &r), 1, "outcome_read: still there");

	/* Each part is read on its own. */
	for (i = 0; i < NITEMS(reads); i++) {
		write_file(path, reads[i].text, reads[i].len);
		pg_side_read(&st, "c", &sd);
		ok(sd.outcome == reads[i].outcome && sd.hold ==
		    reads[i].hold && sd.checked == reads[i].checked,
		    "side_read: %s (%d %d %d)", reads[i].name, sd.outcome,
		    sd.hold, sd.checked);
		errno = 0;
		is_int(pg_outcome_read(&st, "c", &r), reads[i].outcome,
		    "outcome_read: %s", reads[i].name);
		if (reads[i].outcome == -1)
			is_int(errno, EBADMSG, "outcome_read: EBADMSG");
	}

	/* A writer keeps a damaged part and a later version's as they were. */
	write_file(path, reads[0].text, reads[0].len);
	is_int(pg_checked_write(&st, "c", &ck), 0,
	    "checked_write beside a damaged hold");
	read_file(path, buf, sizeof(buf));
	ok(strncmp(buf, reads[0].text, reads[0].len) == 0,
	    "the damaged hold is kept as it was");
	is_int(hold_read(&st, "c", &hr, &left), -1,
	    "and still reads as damaged");
	is_int(pg_hold_write(&st, "c", &h), 0, "hold_write replaces it");
	is_int(hold_read(&st, "c", &hr, &left), 1, "the hold reads");
	write_file(path, reads[2].text, reads[2].len);
	is_int(pg_hold_write(&st, "c", &h), 0,
	    "hold_write beside a later version's section");
	read_file(path, buf, sizeof(buf));
	ok(strstr(buf, "pollguard-later 1\nkey value\n") != NULL,
	    "the later version's section is kept");

	/* A file damaged as a whole is replaced; no part left, no file. */
	write_file(path, reads[3].text, reads[3].len);
	is_int(pg_hold_write(&st, "c", &h), 0,
	    "hold_write over a damaged file");
	pg_side_read(&st, "c", &sd);
	ok(sd.hold == 1 && sd.outcome == 0 && sd.checked == 0,
	    "the damaged file is replaced by the hold alone");
	is_int(pg_hold_remove(&st, "c"), 0, "hold_remove of the last part");
	ok(access(path, F_OK) == -1, "no part left: no file");

	/*
	 * Writers of different parts at once: each update is made under
	 * the record lock from what is on disk, so none is lost.
	 */
	fflush(stdout);
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		for (i = 0; i < 100; i++)
			if (pg_hold_write(&st, "c", &h) == -1 ||
			    (i % 2 == 0 && pg_hold_remove(&st, "c") == -1))
				_exit(1);
		_exit(0);
	}
	bad = 0;
	for (i = 0; i < 100; i++) {
		ck.last.mono_ns = 20 * SEC + i;
		if (pg_outcome_start(&st, "c", 4242, &o) == -1 ||
		    pg_checked_write(&st, "c", &ck) == -1 ||
		    pg_outcome_finish(&st, "c", 1 << 8, 0, &o) == -1)
			bad++;
	}
	waitpid(pid, &status, 0);
	ok(bad == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "side: 100 runs and checks, 100 holds, at once");
	pg_side_read(&st, "c", &sd);
	is_int(sd.outcome == 1 ? sd.o.failures : -1, 100,
	    "side: every run counted: no outcome lost to a hold");
	ok(sd.hold == 1 && sd.checked == 1 && sd.ck.last.mono_ns ==
	    20 * SEC + 99, "side: the last hold and the last check are there");
	is_int(count_tmp(dir), 0, "side: no temporary files left");
	pg_state_close(&st);
}

static void
rm_rf(const char *path)
{
	char	 cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		diag("could not remove %s", path);
}

/*
 * Every record formatter fails with ENAMETOOLONG, and never writes past
 * the buffer, for every length up to the one its text needs; one byte
 * more and the text is whole.
 */
#define BOUNDS(name, fmt, rec, max) do {				\
	char	 full[max], cut[max];					\
	int	 n, k, bad = 0;						\
									\
	n = fmt(rec, full, sizeof(full));				\
	for (k = 0; n > 0 && k <= n; k++) {				\
		memset(cut, '#', sizeof(cut));				\
		errno = 0;						\
		if (fmt(rec, cut, k) != -1 || errno != ENAMETOOLONG ||	\
		    (k < (int)sizeof(cut) && cut[k] != '#'))		\
			bad++;						\
	}								\
	ok(n > 0 && bad == 0, "%s: every shorter buffer refused "	\
	    "(%d of %d wrong)", name, bad, n + 1);			\
	ok(n > 0 && fmt(rec, cut, n + 1) == n &&			\
	    memcmp(cut, full, n + 1) == 0, "%s: whole with room for "	\
	    "the NUL", name);						\
} while (0)

/* The outcome of a finished failed run begun at start: as .CLUSTER.side. */
static int
side_start(struct pg_state *st, const char *cluster,
    const struct pg_stamp *start)
{
	struct pg_outcome	 o;
	char			 buf[PG_OUTCOME_MAX];
	int			 len;

	memset(&o, 0, sizeof(o));
	o.start = *start;
	o.ended = 1;
	o.end = *start;
	o.end.mono_ns += 1;
	o.exit_status = 1;
	o.failures = 1;
	if ((len = pg_outcome_format(&o, buf, sizeof(buf))) == -1)
		return -1;
	return pg_state_set(st, cluster, "side", buf, len);
}

/*
 * What this node reports of its claim (lib/local.c): within the horizon,
 * and while it is pending, that is until a run begins at or after it, or
 * the wait has passed since it (doc/SAFETY.md, section 7, "From the go
 * to the job"). And the last step of a go, pg_still_counted.
 */
static void
test_pending(void)
{
	static const struct {
		int64_t		 claim;	/* ms ago */
		int64_t		 touch;	/* ms ago: the record's moment */
		int64_t		 start;	/* ms after the claim; NONE: no run */
		int		 boot;	/* 0: this boot; 1: the start's is
					   another; 2: the record's is */
		int		 claimed;	/* claim_ms reported */
		const char	*name;
	} t[] = {
#define NONE	INT64_MIN
		{ 1000, 1000, NONE, 0, 1, "within the horizon, no run" },
		{ 1000, 500, 200, 0, 1, "within the horizon, a run since" },
		{ 10000, 10000, NONE, 0, 1, "past the horizon, no run, "
		    "no touch: pending" },
		{ 10000, 2000, NONE, 0, 1, "past the horizon, touched since "
		    "(a pipeline), no run: pending" },
		{ 10000, 2000, -1, 0, 1, "a run began 1 ms before the claim: "
		    "pending" },
		{ 10000, 2000, -5000, 0, 1, "a run began 5 s before the "
		    "claim: pending" },
		{ 10000, 2000, 0, 0, 0, "a run began at the claim: not "
		    "pending" },
		{ 10000, 2000, 1, 0, 0, "a run began 1 ms after the claim: "
		    "not pending" },
		{ 10000, 2000, 3000, 0, 0, "a run began 3 s after the "
		    "claim: not pending" },
		{ 10000, 2000, 3000, 1, 1, "a run of another boot: pending" },
		{ 10000, 10000, NONE, 2, 0, "a claim of another boot: not" },
		{ 59000, 2000, NONE, 0, 1, "59 s after the claim, wait 60 s: "
		    "pending" },
		{ 60000, 2000, NONE, 0, 0, "the wait since the claim: not "
		    "pending" },
		{ 61000, 61000, NONE, 0, 0, "past the wait: not pending" },
#undef NONE
	};
	struct pg_state		 st;
	struct pg_cluster	 c;
	struct pg_status	 s;
	struct pg_stamp		 now, w, b;
	struct pg_seen		 self;
	enum pg_settle_why	 why;
	char			 dir[PATH_MAX], errbuf[PG_ERR_MAX];
	int64_t			 ms;
	size_t			 i;
	int			 fd;

	snprintf(dir, sizeof(dir), "%s/pending", base);
	if (pg_state_open(&st, dir, 1, errbuf, sizeof(errbuf)) == -1) {
		diag("%s", errbuf);
		ok(0, "pending: state directory opened");
		return;
	}
	pg_stamp_now(&now);
	if (now.mono_ns < 120 * SEC || now.boot_id[0] == '\0' ||
	    strcmp(now.boot_id, BOOT_B) == 0) {
		diag("CLOCK_BOOTTIME below 120s, or no boot ID: pending "
		    "tests skipped");
		pg_state_close(&st);
		return;
	}
	memset(&c, 0, sizeof(c));
	strlcpy(c.id, "mail", sizeof(c.id));
	c.wait_ms = 60000;
	for (i = 0; i < NITEMS(t); i++) {
		pg_state_set(&st, "mail", "side", NULL, 0);
		pg_stamp_now(&now);
		w = claimed(t[i].boot == 2 ? BOOT_B : now.boot_id,
		    now.mono_ns - t[i].touch * MS, now.wall_ns - t[i].touch *
		    MS, now.mono_ns - t[i].claim * MS, 5750);
		if (state_write(&st, "mail", &w) == -1)
			ok(0, "pending: write the record");
		if (t[i].start != INT64_MIN) {
			b = stamp(t[i].boot == 1 ? BOOT_B : now.boot_id,
			    w.claim_ns + t[i].start * MS, now.wall_ns);
			if (side_start(&st, "mail", &b) == -1)
				ok(0, "pending: write the outcome");
		}
		if (pg_status_local(&st, &c, "a", &s) == -1) {
			ok(0, "%s: pg_status_local: %s", t[i].name,
			    strerror(errno));
			continue;
		}
		ms = t[i].claim;
		if (t[i].claimed)
			ok(s.claim_ms >= ms && s.claim_ms < ms + 5000,
			    "%s: claim %lld ms", t[i].name,
			    (long long)s.claim_ms);
		else
			is_int(s.claim_ms, -1, "%s: no claim", t[i].name);
		if (t[i].boot != 2)
			ok(s.elapsed_ms >= t[i].touch && s.elapsed_ms <
			    t[i].touch + 5000, "%s: elapsed since the %s",
			    t[i].name, t[i].claim < 5750 ? "claim" :
			    "refresh");
	}

	/* A damaged outcome ends no pending: it shows no run. */
	pg_stamp_now(&now);
	w = claimed(now.boot_id, now.mono_ns - 10 * SEC, now.wall_ns,
	    now.mono_ns - 10 * SEC, 5750);
	state_write(&st, "mail", &w);
	pg_state_set(&st, "mail", "side", "pollguard-outcome 1\nstart\n",
	    26);
	pg_status_local(&st, &c, "a", &s);
	ok(s.claim_ms >= 10000 && !s.last, "a damaged outcome: pending, no "
	    "failure shown");

	/* A run going, begun after the claim: running, no claim. */
	pg_state_set(&st, "mail", "side", NULL, 0);
	if (pg_lock_take(&st, "mail", &fd) == 1) {
		struct pg_outcome	 o;

		pg_outcome_start(&st, "mail", getpid(), &o);
		pg_status_local(&st, &c, "a", &s);
		ok(s.running && s.claim_ms == -1, "a run going, begun after "
		    "the claim: running, the claim not reported");
		close(fd);
	} else
		ok(0, "pending: the run lock taken");

	/*
	 * pg_still_counted: a go's last step withdraws when a run began at
	 * or after its claim (PG_LOST_RAN); the horizon's end comes first.
	 */
	pg_state_set(&st, "mail", "side", NULL, 0);
	pg_stamp_now(&now);
	w = claimed(now.boot_id, now.mono_ns - 1 * SEC, now.wall_ns,
	    now.mono_ns - 1 * SEC, 5750);
	state_write(&st, "mail", &w);
	is_int(pg_still_counted(&st, &c, "a", 100, &w, &why, &self), 1,
	    "still_counted: no run since the claim: 1");
	b = stamp(now.boot_id, w.claim_ns - 1 * MS, now.wall_ns);
	side_start(&st, "mail", &b);
	is_int(pg_still_counted(&st, &c, "a", 100, &w, &why, &self), 1,
	    "still_counted: a run begun 1 ms before the claim: 1");
	b.mono_ns = w.claim_ns;
	side_start(&st, "mail", &b);
	is_int(pg_still_counted(&st, &c, "a", 100, &w, &why, &self), 0,
	    "still_counted: a run begun at the claim: 0");
	is_int(why, PG_LOST_RAN, "... PG_LOST_RAN");
	b.mono_ns = w.claim_ns + 500 * MS;
	side_start(&st, "mail", &b);
	is_int(pg_still_counted(&st, &c, "a", 100, &w, &why, &self), 0,
	    "still_counted: a run begun after the claim, failed: 0");
	is_int(why, PG_LOST_RAN, "... PG_LOST_RAN");
	pg_settle_text(why, -1, &self, errbuf, sizeof(errbuf));
	ok(strstr(errbuf, "a run began on this node after the claim") !=
	    NULL, "... and says so: %s", errbuf);
	ok(pg_settle_warns(why), "... as a warning");
	b = stamp(BOOT_B, w.claim_ns + 500 * MS, now.wall_ns);
	side_start(&st, "mail", &b);
	is_int(pg_still_counted(&st, &c, "a", 100, &w, &why, &self), 1,
	    "still_counted: a run of another boot: 1");
	pg_state_set(&st, "mail", "side", "pollguard-outcome 1\nstart\n",
	    26);
	is_int(pg_still_counted(&st, &c, "a", 100, &w, &why, &self), 1,
	    "still_counted: a damaged outcome: 1");
	b = stamp(now.boot_id, w.claim_ns + 500 * MS, now.wall_ns);
	side_start(&st, "mail", &b);
	w.horizon_ms = 1000;
	state_write(&st, "mail", &w);
	is_int(pg_still_counted(&st, &c, "a", 100, &w, &why, &self), 0,
	    "still_counted: the horizon over, a run since: 0");
	is_int(why, PG_LOST_EXPIRED, "... PG_LOST_EXPIRED first");
	pg_state_close(&st);
}

static void
test_format_bounds(void)
{
	struct pg_outcome	 o;
	struct pg_hold		 h;
	struct pg_checked	 ck;

	o = finished(0, 0, 9, 1, 3);
	o.succeeded = 1;
	o.success = stamp(BOOT_A, 7 * SEC, 1700000200 * SEC);
	BOUNDS("outcome", pg_outcome_format, &o, PG_OUTCOME_MAX);
	h = held(BOOT_A, 3700 * SEC, 1700003600 * SEC, 3600000, "ops@a",
	    "disk swap");
	BOUNDS("hold", pg_hold_format, &h, PG_HOLD_FILE_MAX);
	memset(&ck, 0, sizeof(ck));
	ck.last = stamp(BOOT_A, 20 * SEC, 1700000300 * SEC);
	ck.since = stamp(BOOT_A, 5 * SEC, 1700000285 * SEC);
	strlcpy(ck.yield, "alpha", sizeof(ck.yield));
	ck.yielded = stamp(BOOT_A, 19 * SEC, 1700000299 * SEC);
	BOUNDS("checked", pg_checked_format, &ck, PG_CHECKED_MAX);
}
#undef BOUNDS

/*
 * ".CLUSTER.unreachable" (doc/STATE.md, "Unreachable peers"): each peer
 * said once within every_ms, per cluster; missing or damaged says yes.
 */
static void
test_unreachable(void)
{
	struct pg_state	 st;
	char		 dir[PATH_MAX], path[PATH_MAX + 32], buf[512];
	char		 errbuf[PG_ERR_MAX];
	const char	*b = "b", *a = "a", *nobody = "nobody";
	const char	*both[] = { "b", "a.b" };
	struct stat	 sb;

	snprintf(dir, sizeof(dir), "%s/unreach", base);
	if (pg_state_open(&st, dir, 1, errbuf, sizeof(errbuf)) == -1) {
		diag("%s", errbuf);
		ok(0, "unreachable: state directory opened");
		return;
	}
	snprintf(path, sizeof(path), "%s/.c.unreachable", dir);
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 1,
	    "unreachable: no record: due");
	ok(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0644,
	    "the file is .CLUSTER.unreachable, 0644");
	ok(read_file(path, buf, sizeof(buf)) > 0 &&
	    strncmp(buf, "pollguard-unreachable 1\nb ", 26) == 0,
	    "... the magic, then b's line");
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 0,
	    "unreachable: b again within the hour: not due");
	is_int(pg_unreachable_due(&st, "c", "a.b", 3600000), 1,
	    "unreachable: another peer: due");
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 0,
	    "... b is still not due");
	is_int(pg_unreachable_due(&st, "c", "a.b", 3600000), 0,
	    "... nor a.b");
	is_int(pg_unreachable_due(&st, "d", "b", 3600000), 1,
	    "unreachable: b of another cluster: due");
	is_int(pg_unreachable_due(&st, "c", "b", 0), 1,
	    "unreachable: b said longer ago than every_ms: due");
	ok(read_file(path, buf, sizeof(buf)) > 0 && strstr(buf, "\na.b ") ==
	    NULL, "... the expired line of a.b dropped");
	write_file(path, "pollguard-unreachable 1\nb x 1 2\n", 32);
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 1,
	    "unreachable: a damaged line: due");
	write_file(path, "pollguard-unreachable 1\nb", 25);
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 1,
	    "unreachable: cut short: due");
	write_file(path, "", 0);
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 1,
	    "unreachable: empty: due");
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 0,
	    "... and written anew: not due");
	/* b answered: forgotten, so its next outage is said at once. */
	is_int(pg_unreachable_due(&st, "c", "a.b", 3600000), 1,
	    "unreachable: a.b said");
	is_int(pg_unreachable_clear(&st, "c", &b, 1, 3600000), 0,
	    "unreachable: b answered: cleared");
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 1,
	    "... and b's next outage is due at once");
	is_int(pg_unreachable_due(&st, "c", "a.b", 3600000), 0,
	    "... a.b's line kept");
	is_int(pg_unreachable_clear(&st, "c", &a, 1, 3600000), 0,
	    "unreachable: a, a prefix of a.b, answered");
	is_int(pg_unreachable_due(&st, "c", "a.b", 3600000), 0,
	    "... a.b's line still kept");
	is_int(pg_unreachable_clear(&st, "c", &nobody, 1, 3600000), 0,
	    "unreachable: a peer without a line answered: nothing to do");
	is_int(pg_unreachable_clear(&st, "c", both, 2, 3600000), 0,
	    "unreachable: b and a.b answered at once: cleared");
	is_int(pg_unreachable_due(&st, "c", "a.b", 3600000), 1,
	    "... a.b is due again");
	is_int(pg_unreachable_due(&st, "c", "b", 3600000), 1,
	    "... and so is b");
	is_int(count_tmp(dir), 0, "unreachable: no temporary files left");
	pg_state_close(&st);
}

int
main(void)
{
	const char	*tmp;

	umask(022);
	tmp = getenv("TMPDIR");
	snprintf(base, sizeof(base), "%s/t_state.XXXXXX",
	    tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(base) == NULL)
		err(1, "mkdtemp");
	test_now();
	test_elapsed();
	test_format();
	test_parse();
	test_dir();
	test_trust();
	test_records();
	test_claim_format();
	test_claim_parse();
	test_record_elapsed();
	test_claim_records();
	test_undo();
	test_moved();
	test_lock();
	test_rec_lock();
	test_outcome_format();
	test_outcome_parse();
	test_outcome_files();
	test_hold_format();
	test_hold_parse();
	test_hold_left();
	test_hold_files();
	test_side_files();
	test_pending();
	test_format_bounds();
	test_unreachable();
	rm_rf(base);
	return done_testing();
}
