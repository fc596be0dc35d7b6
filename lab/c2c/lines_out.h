/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest run under the lines plugin, turned into what a PMU box's c2c
 * session gives (lab/c2c/README, "From the plugin to perf c2c"): from
 * DIR/lines/lines.tsv (the plugin's counts) and what the guest's lab left
 * beside it (c2c/lines_session.h: windows.tsv, window-objects.tsv,
 * window-ranges.tsv; /init's kallsyms, vmlinux.btf, notes), into DIR/lines/
 * and, per label of the windows, DIR/lines/<label>/:
 *
 *   fields.tsv   per struct field: struct, field, offset, size, loads,
 *                stores, hitm_loads, hitm_stores, false_hitm, true_hitm,
 *                other_field (report/lines_fields.h reads it for verdicts)
 *   ops.tsv      the windows, those whose operations the lab counted
 *                (window-ops.tsv) and their sum and unit: what a claim
 *                divides the transfers by ("- -" where none was counted)
 *   perf.data    the events as memory samples (perf/perfdata_write.h)
 *   c2c.txt      the real `perf c2c report --stdio` of it (--no-source unless
 *                asked: c2c/c2c_report_pass.h)
 *   c2c/         the lab's parse and field attribution of c2c.txt
 *                (objects.tsv there: the run's objects, for c2c report --objects)
 *   buildid/     the guest kernel's kallsyms under its build ID, which perf
 *                (--buildid-dir) names the kernel's code addresses from
 *
 * Refused in one line (and nothing marked complete): a plugin status
 * other than ok (a window that never opened or was left open, a full
 * table or detail pool: how many lines, what was dropped), a guest kernel
 * whose BTF lacks a struct the objects need, unreadable or malformed
 * files (naming the file, line and field).
 */
#ifndef LAB_C2C_LINES_OUT_H
#define LAB_C2C_LINES_OUT_H

#include <stddef.h>
#include "c2c/lines_parse.h"

/* perf.data holds at most this many samples per label; beyond, one sample
 * stands for several events (its PERIOD), as a sampling PMU's would. */
#define LINES_PERF_MAX_SAMPLES 200000
#define LINES_OPS_OUT "ops.tsv"
#define LINES_INSNS_OUT "insns.tsv"

/* The one-line reason a plugin status is not ok (table sizes, what was
 * dropped), or NULL when it is ok. */
char *lines_status_problem(const struct lines_file *f, const char *path);

struct lines_out_opts {
	const char *dir;	/* the vm results directory: DIR/lines/ */
	const char *perf;	/* the perf that writes c2c.txt ("perf"); NULL: no c2c.txt */
	bool quiet;		/* no notes on stderr */
	bool source;		/* Source:Line in c2c.txt (addr2line over the guest's vmlinux: slow) */
	double report_timeout_s;	/* perf c2c report's limit (0: C2C_REPORT_TIMEOUT_DEFAULT) */
};

/* 0, or -1 with one line in err. */
int lines_out(const struct lines_out_opts *o, char *err, size_t errlen);
/* lines_out() with perf from PATH (c2c.txt left out, and said, without it). */
int lines_out_dir(const char *dir, char *err, size_t errlen);

#endif
