/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lines plugin's access trace read back on the host (the format:
 * c2c/lines_trace.h; the plugin writes it with trace=N, vm --lines --trace
 * moves it to lines/trace.bin).
 *
 *   struct lines_trace t;
 *   if (lines_trace_open(&t, "DIR/lines/trace.bin", err, sizeof(err)) < 0)
 *           -> one line in err, exit 2
 *   if (lines_trace_full(&t, note, sizeof(note)))
 *           -> say note: the plugin's cap was reached, accesses dropped
 *   for (const struct lines_trace_rec *r; (r = lines_trace_next(&t));)
 *           -> t.next - 1 is r's sequence number
 *   lines_trace_close(&t);
 *
 * Open checks everything once, so that the records are trusted after it:
 * the magic, the format version (another one is refused, naming both), the
 * record size, the status (a trace the plugin never finished is refused as
 * cut off), the file's size against nrecords (cut off: how many whole
 * records are there of how many announced), nrecords <= cap, vcpus 1..64,
 * and every record: vcpu < vcpus, size 1..64 within one line, flags only
 * LINES_TRACE_STORE, pad 0.  Records are read from a read-only mmap (or
 * the caller's buffer: lines_trace_open_mem), never copied.
 *
 * The objects a record's address falls in: the objects and ranges each
 * window announced (window-objects.tsv: label type address size source;
 * window-ranges.tsv: name address size stride fields), read without BTF
 * and looked up per window by binary search.  A record in no object is an
 * access to an object's line outside the object (its neighbours on the
 * line: the plugin traces whole lines).
 */
#ifndef LAB_C2C_LINES_TRACE_READ_H
#define LAB_C2C_LINES_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "c2c/lines_trace.h"

struct lines_trace {
	struct lines_trace_header hdr;	/* validated */
	char path[256];			/* as opened (messages) */
	uint64_t next;			/* the sequence number lines_trace_next() returns next */
	/* private */
	const struct lines_trace_rec *rec;
	void *map;
	size_t map_len;
};

/* 0, or -1 with one line in err (exit 2 material): another format
 * version, a cut-off trace (named with its record count), a bad record
 * (its sequence number and field). */
int lines_trace_open(struct lines_trace *t, const char *path, char *err, size_t errlen);
/* The same over a buffer (kept by the caller until close): fuzzing, tests. */
int lines_trace_open_mem(struct lines_trace *t, const char *name, const void *data, size_t size, char *err,
			 size_t errlen);
/* The next record in order, NULL at the end (streamed: no state but t->next). */
const struct lines_trace_rec *lines_trace_next(struct lines_trace *t);
/* Record seq (< hdr.nrecords), NULL past the end. */
const struct lines_trace_rec *lines_trace_at(const struct lines_trace *t, uint64_t seq);
void lines_trace_rewind(struct lines_trace *t);
void lines_trace_close(struct lines_trace *t);

/* A full trace (status LINES_TRACE_FULL): true with one line in note
 * ("PATH: the trace is full: its cap of N records was reached; D more
 * accesses were not written"); false for a complete one. */
bool lines_trace_full(const struct lines_trace *t, char *note, size_t n);
/* "writing", "complete", "full", or "unknown". */
const char *lines_trace_status_name(uint32_t status);

/* An object (or range of the lab's own memory) a window announced. */
struct lines_trace_obj {
	uint32_t window;	/* the plugin's window number (as lines_trace_rec.window) */
	char *label;		/* "memcg cg-0", "memcg (root)", "memcg_stock cpu0"; ranges: "-" */
	char *type;		/* the BTF struct ("mem_cgroup", "memcg_stock_pcp"); ranges: their name ("hslot") */
	char *source;		/* how the guest found it (window-objects.tsv's source); ranges: "-" */
	uint64_t base, size;	/* [base, base + size) */
	uint64_t stride;	/* objects: size; ranges: one element per stride bytes */
	bool range;		/* from window-ranges.tsv */
	char *fields;		/* ranges: "NAME:OFFSET:SIZE,..." within a stride; objects: NULL */
	const char *file;	/* the file and line it came from (messages) */
	int line;
};

struct lines_trace_objs {
	struct lines_trace_obj *v;	/* sorted by (window, base) */
	size_t n;
};

/*
 * lines_dir/window-objects.tsv and lines_dir/window-ranges.tsv (either may
 * be absent: no objects of that kind).  0, or -1 with one line naming the
 * file, line and field.
 */
int lines_trace_objs_load(struct lines_trace_objs *o, const char *lines_dir, char *err, size_t errlen);
/* The object of window holding vaddr, NULL when none does; *off (when not
 * NULL) the offset in it (ranges: within its element, vaddr - base modulo
 * stride). */
const struct lines_trace_obj *lines_trace_obj_of(const struct lines_trace_objs *o, uint32_t window,
						 uint64_t vaddr, uint64_t *off);
void lines_trace_objs_free(struct lines_trace_objs *o);

#endif
