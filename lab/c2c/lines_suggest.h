/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `memcg-lab lines suggest`: a member order and padding for struct S with
 * the fewest predicted false-sharing transfers, judged by replaying the
 * run's trace (c2c/lines_replay.h) on each layout tried.
 *
 * From the trace, each member of S (over every instance: each memcg's
 * page_counters, each CPU's stock) has the set of vCPUs that wrote it and
 * that read it.  The layouts tried:
 *   writer sets  the members grouped by the vCPUs that write them, as
 *                Huron does for user space: one group per writer set, the
 *                read-only members together, each group from a new line;
 *                the members nobody touched fill the groups' last lines;
 *   each         every written member alone on its line(s);
 *   together     the written members on one line, the read-only on
 *                another;
 *   pad          the kernel's order, a line break before and after each
 *                run of written members (the smallest edit);
 * and, where a layout needs more lines than the budget allows, the writer
 * sets' groups merged pair by pair, the merge with the fewest false
 * sharing kept, until it fits.  The best layout has the fewest false
 * sharing events in the structs that hold S, then the fewest events, then
 * the fewest lines.
 */
#ifndef LAB_C2C_LINES_SUGGEST_H
#define LAB_C2C_LINES_SUGGEST_H

#include <stdbool.h>
#include <stdio.h>
#include "c2c/lines_predict.h"

struct ls_opts {
	const char *st;			/* S */
	int budget;			/* lines above the kernel's layout of S (may be < 0) */
	bool budget_set;		/* false: no limit */
	unsigned line;			/* 64, or 128 (groups start 128-byte pairs; replayed at 128) */
	unsigned max_evals;		/* replays at most (0: 200) */
};

/* What the trace says of a member of S. */
struct ls_member {
	uint64_t loads, stores;
	uint64_t readers, writers;	/* vCPU bitmasks */
};

struct ls_candidate {
	char *name;			/* "writer sets", "pad", "writer sets, merged 3" */
	struct ll_layout s;		/* S */
	uint64_t false_events, events, lines;
	bool fits;
};

struct ls_result {
	struct ll_layout kernel;	/* S as the run's kernel lays it out */
	struct ls_member *m;		/* per unit of kernel */
	struct ls_candidate *c;		/* every layout replayed; c[0] the kernel's */
	size_t nc;
	size_t best;			/* index in c (0: nothing does better than the kernel's) */
	uint64_t max_lines;		/* the budget, in lines (UINT64_MAX: none) */
	unsigned evals;
	bool evals_capped;
	/* The kernel's layout and the best one, replayed (per traced struct). */
	struct ll_layout *news_kernel, *news_best;
	struct lr_type *types_kernel, *types_best;
	struct lr_result rep_kernel, rep_best;
	size_t ntypes;
	char **holders;			/* the traced structs that hold S, and how ("mem_cgroup: memory, kmem") */
	size_t nholders;
};

/* 0, or -1 with one line (no struct S in the run's BTF nor in its objects,
 * a budget S cannot meet). */
int lines_suggest(const struct lp_run *r, const struct ls_opts *o, struct ls_result *res, char *err, size_t errlen);
void lines_suggest_free(struct ls_result *res);

/* The members' writers and readers, the definitions as a diff, the
 * predicted counts of both layouts. */
void lines_suggest_print(FILE *f, const struct lp_run *r, const struct ls_opts *o, const struct ls_result *res);

/* A diff of two C definitions (lines_layout_definition), matched by
 * member: "-" kernel only, "+" proposal only, " " both (malloc'd). */
char *lines_suggest_diff(const struct ll_layout *a, const struct ll_layout *b);

#endif
