/* SPDX-License-Identifier: GPL-2.0 */
/* The `memcg-lab c2c` subcommands, one file each (cmd/c2c*.c). */
#ifndef LAB_CMD_C2C_SUB_H
#define LAB_CMD_C2C_SUB_H

#include <stdbool.h>
#include <stddef.h>
#include "analyze/c2c_report.h"

int c2c_report_cmd(int argc, char **argv);
int c2c_caps_cmd(int argc, char **argv);
int c2c_record_cmd(int argc, char **argv);

/* c2c_parse_to_dir() or a one-line error and exit 2; warnings on stderr unless quiet. */
int c2c_parse_or_die(const char *path, const char *dir, bool quiet, struct c2c_report *r);

#endif
