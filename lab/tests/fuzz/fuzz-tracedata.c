// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: perf's tracing-data blob, i.e. the tracefs event
 * formats (header page, format files) as the lab reads them from a
 * perf.data file through libtraceevent.
 */
#include <stdint.h>
#include <traceevent/event-parse.h>
#include "perf/tracedata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct tep_handle *tep = tracedata_parse(data, size, "fuzz", err, sizeof(err));

	if (tep)
		tep_free(tep);
	return 0;
}
