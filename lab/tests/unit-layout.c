// SPDX-License-Identifier: GPL-2.0
/*
 * The layout checker on eight real kernels' BTF: every rule of
 * layouts/rules.conf with its expected verdict, the failure messages a
 * reviewer reads, rules-file errors with FILE:LINE, a capture written and
 * read back, and the cacheline-aware diffs 6.1 -> 6.12 -> 6.18.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "layout/layout_eval.h"
#include "layout/layout_rules.h"
#include "layout/layout.h"
#include "kernel/btf.h"
#include "tests/tap.h"
#include "util/fileio.h"

#define RULES "layouts/rules.conf"

static const char *const kernels[] = { "5.10.262", "6.1.192", "6.12.117", "6.18.44",
				       "6.16.12", "7.1.13", "7.2.12", "7.3.4-rt" };
#define NK 8

/*
 * Expected verdicts, one column per kernel above.  5.10 predates the
 * split: usage shares line 0 with the limits, and its page_counters in
 * mem_cgroup start mid-line (memory@208, kmem@432, tcpmem@544; swap@320
 * happens to be aligned).  6.12 spills the watermark group (soft).
 * The 7.x columns: 7.2 has the 5-slot obj stock on one line; 7.3-rt has
 * PREEMPT_RT's 32-byte lock, so its one-line rules are n/a and the
 * fewest-lines rules check it instead; its hot blocks take lines 0-1 and
 * the drain work (work@96) shares line 1 with the last slots: the
 * cold-off-line rules, which cover every line of the hot block, warn.  Debian builds 6.16+ without
 * CONFIG_MEMCG_V1 (no kmem/tcpmem).
 */
static const struct {
	const char *rule;
	const char *v[NK];
} expected[] = {
	{ "usage-alone",                 { "FAIL", "pass", "pass", "pass", "pass", "pass", "pass", "pass" } },
	{ "limits-off-usage-line",       { "FAIL", "pass", "pass", "pass", "pass", "pass", "pass", "pass" } },
	{ "limits-after-pad2",           { "n/a",  "pass", "pass", "pass", "pass", "pass", "pass", "pass" } },
	{ "padding-lines",               { "n/a",  "pass", "pass", "pass", "pass", "pass", "pass", "pass" } },
	{ "sometimes-written-one-line",  { "n/a",  "pass", "warn", "pass", "pass", "pass", "pass", "pass" } },
	{ "size-three-lines",            { "n/a",  "pass", "warn", "pass", "pass", "pass", "pass", "pass" } },
	{ "memcg-memory-aligned",        { "FAIL", "pass", "pass", "pass", "pass", "pass", "pass", "pass" } },
	{ "memcg-swap-aligned",          { "pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass" } },
	{ "memcg-kmem-aligned",          { "FAIL", "pass", "n/a",  "pass", "n/a",  "n/a",  "n/a",  "n/a" } },
	{ "memcg-tcpmem-aligned",        { "FAIL", "pass", "n/a",  "pass", "n/a",  "n/a",  "n/a",  "n/a" } },
	{ "stock-slots",                 { "n/a",  "n/a",  "n/a",  "pass", "pass", "pass", "pass", "pass" } },
	{ "stock-slots-one-line",        { "n/a",  "n/a",  "n/a",  "pass", "pass", "pass", "pass", "n/a" } },
	{ "stock-slots-rt-lines",        { "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "pass" } },
	{ "stock-percpu-aligned",        { "n/a",  "n/a",  "n/a",  "pass", "pass", "pass", "pass", "pass" } },
	{ "stock-cold-off-line",         { "n/a",  "n/a",  "n/a",  "pass", "pass", "pass", "pass", "warn" } },
	{ "stock-single-slot",           { "pass", "pass", "pass", "n/a",  "n/a",  "n/a",  "n/a",  "n/a" } },
	{ "obj-stock-hot-one-line",      { "n/a",  "n/a",  "n/a",  "pass", "pass", "pass", "n/a",  "n/a" } },
	{ "obj-stock-percpu-aligned",    { "n/a",  "n/a",  "n/a",  "pass", "pass", "pass", "pass", "pass" } },
	{ "obj-stock-slots",             { "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "pass", "pass" } },
	{ "obj-stock-slots-one-line",    { "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "pass", "n/a" } },
	{ "obj-stock-rt-lines",          { "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "pass" } },
	{ "obj-stock-cold-off-line",     { "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "n/a",  "pass", "warn" } },
};
#define NRULES (int)(sizeof(expected) / sizeof(expected[0]))

static struct layout lay[NK];
static struct rules rules_conf;	/* layouts/rules.conf, parsed in main() */

static const struct rule *find_rule(const struct rules *rs, const char *name)
{
	for (int i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].name, name))
			return &rs->r[i];
	return NULL;
}

static bool details_have(const struct rule_result *res, const char *s)
{
	for (int i = 0; i < res->ndetails; i++)
		if (strstr(res->details[i], s))
			return true;
	return false;
}

static void eval(const struct rules *rs, int k, const char *name, struct rule_result *res)
{
	const struct rule *r = find_rule(rs, name);

	memset(res, 0, sizeof(*res));
	if (r)
		rule_eval(r, &lay[k], &rs->tags, res);
}

TEST(rule_verdicts_per_kernel)
{
	const struct rules *rs = &rules_conf;
	struct rule_result res;

	is_int(rs->n, NRULES, "rules.conf has the %d rules the table expects", NRULES);
	for (int i = 0; i < NRULES; i++) {
		const struct rule *r = find_rule(rs, expected[i].rule);

		if (!ok(r, "rule %s is in rules.conf", expected[i].rule))
			continue;
		for (int k = 0; k < NK; k++) {
			const char *got;

			rule_eval(r, &lay[k], &rs->tags, &res);
			got = rule_verdict_word(r, &res);
			if (!ok(!strcmp(got, expected[i].v[k]), "%s on %s: %s", r->name, kernels[k], expected[i].v[k]))
				tap_diag("  got %s: %s", got, res.summary);
			if (res.v == V_NA)
				ok(res.summary[0], "%s on %s: n/a says why", r->name, kernels[k]);
		}
	}
}

TEST(failure_messages)
{
	const struct rules *rs = &rules_conf;
	struct rule_result res;

	/* 5.10: the limits share usage's cacheline 0, each named with its offset. */
	eval(rs, 0, "limits-off-usage-line", &res);
	ok(details_have(&res, "struct page_counter, cacheline 0 (bytes 0-63): usage@0 (hot-written) shares it with "
			      "min@8 (read-mostly) low@16 (read-mostly) high@24 (read-mostly) max@32 (read-mostly) "
			      "parent@40 (read-mostly)"),
	   "5.10 limits rule names min/low/high/max/parent with offsets on cacheline 0");
	eval(rs, 0, "usage-alone", &res);
	ok(details_have(&res, "usage@0 (hot-written) shares it with min@8") && details_have(&res, "emin@48 min_usage@56"),
	   "5.10 usage-alone lists every field on usage's line");
	eval(rs, 0, "memcg-memory-aligned", &res);
	ok(details_have(&res, "memory@208 is 16 bytes into cacheline 3"), "5.10 mem_cgroup.memory@208 is 16 B into line 3");
	eval(rs, 0, "memcg-kmem-aligned", &res);
	ok(details_have(&res, "kmem@432") && !details_have(&res, "memsw."),
	   "5.10 kmem failure names its line's fields once (swap, not its union alias memsw)");

	/* Not-applicable reasons say which kernel feature is missing. */
	eval(rs, 2, "memcg-kmem-aligned", &res);
	ok(strstr(res.summary, "mem_cgroup has no kmem") && strstr(res.summary, "CONFIG_MEMCG_V1"),
	   "6.12 kmem rule is n/a: built without CONFIG_MEMCG_V1");
	eval(rs, 1, "obj-stock-percpu-aligned", &res);
	ok(strstr(res.summary, "no struct obj_stock_pcp"), "6.1: obj_stock_pcp rules n/a: struct absent");
	eval(rs, 2, "stock-slots", &res);
	ok(strstr(res.summary, "cached is struct mem_cgroup *, not an array"), "6.12: multi-slot rules n/a: scalar cached");
	eval(rs, 3, "stock-single-slot", &res);
	ok(strstr(res.summary, "struct mem_cgroup *[7], an array"), "6.18: single-slot rule n/a: cached is an array");
	eval(rs, 0, "padding-lines", &res);
	ok(strstr(res.summary, "page_counter has no _pad1_"), "5.10: padding rule n/a: no _pad1_");

	/* Passing rules say what held. */
	eval(rs, 3, "usage-alone", &res);
	ok(strstr(res.summary, "with failcnt@8 (allowed)"), "6.18: usage alone except the allowed failcnt@8");
	eval(rs, 3, "stock-slots", &res);
	ok(strstr(res.summary, "7 slots"), "6.18: the stock's 7 slots are read from BTF");
	eval(rs, 3, "stock-percpu-aligned", &res);
	ok(strstr(res.summary, "184960 = 64 * 2890"), "6.18: memcg_stock at .data..percpu+184960 = 64 * 2890");
	eval(rs, 2, "stock-single-slot", &res);
	ok(strstr(res.summary, "starts 32 bytes into a cacheline"),
	   "6.12: the single-slot stock is placed where memcg_stock really starts (32 mod 64)");
	eval(rs, 2, "sometimes-written-one-line", &res);
	ok(details_have(&res, "_pad2_@192 - _pad1_@64 = 128 bytes, expected 64"), "6.12: the 72-byte spill, in bytes");

	ok(!lay[0].lock_debug && !lay[1].lock_debug && !lay[2].lock_debug && !lay[3].lock_debug,
	   "none of the four is a lock-debugging build");
	ok(!lay[7].lock_debug && lay[7].lock_rt && lay[7].lock_size == 32 && !lay[6].lock_rt && lay[6].lock_size == 1,
	   "7.3-rt: a 32-byte PREEMPT_RT lock, not lock debugging; 7.2: a 1-byte lock");
	eval(rs, 7, "stock-slots-rt-lines", &res);
	ok(strstr(res.summary, "95 B in bytes 0-95 on cachelines 0-1, the fewest 95 B can take"),
	   "7.3-rt: lock, nr_pages and cached take lines 0-1, the fewest their 96 B allow");
	eval(rs, 7, "stock-slots-one-line", &res);
	ok(strstr(res.summary, "PREEMPT_RT build") && strstr(res.summary, "32 B"),
	   "7.3-rt: the one-line rule is n/a, naming the RT lock and its size");
	eval(rs, 6, "obj-stock-slots-one-line", &res);
	ok(strstr(res.summary, "lock, index, node_id, nr_slab_reclaimable_b, nr_slab_unreclaimable_b, nr_bytes, cached "
			       "on cacheline 0"), "7.2: the obj stock's hot block on line 0");
	eval(rs, 6, "obj-stock-slots", &res);
	ok(strstr(res.summary, "5 slots: nr_bytes uint16_t[5], cached struct obj_cgroup *[5]"),
	   "7.2: five obj stock slots");
	is_int(lay[3].cacheline, 64, "cacheline size from page_counter._pad1_");

	/* The cold members off every line of the hot block, not line 0 only:
	 * 7.3-rt's hot block takes lines 0-1, and work@96 is on line 1. */
	eval(rs, 7, "stock-cold-off-line", &res);
	ok(res.v == V_FAIL && details_have(&res, "struct memcg_stock_pcp, cacheline 1 (bytes 64-127): cached@40 "
					       "(hot-written) shares it with work@96"),
	   "7.3-rt: the memcg stock's work@96 shares line 1 with cached@40+56");
	eval(rs, 7, "obj-stock-cold-off-line", &res);
	ok(res.v == V_FAIL && details_have(&res, "cacheline 1 (bytes 64-127): cached@56 (hot-written) shares it "
					       "with work@96"),
	   "7.3-rt: the obj stock's work@96 shares line 1 with cached@56+40");
	eval(rs, 3, "stock-cold-off-line", &res);
	ok(res.v == V_PASS && strstr(res.summary, "none of work, flags, drain_idx on cacheline 0 of lock, nr_pages, "
					       "cached"), "6.18: work, flags, drain_idx off the hot block's line 0");
}

/* Writes text to a temp rules file and parses it; returns the error (or ""). */
static const char *parse_text(const char *text, struct rules *rs, char *path, size_t n)
{
	static char err[1024];
	int fd;

	snprintf(path, n, "/tmp/memcg-lab-rules.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return "cannot write a temp file";
	close(fd);
	err[0] = '\0';
	if (!rules_parse(rs, path, err, sizeof(err)))
		err[0] = '\0';
	unlink(path);
	return err;
}

TEST(rules_file_errors)
{
	static const struct {
		const char *text;
		int line;
		const char *what;
	} bad[] = {
		{ "rule a\n\tstruct page_counter\n\tseverty hard\n", 3, "unknown keyword 'severty'" },
		{ "# c\nrule a\n\tstruct page_counter\n\tinvariant size 3L\n", 2, "expected a 'severity hard|soft' line" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n", 1, "expected at least one 'invariant" },
		{ "rule a\n\tseverity hard\n\tinvariant size 3L\n", 1, "expected a 'struct STRUCT...' line" },
		{ "rule a\n\tstruct page_counter\n\tseverity medium\n", 3, "expected 'severity hard' or 'severity soft'" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant size 3X\n", 4, "expected a number" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant under usage\n", 4, "unknown predicate 'under'" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant apart usage min\n", 4,
		  "expected 'apart FIELD... from FIELD...'" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant apart from min\n", 4,
		  "expected 'apart FIELD... from FIELD...'" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant apart usage min from\n", 4,
		  "expected 'apart FIELD... from FIELD...'" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant offset usage\n", 4, "expected 'offset FIELD N'" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant on-line 1L usage\n", 4,
		  "expected a cacheline index" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\twhen has _pad1_ \"oops\n", 4, "closing '\"'" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\twhen sometimes x\n", 4, "unknown condition 'sometimes'" },
		{ "\n\tstruct page_counter\n", 2, "expected 'rule NAME' or 'tag ...' before 'struct'" },
		{ "rule a\n\tstruct task_struct\n", 2, "struct task_struct is not one the lab captures" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant size 3L\nrule a\n", 5,
		  "rule a is already defined at line 1" },
		{ "rule 9lives\n", 1, "expected 'rule NAME'" },
		{ "tag hot page_counter.usage\n", 1, "expected 'hot-written' or 'read-mostly'" },
		{ "tag hot-written usage\n", 1, "expected STRUCT.FIELD" },
		{ "pending page_counter.stock\n", 1, "expected 'pending STRUCT.FIELD... " },
		{ "pending page_counter.stock page_counter.batch\n", 1, "expected the series' name (quoted)" },
		{ "pending task_struct.x \"s\"\n", 1, "struct task_struct is not one the lab captures" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant fewest-lines usage\n", 4,
		  "expected 'fewest-lines FIELD FIELD...'" },
		{ "# only comments\n\n", 0, "no rules" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rules rs;
		char path[64], want[128];
		const char *err = parse_text(bad[i].text, &rs, path, sizeof(path));

		if (bad[i].line)
			snprintf(want, sizeof(want), "%s:%d: ", path, bad[i].line);
		else
			snprintf(want, sizeof(want), "%s: ", path);
		if (!ok(!strncmp(err, want, strlen(want)) && strstr(err, bad[i].what),
			"rules error at line %d: %s", bad[i].line, bad[i].what))
			tap_diag("  got: %s", err);
		rules_free(&rs);
	}
}

TEST(rules_validation)
{
	const struct layout *all[NK] = { &lay[0], &lay[1], &lay[2], &lay[3], &lay[4], &lay[5], &lay[6], &lay[7] };
	const struct layout *only612[1] = { &lay[2] };
	static const struct {
		const char *text;
		const char *what;
	} unknown[] = {
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant alone usgae\n",
		  ":4: rule a: field 'usgae' exists in no known kernel's page_counter" },
		{ "rule a\n\tstruct page_counter\n\tseverity hard\n\twhen has _pad3_\n\tinvariant size 3L\n",
		  ":4: rule a: field '_pad3_' exists in no known kernel" },
		{ "rule a\n\tstruct memcg_stock_pcp\n\tseverity hard\n\tinvariant percpu-aligned memcg_stok\n",
		  ":4: rule a: per-cpu VAR 'memcg_stok'" },
		{ "tag hot-written page_counter.usage\ntag read-mostly page_counter.hihg\n",
		  ":2: tag: field 'page_counter.hihg' exists in no known kernel" },
	};
	char err[1024], path[64];
	struct rules rs;

	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		/* A tag-only file has no rules: add one so that it parses. */
		char *text = strdup(unknown[i].text);

		if (!strncmp(text, "tag", 3)) {
			free(text);
			text = NULL;
			if (asprintf(&text, "%srule ok\n\tstruct page_counter\n\tseverity soft\n\tinvariant size 3L\n",
				     unknown[i].text) < 0)
				text = NULL;
		}
		if (!text || parse_text(text, &rs, path, sizeof(path))[0]) {
			ok(0, "parses: %s", unknown[i].what);
		} else {
			int r = rules_validate(&rs, all, NK, err, sizeof(err));

			if (!ok(r && strstr(err, path) && strstr(err, unknown[i].what), "a typo is an error: %s",
				unknown[i].what))
				tap_diag("  got: %s", r ? err : "(accepted)");
		}
		rules_free(&rs);
		free(text);
	}

	/* A pending series' field is valid before any kernel has it, and only then. */
	parse_text("rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant apart usage from stock\n", &rs, path,
		   sizeof(path));
	ok(rules_validate(&rs, all, NK, err, sizeof(err)) && strstr(err, "'stock'"),
	   "page_counter.stock is unknown without a 'pending' line");
	rules_free(&rs);
	parse_text("pending page_counter.stock \"a series\"\n"
		   "rule a\n\tstruct page_counter\n\tseverity hard\n\tinvariant apart usage from stock\n", &rs, path,
		   sizeof(path));
	ok(!rules_validate(&rs, all, NK, err, sizeof(err)), "page_counter.stock is valid once declared pending");
	rules_free(&rs);

	/* A field is valid when any known kernel has it: kmem is not in 6.12. */
	parse_text("rule a\n\tstruct mem_cgroup\n\tseverity hard\n\tinvariant aligned kmem\n", &rs, path, sizeof(path));
	ok(rules_validate(&rs, only612, 1, err, sizeof(err)) && strstr(err, "'kmem'"),
	   "kmem is unknown when 6.12 is the only known kernel");
	ok(!rules_validate(&rs, all, NK, err, sizeof(err)), "kmem is valid once 6.18 is known too");
	rules_free(&rs);

	ok(!rules_parse(&rs, RULES, err, sizeof(err)) && !rules_validate(&rs, all, NK, err, sizeof(err)),
	   "layouts/rules.conf names only fields some kernel has");
	rules_free(&rs);
}

static bool same_layout(const struct layout *a, const struct layout *b)
{
	if (a->cacheline != b->cacheline || a->lock_debug != b->lock_debug || a->percpu_datasec != b->percpu_datasec)
		return false;
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		const struct lay_struct *x = &a->s[i], *y = &b->s[i];

		if (x->present != y->present || x->size != y->size || x->nfields != y->nfields ||
		    x->percpu_offset != y->percpu_offset || strcmp(x->percpu_var, y->percpu_var))
			return false;
		for (int j = 0; j < x->nfields; j++)
			if (memcmp(&x->fields[j], &y->fields[j], sizeof(x->fields[j])))
				return false;
	}
	return true;
}

/* text with the first "from" replaced by "to" (malloc'd). */
static char *subst(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	if (!at)
		return strdup(text);
	out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

/* A capture edited by hand or merged badly: the first bad value is named
 * by file, line and column; the committed references read back as what
 * their BTF says. */
TEST(capture_errors)
{
	static const char *const names[3] = { "meta.tsv", "structs.tsv", "fields.tsv" };
	static const struct {
		int file;
		const char *from, *to, *want, *what;
	} bad[] = {
		{ 2, "page_counter\tusage\tpage_counter\t0\t8", "page_counter\tusage\tpage_counter\tzero\t8",
		  "fields.tsv:", "a field offset that is not a number" },
		{ 2, "page_counter\tusage\tpage_counter\t0\t8", "page_counter\tusage\tpage_counter\t190\t8",
		  "size '8': expected an integer from 0 to 2", "a field running past its struct's end" },
		{ 0, "cacheline\t64", "cacheline\t48", "meta.tsv:", "a cacheline size that is not a power of two" },
		{ 1, "page_counter\t1\t192\t3", "page_counter\t1\t192\t4",
		  "cachelines 4: a 192-byte struct spans 3 lines of 64 bytes", "a cacheline count that disagrees with the size" },
		{ 1, "struct\tpresent", "struct\tthere", "structs.tsv:1: no column 'present' in the header", "a wrong header" },
		{ 2, "page_counter\tusage\tpage_counter\t0\t8\t0\t0\t0\t0\t0\t0\tatomic_long_t",
		  "page_counter\tusage\tpage_counter\t0\t8\t0\t0\t0\t0\t0\t0", "expected 12 tab-separated columns",
		  "a row with a column missing" },
		{ 2, "\npage_counter\t", "\npage_count\t", "struct 'page_count': not one of the structs",
		  "a struct the lab does not capture" },
	};
	char *text[3], err[1024];
	struct layout l;

	for (int k = 0; k < NK; k++) {
		char dir[64];
		int r;

		snprintf(dir, sizeof(dir), "layouts/%s", kernels[k]);
		r = layout_load_capture(&l, dir, err, sizeof(err));
		ok(!r && same_layout(&lay[k], &l), "the committed capture %s reads back as its BTF's layout%s%s",
		   dir, r ? ": " : "", r ? err : "");
		layout_free(&l);
	}
	for (int i = 0; i < 3; i++) {
		char path[64];

		snprintf(path, sizeof(path), "layouts/6.18.44/%s", names[i]);
		text[i] = read_text(path, NULL);
	}
	if (!text[0] || !text[1] || !text[2]) {
		ok(0, "layouts/6.18.44 readable");
		return;
	}
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		char *t[3];
		int r;

		for (int i = 0; i < 3; i++)
			t[i] = i == bad[b].file ? subst(text[i], bad[b].from, bad[b].to) : strdup(text[i]);
		ok(strcmp(t[bad[b].file], text[bad[b].file]) != 0, "the fixture for %s applies", bad[b].what);
		r = layout_parse_capture(&l, "x", t[0], t[1], t[2], err, sizeof(err));
		ok(r == -1 && strstr(err, bad[b].want) && strncmp(err, "x/", 2) == 0 && !strchr(err, '\n'),
		   "%s: one line naming it (%s)", bad[b].what, err);
		layout_free(&l);
		for (int i = 0; i < 3; i++)
			free(t[i]);
	}
	{
		/* Saved by an editor that writes CRLF: still the same capture. */
		char *crlf[3];
		struct layout ref;

		for (int i = 0; i < 3; i++) {
			size_t n = 0;

			crlf[i] = malloc(2 * strlen(text[i]) + 1);
			for (const char *c = text[i]; *c; c++) {
				if (*c == '\n')
					crlf[i][n++] = '\r';
				crlf[i][n++] = *c;
			}
			crlf[i][n] = '\0';
		}
		ok(!layout_parse_capture(&ref, "x", text[0], text[1], text[2], err, sizeof(err)) &&
		   !layout_parse_capture(&l, "x", crlf[0], crlf[1], crlf[2], err, sizeof(err)) && same_layout(&ref, &l),
		   "a capture with CRLF line ends reads the same");
		layout_free(&ref);
		layout_free(&l);
		for (int i = 0; i < 3; i++)
			free(crlf[i]);
	}
	for (int i = 0; i < 3; i++)
		free(text[i]);
}

static int gained;	/* the last diff_text()'s hot-written fields with a new sharer no rule allows */

/* noinline: inlined into a case, GCC 12 takes open_memstream()'s buffer for
 * this frame's local (-Wdangling-pointer). */
static __attribute__((noinline)) char *diff_text(const struct layout *old, const struct layout *new,
						  const struct rules *rs, int *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*n = layout_diff(f, old, new, rs, 0, &gained);
	fclose(f);
	return buf;
}

/* The text of one struct's section of a diff. */
static char *section(const char *diff, const char *strukt)
{
	char head[96];
	const char *s, *end;

	snprintf(head, sizeof(head), "\nstruct %s:", strukt);
	s = strstr(diff, head);
	if (!s) {
		snprintf(head, sizeof(head), "\n+ struct %s:", strukt);
		s = strstr(diff, head);
	}
	if (!s)
		return strdup("");
	end = strstr(s + 1, "\n\n");
	return strndup(s + 1, end ? (size_t)(end - s - 1) : strlen(s + 1));
}

static bool has_line(const char *text, const char *a, const char *b)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		char *line = strndup(p, nl ? (size_t)(nl - p) : strlen(p));
		bool hit = strstr(line, a) && (!b || strstr(line, b));

		free(line);
		if (hit)
			return true;
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

TEST(capture_and_diff)
{
	const struct rules *rs = &rules_conf;
	char dir[] = "/tmp/memcg-lab-capture.XXXXXX", err[1024], *text, *cmd, *d, *sec;
	struct layout back;
	int n, status;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	ok(!layout_write_capture(&lay[2], &rs->tags, dir, err, sizeof(err)), "capture of 6.12.117 written");
	ok(!layout_load_capture(&back, dir, err, sizeof(err)) && same_layout(&lay[2], &back),
	   "the capture reads back as the same layout");
	cmd = malloc(sizeof(dir) + 20);
	sprintf(cmd, "%s/cachelines.txt", dir);
	text = read_text(cmd, NULL);
	free(cmd);
	ok(text && strstr(text, "    0 [0-63] usage@0+8[w]\n") && strstr(text, "    2 [128-191] failcnt@128+8\n"),
	   "6.12 cacheline map: usage alone on line 0, failcnt spilled to line 2");
	ok(text && strstr(text, "    4 [256-319] memory.usage@256+8[w]\n"), "nested names: mem_cgroup line 4 is memory.usage");
	free(text);

	/* 6.1 -> 6.12: local_watermark, protection_support, 192 -> 256 bytes. */
	d = diff_text(&lay[1], &lay[2], rs, &n);
	sec = section(d, "page_counter");
	ok(has_line(sec, "struct page_counter: 192 -> 256 B, 3 -> 4 cachelines", NULL), "6.1->6.12: page_counter 192 -> 256 B");
	ok(has_line(sec, "+ local_watermark ", "@120"), "6.1->6.12: + local_watermark @120");
	ok(has_line(sec, "+ protection_support ", "@192"), "6.1->6.12: + protection_support @192");
	ok(has_line(sec, "~ failcnt ", "@120 -> @128, line 1 -> line 2"), "6.1->6.12: failcnt moves to line 2");
	ok(has_line(sec, "~ high ", "@144 -> @216, line 2 -> line 3"), "6.1->6.12: high moves to line 3");
	ok(!has_line(sec, "sharing", NULL), "6.1->6.12: usage's sharing does not change");
	free(sec);
	sec = section(d, "memcg_stock_pcp");
	ok(has_line(sec, "per-cpu: memcg_stock at .data..percpu+190400 (0 mod 64)", "+204640 (32 mod 64)"),
	   "6.1->6.12: memcg_stock loses its cacheline alignment");
	free(sec);
	sec = section(d, "mem_cgroup");
	ok(has_line(sec, "! gone: hot-written kmem.usage@640", NULL) && has_line(sec, "- kmem ", "@640"),
	   "6.1->6.12: kmem (and its hot usage) gone without CONFIG_MEMCG_V1");
	free(sec);
	free(d);

	/* 6.12 -> 6.18: failcnt joins usage's line, 7 slots, obj_stock_pcp appears. */
	d = diff_text(&lay[2], &lay[3], rs, &n);
	sec = section(d, "page_counter");
	/* failcnt joins usage's line, as usage-alone allows: no '!', and
	 * --against does not fail for it. */
	ok(has_line(sec, "    new sharing: usage@0 (hot-written, line 0) now shares its cacheline with failcnt@8 "
			 "(allowed: usage-alone)", NULL) && !has_line(sec, "! new sharing", NULL),
	   "6.12->6.18: failcnt joins usage's cacheline, allowed by usage-alone (no '!')");
	ok(has_line(sec, "+ track_failcnt ", "@129"), "6.12->6.18: + track_failcnt");
	ok(has_line(sec, "struct page_counter: 256 -> 192 B, 4 -> 3 cachelines", NULL), "6.12->6.18: 256 -> 192 B");
	free(sec);
	sec = section(d, "memcg_stock_pcp");
	ok(has_line(sec, "~ cached ", "struct mem_cgroup * -> struct mem_cgroup *[7] (1 -> 7 elements)"),
	   "6.12->6.18: the stock caches 7 memcgs");
	ok(has_line(sec, "~ nr_pages ", "unsigned int -> uint8_t[7] (1 -> 7 elements)"), "6.12->6.18: 7 u8 counts");
	ok(has_line(sec, "! ended sharing: cached ", "cached_objcg (gone)"),
	   "6.12->6.18: the objcg fields leave the memcg stock's hot line");
	ok(has_line(sec, "per-cpu:", "(32 mod 64) -> memcg_stock at .data..percpu+184960 (0 mod 64)"),
	   "6.12->6.18: memcg_stock is cacheline aligned again");
	free(sec);
	ok(has_line(d, "+ struct obj_stock_pcp: appears (72 B, 2 cachelines", NULL), "6.12->6.18: obj_stock_pcp appears");
	sec = section(d, "mem_cgroup");
	ok(has_line(sec, "    new sharing: memory.usage@256", "memory.failcnt@264 (allowed: usage-alone)") &&
	   !has_line(sec, "memsw.usage", NULL) && !has_line(sec, "! new sharing", NULL),
	   "6.12->6.18: mem_cgroup's memory.usage shares with memory.failcnt, allowed by page_counter's "
	   "usage-alone; union aliases not repeated");
	free(sec);
	sec = section(d, "memcg_stock_pcp");
	ok(has_line(sec, "    new sharing: nr_pages@1 ", "lock@0 (allowed: stock-slots-one-line)") &&
	   has_line(sec, "    new sharing: cached@8 ", "lock@0 (allowed: stock-slots-one-line)"),
	   "6.12->6.18: the lock joins the slots' line, as stock-slots-one-line wants");
	free(sec);
	is_int(gained, 0, "6.12->6.18: no hot-written field gains a sharer no rule allows");

	/* The same diff from the 6.12 capture instead of its BTF. */
	{
		char *d2 = diff_text(&back, &lay[3], rs, &status);
		const char *b1 = strchr(strchr(d, '\n') + 1, '\n'), *b2 = strchr(strchr(d2, '\n') + 1, '\n');

		ok(status == n && !strcmp(b1, b2), "diff from the capture equals the diff from the BTF");
		free(d2);
	}
	free(d);

	d = diff_text(&lay[3], &lay[3], rs, &n);
	is_int(n, 0, "a kernel against itself: no differences");
	free(d);

	/* 6.1 -> 5.10 (backwards through the split): the limits join usage's
	 * line, which no rule allows. */
	d = diff_text(&lay[1], &lay[0], rs, &n);
	sec = section(d, "page_counter");
	ok(has_line(sec, "  ! new sharing: usage@0 (hot-written, line 0) now shares its cacheline with min@8 read-mostly",
		    "parent@40 read-mostly"), "6.1->5.10: '!' the limits join usage's line");
	free(sec);
	ok(gained >= 1, "6.1->5.10: a hot-written field gains a sharer no rule allows (%d)", gained);
	free(d);

	/* 7.2 -> 7.3-rt: RT's 32-byte lock pushes the last slots onto line 1,
	 * which the drain work shares: '!' where --check warns. */
	d = diff_text(&lay[6], &lay[7], rs, &n);
	sec = section(d, "memcg_stock_pcp");
	ok(has_line(sec, "  ! new sharing: cached@40 (hot-written, lines 0-1) now shares its cacheline with work@96",
		    NULL), "7.2->7.3-rt: '!' work@96 joins the last slots' line");
	free(sec);
	is_int(gained, 2, "7.2->7.3-rt: both stocks' cached gain work as a sharer no rule allows");
	free(d);

	layout_free(&back);
	status = tap_rm_rf(dir);
	(void)status;
}

int main(int argc, char **argv)
{
	char err[1024];
	int rc;

	for (int k = 0; k < NK; k++) {
		char path[128];
		struct kbtf kb;

		snprintf(path, sizeof(path), "build/btf/vmlinux-%s.btf", kernels[k]);
		if (kbtf_open(&kb, path, NULL, err, sizeof(err)))
			tap_skip_all(err);
		layout_from_btf(&lay[k], &kb);
		kbtf_close(&kb);
	}
	if (rules_parse(&rules_conf, RULES, err, sizeof(err))) {
		ok(0, "%s parses: %s", RULES, err);
		return tap_done();
	}
	rc = tap_main(argc, argv);
	rules_free(&rules_conf);
	for (int k = 0; k < NK; k++)
		layout_free(&lay[k]);
	return rc;
}
