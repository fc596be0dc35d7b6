/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output of `perf lock contention` as users capture it: the text table
 * (all perf versions, caller / -t task / -l address / --lock-cgroup views,
 * -v stacks, the debug footer, old narrow columns) and the CSV of -x SEP
 * (perf 6.5+).  Parsing rules: lab/README section 3.
 * With -o -v (perf 6.15+) a table ends with the owner section
 * ("=== owner stack trace ===", or "# owner stack trace:" in CSV): rows of
 * the same layout whose keys are lock owners, kept apart from the waiters
 * by their role.
 * A capture may hold several tables (one per command); text around them
 * (prompts, ^C, the workload's own output) is skipped.
 *
 * Also perf's time formatting, so that the lab can print numbers exactly
 * as perf would (agreement checks compare the printed strings).
 */
#ifndef LAB_LOCK_LOCKCON_TEXT_H
#define LAB_LOCK_LOCKCON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum lockcon_text_view {
	LCT_CALLER,	/* type, caller */
	LCT_TASK,	/* pid, comm (or owner) */
	LCT_ADDR,	/* address, symbol, (type) */
	LCT_CGROUP,	/* cgroup path */
};

enum lockcon_text_col { LCT_CONTENDED, LCT_WAIT_TOTAL, LCT_WAIT_MAX, LCT_WAIT_MIN, LCT_WAIT_AVG, LCT_NCOLS };

#define LCT_ABSENT UINT64_MAX

struct lockcon_text_row {
	uint64_t v[LCT_NCOLS];	/* contended count and waits in ns; LCT_ABSENT if not shown */
	char type[24];		/* caller and address views ("" when not printed) */
	char caller[160];	/* caller view */
	long pid;		/* task view; -1 for "Unknown" */
	char comm[64];
	uint64_t addr;		/* address view */
	char symbol[128];
	char cgroup[512];
	int nframes;		/* -v stack lines under the entry */
	int line;		/* where the row was read */
	bool owner;		/* from the owner section (-o -v, perf 6.15+): a lock
				 * owner's row, not a waiter's */
};

struct lockcon_text_table {
	enum lockcon_text_view view;
	bool csv;
	int cols[LCT_NCOLS + 1];	/* the columns in printed order, LCT_NCOLS-terminated */
	struct lockcon_text_row *rows;
	size_t n;
	size_t nowners;		/* rows of the owner section (after the waiters) */
	int owner_line;		/* its "=== owner stack trace ===" line, or 0 */
	bool have_debug;	/* a debug footer was present */
	uint64_t debug_bad, debug_total;
	int header_line;
};

/*
 * Parses every table of a capture; 0, or -1 with one line in err naming
 * source:line and the field at fault.  A capture without any table is an
 * error too.
 */
int lockcon_text_parse(const char *text, const char *source, struct lockcon_text_table **tables,
		       size_t *ntables, char *err, size_t errlen);
void lockcon_text_free(struct lockcon_text_table *tables, size_t ntables);

/* perf's time column: "%9.2f <unit>" (h, m, s, ms, us) or "%9llu ns". */
void lockcon_text_format_time(uint64_t ns, char *buf, size_t n);
/* Parses "<number> <unit>" as printed; 0 or -1. */
int lockcon_text_parse_time(const char *num, const char *unit, uint64_t *ns);

const char *lockcon_text_view_name(enum lockcon_text_view v);
/* The rows as TSV with a header row: key contended wait_total_ns
 * wait_max_ns wait_avg_ns wait_min_ns type role (absent values as "-";
 * role is waiter or owner). */
void lockcon_text_write_tsv(FILE *f, const struct lockcon_text_table *t);

#endif
