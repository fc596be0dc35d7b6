/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_CMD_BUILTIN_H
#define LAB_CMD_BUILTIN_H

#include <stdio.h>
#include "util/usage.h"	/* usage_exit, for the commands that parse by hand */

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cmd/cmds.h"
#undef CMD

#endif
