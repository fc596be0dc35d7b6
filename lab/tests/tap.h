/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for the lab's C tests (kselftest style: pass, fail,
 * skip with a reason).  The plan is printed at the end (done_testing).
 */
#ifndef LAB_TESTS_TAP_H
#define LAB_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/run.h"

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

static inline void tap_skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_count, what, why);
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Skips the whole program (kselftest's "1..0 # SKIP"). */
static inline void tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

/* Removes a test's own temporary tree (rm -rf from an argv); 0 when gone. */
static inline int tap_rm_rf(const char *dir)
{
	struct run_result r;

	free(run_capture_argv((const char *const[]){ "rm", "-rf", "--", dir, NULL }, RUN_STDERR_MERGE, &r));
	free(r.err);
	return r.status;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)
#define is_int(got, want, ...) \
	(tap_ok((long long)(got) == (long long)(want), __VA_ARGS__) || \
	 (tap_diag("  got %lld, want %lld", (long long)(got), (long long)(want)), 0))

/*
 * Test inputs live in the repository (lab/tests/data: copies of the real
 * recorded samples and the four kernels' BTF, xz-compressed); `make`
 * decompresses the BTF into build/btf/.  Tests run from the lab's root.
 */
#define TEST_DATA "lab/tests/data"
#define TEST_BTF(release) "build/btf/vmlinux-" release ".btf"

#endif
