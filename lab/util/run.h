/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a program and reading what it prints: from an argv, never through
 * a shell, so no path, name or option value the lab was given can become a
 * command.  Every program the lab runs for its output (pahole, perf's
 * version and capabilities, gnuplot, git) goes through here.
 *
 *	char *file = path_arg(p);
 *	const char *argv[] = { "pahole", "-F", "btf", "-C", name, file, NULL };
 *	char *out = run_capture_argv(argv, RUN_STDERR_KEEP, &r);
 *
 * The program is found on PATH (posix_spawnp), with stdin from /dev/null,
 * the default disposition of the signals the lab handles or ignores, and
 * an empty signal mask.  Its stdout and stderr are read together (no
 * deadlock on a full pipe) until it exits.
 */
#ifndef LAB_UTIL_RUN_H
#define LAB_UTIL_RUN_H

#include <stdbool.h>

enum run_stderr {
	RUN_STDERR_KEEP,	/* into r->err: the lab's error line quotes it */
	RUN_STDERR_MERGE,	/* into the output, in order (2>&1) */
	RUN_STDERR_DISCARD,	/* to /dev/null */
};

struct run_result {
	int status;	/* exit status; 128+N killed by signal N; 127 not started */
	int start_errno;	/* why it could not be started (ENOENT: not on PATH), or 0 */
	char *err;	/* RUN_STDERR_KEEP: what it printed there ("" if nothing), to
			 * free(); NULL with the other kinds */
};

/*
 * The program's stdout as a string (malloc'd, never NULL).  r may be NULL
 * when only the output matters; with r and RUN_STDERR_KEEP, r->err must be
 * freed.
 */
char *run_capture_argv(const char *const argv[], enum run_stderr how, struct run_result *r);
/* The first line of the program's stdout (stderr discarded), "" when it
 * printed none or could not run. malloc'd. */
char *run_first_line(const char *const argv[]);
/* True when name is an executable on PATH (what `command -v` tells a shell). */
bool program_on_path(const char *name);
/* A path as an argument that no program can take for an option: "./-x"
 * for "-x", a copy of the path otherwise (malloc'd). */
char *path_arg(const char *p);

#endif
