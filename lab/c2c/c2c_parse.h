/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for `perf c2c report --stdio` of every perf version the lab has
 * seen (lab/README section 2; the samples in
 * lab/tests/data/samples/c2c).
 *
 * What it reads:
 *   - the statistics blocks (Trace Event Information, Global Shared Cache
 *     Line Event Information, c2c details): every key, unknown ones kept;
 *   - the Shared Data Cache Line Table: one row per cacheline;
 *   - every Pareto block: the per-cacheline summary line (merged into the
 *     cacheline's row) and its offset rows.
 * Columns are found from the two header lines, never from fixed positions:
 * they depend on the perf version, -d (HITM or Peer), -c (pid/tid/iaddr/dso),
 * --no-source, -N and --double-cl.  Excerpts (mail-quoted, TAB-indented,
 * without banners or headers, cut off mid-block) are parsed as far as they
 * go; everything the parser had to guess or skip becomes a warning that
 * names the line.  A value is never invented: what a report does not say is
 * left empty.
 *
 * Offset rows can be streamed to a callback (reports with millions of
 * rows) or kept in memory.
 */
#ifndef LAB_C2C_C2C_PARSE_H
#define LAB_C2C_C2C_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "c2c/c2c_parse_keys.h"
#include "c2c/c2c_vendor.h"
#include "util/arena.h"

/* The keys' names: the TSVs' header rows (c2c_parse_dir.c). */
extern const char *const c2c_cl_key_names[CL_NKEYS];
extern const char *const c2c_off_key_names[OFF_NKEYS];

struct c2c_stat {
	const char *section;	/* "trace", "global", "details" */
	const char *key;	/* as printed, trimmed ("Load Local HITM") */
	const char *value;	/* without the '%' ("57.3", "-nan", "Total HITMs") */
	const char *unit;	/* "%" or "" */
	int line;
};

struct c2c_cacheline {
	const char *v[CL_NKEYS];	/* NULL: the report has no such value */
	uint64_t address;
	int index;
	int line;			/* first line that described it */
};

struct c2c_offset {
	const char *v[OFF_NKEYS];
	const struct c2c_cacheline *cl;	/* the block's cacheline (never NULL) */
	int line;
};

struct c2c_warning {
	int line;
	const char *msg;
};

struct c2c_report {
	const char *name;		/* file name, for messages */
	struct arena arena;		/* every string below */

	struct c2c_stat *stats;
	size_t nstats, stats_cap;
	struct c2c_cacheline *cls;
	size_t ncls, cls_cap;
	struct c2c_offset *offs;	/* only when no offset callback is given */
	size_t noffs, offs_cap;
	size_t noffs_seen;		/* offset rows parsed (kept or streamed) */
	struct c2c_warning *warns;
	size_t nwarns, warns_cap;

	/* What the header lines and c2c details said. */
	enum c2c_vendor vendor;		/* from the Events line (c2c_vendor_of_event), or
					 * c2c_report_assume_vendor() */
	bool peer_display;		/* "Peer Snoop" instead of HITM */
	bool double_cl;			/* --double-cl (128-byte groups) */
	const char *sort_on;		/* "Total HITMs", "Peer Snoop", ... or NULL */
	const char *grouping;		/* "offset,pid,iaddr" or NULL */
	int nlines;
};

/* Called for each offset row when streaming; the row dies after the call. */
typedef void (*c2c_offset_cb)(const struct c2c_offset *o, void *arg);

/*
 * Parses a report.  With cb == NULL every offset row is kept in r->offs.
 * Returns 0; the report is always usable (warnings say what was skipped).
 * Fails (-1, errno) only when the file cannot be read.
 */
int c2c_parse_file(struct c2c_report *r, FILE *f, const char *name, c2c_offset_cb cb, void *arg);
int c2c_parse_path(struct c2c_report *r, const char *path, c2c_offset_cb cb, void *arg);
void c2c_report_free(struct c2c_report *r);

/* Numeric value of a cell (strtod; '%' already stripped); false if absent or not a number. */
bool c2c_num(const char *cell, double *out);

/* TSV writers, header row first (c2c_parse_dir.c). */
void c2c_write_stats_tsv(const struct c2c_report *r, FILE *f);
void c2c_write_cachelines_tsv(const struct c2c_report *r, FILE *f);
void c2c_write_offsets_header(FILE *f);
void c2c_write_offset_row(const struct c2c_offset *o, FILE *f);
void c2c_write_warnings_tsv(const struct c2c_report *r, FILE *f);
/* Prints the warnings as "memcg-lab: warning: FILE:LINE: msg" on stderr. */
void c2c_print_warnings(const struct c2c_report *r);

/*
 * The vendor of the machine the report was recorded on, for a report whose
 * Events line did not say (an excerpt, an unknown event): the collector's
 * c2c_caps.vendor, `memcg-lab c2c report --pmu`.  The Events line wins.
 */
void c2c_report_assume_vendor(struct c2c_report *r, enum c2c_vendor v);
/* A statistic's numeric value (first of that key in any section); false if absent. */
bool c2c_stat_num(const struct c2c_report *r, const char *key, double *out);

/* True when nothing in the file looked like perf c2c output. */
bool c2c_report_is_empty(const struct c2c_report *r);
/*
 * Parses path into dir/{stats,cachelines,offsets,warnings}.tsv (offsets
 * streamed, so memory stays flat; c2c_parse_dir.c); r keeps stats and
 * cachelines.  Returns 0, or -1 with a one-line reason in err (I/O error,
 * or no c2c content at all).
 */
int c2c_parse_to_dir(const char *path, const char *dir, struct c2c_report *r, char *err, size_t errlen);

#endif
