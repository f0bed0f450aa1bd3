/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for duration.c: pg_duration_parse, pg_duration_format,
 * pg_cluster_id_valid and pg_peer_name_valid.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollguard.h"
#include "tap.h"

#define SEC	1000LL
#define MIN	(60 * SEC)
#define HOUR	(60 * MIN)
#define DAY	(24 * HOUR)

static void
parse_ok(const char *s, int64_t min, int64_t max, int64_t want)
{
	const char	*errstr = "unset";
	int64_t		 ms = -12345;
	int		 r;

	r = pg_duration_parse(s, min, max, &ms, &errstr);
	is_int(r, 0, "parse \"%s\" succeeds", s);
	is_int(ms, want, "parse \"%s\" is %lld ms", s, (long long)want);
}

static void
parse_bad(const char *s, int64_t min, int64_t max, const char *want)
{
	const char	*errstr = NULL;
	int64_t		 ms = -12345;
	int		 r;

	r = pg_duration_parse(s, min, max, &ms, &errstr);
	is_int(r, -1, "parse \"%s\" fails", s);
	is_str(errstr, want, "parse \"%s\": errstr", s);
}

/* Overflow may be reported as "invalid" or "too large", never wrap. */
static void
parse_overflow(const char *s)
{
	const char	*errstr = NULL;
	int64_t		 ms = -12345;
	int		 r;

	r = pg_duration_parse(s, 0, INT64_MAX, &ms, &errstr);
	is_int(r, -1, "parse \"%s\" fails (overflow)", s);
	ok(errstr != NULL && (strcmp(errstr, "too large") == 0 ||
	    strcmp(errstr, "invalid") == 0),
	    "parse \"%s\": errstr \"too large\" or \"invalid\" (got %s)", s,
	    errstr ? errstr : "NULL");
}

static void
test_parse(void)
{
	char	 buf[64];

	/* Every unit. */
	parse_ok("250ms", 0, INT64_MAX, 250);
	parse_ok("1ms", 0, INT64_MAX, 1);
	parse_ok("7s", 0, INT64_MAX, 7 * SEC);
	parse_ok("3m", 0, INT64_MAX, 3 * MIN);
	parse_ok("2h", 0, INT64_MAX, 2 * HOUR);
	parse_ok("30d", 0, INT64_MAX, 30 * DAY);
	/* A bare number means seconds. */
	parse_ok("5", 0, INT64_MAX, 5 * SEC);
	parse_ok("90", 0, INT64_MAX, 90 * SEC);
	/* Zero. */
	parse_ok("0", 0, INT64_MAX, 0);
	parse_ok("0ms", 0, INT64_MAX, 0);
	parse_ok("0d", 0, INT64_MAX, 0);
	/* Leading zeros are still decimal. */
	parse_ok("010s", 0, INT64_MAX, 10 * SEC);
	/* The largest number of days that fits in int64_t milliseconds. */
	parse_ok("106751991167d", 0, INT64_MAX, 106751991167LL * DAY);

	/* Bounds are inclusive and in milliseconds. */
	parse_ok("10s", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, 10 * SEC);
	parse_ok("10000ms", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, 10 * SEC);
	parse_ok("30d", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, 30 * DAY);
	parse_ok("720h", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, 30 * DAY);
	parse_bad("9s", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, "too small");
	parse_bad("9999ms", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, "too small");
	parse_bad("0", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, "too small");
	parse_bad("31d", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, "too large");
	snprintf(buf, sizeof(buf), "%lldms", (long long)PG_WAIT_MAX_MS + 1);
	parse_bad(buf, PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, "too large");
	parse_bad("99ms", 100, 60 * SEC, "too small");
	parse_ok("100ms", 100, 60 * SEC, 100);
	parse_ok("60s", 100, 60 * SEC, 60 * SEC);
	parse_ok("1m", 100, 60 * SEC, 60 * SEC);
	parse_bad("61s", 100, 60 * SEC, "too large");
	parse_bad("60001ms", 100, 60 * SEC, "too large");

	/* Invalid input. */
	parse_bad("", 0, INT64_MAX, "invalid");
	parse_bad(" 1s", 0, INT64_MAX, "invalid");
	parse_bad("1s ", 0, INT64_MAX, "invalid");
	parse_bad("1 s", 0, INT64_MAX, "invalid");
	parse_bad("-1s", 0, INT64_MAX, "invalid");
	parse_bad("-1", 0, INT64_MAX, "invalid");
	parse_bad("+1s", 0, INT64_MAX, "invalid");
	parse_bad("1.5s", 0, INT64_MAX, "invalid");
	parse_bad("1sec", 0, INT64_MAX, "invalid");
	parse_bad("1msec", 0, INT64_MAX, "invalid");
	parse_bad("s", 0, INT64_MAX, "invalid");
	parse_bad("ms", 0, INT64_MAX, "invalid");
	parse_bad("10x", 0, INT64_MAX, "invalid");
	parse_bad("0x10", 0, INT64_MAX, "invalid");
	parse_bad("1m30s", 0, INT64_MAX, "invalid");
	parse_bad("1ss", 0, INT64_MAX, "invalid");
	parse_bad("1\n", 0, INT64_MAX, "invalid");
	/* Invalid beats out of range: the check is on the text first. */
	parse_bad("1x", PG_WAIT_MIN_MS, PG_WAIT_MAX_MS, "invalid");

	/* Overflow, in the number and in the multiplication. */
	parse_overflow("99999999999999999999d");
	parse_overflow("99999999999999999999");
	parse_overflow("9223372036854775808ms");
	parse_overflow("106751991168d");
	parse_overflow("9223372036854776s");
	parse_overflow("9999999999999999d");
}

/*
 * Read a formatted duration back, the way a person would: a sum of
 * NUMBER[.DIGIT]UNIT parts. Return the value and, in *unit, the size of
 * the smallest unit shown (the precision); -1 when it cannot be read.
 */
static int64_t
human_value(const char *s, int64_t *unit)
{
	int64_t	 total = 0, n, frac, u, prec = 0;
	int	 fracdigits;

	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		if (!isdigit((unsigned char)*s))
			return -1;
		for (n = 0; isdigit((unsigned char)*s); s++)
			n = n * 10 + (*s - '0');
		frac = 0;
		fracdigits = 0;
		if (*s == '.') {
			s++;
			for (; isdigit((unsigned char)*s); s++, fracdigits++)
				frac = frac * 10 + (*s - '0');
			if (fracdigits != 1)
				return -1;
		}
		if (strncmp(s, "ms", 2) == 0) {
			u = 1;
			s += 2;
		} else if (*s == 's') {
			u = SEC;
			s++;
		} else if (*s == 'm') {
			u = MIN;
			s++;
		} else if (*s == 'h') {
			u = HOUR;
			s++;
		} else if (*s == 'd') {
			u = DAY;
			s++;
		} else
			return -1;
		if (fracdigits > 0 && u != SEC)
			return -1;
		/* Units must go from large to small. */
		if (prec != 0 && u >= prec)
			return -1;
		total += n * u + frac * (u / 10);
		prec = fracdigits > 0 ? u / 10 : u;
	}
	*unit = prec;
	return total;
}

static void
format_is(int64_t ms, const char *want)
{
	char	 buf[64];
	int	 r;

	memset(buf, 'X', sizeof(buf));
	r = pg_duration_format(ms, buf, sizeof(buf));
	is_int(r, 0, "format %lld succeeds", (long long)ms);
	is_str(r == 0 ? buf : NULL, want, "format %lld is \"%s\"",
	    (long long)ms, want);
}

/* The text reads back as the value, to the precision it shows. */
static void
format_reads_back(int64_t ms)
{
	char	 buf[64];
	int64_t	 v, unit = 0;
	int	 r;

	r = pg_duration_format(ms, buf, sizeof(buf));
	if (r != 0) {
		ok(0, "format %lld succeeds", (long long)ms);
		return;
	}
	v = human_value(buf, &unit);
	ok(v >= 0 && v <= ms && ms - v < unit,
	    "format %lld: \"%s\" reads back within its precision",
	    (long long)ms, buf);
}

static void
test_format(void)
{
	static const int64_t values[] = {
		0, 1, 999, 1000, 1001, 1099, 1100, 59999, 60000, 61000,
		3599999, 3600000, 3660000, 86399999, 86400000, 90000000,
		30 * DAY, 365 * DAY + 5 * HOUR + 59 * MIN, PG_NEVER - 1
	};
	static const int64_t whole[] = {
		1 * SEC, 59 * SEC, 1 * MIN, 59 * MIN, 1 * HOUR, 23 * HOUR,
		1 * DAY, 30 * DAY, 365 * DAY, 106751991167LL * DAY
	};
	char	 buf[64], small[8];
	int64_t	 ms;
	size_t	 i;
	const char *errstr;
	int	 r;

	/* The shapes the header lists: at most two units, no zero parts. */
	format_is(250, "250ms");
	format_is(0, "0ms");
	format_is(999, "999ms");
	format_is(3200, "3.2s");
	format_is(10 * SEC, "10s");
	format_is(2 * SEC, "2s");
	format_is(12 * MIN + 5 * SEC, "12m5s");
	format_is(2 * HOUR, "2h");
	format_is(3 * DAY + 4 * HOUR, "3d4h");
	format_is(PG_NEVER, "never");
	format_is(1 * MIN, "1m");
	format_is(1 * DAY, "1d");
	format_is(2 * HOUR + 30 * MIN, "2h30m");

	/* Negative: -1. */
	is_int(pg_duration_format(-1, buf, sizeof(buf)), -1,
	    "format -1 fails");
	is_int(pg_duration_format(INT64_MIN, buf, sizeof(buf)), -1,
	    "format INT64_MIN fails");

	/* Whole units parse back exactly with pg_duration_parse. */
	for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		int64_t	 back = -1;

		r = pg_duration_format(whole[i], buf, sizeof(buf));
		if (r == 0)
			r = pg_duration_parse(buf, 0, INT64_MAX, &back,
			    &errstr);
		ok(r == 0 && back == whole[i],
		    "format %lld (\"%s\") parses back", (long long)whole[i],
		    r == 0 ? buf : "");
	}

	/* Milliseconds parse back exactly with pg_duration_parse. */
	for (ms = 0; ms < 1000; ms += 37) {
		int64_t	 back = -1;

		r = pg_duration_format(ms, buf, sizeof(buf));
		if (r == 0)
			r = pg_duration_parse(buf, 0, INT64_MAX, &back,
			    &errstr);
		ok(r == 0 && back == ms, "format %lld (\"%s\") parses back",
		    (long long)ms, r == 0 ? buf : "");
	}

	/* Everything else reads back to the precision it shows. */
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		format_reads_back(values[i]);

	/* Truncation is an error. */
	is_int(pg_duration_format(250, small, 5), -1,
	    "format 250 into 5 bytes fails");
	is_int(pg_duration_format(250, small, 6), 0,
	    "format 250 into 6 bytes succeeds");
	is_str(small, "250ms", "format 250 into 6 bytes is \"250ms\"");
	is_int(pg_duration_format(PG_NEVER, small, 5), -1,
	    "format never into 5 bytes fails");
	is_int(pg_duration_format(PG_NEVER, small, 6), 0,
	    "format never into 6 bytes succeeds");
	is_int(pg_duration_format(12 * MIN + 5 * SEC, small, 5), -1,
	    "format 12m5s into 5 bytes fails");
	is_int(pg_duration_format(3 * DAY + 4 * HOUR, small, 4), -1,
	    "format 3d4h into 4 bytes fails");
	is_int(pg_duration_format(1, small, 1), -1,
	    "format 1 into 1 byte fails");
	is_int(pg_duration_format(1, small, 0), -1,
	    "format 1 into 0 bytes fails");
}

static void
name_is(int (*fn)(const char *), const char *fname, const char *s,
    int want, const char *label)
{
	is_int(fn(s) != 0, want, "%s(%s) is %s", fname, label,
	    want ? "true" : "false");
}

static void
test_names(void)
{
	char	 n64[PG_NAME_MAX + 1], n65[PG_NAME_MAX + 2];
	int	 c, bad;
	char	 one[4];

	memset(n64, 'a', PG_NAME_MAX);
	n64[PG_NAME_MAX] = '\0';
	memset(n65, 'b', PG_NAME_MAX + 1);
	n65[PG_NAME_MAX + 1] = '\0';

#define CID(s, w, l)	name_is(pg_cluster_id_valid, "cluster_id", s, w, l)
#define PEER(s, w, l)	name_is(pg_peer_name_valid, "peer_name", s, w, l)
	CID("mail", 1, "\"mail\"");
	CID("a", 1, "\"a\"");
	CID("A-Z_0.9", 1, "\"A-Z_0.9\"");
	CID("mail.example.org", 1, "\"mail.example.org\"");
	CID("a..b", 1, "\"a..b\"");
	CID("-x", 0, "\"-x\"");
	CID("-", 0, "\"-\"");
	CID("x-", 1, "\"x-\"");
	CID("_x", 1, "\"_x\"");
	CID(n64, 1, "64 characters");
	CID(n65, 0, "65 characters");
	CID("", 0, "empty");
	CID(".hidden", 0, "\".hidden\"");
	CID(".", 0, "\".\"");
	CID("..", 0, "\"..\"");
	CID("../x", 0, "\"../x\"");
	CID("a/b", 0, "\"a/b\"");
	CID("/", 0, "\"/\"");
	CID("a b", 0, "\"a b\"");
	CID(" a", 0, "\" a\"");
	CID("a ", 0, "\"a \"");
	CID("a\tb", 0, "tab");
	CID("a\n", 0, "newline");
	CID("\x01", 0, "\\x01");
	CID("a\x7f", 0, "DEL");
	CID("caf\xc3\xa9", 0, "UTF-8 e-acute");
	CID("\xff", 0, "\\xff");
	CID("a:b", 0, "\"a:b\"");
	CID("a%2f", 0, "\"a%2f\"");
	CID("a?b", 0, "\"a?b\"");
	CID("a\\b", 0, "backslash");

	PEER("alpha", 1, "\"alpha\"");
	PEER("node-1.example.org", 1, "\"node-1.example.org\"");
	PEER("x-", 1, "\"x-\"");
	PEER("_x", 1, "\"_x\"");
	PEER("a..b", 1, "\"a..b\"");
	PEER(n64, 1, "64 characters");
	PEER(n65, 0, "65 characters");
	PEER("", 0, "empty");
	PEER("-x", 0, "\"-x\"");
	PEER("-", 0, "\"-\"");
	PEER(".x", 0, "\".x\"");
	PEER("..", 0, "\"..\"");
	PEER("a/b", 0, "\"a/b\"");
	PEER("a b", 0, "\"a b\"");
	PEER("a\tb", 0, "tab");
	PEER("\x1b", 0, "ESC");
	PEER("a\x7f", 0, "DEL");
	PEER("caf\xc3\xa9", 0, "UTF-8 e-acute");
	PEER("a@b", 0, "\"a@b\"");
	PEER("a:80", 0, "\"a:80\"");
#undef CID
#undef PEER

	/* Every single byte: exactly [A-Za-z0-9._-] are allowed. */
	bad = 0;
	for (c = 1; c < 256; c++) {
		int	 allowed, first;

		allowed = isascii(c) && (isalnum(c) || c == '.' || c == '_' ||
		    c == '-');
		one[0] = 'x';
		one[1] = c;
		one[2] = '\0';
		if ((pg_cluster_id_valid(one) != 0) != allowed ||
		    (pg_peer_name_valid(one) != 0) != allowed) {
			diag("byte 0x%02x inside a name should be %s", c,
			    allowed ? "allowed" : "refused");
			bad++;
		}
		one[0] = c;
		one[1] = '\0';
		first = allowed && c != '.' && c != '-';
		if ((pg_cluster_id_valid(one) != 0) != first) {
			diag("byte 0x%02x as cluster ID should be %s", c,
			    first ? "allowed" : "refused");
			bad++;
		}
		if ((pg_peer_name_valid(one) != 0) != first) {
			diag("byte 0x%02x as peer name should be %s", c,
			    first ? "allowed" : "refused");
			bad++;
		}
	}
	is_int(bad, 0, "every byte 0x01..0xff classified right");
}

int
main(void)
{
	test_parse();
	test_format();
	test_names();
	return done_testing();
}
