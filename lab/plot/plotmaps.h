/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Data for the two map plots: the cacheline map of a struct layout (from
 * a layout capture's cachelines.txt) and the false-sharing map of a struct
 * (from c2c's fieldmap-<struct>.tsv), each shaped into the TSV its gnuplot
 * template draws.
 */
#ifndef LAB_PLOT_PLOTMAPS_H
#define LAB_PLOT_PLOTMAPS_H

#include <stdbool.h>
#include <stdio.h>

/*
 * One struct of a layout capture as its cacheline map draws it.  Each byte
 * range is one box: the members of a union (memsw and swap share their
 * page_counter) are one box named "swap|memsw.usage", hot-written when
 * any member is.  Where every named box of a line shares a prefix
 * ("memory."), the line carries it and the boxes only their leaf names.
 */
struct cl_box {
	int line, start, end;	/* bytes [start, end) of the line */
	int tag;		/* layouts: 1 hot-written, 2 read-mostly, 0 other; lines
				 * counts: 3 false sharing, 4 true sharing, 5 no HITM, 0 untouched */
	char *name;		/* the members' full names, '|'-joined */
	const char *leaf;	/* what the box says: name without its line's prefix */
	bool quiet;		/* no key in the list when its name does not fit (untouched) */
};

struct cl_struct {
	char name[128];
	int size, nlines, linesize;
	struct cl_box *boxes;
	size_t nboxes;
	char **prefix;		/* per line: "memory", "swap|memsw", or "" */
	int *line_no;		/* the struct's cacheline of each row; NULL: row i is line i */
};

struct lines_fields;

/*
 * The cacheline map of struct st coloured by a guest run's cacheline
 * counts (report/lines_fields.h: fields.tsv): a row for each line that
 * holds a field the plugin followed (line_no says which), each field's
 * bytes a box tagged 3 when its HITMs were mostly false sharing, 4 mostly
 * true sharing, 5 loaded or stored without a HITM, 0 untouched.  *notes:
 * one line per field with HITMs, most first ("memory.parent: 436 false,
 * 0 true HITMs; the other side memory.usage"); per is the operations to
 * give them per 1000 of (<= 0: none).  0, or -1 when st has no row with
 * an offset (a fields.tsv without offsets).
 */
int plotmap_lines_struct(const struct lines_fields *lf, const char *st, int linesize, double per,
			 struct cl_struct *out, char **notes);

/* Reads every struct of cachelines.txt into *out (n of them); 0, or -1
 * with a line-numbered reason in err. */
int plotmap_cachelines_read(const char *path, struct cl_struct **out, int *n, char *err, size_t errlen);
void plotmap_cachelines_free(struct cl_struct *s, int n);
/* What one struct holds (not the struct itself). */
void plotmap_struct_free(struct cl_struct *s);

/*
 * How wide a rendering's box labels are, in bytes of the x axis: em is
 * the font's em (monospace: one character cell), pad the room a label
 * keeps from its box's edges.
 */
struct cl_geometry {
	double em_bytes, pad_bytes;
	int monospace;
};

/* A label's width in ems (DejaVu Sans, rounded up by character class;
 * one per character when monospace). */
double plotmap_label_ems(const char *s, int monospace);

/*
 * Labels for s's boxes in a rendering of geometry g: the leaf name where
 * it fits its box, else a short key ("a", "b", ...) where that fits, else
 * nothing; every name not drawn in full has its key in the side list, one
 * "key name" per line.  labels[i] (malloc'd, as is *keys) is box i's.
 * Returns the number of side-list lines.
 */
int plotmap_cachelines_label(const struct cl_struct *s, const struct cl_geometry *g, char ***labels, char **keys);

/* What a false-sharing map holds besides its rows. */
struct fieldmap_info {
	const char *metric;	/* the readers' count: "HITMs", or "peer snoops" (Arm SPE) */
	int nfields;
	int store_rows;		/* writing functions' rows with a store count */
};

/*
 * Sums a fieldmap-<struct>.tsv per field into rows "field reads stores"
 * in field-offset order: reads, the reading functions' HITMs (or peer
 * snoops where no HITM was measured); stores, the writing functions'
 * store samples (c2c_attr.c writes a function's reads and writes as two
 * rows), NaN on every row when no writer row has a store count.  Returns
 * a malloc'd TSV (header row first) or NULL with err.
 */
char *plotmap_fieldmap(const char *path, struct fieldmap_info *info, char *err, size_t errlen);

#endif
