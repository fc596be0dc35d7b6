/* SPDX-License-Identifier: GPL-2.0 */
/* Runs a charge plan (plan.h) on this machine. */
#ifndef LAB_DRIVERS_CHARGE_RUN_H
#define LAB_DRIVERS_CHARGE_RUN_H

#include "drivers/charge/plan.h"

struct results;

/*
 * Builds the plan's cgroups, runs the mode's loop once per step (the stock
 * modes: once per K), prints each step's summary and, with res, writes its
 * data (report.h).  A setup failure ends the process with one line through
 * die(), after the undo steps removed what was made.  0, or 1 when a worker
 * died and --on-death is stop; a signal stops it early
 * (lab_stop_requested(), util/cleanup.h).
 */
int charge_run(const struct charge_plan *p, struct results *res);

#endif
