/* SPDX-License-Identifier: ISC */
/*
 * A tiny TAP producer for the unit tests: no framework, header only.
 *
 *	plan(n);		optional: print "1..n" first
 *	ok(cond, fmt, ...);
 *	is_int(got, want, fmt, ...);
 *	is_str(got, want, fmt, ...);
 *	like(got, part, fmt, ...);	got contains part
 *	diag(fmt, ...);
 *	tap_tmpdir(name);	a new directory under $TMPDIR (or /tmp),
 *				removed with its contents at exit
 *	return done_testing();	prints "1..N" when there was no plan and
 *				returns the exit status: 0 only when every
 *				test passed and the count matches the plan.
 */
#ifndef TAP_H
#define TAP_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAP_UNUSED	__attribute__((__unused__))

static int	tap_run;
static int	tap_failed;
static int	tap_planned = -1;

static void TAP_UNUSED
plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static void TAP_UNUSED
diag(const char *fmt, ...)
{
	va_list	 ap;

	fflush(stdout);
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Print a test name on one line: control characters as \n or \xNN. */
static void
tap_name(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else if (*s == '\t')
			fputs("\\t", stdout);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	}
}

static void
tap_quoted(const char *label, const char *s)
{
	fputs(label, stdout);
	if (s == NULL)
		fputs("(null)", stdout);
	else {
		putchar('"');
		tap_name(s);
		putchar('"');
	}
	putchar('\n');
}

static int
tap_vresult(int pass, const char *fmt, va_list ap)
{
	char	 name[1024];

	tap_run++;
	if (!pass)
		tap_failed++;
	vsnprintf(name, sizeof(name), fmt, ap);
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	tap_name(name);
	printf("\n");
	fflush(stdout);
	return pass;
}

static int TAP_UNUSED
ok(int pass, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	return pass;
}

static int TAP_UNUSED
is_int(long long got, long long want, const char *fmt, ...)
{
	va_list	 ap;
	int	 pass = got == want;

	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#   got: %lld\n#  want: %lld\n", got, want);
	return pass;
}

static int TAP_UNUSED
is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list	 ap;
	int	 pass;

	if (got == NULL || want == NULL)
		pass = got == want;
	else
		pass = strcmp(got, want) == 0;
	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	if (!pass) {
		tap_quoted("#   got: ", got);
		tap_quoted("#  want: ", want);
	}
	return pass;
}

static int TAP_UNUSED
like(const char *got, const char *part, const char *fmt, ...)
{
	va_list	 ap;
	int	 pass;

	pass = got != NULL && part != NULL && strstr(got, part) != NULL;
	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	if (!pass) {
		tap_quoted("#   got: ", got);
		tap_quoted("# wants: ", part);
		printf("#         in it\n");
	}
	return pass;
}

static char	tap_dir[PATH_MAX];

static void TAP_UNUSED
tap_rmdir(void)
{
	char	 cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tap_dir);
	if (tap_dir[0] == '/' && system(cmd) != 0)
		diag("could not remove %s", tap_dir);
}

static TAP_UNUSED const char *
tap_tmpdir(const char *name)
{
	const char	*tmp = getenv("TMPDIR");

	snprintf(tap_dir, sizeof(tap_dir), "%s/%s.XXXXXX",
	    tmp != NULL && tmp[0] == '/' ? tmp : "/tmp", name);
	if (mkdtemp(tap_dir) == NULL) {
		perror(tap_dir);
		exit(1);
	}
	atexit(tap_rmdir);
	return tap_dir;
}

static int TAP_UNUSED
done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_run);
	else if (tap_planned != tap_run)
		printf("# planned %d tests but ran %d\n", tap_planned,
		    tap_run);
	if (tap_failed > 0)
		printf("# failed %d of %d tests\n", tap_failed, tap_run);
	fflush(stdout);
	if (tap_failed > 0 || tap_run == 0 ||
	    (tap_planned >= 0 && tap_planned != tap_run))
		return 1;
	return 0;
}

#endif /* TAP_H */
