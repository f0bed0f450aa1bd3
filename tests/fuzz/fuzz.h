/* SPDX-License-Identifier: ISC */
/*
 * Shared by the libFuzzer targets in tests/fuzz: a broken invariant is a
 * crash (abort), which libFuzzer reports and saves the input of.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_UNUSED	__attribute__((__unused__))

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);
/* Optional: the targets that set something up once define it. */
int	 LLVMFuzzerInitialize(int *, char ***);

FUZZ_UNUSED static void __attribute__((__noreturn__, __format__(__printf__,
    3, 4)))
fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "%s:%d: invariant broken: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* check(cond, "what", ...): abort with the message when cond is false. */
#define check(cond, ...) do {						\
	if (!(cond))							\
		fuzz_fail(__FILE__, __LINE__, __VA_ARGS__);		\
} while (0)

/* An exact-size heap copy: ASan reports any read past its end. */
FUZZ_UNUSED static char *
fuzz_copy(const uint8_t *data, size_t len)
{
	char	*p;

	if ((p = malloc(len)) == NULL)
		abort();
	if (len > 0)
		memcpy(p, data, len);
	return p;
}

/* The same with a NUL after it, for functions that take strings. */
FUZZ_UNUSED static char *
fuzz_str(const uint8_t *data, size_t len)
{
	char	*p;

	if ((p = malloc(len + 1)) == NULL)
		abort();
	if (len > 0)
		memcpy(p, data, len);
	p[len] = '\0';
	return p;
}

/* No control characters (tab neither): safe for a terminal or syslog. */
FUZZ_UNUSED static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* A NUL within the first len bytes. */
FUZZ_UNUSED static int
terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

#endif /* FUZZ_H */
