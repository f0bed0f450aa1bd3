/* SPDX-License-Identifier: ISC */
/* lease.c: this node's lease record, ".CLUSTER.lease" (lease.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lease.h"
#include "state-int.h"

#define LEASE_SUFFIX	"lease"
#define LEASE_MAGIC	"pollguard-lease 1\n"

enum { L_LEASE, L_REVISION, L_TTL, L_COUNT };
static const char *const lease_keys[] = {
	"lease", "revision", "ttl", NULL
};

int
pg_lease_format(const struct pg_lease *l, char *buf, size_t len)
{
	size_t	 off = 0;
	int	 r = 0;

	r |= pg_appendf(buf, len, &off, LEASE_MAGIC "lease %" PRId64
	    "\nrevision %" PRId64 "\nttl %" PRId64 "\n", l->id, l->revision,
	    l->ttl_s);
	return pg_kv_done(r, off);
}

/*
 * Exactly the lines pg_lease_format writes, in its order: no other key,
 * and each number from 1 up without leading zeros, as it writes them.
 */
int
pg_lease_parse(const char *buf, size_t len, struct pg_lease *l)
{
	int64_t *const	 v[L_COUNT] = { &l->id, &l->revision, &l->ttl_s };
	struct pg_kv	 kv;
	unsigned int	 k = 0;
	int		 r;

	memset(l, 0, sizeof(*l));
	if (pg_kv_begin(&kv, buf, len, PG_LEASE_MAX, LEASE_MAGIC, lease_keys,
	    PG_KV_STRICT) == -1)
		return pg_bad_msg(l, sizeof(*l));
	while ((r = pg_kv_next(&kv)) == 1)
		if (kv.key != k++ || kv.val[0] == '0' || pg_kv_num(kv.val,
		    kv.vlen, 1, kv.key == L_TTL ? PG_ETCD_TTL_MAX : INT64_MAX,
		    v[kv.key]) == -1)
			return pg_bad_msg(l, sizeof(*l));
	return r == 0 && k == L_COUNT ? 0 : pg_bad_msg(l, sizeof(*l));
}

int
pg_lease_read(struct pg_state *st, const char *cluster, struct pg_lease *l)
{
	char	 buf[PG_LEASE_MAX];
	ssize_t	 n;

	if ((n = pg_state_get(st, cluster, LEASE_SUFFIX, buf,
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
	return pg_state_set(st, cluster, LEASE_SUFFIX, buf, n);
}

int
pg_lease_remove(struct pg_state *st, const char *cluster)
{
	return pg_state_set(st, cluster, LEASE_SUFFIX, NULL, 0);
}
