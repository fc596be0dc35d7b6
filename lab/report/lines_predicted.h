/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The predicted beside the measured: a run whose lines/ holds the
 * predicted-fields.tsv of `memcg-lab lines predict` (fields.tsv's columns
 * after "# trace", "# layout", "# line_size" and "# ops" lines: c2c/lines_predict.h)
 * shown beside the measured fields.tsv of a run (another, the layout that
 * was predicted measured; or the same), for `compare` and `report --mail`:
 * per field with HITMs on either side, false and true sharing and the
 * HITMs (per 1000 operations where both sides counted them), the
 * classification of each (false or true sharing, by the majority) and the
 * error (the class both give, or "f/t": predicted false, measured true);
 * the fields of 20 HITMs or more measured that agree, and the
 * totals' error.
 */
#ifndef LAB_REPORT_LINES_PREDICTED_H
#define LAB_REPORT_LINES_PREDICTED_H

#include <stdbool.h>
#include <stdio.h>
#include "report/lines_fields.h"

#define LINES_PREDICTED_TSV "predicted-fields.tsv"

/* What predicted-fields.tsv says of itself. */
struct lines_pred_meta {
	char trace[512], layout[512], unit[32];
	int line_size;
	double ops;		/* the trace's windows' operations; -1: not counted */
};

/* path's rows and comment lines; 0, or -1 with "path:line: what". */
int lines_predicted_load(const char *path, struct lines_fields *lf, struct lines_pred_meta *m, char *err,
			 size_t errlen);

/*
 * When pred_dir's lines/ has predicted-fields.tsv: the table of it beside
 * meas_dir's measured counts (tag: how the caller names meas_dir, "B").
 * Nothing when it has none; one line when the measured side has no counts
 * or a file cannot be read.
 */
void lines_predicted_beside(FILE *out, const char *pred_dir, bool in_vm_p, const char *meas_dir, bool in_vm_m,
			    const char *tag, int width);

/* The same table of the file pred (predicted-fields.tsv) beside the
 * fields.tsv in lines_dir (with its '/'; NULL: none measured). */
void lines_predicted_table(FILE *out, const char *pred, const char *lines_dir, const char *tag, int width);

#endif
