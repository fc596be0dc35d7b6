/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layout rules: a readable file (layouts/rules.conf, whose header
 * documents the syntax) of named cacheline invariants over the captured
 * structs, plus hot-written / read-mostly tags on fields.  Parsed and
 * validated once (layout_rules.c), checked against any layout
 * (layout_eval.h).
 *
 * A rule is hard (a violation is a bug: FAIL, exit 1) or soft
 * (informational: warn).  A rule whose struct, subject field or condition
 * is missing in a kernel is n/a with the reason, never pass.
 */
#ifndef LAB_LAYOUT_LAYOUT_RULES_H
#define LAB_LAYOUT_LAYOUT_RULES_H

#include <stdbool.h>
#include <stdio.h>
#include "layout/layout.h"

/* A byte count, or a multiple of the cacheline size ("2L"). */
struct rule_num {
	long v;
	bool lines;
};

enum inv_op {
	INV_OFFSET,		/* offset F N */
	INV_ALIGNED,		/* aligned F... */
	INV_ALONE,		/* alone F [allow G...] */
	INV_APART,		/* apart F... from G... */
	INV_TOGETHER,		/* together F... */
	INV_ON_LINE,		/* on-line N F... */
	INV_NOT_ON_LINE,	/* not-on-line N F... */
	INV_AFTER,		/* after F|N G... */
	INV_BETWEEN,		/* between A B F... */
	INV_DISTANCE,		/* distance A B N */
	INV_SIZE,		/* size N */
	INV_SAME_LENGTH,	/* same-length F G... */
	INV_ELEM_SIZE,		/* elem-size F N */
	INV_PERCPU_ALIGNED,	/* percpu-aligned VAR */
	INV_FEWEST_LINES,	/* fewest-lines F...: they span no more lines than their bytes need */
};

struct rule_inv {
	int line;
	enum inv_op op;
	char *a, *b;		/* the subject field(s) or the per-cpu VAR */
	struct rule_num num;
	bool a_is_num;		/* after N ...: num instead of a */
	char **list;		/* the other fields */
	int nlist;
	char **subj;		/* apart: the subjects F... */
	int nsubj;
};

enum cond_op { COND_HAS, COND_LACKS, COND_ARRAY, COND_SCALAR, COND_NO_LOCK_DEBUG, COND_RT_LOCK, COND_NO_RT_LOCK };

struct rule_cond {
	int line;
	enum cond_op op;
	char *field;
	char *reason;		/* optional: why the rule is n/a when the condition fails */
};

enum rule_sev { RULE_HARD, RULE_SOFT };

#define RULE_MAX_STRUCTS 4
#define RULE_MAX_PARTS 8

struct rule {
	char *name;
	int line;
	int nstructs;
	char *structs[RULE_MAX_STRUCTS];
	int struct_line;
	enum rule_sev sev;
	bool sev_set;
	int nconds;
	struct rule_cond conds[RULE_MAX_PARTS];
	char *placed_at;	/* per-cpu VAR whose offset places the struct in its lines */
	int placed_line;
	char *if_absent;	/* why a struct or subject field may be absent */
	char *why;
	int ninvs;
	struct rule_inv invs[RULE_MAX_PARTS];
};

/* A field of a pending series no known kernel has yet ("pending STRUCT.FIELD..."). */
struct rule_pending {
	char strukt[64];
	char field[128];
};

struct rules {
	char *path;
	int n;
	struct rule *r;
	struct lay_tags tags;
	int npending;
	struct rule_pending *pending;
};

/*
 * Parses a rules file; 0, or -1 with "FILE:LINE: what was expected" in err.
 * Either way rules_free() releases what was parsed.
 */
int rules_parse(struct rules *rs, const char *path, char *err, size_t errlen);
/* The same from text in memory (path names it in messages). */
int rules_parse_text(struct rules *rs, const char *path, const char *text, size_t len, char *err, size_t errlen);
void rules_free(struct rules *rs);

/*
 * Every field, struct and per-cpu VAR a rule or tag names must exist in at
 * least one of the known layouts (the kernel under test and the reference
 * captures): a typo is an error, never a silent n/a.  0, or -1 with
 * "FILE:LINE: ..." in err.
 */
int rules_validate(const struct rules *rs, const struct layout *const *known, int nknown,
		   char *err, size_t errlen);

#endif
