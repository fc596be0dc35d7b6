/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the verdicts (report/verdict*.c) only: a results directory as
 * they read it (a side) and what it measured of a claim's quantity at one
 * point (a measure), from verdict_measure.c; verdict.c judges the
 * measures, verdict_print.c prints the verdicts.
 */
#ifndef LAB_REPORT_VERDICT_MEASURE_H
#define LAB_REPORT_VERDICT_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "layout/layout.h"
#include "report/claim.h"
#include "util/metrics.h"

#define MAXV 256

/* One results directory as the verdicts read it. */
struct side {
	char tag;		/* 'A', 'B'; 0 for a run alone */
	const char *dir;
	json_object *meta;
	struct metrics m;
	bool have_m;
	char m_err[512];
	struct layout lay;
	int lay_state;		/* 0 not loaded, 1 loaded, -1 none (lay_err) */
	char lay_err[512];
};

/* What a side measured of a claim's quantity at one point. */
struct measure {
	double v[MAXV];
	int n;			/* 0: not measured (why) */
	bool exact;		/* a count or size: no spread to test */
	char from[320];		/* where it came from, when not data/metrics.tsv */
	char why[512];
};

/* dir's meta.json and data/metrics.tsv (tag: 'A', 'B', or 0). */
void verdict_side_open(struct side *s, const char *dir, char tag);
void verdict_side_close(struct side *s);
/* The side's kernel (probe.kernel, uname), its CPUs (0 unknown), and
 * whether it ran in a TCG guest. */
const char *verdict_side_kernel(const struct side *s);
int verdict_side_cpus(const struct side *s);
bool verdict_side_tcg(const struct side *s);

/* What s measured of c at point (out->n 0: not measured, out->why). */
void verdict_measure(const struct claim *c, int point, struct side *s, struct measure *out);
/* The layout of a kernel release a claim names (its BTF in build/btf/,
 * else layouts/RELEASE); 0, or -1 with err. */
int verdict_load_release(const char *release, struct layout *lay, char *err, size_t n);
/* A layout claim's size or cachelines in lay. */
void verdict_measure_layout_of(const struct claim *c, const struct layout *lay, struct measure *out);

/* A figure in words (an integer under 10^4 as it is, three digits under
 * 10, else format_number()); a measure with its spread: "1.84 ±19% (3
 * runs)", "7 (3 repeats: 7, 7, 6)", "2240". */
void verdict_fmt_num(char *buf, size_t n, double v);
void verdict_fmt_measure(char *buf, size_t n, const struct measure *m, const char *unit);

#endif
