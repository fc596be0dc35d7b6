// SPDX-License-Identifier: GPL-2.0
#include "cmd/lock.h"
#include "util/err.h"

int cmd_lock_record(int argc, char **argv)
{
	(void)argc; (void)argv;
	die("lock record: not yet");
}
