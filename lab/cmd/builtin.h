/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_CMD_BUILTIN_H
#define LAB_CMD_BUILTIN_H

#include <stdio.h>

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cmd/cmds.h"
#undef CMD

/*
 * Shared usage handling for every subcommand: `--help` prints the text on
 * stdout and exits 0; a bad option prints the first line of the text on
 * stderr with the offending option and exits 2.
 */
void usage_exit(const char *text, int status) __attribute__((noreturn));
/* For commands with sub-commands (lock record, c2c parse): the argv that
 * getopt now walks, so a bad option is named right. */
void usage_context(const char *name, int argc, char **argv);

#endif
