/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An integer field of a tracepoint record, located once from the event's
 * format (libtraceevent) and then read from each raw record: the hot path
 * of both the perf.data reader and the tracefs tracer, where a by-name
 * lookup per record would cost more than the rest of the work.
 */
#ifndef LAB_PERF_TP_FIELD_H
#define LAB_PERF_TP_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;

struct tp_field {
	int offset, size;
	bool is_signed;
};

/* 0, or -1 when the event has no integer (non-array, <= 8 byte) field name. */
int tp_field_lookup(struct tep_event *e, const char *name, struct tp_field *f);
/* The value in a record of len bytes (sign-extended when signed); 0 when
 * the record is too short. */
uint64_t tp_field_read(const void *rec, size_t len, const struct tp_field *f);

#endif
