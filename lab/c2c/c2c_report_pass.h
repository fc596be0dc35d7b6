/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One `perf c2c report --stdio` pass over a window's perf.data: perf's
 * stdout comes through a pipe and goes into the report file and the
 * parser (c2c/c2c_parse.h) at once, so the text is never held whole in
 * memory and never parsed twice; the pass has a time limit, past which
 * perf is killed and the pass fails with one line.  Source:Line lookups
 * (addr2line over a vmlinux: minutes on a big report) only when asked.
 */
#ifndef LAB_C2C_C2C_REPORT_PASS_H
#define LAB_C2C_C2C_REPORT_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include "c2c/c2c_parse.h"

struct c2c_report_pass {
	const char *perf;	/* the perf binary */
	const char *data;	/* perf.data */
	const char *txt;	/* where the report text goes (checked writes) */
	const char *log;	/* perf's stderr */
	bool double_cl;		/* --double-cl */
	bool source;		/* the Source:Line column (else --no-source) */
	bool show_all;		/* --show-all: every line with a HITM (the lines plugin's exact counts) */
	double timeout_s;	/* > 0: perf is killed past it */
	const char *const *extra;	/* more perf arguments before `c2c` (--buildid-dir DIR), NULL-ended */
};

/* The argv the pass runs (malloc'd strings in a malloc'd, NULL-ended array). */
char **c2c_report_pass_argv(const struct c2c_report_pass *p);

/*
 * Runs the pass and parses its output into r (every offset row kept, for
 * the attribution).  0, or -1 with one line in err: perf could not start,
 * exited non-zero or by a signal (its last log lines), ran past the time
 * limit (timed_out set), or the report could not be written.  r is
 * initialised either way (c2c_report_free).
 */
int c2c_report_pass_run(const struct c2c_report_pass *p, struct c2c_report *r, bool *timed_out, char *err,
			size_t errlen);

/* A tool's last words: its last (up to three) non-empty log lines, joined
 * by " | ". */
void c2c_log_tail(const char *text, char *out, size_t n);

/* The parsed report as TSV in dir: stats, cachelines, offsets, warnings.
 * 0, or -1 with err. */
int c2c_report_write_dir(const struct c2c_report *r, const char *dir, char *err, size_t errlen);

#endif
