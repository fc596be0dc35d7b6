/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The experiment runner: `memcg-lab run FILE` without its options.  An
 * experiment file (experiment/model.h), its -s overrides and every driver's
 * own check first; then one results directory: the probe, the collectors,
 * the driver at every schedule step and repeat, derived metrics, plots and
 * report.txt.  Errors in the file are file:line and exit 2.
 */
#ifndef LAB_EXPERIMENT_RUNNER_H
#define LAB_EXPERIMENT_RUNNER_H

#include "util/results.h"

/* Writes report.txt and sets the run's final status. */
typedef void exp_finish_fn(struct results *r, const char *status);

/* run --plan: what the run would do on this machine (its drivers check
 * their options too) or on the one topology describes; 0, or exit 2. */
int exp_run_plan(const char *path, char **overrides, int noverrides, const char *topology, const char *pmu);

/* run --validate: the file and the drivers' options; one line; 0, or exit 2. */
int exp_run_validate(const char *path, char **overrides, int noverrides);

/* The run; argv is the command line meta.json records.  0, 1 when a step
 * failed; exit 2 on an error (the status then stays "incomplete"). */
int exp_run(const char *path, char **overrides, int noverrides, int argc, char **argv, exp_finish_fn *finish);

#endif
