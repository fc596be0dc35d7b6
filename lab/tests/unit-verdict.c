// SPDX-License-Identifier: GPL-2.0
/*
 * Verdicts (report/verdict.h) on made-up results directories: each rule
 * deciding reproduced or not on figures worked out by hand, each reason a
 * claim is not measurable here (TCG timing, CPUs, v1 sockets, [small],
 * one kernel for an A/B, a kernel the claim is not about), a claim the run
 * did not reach, runs from before the claims, A/B pairs and their sides,
 * layouts from captures and from the kernels a claim names, and the
 * cacheline counts of lines/fields.tsv (both namings of a page_counter,
 * per-charge normalisation by a metric or by the windows' own operations
 * (ops.tsv), the per-K cliff as the largest rise, a guest run's lines).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/lines_fields.h"
#include "report/verdict.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/metrics.h"
#include "util/results.h"

static char base[] = "/tmp/unit-verdict.XXXXXX";

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	if (mkdir_p(p, 0755))
		tap_skip_all("cannot create a directory below /tmp");
	*slash = '/';
	if (write_file_atomic(p, text, strlen(text)))
		tap_skip_all("cannot write a file below /tmp");
	free(p);
}

/* A results directory: meta.json, experiment.exp (NULL: none) and
 * data/metrics.tsv rows (NULL: none). */
static char *mkrun(const char *name, const char *meta, const char *exp, const char *metrics)
{
	char *dir = xasprintf("%s/%s", base, name);

	put(dir, "meta.json", meta);
	if (exp)
		put(dir, "experiment.exp", exp);
	if (metrics) {
		char *t = xasprintf("%s%s", METRICS_HEADER, metrics);

		put(dir, METRICS_FILE, t);
		free(t);
	}
	return dir;
}

#define META(features, extra)                                                                              \
	"{\"name\":\"t\",\"status\":\"complete\",\"lab_revision\":\"abc123\",\"probe\":{\"kernel\":\"6.18.44\","  \
	"\"features\":{" features "},\"machine\":{\"topology\":{\"cpus\":2},\"cgroup\":{\"memory_v2\":true}}}"  \
	extra "}"
#define HOST META("\"stock_slots\":7,\"cacheline_split\":true,\"user_flush_mutex\":false", \
		  ",\"runtime\":{\"charge_batch\":64}")
#define TAIL "machine = m\ncondition = c\nsource = <1@x.org>\n"
#define EXP "[experiment]\nname = t\n[driver]\ncommand = charge\n"

/* The verdict of claim name in vs, or NULL. */
static const struct verdict *of(const struct verdicts *vs, const char *name, char side)
{
	for (int i = 0; i < vs->n; i++)
		if (!strcmp(claim_label(vs->v[i].c), name) && vs->v[i].side == side)
			return &vs->v[i];
	return NULL;
}

static bool is(const struct verdicts *vs, const char *name, enum verdict_kind k, const char *why_has)
{
	const struct verdict *v = of(vs, name, 0);

	if (!v) {
		tap_diag("no verdict for %s", name);
		return false;
	}
	if (v->kind != k || (why_has && !strstr(v->pt[0].why, why_has))) {
		tap_diag("%s: %s: %s (measured %s)", name, verdict_kind_name(v->kind), v->pt[0].why, v->pt[0].measured);
		return false;
	}
	return true;
}

static bool has_note(const struct verdict *v, const char *s)
{
	for (int i = 0; v && i < v->nnotes; i++)
		if (strstr(v->notes[i], s))
			return true;
	return false;
}

/* The widest line of text in columns (UTF-8 continuation bytes take none). */
static int widest(const char *text)
{
	int w = 0, cur = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\n') {
			w = cur > w ? cur : w;
			cur = 0;
		} else if ((*p & 0xc0) != 0x80) {
			cur++;
		}
	}
	return cur > w ? cur : w;
}

static char *printed(const struct verdicts *vs, int width, int what)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (what == 0)
		verdicts_print(f, vs, width);
	else if (what == 1)
		verdicts_table(f, vs, width);
	else
		verdicts_tsv(f, vs);
	fclose(f);
	return text;
}

/* K=1..kmax holders rows of one repeat: every memcg held up to cliff, then cliff. */
static void holders(char *buf, size_t n, int rep, int kmax, int cliff)
{
	for (int k = 1; k <= kmax; k++)
		snprintf(buf + strlen(buf), n - strlen(buf), "K=%d\t%d\tstock.holders\t%d\tmemcgs\thigher\n", k, rep,
			 k <= cliff ? k : cliff);
}

TEST(old_runs)
{
	struct verdicts vs;
	char *d;

	d = mkrun("old", HOST, EXP, "-\t0\tm\t1\tx\thigher\n");
	verdicts_of_dir(&vs, d);
	ok(vs.n == 0 && strstr(vs.none, "no [claim]") && strstr(vs.none, "abc123"),
	   "a run from before the claims: no verdicts, and why (%s)", vs.none);
	verdicts_free(&vs);
	free(d);
	d = mkrun("noexp", HOST, NULL, NULL);
	verdicts_of_dir(&vs, d);
	ok(vs.n == 0 && strstr(vs.none, "no experiment.exp"), "a command run alone: no verdicts (%s)", vs.none);
	verdicts_free(&vs);
	free(d);
	d = mkrun("badclaim", HOST, EXP "[claim x]\npublished = p\nquantity = metric:-:m\nvalue = 3\n" TAIL, NULL);
	verdicts_of_dir(&vs, d);
	ok(vs.n == 0 && strstr(vs.none, "experiment.exp:8:") && strstr(vs.none, "cannot read"),
	   "a claim this lab cannot read: no verdicts, file:line (%s)", vs.none);
	verdicts_free(&vs);
	free(d);
	d = mkrun("nometa", "not json", EXP, NULL);
	verdicts_of_dir(&vs, d);
	ok(vs.n == 0 && strstr(vs.none, "meta.json"), "no meta.json: no verdicts (%s)", vs.none);
	verdicts_free(&vs);
	free(d);
}

TEST(one_run)
{
	static char m[8192];
	struct verdicts vs;
	const struct verdict *v;
	char *d, *text;

	m[0] = '\0';
	holders(m, sizeof(m), 0, 9, 7);
	holders(m, sizeof(m), 1, 9, 4);	/* evicted by another task */
	strcat(m, "-\t0\toverhead\t2.3\tratio\t-\n-\t1\toverhead\t2.4\tratio\t-\n-\t2\toverhead\t2.5\tratio\t-\n"
		  "-\t0\tp50\t6000000\tns\tlower\n-\t1\tp50\t7000000\tns\tlower\n");
	d = mkrun("host", HOST, EXP
		  "[claim slots]\npublished = p\nquantity = cliff:stock\nvalue = 7 memcgs\n"
		  "kernel = probe.features.stock_slots: 7\n" TAIL
		  "[claim batch]\npublished = p\nquantity = meta:runtime.charge_batch\nvalue = 64 pages\n" TAIL
		  "[claim batch32]\npublished = p\nquantity = meta:runtime.charge_batch\nvalue = 32 pages\n" TAIL
		  "[claim ratio]\npublished = p\nquantity = metric:-:overhead\nvalue = 2.42 ratio\n" TAIL
		  "[claim ratio5]\npublished = p\nquantity = metric:-:overhead\nvalue = 5 ratio\n" TAIL
		  "[claim near]\npublished = p\nquantity = metric:-:p50\nvalue = 5..10 ms\n" TAIL
		  "[claim cpus]\npublished = p\nquantity = metric:-:overhead\nvalue = 2.42 ratio\ncpus = 72\n" TAIL
		  "[claim kernel]\npublished = p\nquantity = cliff:stock\nvalue = 1 memcgs\n"
		  "kernel = probe.features.stock_slots: 1\n" TAIL
		  "[claim absent]\npublished = p\nquantity = metric:-:nosuch\nvalue = 1 s\n" TAIL
		  "[claim ab]\npublished = p\nquantity = cliff:stock\nbase = 1 memcgs\npatched = 7 memcgs\n"
		  "ab = probe.features.stock_slots: 1 -> 7\n" TAIL
		  "[claim readers]\npublished = p\nquantity = metric:-:overhead\nbase = 22.5 s\npatched = 23.1 s\n"
		  "expect = same\nreaders = 251\ntree = 50x5\n" TAIL, m);
	verdicts_of_dir(&vs, d);
	ok(vs.n == 11 && !vs.none[0], "eleven claims, eleven verdicts (%s)", vs.none);
	v = of(&vs, "slots", 0);
	ok(is(&vs, "slots", VERDICT_REPRODUCED, "highest repeat") && v &&
	   strstr(v->pt[0].measured, "7, 4 memcgs (2 repeats)") && v->pt[0].a_mean == 7,
	   "a cliff of 7 and one of 4 (evicted): the highest repeat decides, reproduced");
	ok(is(&vs, "batch", VERDICT_REPRODUCED, "equal to the published 64"), "the runtime probe's 64 pages: reproduced");
	ok(is(&vs, "batch32", VERDICT_NOT_REPRODUCED, "it differs"), "64 pages against a published 32: not reproduced");
	/* 2.3, 2.4, 2.5: effect +140%, t = 1.4 / (0.1 / sqrt(3)) = 24.2, p < 0.01. */
	v = of(&vs, "ratio", 0);
	ok(is(&vs, "ratio", VERDICT_REPRODUCED, "one-sample t-test") && v &&
	   fabs(v->pt[0].change - 140) < 1e-6 && v->pt[0].p < 0.01, "a ratio 2.4 +-0.1 against 2.42: reproduced (p %g)",
	   v ? v->pt[0].p : -1);
	ok(is(&vs, "ratio5", VERDICT_NOT_REPRODUCED, "outside 2x"), "the same against 5 (effect +400%%): not reproduced");
	ok(is(&vs, "near", VERDICT_REPRODUCED, "within 2x of the published 5..10 ms") &&
	   fabs(of(&vs, "near", 0)->pt[0].a_mean - 6.5) < 1e-9, "6.5 ms, measured in ns, within 2x of 5..10 ms");
	ok(is(&vs, "cpus", VERDICT_NOT_MEASURABLE, "2 CPUs against the claim's 72"), "2 CPUs against 72: not measurable");
	ok(strstr(of(&vs, "cpus", 0)->pt[0].measured, "(not judged)"), "what it measured is shown, not judged");
	ok(is(&vs, "kernel", VERDICT_NOT_MEASURABLE, "kernels with probe.features.stock_slots 1; 6.18.44 has 7"),
	   "a claim about one-slot kernels on a 7-slot one: not measurable");
	ok(is(&vs, "absent", VERDICT_NOT_REACHED, "the run measured no nosuch"), "a metric the run lacks: not reached");
	ok(is(&vs, "ab", VERDICT_NOT_MEASURABLE, "one kernel (6.18.44) where the claim is an A/B") &&
	   strstr(of(&vs, "ab", 0)->pt[0].why, "the patched side (published 7 memcgs)"),
	   "an A/B on one kernel: not measurable, which side it is");
	ok(has_note(of(&vs, "readers", 0), "the seed says 251; one per cgroup of its 50x5 tree is 1 + 50 + 250 = 301"),
	   "the seed's 251 readers against its 50x5 tree: 301");
	text = printed(&vs, 72, 0);
	ok(widest(text) <= 72 && strstr(text, "REPRODUCED") && strstr(text, "not measurable here"),
	   "the section fits 72 columns (widest %d)", widest(text));
	free(text);
	text = printed(&vs, 80, 0);
	ok(widest(text) <= 80, "and 80 (widest %d)", widest(text));
	free(text);
	text = printed(&vs, 80, 2);
	{
		int rows = 0;

		for (char *p = text; *p; p++)
			rows += *p == '\n';
		ok(rows == 12 && !strncmp(text, "claim\tside\tpoint\tverdict\t", 25) &&
		   strstr(text, "slots\t-\t-\treproduced\t7 memcgs\t"), "verdicts.tsv: a header and a row per claim");
	}
	free(text);
	verdicts_free(&vs);
	free(d);

	/* The gates of the run as a whole. */
	d = mkrun("tcg", META("\"stock_slots\":7", ",\"vm\":{\"accel\":\"tcg\",\"kernel_spec\":\"6.12\",\"cpus\":4}"),
		  EXP "[claim t]\npublished = p\nquantity = metric:-:overhead\nvalue = 2.42 ratio\ntiming = yes\n"
		  "cpus = 8\n" TAIL "[claim c]\npublished = p\nquantity = cliff:stock\nvalue = 7 memcgs\n" TAIL,
		  "-\t0\toverhead\t2.4\tratio\t-\n");
	verdicts_of_dir(&vs, d);
	ok(is(&vs, "t", VERDICT_NOT_MEASURABLE, "TCG timing: a qemu guest (kernel 6.12) under tcg") &&
	   strstr(of(&vs, "t", 0)->pt[0].why, "4 CPUs against the claim's 8"),
	   "a timing claim in a TCG guest of 4 vCPUs: not measurable, both reasons");
	ok(is(&vs, "c", VERDICT_NOT_REACHED, "no stock.holders"), "a count in the same guest is not gated by TCG");
	verdicts_free(&vs);
	free(d);
	d = mkrun("v1sock", META("\"stock_slots\":7", ",\"charge\":{\"socket_counter\":\"memory.kmem.tcp (cgroup v1)\"},"
				 "\"scaled\":\"2 CPUs < 16\""),
		  EXP "[claim s]\npublished = p\nquantity = metric:tasks=6:charge.sock.per_worker\nvalue = 1 Mbps\n"
		  "needs = sockets-v2\n" TAIL,
		  "tasks=6\t0\tcharge.sock.per_worker\t9\tMbps\thigher\n");
	verdicts_of_dir(&vs, d);
	ok(is(&vs, "s", VERDICT_NOT_MEASURABLE, "v1 sockets bypass the stock: socket memory was charged to "
	      "memory.kmem.tcp (cgroup v1)") && strstr(of(&vs, "s", 0)->pt[0].why, "the [small] shape ran (2 CPUs < 16)"),
	   "sockets charged on v1 and a [small] shape: not measurable, both reasons");
	verdicts_free(&vs);
	free(d);
}

TEST(pairs)
{
	static char ma[8192], mb[8192];
	struct verdicts vs;
	const struct verdict *v;
	const char *claims = EXP
		"[claim change]\npublished = p\nquantity = metric:hierarchy:tput\nbase = 10482.7 Mbps\n"
		"patched = 12413.7 Mbps\nab = probe.features.cacheline_split: false -> true\n" TAIL
		"[claim same]\npublished = p\nquantity = metric:-:real\nbase = 22.5 s\npatched = 23.1 s\nexpect = same\n" TAIL
		"[claim slots]\npublished = p\nquantity = cliff:stock\nbase = 1 memcgs\npatched = 7 memcgs\n"
		"ab = probe.features.stock_slots: 1 -> 7\n" TAIL
		"[claim confound]\npublished = p\nquantity = metric:hierarchy:tput\nbase = 10482.7 Mbps\n"
		"patched = 12413.7 Mbps\nab = probe.features.cacheline_split: false -> true; runtime.charge_batch: 32 -> 32\n"
		TAIL
		"[claim series]\npublished = p\nquantity = metric:tasks=6,12:tput\nbase = 100, 100 Mbps\n"
		"patched = 114, 156 Mbps\n" TAIL
		"[claim value]\npublished = p\nquantity = meta:runtime.charge_batch\nvalue = 64 pages\n" TAIL;
	char *a, *b, *b2, *text;

	ma[0] = mb[0] = '\0';
	holders(ma, sizeof(ma), 0, 3, 1);
	holders(mb, sizeof(mb), 0, 9, 7);
	strcat(ma, "hierarchy\t0\ttput\t100\tMbps\thigher\nhierarchy\t1\ttput\t101\tMbps\thigher\n"
		   "hierarchy\t2\ttput\t99\tMbps\thigher\n-\t0\treal\t22.4\ts\tlower\n-\t1\treal\t22.6\ts\tlower\n"
		   "-\t2\treal\t22.5\ts\tlower\ntasks=6\t0\ttput\t10\tMbps\thigher\ntasks=6\t1\ttput\t11\tMbps\thigher\n");
	strcat(mb, "hierarchy\t0\ttput\t118\tMbps\thigher\nhierarchy\t1\ttput\t119\tMbps\thigher\n"
		   "hierarchy\t2\ttput\t117\tMbps\thigher\n-\t0\treal\t22.5\ts\tlower\n-\t1\treal\t22.7\ts\tlower\n"
		   "-\t2\treal\t22.6\ts\tlower\ntasks=6\t0\ttput\t11.4\tMbps\thigher\ntasks=6\t1\ttput\t12.5\tMbps\thigher\n");
	a = mkrun("a", META("\"stock_slots\":1,\"cacheline_split\":false", ",\"runtime\":{\"charge_batch\":32}"), claims, ma);
	b = mkrun("b", META("\"stock_slots\":7,\"cacheline_split\":true", ",\"runtime\":{\"charge_batch\":64}"), claims, mb);
	verdicts_of_pair(&vs, a, b);
	/* 100 +-1 against 118 +-1: +18.0%, t = 18 / sqrt(2/3) = 22.0, against +18.4%. */
	v = of(&vs, "change", 0);
	ok(v && v->kind == VERDICT_REPRODUCED && fabs(v->pt[0].change - 18) < 1e-9 &&
	   v->pt[0].p < 0.001, "100 +-1 against 118 +-1 (+18.0%%, p %g) against a published +18.4%%: reproduced",
	   v ? v->pt[0].p : -1);
	v = of(&vs, "same", 0);
	ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].p > 0.05,
	   "22.5 against 22.6 s, p %g: no change, as the seed saw: reproduced", v ? v->pt[0].p : -1);
	v = of(&vs, "slots", 0);
	ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].a_mean == 1 && v->pt[0].b_mean == 7,
	   "cliffs of 1 (A) and 7 (B): reproduced");
	v = of(&vs, "confound", 0);
	ok(v && v->kind == VERDICT_NOT_MEASURABLE &&
	   strstr(v->pt[0].why, "A and B differ in runtime.charge_batch (32, 64; the claim wants 32 on both): the pair "
		  "confounds it"), "the split between kernels whose batch differs too: confounded, not measurable");
	v = of(&vs, "series", 0);
	ok(v && v->npts == 2 && v->pt[0].kind == VERDICT_NOT_REPRODUCED && strstr(v->pt[0].why, "is not below 0.05") &&
	   v->pt[1].kind == VERDICT_NOT_REACHED && strstr(v->pt[1].why, "no tput at step tasks=12") &&
	   v->kind == VERDICT_NOT_REPRODUCED,
	   "a series: +13.8%% at 6 (two runs a side, p above 0.05: not reproduced), 12 not reached");
	ok(has_note(of(&vs, "series", 0), "sides taken as given"), "a claim naming no fact: its sides taken as given");
	ok(of(&vs, "value", 'A') && of(&vs, "value", 'A')->kind == VERDICT_NOT_REPRODUCED && of(&vs, "value", 'B') &&
	   of(&vs, "value", 'B')->kind == VERDICT_REPRODUCED, "a value claim is judged on each side: 32 [A], 64 [B]");
	text = printed(&vs, 80, 1);
	ok(strstr(text, "base and patched as published") && strstr(text, "10482.7") && strstr(text, "(+18.4%)") && strstr(text, "(+18.0%)") &&
	   widest(text) <= 80, "the seed's table beside A and B (widest %d)", widest(text));
	free(text);
	text = printed(&vs, 72, 1);
	ok(widest(text) <= 72, "the table fits 72 columns (widest %d)", widest(text));
	free(text);
	verdicts_free(&vs);

	/* B no better than A: not reproduced; A and B swapped: not measurable. */
	b2 = mkrun("b2", META("\"stock_slots\":7,\"cacheline_split\":true", ""), claims,
		   "hierarchy\t0\ttput\t101\tMbps\thigher\nhierarchy\t1\ttput\t100\tMbps\thigher\n"
		   "hierarchy\t2\ttput\t102\tMbps\thigher\n");
	verdicts_of_pair(&vs, a, b2);
	v = of(&vs, "change", 0);
	ok(v && v->kind == VERDICT_NOT_REPRODUCED && strstr(v->pt[0].why, "outside 2x"),
	   "+1%% against +18.4%%: not reproduced (%s)", v ? v->pt[0].why : "");
	verdicts_free(&vs);
	verdicts_of_pair(&vs, b, a);
	v = of(&vs, "slots", 0);
	ok(v && v->kind == VERDICT_NOT_MEASURABLE &&
	   strstr(v->pt[0].why, "A is the patched side (probe.features.stock_slots 7) and B the base"),
	   "the sides swapped: not measurable, and which way round they go");
	verdicts_free(&vs);
	verdicts_of_pair(&vs, a, a);
	v = of(&vs, "slots", 0);
	ok(v && v->kind == VERDICT_NOT_MEASURABLE &&
	   strstr(v->pt[0].why, "A and B do not differ in probe.features.stock_slots"), "one kernel twice: not measurable");
	verdicts_free(&vs);
	free(a);
	free(b);
	free(b2);
}

/* cp -r of the lab's rel into dir/sub (from an argv); 0 when copied. */
static int copy_tree(const char *rel, const char *dir, const char *sub)
{
	char *src = xasprintf("%s/%s", lab_root_dir(), rel), *dst = xasprintf("%s/%s", dir, sub);
	char *parent = xasprintf("%s/data", dir);
	struct run_result r = { .status = 1 };

	if (!mkdir_p(parent, 0755))
		free(run_capture_argv((const char *const[]){ "cp", "-r", "--", src, dst, NULL }, RUN_STDERR_MERGE, &r));
	free(r.err);
	free(src);
	free(dst);
	free(parent);
	return r.status;
}

TEST(layouts)
{
	const char *claim = EXP "[claim layout]\npublished = p\nquantity = layout:mem_cgroup.size\nbase = 4032 B\n"
			    "patched = 4416 B\nab = probe.features.cacheline_split: false -> true\n"
			    "kernels = 5.10.262 -> 6.1.192\n" TAIL
			    "[claim pc]\npublished = p\nquantity = layout:page_counter.cachelines\nbase = 2 lines\n"
			    "patched = 3 lines\n" TAIL;
	struct verdicts vs;
	const struct verdict *v;
	char *a, *b;

	a = mkrun("la", META("\"cacheline_split\":false", ""), claim, NULL);
	b = mkrun("lb", META("\"cacheline_split\":true", ""), claim, NULL);
	verdicts_of_dir(&vs, a);
	v = of(&vs, "layout", 0);
	ok(v && v->kind == VERDICT_NOT_REPRODUCED && v->pt[0].a_mean == 2816 &&
	   v->pt[0].b_mean == 2240 && strstr(v->pt[0].why, "other sign") &&
	   has_note(v, "raw BTF file") && has_note(v, "vmlinux-5.10.262.btf") && has_note(v, "vmlinux-6.1.192.btf"),
	   "mem_cgroup from the BTF of the kernels named: 2816 -> 2240 B, not the published growth");
	v = of(&vs, "pc", 0);
	ok(v && v->kind == VERDICT_NOT_MEASURABLE, "a layout A/B naming no kernels, one run: "
	   "not measurable");
	verdicts_free(&vs);
	/* The runs' own captures (data/layout) come first. */
	if (copy_tree("layouts/5.10.262", a, "data/layout") || copy_tree("layouts/6.1.192", b, "data/layout")) {
		tap_skip("layouts from the runs' captures", "cannot copy layouts/ below /tmp");
	} else {
		verdicts_of_pair(&vs, a, b);
		v = of(&vs, "pc", 0);
		ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].a_mean == 2 && v->pt[0].b_mean == 3,
		   "page_counter from the runs' captures: 2 -> 3 cachelines, reproduced");
		verdicts_free(&vs);
	}
	free(a);
	free(b);
}

#define FIELDS_HEADER "struct\tfield\toffset\tsize\tloads\tstores\thitm_loads\thitm_stores\tfalse_hitm\ttrue_hitm\tother_field\n"

/* A fields.tsv row: struct, field, hitm_loads, hitm_stores, false, true, other. */
static char *row(const char *st, const char *f, int hl, int hs, int fa, int tr, const char *other)
{
	return xasprintf("%s\t%s\t0\t8\t100\t10\t%d\t%d\t%d\t%d\t%s\n", st, f, hl, hs, fa, tr, other);
}

TEST(lines)
{
	const char *claims = EXP
		"[claim split]\npublished = p\nquantity = lines:page_counter.max+parent+high+low.false_hitm vs usage\n"
		"base = > 0 hitm\npatched = 0 hitm\nab = probe.features.cacheline_split: false -> true\n" TAIL
		"[claim per]\npublished = p\nquantity = lines:page_counter.usage.hitm / tasks=4:charge.anon.total\n"
		"value = 2 hitm/op\n" TAIL
		"[claim cliff]\npublished = p\nquantity = lines-cliff:page_counter.usage.hitm / stock.charges_per_s\n"
		"base = 1 memcgs\npatched = 7 memcgs\nab = probe.features.stock_slots: 1 -> 7\n" TAIL;
	char *a, *b, *b2, *vm, *g, *r[8], *t, *kdir, *cstock;
	struct verdicts vs;
	const struct verdict *v;
	struct lines_fields lf;
	char err[512] = "";
	static char ma[4096], mb[4096];

	/* 5.10-like: false sharing with usage on max and high, named either way. */
	r[0] = row("mem_cgroup", "memory.max", 12, 0, 12, 0, "memory.usage");
	r[1] = row("page_counter", "high", 2, 1, 3, 0, "min+usage");	/* several other fields, '+'-joined */
	r[2] = row("page_counter", "min", 5, 0, 5, 0, "usage");		/* not a field of the claim */
	r[3] = row("page_counter", "max", 7, 0, 7, 0, "emin");		/* not against usage */
	r[4] = row("mem_cgroup", "memory.usage", 300, 300, 0, 600, "memory.usage");
	r[5] = row("page_counter", "usage", 200, 200, 0, 400, "usage");
	ma[0] = mb[0] = '\0';
	strcat(ma, "tasks=4\t0\tcharge.anon.total\t400\tops/s\thigher\ntasks=4\t1\tcharge.anon.total\t600\tops/s\thigher\n");
	a = mkrun("xa", META("\"cacheline_split\":false,\"stock_slots\":1", ""), claims, ma);
	t = xasprintf(FIELDS_HEADER "%s%s%s%s%s%s", r[0], r[1], r[2], r[3], r[4], r[5]);
	put(a, "lines/fields.tsv", t);
	free(t);
	t = xasprintf("%s/lines/fields.tsv", a);
	ok(!lines_fields_load(t, &lf, err, sizeof(err)) && lf.n == 6, "fields.tsv: six rows (%s)", err);
	lines_fields_free(&lf);
	free(t);
	/* 6.1-like: none on the limits, usage still contended. */
	b = mkrun("xb", META("\"cacheline_split\":true,\"stock_slots\":7", ""), claims, NULL);
	r[6] = row("page_counter", "max", 0, 0, 0, 0, "-");
	r[7] = row("page_counter", "high", 1, 0, 2, 0, "usage");
	t = xasprintf(FIELDS_HEADER "%s%s", r[6], r[5]);
	put(b, "lines/fields.tsv", t);
	free(t);
	verdicts_of_pair(&vs, a, b);
	v = of(&vs, "split", 0);

	ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].a_mean == 15 && v->pt[0].b_mean == 0,
	   "false sharing against usage on max and high (12 + 3, both namings, usage one of the other fields) on A, none on B: reproduced");
	v = of(&vs, "per", 'A');
	ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].a_mean == 2,
	   "usage HITMs per op: (600 + 400) / 500 = 2, reproduced");
	v = of(&vs, "per", 'B');
	ok(v && v->kind == VERDICT_NOT_REACHED && strstr(v->pt[0].why, "metrics.tsv"),
	   "without the metric to divide by: not reached");
	verdicts_free(&vs);
	b2 = mkrun("xb2", META("\"cacheline_split\":true", ""), claims, NULL);
	t = xasprintf(FIELDS_HEADER "%s", r[7]);
	put(b2, "lines/fields.tsv", t);
	free(t);
	verdicts_of_pair(&vs, a, b2);
	v = of(&vs, "split", 0);
	ok(v && v->kind == VERDICT_NOT_REPRODUCED && strstr(v->pt[0].why, "B not as published"),
	   "false sharing left on B's high: not reproduced");
	verdicts_free(&vs);
	put(b2, "lines/fields.tsv", FIELDS_HEADER "page_counter\tmax\t0\t8\tx\t1\t0\t0\t0\t0\t-\n");
	verdicts_of_pair(&vs, a, b2);
	v = of(&vs, "split", 0);
	ok(v && v->kind == VERDICT_NOT_REACHED && strstr(v->pt[0].why, "fields.tsv:2: field loads"),
	   "a malformed fields.tsv: not reached, file:line (%s)", v ? v->pt[0].why : "");
	verdicts_free(&vs);

	/* The cliff of usage HITMs per charge, one window per K. */
	for (int k = 1; k <= 9; k++) {
		/* A (one slot): high from K = 2; B (7 slots): low up to 7. */
		int ha = k == 1 ? 0 : 50 + k % 3, hb = k <= 7 ? k % 3 : 60;
		char *rel = xasprintf("lines/K=%d/fields.tsv", k);

		cstock = xasprintf("K=%d\t0\tstock.charges_per_s\t%d\tops/s\thigher\n", k, k == 9 ? 2 : 1);
		if (k <= 4) {
			t = xasprintf(FIELDS_HEADER "%s", (kdir = row("page_counter", "usage", ha, 0, 0, ha, "usage")));
			put(a, rel, t);
			free(t);
			free(kdir);
			strcat(ma, cstock);
		}
		t = xasprintf(FIELDS_HEADER "%s", (kdir = row("mem_cgroup", "memory.usage", hb, 0, 0, hb, "memory.usage")));
		put(b, rel, t);
		free(t);
		free(kdir);
		strcat(mb, cstock);
		free(cstock);
		free(rel);
	}
	t = xasprintf("%s%s", METRICS_HEADER, ma);
	put(a, METRICS_FILE, t);
	free(t);
	t = xasprintf("%s%s", METRICS_HEADER, mb);
	put(b, METRICS_FILE, t);
	free(t);
	verdicts_of_pair(&vs, a, b);
	/* B: 60 at K = 8, 60 / 2 = 30 at K = 9: half of 60 first reached at K = 8. */
	v = of(&vs, "cliff", 0);
	ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].a_mean == 1 && v->pt[0].b_mean == 7,
	   "usage HITMs per charge jump past K = 1 on A, past K = 7 on B: reproduced (%s)", v ? v->pt[0].measured : "");
	verdicts_free(&vs);

	/* A guest run's lines are the vm directory's, two levels up. */
	vm = xasprintf("%s/vm-6.1", base);
	g = mkrun("vm-6.1/results/20261201-x", META("\"cacheline_split\":true", ",\"vm\":{\"accel\":\"tcg\"}"),
		  EXP "[claim split]\npublished = p\nquantity = lines:page_counter.max.false_hitm\nvalue = 0 hitm\n" TAIL, NULL);
	t = xasprintf(FIELDS_HEADER "%s", r[5]);
	put(vm, "lines/fields.tsv", t);
	free(t);
	put(vm, "meta.json", "{}");
	verdicts_of_dir(&vs, g);
	ok(is(&vs, "split", VERDICT_NOT_REACHED, "has no row for page_counter.max"),
	   "a guest run's lines/ (its vm directory's): read, and a field it lacks said");
	verdicts_free(&vs);
	t = xasprintf(FIELDS_HEADER "%s%s", r[5], r[6]);
	put(vm, "lines/fields.tsv", t);
	free(t);
	verdicts_of_dir(&vs, g);
	ok(is(&vs, "split", VERDICT_REPRODUCED, NULL), "and counted under TCG: counts are not timing");
	verdicts_free(&vs);
	for (int i = 0; i < 8; i++)
		free(r[i]);
	free(a);
	free(b);
	free(b2);
	free(vm);
	free(g);
}

#define OPS(windows, counted, ops, unit) \
	"# memcg-lab lines-ops 1\nwindows\tcounted\tops\tunit\n" windows "\t" counted "\t" ops "\t" unit "\n"

/* A usage row whose HITMs are v thousandths of ops (ops 1000): "K=k" dir. */
static void k_window(const char *dir, int k, double per_op)
{
	char *rel = xasprintf("lines/K=%d/fields.tsv", k), *ops = xasprintf("lines/K=%d/ops.tsv", k);
	char *r = row("mem_cgroup", "memory.usage", (int)lround(per_op * 1000), 0, 0, (int)lround(per_op * 1000),
		      "memory.usage");
	char *t = xasprintf(FIELDS_HEADER "%s", r);

	put(dir, rel, t);
	put(dir, ops, OPS("1", "1", "1000", "charges"));
	free(t);
	free(r);
	free(rel);
	free(ops);
}

/* Per operation the windows counted (ops.tsv), and the cliff as the largest rise. */
TEST(lines_ops)
{
	const char *claims = EXP
		"[claim per]\npublished = p\nquantity = lines:page_counter.usage.hitm / ops\nvalue = 2 hitm/op\n" TAIL
		"[claim batch]\npublished = p\nquantity = lines:page_counter.usage.hitm / ops\nchange = -50%\n"
		"ab = runtime.charge_batch: 32 -> 64\n" TAIL
		"[claim cliff]\npublished = p\nquantity = lines-cliff:page_counter.usage.hitm / ops\n"
		"base = 1 memcgs\npatched = 7 memcgs\nab = probe.features.stock_slots: 1 -> 7\n" TAIL;
	/* Measured in guests (per charge, K = 1..8): 6.12 keeps rising past its
	 * cliff at 1 (single-threaded TCG: more lines change hands per switch as
	 * K grows), 6.16 is flat up to 7 and doubles at 8. */
	static const double k612[] = { 0.040, 0.305, 0.362, 0.496, 0.614, 0.712, 0.761, 0.764 };
	static const double k616[] = { 0.170, 0.132, 0.119, 0.110, 0.117, 0.127, 0.121, 0.263 };
	char *a, *b, *f, *t, *r = row("page_counter", "usage", 600, 400, 0, 1000, "usage");
	struct verdicts vs;
	const struct verdict *v;

	a = mkrun("oa", META("\"stock_slots\":1", ",\"runtime\":{\"charge_batch\":32}"), claims, NULL);
	b = mkrun("ob", META("\"stock_slots\":7", ",\"runtime\":{\"charge_batch\":64}"), claims, NULL);
	t = xasprintf(FIELDS_HEADER "%s", r);
	put(a, "lines/fields.tsv", t);
	put(b, "lines/fields.tsv", t);
	free(t);
	put(a, "lines/ops.tsv", OPS("2", "2", "500", "faults"));
	verdicts_of_dir(&vs, a);
	v = of(&vs, "per", 0);
	ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].a_mean == 2 && strstr(v->pt[0].measured, "hitm/op"),
	   "usage HITMs per operation of the windows: 1000 / 500 = 2, reproduced (%s)", v ? v->pt[0].measured : "");
	verdicts_free(&vs);
	verdicts_of_dir(&vs, b);
	ok(is(&vs, "per", VERDICT_NOT_REACHED, "no ops.tsv beside"), "no ops.tsv: not reached, and why");
	verdicts_free(&vs);
	put(b, "lines/ops.tsv", OPS("2", "1", "500", "faults"));
	verdicts_of_dir(&vs, b);
	ok(is(&vs, "per", VERDICT_NOT_REACHED, "only 1 of the 2 windows"), "operations of only some windows: not reached");
	verdicts_free(&vs);
	put(b, "lines/ops.tsv", OPS("1", "1", "x", "faults"));
	verdicts_of_dir(&vs, b);
	ok(is(&vs, "per", VERDICT_NOT_REACHED, "ops.tsv:3: field ops: 'x'"), "a malformed ops.tsv: file:line: field");
	verdicts_free(&vs);
	put(b, "lines/ops.tsv", OPS("1", "1", "890", "faults"));
	/* Batch 32 -> 64: 1000 / 500 = 2 against 1000 / 890 = 1.12 per op: -43.8%. */
	verdicts_of_pair(&vs, a, b);
	v = of(&vs, "batch", 0);
	ok(v && v->kind == VERDICT_REPRODUCED && fabs(v->pt[0].change + 43.82) < 0.01 &&
	   strstr(v->pt[0].measured, "hitm/op"),
	   "a change-only claim per operation: -43.8%% against -50%%, in hitm/op (%s)", v ? v->pt[0].measured : "");
	verdicts_free(&vs);

	/* The cliffs, per operation of each K's windows. */
	f = xasprintf("%s/ka", base);
	free(a);
	free(b);
	a = mkrun("ka", META("\"stock_slots\":1", ""), claims, NULL);
	b = mkrun("kb", META("\"stock_slots\":7", ""), claims, NULL);
	for (int k = 1; k <= 8; k++) {
		k_window(a, k, k612[k - 1]);
		k_window(b, k, k616[k - 1]);
	}
	verdicts_of_pair(&vs, a, b);
	v = of(&vs, "cliff", 0);
	ok(v && v->kind == VERDICT_REPRODUCED && v->pt[0].a_mean == 1 && v->pt[0].b_mean == 7,
	   "the largest rise: past K = 1 on a curve that keeps rising (half its top is K = 4), past K = 7 on a flat "
	   "one that starts high (%s)", v ? v->pt[0].measured : "");
	verdicts_free(&vs);
	/* Flat: no cliff up to the largest K. */
	for (int k = 1; k <= 8; k++)
		k_window(b, k, 0.12 + 0.01 * (k % 2));
	verdicts_of_dir(&vs, b);
	v = of(&vs, "cliff", 0);
	ok(v && !strncmp(v->pt[0].measured, "8 memcgs", 8) && has_note(v, "no rise of x1.5"),
	   "no rise of 1.5x between consecutive K: the cliff lies past K = 8 (%s)", v ? v->pt[0].measured : "");
	verdicts_free(&vs);
	free(r);
	free(f);
	free(a);
	free(b);
}

/* workload = charge.workload: what the run's driver did, beside the
 * verdict (the seed's module, or a stand-in and why); an -icount guest's
 * times are instruction counts, and its gate says so. */
TEST(workloads)
{
	const char *claim = EXP "[claim w]\npublished = p\nquantity = metric:-:overhead\nvalue = 2.42 ratio\n"
		"timing = yes\nworkload = charge.workload\n" TAIL
		"[claim ab]\npublished = p\nquantity = metric:-:overhead\nbase = 3.87 ratio\npatched = 2.42 ratio\n"
		"timing = yes\nworkload = charge.workload\n" TAIL;
	const char *m = "-\t0\toverhead\t1.3\tratio\t-\n-\t1\toverhead\t1.4\tratio\t-\n";
	struct verdicts vs;
	const struct verdict *v;
	char *stand, *mod, *old, *ic;

	stand = mkrun("w-stand", META("\"stock_slots\":7", ",\"charge\":{\"workload\":\"stand-in: close()/open() "
		      "of /dev/null: a stand-in for the seed's module (no headers)\"}"), claim, m);
	mod = mkrun("w-mod", META("\"stock_slots\":7", ",\"charge\":{\"workload\":\"the seed's module: "
		    "kmem_bench\"}"), claim, m);
	old = mkrun("w-old", META("\"stock_slots\":7", ""), claim, m);
	ic = mkrun("w-icount", META("\"stock_slots\":7", ",\"vm\":{\"accel\":\"tcg\",\"kernel_spec\":\"6.1\","
		   "\"icount\":\"shift=0\"},\"charge\":{\"workload\":\"the seed's module: kmem_bench\"}"), claim, m);
	verdicts_of_dir(&vs, stand);
	ok(has_note(of(&vs, "w", 0), "workload: stand-in: close()/open() of /dev/null: a stand-in for the seed's module"),
	   "a stand-in run: its verdict says so");
	verdicts_free(&vs);
	verdicts_of_dir(&vs, old);
	ok(has_note(of(&vs, "w", 0), "workload: not said"), "a run from before the workload: said, not guessed");
	verdicts_free(&vs);
	verdicts_of_pair(&vs, stand, mod);
	v = of(&vs, "ab", 0);
	ok(v && has_note(v, "workload: A stand-in: close()/open()") && has_note(v, "; B the seed's module"),
	   "a pair of a stand-in and the module: each side's workload");
	verdicts_free(&vs);
	verdicts_of_pair(&vs, mod, mod);
	v = of(&vs, "ab", 0);
	ok(v && has_note(v, "workload: the seed's module: kmem_bench") && !has_note(v, "; B "),
	   "a pair on the same workload: said once");
	verdicts_free(&vs);
	verdicts_of_dir(&vs, ic);
	ok(is(&vs, "w", VERDICT_NOT_MEASURABLE, "TCG with -icount: a qemu guest (kernel 6.1) whose clock counts "
	      "instructions"), "an -icount guest: times are instruction counts, not judged as the seed's time");
	verdicts_free(&vs);
	free(stand);
	free(mod);
	free(old);
	free(ic);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(base))
		tap_skip_all("cannot create a directory below /tmp");
	rc = tap_main(argc, argv);
	if (tap_rm_rf(base))
		tap_diag("could not remove %s", base);
	return rc;
}
