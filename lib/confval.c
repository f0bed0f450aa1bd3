/* SPDX-License-Identifier: ISC */
/*
 * confval.c: values of pollguard.conf(5) that are checked on their own:
 * URLs and their host names, user names, and the address ranges of
 * [serve] allow, with the match of a client's address against one.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf-int.h"

/* c is a byte of set (never the terminating NUL). */
static int
in_set(int c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

/* Why a value is wrong, for people: returns -1. */
static int __attribute__((__format__(__printf__, 3, 4)))
bad(char *why, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

#define ALNUM	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
		"0123456789"
#define HEX	"0123456789ABCDEFabcdef"

/*
 * An RFC 1123 host name: labels of 1 to 63 letters, digits and '-', not
 * starting or ending with '-', joined by '.', at most 253 characters in
 * all. The last label is not all digits, so that a name never looks like
 * an address (RFC 1123 2.1).
 */
static int
host_name_valid(const char *s, size_t n)
{
	size_t	 i, label = 0, digits = 0;

	if (n == 0 || n > 253)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = digits = 0;
			continue;
		}
		if (!in_set(s[i], ALNUM "-") || (s[i] == '-' && label == 0) ||
		    ++label > 63)
			return 0;
		if (in_set(s[i], "0123456789"))
			digits++;
	}
	return label > 0 && s[n - 1] != '-' && digits < label;
}

/* The host of a URL, n bytes at s; 0, or -1 and why it is wrong. */
static int
url_host(const char *s, size_t n, char *why, size_t len)
{
	char		 host[256];
	unsigned char	 buf[sizeof(struct in6_addr)];
	struct in_addr	 in;

	if (n == 0)
		return bad(why, len, "no host");
	if (n >= sizeof(host))
		return bad(why, len, "host longer than 253 characters");
	memcpy(host, s, n);
	host[n] = '\0';
	if (host[0] == '[') {
		host[n - 1] = '\0';
		if (n < 3 || s[n - 1] != ']' ||
		    inet_pton(AF_INET6, host + 1, buf) != 1)
			return bad(why, len, "'%.*s' is not an IPv6 address in "
			    "brackets", (int)n, s);
		return 0;
	}
	if (inet_pton(AF_INET, host, buf) == 1)
		return 0;
	/* The resolver would read "127.1" or "0x7f.0.0.1" as an address. */
	if (inet_aton(host, &in) != 0 ||
	    strspn(host, "0123456789.") == n)
		return bad(why, len, "'%s' is not an IPv4 address of four "
		    "decimal numbers 0 to 255 without leading zeros", host);
	if (!host_name_valid(host, n))
		return bad(why, len, "'%s' is not a host name (labels of 1 to "
		    "63 letters, digits and '-' joined by '.'), an IPv4 "
		    "address or an [IPv6] address", host);
	return 0;
}

/*
 * A base URL (a peer's url, an etcd endpoint, a ping): http:// or
 * https://, a host, an optional port from 1 to 65535 and an optional path
 * of RFC 3986 characters and %XX escapes. No user information, query or
 * fragment: credentials have their own keys and a path is appended
 * (/v1/elapsed/CLUSTER, /v3/kv/txn, /start). Control characters were
 * refused before. 0, or -1 and why it is wrong.
 */
int
conf_url_check(const char *url, char *why, size_t len)
{
	const char	*host, *end, *port, *path, *errstr;
	char		 num[6];
	size_t		 n;

	if (strncasecmp(url, "http://", 7) == 0)
		host = url + 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		host = url + 8;
	else
		return bad(why, len, "does not start with http:// or https://");
	if (strchr(url, ' ') != NULL)
		return bad(why, len, "white space");
	if (strpbrk(url, "?#") != NULL)
		return bad(why, len, "a query or fragment ('?' or '#'); "
		    "pollguard appends a path to this URL");
	path = host + strcspn(host, "/");
	if (memchr(host, '@', path - host) != NULL)
		return bad(why, len, "user information (user@); credentials "
		    "go in user and password");
	/* The port's ':' is the last one outside an IPv6 address. */
	end = host[0] == '[' ? memchr(host, ']', path - host) : host;
	if (end == NULL)
		return bad(why, len, "'[' without ']'");
	end += strcspn(end, ":/");
	if (url_host(host, end - host, why, len) == -1)
		return -1;
	if (*end == ':') {
		port = end + 1;
		n = path - port;
		if (n == 0)
			return bad(why, len, "':' without a port");
		if (n > 5 || strspn(port, "0123456789") != n)
			return bad(why, len, "port '%.*s' is not a number from "
			    "1 to 65535", (int)n, port);
		memcpy(num, port, n);
		num[n] = '\0';
		strtonum(num, 1, 65535, &errstr);
		if (errstr != NULL)
			return bad(why, len, "port %s is not from 1 to 65535",
			    num);
	}
	for (; *path != '\0'; path++) {
		if (in_set(*path, ALNUM "-._~!$&'()*+,;=:@/"))
			continue;
		if (*path == '%' && in_set(path[1], HEX) &&
		    in_set(path[2], HEX)) {
			path += 2;
			continue;
		}
		if (*path == '%')
			return bad(why, len, "'%%' in the path is not followed "
			    "by two hex digits");
		if ((unsigned char)*path < 0x80)
			return bad(why, len, "'%c' in the path must be written "
			    "%%%02X", *path, (unsigned char)*path);
		return bad(why, len, "byte 0x%02X in the path must be written "
		    "%%%02X", (unsigned char)*path, (unsigned char)*path);
	}
	return 0;
}


int
pg_net_parse(const char *s, struct pg_net *net)
{
	static const unsigned char v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	char		 addr[INET6_ADDRSTRLEN];
	const char	*slash, *errstr;
	unsigned int	 max, i;
	size_t		 n;

	memset(net, 0, sizeof(*net));
	slash = strchr(s, '/');
	n = slash != NULL ? (size_t)(slash - s) : strlen(s);
	if (n == 0 || n >= sizeof(addr))
		return -1;
	memcpy(addr, s, n);
	addr[n] = '\0';
	net->family = strchr(addr, ':') != NULL ? AF_INET6 : AF_INET;
	max = net->family == AF_INET6 ? 128 : 32;
	if (inet_pton(net->family, addr, net->addr) != 1)
		return -1;
	net->prefix = max;
	if (slash != NULL) {
		if (strspn(slash + 1, "0123456789") != strlen(slash + 1))
			return -1;
		net->prefix = strtonum(slash + 1, 0, max, &errstr);
		if (errstr != NULL)
			return -1;
	}
	/*
	 * ::ffff:a.b.c.d: an IPv4 client, which pollguard-serve sees as
	 * a.b.c.d (conn.c): kept as that, or it would never match.
	 */
	if (net->family == AF_INET6 &&
	    memcmp(net->addr, v4mapped, sizeof(v4mapped)) == 0) {
		if (net->prefix < 96) {
			errno = EDOM;
			return -1;
		}
		net->family = AF_INET;
		net->prefix -= 96;
		memmove(net->addr, net->addr + 12, 4);
		memset(net->addr + 4, 0, 12);
		max = 32;
	}
	for (i = net->prefix; i < max; i++)
		net->addr[i / 8] &= ~(0x80 >> (i % 8));
	return 0;
}

int
pg_net_match(const struct pg_net *net, int family, const void *addr)
{
	const unsigned char	*a = addr;
	unsigned int		 full = net->prefix / 8, rest = net->prefix % 8;

	if (family != net->family)
		return 0;
	if (memcmp(a, net->addr, full) != 0)
		return 0;
	return rest == 0 ||
	    ((a[full] ^ net->addr[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}
