/* SPDX-License-Identifier: ISC */
/*
 * stamp.c: moments of this host, read from its clocks and its boot ID;
 * the time elapsed between two of them; and their text: the activity
 * record's line, and the "BOOT MONO WALL" of a stamp in the side record.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "state-int.h"

#define MAGIC		"pollguard-state 1 "
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
	/* Without boot IDs, a monotonic clock behind the record means a reboot. */
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

/* "BOOT MONO WALL", as the record and the side record have a stamp. */
static int
stamp_text(char *buf, size_t len, size_t *off, const struct pg_stamp *st)
{
	return pg_appendf(buf, len, off, "%s %" PRId64 " %" PRId64,
	    st->boot_id[0] != '\0' ? st->boot_id : "-", st->mono_ns,
	    st->wall_ns);
}

int
pg_stamp_append(char *buf, size_t len, size_t *off, const char *key,
    const struct pg_stamp *st)
{
	int	 r = 0;

	r |= pg_appendf(buf, len, off, "%s ", key);
	r |= stamp_text(buf, len, off, st);
	r |= pg_appendf(buf, len, off, "\n");
	return r;
}

int
pg_stamp_format(const struct pg_stamp *st, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	r |= pg_appendf(buf, len, &off, MAGIC);
	r |= stamp_text(buf, len, &off, st);
	if (st->claim_ns > 0)
		r |= pg_appendf(buf, len, &off, " %" PRId64 " %" PRId64,
		    st->claim_ns, st->horizon_ms);
	r |= pg_appendf(buf, len, &off, "\n");
	return pg_kv_done(r, off);
}

/*
 * Split s[0..n) at each space into at most max fields (an empty field
 * where two spaces meet): their number, or -1 when there are more.
 */
static int
fields(const char *s, size_t n, const char **f, size_t *flen, int max)
{
	const char	*end = s + n, *sp;
	int		 i;

	for (i = 0; i < max; i++) {
		f[i] = s;
		if ((sp = memchr(s, ' ', end - s)) == NULL) {
			flen[i] = end - s;
			return i + 1;
		}
		flen[i] = sp - s;
		s = sp + 1;
	}
	return -1;
}

/* The first three fields: "-" or a boot ID, and two clocks. */
static int
stamp_fields(const char **f, const size_t *flen, struct pg_stamp *st)
{
	if (flen[0] == 1 && f[0][0] == '-')
		st->boot_id[0] = '\0';
	else if (flen[0] == PG_BOOT_ID_LEN &&
	    strspn(f[0], "0123456789abcdef-") >= PG_BOOT_ID_LEN)
		memcpy(st->boot_id, f[0], PG_BOOT_ID_LEN);
	else
		return -1;
	return pg_kv_num(f[1], flen[1], 0, INT64_MAX, &st->mono_ns) == -1 ||
	    pg_kv_num(f[2], flen[2], 0, INT64_MAX, &st->wall_ns) == -1 ?
	    -1 : 0;
}

int
pg_bad_msg(void *p, size_t size)
{
	memset(p, 0, size);
	errno = EBADMSG;
	return -1;
}

int
pg_stamp_value(const char *s, size_t n, struct pg_stamp *st)
{
	const char	*f[3];
	size_t		 flen[3];

	memset(st, 0, sizeof(*st));
	if (fields(s, n, f, flen, 3) != 3 || stamp_fields(f, flen, st) == -1)
		return pg_bad_msg(st, sizeof(*st));
	return 0;
}

int
pg_stamp_parse(const char *buf, size_t len, struct pg_stamp *st)
{
	const char	*f[5];
	size_t		 flen[5];
	int		 nf;

	memset(st, 0, sizeof(*st));
	if (len <= sizeof(MAGIC) - 1 || len > PG_RECORD_MAX ||
	    buf[len - 1] != '\n' || memchr(buf, '\0', len) != NULL ||
	    memcmp(buf, MAGIC, sizeof(MAGIC) - 1) != 0)
		return pg_bad_msg(st, sizeof(*st));
	/* A moment, or that and a claim: its moment and its horizon. */
	nf = fields(buf + sizeof(MAGIC) - 1, len - sizeof(MAGIC), f, flen, 5);
	if ((nf != 3 && nf != 5) || stamp_fields(f, flen, st) == -1 ||
	    (nf == 5 && (pg_kv_num(f[3], flen[3], 1, st->mono_ns,
	    &st->claim_ns) == -1 || pg_kv_num(f[4], flen[4], 0,
	    PG_WAIT_MAX_MS, &st->horizon_ms) == -1)))
		return pg_bad_msg(st, sizeof(*st));
	return 0;
}
