/* SPDX-License-Identifier: GPL-2.0 */
/*
 * charge's options from one table (util/options.h) into a charge_config:
 * one parser for the command (cmd/charge.c) and for the experiment plan,
 * which reads the command lines the runner would start (experiment/plan.c),
 * so the plan printed is the driver's.
 */
#ifndef LAB_DRIVERS_CHARGE_OPTIONS_H
#define LAB_DRIVERS_CHARGE_OPTIONS_H

#include <stdio.h>
#include "drivers/charge/plan.h"

/*
 * argv (charge's options, argv[0] the command) into c, from the defaults
 * on: 0, 1 for --help, -1 for an option getopt refused (options_usage_error()
 * says why); a bad value or a stray argument ends the process with one line
 * naming it (exit 2).
 */
int charge_parse_options(int argc, char **argv, struct charge_config *c);
/* charge's --help text. */
void charge_print_help(FILE *f);

#endif
