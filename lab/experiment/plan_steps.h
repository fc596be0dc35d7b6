/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One step of an experiment plan from its driver's own option parser and
 * planner, on the described host: the counts experiment/plan.c checks
 * against the kernel's limits and the words it prints come from the plan
 * the driver would run, so `run --plan` cannot say what the driver would
 * not do.
 */
#ifndef LAB_EXPERIMENT_PLAN_STEPS_H
#define LAB_EXPERIMENT_PLAN_STEPS_H

#include <stddef.h>
#include "experiment/plan.h"

/* Files a driver process has open before its own: stdio, the results
 * files, libraries' descriptors. */
#define EXP_BASE_FDS 64

/*
 * av/ac: the driver's command line as the runner starts it (av[1] the
 * driver's name).  Fills st and pp's words; 0, or -1 with one line in err
 * (the driver's refusal, "charge: ..." or "statread: ...").
 */
int plan_step_charge(struct exp_phase_plan *pp, struct exp_step_plan *st, char **av, int ac,
		     const struct exp_plan_host *h, char *err, size_t errlen);
int plan_step_statread(struct exp_phase_plan *pp, struct exp_step_plan *st, char **av, int ac,
		       const struct exp_plan_host *h, char *err, size_t errlen);

#endif
