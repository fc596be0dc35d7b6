/* SPDX-License-Identifier: GPL-2.0 */
/*
 * data/metrics.tsv: every number a run measured that a comparison may use,
 * one row per value:
 *
 *   step    repeat  metric               value    unit   better
 *   tasks=6 0       charge.ops_per_s     1.2e6    ops/s  higher
 *
 * step names the point of a schedule ("-" when the run has none), repeat
 * counts from 0, better is "higher", "lower" or "-".  compare and plot read
 * only this file (plus meta.json), so any driver that writes it can be
 * compared and plotted.  Written and read through util/tsv.h: the columns
 * by their header's names, each refusal one line naming file:line:column.
 */
#ifndef LAB_UTIL_METRICS_H
#define LAB_UTIL_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#define METRICS_FILE "data/metrics.tsv"
/* The header row as metrics_open writes it. */
#define METRICS_HEADER "step\trepeat\tmetric\tvalue\tunit\tbetter\n"

struct metric_row {
	char *step;
	int repeat;
	char *metric;
	double value;
	char *unit;
	char better;		/* 'h' higher, 'l' lower, '-' */
};

struct metrics {
	struct metric_row *rows;
	size_t n;
};

/* Opens <dir>/data/metrics.tsv for appending, writing the header when new;
 * checked (util/outfile.h): close it with outfile_close() or fclose(). */
FILE *metrics_open(const char *results_dir);
void metrics_emit(FILE *f, const char *step, int repeat, const char *metric, double value,
		  const char *unit, const char *better);
/* Loads <dir>/data/metrics.tsv; 0, or -1 with "file:line: what" in err. */
int metrics_load(const char *results_dir, struct metrics *m, char *err, size_t errlen);
/* The same from an open file; path names it in errors. */
int metrics_parse_stream(FILE *f, const char *path, struct metrics *m, char *err, size_t errlen);
void metrics_free(struct metrics *m);
/* A numeric schedule step "name=value" ("tasks=6"): its name and value;
 * false for "-" or a non-numeric value. */
bool metrics_step_value(const char *step, char *name, size_t n, double *value);

#endif
