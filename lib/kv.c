/* SPDX-License-Identifier: ISC */
/* kv.c: the "key value" format, both ends (base.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

#define KEY_CHARS	"abcdefghijklmnopqrstuvwxyz0123456789_"

int
pg_appendf(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (*off >= len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *off)
		return -1;
	*off += n;
	return 0;
}

int
pg_kv_done(int r, size_t off)
{
	if (r != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return off;
}

void
pg_kv_init(struct pg_kv *kv, const char *buf, size_t len,
    const char *const *keys, int flags)
{
	memset(kv, 0, sizeof(*kv));
	kv->p = buf;
	kv->end = buf + len;
	kv->keys = keys;
	kv->flags = flags;
}

int
pg_kv_begin(struct pg_kv *kv, const char *buf, size_t len, size_t max,
    const char *magic, const char *const *keys, int flags)
{
	size_t	 m = strlen(magic);

	pg_kv_init(kv, buf, len, keys, flags);
	if (len > max || len < m || memcmp(buf, magic, m) != 0)
		return -1;
	kv->p = buf + m;
	kv->nline = 1;
	return 0;
}

static int
kv_error(struct pg_kv *kv, enum pg_kv_error e)
{
	kv->error = e;
	return -1;
}

int
pg_kv_next(struct pg_kv *kv)
{
	const char	*nl, *sp;
	size_t		 n;
	unsigned int	 k;

	while (kv->p < kv->end) {
		kv->nline++;
		kv->line = kv->p;
		if ((nl = memchr(kv->p, '\n', kv->end - kv->p)) == NULL) {
			kv->len = kv->end - kv->p;
			return kv_error(kv, PG_KV_NO_LF);
		}
		n = nl - kv->p;
		kv->p = nl + 1;
		if ((kv->flags & PG_KV_CRLF) && n > 0 &&
		    kv->line[n - 1] == '\r')
			n--;
		kv->len = n;
		if (n == 0 && (kv->flags & PG_KV_BLANK))
			return 0;
		if ((kv->line_max > 0 && n > kv->line_max) ||
		    memchr(kv->line, '\0', n) != NULL)
			return kv_error(kv, PG_KV_LONG);
		/* A key: [a-z0-9_], 1 to PG_KV_KEY_MAX; a space ends it. */
		if ((sp = memchr(kv->line, ' ', n)) == NULL ||
		    sp == kv->line || sp - kv->line > PG_KV_KEY_MAX ||
		    strspn(kv->line, KEY_CHARS) != (size_t)(sp - kv->line))
			return kv_error(kv, PG_KV_SYNTAX);
		for (k = 0; kv->keys[k] != NULL; k++)
			if (strlen(kv->keys[k]) == (size_t)(sp - kv->line) &&
			    memcmp(kv->keys[k], kv->line, sp - kv->line) == 0)
				break;
		if (kv->keys[k] == NULL) {
			if (kv->flags & PG_KV_STRICT)
				return kv_error(kv, PG_KV_UNKNOWN);
			continue;	/* a key of a later version */
		}
		kv->key = k;
		if (kv->seen & (1U << k))
			return kv_error(kv, PG_KV_TWICE);
		kv->seen |= 1U << k;
		kv->val = sp + 1;
		kv->vlen = kv->line + n - kv->val;
		return 1;
	}
	return 0;
}

int
pg_bytes_within(const char *s, size_t n, char lo, char hi)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return 1;
}

int
pg_kv_num(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *v)
{
	char		 digits[20];	/* INT64_MAX has 19 */
	const char	*errstr;

	if (n == 0 || n >= sizeof(digits) || !pg_bytes_within(s, n, '0', '9'))
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	*v = strtonum(digits, lo, hi, &errstr);
	return errstr == NULL ? 0 : -1;
}
