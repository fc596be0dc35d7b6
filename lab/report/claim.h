/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The claims of an experiment file: each [claim] or [claim NAME] section
 * holds one published figure of the seed the experiment reproduces, and
 * says how the lab measures the same quantity.  report/verdict.h sets what
 * a run measured against it.
 *
 *   [claim netperf]
 *   published = netperf TCP_SENDFILE throughput per client, N clients each in its own memcg
 *   quantity  = metric:tasks=6,12,18,24,30,36:charge.sock.per_worker
 *   base      = 42584.1, 30617.1, 25305.2, 20104.1, 14702.4, 10801.5 Mbps
 *   patched   = 48603.4, 47919.7, 45497.3, 37907.7, 30746.5, 26476.3 Mbps
 *   ab        = probe.features.stock_slots: 1 -> 7
 *   machine   = 72 CPUs, next-20250415
 *   cpus      = 72
 *   condition = one netserver, 6..36 netperf clients over ::1
 *   source    = <20250416180229.2902751-1-shakeel.butt@linux.dev>, f735eebe55f8
 *
 * Keys (the schema is claim.c's key table):
 *   published, machine, condition, source   required: the seed's words; a
 *             source is a commit (12+ hex digits), a Message-ID (<..@..>)
 *             or a kernel file and its version ("mm/memcontrol.c of v7.2")
 *   quantity  required, how the lab measures it:
 *     metric:STEP:METRIC   data/metrics.tsv, every repeat; STEP may be a
 *                          series "[PHASE:]PARAM=V1,V2,..." (the values
 *                          then list one figure per step)
 *     meta:PATH            a number of meta.json (runtime.charge_batch)
 *     cliff:stock|objstock the most memcgs holding a stock slot at once as
 *                          K memcgs take turns on one CPU: the stock's size
 *                          (data/metrics.tsv's *.holders per K)
 *     layout:STRUCT.size|STRUCT.cachelines   a layout capture (BTF)
 *     lines:STRUCT.FIELD[+FIELD..].COLUMN[ vs FIELD][ / STEP:METRIC | / ops]
 *                          the exact cacheline counts of a guest run
 *                          (lines/fields.tsv, report/lines_fields.h),
 *                          optionally per unit of a metric, or per
 *                          operation the windows counted (lines/ops.tsv:
 *                          the driver's own, e.g. pages charged)
 *     lines-cliff:STRUCT.FIELD.COLUMN[ / METRIC | / ops]   the K after
 *                          which the count (per METRIC at that K, or per
 *                          operation of K's windows) rises most, as a
 *                          ratio of consecutive K, 1.5x at least (else the
 *                          largest K: no cliff up to it; lines/K=N/fields.tsv)
 *   value = N UNIT          one published figure (a range "A..B UNIT", a
 *                          bound "> N UNIT" or "< N UNIT"), or
 *   base, patched, change  an A/B: before and after the patch, the change
 *                          in % (checked against base and patched when
 *                          all are given, to the last digit written)
 *   ab = PATH: BASE -> PATCHED[; PATH: V -> V]   meta.json facts that tell
 *             the two kernels of an A/B apart (and those that must not differ)
 *   kernel = PATH: VALUE[; ...]   for a value: the kernels it holds on
 *   kernels = RELEASE -> RELEASE  a layout A/B from those kernels' BTF
 *             (build/btf/vmlinux-RELEASE.btf, else their capture in layouts/)
 *   cpus = M      the seed's CPUs: fewer here makes it not measurable
 *   timing = yes  a time or rate: meaningless in a TCG guest
 *   needs = sockets-v2   socket memory charged through the memcg (cgroup v2)
 *   expect = change|same  same: the seed reports no significant change
 *   within = Fx   how far the measured effect may be from the published (2x)
 *   readers = N, tree = TxC   the seed's reader count for a TxC tree
 *   workload = PATH   a meta.json string saying what the run's driver did
 *             (charge.workload: the seed's module, or a stand-in and why):
 *             the verdict shows it beside the notes, each side's
 *   note = text   what differs from the seed
 */
#ifndef LAB_REPORT_CLAIM_H
#define LAB_REPORT_CLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include "util/expfile.h"

#define CLAIM_MAX_POINTS 16
#define CLAIM_MAX_FEATURES 4
#define CLAIM_MAX_FIELDS 8

enum claim_source { CQ_METRIC, CQ_META, CQ_CLIFF, CQ_LAYOUT, CQ_LINES, CQ_LINES_CLIFF };

/* How a verdict is decided (claim_rule_text says it in words). */
enum claim_rule {
	RULE_CHANGE,		/* A/B of samples: sign, Welch's t, within the factor */
	RULE_SAME,		/* A/B of samples, the seed saw no change */
	RULE_CHANGE_EXACT,	/* A/B of exact figures: sign, within the factor */
	RULE_SIDES,		/* A/B: each side equals (or bounds) its figure */
	RULE_RATIO,		/* one ratio: the effect (r - 1), t-test against 1, factor */
	RULE_NEAR,		/* one sampled figure: the mean within the factor */
	RULE_EQUAL,		/* one exact figure */
	RULE_BOUND,		/* one bound */
};

/* A published figure: a point (lo == hi), a range lo..hi, or a bound. */
struct claim_num {
	double lo, hi;
	char bound;		/* '<', '>' or 0 */
	char text[48];		/* as written: "42584.1", "20..50", "> 0" */
};

struct claim_feature {
	char path[96];		/* a meta.json path: probe.features.stock_slots */
	char a[32], b[32];	/* ab: base and patched; kernel: a only */
};

struct claim_lines {
	char st[64];				/* struct: page_counter, mem_cgroup */
	char field[CLAIM_MAX_FIELDS][64];	/* summed */
	int nfields;
	char column[16];	/* a fields.tsv column, or hitm (hitm_loads + hitm_stores) */
	char vs[64];		/* only rows whose other_field is this; "" all */
	char per_step[128];	/* normalised by this metric ("" none); the */
	char per_metric[128];	/* step is each K's for lines-cliff */
	bool per_ops;		/* normalised by the windows' operations (lines/ops.tsv) */
};

struct claim {
	char name[64];		/* of [claim NAME]; "" for [claim] */
	char section[80];
	int line;		/* its first entry's */
	char *published, *machine, *condition, *source, *note;
	char quantity[256];	/* as written */
	enum claim_source src;
	char metric[128];	/* metric: its name; meta: the path */
	char step[CLAIM_MAX_POINTS][128];	/* metric: the step of each point */
	int npoints;		/* 1, or a series' steps */
	char mode[16];		/* cliff: stock or objstock */
	char lstruct[64];	/* layout: the struct */
	bool cachelines;	/* layout: its cachelines, else its size */
	struct claim_lines lines;
	bool ab;		/* base/patched (an A/B), else value */
	char unit[32];
	char munit[64];		/* of a measured figure: unit, or for a claim that gives only a
				 * change (in %) the quantity's own ("hitm/op" of a lines count) */
	struct claim_num value[CLAIM_MAX_POINTS], base[CLAIM_MAX_POINTS], patched[CLAIM_MAX_POINTS];
	bool have_base;		/* base and patched given */
	double change_lo[CLAIM_MAX_POINTS], change_hi[CLAIM_MAX_POINTS];	/* the published change, % */
	bool have_change;
	struct claim_feature feat[CLAIM_MAX_FEATURES];	/* ab or kernel */
	int nfeat;
	char kernel_a[64], kernel_b[64];	/* kernels = A -> B */
	int cpus;		/* 0: not given */
	double within;		/* factor, >= 1 */
	bool timing, sockets_v2, expect_same;
	char workload[96];	/* a meta.json path; "" none */
	int readers, tree_top, tree_children;	/* 0: not given */
	enum claim_rule rule;
};

struct claims {
	struct claim *c;
	int n;
};

/*
 * Parses and checks every [claim] and [claim NAME] section of f.  0, or -1
 * with err ("[claim x] value = '3': want ...") and *bad the entry at fault
 * (the section's first entry for a key that is missing).  out is freeable
 * either way.
 */
int claims_parse(const struct expfile *f, struct claims *out, const struct exp_entry **bad, char *err,
		 size_t errlen);
void claims_free(struct claims *c);
/* The rule that decides the claim's verdict, in words. */
void claim_rule_text(const struct claim *c, int point, char *buf, size_t n);
/* The published figure(s) of a point: "10482.7 -> 17063.7 Mbps (+62.7%)", "7 memcgs". */
void claim_published_text(const struct claim *c, int point, char *buf, size_t n);
/* The claim's label: its name, or "claim" for [claim]. */
const char *claim_label(const struct claim *c);
/* The step a point of a metric claim names within its phase ("tasks=6"). */
const char *claim_point_label(const struct claim *c, int point);
/* True for a section name "claim" or "claim NAME". */
bool claim_section(const char *section);

#endif
