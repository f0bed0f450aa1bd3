/* SPDX-License-Identifier: ISC */
/* ping.c: a dead man's switch's pings, and libcurl's options (monitor.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "monitor.h"

void
pg_ping_rid(char *rid)
{
	static const char	 hex[] = "0123456789abcdef";
	unsigned char		 b[16];
	size_t			 i, j;

	arc4random_buf(b, sizeof(b));
	b[6] = (b[6] & 0x0f) | 0x40;	/* version 4: random */
	b[8] = (b[8] & 0x3f) | 0x80;	/* the RFC 4122 variant */
	for (i = j = 0; i < sizeof(b); i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			rid[j++] = '-';
		rid[j++] = hex[b[i] >> 4];
		rid[j++] = hex[b[i] & 0x0f];
	}
	rid[j] = '\0';
}

int
pg_ping_url(char *buf, size_t len, const char *base, int event,
    const char *rid)
{
	char	 ev[8] = "start";
	size_t	 n = strlen(base);
	int	 r;

	if (event != PG_PING_START && (event < 0 || event > 255)) {
		errno = EINVAL;
		return -1;
	}
	while (n > 0 && base[n - 1] == '/')
		n--;
	if (event != PG_PING_START)
		snprintf(ev, sizeof(ev), "%d", event);
	r = snprintf(buf, len, "%.*s/%s?rid=%s", (int)n, base, ev, rid);
	if (r < 0 || (size_t)r >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

void
pg_ping_host(char *buf, size_t len, const char *url)
{
	const char	*host;

	if ((host = strstr(url, "://")) == NULL) {
		strlcpy(buf, url, len);
		return;
	}
	host += 3;
	snprintf(buf, len, "%.*s", (int)strcspn(host, "/"), host);
}

void
pg_curl_setup(void *x, const char *url, int64_t connect_ms, int64_t ms,
    int64_t max, size_t (*fn)(char *, size_t, size_t, void *), void *arg,
    char *err, const char *agent)
{
	curl_easy_setopt(x, CURLOPT_URL, url);
	curl_easy_setopt(x, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(x, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(x, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x, CURLOPT_CONNECTTIMEOUT_MS, (long)connect_ms);
	curl_easy_setopt(x, CURLOPT_TIMEOUT_MS, (long)ms);
	curl_easy_setopt(x, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	curl_easy_setopt(x, CURLOPT_WRITEFUNCTION, fn);
	curl_easy_setopt(x, CURLOPT_WRITEDATA, arg);
	curl_easy_setopt(x, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(x, CURLOPT_USERAGENT, agent);
	/* Verification stays on (libcurl's default), whatever the URL. */
	curl_easy_setopt(x, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(x, CURLOPT_SSL_VERIFYHOST, 2L);
}

/* Count the answer's bytes and drop them; more than the cap ends it. */
static size_t
on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	size_t	*got = arg, n = size * nmemb;

	(void)p;
	if (n > PG_PING_BODY_MAX - *got)
		return 0;
	*got += n;
	return n;
}

int
pg_ping_send(const char *url, int64_t timeout_ms, char *why, size_t len)
{
	static int	 ready;
	char		 err[CURL_ERROR_SIZE] = "";
	CURL		*x;
	CURLcode	 rc;
	long		 status = 0;
	size_t		 got = 0;

	if (!ready && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(why, len, "libcurl cannot be initialised");
		return -1;
	}
	ready = 1;
	if ((x = curl_easy_init()) == NULL) {
		snprintf(why, len, "libcurl: out of memory");
		return -1;
	}
#if LIBCURL_VERSION_NUM >= 0x075700
	/* A name server that does not answer must not hold us past the end. */
	curl_easy_setopt(x, CURLOPT_QUICK_EXIT, 1L);
#endif
	pg_curl_setup(x, url, timeout_ms, timeout_ms, PG_PING_BODY_MAX,
	    on_body, &got, err, "pollguard-touch/" PG_VERSION);
	rc = curl_easy_perform(x);
	curl_easy_getinfo(x, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(x);
	/* A long answer was cut short: the status line still counts. */
	if (rc == CURLE_OK || rc == CURLE_WRITE_ERROR ||
	    rc == CURLE_FILESIZE_EXCEEDED) {
		if (status >= 200 && status <= 299)
			return 0;
		snprintf(why, len, "HTTP status %ld", status);
	} else
		snprintf(why, len, "%s", err[0] != '\0' ? err :
		    curl_easy_strerror(rc));
	return -1;
}
