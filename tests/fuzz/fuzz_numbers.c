/* SPDX-License-Identifier: ISC */
/*
 * Fuzz target: the library's parsers of numbers and short strings. The
 * first byte of the input picks one, the rest is its input (as an
 * exact-size heap copy, NUL-terminated for those that take strings):
 *
 *	0  pg_duration_parse, bounds picked by the second byte, checked
 *	   against an independent reading in 128-bit arithmetic, and
 *	   pg_duration_format of what it returns
 *	1  pg_duration_format of 8 bytes as a number, into buffers of every
 *	   size up to 40
 *	2  pg_net_parse (allow lists) and pg_net_match
 *	3  pg_stamp_parse (state records): what it accepts formats and
 *	   parses back to the same record
 *	4  pg_answer_parse's number: the body of a 200 answer, checked
 *	   against an independent reading (more than 23 digits, even
 *	   with leading zeros, are not a number: serve never sends them)
 *	5  pg_cluster_id_valid and pg_peer_name_valid, against the rule in
 *	   pollguard.h, and pg_base64 against a decoder
 */
#include <sys/socket.h>

#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>

#include "pollguard.h"
#include "fuzz.h"

/* The digits and unit of a duration, read without the library: 0 when
 * the syntax is wrong, else 1 and the value (capped) in *v. */
static int
read_duration(const char *s, __int128 *v)
{
	static const struct {
		const char	*unit;
		int64_t		 ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
		{ "d", 86400000 }, { "", 1000 }
	};
	__int128	 n = 0;
	size_t		 i, len;

	for (len = 0; isdigit((unsigned char)s[len]); len++)
		if ((n = n * 10 + (s[len] - '0')) > ((__int128)1 << 100))
			n = (__int128)1 << 100;
	if (len == 0 || len > 23)
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(s + len, units[i].unit) == 0) {
			*v = n * units[i].ms;
			return 1;
		}
	return 0;
}

static void
duration_parse(const uint8_t *data, size_t size)
{
	static const int64_t	 bounds[][2] = {
		{ 0, INT64_MAX }, { PG_WAIT_MIN_MS, PG_WAIT_MAX_MS },
		{ 100, 60000 }, { 10, 60000 }, { 0, 10000 }, { 1, 1 },
	};
	const char	*errstr = "unset";
	char		*s, buf[32], *unit;
	int64_t		 min, max, ms = -42, back = -1, tol;
	__int128	 want;
	int		 r, valid;

	if (size < 1)
		return;
	min = bounds[data[0] % 6][0];
	max = bounds[data[0] % 6][1];
	s = fuzz_str(data + 1, size - 1);
	r = pg_duration_parse(s, min, max, &ms, &errstr);
	valid = read_duration(s, &want);
	if (r == 0) {
		check(errstr == NULL, "success with errstr %s", errstr);
		check(valid && want == ms, "'%s' read as %" PRId64, s, ms);
		check(ms >= min && ms <= max, "%" PRId64 " out of bounds", ms);
		check(pg_duration_format(ms, buf, sizeof(buf)) == 0,
		    "cannot format %" PRId64, ms);
		/*
		 * A single whole unit ("250ms", "2h") reads back, short by
		 * less than the next smaller unit, which it leaves out.
		 */
		unit = buf + strspn(buf, "0123456789");
		if (unit > buf && strpbrk(unit, "0123456789.") == NULL) {
			tol = strcmp(unit, "d") == 0 ? 3600000 :
			    strcmp(unit, "h") == 0 ? 60000 :
			    strcmp(unit, "m") == 0 ? 1000 :
			    strcmp(unit, "s") == 0 ? 100 : 1;
			check(pg_duration_parse(buf, 0, INT64_MAX, &back,
			    &errstr) == 0 && back <= ms && ms - back < tol,
			    "'%s' reads back as %" PRId64 ", not %" PRId64,
			    buf, back, ms);
		}
	} else {
		check(r == -1, "returned %d", r);
		check(errstr != NULL, "failure without errstr");
		if (!valid)
			check(strcmp(errstr, "invalid") == 0, "'%s': %s", s,
			    errstr);
		else if (want < min)
			check(strcmp(errstr, "too small") == 0, "'%s': %s", s,
			    errstr);
		else
			check(want > max && strcmp(errstr, "too large") == 0,
			    "'%s' (%lld..%lld): %s", s, (long long)min,
			    (long long)max, errstr);
	}
	free(s);
}

static void
duration_format(const uint8_t *data, size_t size)
{
	char		 big[64], *small;
	int64_t		 ms;
	size_t		 len;
	int		 r;

	if (size < 8)
		return;
	memcpy(&ms, data, 8);
	if (size > 8 && (data[8] & 1))
		ms = ms < 0 ? -(ms + 1) : ms;	/* mostly non-negative */
	if (size > 8 && (data[8] & 2))
		ms %= 100LL * 24 * 3600 * 1000;
	r = pg_duration_format(ms, big, sizeof(big));
	check(r == (ms < 0 && ms != PG_NEVER ? -1 : 0), "format %" PRId64
	    ": %d", ms, r);
	if (r == -1)
		return;
	check(terminated(big, sizeof(big)) && printable(big) && big[0] !=
	    '\0', "format %" PRId64, ms);
	for (len = 1; len <= 40; len++) {
		small = malloc(len);
		r = pg_duration_format(ms, small, len);
		if (strlen(big) < len)
			check(r == 0 && strcmp(small, big) == 0,
			    "%zu bytes: '%.*s'", len, (int)len, small);
		else
			check(r == -1 && errno == ENAMETOOLONG,
			    "%zu bytes for '%s': %d", len, big, r);
		free(small);
	}
}

static void
net(const uint8_t *data, size_t size)
{
	static const unsigned char v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	struct pg_net	 n;
	unsigned char	 a[16];
	char		*s, addr[64];
	const char	*slash;
	unsigned int	 max, i;
	size_t		 alen;

	s = fuzz_str(data, size);
	if (pg_net_parse(s, &n) == 0) {
		check(n.family == AF_INET || n.family == AF_INET6, "family");
		max = n.family == AF_INET ? 32 : 128;
		check(n.prefix <= max, "prefix %u", n.prefix);
		for (i = n.prefix; i < max; i++)
			check((n.addr[i / 8] & (0x80 >> (i % 8))) == 0,
			    "host bit %u of '%s'", i, s);
		check(pg_net_match(&n, n.family, n.addr), "'%s' misses "
		    "itself", s);
		check(!pg_net_match(&n, n.family == AF_INET ? AF_INET6 :
		    AF_INET, n.addr), "'%s' matches the other family", s);
		/* The address part is one inet_pton accepts. */
		slash = strchr(s, '/');
		alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
		check(alen < sizeof(addr), "address of %zu bytes", alen);
		memcpy(addr, s, alen);
		addr[alen] = '\0';
		if (n.family == AF_INET && strchr(addr, ':') != NULL)
			/* ::ffff:a.b.c.d, kept as the IPv4 address it maps */
			check(inet_pton(AF_INET6, addr, a) == 1 &&
			    memcmp(a, v4mapped, sizeof(v4mapped)) == 0 &&
			    (n.prefix < 32 || memcmp(a + 12, n.addr, 4) == 0),
			    "'%s' read as IPv4, not as the address it maps", s);
		else
			check(inet_pton(n.family, addr, a) == 1, "'%s' "
			    "accepted", s);
		/* Every address within the range matches. */
		if (size >= 16) {
			memcpy(a, data + size - 16, 16);
			for (i = 0; i < n.prefix; i++)
				a[i / 8] = (a[i / 8] & ~(0x80 >> (i % 8))) |
				    (n.addr[i / 8] & (0x80 >> (i % 8)));
			check(pg_net_match(&n, n.family, a), "'%s': an "
			    "address in the range does not match", s);
			if (n.prefix > 0) {
				i = n.prefix - 1;
				a[i / 8] ^= 0x80 >> (i % 8);
				check(!pg_net_match(&n, n.family, a), "'%s': "
				    "an address outside matches", s);
			}
		}
	}
	free(s);
}

static void
stamp(const uint8_t *data, size_t size)
{
	struct pg_stamp	 st, back;
	char		*buf, out[PG_RECORD_MAX + 1];
	int		 n;

	buf = fuzz_copy(data, size);
	memset(&st, 0x5a, sizeof(st));
	if (pg_stamp_parse(buf, size, &st) == -1) {
		check(errno == EBADMSG, "errno %d", errno);
		check(st.boot_id[0] == '\0' && st.mono_ns == 0 &&
		    st.claim_ns == 0, "a failed parse left data");
		free(buf);
		return;
	}
	check(size <= PG_RECORD_MAX, "record of %zu bytes", size);
	check(terminated(st.boot_id, sizeof(st.boot_id)) &&
	    (st.boot_id[0] == '\0' || strlen(st.boot_id) == PG_BOOT_ID_LEN),
	    "boot id");
	check(st.mono_ns >= 0 && st.wall_ns >= 0 && st.claim_ns >= 0 &&
	    st.horizon_ms >= 0, "negative times");
	check(st.claim_ns == 0 || (st.claim_ns <= st.mono_ns &&
	    st.horizon_ms <= PG_WAIT_MAX_MS), "claim out of range");
	n = pg_stamp_format(&st, out, sizeof(out));
	check(n > 0 && (size_t)n < sizeof(out), "cannot format: %d", n);
	check(pg_stamp_parse(out, n, &back) == 0, "does not parse back: %s",
	    out);
	check(memcmp(&st, &back, sizeof(st)) == 0, "parses back different: "
	    "%s", out);
	free(buf);
}

static void
answer(const uint8_t *data, size_t size)
{
	struct pg_answer	 a;
	char			*body, why[160];
	__int128		 v = 0;
	size_t			 n, i;
	int			 digits = 1;

	body = fuzz_copy(data, size);
	pg_answer_parse(200, size % 2 ? NULL : "text/plain", body, size, 0,
	    &a, why, sizeof(why));
	check(terminated(why, sizeof(why)) && printable(why), "why: %s", why);
	/* The rule in pollguard.h, read independently. */
	n = size;
	if (n > 0 && data[n - 1] == '\n') {
		n--;
		if (n > 0 && data[n - 1] == '\r')
			n--;
	}
	for (i = 0; i < n; i++) {
		if (!isdigit(data[i]))
			digits = 0;
		else if (v < ((__int128)1 << 80))
			v = v * 10 + (data[i] - '0');
	}
	if (size > PG_ANSWER_MAX)
		check(a.kind == PG_ANSWER_INVALID, "%zu bytes accepted", size);
	else if (n == 5 && memcmp(data, "never", 5) == 0)
		check(a.kind == PG_ANSWER_NEVER && a.elapsed_ms == PG_NEVER,
		    "never: kind %d", (int)a.kind);
	else if (n > 0 && n < 24 && digits && v <= PG_NEVER - 1)
		check(a.kind == PG_ANSWER_ELAPSED && a.elapsed_ms == v,
		    "%s: kind %d, %lld", why, (int)a.kind,
		    (long long)a.elapsed_ms);
	else
		check(a.kind == PG_ANSWER_INVALID && a.elapsed_ms == 0,
		    "%s: kind %d", why, (int)a.kind);
	free(body);
}

static int
b64val(int c)
{
	const char	*b = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789+/", *p;

	return c != '\0' && (p = strchr(b, c)) != NULL ? (int)(p - b) : -1;
}

static void
names(const uint8_t *data, size_t size)
{
	char	*s, *enc, dec[64];
	size_t	 i, n, want, o;
	int	 ok, r, v[4], k;

	s = fuzz_str(data, size);
	n = strlen(s);
	ok = n >= 1 && n <= PG_NAME_MAX && s[0] != '.' && s[0] != '-';
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '_' && s[i] != '-')
			ok = 0;
	check(pg_cluster_id_valid(s) == ok, "cluster ID '%s' %s", s,
	    ok ? "refused" : "accepted");
	check(pg_peer_name_valid(s) == ok, "peer name '%s' %s", s,
	    ok ? "refused" : "accepted");
	free(s);

	/* Base64 of up to 48 bytes into every buffer size around the need. */
	n = size > 48 ? 48 : size;
	want = (n + 2) / 3 * 4;
	for (i = want > 2 ? want - 2 : 0; i <= want + 2; i++) {
		if ((enc = malloc(i)) == NULL)	/* exactly i bytes */
			abort();
		r = pg_base64(data, n, enc, i);
		if (i <= want) {
			check(r == -1, "%zu bytes into %zu: %d", n, i, r);
			free(enc);
			continue;
		}
		check(r == (int)want && strlen(enc) == want, "length %d", r);
		for (o = 0, k = 0; k < r; k += 4) {
			v[0] = b64val(enc[k]);
			v[1] = b64val(enc[k + 1]);
			v[2] = enc[k + 2] == '=' ? 0 : b64val(enc[k + 2]);
			v[3] = enc[k + 3] == '=' ? 0 : b64val(enc[k + 3]);
			check(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0,
			    "bad character in %s", enc);
			dec[o++] = v[0] << 2 | v[1] >> 4;
			if (enc[k + 2] != '=')
				dec[o++] = (v[1] & 15) << 4 | v[2] >> 2;
			if (enc[k + 3] != '=')
				dec[o++] = (v[2] & 3) << 6 | v[3];
		}
		check(o == n && memcmp(dec, data, n) == 0, "%s decodes "
		    "differently", enc);
		free(enc);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0] % 6) {
	case 0:
		duration_parse(data + 1, size - 1);
		break;
	case 1:
		duration_format(data + 1, size - 1);
		break;
	case 2:
		net(data + 1, size - 1);
		break;
	case 3:
		stamp(data + 1, size - 1);
		break;
	case 4:
		answer(data + 1, size - 1);
		break;
	default:
		names(data + 1, size - 1);
		break;
	}
	return 0;
}
