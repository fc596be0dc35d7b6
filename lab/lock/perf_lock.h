/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf lock alongside the lab's tracer: `perf lock record -a` (tracepoint
 * mode) over the same window, then `perf lock contention -i` on the file,
 * its output kept next to the data and parsed into the lab's tables
 * (lock/lockcon_text.h): CSV through -x on perf 6.5+, the text table
 * before.  perf 6.1 prints the table on stderr, so both streams are kept.
 * BPF mode (-b) needs a perf built with BPF skeletons; where perf has it the
 * caller can add a live `perf lock contention -ab` run.
 */
#ifndef LAB_LOCK_PERF_LOCK_H
#define LAB_LOCK_PERF_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "lock/lockcon_text.h"
#include "perf/perf_run.h"

struct perf_lock_rec {
	pid_t pid;
	int cleanup_handle;
	int out_fd;		/* perf's stdout until it is written to log */
	char path[512];
	char part[520];		/* path.part: what perf writes until it finished */
	char log[512];
};

/* Starts `perf lock record -a -o path.part` (stdout/stderr into log) and
 * waits until it writes; 0 or -1 with err.  Only a perf that finished has
 * its file renamed to path (perf_lock_record_stop), so a killed run leaves
 * no recording under the name the reports read. */
int perf_lock_record_start(struct perf_lock_rec *r, const char *path, const char *log,
			   char *err, size_t errlen);
/* SIGINT, then waits for perf to write its header; 0 or -1 with err. */
int perf_lock_record_stop(struct perf_lock_rec *r, char *err, size_t errlen);

/* BPF mode, live (perf built with BPF skeletons): `perf lock contention
 * -a -b` (CSV on 6.5+) with its output in out_txt, stopped like a record
 * (perf_lock_record_stop) and then parsed with perf_lock_parse_output. */
int perf_lock_live_start(struct perf_lock_rec *r, const struct perf_info *pi, const char *out_txt,
			 char *err, size_t errlen);
int perf_lock_parse_output(const char *out_txt, struct lockcon_text_table **t, size_t *nt, char *err,
			   size_t errlen);

/* Runs `perf lock contention -i path [-t]`, keeps its output in out_txt,
 * parses it.  0 or -1 with err (perf failed, or its output had no table). */
int perf_lock_contention(const struct perf_info *pi, const char *path, bool threads,
			 const char *out_txt, struct lockcon_text_table **t, size_t *nt, char *err, size_t errlen);

#endif
