/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The access trace's writer (format: c2c/lines_trace.h), pure C, no qemu:
 * compiled into the lines plugin and into libmemcglab (the unit test
 * writes traces with it and reads them back with c2c/lines_trace_read.h).
 *
 * The file is sized for its cap up front (a sparse file: blocks are taken
 * only as records are written) and mapped shared; a record is a slot
 * claimed by one counter (atomic when locked: MTTCG) and filled in place,
 * so the hot path makes no system call.  Past the cap the accesses are
 * counted, not written.  lines_trace_writer_finish() writes the header
 * (status complete or full, nrecords, dropped) last and cuts the file to
 * its records: a file whose header still says writing was cut short (qemu
 * killed), and the reader says so.
 */
#ifndef LAB_C2C_LINES_TRACE_WRITE_H
#define LAB_C2C_LINES_TRACE_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "c2c/lines_trace.h"

struct lines_trace_writer {
	struct lines_trace_rec *rec;	/* cap slots, mapped */
	uint64_t cap;
	uint64_t n;			/* slots claimed (> cap: the excess dropped) */
	bool locked;			/* callbacks run concurrently */
	unsigned vcpus;
	int fd;
	size_t map_len;
};

/* A writer of at most cap records at path (created, truncated): 0, or -1
 * with one line in err. */
int lines_trace_writer_open(struct lines_trace_writer *w, const char *path, uint64_t cap, unsigned vcpus,
			    bool locked, char *err, size_t errlen);

/* One access: split at line boundaries into one record per line. */
static inline void lines_trace_put(struct lines_trace_writer *w, uint32_t window, unsigned vcpu, uint64_t pc,
				   uint64_t vaddr, unsigned size, bool store)
{
	while (size) {
		unsigned off = (unsigned)(vaddr & 63), part = 64 - off < size ? 64 - off : size;
		uint64_t i = w->locked ? __atomic_fetch_add(&w->n, 1, __ATOMIC_RELAXED) : w->n++;

		if (i < w->cap) {
			struct lines_trace_rec *r = &w->rec[i];

			r->vaddr = vaddr;
			r->pc = pc;
			r->window = window;
			r->vcpu = (uint8_t)vcpu;
			r->size = (uint8_t)part;
			r->flags = store ? LINES_TRACE_STORE : 0;
			r->pad = 0;
		}
		vaddr += part;
		size -= part;
	}
}

/* Records written, and accesses past the cap (so far). */
uint64_t lines_trace_writer_records(const struct lines_trace_writer *w);
uint64_t lines_trace_writer_dropped(const struct lines_trace_writer *w);

/* The header (complete, or full with the dropped count), the file cut to
 * its records, closed.  0, or -1 with one line in err. */
int lines_trace_writer_finish(struct lines_trace_writer *w, char *err, size_t errlen);

#endif
