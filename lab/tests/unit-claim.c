// SPDX-License-Identifier: GPL-2.0
/*
 * The [claim] sections of experiment files (report/claim.h): what a good
 * claim parses into (quantity, figures, the published change, the rule),
 * and every malformed one refused with the line at fault.
 */
#include <stdio.h>
#include <string.h>
#include "report/claim.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/expfile.h"

static int parse(const char *text, struct claims *cl, int *line, char *err, size_t n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct expfile x;
	const struct exp_entry *bad = NULL;
	int r = expfile_parse_stream(f, "t.exp", &x, err, n);

	fclose(f);
	memset(cl, 0, sizeof(*cl));
	if (!r)
		r = claims_parse(&x, cl, &bad, err, n);
	*line = bad ? bad->line : 0;
	expfile_free(&x);
	return r;
}

/* The common keys of a claim, after its own lines. */
#define TAIL "machine = 72 CPUs\ncondition = 36 clients\nsource = <1@x.org>\n"

/* A claim text that must be refused at line with a message holding want. */
static void refused(const char *text, int want_line, const char *want, const char *what)
{
	struct claims cl;
	char err[512] = "";
	int line = 0, r = parse(text, &cl, &line, err, sizeof(err));

	ok(r == -1 && line == want_line && strstr(err, want),
	   "%s: line %d, '%s' (got line %d: %s)", what, want_line, want, line, err);
	claims_free(&cl);
}

TEST(value_claim)
{
	struct claims cl;
	char err[512] = "";
	int line = 0;

	ok(!parse("[experiment]\nname = x\n[claim]\npublished = slots\nquantity = cliff:stock\nvalue = 7 memcgs\n"
		  "kernel = probe.features.stock_slots: 7\n" TAIL, &cl, &line, err, sizeof(err)) && cl.n == 1,
	   "a value claim parses (%s)", err);
	ok(cl.n == 1 && !cl.c[0].ab && cl.c[0].src == CQ_CLIFF && !strcmp(cl.c[0].mode, "stock") &&
	   cl.c[0].value[0].lo == 7 && !strcmp(cl.c[0].unit, "memcgs") && cl.c[0].rule == RULE_EQUAL &&
	   cl.c[0].nfeat == 1 && !strcmp(cl.c[0].feat[0].path, "probe.features.stock_slots") &&
	   !strcmp(cl.c[0].feat[0].a, "7") && cl.c[0].line == 4 && !strcmp(claim_label(&cl.c[0]), "claim"),
	   "its quantity, figure, unit, kernel, rule and line");
	claims_free(&cl);
}

TEST(series_ab)
{
	struct claims cl;
	char err[512] = "", buf[512];
	int line = 0;

	ok(!parse("[claim netperf]\npublished = p\nquantity = metric:tasks=6,12:charge.sock.per_worker\n"
		  "base = 42584.1, 30617.1 Mbps\npatched = 48603.4, 47919.7 Mbps\nchange = +14.1%, +56.5%\n"
		  "ab = probe.features.stock_slots: 1 -> 7; runtime.charge_batch: 64 -> 64\ncpus = 72\n"
		  "needs = sockets-v2\ntiming = yes\n" TAIL, &cl, &line, err, sizeof(err)),
	   "a series A/B parses (%s)", err);
	ok(cl.n == 1 && cl.c[0].ab && cl.c[0].npoints == 2 && !strcmp(cl.c[0].step[0], "tasks=6") &&
	   !strcmp(cl.c[0].step[1], "tasks=12") && !strcmp(cl.c[0].metric, "charge.sock.per_worker") &&
	   cl.c[0].change_lo[1] == 56.5 && cl.c[0].rule == RULE_CHANGE && cl.c[0].nfeat == 2 &&
	   !strcmp(cl.c[0].feat[0].b, "7") && cl.c[0].cpus == 72 && cl.c[0].sockets_v2 && cl.c[0].timing &&
	   !strcmp(claim_point_label(&cl.c[0], 1), "tasks=12"), "its steps, figures, change, facts and gates");
	claim_published_text(&cl.c[0], 0, buf, sizeof(buf));
	ok(!strcmp(buf, "42584.1 -> 48603.4 Mbps (+14.1%)"), "published as '%s'", buf);
	claim_rule_text(&cl.c[0], 0, buf, sizeof(buf));
	ok(strstr(buf, "Welch's t gives p < 0.05") && strstr(buf, "within 2x of the published +14.1%"),
	   "the rule in words: %s", buf);
	claims_free(&cl);
}

TEST(series_in_a_phase)
{
	struct claims cl;
	char err[512] = "";
	int line = 0;

	ok(!parse("[claim a]\npublished = p\nquantity = metric:phase:tasks=1..3:m\nbase = 1, 2, 3 s\n"
		  "patched = 2, 4, 6 s\n" TAIL, &cl, &line, err, sizeof(err)) && cl.c[0].npoints == 3 &&
	   !strcmp(cl.c[0].step[2], "phase:tasks=3") && cl.c[0].change_lo[2] == 100 &&
	   !strcmp(claim_point_label(&cl.c[0], 2), "tasks=3"),
	   "a series in a named phase, a range of steps, the change computed (%s)", err);
	claims_free(&cl);
}

TEST(claim_kinds)
{
	struct claims cl;
	char err[512] = "";
	int line = 0;

	ok(!parse("[claim a]\npublished = p\nquantity = metric:-:overhead\nvalue = 2.42 ratio\n" TAIL "[claim b]\n"
		  "published = p\nquantity = lines:page_counter.max+parent+high+low.false_hitm vs usage\n"
		  "base = > 0 hitm\npatched = 0 hitm\nab = probe.features.cacheline_split: false -> true\n" TAIL
		  "[claim c]\npublished = p\nquantity = lines-cliff:page_counter.usage.hitm / stock.charges_per_s\n"
		  "base = 1 memcgs\npatched = 7 memcgs\n" TAIL "[claim d]\npublished = p\n"
		  "quantity = layout:mem_cgroup.size\nbase = 4032 B\npatched = 4416 B\nchange = +9.5%\n"
		  "kernels = 5.10.262 -> 6.1.192\n" TAIL "[claim e]\npublished = p\nquantity = metric:-:t\n"
		  "base = 22.5 s\npatched = 23.1 s\nexpect = same\nreaders = 251\ntree = 50x5\n" TAIL
		  "[claim f]\npublished = p\nquantity = metric:x:p50\nvalue = 5..10 ms\n" TAIL, &cl, &line, err,
		  sizeof(err)) && cl.n == 6, "ratio, lines, lines-cliff, layout, same and range claims parse (%s)", err);
	if (cl.n == 6) {
		ok(cl.c[0].rule == RULE_RATIO, "a ratio value: the ratio rule");
		ok(cl.c[1].rule == RULE_SIDES && cl.c[1].src == CQ_LINES && cl.c[1].lines.nfields == 4 &&
		   !strcmp(cl.c[1].lines.field[3], "low") && !strcmp(cl.c[1].lines.column, "false_hitm") &&
		   !strcmp(cl.c[1].lines.vs, "usage") && cl.c[1].base[0].bound == '>' && !cl.c[1].patched[0].bound,
		   "lines: four fields, the column, vs, a bound and a count: each side as published");
		ok(cl.c[2].src == CQ_LINES_CLIFF && !strcmp(cl.c[2].lines.per_metric, "stock.charges_per_s") &&
		   cl.c[2].rule == RULE_SIDES, "lines-cliff per a metric: each side as published");
		ok(cl.c[3].src == CQ_LAYOUT && cl.c[3].rule == RULE_CHANGE_EXACT && !strcmp(cl.c[3].kernel_a, "5.10.262") &&
		   !strcmp(cl.c[3].kernel_b, "6.1.192"), "layout: exact change, the kernels named");
		ok(cl.c[4].rule == RULE_SAME && cl.c[4].readers == 251 && cl.c[4].tree_top == 50 &&
		   cl.c[4].tree_children == 5, "expect = same, the seed's readers and tree");
		ok(cl.c[5].rule == RULE_NEAR && cl.c[5].value[0].lo == 5 && cl.c[5].value[0].hi == 10,
		   "a range 5..10 ms: near");
	}
	claims_free(&cl);
}

/* Per operation of the windows (lines/ops.tsv), and a change alone. */
TEST(per_operation)
{
	struct claims cl;
	char err[512] = "";
	int line = 0;

	ok(!parse("[claim a]\npublished = p\nquantity = lines:page_counter.usage.hitm / ops\nchange = -50%\n"
		  "ab = runtime.charge_batch: 32 -> 64\n" TAIL "[claim b]\npublished = p\n"
		  "quantity = lines-cliff:page_counter.usage.stores / ops\nbase = 1 memcgs\npatched = 7 memcgs\n" TAIL,
		  &cl, &line, err, sizeof(err)) && cl.n == 2, "lines and lines-cliff per operation parse (%s)", err);
	if (cl.n == 2) {
		ok(cl.c[0].lines.per_ops && !cl.c[0].lines.per_metric[0] && cl.c[0].rule == RULE_CHANGE_EXACT &&
		   !strcmp(cl.c[0].unit, "%") && !strcmp(cl.c[0].munit, "hitm/op"),
		   "/ ops: per operation, a change alone judged as an exact change, measured in hitm/op (%s)",
		   cl.c[0].munit);
		ok(cl.c[1].lines.per_ops && cl.c[1].src == CQ_LINES_CLIFF && !strcmp(cl.c[1].munit, "memcgs"),
		   "lines-cliff / ops, in the claim's unit");
	}
	claims_free(&cl);
}

/* Malformed claims: one line each, the line at fault. */
TEST(malformed)
{
	refused("[claim a]\npublished = p\nquantity = netperf:x\nvalue = 1 x\n" TAIL, 3, "unknown quantity",
		"an unknown quantity");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 3\n" TAIL, 4, "want a number and its unit",
		"a value without a unit");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nbase = 3 s\npatched = 4\n" TAIL, 5,
		"want a number and its unit", "a patched figure without a unit");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nmachine = m\ncondition = c\n", 2,
		"needs source", "a missing source");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nmachine = m\ncondition = c\n"
		"source = Shakeel's mail\n", 7, "want a commit", "a source that is neither a commit nor a Message-ID");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nbase = 10482.7 Mbps\npatched = 17063.7 Mbps\n"
		"change = +60%\n" TAIL, 6, "is +62.8%, not +60%", "a change that base and patched contradict");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nbase = 1 s\n" TAIL, 4, "both base and patched",
		"base without patched");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nbase = 1 s\npatched = 2 s\n" TAIL, 4,
		"not both", "a value and an A/B");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nab = probe.features.x: 1 -> 2\n" TAIL,
		5, "a value takes kernel", "ab on a value");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nkernel = uname: 6.1\n" TAIL, 5,
		"not a meta.json path under probe.", "a kernel fact that is no meta.json path");
	refused("[claim a]\npublished = p\nquantity = metric:tasks=6,12:m\nvalue = 1 s\n" TAIL, 4,
		"1 figure for the quantity's 2 steps", "a figure short of the series' steps");
	refused("[claim a]\npublished = p\nquantity = lines:page_counter.max.hitz\nvalue = 0 hitm\n" TAIL, 3,
		"column 'hitz'", "an unknown lines column");
	refused("[claim a]\npublished = p\nquantity = lines:page_counter.usage.hitm / opps\nvalue = 0 hitm\n" TAIL, 3,
		"want '/ STEP:METRIC' or '/ ops'", "a lines count per neither a metric nor ops");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nvaleu = 2\n" TAIL, 5,
		"unknown key 'valeu'", "an unknown key");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nreaders = 251\n" TAIL, 5,
		"readers and tree go together", "readers without its tree");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nworkload = charge workload\n" TAIL, 5,
		"want a meta.json path (e.g. charge.workload)", "a workload that is no meta.json path");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nwithin = 0.5x\n" TAIL, 5,
		"a factor > 1", "a factor below 1");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = 1 s\nexpect = same\n" TAIL, 5,
		"same is for an A/B", "expect = same on a value");
	refused("[claim A!]\npublished = p\n", 2, "name is [a-z0-9-]", "a claim name with other characters");
	refused("[claim a]\npublished = p\nquantity = layout:mem_cgroup.size\nvalue = 1 B\nkernels = 5.10 -> 6.1\n"
		TAIL, 5, "only a layout A/B", "kernels on a value");
	refused("[claim a]\npublished = p\nquantity = metric:-:m\nvalue = -1 ratio\n" TAIL, 4, "a ratio is > 0",
		"a ratio of -1");
}

TEST(claim_sections)
{
	ok(claim_section("claim") && claim_section("claim x") && !claim_section("claims") && !claim_section("driver"),
	   "claim sections are [claim] and [claim NAME]");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
