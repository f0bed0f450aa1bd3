/* SPDX-License-Identifier: ISC */
/* duration.c: durations as people write and read them; names' rules. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

static const struct {
	const char	*suffix;
	int64_t		 ms;
} units[] = {
	{ "ms",	1 },
	{ "s",	1000 },
	{ "m",	60 * 1000 },	/* MINUTES: from here on, two units */
	{ "h",	3600 * 1000 },
	{ "d",	24 * 3600 * 1000 },	/* DAYS: the largest */
	{ "",	1000 },		/* a bare number means seconds */
};
#define MINUTES	2	/* units[]' index of "m" */
#define DAYS	4	/* and of "d" */

int
pg_duration_parse(const char *s, int64_t min, int64_t max, int64_t *ms,
    const char **errstr)
{
	char		 digits[24];
	const char	*errs;
	size_t		 n, i;
	long long	 v;

	n = strspn(s, "0123456789");
	if (n == 0 || n >= sizeof(digits))
		goto invalid;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(s + n, units[i].suffix) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		goto invalid;

	memcpy(digits, s, n);
	digits[n] = '\0';
	v = strtonum(digits, 0, INT64_MAX / units[i].ms, &errs) * units[i].ms;
	if (errs != NULL || v > max)
		*errstr = "too large";
	else if (v < min)
		*errstr = "too small";
	else {
		*ms = v;
		*errstr = NULL;
		return 0;
	}
	return -1;
invalid:
	*errstr = "invalid";
	return -1;
}

int
pg_duration_format(int64_t ms, char *buf, size_t len)
{
	int64_t	 sub;
	size_t	 i;
	int	 r;

	if (ms == PG_NEVER)
		r = snprintf(buf, len, "never");
	else if (ms < 0)
		r = -1;
	else if (ms >= 1000 && ms < 60 * 1000 && ms % 1000 >= 100)
		r = snprintf(buf, len, "%" PRId64 ".%" PRId64 "s", ms / 1000,
		    ms % 1000 / 100);
	else {
		/* The largest unit; from minutes on, the next unless zero. */
		for (i = DAYS; i > 0 && ms < units[i].ms; i--)
			continue;
		r = snprintf(buf, len, "%" PRId64 "%s", ms / units[i].ms,
		    units[i].suffix);
		sub = i < MINUTES ? 0 : ms % units[i].ms / units[i - 1].ms;
		if (sub != 0 && r >= 0 && (size_t)r < len)
			r += snprintf(buf + r, len - r, "%" PRId64 "%s", sub,
			    units[i - 1].suffix);
	}
	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

const char *
pg_duration_text(int64_t ms, char *buf)
{
	if (pg_duration_format(ms, buf, PG_DURATION_MAX) == -1)
		strlcpy(buf, "?", PG_DURATION_MAX);
	return buf;
}

/* A leading '-' would read as an option on the command line. */
int
pg_cluster_id_valid(const char *s)
{
	size_t	 n;

	n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-");
	return n > 0 && n <= PG_NAME_MAX && s[n] == '\0' && s[0] != '.' &&
	    s[0] != '-';
}

int
pg_peer_name_valid(const char *s)
{
	return pg_cluster_id_valid(s);
}

int64_t
pg_time_left(int64_t now, const int64_t *at, size_t n)
{
	int64_t	 d = INT64_MAX;
	size_t	 i;

	for (i = 0; i < n; i++)
		if (at[i] > 0 && at[i] < d)
			d = at[i];
	return d > now ? d - now : 0;
}
