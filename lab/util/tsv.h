/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lab's own file format: TSV, read by column name and written with its
 * header.  Every reader and writer of the lab's .tsv files goes through
 * here; nothing else splits a line at its tabs.
 *
 * The format.  Lines end with '\n' (a '\r' before it is dropped).  A line
 * that starts with '#' is a comment, a blank line is skipped.  The first
 * other line is the header: the columns' names, tab-separated.  Every
 * later line is a row of exactly as many cells as the header names
 * (an empty cell keeps its place: "a\t\tb" is three cells).  A file may
 * open with a format line "# memcg-lab NAME N" (tsv_format).  A NUL byte
 * is refused: not a text file.
 *
 * A reader asks for its columns by name (cols[], NULL-ended; "?name": a
 * column the file may lack) and gets each row's cells by its own index
 * into cols[]: the file's order, and columns it does not know, do not
 * matter.  A required column missing from the header, a row of another
 * width than the header, a cell that is not what its getter reads: one
 * line in err, "FILE:LINE: field COLUMN: what" (or "FILE:LINE: what").
 *
 * Multi-kind files (the lines plugin's lines.tsv: c2c/lines_parse.h):
 * "#fields<TAB>KIND<TAB>COL..." lines name each row kind's columns, and a
 * row's first cell is its kind (tsv_open_kinds).  Rows of a kind the
 * reader does not know are skipped; a row of a known kind before its
 * #fields line is an error.
 *
 * The writer: a text cell never holds a tab, a newline or another control
 * byte (below 0x20, or DEL): each becomes a space (a file name or a
 * label may hold one), so a cell never splits its row and a reader never
 * sees an escape.  Numbers are written as printf writes them.
 */
#ifndef LAB_UTIL_TSV_H
#define LAB_UTIL_TSV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
	/* No header row: cols[] name the columns in their order (index.txt). */
	TSV_NO_HEADER = 1 << 0,
	/* tsv_next returns comment lines too (TSV_COMMENT), split at their tabs. */
	TSV_COMMENTS = 1 << 1,
};

/* What tsv_next found. */
enum { TSV_ERROR = -1, TSV_END = 0, TSV_ROW = 1, TSV_COMMENT = 2 };

/* A row kind of a multi-kind file: its name and the columns it is read by. */
struct tsv_kind {
	const char *name;
	const char *const *cols;	/* NULL-ended; "?name": optional */
};

struct tsv_kcols;

struct tsv {
	/* For the caller to read. */
	const char *path;	/* what messages call the file */
	char *text;		/* the file's text (split in place); NULL: not open */
	int lineno;		/* the line of the row (or comment) tsv_next returned */
	int kind;		/* tsv_open_kinds: the index of the row's kind */

	/* The reader's own. */
	char *pos, *err;
	size_t errlen;
	unsigned flags;
	const struct tsv_kind *kinds;
	int nkinds;
	struct tsv_kind one;
	struct tsv_kcols *k;
	char **cell;
	int ncell, cellcap;
};

/*
 * Opens path for the columns cols[] (flags: TSV_*) and reads up to its
 * header (with TSV_COMMENTS, or TSV_NO_HEADER, tsv_next finds it).  0, or
 * -1 with one line in err: the file cannot be read, is empty, has no
 * header row, or its header lacks a required column.  err must outlive t:
 * every later message goes there too.  tsv_close(t) either way.
 */
int tsv_open(struct tsv *t, const char *path, const char *const cols[], unsigned flags, char *err, size_t errlen);
/* The same on len bytes of text in memory (copied); name is what messages call it. */
int tsv_open_text(struct tsv *t, const char *name, const char *text, size_t len, const char *const cols[],
		  unsigned flags, char *err, size_t errlen);
/* The same on what is left of an open stream (read to its end). */
int tsv_open_stream(struct tsv *t, FILE *f, const char *name, const char *const cols[], unsigned flags, char *err,
		    size_t errlen);
/* A multi-kind file in memory: kinds[] ends with { NULL }. */
int tsv_open_kinds(struct tsv *t, const char *name, const char *text, size_t len, const struct tsv_kind kinds[],
		   unsigned flags, char *err, size_t errlen);

/* The next row: TSV_ROW, TSV_COMMENT (with TSV_COMMENTS), TSV_END, or TSV_ERROR with err. */
int tsv_next(struct tsv *t);

/* Column i (the caller's index into cols[]) of the row: "" where an
 * optional column is absent from the file. */
const char *tsv_get(const struct tsv *t, int i);
/* Whether the file has column i (false only for an optional one). */
bool tsv_has(const struct tsv *t, int i);
/* The row's (or comment's) cells by their place in the line. */
int tsv_ncells(const struct tsv *t);
const char *tsv_cell(const struct tsv *t, int j);

/* Column i as a number: 0, or -1 with "FILE:LINE: field COL: 'V' is not
 * a number" (an integer, for tsv_long).  tsv_u64: decimal or 0x hex, no
 * sign; tsv_long: decimal, signed; tsv_double: what strtod reads. */
int tsv_u64(struct tsv *t, int i, uint64_t *v);
int tsv_long(struct tsv *t, int i, long *v);
int tsv_double(struct tsv *t, int i, double *v);
/* A reader's own complaint about column i of the row (i < 0: about the
 * row): "FILE:LINE: field COL: " then fmt; returns -1. */
int tsv_fail(struct tsv *t, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* N of the file's format line "# memcg-lab NAME N" (its first line); 0
 * when it has none, or one of another NAME. */
int tsv_format(const struct tsv *t, const char *name);
void tsv_close(struct tsv *t);

/* The header row: cols[] (NULL-ended; a reader's '?' is not written). */
void tsv_write_header(FILE *f, const char *const cols[]);
/* fmt's cells as printf writes them, but each %s and %c argument with a
 * tab, newline or other control byte as a space; fmt's own text, its
 * tabs and newline, as it stands (a piece of a row too). */
void tsv_write_row(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tsv_vwrite_row(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* The same into a string (malloc'd): a line to hand to a writer whole,
 * such as a "# key<TAB>value" comment. */
char *tsv_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A row of n text cells. */
void tsv_write_cells(FILE *f, const char *const cells[], int n);
/* One text cell, then sep ('\t', '\n', or 0 for none). */
void tsv_field(FILE *f, const char *s, char sep);

#endif
