/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cacheline model of the lab's qemu TCG plugin (lab/c2c/plugin/): every
 * memory access a guest's vCPUs make, followed per 64-byte line between
 * vCPUs.  Pure C, no qemu: the plugin feeds it, unit tests feed it recorded
 * access sequences (lab/tests/unit-lines-model.c).
 *
 * Per line, keyed by guest physical address (the virtual address of its
 * first sharing event is kept, for symbols):
 *   holders  the vCPUs holding a copy (an infinite cache per vCPU: nothing
 *            is evicted, so invalidations are an upper bound of a real
 *            cache's, and transfers under single-threaded TCG a lower bound
 *            of what hardware would see: vCPUs switch coarsely there);
 *   wcpu, wpc, wmask   the last writer's vCPU, PC, and the bytes it wrote
 *            since it took the line (its dirty bytes);
 *   dirty    whether the line is still modified in wcpu's cache (no other
 *            vCPU has loaded it since);
 *   rmask    the bytes vCPUs other than wcpu loaded since wcpu took it.
 *
 * Events, on an access by vCPU c touching the bytes m of the line:
 *   load HITM    a load while the line is dirty in another vCPU's cache;
 *                true sharing when m overlaps wmask, else false sharing.
 *                The line becomes shared (dirty cleared), c a holder.
 *   store HITM   a store while the line is dirty in another vCPU's cache
 *                (the RFO hits a modified line); true/false by m & wmask.
 *   store inval  a store while other vCPUs hold a clean copy; the bytes
 *                of the other side are wmask when another vCPU wrote last,
 *                else (c wrote last, or nobody did in this window) the
 *                bytes the others loaded (rmask).  When nobody wrote it
 *                yet, rmask holds every vCPU's loads, c's own too: that
 *                first invalidation of a line read-shared from the start
 *                may be called true where it was false (at most one event
 *                per line and window).
 *   After a store c alone holds the line, dirty; wmask restarts from m
 *   when c was not the last writer, else grows by m.
 * An access that crosses a line is split into its two parts (and counted
 * in `split`); one that crosses a page has no physical address for its
 * second part (qemu gives one per access): that part is dropped and
 * counted (split_page_dropped).
 *
 * The window: outside it nothing is counted nor followed (the guest opens
 * and closes it, lab/c2c/lines_window.h).  Each opening starts every
 * line's state afresh (holders, writer); the counts add up over windows.
 *
 * Bounded memory, said when full: the line table has a fixed number of
 * slots (64 bytes each); a line that finds no slot is dropped, with its
 * accesses counted (dropped_accesses) and the distinct dropped lines
 * counted in a bitmap (dropped_lines_min: a lower bound).  Lines with a
 * sharing event (or, with LINES_DETAIL, any access) get a detail record
 * (per offset/size, counted from then on, and per PC/vCPU: its events, or
 * with LINES_DETAIL every access) from a fixed pool; a line that finds the
 * pool empty is counted
 * (ext_dropped_lines, ext_dropped_events) and keeps only its totals.  The
 * per-line detail tables are fixed too: what does not fit goes to the
 * line's "other" bucket, and the count is written.
 *
 * Thread safety: with locked set (MTTCG: callbacks run concurrently) each
 * line's state is under the lock of its stripe, a region of the table;
 * per-vCPU counters are each vCPU's own; the window flag and the pool index
 * are atomic.  Single-threaded TCG takes no lock.
 */
#ifndef LAB_C2C_LINES_MODEL_H
#define LAB_C2C_LINES_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LINES_LINE_SIZE 64
#define LINES_MAX_VCPUS 64
#define LINES_NO_VCPU 0xff
/* Per line detail: (offset, size) shapes and (PC, vCPU, offset, size, rw) sites. */
#define LINES_SHAPES 24
#define LINES_SITES 32
/* Per-window rows kept (later windows add to the last row, and it says so). */
#define LINES_WINDOWS 64
/* The format written (lines_model_write) and read (c2c/lines_parse.h). */
#define LINES_FORMAT_VERSION 1
/* The table size and pool by default: slots are 64 B, detail records ~5 KB
 * (pool memory is touched only as it is used). */
#define LINES_DEFAULT_LINES (1u << 21)
#define LINES_DEFAULT_EXT 16384
#define LINES_DEFAULT_TOP 1000

struct lines_config {
	uint64_t lines;		/* table slots, rounded up to a power of two */
	uint32_t ext_lines;	/* detail records */
	unsigned vcpus;		/* 1..LINES_MAX_VCPUS */
	bool locked;		/* callbacks run concurrently (MTTCG) */
	bool always;		/* no window: count from the start */
	/*
	 * Each window on its own (NULL: the windows add up): at each close the
	 * window's row and its top lines (with shapes and sites) are written
	 * to this stream, and at the next opening the detail pool and every
	 * line's counts start afresh, so memory stays that of one window.
	 * lines_model_write() copies the stream into the file it writes.
	 */
	FILE *each;
	unsigned each_top;	/* lines written per window (0: LINES_DEFAULT_TOP) */
};

/* What a line, a shape or a site counted. */
struct lines_counts {
	uint64_t loads, stores;
	uint64_t load_hitm, store_hitm, store_inval;
	uint64_t false_sharing, true_sharing;
};

/* Accesses at one (offset, size) of a line. */
struct lines_shape {
	uint8_t off, size;	/* size 0: unused */
	uint8_t next;		/* the next shape at this offset (1-based; 0 none) */
	uint64_t other_mask;	/* the other side's bytes, over its events */
	struct lines_counts c;
};

/* Accesses by one instruction on one vCPU at one (offset, size) of a line:
 * its events (its loads and stores are those that were events), or every
 * access on a line asked for with LINES_DETAIL. */
struct lines_site {
	uint64_t pc;
	uint8_t vcpu, off, size, store;	/* size 0: unused */
	uint8_t prev_vcpu;		/* the writer of its last event (LINES_NO_VCPU: readers) */
	uint64_t prev_pc;		/* that writer's PC (0: readers) */
	uint64_t other_mask;		/* the other side's bytes, over its events */
	struct lines_counts c;
};

/* The detail of a line with sharing events. */
struct lines_ext {
	uint64_t paddr;		/* of the line */
	uint64_t vaddr;		/* of the line, at its first event */
	uint64_t loads, stores;	/* since the window opened (from the slot) */
	struct lines_counts c;	/* since its first event */
	struct lines_counts other_shapes, other_sites;	/* what did not fit */
	unsigned nshapes, nsites;
	/* Lookups that touch one or two host cachelines, not every entry:
	 * the first shape at each offset (1-based), a tag per site slot. */
	uint8_t shape_at[LINES_LINE_SIZE];
	uint32_t site_tag[LINES_SITES];
	struct lines_shape shapes[LINES_SHAPES];
	struct lines_site sites[LINES_SITES];
};

/* Totals, over all vCPUs. */
struct lines_totals {
	uint64_t accesses, loads, stores;	/* in the window, in scope */
	uint64_t load_hitm, store_hitm, store_inval, false_sharing, true_sharing;
	uint64_t split, split_page_dropped;
	uint64_t dropped_accesses, dropped_lines_min;
	uint64_t ext_dropped_events, ext_dropped_lines;
	uint64_t io, no_paddr;
	uint64_t lines_used, ext_used;
	uint64_t capacity, ext_capacity;
	uint64_t windows_opened, windows_closed;
	bool window_open;
};

/* One window's totals (rows past LINES_WINDOWS add to the last). */
struct lines_window_row {
	uint64_t index;		/* the window's number, from 0 (each mode: every window has its row) */
	uint64_t accesses, load_hitm, store_hitm, store_inval, false_sharing, true_sharing;
	uint64_t windows;	/* how many windows this row holds (1, or more in the last row) */
	bool open;		/* still open when read */
	/* The guest instructions the vCPUs ran in it (lines_model_window_insns):
	 * insns_counted false when nobody counted them ("-" in the file);
	 * insns_per_vcpu false when only the total is known (qemu 7.2). */
	bool insns_counted, insns_per_vcpu;
	uint64_t insns;
	uint64_t insns_vcpu[LINES_MAX_VCPUS];
};

enum lines_skip { LINES_SKIP_IO, LINES_SKIP_NO_PADDR };

struct lines_model;

/* NULL with the reason in err when the config is out of range or memory is short. */
struct lines_model *lines_model_new(const struct lines_config *c, char *err, size_t errlen);
void lines_model_free(struct lines_model *m);

/* The window flag, first thing in the model (read on every access). */
struct lines_model_head {
	int counting;
};
static inline bool lines_model_counting(const struct lines_model *m)
{
	return __atomic_load_n(&((const struct lines_model_head *)m)->counting, __ATOMIC_RELAXED);
}

/* Opens or closes the window (vcpu: the one that said so). */
void lines_model_window(struct lines_model *m, unsigned vcpu, bool open);
/* The open window's number (as its row's index), or -1 when it is closed. */
int64_t lines_model_window_index(struct lines_model *m);
/*
 * The instructions the vCPUs ran in the open window (the caller counts
 * them: the plugin's inline counters), given just before it closes (or
 * before the model is written with a window still open): added to its
 * row.  per_vcpu: n counts, one per vCPU, or NULL (the total only).
 */
void lines_model_window_insns(struct lines_model *m, uint64_t total, const uint64_t *per_vcpu, unsigned n);
/* An access's flags: a store (else a load); its line wants a detail record
 * from its first access on (the objects the lab names fields of), not only
 * from its first sharing event. */
#define LINES_STORE 1u
#define LINES_DETAIL 2u
/*
 * One access of size bytes at vaddr/paddr by the instruction at pc on vCPU
 * vcpu.  Does nothing outside the window.
 */
void lines_model_access(struct lines_model *m, unsigned vcpu, uint64_t pc, uint64_t vaddr, uint64_t paddr,
			unsigned size, unsigned flags);
/* An access that was not followed, and why (counted in the window only). */
void lines_model_skip(struct lines_model *m, unsigned vcpu, enum lines_skip why);

void lines_model_totals(struct lines_model *m, struct lines_totals *t);
/* The bytes the model allocated (the detail pool is touched only as used). */
size_t lines_model_bytes(const struct lines_model *m);
/* A line's accesses since the window opened (0 when it has no slot). */
bool lines_model_line_counts(struct lines_model *m, uint64_t paddr, uint64_t *loads, uint64_t *stores);
/* The detail record of the line holding paddr, or NULL. */
const struct lines_ext *lines_model_ext(struct lines_model *m, uint64_t paddr);
unsigned lines_model_windows(struct lines_model *m, struct lines_window_row *rows, unsigned max);

/*
 * Writes the model (format in lab/c2c/README): the meta lines, then
 * windows, then the top lines by events with their shapes and sites (with
 * each: every window's row and lines as written at its close, then those
 * of a window still open).  The
 * caller has written the first line (lines_write_begin) and its own meta
 * lines (lines_write_meta); problem, when not NULL, is a problem the
 * caller saw, added to the status.  Takes every lock (MTTCG: vCPUs may
 * still run).  -1 with errno on a write error.
 */
void lines_write_begin(FILE *f);
void lines_write_meta(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int lines_model_write(struct lines_model *m, FILE *f, unsigned top, const char *problem);

/* The byte mask of [off, off + size) within a line (off + size <= 64). */
static inline uint64_t lines_mask(unsigned off, unsigned size)
{
	return (size >= 64 ? ~0ULL : ((1ULL << size) - 1)) << off;
}

#endif
