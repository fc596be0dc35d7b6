// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the lines plugin's access trace (c2c/lines_trace_read.h), opened and walked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_trace_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The reader maps files (8-byte aligned): so is this copy. */
	void *copy = malloc(size ? size : 1);
	struct lines_trace t;
	const struct lines_trace_rec *r;
	char err[512], note[256];
	uint64_t sum = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (lines_trace_open_mem(&t, "fuzz", copy, size, err, sizeof(err)) == 0) {
		(void)lines_trace_full(&t, note, sizeof(note));
		while ((r = lines_trace_next(&t)))
			sum += r->vaddr + r->size + r->vcpu;
		(void)lines_trace_at(&t, t.hdr.nrecords ? t.hdr.nrecords - 1 : 0);
		lines_trace_close(&t);
	}
	free(copy);
	__asm__ __volatile__("" : : "r"(sum));
	return 0;
}
