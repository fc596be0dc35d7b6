// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: a guest's payload (an uncompressed tar), as util/untar.c
 * checks it before vm extracts anything. */
#include <stdint.h>
#include <stdio.h>
#include "util/untar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *devnull = fopen("/dev/null", "w");

	if (!devnull)
		return 0;
	untar_check_buf(data, size, "fuzz", devnull);
	fclose(devnull);
	return 0;
}
