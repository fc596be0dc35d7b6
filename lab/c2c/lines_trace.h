/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lines plugin's access trace (vm --lines --trace): inside the guest's
 * windows, every access to the lines asked for in detail (the objects the
 * lab names fields of: each struct mem_cgroup with its page_counters, every
 * CPU's memcg_stock_pcp / obj_stock_pcp, the structs a user names), in the
 * order the model saw them, so that one run can be replayed against any
 * other layout (`memcg-lab lines predict`, `lines suggest`).
 *
 * The file (OUT.trace beside the plugin's lines.tsv; vm moves it to
 * lines/trace.bin) is little-endian, written by the plugin and read by the
 * host (c2c/lines_trace_read.c):
 *
 *   struct lines_trace_header   once, at offset 0
 *   struct lines_trace_rec      nrecords of them, in order
 *
 * Bounded: the plugin is given the most records it may write (trace=N,
 * default LINES_TRACE_DEFAULT_RECORDS: N x 24 bytes, said up front by vm
 * --lines --trace); past it the accesses are counted in `dropped` and the
 * header's status says LINES_TRACE_FULL: a full trace is said, never
 * silently cut.  The header is written last (at qemu's exit), so a file
 * whose header still says LINES_TRACE_WRITING, or whose size is not
 * header + nrecords x record_size, was cut short.
 *
 * A record's object is found on the host from its vaddr: the objects each
 * window announced (window-objects.tsv: label, type, address, size),
 * with the guest's own BTF for their layout.
 */
#ifndef LAB_C2C_LINES_TRACE_H
#define LAB_C2C_LINES_TRACE_H

#include <stdint.h>

#define LINES_TRACE_MAGIC "MLTRACE\0"	/* 8 bytes */
#define LINES_TRACE_VERSION 1
#define LINES_TRACE_DEFAULT_RECORDS (16u << 20)	/* 16 M records, 384 MiB */

/* status */
#define LINES_TRACE_WRITING 0	/* the plugin has not finished the file */
#define LINES_TRACE_COMPLETE 1	/* every access in the windows is in it */
#define LINES_TRACE_FULL 2	/* the cap was reached: `dropped` were not written */

struct lines_trace_header {
	char magic[8];			/* LINES_TRACE_MAGIC */
	uint32_t version;		/* LINES_TRACE_VERSION */
	uint32_t record_size;		/* sizeof(struct lines_trace_rec) */
	uint64_t nrecords;		/* records that follow */
	uint64_t dropped;		/* accesses past the cap, not written */
	uint64_t cap;			/* the most records it could hold */
	uint32_t status;		/* LINES_TRACE_* */
	uint32_t vcpus;
	uint64_t reserved[4];		/* 0 */
};					/* 80 bytes */

/* flags */
#define LINES_TRACE_STORE 1u		/* else a load */

struct lines_trace_rec {
	uint64_t vaddr;			/* the access's guest virtual address */
	uint64_t pc;			/* the instruction's */
	uint32_t window;		/* the plugin's window number, from 0 */
	uint8_t vcpu;
	uint8_t size;			/* bytes, 1..64 (an access across two lines is two records) */
	uint8_t flags;			/* LINES_TRACE_* */
	uint8_t pad;			/* 0 */
};					/* 24 bytes; the sequence is the record's index */

_Static_assert(sizeof(struct lines_trace_header) == 80, "lines trace header: 80 bytes");
_Static_assert(sizeof(struct lines_trace_rec) == 24, "lines trace record: 24 bytes");

#endif
