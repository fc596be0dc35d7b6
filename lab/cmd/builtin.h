/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_CMD_BUILTIN_H
#define LAB_CMD_BUILTIN_H

#include <stdio.h>
#include "util/usage.h"	/* usage_exit, for the commands that parse by hand */

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cmd/cmds.h"
#undef CMD

/* The commands of commands: cmd_<command>_<sub>() in cmd/<command>_<sub>.c. */
int cmd_c2c_caps(int argc, char **argv);
int cmd_c2c_lines(int argc, char **argv);
int cmd_c2c_losses(int argc, char **argv);
int cmd_c2c_trace(int argc, char **argv);
int cmd_c2c_parse(int argc, char **argv);
int cmd_c2c_record(int argc, char **argv);
int cmd_c2c_report(int argc, char **argv);
int cmd_c2c_window(int argc, char **argv);
int cmd_lines_predict(int argc, char **argv);
int cmd_lines_suggest(int argc, char **argv);
int cmd_lock_record(int argc, char **argv);
int cmd_lock_report(int argc, char **argv);

#endif
