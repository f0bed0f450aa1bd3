/* SPDX-License-Identifier: ISC */
/* stamp.c: moments of this host, the time between two, and their text. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "state-int.h"

#define RECORD		"pollguard-state 1"
#define MAGIC		RECORD " "
#define BOOT_ID_FILE	"/proc/sys/kernel/random/boot_id"

static void
boot_id(char *buf)
{
	static char	 cached[PG_BOOT_ID_LEN + 1];
	static int	 done;
	char		 tmp[PG_BOOT_ID_LEN + 2];
	int		 fd;

	if (!done && (fd = open(BOOT_ID_FILE, O_RDONLY | O_CLOEXEC)) != -1) {
		if (read(fd, tmp, sizeof(tmp)) == PG_BOOT_ID_LEN + 1 &&
		    tmp[PG_BOOT_ID_LEN] == '\n' &&
		    strspn(tmp, "0123456789abcdef-") == PG_BOOT_ID_LEN)
			memcpy(cached, tmp, PG_BOOT_ID_LEN);
		close(fd);
	}
	done = 1;
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

int
pg_stamp_same_boot(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	/* Without boot IDs, a monotonic clock behind the record's: reboot. */
	if (rec->boot_id[0] != '\0' && now->boot_id[0] != '\0')
		return strcmp(rec->boot_id, now->boot_id) == 0;
	return rec->mono_ns <= now->mono_ns;
}

int
pg_stamp_in_horizon(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	return rec->claim_ns > 0 && pg_stamp_same_boot(rec, now) &&
	    now->mono_ns >= rec->claim_ns &&
	    (now->mono_ns - rec->claim_ns) / 1000000 < rec->horizon_ms;
}

int64_t
pg_stamp_elapsed(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	int64_t	 up, wall;

	if (pg_stamp_same_boot(rec, now))
		return now->mono_ns > rec->mono_ns ?
		    (now->mono_ns - rec->mono_ns) / 1000000 : 0;
	up = now->mono_ns / 1000000;
	wall = (now->wall_ns - rec->wall_ns) / 1000000;
	return wall > up ? wall : up;
}

int64_t
pg_record_elapsed(const struct pg_stamp *rec, const struct pg_stamp *now)
{
	if (pg_stamp_in_horizon(rec, now))
		return (now->mono_ns - rec->claim_ns) / 1000000;
	return pg_stamp_elapsed(rec, now);
}

/* "KEY BOOT MONO WALL", as the record and the side record have a stamp. */
static int
stamp_text(char *buf, size_t len, size_t *off, const char *key,
    const struct pg_stamp *st)
{
	return pg_appendf(buf, len, off, "%s %s %" PRId64 " %" PRId64, key,
	    st->boot_id[0] != '\0' ? st->boot_id : "-", st->mono_ns,
	    st->wall_ns);
}

int
pg_stamp_append(char *buf, size_t len, size_t *off, const char *key,
    const struct pg_stamp *st)
{
	if (stamp_text(buf, len, off, key, st) == -1)
		return -1;
	return pg_appendf(buf, len, off, "\n");
}

int
pg_stamp_format(const struct pg_stamp *st, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r;

	r = stamp_text(buf, len, &off, RECORD, st);
	if (st->claim_ns > 0)
		r |= pg_appendf(buf, len, &off, " %" PRId64 " %" PRId64,
		    st->claim_ns, st->horizon_ms);
	r |= pg_appendf(buf, len, &off, "\n");
	return pg_kv_done(r, off);
}

int
pg_bad_msg(void *p, size_t size)
{
	memset(p, 0, size);
	errno = EBADMSG;
	return -1;
}

/* "BOOT MONO WALL", s[0..n); with max 5, " CLAIM_NS HORIZON_MS" may follow. */
static int
stamp_scan(const char *s, size_t n, int max, struct pg_stamp *st)
{
	const char	*end = s + n, *sp, *f[5];
	size_t		 flen[5];
	int		 nf = 0;

	memset(st, 0, sizeof(*st));
	/* The fields between spaces (an empty one where two meet). */
	for (;;) {
		if (nf == max)
			return pg_bad_msg(st, sizeof(*st));
		f[nf] = s;
		if ((sp = memchr(s, ' ', end - s)) == NULL)
			break;
		flen[nf++] = sp - s;
		s = sp + 1;
	}
	flen[nf++] = end - s;
	if (nf != 3 && nf != 5)
		return pg_bad_msg(st, sizeof(*st));
	if (flen[0] == PG_BOOT_ID_LEN &&
	    strspn(f[0], "0123456789abcdef-") >= PG_BOOT_ID_LEN)
		memcpy(st->boot_id, f[0], PG_BOOT_ID_LEN);
	else if (flen[0] != 1 || f[0][0] != '-')
		return pg_bad_msg(st, sizeof(*st));
	if (pg_kv_num(f[1], flen[1], 0, INT64_MAX, &st->mono_ns) == -1 ||
	    pg_kv_num(f[2], flen[2], 0, INT64_MAX, &st->wall_ns) == -1 ||
	    (nf == 5 && (pg_kv_num(f[3], flen[3], 1, st->mono_ns,
	    &st->claim_ns) == -1 || pg_kv_num(f[4], flen[4], 0,
	    PG_WAIT_MAX_MS, &st->horizon_ms) == -1)))
		return pg_bad_msg(st, sizeof(*st));
	return 0;
}

int
pg_stamp_value(const char *s, size_t n, struct pg_stamp *st)
{
	return stamp_scan(s, n, 3, st);
}

int
pg_stamp_parse(const char *buf, size_t len, struct pg_stamp *st)
{
	if (len <= sizeof(MAGIC) - 1 || len > PG_RECORD_MAX ||
	    buf[len - 1] != '\n' || memchr(buf, '\0', len) != NULL ||
	    memcmp(buf, MAGIC, sizeof(MAGIC) - 1) != 0)
		return pg_bad_msg(st, sizeof(*st));
	return stamp_scan(buf + sizeof(MAGIC) - 1, len - sizeof(MAGIC), 5, st);
}
