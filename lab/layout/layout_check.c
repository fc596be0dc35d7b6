// SPDX-License-Identifier: GPL-2.0
/*
 * `memcg-lab layout --check`: the rules validated against the known kernels
 * (this one and the captures under layouts/), then one line per rule for
 * this kernel, pass / FAIL / warn / n/a.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout_eval.h"
#include "layout/layout_rules.h"
#include "layout/layout.h"
#include "layout/layout_check.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/strfmt.h"
#include "util/wrap.h"

/* The known kernels: this one and the captures under layouts/. */
struct known {
	int n;
	struct layout *v[64];
};

static void load_references(struct known *kn, const char *layouts_dir)
{
	DIR *d = opendir(layouts_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && kn->n < (int)(sizeof(kn->v) / sizeof(kn->v[0]))) {
		char *dir = xasprintf("%s/%s", layouts_dir, e->d_name), *fields = xasprintf("%s/fields.tsv", dir);
		struct layout *lay = xcalloc(1, sizeof(*lay));
		char err[512];

		if (e->d_name[0] != '.' && path_exists(fields)) {
			if (layout_load_capture(lay, dir, err, sizeof(err)))
				die("%s", err);
			kn->v[kn->n++] = lay;
		} else {
			free(lay);
		}
		free(fields);
		free(dir);
	}
	closedir(d);
}

int layout_check_against_known(const struct rules *rs, const struct layout *lay, const char *layouts_dir,
				char *err, size_t errlen)
{
	struct known kn = { 0 };
	int rc;

	kn.v[kn.n++] = (struct layout *)lay;
	load_references(&kn, layouts_dir);
	rc = rules_validate(rs, (const struct layout *const *)kn.v, kn.n, err, errlen);
	for (int i = 1; i < kn.n; i++) {
		layout_free(kn.v[i]);
		free(kn.v[i]);
	}
	return rc;
}

static void print_class(const struct layout *lay, int width)
{
	const struct lay_struct *pc = layout_struct(lay, "page_counter");
	const struct lay_struct *st = layout_struct(lay, "memcg_stock_pcp");
	const struct lay_struct *ob = layout_struct(lay, "obj_stock_pcp");
	const struct lay_field *cached = st->present ? lay_find(st, "cached") : NULL;
	const struct lay_field *ocached = ob->present ? lay_find(ob, "cached") : NULL;
	char text[1024];

	str_setf(text, sizeof(text), "class: %s page_counter", !pc->present ? "no" : lay_find(pc, "_pad1_") ?
		 "split" : "pre-split");
	if (cached)
		str_appendf(text, sizeof(text), "; %u-slot memcg stock", cached->nelems ? cached->nelems : 1);
	else if (!st->present && pc->present && lay_find(pc, "stock"))
		str_appendf(text, sizeof(text), "; per-page_counter stock (page_counter.stock, no memcg_stock_pcp)");
	else
		str_appendf(text, sizeof(text), "; %s", st->present ? "memcg stock without cached" : "no memcg_stock_pcp");
	if (ocached && ocached->nelems)
		str_appendf(text, sizeof(text), "; separate obj_stock_pcp, %u objcg slots", ocached->nelems);
	else
		str_appendf(text, sizeof(text), "; %s", ob->present ? "separate obj_stock_pcp" : "no obj_stock_pcp");
	if (lay->lock_rt)
		str_appendf(text, sizeof(text), "; PREEMPT_RT stock lock (%d B)", lay->lock_size);
	wrap_words(stdout, text, 0, 7, width);
	putchar('\n');
}

/* A detail wrapped with each field's tag on its line: "min@8 (read-mostly)". */
static void print_detail(const char *text, int col, int indent, int width)
{
	char buf[RESULT_TEXT + 256];

	snprintf(buf, sizeof(buf), "%s", text);
	for (char *p = buf; (p = strstr(p, " (")); p += 2)
		if (!strncmp(p + 2, "hot-written)", 12) || !strncmp(p + 2, "read-mostly)", 12) ||
		    !strncmp(p + 2, "allowed)", 8))
			*p = WRAP_NBSP;
	wrap_words(stdout, buf, col, indent, width);
	putchar('\n');
}

int layout_check_print(const struct rules *rs, const struct layout *lay, int width)
{
	int count[4] = { 0 };	/* pass, FAIL, warn, n/a */
	int namew = 0;

	wrap_printf(stdout, 0, 2, width, "layout check: %s (%s)", lay->release ? lay->release : "release unknown",
		    lay->origin);
	putchar('\n');
	wrap_printf(stdout, 0, 2, width, "rules: %s", rs->path);
	putchar('\n');
	wrap_printf(stdout, 0, 2, width, "cacheline %d B (%s); lock debugging: %s (%s)", lay->cacheline,
		    lay->cacheline_evidence, lay->lock_debug ? "yes" : "no", lay->lock_debug_evidence);
	putchar('\n');
	print_class(lay, width);
	for (int i = 0; i < rs->n; i++)
		if ((int)strlen(rs->r[i].name) > namew)
			namew = strlen(rs->r[i].name);
	for (int i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->r[i];
		struct rule_result res;
		char structs[256] = "";
		const char *word;
		int col;

		rule_eval(r, lay, &rs->tags, &res);
		word = rule_verdict_word(r, &res);
		for (int j = 0; j < r->nstructs; j++)
			str_appendf(structs, sizeof(structs), "%s%s", j ? "," : "",
				 r->structs[j]);
		/* The verdict, the rule and its severity on the line's start (what
		 * report and a grep read); the rest wrapped below them. */
		col = printf("%-4s  %-*s  %s  ", word, namew, r->name, r->sev == RULE_HARD ? "hard" : "soft");
		str_appendf(structs, sizeof(structs), ": ");
		{
			char text[RESULT_TEXT + 256];

			snprintf(text, sizeof(text), "%s%s", structs, res.summary);
			print_detail(text, col, 6, width);
		}
		for (int j = 0; j < res.ndetails; j++)
			print_detail(res.details[j], printf("      "), 8, width);
		if (res.v == V_FAIL && r->why) {
			wrap_words(stdout, r->why, printf("      why: "), 11, width);
			putchar('\n');
		}
		count[res.v == V_PASS ? 0 : res.v == V_NA ? 3 : r->sev == RULE_HARD ? 1 : 2]++;
	}
	printf("result: %d pass, %d FAIL, %d warn, %d n/a\n", count[0], count[1], count[2], count[3]);
	return count[1] ? 1 : 0;
}
