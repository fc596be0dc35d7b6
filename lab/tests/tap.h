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
#include <fcntl.h>
#include <unistd.h>
#include "util/fileio.h"
#include "util/run.h"

static int tap_count, tap_failed;
/* Under tap_main(), the counts a case's child has reached, shared with
 * the parent (a case that crashes leaves them where it got to). */
static int *tap_shared;

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
	if (tap_shared) {
		tap_shared[0] = tap_count;
		tap_shared[1] = tap_failed;
	}
	return cond;
}

static inline void tap_skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_count, what, why);
	fflush(stdout);
	if (tap_shared)
		tap_shared[0] = tap_count;
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

/* stderr into path until tap_stderr_back() with the fd returned. */
static inline int tap_stderr_to(const char *path)
{
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	return saved;
}

/* stderr back; what went to path meanwhile (free it). */
static inline char *tap_stderr_back(int saved, const char *path)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return read_text(path, NULL);
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
 * Named test cases (kselftest_harness.h's TEST()): a case is a function
 *
 *	TEST(judge_exact)
 *	{
 *		ok(...);
 *	}
 *
 * and main() is tap_main(argc, argv): every case in the order the file
 * defines them, each in a child process of its own, so a crash (or a
 * sanitizer's abort) fails that case alone ("not ok N - judge_exact:
 * killed by signal 11") and the next one still runs; `-t NAME` (again for
 * more) runs only the cases named, `-l` lists them.  What main() sets up
 * before tap_main() (a temp dir, a fixture) every case inherits; what one
 * case changes, the next does not see.
 */
struct tap_case {
	const char *name;
	void (*fn)(void);
	int line;	/* the order they run in: the compiler lays the section out in any */
};

#define TEST(name)                                                                                              \
	static void tap_case_fn_##name(void);                                                                  \
	static const struct tap_case tap_case_##name __attribute__((used, section("tap_cases"), aligned(8))) = \
		{ #name, tap_case_fn_##name, __LINE__ };                                                         \
	static void tap_case_fn_##name(void)

/* The linker's bounds of the cases' section (none when a file has none). */
extern const struct tap_case __start_tap_cases[] __attribute__((weak));
extern const struct tap_case __stop_tap_cases[] __attribute__((weak));

#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static inline bool tap_case_wanted(const char *name, int argc, char **argv, bool *any_filter)
{
	bool want = false;

	*any_filter = false;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			*any_filter = true;
			want |= !strcmp(argv[++i], name);
		}
	return !*any_filter || want;
}

static inline int tap_case_cmp(const void *a, const void *b)
{
	return (*(const struct tap_case *const *)a)->line - (*(const struct tap_case *const *)b)->line;
}

/* Runs the cases (see TEST above); the exit status of a TAP program. */
static inline int tap_main(int argc, char **argv)
{
	static const struct tap_case *cases[1024];
	const struct tap_case *c;
	size_t n = 0;
	int ran = 0;
	bool filter = false;

	/* GCC lays a file's cases out last first: sort them by line. */
	for (c = __start_tap_cases; c && c < __stop_tap_cases && n < sizeof(cases) / sizeof(cases[0]); c++)
		cases[n++] = c;
	qsort(cases, n, sizeof(cases[0]), tap_case_cmp);
	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "-l")) {
			for (size_t k = 0; k < n; k++)
				printf("%s\n", cases[k]->name);
			return 0;
		}
		if (strcmp(argv[i], "-t") || i + 1 >= argc) {
			fprintf(stderr, "usage: %s [-t CASE]... | -l\n", argv[0]);
			return 2;
		}
	}
	tap_shared = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tap_shared == MAP_FAILED) {
		fprintf(stderr, "%s: mmap: cannot share the counts with the cases\n", argv[0]);
		return 2;
	}
	for (size_t k = 0; k < n; k++) {
		pid_t pid;
		int st;

		c = cases[k];

		if (!tap_case_wanted(c->name, argc, argv, &filter))
			continue;
		ran++;
		fflush(stdout);
		tap_shared[0] = tap_count;
		tap_shared[1] = tap_failed;
		pid = fork();
		if (pid < 0) {
			tap_ok(0, "%s: cannot start (fork failed)", c->name);
			continue;
		}
		if (!pid) {
			tap_diag("case %s", c->name);
			c->fn();
			fflush(stdout);
			exit(0);	/* atexit handlers: the sanitizers' leak check */
		}
		while (waitpid(pid, &st, 0) < 0)
			;
		tap_count = tap_shared[0];
		tap_failed = tap_shared[1];
		if (WIFSIGNALED(st))
			tap_ok(0, "%s: killed by signal %d", c->name, WTERMSIG(st));
		else if (WEXITSTATUS(st))
			tap_ok(0, "%s: exited %d (a sanitizer's report, or an exit() in it)", c->name, WEXITSTATUS(st));
	}
	if (filter && !ran) {
		fprintf(stderr, "%s: no case named so (-l lists them)\n", argv[0]);
		return 2;
	}
	return tap_done();
}

/*
 * Test inputs live in the repository (lab/tests/data: copies of the real
 * recorded samples and the four kernels' BTF, xz-compressed); `make`
 * decompresses the BTF into build/btf/.  Tests run from the lab's root.
 */
#define TEST_DATA "lab/tests/data"
#define TEST_BTF(release) "build/btf/vmlinux-" release ".btf"

#endif
