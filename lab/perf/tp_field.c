// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <traceevent/event-parse.h>
#include "perf/tp_field.h"

int tp_field_lookup(struct tep_event *e, const char *name, struct tp_field *f)
{
	struct tep_format_field *x = e ? tep_find_field(e, name) : NULL;

	if (!x || x->size <= 0 || x->size > 8 || (x->flags & TEP_FIELD_IS_ARRAY))
		return -1;
	f->offset = x->offset;
	f->size = x->size;
	f->is_signed = x->flags & TEP_FIELD_IS_SIGNED;
	return 0;
}

uint64_t tp_field_read(const void *rec, size_t len, const struct tp_field *f)
{
	const uint8_t *p;

	if (!rec || f->offset < 0 || (size_t)(f->offset + f->size) > len)
		return 0;
	p = (const uint8_t *)rec + f->offset;
	switch (f->size) {
	case 1:
		return f->is_signed ? (uint64_t)(int64_t)*(const int8_t *)p : *p;
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return f->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return f->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
	return 0;
}
