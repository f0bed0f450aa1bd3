/* SPDX-License-Identifier: ISC */
/* etcd.c (bin/): the tools on an etcd cluster (check.h, status.h, touch.h). */
#include <sys/param.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lease.h"
#include "check.h"
#include "status.h"
#include "touch.h"

#define KEEPALIVE_MIN_MS	500

/*
 * How long before the lease can expire the job is told: doc/SAFETY.md, 8;
 * 1 s, and the TTL at this node's clock's bound and etcd's (taken at
 * PG_RATE_BASE: its host does not say).
 */
static int64_t
stop_margin_ms(int64_t ttl_ms)
{
	int64_t	 ppm;

	if (pg_clock_rate(&ppm) == -1)
		ppm = -1;
	return 1000 + ttl_ms * (pg_rate_counted(ppm) + PG_RATE_BASE) / 1000000;
}

static struct pg_etcd_conn	*conn;
static struct pg_lease		 held;		/* hold_start's */
static int64_t			 deadline;	/* ms: the margin before */
static int64_t			 due;		/* next keepalive, ms */
static int			 lost;

static void
open_conn(const struct pg_config *cfg)
{
	if (conn != NULL)
		return;
	if (pg_etcd_init() == -1)
		tool_die(EX_SOFTWARE, "libcurl cannot be initialised");
	if ((conn = pg_etcd_open(cfg)) == NULL)
		tool_die_errno(EX_OSERR, "etcd client");
}

/* Say a failure (not HELD or LOST); the exit status: 3, 76 or EX_OSERR. */
static int
failed(const struct tool *t, enum pg_etcd_result r, const char *doing)
{
	const char	*what = strerror(errno);

	if (r == PG_ETCD_UNREACHABLE)
		what = "etcd unreachable or without quorum";
	else if (r == PG_ETCD_REFUSED)
		what = "refused by etcd (check [etcd] user, password, cert, "
		    "key and cafile)";
	else if (r == PG_ETCD_INVALID)
		what = "etcd answered nonsense";
	tool_error("cluster %s: %s: %s: %s", t->cluster->id, doing, what,
	    r == PG_ETCD_ERROR ? "" : pg_etcd_why(conn));
	return r == PG_ETCD_UNREACHABLE ? 3 : r == PG_ETCD_ERROR ? EX_OSERR :
	    EX_PROTOCOL;
}

/* The client, and this node's lease record: 1 and *l, or 0 (none, bad). */
static int
own_lease(struct tool *t, struct pg_lease *l)
{
	int	 r;

	open_conn(t->cfg);
	if ((r = pg_lease_read(&t->state, t->cluster->id, l)) == -1)
		tool_warn(t, "cluster %s: %s/.%s.lease: %s: ignored",
		    t->cluster->id, t->state.path, t->cluster->id,
		    strerror(errno));
	return r == 1;
}

/* "held by b (lease 7587...; 12s left)", the time left with -v only. */
static int
skip(struct tool *t, const struct pg_etcd_holder *h)
{
	char	 left[32] = "";
	int64_t	 ttl;

	if (t->verbose && pg_etcd_ttl(conn, h->lease, &ttl) == PG_ETCD_OK &&
	    ttl >= 0)
		snprintf(left, sizeof(left), "; %" PRId64 "s left", ttl);
	tool_decided(t, "%s: skip: held by %s (revision %" PRId64 ", lease %"
	    PRId64 "%s)", t->cluster->id, h->node[0] != '\0' ? h->node :
	    "a value that is not pollguard's", h->revision, h->lease, left);
	return 1;
}

int
etcd_check(struct tool *t, int claim)
{
	struct pg_lease		 mine, l;
	struct pg_etcd_holder	 h;
	enum pg_etcd_result	 r;
	const char		*id = t->cluster->id;
	int			 has, found;

	has = own_lease(t, &mine);
	if (!claim) {
		if ((r = pg_etcd_peek(conn, t->cluster, &h, &found)) !=
		    PG_ETCD_OK)
			return failed(t, r, "reading the key");
		if (found && !(has && h.lease == mine.id))
			return skip(t, &h);
		tool_decided(t, "%s: go%s (not claimed: -n)", id, found ?
		    ": this node holds the key" : "");
		return 0;
	}
	r = pg_etcd_claim(conn, t->cluster, t->cfg->node, has ? &mine : NULL,
	    &l, &h);
	if (r == PG_ETCD_HELD) {
		/* A record of a lease that no longer holds the key is stale. */
		if (has && pg_lease_remove(&t->state, id) == -1)
			tool_error("cannot remove %s/.%s.lease: %s",
			    t->state.path, id, tool_strerror(errno));
		return skip(t, &h);
	}
	if (r != PG_ETCD_OK)
		return failed(t, r, "claiming the key");
	if (pg_lease_write(&t->state, id, &l) == -1) {
		tool_error("cannot record the lease in %s/.%s.lease: %s",
		    t->state.path, id, tool_strerror(errno));
		pg_etcd_revoke(conn, l.id);
		return EX_CANTCREAT;
	}
	if (pg_state_touch(&t->state, id) == -1)
		tool_error("cannot record activity in %s/%s: %s",
		    t->state.path, id, tool_strerror(errno));
	tool_decided(t, "%s: go, %s (fencing token %" PRId64 ", lease %" PRId64
	    ", TTL %" PRId64 "s)", id, has && l.id == mine.id ?
	    "this node holds the key" : "claimed", l.revision, l.id, l.ttl_s);
	return 0;
}

/* One keepalive, sent at now, over by the deadline: doc/SAFETY.md, 8. */
static enum pg_etcd_result
keepalive(int64_t now)
{
	enum pg_etcd_result	 r;
	int64_t			 ttl, step;

	if ((r = pg_etcd_keepalive(conn, held.id, deadline, &ttl)) !=
	    PG_ETCD_OK)
		return r;
	deadline = now + ttl * 1000 - stop_margin_ms(ttl * 1000);
	step = MAX(ttl * 1000 / 3, KEEPALIVE_MIN_MS);
	due = MIN(now + step, deadline);
	return r;
}

/* This node must hold the key: keep the lease alive, give the token. */
static void
hold_start(struct tool *t)
{
	enum pg_etcd_result	 r;
	char			 token[24];
	const char		*id = t->cluster->id;
	int64_t			 now;

	if (!own_lease(t, &held))
		tool_die(1, "%s: this node does not hold the key in etcd; "
		    "pollguard-check %s claims it", id, id);
	now = tool_clock_ms(CLOCK_BOOTTIME);
	if ((r = keepalive(now)) != PG_ETCD_OK) {
		if (r == PG_ETCD_LOST) {
			pg_lease_remove(&t->state, id);
			tool_die(1, "%s: this node's lease %" PRId64 " has "
			    "expired: another node may poll now", id, held.id);
		}
		exit(tool_status(failed(t, r, "keeping the lease alive")));
	}
	snprintf(token, sizeof(token), "%" PRId64, held.revision);
	if (setenv("POLLGUARD_FENCING_TOKEN", token, 1) == -1)
		tool_die_errno(EX_OSERR, "setenv");
}

/* Keep the lease alive when due (doc/ETCD.md): 1 once, when it is lost. */
static int
etcd_hold_refresh(struct tool *t, int64_t now)
{
	enum pg_etcd_result	 r = PG_ETCD_UNREACHABLE;

	if (lost || now < due)
		return 0;
	if (now < deadline) {
		if ((r = keepalive(now)) == PG_ETCD_OK)
			return 0;
		/* The try may have taken the time left: the clock again. */
		now = tool_clock_ms(CLOCK_BOOTTIME);
		if (r != PG_ETCD_LOST && now < deadline) {
			tool_warn(t, "cluster %s: keeping the lease alive: "
			    "%s; retrying", t->cluster->id, pg_etcd_why(conn));
			due = MIN(now + KEEPALIVE_MIN_MS, deadline);
			return 0;
		}
	}
	lost = 1;
	tool_error("cluster %s: the lease %" PRId64 " is lost (%s): another "
	    "node may poll now", t->cluster->id, held.id, r == PG_ETCD_LOST ?
	    "etcd says it has expired" : "no keepalive confirmed in time");
	if (pg_lease_remove(&t->state, t->cluster->id) == -1)
		tool_error("cannot remove %s/.%s.lease: %s", t->state.path,
		    t->cluster->id, strerror(errno));
	return 1;
}

/* pollguard-touch -r: revoke the lease (deleting the key) and forget it. */
static void
release(struct tool *t)
{
	struct pg_lease		 l;
	enum pg_etcd_result	 r;
	const char		*id = t->cluster->id;

	if (own_lease(t, &l)) {
		/* The key is on this lease only while this node holds it. */
		r = pg_etcd_revoke(conn, l.id);
		if (r != PG_ETCD_OK && r != PG_ETCD_LOST)
			exit(tool_status(failed(t, r, "revoking the lease")));
		tool_decided(t, "%s: %s", id, r == PG_ETCD_OK ? "released" :
		    "the lease had expired already");
		if (pg_lease_remove(&t->state, id) == -1)
			tool_die_errno(EX_CANTCREAT,
			    "cannot remove %s/.%s.lease", t->state.path, id);
	} else
		tool_decided(t, "%s: this node does not hold the key", id);
}

void
touch_lease_start(struct tool *t, char **argv, int rel, int hold)
{
	(void)argv;
	if (t->cluster->backend == PG_BACKEND_ETCD && rel)
		release(t);
	else if (t->cluster->backend == PG_BACKEND_ETCD && !hold)
		hold_start(t);
}

void
touch_lease_keep(struct tool *t)
{
	/* The lease first: it is what other nodes see. */
	if (t->cluster->backend == PG_BACKEND_ETCD)
		etcd_hold_refresh(t, tool_clock_ms(CLOCK_BOOTTIME));
}

int64_t
touch_lease_lost(struct tool *t, pid_t pid, int64_t now, int reaped,
    int64_t *killat)
{
	static int	 done;

	if (t->cluster->backend != PG_BACKEND_ETCD || done)
		return 0;
	if (!lost && !etcd_hold_refresh(t, now))
		return due;
	done = 1;
	if (reaped || t->cluster->on_lease_lost == PG_LEASE_LOST_WARN)
		return 0;
	tool_error("%s: the lease is lost: SIGTERM to the job's process "
	    "group (on_lease_lost = kill)", t->cluster->id);
	kill(-pid, SIGTERM);
	/* From the SIGTERM: a keepalive may have taken time since now. */
	if (*killat == 0)
		*killat = tool_clock_ms(CLOCK_BOOTTIME) +
		    t->cluster->kill_after_ms;
	return INT64_MIN;
}

void
touch_lease_end(void)
{
	due = 0;
}

void
etcd_fleet(const struct pg_config *cfg, const struct pg_cluster *c,
    struct pg_fleet_node *n)
{
	struct pg_etcd_holder	 h;
	enum pg_etcd_result	 r;
	int64_t			 left;
	int			 found;

	pg_status_init(&n->st);
	n->name = "(etcd)";
	open_conn(cfg);
	if ((r = pg_etcd_peek(conn, c, &h, &found)) == PG_ETCD_OK && found &&
	    (r = pg_etcd_ttl(conn, h.lease, &left)) == PG_ETCD_LOST) {
		found = 0;	/* expired between the two requests */
		r = PG_ETCD_OK;
	}
	if (r != PG_ETCD_OK) {
		n->kind = r == PG_ETCD_UNREACHABLE ? PG_ANSWER_UNREACHABLE :
		    r == PG_ETCD_REFUSED ? PG_ANSWER_REFUSED :
		    PG_ANSWER_INVALID;
		snprintf(n->why, sizeof(n->why), "%s", r == PG_ETCD_ERROR ?
		    strerror(errno) : pg_etcd_why(conn));
		return;
	}
	n->kind = PG_ANSWER_ELAPSED;
	n->has_status = 1;
	if (!found) {
		n->name = NULL;		/* nobody holds the key */
		return;
	}
	if (h.node[0] != '\0' && (n->name = strdup(h.node)) == NULL)
		tool_die_errno(EX_OSERR, "memory");
	/* The key lasts a wait after the holder's last activity. */
	n->st.elapsed_ms = left >= 0 && left * 1000 < c->wait_ms ?
	    c->wait_ms - left * 1000 : 0;
	strlcpy(n->st.cluster, c->id, sizeof(n->st.cluster));
	strlcpy(n->st.node, n->name, sizeof(n->st.node));
}
