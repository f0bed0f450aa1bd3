/* SPDX-License-Identifier: ISC */
/*
 * The lines a flood of refusals logs, bounded (serve.h): per client
 * address, kind and minute, in memory standalone and in a file shared by
 * the processes of inetd mode.
 */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"

#define LL_MAGIC	0x31474c50	/* "PLG1" */
#define LL_OTHERS	PG_LOGLIM_CLIENTS	/* the entry of the others */

/* The statuses pollguard-serve answers with; the last is the rest. */
static const int	 kinds[PG_LOGLIM_KINDS] = {
	PG_LOGLIM_ERRORS, 400, 401, 403, 404, 405, 408, 431, 500, 503, 505, -1
};

static int
kind_of(int status)
{
	int	 k;

	for (k = 0; k < PG_LOGLIM_KINDS - 1 && kinds[k] != status; k++)
		;
	return k;
}

void
pg_loglim_init(struct pg_loglim *ll)
{
	memset(ll, 0, sizeof(*ll));
	ll->magic = LL_MAGIC;
	ll->size = sizeof(*ll);
}

static uint64_t
counted(const struct pg_loglim_client *e)
{
	uint64_t	 n = 0;
	int		 k;

	for (k = 0; k < PG_LOGLIM_KINDS; k++)
		n += e->count[k];
	return n;
}

int64_t
pg_loglim_due(const struct pg_loglim *ll)
{
	size_t	 i;

	for (i = 0; ll->start != 0 && i <= LL_OTHERS; i++)
		if (counted(&ll->c[i]) > 0)
			return ll->start + PG_LOGLIM_MINUTE;
	return INT64_MAX;
}

/* One client's summary line into buf. */
static void
summary(const struct pg_loglim_client *e, int others, char *buf, size_t len)
{
	char	 who[PG_ADDRSTR_MAX], kind[32];
	size_t	 n;
	int	 k, first = 1;

	if (others)
		strlcpy(who, "other clients", sizeof(who));
	else if (e->family == 0 || inet_ntop(e->family, e->addr, who,
	    sizeof(who)) == NULL)
		strlcpy(who, "-", sizeof(who));
	snprintf(buf, len, "%llu more refused from %s in the last minute (",
	    (unsigned long long)counted(e), who);
	for (k = 0; k < PG_LOGLIM_KINDS; k++) {
		if (e->count[k] == 0)
			continue;
		if (kinds[k] == PG_LOGLIM_ERRORS)
			strlcpy(kind, "errors", sizeof(kind));
		else if (kinds[k] == -1)
			strlcpy(kind, "others", sizeof(kind));
		else
			snprintf(kind, sizeof(kind), "%d", kinds[k]);
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s x %lu", first ? "" : ", ",
		    kind, (unsigned long)e->count[k]);
		first = 0;
	}
	strlcat(buf, ")", len);
}

int
pg_loglim_summary(struct pg_loglim *ll, int64_t now, char *buf, size_t len)
{
	uint32_t	 i;

	/* A minute begun later than now: another boot's, or a bad clock. */
	if (ll->start == 0 || (now >= ll->start &&
	    now - ll->start < PG_LOGLIM_MINUTE))
		return 0;
	for (i = ll->next; i <= LL_OTHERS; i++)
		if (counted(&ll->c[i]) > 0) {
			summary(&ll->c[i], i == LL_OTHERS, buf, len);
			ll->next = i + 1;
			return 1;
		}
	pg_loglim_init(ll);
	return 0;
}

/* The client's entry: its own, a free one, or the others'. */
static struct pg_loglim_client *
entry(struct pg_loglim *ll, const struct pg_client *c)
{
	struct pg_loglim_client	*e;
	size_t			 i;

	for (i = 0; i < LL_OTHERS; i++) {
		e = &ll->c[i];
		if (!e->used) {
			e->used = 1;
			e->family = c->family;
			memcpy(e->addr, c->addr, sizeof(e->addr));
			return e;
		}
		if (e->family == c->family &&
		    memcmp(e->addr, c->addr, sizeof(e->addr)) == 0)
			return e;
	}
	return &ll->c[LL_OTHERS];
}

int
pg_loglim_admit(struct pg_loglim *ll, int64_t now, const struct pg_client *c,
    int status, int n)
{
	struct pg_loglim_client	*e;
	int			 k = kind_of(status);

	if (ll->start == 0)
		ll->start = now != 0 ? now : 1;
	e = entry(ll, c);
	if (e != &ll->c[LL_OTHERS] && !(e->logged & (1U << k)) &&
	    ll->lines + n <= PG_LOGLIM_LINES) {
		e->logged |= 1U << k;
		ll->lines += n;
		return 1;
	}
	if (e->count[k] < UINT32_MAX)
		e->count[k]++;
	return 0;
}

int
pg_loglim_step(struct pg_loglim *ll, int64_t now, const struct pg_client *c,
    int status, int n, char sum[][PG_LOGLIM_SUMMARY_MAX], size_t *nsum)
{
	*nsum = 0;
	while (*nsum <= LL_OTHERS && pg_loglim_summary(ll, now, sum[*nsum],
	    PG_LOGLIM_SUMMARY_MAX))
		(*nsum)++;
	return c == NULL || pg_loglim_admit(ll, now, c, status, n);
}

int
pg_loglim_open(const char *dir, char *err, size_t elen)
{
	struct stat	 sb;
	char		 why[PG_ERR_MAX];
	int		 dfd, fd = -1, saved;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, elen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (pg_trust(dfd, dir, NULL, why, sizeof(why)) == -1) {
		saved = errno;
		snprintf(err, elen, "%s: %s", dir, why);
		goto fail;
	}
	fd = openat(dfd, PG_LOGLIM_FILE, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd == -1 || fstat(fd, &sb) == -1) {
		saved = errno;
		snprintf(err, elen, "%s/%s: %s", dir, PG_LOGLIM_FILE,
		    strerror(errno));
		goto fail;
	}
	/* Nobody else's, and no second name through which it could be. */
	if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
	    sb.st_nlink != 1 || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		saved = EPERM;
		snprintf(err, elen, "%s/%s: not a regular file of this user "
		    "only (uid %lu, mode %04o, %lu links)", dir, PG_LOGLIM_FILE,
		    (unsigned long)sb.st_uid, (unsigned)(sb.st_mode & 07777),
		    (unsigned long)sb.st_nlink);
		goto fail;
	}
	close(dfd);
	return fd;
fail:
	if (fd != -1)
		close(fd);
	close(dfd);
	errno = saved;
	return -1;
}

/* A record as this version writes them, in bounds. */
static int
valid(const struct pg_loglim *ll)
{
	size_t	 i;

	if (ll->magic != LL_MAGIC || ll->size != sizeof(*ll) ||
	    ll->lines > PG_LOGLIM_LINES || ll->next > LL_OTHERS + 1)
		return 0;
	for (i = 0; i <= LL_OTHERS; i++)
		if (ll->c[i].used > 1 || (ll->c[i].family != 0 &&
		    ll->c[i].family != AF_INET && ll->c[i].family != AF_INET6))
			return 0;
	return 1;
}

int
pg_loglim_load(int fd, struct pg_loglim *ll)
{
	struct timespec	 nap = { 0, 1000000 }, t0, t;
	ssize_t		 n;

	/*
	 * Each holder keeps it for microseconds, but a flood of a thousand
	 * processes on a loaded host can keep one from the CPU for seconds
	 * while it holds it, the more so when the waiters poll it often:
	 * each waits twice as long as the time before, up to 64 ms, and
	 * PG_LOGLIM_WAIT seconds on the clock is a stuck holder.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= PG_LOGLIM_WAIT) {
			errno = EWOULDBLOCK;
			return -1;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 64000000)
			nap.tv_nsec *= 2;
	}
	n = pread(fd, ll, sizeof(*ll), 0);
	if (n != (ssize_t)sizeof(*ll) || !valid(ll))
		pg_loglim_init(ll);
	return 0;
}

int
pg_loglim_save(int fd, const struct pg_loglim *ll)
{
	ssize_t	 n;
	int	 saved;

	n = pwrite(fd, ll, sizeof(*ll), 0);
	saved = errno;
	flock(fd, LOCK_UN);
	if (n != (ssize_t)sizeof(*ll)) {
		errno = n == -1 ? saved : EIO;
		return -1;
	}
	return 0;
}

int
pg_loglim_shared(int64_t now, const struct pg_client *c, int status, int n,
    char sum[][PG_LOGLIM_SUMMARY_MAX], size_t *nsum)
{
	struct pg_loglim	 ll;
	const char		*dir = getenv("RUNTIME_DIRECTORY");
	char			 err[PG_ERR_MAX];
	int			 fd, ok;

	*nsum = 0;
	if (dir == NULL || dir[0] == '\0')
		dir = PG_LOGLIM_DIR;
	if ((fd = pg_loglim_open(dir, err, sizeof(err))) == -1)
		return 1;
	if (pg_loglim_load(fd, &ll) == -1) {
		close(fd);
		return 1;
	}
	/*
	 * Read before the wait for the lock, now may be earlier than the
	 * minute another process began meanwhile: it falls in that minute,
	 * not before it (which would begin a new one).
	 */
	if (ll.start != 0 && now < ll.start && ll.start - now <=
	    (PG_LOGLIM_WAIT + 1) * 1000)
		now = ll.start;
	ok = pg_loglim_step(&ll, now, c, status, n, sum, nsum);
	if (pg_loglim_save(fd, &ll) == -1) {
		*nsum = 0;	/* the next process gives them */
		ok = 1;
	}
	close(fd);
	return ok;
}
