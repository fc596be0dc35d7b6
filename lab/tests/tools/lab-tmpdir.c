// SPDX-License-Identifier: GPL-2.0
/*
 * lab-tmpdir: makes a temporary directory the way the lab makes its own
 * (util/owned.h: mkdtemp in $TMPDIR, 0700, the lab's mark naming this
 * process), prints its path and exits.  What it leaves is what a lab run
 * SIGKILLed right after making its directory leaves: a real leftover of a
 * run that is gone, for the cleanup tests.
 */
#include <stdio.h>
#include "util/owned.h"

int main(void)
{
	char dir[4096], err[4600];

	if (lab_tmpdir_create(dir, sizeof(dir), err, sizeof(err))) {
		fprintf(stderr, "lab-tmpdir: %s\n", err);
		return 2;
	}
	printf("%s\n", dir);
	return 0;
}
