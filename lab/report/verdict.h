/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verdicts: each claim of a run's experiment file (report/claim.h) set
 * against what the run measured for the same quantity.  A claim is
 *
 *   reproduced / not reproduced   the measured figure and its spread beside
 *                                 the published one, and the rule that decided;
 *   not measurable here           with the reason: timing in a TCG guest,
 *                                 N CPUs against the seed's M, socket memory
 *                                 that bypasses the stock (cgroup v1), one
 *                                 kernel where the claim is an A/B, a kernel
 *                                 the claim is not about, a [small] shape;
 *   not reached                   the run did not measure the quantity.
 *
 * Computed from the results directory's files alone (experiment.exp,
 * meta.json, data/metrics.tsv, data/layout/, lines/), so it is tested on
 * made-up directories.  A pair (`compare A B`) judges an A/B claim on
 * both sides: A the base, B the patched kernel.
 */
#ifndef LAB_REPORT_VERDICT_H
#define LAB_REPORT_VERDICT_H

#include <stdbool.h>
#include <stdio.h>
#include "report/claim.h"

#define VERDICTS_FILE "verdicts.tsv"

enum verdict_kind { VERDICT_REPRODUCED, VERDICT_NOT_REPRODUCED, VERDICT_NOT_MEASURABLE, VERDICT_NOT_REACHED };

struct verdict_point {
	char label[64];		/* the step ("tasks=6"), or "-" */
	enum verdict_kind kind;
	char published[192];
	char measured[320];
	char why[768];		/* the rule and how it went, or the reason */
	/* The numbers of verdicts.tsv (NAN where none). */
	double a_mean, a_sd, b_mean, b_sd, change, p;
	int a_n, b_n;
};

struct verdict {
	const struct claim *c;
	char side;		/* a value claim judged on one side of a pair: 'A', 'B'; else 0 */
	enum verdict_kind kind;
	char notes[4][640];	/* what else the reader must know (workload, readers, sides, the claim's note) */
	int nnotes;
	struct verdict_point pt[CLAIM_MAX_POINTS];
	int npts;
};

#define VERDICTS_MAX_NEXT 3

struct verdicts {
	char none[640];		/* why there are no verdicts; "" when there are */
	bool pair;
	/* One kernel where a claim is an A/B: the command that measures the
	 * other side, then compare (one per A/B). */
	char next[VERDICTS_MAX_NEXT][1024];
	int nnext;
	struct claims claims;
	struct verdict *v;
	int n;
};

/* The verdicts of one run (dir's experiment.exp, its files). */
void verdicts_of_dir(struct verdicts *vs, const char *dir);
/* The verdicts of an A/B: a the base, b the patched (a's experiment.exp). */
void verdicts_of_pair(struct verdicts *vs, const char *a, const char *b);
void verdicts_free(struct verdicts *vs);

const char *verdict_kind_name(enum verdict_kind k);
/* "2 reproduced, 1 not reproduced, 3 not measurable here" */
void verdicts_count_text(const struct verdicts *vs, char *buf, size_t n);
/* One line per claim: claim, verdict, published, measured (cut to width). */
void verdicts_print_table(FILE *out, const struct verdicts *vs, int width);
/* The verdict section: the table, what is still to measure (vs->next),
 * then one block per claim, wrapped to width columns. */
void verdicts_print(FILE *out, const struct verdicts *vs, int width);
/* vs->next, each line wrapped to width ("next: ..."); nothing if none. */
void verdicts_print_next(FILE *out, const struct verdicts *vs, int width);
/* The seed's own table: per claim and step, the published figures beside
 * the measured ones, within width columns. */
void verdicts_table(FILE *out, const struct verdicts *vs, int width);
/* verdicts.tsv: a header and one row per claim and step. */
void verdicts_tsv(FILE *out, const struct verdicts *vs);

#endif
