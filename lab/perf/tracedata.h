/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's tracing data: the event formats `perf record` copies from tracefs
 * into a perf.data file (feature HEADER_TRACING_DATA), so that a report
 * decodes tracepoint payloads with the formats of the kernel that recorded
 * them (tools/perf/util/trace-event-read.c is the writer's counterpart).
 */
#ifndef LAB_PERF_TRACEDATA_H
#define LAB_PERF_TRACEDATA_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/*
 * Parses the blob into a new tep handle (header page and every event
 * format; kallsyms, printk formats and cmdlines are skipped).  what names
 * the input in errors ("perf.data: tracing data").  NULL with err set.
 */
struct tep_handle *tracedata_parse(const uint8_t *buf, size_t len, const char *what,
				   char *err, size_t errlen);

#endif
