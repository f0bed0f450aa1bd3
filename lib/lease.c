/*
 * lease.c: ".CLUSTER.lease", this node's hold on an etcd-backed cluster
 * (pollguard(7), STRICT MODE ON ETCD). pollguard-check writes it after a
 * go, pollguard-touch keeps the lease alive and hands the revision to the
 * job as its fencing token, -r removes it, pollguard-serve reads it for
 * its local view. Written by the state directory's atomic writer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pollguard.h"

#define LEASE_SUFFIX	"lease"

int
pg_lease_format(const struct pg_lease *l, char *buf, size_t len)
{
	int	 n;

	n = snprintf(buf, len, "pollguard-lease 1\nlease %" PRId64
	    "\nrevision %" PRId64 "\nttl %" PRId64 "\n", l->id, l->revision,
	    l->ttl_s);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return n;
}

/* One "key N\n" line with N in [1, INT64_MAX]: the rest, or NULL. */
static const char *
field(const char *p, const char *end, const char *key, int64_t *v)
{
	char		 num[24];
	const char	*nl, *errstr;
	size_t		 k = strlen(key), n;

	if ((size_t)(end - p) <= k + 1 || memcmp(p, key, k) != 0 ||
	    p[k] != ' ' || (nl = memchr(p, '\n', end - p)) == NULL)
		return NULL;
	p += k + 1;
	n = nl - p;
	if (n == 0 || n >= sizeof(num) || strspn(p, "0123456789") < n ||
	    p[0] == '0')
		return NULL;
	memcpy(num, p, n);
	num[n] = '\0';
	*v = strtonum(num, 1, INT64_MAX, &errstr);
	return errstr == NULL ? nl + 1 : NULL;
}

int
pg_lease_parse(const char *buf, size_t len, struct pg_lease *l)
{
	static const char	 magic[] = "pollguard-lease 1\n";
	const char		*p = buf, *end = buf + len;

	memset(l, 0, sizeof(*l));
	if (len > PG_LEASE_MAX || len < sizeof(magic) - 1 ||
	    memcmp(buf, magic, sizeof(magic) - 1) != 0 ||
	    (p = field(p + sizeof(magic) - 1, end, "lease", &l->id)) == NULL ||
	    (p = field(p, end, "revision", &l->revision)) == NULL ||
	    (p = field(p, end, "ttl", &l->ttl_s)) == NULL || p != end ||
	    l->ttl_s > PG_ETCD_TTL_MAX) {
		memset(l, 0, sizeof(*l));
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

int
pg_lease_read(struct pg_state *st, const char *cluster, struct pg_lease *l)
{
	char	 buf[PG_LEASE_MAX];
	ssize_t	 n;

	if ((n = pg_state_aux_read(st, cluster, LEASE_SUFFIX, buf,
	    sizeof(buf))) <= 0)
		return n;
	return pg_lease_parse(buf, n, l) == -1 ? -1 : 1;
}

int
pg_lease_write(struct pg_state *st, const char *cluster,
    const struct pg_lease *l)
{
	char	 buf[PG_LEASE_MAX];
	int	 n;

	if ((n = pg_lease_format(l, buf, sizeof(buf))) == -1)
		return -1;
	return pg_state_aux_write(st, cluster, LEASE_SUFFIX, buf, n);
}

int
pg_lease_remove(struct pg_state *st, const char *cluster)
{
	return pg_state_aux_remove(st, cluster, LEASE_SUFFIX);
}
