/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads the file the lines plugin writes at qemu's exit (format: lab/c2c/README,
 * written by c2c/lines_model.c): the meta lines, the windows, and per line
 * its shapes (offset, size) and sites (PC, vCPU, offset, size, R/W).
 *
 * Columns are found by the names of the `#fields` lines (util/tsv.h's
 * multi-kind files: each row's first cell names its kind), so that a later
 * writer may add columns (a line's `window` is read where it is given: the
 * plugin's windows=each); a missing column, a bad number, a shape or site
 * of a line not given first, a format version other than
 * LINES_FORMAT_VERSION or a file without its `# end` line (cut short) is
 * an error: one line naming the file, the line number and the field.
 */
#ifndef LAB_C2C_LINES_PARSE_H
#define LAB_C2C_LINES_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "c2c/lines_model.h"

struct lines_pshape {
	unsigned off, size;
	struct lines_counts c;
	uint64_t other_mask;
};

struct lines_psite {
	uint64_t pc;
	unsigned vcpu, off, size;
	bool store;
	struct lines_counts c;
	int prev_vcpu;		/* -1: the other side only loaded the line */
	uint64_t prev_pc, other_mask;
};

struct lines_pline {
	int64_t window;			/* the window it was counted in; -1: the windows add up */
	uint64_t paddr, vaddr;
	uint64_t win_loads, win_stores;	/* since the window opened */
	struct lines_counts c;		/* since the line's first event */
	uint64_t other_shape_accesses, other_shape_events, other_site_accesses, other_site_events;
	struct lines_pshape *shapes;
	size_t nshapes;
	struct lines_psite *sites;
	size_t nsites;
};

struct lines_meta_kv {
	char *key, *value;
};

struct lines_file {
	int version;
	struct lines_meta_kv *meta;
	size_t nmeta;
	struct lines_window_row *windows;
	size_t nwindows;
	struct lines_pline *lines;
	size_t nlines;
};

/* 0, or -1 with one line in err ("FILE:LINE: field F: why"). */
int lines_parse_file(const char *path, struct lines_file *out, char *err, size_t errlen);
/* The same on text in memory (name is what errors call it). */
int lines_parse_text(const char *name, const char *text, size_t len, struct lines_file *out, char *err,
		     size_t errlen);
void lines_file_free(struct lines_file *f);

/* A meta value ("# key<TAB>value"), or NULL. */
const char *lines_meta(const struct lines_file *f, const char *key);
/* A meta value as a number: -1 when absent or not a number. */
int lines_meta_u64(const struct lines_file *f, const char *key, uint64_t *v);
/* The line holding paddr (the first of its rows: of the first window), or NULL. */
const struct lines_pline *lines_file_line(const struct lines_file *f, uint64_t paddr);
/* The line whose vaddr (of its first event) is vaddr's line, or NULL. */
const struct lines_pline *lines_file_line_at_vaddr(const struct lines_file *f, uint64_t vaddr);

#endif
