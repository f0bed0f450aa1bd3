/* SPDX-License-Identifier: ISC */
/* The status answer, formatted by serve, read by check and status. */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vis.h>

#include "proto.h"

/* The longest line read, without its end: a key, a space, a value, a byte. */
#define LINE_LEN	(PG_KV_KEY_MAX + 1 + PG_STATUS_LINE_MAX + 1)
#define MS_MAX		(PG_NEVER - 1)

void
pg_status_init(struct pg_status *st)
{
	memset(st, 0, sizeof(*st));
	st->elapsed_ms = PG_NEVER;
	st->claim_ms = -1;
	st->last_exit = -1;
	st->last_success_ms = PG_NEVER;
	st->deciding = -1;
	st->settle_ms = -1;
	st->timeout_ms = -1;
	st->rate_ppm = -1;
	st->checked_ms = PG_NEVER;
	st->checking_ms = -1;
	st->wait_ms = -1;
}

/* "never" or a number of milliseconds. */
static int
put_ms(char *buf, size_t len, size_t *off, const char *key, int64_t ms)
{
	if (ms == PG_NEVER)
		return pg_appendf(buf, len, off, "%s never\n", key);
	return pg_appendf(buf, len, off, "%s %" PRId64 "\n", key, ms);
}

int
pg_status_format(const struct pg_status *st, char *buf, size_t len)
{
	char	 why[PG_STATUS_TEXT_MAX * 4 + 1];
	size_t	 off = 0;
	int	 r = 0;

	r |= pg_appendf(buf, len, &off, "cluster %s\n", st->cluster);
	if (st->node[0] != '\0')
		r |= pg_appendf(buf, len, &off, "node %s\n", st->node);
	if (st->version[0] != '\0')
		r |= pg_appendf(buf, len, &off, "version %s\n", st->version);
	if (st->nonce[0] != '\0')
		r |= pg_appendf(buf, len, &off, "nonce %s\n", st->nonce);
	r |= put_ms(buf, len, &off, "elapsed", st->elapsed_ms);
	if (st->claim_ms >= 0)
		r |= pg_appendf(buf, len, &off, "claim %" PRId64 "\n",
		    st->claim_ms);
	r |= pg_appendf(buf, len, &off, "running %d\n", st->running ? 1 : 0);
	if (st->running && st->pid > 0)
		r |= pg_appendf(buf, len, &off, "pid %" PRId64 "\n", st->pid);
	if (st->last) {
		if (st->last_signal > 0)
			r |= pg_appendf(buf, len, &off, "last_signal %d\n",
			    st->last_signal);
		else
			r |= pg_appendf(buf, len, &off, "last_exit %d\n",
			    st->last_exit);
		if (st->last_timeout)
			r |= pg_appendf(buf, len, &off, "last_timeout 1\n");
		r |= put_ms(buf, len, &off, "last_duration",
		    st->last_duration_ms);
		r |= put_ms(buf, len, &off, "last_end", st->last_end_ms);
	}
	r |= put_ms(buf, len, &off, "last_success", st->last_success_ms);
	r |= pg_appendf(buf, len, &off, "failures %d\n", st->failures);
	if (st->deciding >= 0) {
		r |= pg_appendf(buf, len, &off, "deciding %s\n", st->deciding ?
		    "yes" : "no");
		r |= pg_appendf(buf, len, &off, "settle %" PRId64 "\n",
		    st->settle_ms);
		r |= pg_appendf(buf, len, &off, "timeout %" PRId64 "\n",
		    st->timeout_ms);
	}
	if (st->rate_ppm >= 0)
		r |= pg_appendf(buf, len, &off, "rate %" PRId64 "\n",
		    st->rate_ppm);
	/* Since 0.5: what pollguard-status -t compares. */
	if (st->wait_ms >= 0)
		r |= pg_appendf(buf, len, &off, "wait %" PRId64 "\n",
		    st->wait_ms);
	if (st->on_failure[0] != '\0')
		r |= pg_appendf(buf, len, &off, "on_failure %s\n",
		    st->on_failure);
	if (st->backend[0] != '\0')
		r |= pg_appendf(buf, len, &off, "backend %s\n", st->backend);
	if (st->hold_ms > 0) {
		r |= pg_appendf(buf, len, &off, "hold %" PRId64 "\n",
		    st->hold_ms);
		if (st->hold_by[0] != '\0')
			r |= pg_appendf(buf, len, &off, "hold_by %s\n",
			    st->hold_by);
		if (st->hold_why[0] != '\0') {
			/* Printable text, all a hold carries, stays as is. */
			strnvis(why, st->hold_why, sizeof(why),
			    VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL |
			    VIS_NOSLASH);
			r |= pg_appendf(buf, len, &off, "hold_why %s\n", why);
		}
	}
	/* pollguard(7), PREFERRED NODE */
	if (st->prefer[0] != '\0')
		r |= pg_appendf(buf, len, &off, "prefer %s\n", st->prefer);
	if (st->checked_ms != PG_NEVER) {
		r |= put_ms(buf, len, &off, "checked", st->checked_ms);
		if (st->checking_ms >= 0)
			r |= put_ms(buf, len, &off, "checking",
			    st->checking_ms);
	}
	if (st->yield[0] != '\0') {
		r |= pg_appendf(buf, len, &off, "yield %s\n", st->yield);
		r |= put_ms(buf, len, &off, "yielded", st->yielded_ms);
	}
	return r == 0 ? (int)off : -1;
}

void
pg_quote(char *dst, size_t dlen, const char *s, size_t n)
{
	char	 raw[25], vis[25 * 4 + 1];
	int	 more = n > 24;

	if (more)
		n = 24;
	/* A NUL-terminated copy: libbsd's strvisx reads s past n. */
	memcpy(raw, s, n);
	raw[n] = '\0';
	strvisx(vis, raw, n, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL |
	    VIS_DQ);
	snprintf(dst, dlen, "\"%s\"%s", vis, more ? "..." : "");
}

/* A value of printable ASCII, no space at either end. */
static int
text(const char *v, char *out, size_t size)
{
	size_t	 n = strlen(v);

	if (n == 0 || n >= size || v[0] == ' ' || v[n - 1] == ' ' ||
	    !pg_bytes_within(v, n, ' ', '~'))
		return -1;
	memcpy(out, v, n + 1);
	return 0;
}

enum key {
	K_CLUSTER, K_NODE, K_VERSION, K_ELAPSED, K_CLAIM, K_RUNNING, K_PID,
	K_LAST_EXIT, K_LAST_SIGNAL, K_LAST_TIMEOUT, K_LAST_DURATION,
	K_LAST_END, K_LAST_SUCCESS, K_FAILURES, K_HOLD, K_HOLD_BY,
	K_HOLD_WHY, K_DECIDING, K_SETTLE, K_TIMEOUT, K_PREFER, K_CHECKED,
	K_CHECKING, K_YIELD, K_YIELDED, K_NONCE, K_RATE, K_WAIT, K_ON_FAILURE,
	K_BACKEND, K_COUNT
};
#define BIT(k)		(1U << (k))	/* a key's bit in pg_kv's seen */
/* The fast rule's keys, which come together. */
#define FAST_KEYS	(BIT(K_DECIDING) | BIT(K_SETTLE) | BIT(K_TIMEOUT))

static const char *const keys[K_COUNT + 1] = {
	"cluster", "node", "version", "elapsed", "claim", "running", "pid",
	"last_exit", "last_signal", "last_timeout", "last_duration",
	"last_end", "last_success", "failures", "hold", "hold_by",
	"hold_why", "deciding", "settle", "timeout", "prefer", "checked",
	"checking", "yield", "yielded", "nonce", "rate", "wait", "on_failure",
	"backend", NULL
};

/* A key's value: a number from min to max (up to T_NEVER), or text. */
enum type { T_NUM, T_NEVER, T_TEXT, T_ID, T_NAME, T_PREFER, T_YESNO,
	T_NONCE, T_WORD };

/* A field of struct pg_status: where, and its size (int or int64_t). */
#define F(f)	offsetof(struct pg_status, f), \
	sizeof(((struct pg_status *)0)->f)

static const struct field {
	enum type	 type;
	size_t		 off, size;
	int64_t		 min, max;
} fields[K_COUNT] = {
	{ T_ID, F(cluster), 0, 0 },
	{ T_NAME, F(node), 0, 0 },
	{ T_TEXT, F(version), 0, 0 },
	{ T_NEVER, F(elapsed_ms), 0, MS_MAX },
	{ T_NUM, F(claim_ms), 0, MS_MAX },
	{ T_NUM, F(running), 0, 1 },
	{ T_NUM, F(pid), 1, INT32_MAX },
	{ T_NUM, F(last_exit), 0, 255 },
	{ T_NUM, F(last_signal), 1, 127 },
	{ T_NUM, F(last_timeout), 0, 1 },
	{ T_NUM, F(last_duration_ms), 0, MS_MAX },
	{ T_NUM, F(last_end_ms), 0, MS_MAX },
	{ T_NEVER, F(last_success_ms), 0, MS_MAX },
	{ T_NUM, F(failures), 0, INT32_MAX },
	{ T_NUM, F(hold_ms), 1, MS_MAX },
	{ T_TEXT, F(hold_by), 0, 0 },
	{ T_TEXT, F(hold_why), 0, 0 },
	{ T_YESNO, F(deciding), 0, 0 },
	{ T_NUM, F(settle_ms), 0, MS_MAX },
	{ T_NUM, F(timeout_ms), 0, MS_MAX },
	{ T_PREFER, F(prefer), 0, 0 },
	{ T_NUM, F(checked_ms), 0, MS_MAX },
	{ T_NUM, F(checking_ms), 0, MS_MAX },
	{ T_NAME, F(yield), 0, 0 },
	{ T_NUM, F(yielded_ms), 0, MS_MAX },
	{ T_NONCE, F(nonce), 0, 0 },
	{ T_NUM, F(rate_ppm), 0, 999999 },
	{ T_NUM, F(wait_ms), 0, MS_MAX },
	{ T_WORD, F(on_failure), 0, 0 },
	{ T_WORD, F(backend), 0, 0 }
};

/* A prefer order: node names joined by commas, nothing else. */
static int
prefer_ok(const char *v)
{
	char	 name[PG_NAME_MAX + 1];
	size_t	 n;

	for (;;) {
		n = strcspn(v, ",");
		if (n == 0 || n > PG_NAME_MAX)
			return 0;
		memcpy(name, v, n);
		name[n] = '\0';
		if (!pg_peer_name_valid(name))
			return 0;
		if (v[n] == '\0')
			return 1;
		v += n + 1;
	}
}

/* A setting's value: a lowercase word, as pollguard.conf(5) spells it. */
static int
word(const char *v)
{
	return v[0] != '\0' && strspn(v, "abcdefghijklmnopqrstuvwxyz_") ==
	    strlen(v);
}

/* One known key's value into st. -1 when the value is not valid. */
static int
value(struct pg_status *st, enum key k, const char *v)
{
	const struct field	*f = &fields[k];
	char			*p = (char *)st + f->off;
	int64_t			 n;

	if (f->type == T_YESNO) {
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
			return -1;
		st->deciding = v[0] == 'y';
		return 0;
	}
	if (f->type > T_NEVER) {
		if ((f->type == T_ID && !pg_cluster_id_valid(v)) ||
		    (f->type == T_NAME && !pg_peer_name_valid(v)) ||
		    (f->type == T_PREFER && !prefer_ok(v)) ||
		    (f->type == T_NONCE && !pg_nonce_valid(v, strlen(v))) ||
		    (f->type == T_WORD && !word(v)))
			return -1;
		return text(v, p, f->size);
	}
	if (f->type == T_NEVER && strcmp(v, "never") == 0)
		n = PG_NEVER;
	else if (pg_kv_num(v, strlen(v), f->min, f->max, &n) == -1)
		return -1;
	if (f->size == sizeof(int))
		*(int *)(void *)p = (int)n;
	else
		*(int64_t *)(void *)p = n;
	return 0;
}

/* -1, the reason: kv's line, and what is wrong with it. */
static int
bad_line(const struct pg_kv *kv, const char *what, char *why, size_t wlen)
{
	char	 q[128];

	pg_quote(q, sizeof(q), kv->line, kv->len);
	snprintf(why, wlen, "line %zu: %s: %s", kv->nline, what, q);
	return -1;
}

/* Why pg_kv_next refused line kv->nline: -1. */
static int
kv_bad(const struct pg_kv *kv, char *why, size_t wlen)
{
	if (kv->error == PG_KV_NO_LF)
		snprintf(why, wlen, "line %zu: no end of line", kv->nline);
	else if (kv->error == PG_KV_TWICE)
		snprintf(why, wlen, "line %zu: %s twice", kv->nline,
		    keys[kv->key]);
	else
		bad_line(kv, kv->error == PG_KV_LONG ? "too long or binary" :
		    "not \"key value\"", why, wlen);
	return -1;
}

int
pg_status_parse(const char *buf, size_t len, struct pg_status *st,
    size_t *used, char *why, size_t wlen)
{
	char		 val[LINE_LEN + 1], what[PG_KV_KEY_MAX + 16];
	const char	*msg;
	struct pg_kv	 kv;
	unsigned int	 seen;
	int		 r;

	pg_status_init(st);
	pg_kv_init(&kv, buf, len, keys, PG_KV_CRLF | PG_KV_BLANK);
	kv.line_max = LINE_LEN;
	while ((r = pg_kv_next(&kv)) == 1) {
		if (kv.nline == 1 && kv.key != K_CLUSTER)
			return bad_line(&kv, "not \"cluster ID\"", why, wlen);
		memcpy(val, kv.val, kv.vlen);
		val[kv.vlen] = '\0';
		if (value(st, kv.key, val) == -1) {
			snprintf(what, sizeof(what), "%s: invalid value",
			    keys[kv.key]);
			return bad_line(&kv, what, why, wlen);
		}
	}
	if (r == -1)
		return kv_bad(&kv, why, wlen);
	seen = kv.seen;
	/* The last run's keys say how it ended. */
	st->last = (seen & (BIT(K_LAST_EXIT) | BIT(K_LAST_SIGNAL))) != 0;
	if (!(seen & BIT(K_CLUSTER)))
		msg = "no cluster";
	else if (!(seen & BIT(K_ELAPSED)))
		msg = "no elapsed";
	else if ((seen & BIT(K_LAST_EXIT)) && (seen & BIT(K_LAST_SIGNAL)))
		msg = "both last_exit and last_signal";
	/* The fast rule needs both settings, to check they agree. */
	else if ((seen & FAST_KEYS) != 0 && (seen & FAST_KEYS) != FAST_KEYS)
		msg = "deciding, settle and timeout go together";
	/* How long checks have gone on is counted from the last one. */
	else if ((seen & BIT(K_CHECKING)) && !(seen & BIT(K_CHECKED)))
		msg = "checking without checked";
	/* A yield says when; a time without whom is nonsense. */
	else if (!(seen & BIT(K_YIELD)) != !(seen & BIT(K_YIELDED)))
		msg = "yield and yielded go together";
	else
		msg = NULL;
	if (msg != NULL) {
		snprintf(why, wlen, "%s", msg);
		return -1;
	}
	if (st->last_signal > 0)
		st->last_exit = -1;
	*used = kv.p - buf;
	return 0;
}

const char *
pg_status_last_text(const struct pg_status *st, char *buf, size_t len)
{
	if (st->last_timeout)
		snprintf(buf, len, "timed out");
	else if (st->last_signal > 0)
		snprintf(buf, len, "signal %d", st->last_signal);
	else
		snprintf(buf, len, "exit %d", st->last_exit);
	return buf;
}

int
pg_status_failed(const struct pg_status *st)
{
	return st->failures > 0 && st->last && !st->running;
}

int
pg_status_cooldown(const struct pg_status *st, int64_t cooldown_ms)
{
	return pg_status_failed(st) && st->last_end_ms < cooldown_ms;
}

int
pg_nonce_valid(const char *s, size_t n)
{
	size_t	 i;

	if (n != PG_NONCE_LEN)
		return 0;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return 0;
	return 1;
}

int
pg_status_fresh(const struct pg_status *st, const char *nonce, char *why,
    size_t wlen)
{
	unsigned int	 major = 0, minor = 0;

	if (st->nonce[0] != '\0') {
		if (strcmp(st->nonce, nonce) == 0)
			return 1;
		/* Not the nonce sent, new each time: one copy, one text. */
		snprintf(why, wlen, "from a cache: its nonce %.8s... is "
		    "another request's; a proxy on the way keeps answers",
		    st->nonce);
		return 0;
	}
	/* 0.5 and later always echo it: none means a cache or a proxy. */
	if (sscanf(st->version, "%u.%u", &major, &minor) != 2 ||
	    (major == 0 && minor < 5))
		return 1;
	snprintf(why, wlen, "from a cache, or through a proxy that drops the "
	    "Pollguard-Nonce field: a %s serve without this request's nonce",
	    st->version);
	return 0;
}
