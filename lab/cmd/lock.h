/* SPDX-License-Identifier: GPL-2.0 */
/* The halves of `memcg-lab lock` (cmd/lock.c dispatches). */
#ifndef LAB_CMD_LOCK_H
#define LAB_CMD_LOCK_H

int cmd_lock_record(int argc, char **argv);

#endif
