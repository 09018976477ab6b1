/*
 * tap.h - a tiny TAP producer for unit tests; `prove` reads its output.
 *
 * Each test file defines main(), calls ok()/is_str()/is_int() and ends
 * with `return tap_done();`, which prints the plan and returns non-zero
 * when any check failed.
 */
#ifndef SBX_TAP_H
#define SBX_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
	tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 4, 5), unused))
static int tap_ok(int pass, const char *file, int line, const char *fmt, ...);

#include <stdarg.h>

__attribute__((unused))
static int
tap_vok(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	tap_n++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s line %d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

__attribute__((unused))
static int
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 5, 6), unused))
static int
tap_is_int(long long got, long long want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(got == want, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#   got %lld, want %lld\n", got, want);
	return r;
}

__attribute__((format(printf, 5, 6), unused))
static int
tap_is_str(const char *got, const char *want, const char *file, int line,
    const char *fmt, ...)
{
	va_list ap;
	int pass = got && want ? strcmp(got, want) == 0 : got == want;
	int r;

	va_start(ap, fmt);
	r = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!r)
		printf("#   got \"%s\"\n#  want \"%s\"\n", got ? got : "(null)",
		    want ? want : "(null)");
	return r;
}

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
