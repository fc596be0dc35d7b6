/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a charge run prints and stores: the summary of each step (workers,
 * totals, CPU, the kernel's counters of the cgroups), the topology steps'
 * table, the stock sweep with its cliff, and the rows of data/ and
 * metrics.tsv in a results directory (util/results.h).
 */
#ifndef LAB_DRIVERS_CHARGE_REPORT_H
#define LAB_DRIVERS_CHARGE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "drivers/charge/plan.h"
#include "drivers/charge/evidence.h"
#include "drivers/harness.h"
#include "drivers/placement.h"
#include "drivers/charge/stock.h"

struct results;

/* One line for --validate: what would run. */
void charge_report_valid(FILE *f, const struct charge_plan *p);

/* kmem with the module: its counters over a step, from the start barrier
 * to the window's end (loops run and their ns, by its own clock). */
struct charge_kmod_window {
	bool ok;
	uint64_t loops, ns;
};

/* One step: n workers of placement pc (NULL: the root memcg) on cpu[], with
 * the kernel's counters ev (NULL: none), level the topology step's name,
 * km the module's counters (NULL: not the module). */
void charge_report_step(FILE *f, const struct charge_plan *p, const struct placement *pc,
			const struct harness_result *r, const struct evidence *ev, const int *cpu, int n,
			const char *level, const struct charge_kmod_window *km);
/* kmem: what the run's workload is, for meta.json and the verdicts: the
 * seed's module (and what it was built against) or the stand-in (and why). */
void charge_report_workload(char *buf, size_t n, const struct charge_plan *p);

/* A topology step's line of the closing table (rates in the loop's unit). */
struct charge_step_row {
	int tasks;
	const char *level;
	double total, per_worker, wmin, wmax, user, sys, idle;
	bool cut_short;
};

struct charge_step_row charge_report_step_row(const struct charge_plan *p, const struct harness_result *r,
					      int tasks, const char *level);
void charge_report_steps(FILE *f, const struct charge_plan *p, const struct charge_step_row *row, int n);

/* One K of the stock sweep. */
struct charge_stock_row {
	int k;
	double rate, ns_per_charge;
	struct stock_holders h;
	bool cut_short;
};

/* The sweep's table and verdict; the cliff K and the most holders seen
 * (-1: holders not measured) into cliff and most. */
void charge_report_stock(FILE *f, const struct charge_plan *p, const struct charge_stock_row *row, int n,
			 int *cliff, int *most);

/* ---- a results directory ---- */

/* The run's configuration for meta.json's "charge" (pc NULL: the root memcg). */
json_object *charge_report_config(const struct charge_plan *p, const struct placement *pc);
/* A step's rows of metrics.tsv (mf NULL: none). */
void charge_report_metrics(FILE *mf, const struct charge_plan *p, const char *step, int repeat,
			   const struct harness_result *r, const struct charge_kmod_window *km);
/* data/stock.tsv or data/objstock.tsv with its header, a row per K, and the
 * sweep's entry in meta.json (under the mode's name). */
FILE *charge_report_stock_tsv(struct results *res, const struct charge_plan *p);
void charge_report_stock_row(FILE *tsv, FILE *mf, const struct charge_plan *p, const char *step, int repeat,
			     const struct charge_stock_row *row);
void charge_report_stock_meta(struct results *res, const struct charge_plan *p, int kmax, int cliff, int most);

/* Text to stdout, flushed; text into data/FILE. */
void charge_report_emit(const char *text);
void charge_report_write_data(struct results *res, const char *file, const char *text);

/* data/charge-{workers,series,cgroups}.tsv and metrics.tsv (all NULL without res). */
struct charge_outputs {
	FILE *workers, *series, *cgroups, *metrics;
};

void charge_outputs_open(struct charge_outputs *out, struct results *res);
void charge_outputs_close(struct charge_outputs *out);

#endif
