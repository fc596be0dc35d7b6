/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed rules file (layout_rules.h) held against one kernel's layout
 * (layout.h): a rule's verdict with its details, and the rule that lets
 * two fields share a cacheline (layout_eval.c).
 */
#ifndef LAB_LAYOUT_LAYOUT_EVAL_H
#define LAB_LAYOUT_LAYOUT_EVAL_H

#include "layout/layout.h"
#include "layout/layout_rules.h"

enum verdict { V_PASS, V_FAIL, V_NA };

#define RESULT_TEXT 1024

struct rule_result {
	enum verdict v;
	char summary[RESULT_TEXT];	/* one line */
	int ndetails;
	char details[16][RESULT_TEXT];	/* for a failure: struct, fields, offsets, shared cacheline */
};

void rule_eval(const struct rule *r, const struct layout *lay, const struct lay_tags *tags,
	       struct rule_result *res);
/*
 * The name of the rule that lets field h of struct s share a cacheline with
 * o on this layout: `alone h allow o`, or a together / on-line /
 * fewest-lines naming both (they are meant to share), its `when` lines
 * holding for this kernel; NULL when no rule does.  A member of an embedded
 * struct (mem_cgroup's memory.usage) is judged by its own type's rules
 * (page_counter's usage), with a partner of the same instance.
 */
const char *rules_allowing(const struct rules *rs, const struct layout *lay, const struct lay_struct *s,
			   const struct lay_field *h, const struct lay_field *o);

/* "pass", "FAIL", "warn" (a failed soft rule) or "n/a". */
const char *rule_verdict_word(const struct rule *r, const struct rule_result *res);

#endif
