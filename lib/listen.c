/* SPDX-License-Identifier: ISC */
/* The address pollguard-serve listens on, for -l and listen (serve.h). */
#include <sys/resource.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve.h"

int
pg_listen_parse(const char *spec, void *ssp, const char **errstr)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	char			 host[INET6_ADDRSTRLEN + 2];
	const char		*colon, *e;
	size_t			 n;
	int			 port;

	*errstr = "not [addr]:port";
	if ((colon = strrchr(spec, ':')) == NULL ||
	    (n = colon - spec) >= sizeof(host))
		return -1;
	port = strtonum(colon + 1, 0, 65535, &e);
	if (colon[1] == '\0' || strspn(colon + 1, "0123456789") !=
	    strlen(colon + 1))
		e = "port missing or not a number";
	else if (e != NULL)
		e = "port out of range";
	if ((*errstr = e) != NULL)
		return -1;
	memcpy(host, spec, n);
	host[n] = '\0';
	memset(&ss, 0, sizeof(ss));
	if (n > 0 && host[0] == '[') {
		*errstr = "not an IPv6 address";
		if (n < 3 || host[n - 1] != ']')
			return -1;
		host[n - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &sin6->sin6_addr) != 1)
			return -1;
		ss.ss_family = AF_INET6;
	} else if (n > 0) {
		*errstr = "not an IPv4 address";
		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			return -1;
		ss.ss_family = AF_INET;
	} else
		ss.ss_family = AF_INET6; /* all addresses, both families */
	if (ss.ss_family == AF_INET6)
		sin6->sin6_port = htons(port);
	else
		sin->sin_port = htons(port);
	memcpy(ssp, &ss, sizeof(ss));
	*errstr = NULL;
	return 0;
}

int
pg_listen_open(const char *spec, int backlog, char *name, size_t nlen,
    char *err, size_t elen)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	char			 addr[INET6_ADDRSTRLEN];
	const char		*errstr, *what = "socket";
	socklen_t		 len;
	in_port_t		 port;
	int			 fd, on = 1, off = 0, any = spec[0] == ':';
	int			 flags = SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC;

	if (pg_listen_parse(spec, &ss, &errstr) == -1) {
		snprintf(err, elen, "listen: '%s': %s", spec, errstr);
		errno = EINVAL;
		return -1;
	}
	fd = socket(ss.ss_family, flags, 0);
	if (fd == -1 && any && errno == EAFNOSUPPORT) {
		port = sin6->sin6_port;
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = AF_INET;
		sin->sin_port = port;
		fd = socket(AF_INET, flags, 0);
	}
	if (fd == -1)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ss.ss_family == AF_INET6 && any)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	len = ss.ss_family == AF_INET6 ? sizeof(*sin6) : sizeof(*sin);
	what = "listen on";
	if (bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    listen(fd, backlog) == -1)
		goto fail;
	len = sizeof(ss);
	what = "getsockname";
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		goto fail;
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, addr, sizeof(addr));
		snprintf(name, nlen, "[%s]:%u", addr, ntohs(sin6->sin6_port));
	} else {
		inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof(addr));
		snprintf(name, nlen, "%s:%u", addr, ntohs(sin->sin_port));
	}
	return fd;
fail:
	snprintf(err, elen, "%s%s%s: %s", what, what[0] == 'l' ? " " : "",
	    what[0] == 'l' ? spec : "", strerror(errno));
	if (fd != -1)
		close(fd);
	return -1;
}

uint64_t
pg_listen_nofile(uint64_t want)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return want;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ?
	    rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		getrlimit(RLIMIT_NOFILE, &rl);
	return rl.rlim_cur;
}
