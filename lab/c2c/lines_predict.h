/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `memcg-lab lines predict`: a vm --lines --trace run's accesses replayed
 * against another layout (c2c/lines_replay.h), beside the same accesses
 * replayed on the layout they were recorded with.
 *
 * The run: its lines directory (RESULTS/lines/: trace.bin, the objects of
 * each window in window-objects.tsv, the guest kernel's vmlinux.btf;
 * RESULTS/guest.txt says its cgroup version, window-ops.tsv its
 * operations).  The new layout of each traced struct is one of:
 *   - the struct in another build's BTF or vmlinux (fields matched by
 *     their nested names);
 *   - today's layout (or that BTF's) edited (c2c/lines_layout.h): the
 *     edits name members of --struct S, which is a traced struct or one
 *     they embed (page_counter in mem_cgroup);
 *   - either at a line size of 128 (adjacent-line prefetch pairs).
 *
 * Bad input is one line (the caller's exit 2): a trace of another format
 * version or cut off (c2c/lines_trace_read.h), a layout lacking a traced
 * struct (or S), an edit naming no member, an offset over another member.
 */
#ifndef LAB_C2C_LINES_PREDICT_H
#define LAB_C2C_LINES_PREDICT_H

#include <stdbool.h>
#include <stdio.h>
#include "c2c/lines_guest.h"
#include "c2c/lines_layout.h"
#include "c2c/lines_replay.h"
#include "c2c/lines_trace_read.h"

#define LINES_PREDICTED_FILE "predicted-fields.tsv"
#define LINES_PREDICTED_MAGIC "# memcg-lab predicted-fields 1"

/* A run's trace with what names its bytes. */
struct lp_run {
	char *lines_dir;		/* RESULTS/lines */
	char *trace_path;
	struct lines_guest g;		/* windows, ops, the guest's BTF and cgroup version */
	struct lines_trace trace;
	struct lines_trace_objs objs;
	char full[512];			/* the trace's cap was reached: one line, else "" */
	char **types;			/* the traced structs, in the objects' order */
	size_t ntypes;
	struct ll_layout *old;		/* per type: the guest's layout */
	double ops;			/* the operations of the trace's windows (-1: not all counted) */
	char unit[32];
};

/*
 * path: a trace file in a lines directory, the lines directory, or its
 * results directory; cg: names mem_cgroup's union when the run's guest.txt
 * does not (FIELD_CG_UNKNOWN: as the run says).  0, or -1 with one line.
 */
int lp_run_load(struct lp_run *r, const char *path, enum field_cgroup cg, char *err, size_t errlen);
void lp_run_free(struct lp_run *r);

struct lp_opts {
	const char *layout;		/* another build's BTF or vmlinux, or NULL */
	const char *st;			/* the struct the edits name (NULL: the one traced struct) */
	const struct ll_edit *edits;
	size_t nedits;
	unsigned line;			/* 64 or 128 */
};

/* The new layout of each traced struct (news[ntypes], to free with
 * lines_layout_free), and what it is in one line (desc, malloc'd). */
int lp_new_layouts(const struct lp_run *r, const struct lp_opts *o, struct ll_layout *news, char **desc,
		   char *err, size_t errlen);

/* The structs of r with both layouts, for lines_replay (types[ntypes]). */
void lp_types(const struct lp_run *r, const struct ll_layout *news, struct lr_type *types);

/* A replay's counts as fields.tsv rows (c2c/lines_table.h's columns), after
 * the comment lines given ("# KEY\tVALUE" each, NULL-terminated). */
int lp_write_fields(const struct lr_type *types, size_t ntypes, const struct lr_result *res, bool recorded,
		    const char *path, const char *const *comments, char *err, size_t errlen);

/*
 * The comparison printed: the not-replayed notes of both replays, then per
 * struct each field with events in either (recorded layout, replayed at
 * 64-byte lines; the new one at o->line): offset, HITMs (load and store),
 * false, true, the change; totals, per 1000 operations where the run
 * counted them.
 */
void lp_print(FILE *f, const struct lp_run *r, const struct lr_type *types, size_t ntypes,
	      const struct lr_result *rec, const struct lr_result *pred, unsigned line, const char *desc);
/* The trace's line (records, vCPUs, status; full). */
void lp_print_trace(FILE *f, const struct lp_run *r);
/* At 128-byte lines: the fields of each new layout that share 2 bytes. */
void lp_print_granules(FILE *f, const struct lr_type *types, size_t ntypes, unsigned line);
/* Per struct (only[t], or all when NULL), each field with events in
 * either: a's layout (types[].old, rec) against b's (types[].new, pred). */
void lp_print_tables(FILE *f, const struct lp_run *r, const struct lr_type *types, size_t ntypes,
		     const struct lr_result *rec, const struct lr_result *pred, const char *ta, const char *tb,
		     const bool *only);
/* The notes of one replay: what was not replayed, the remap's splits,
 * where objects meet. */
void lp_print_notes(FILE *f, const struct lr_result *res, const char *which);

#endif
