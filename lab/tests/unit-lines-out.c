// SPDX-License-Identifier: GPL-2.0
/*
 * `memcg-lab c2c lines` (c2c/lines_out.h) on guest runs recorded here
 * (lab/tests/data/lines/charge-5.10, charge-6.1: README.md there), the
 * guest's BTF from build/btf: the page_counter split as fields.tsv says it
 * (5.10: false sharing on memory.parent against memory.usage; 6.1: none on
 * the limits, which are read, while usage has HITMs), each figure checked
 * against the plugin's own rows at the BTF offsets pahole prints; the claims'
 * reader (report/lines_fields.h) sums the same; the per-label directory; the
 * harness's counter slots named; the perf.data (its build ID, one sample per
 * event); the build-ID cache.  Then the refusals, one line each: a plugin
 * status other than ok, a guest BTF lacking a struct, no BTF, a malformed
 * file of the guest's; and a label that is no directory name.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "c2c/lines_ksyms.h"
#include "c2c/lines_out.h"
#include "c2c/lines_parse.h"
#include "perf/perfdata.h"
#include "report/claim.h"
#include "report/lines_fields.h"
#include "util/metrics.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/run.h"

static char tmp[] = "/tmp/unit-lines-out.XXXXXX";

/* A copy of a recorded run with its kernel's BTF, as vm leaves it: its path. */
static char *fixture(const char *name, const char *btf_release)
{
	char *dst = xasprintf("%s/%s", tmp, name), *src = xasprintf(TEST_DATA "/lines/%s", name);
	char *btf = xasprintf("%s/lines/vmlinux.btf", dst), *from = xasprintf("build/btf/vmlinux-%s.btf", btf_release);
	struct run_result r;

	tap_rm_rf(dst);
	free(run_capture_argv((const char *const[]){ "cp", "-r", "--", src, dst, NULL }, RUN_STDERR_MERGE, &r));
	free(r.err);
	free(run_capture_argv((const char *const[]){ "cp", "--", from, btf, NULL }, RUN_STDERR_MERGE, &r));
	free(r.err);
	free(src);
	free(btf);
	free(from);
	return dst;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int convert(const char *dir, char *err, size_t n)
{
	struct lines_out_opts o = { .dir = dir, .perf = NULL, .quiet = true };

	err[0] = '\0';
	return lines_out(&o, err, n);
}

static const struct lines_row *row(const struct lines_fields *lf, const char *st, const char *field)
{
	for (size_t i = 0; i < lf->n; i++)
		if (!strcmp(lf->r[i].st, st) && !strcmp(lf->r[i].field, field))
			return &lf->r[i];
	return NULL;
}

/* The plugin's own counts at a struct offset of every memcg of the run:
 * the shapes of each mem_cgroup's line holding base + off. */
static void plugin_counts(const char *dir, uint64_t off, unsigned size, struct lines_counts *sum)
{
	char *p = xasprintf("%s/lines/lines.tsv", dir), *o = xasprintf("%s/lines/window-objects.tsv", dir);
	char err[256], *text = read_text(o, NULL), *save = NULL;
	struct lines_file f;

	memset(sum, 0, sizeof(*sum));
	if (text && lines_parse_file(p, &f, err, sizeof(err)) == 0) {
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char label[128], type[64];
			unsigned long long base;
			const struct lines_pline *pl;

			if (sscanf(l, "%*d\t%127[^\t]\t%63s\t%llx", label, type, &base) != 3 || strcmp(type, "mem_cgroup"))
				continue;
			pl = lines_file_line_at_vaddr(&f, base + off);
			for (size_t s = 0; pl && s < pl->nshapes; s++)
				if (pl->shapes[s].off == (base + off) % 64 && pl->shapes[s].size == size) {
					sum->loads += pl->shapes[s].c.loads;
					sum->load_hitm += pl->shapes[s].c.load_hitm;
					sum->store_hitm += pl->shapes[s].c.store_hitm + pl->shapes[s].c.store_inval;
					sum->false_sharing += pl->shapes[s].c.false_sharing;
					sum->true_sharing += pl->shapes[s].c.true_sharing;
				}
		}
		lines_file_free(&f);
	}
	free(text);
	free(p);
	free(o);
}

static double claim_sum(const struct lines_fields *lf, const char *st, const char *fields, const char *column,
			const char *vs, int *nrows)
{
	struct claim_lines q;
	char copy[256], *save = NULL;

	memset(&q, 0, sizeof(q));
	snprintf(q.st, sizeof(q.st), "%s", st);
	snprintf(copy, sizeof(copy), "%s", fields);
	for (char *t = strtok_r(copy, "+", &save); t && q.nfields < CLAIM_MAX_FIELDS; t = strtok_r(NULL, "+", &save))
		snprintf(q.field[q.nfields++], sizeof(q.field[0]), "%s", t);
	snprintf(q.column, sizeof(q.column), "%s", column);
	snprintf(q.vs, sizeof(q.vs), "%s", vs);
	return lines_fields_sum(lf, &q, nrows);
}

static bool same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = read_text(a, &la), *y = read_text(b, &lb);
	bool same = x && y && la == lb && !memcmp(x, y, la);

	free(x);
	free(y);
	return same;
}

struct count_arg {
	uint64_t samples, kernel_ip;
};

static int count_rec(struct perf_file *pf, const struct perf_event_header *ev, uint64_t offset, void *arg)
{
	struct count_arg *c = arg;
	struct perfdata_sample s;
	char err[128];

	(void)offset;
	if (ev->type != PERF_RECORD_SAMPLE || perfdata_parse_sample(pf, ev, &s, err, sizeof(err)))
		return 0;
	c->samples++;
	c->kernel_ip += s.ip >= 0xffff800000000000ULL;
	return 0;
}

TEST(split_510)
{
	char *d = fixture("charge-5.10", "5.10.262"), err[1024], *p;
	struct lines_fields lf;
	const struct lines_row *r;
	struct lines_counts want;
	double sum;
	int nrows;

	if (!ok(convert(d, err, sizeof(err)) == 0, "5.10: c2c lines converts the recorded run"))
		tap_diag("%s", err);
	p = xasprintf("%s/lines/fields.tsv", d);
	if (!ok(lines_fields_load(p, &lf, err, sizeof(err)) == 0, "5.10: fields.tsv reads as the claims read it"))
		tap_diag("%s", err);
	/* pahole -C mem_cgroup (5.10.262): memory at 208; usage +0, parent +40. */
	r = row(&lf, "mem_cgroup", "memory.parent");
	plugin_counts(d, 248, 8, &want);
	ok(r && r->false_hitm > 0 && r->false_hitm == want.false_sharing && r->hitm_loads == want.load_hitm &&
		   r->loads == want.loads && r->true_hitm == 0 && !strcmp(r->other, "memory.usage"),
	   "5.10: memory.parent (offset 248): %g load HITMs, %g false, against memory.usage: the plugin's rows say %llu",
	   r ? r->hitm_loads : -1, r ? r->false_hitm : -1, (unsigned long long)want.false_sharing);
	r = row(&lf, "mem_cgroup", "memory.usage");
	plugin_counts(d, 208, 8, &want);
	ok(r && r->hitm_loads == want.load_hitm && r->hitm_stores == want.store_hitm && r->true_hitm > 0 &&
		   strstr(r->other, "memory.usage"),
	   "5.10: memory.usage (offset 208): %g load and %g store HITMs, true %g", r ? r->hitm_loads : -1,
	   r ? r->hitm_stores : -1, r ? r->true_hitm : -1);
	ok(row(&lf, "mem_cgroup", "memory.max") && row(&lf, "mem_cgroup", "memory.max")->loads > 0,
	   "5.10: memory.max has its row (read on every charge)");
	sum = claim_sum(&lf, "page_counter", "max+parent+high+low", "false_hitm", "usage", &nrows);
	ok(sum > 0 && sum == row(&lf, "mem_cgroup", "memory.parent")->false_hitm && nrows >= 4,
	   "5.10: the claim's page_counter.max+parent+high+low.false_hitm vs usage sums %g over %d rows", sum, nrows);
	ok(row(&lf, "memcg_stock_pcp", "nr_pages") != NULL,
	   "5.10: the per-CPU stocks are named though its BTF has no per-CPU variables (memcg_stock_pcp.nr_pages)");
	lines_fields_free(&lf);
	free(p);

	p = xasprintf("%s/lines/tasks=4/fields.tsv", d);
	{
		char *all = xasprintf("%s/lines/fields.tsv", d);

		ok(same_file(p, all), "5.10: its one window, labelled tasks=4, has the same fields.tsv in lines/tasks=4/");
		free(all);
	}
	free(p);

	/* perf.data: the guest kernel's build ID, one sample per event. */
	{
		struct perf_file pf;
		struct count_arg c = { 0 };
		struct lines_file f;
		uint64_t events = 0;
		char *lt = xasprintf("%s/lines/lines.tsv", d);

		p = xasprintf("%s/lines/perf.data", d);
		if (ok(perfdata_open(&pf, p, err, sizeof(err)) == 0, "5.10: perf.data opens")) {
			perfdata_for_each(&pf, count_rec, &c, err, sizeof(err));
			if (lines_parse_file(lt, &f, err, sizeof(err)) == 0) {
				for (size_t i = 0; i < f.nlines; i++)
					for (size_t s = 0; s < f.lines[i].nsites; s++)
						events += f.lines[i].sites[s].c.load_hitm + f.lines[i].sites[s].c.store_hitm +
							  f.lines[i].sites[s].c.store_inval;
				lines_file_free(&f);
			}
			ok(!strcmp(pf.kernel_build_id, "9bcfc2361bcccd68de7f4941e069bb6910665236"),
			   "5.10: the guest kernel's build ID (from its notes): %s", pf.kernel_build_id);
			ok(c.samples == events && c.samples > 0 && c.kernel_ip == c.samples,
			   "5.10: one sample per event of the written sites (%llu of %llu), every IP the kernel's",
			   (unsigned long long)c.samples, (unsigned long long)events);
			perfdata_close(&pf);
		}
		free(p);
		free(lt);
	}
	p = xasprintf("%s/lines/buildid/.build-id/9b/cfc2361bcccd68de7f4941e069bb6910665236/elf", d);
	ok(path_exists(p), "5.10: the build-ID cache holds the kernel's symbol file where perf looks");
	free(p);
	p = xasprintf("%s/lines/buildid/[kernel.kallsyms]/9bcfc2361bcccd68de7f4941e069bb6910665236/kallsyms", d);
	ok(path_exists(p), "5.10: and its kallsyms");
	free(p);
	free(d);
}

TEST(split_61)
{
	char *d = fixture("charge-6.1", "6.1.192"), err[1024], *p = xasprintf("%s/lines/fields.tsv", d);
	struct lines_fields lf;
	const struct lines_row *r;
	struct lines_counts want;
	double hitm = 0, loads = 0;
	int nrows;
	static const char *const limits[] = { "memory.max", "memory.parent", "memory.high", "memory.low" };

	if (!ok(convert(d, err, sizeof(err)) == 0 && lines_fields_load(p, &lf, err, sizeof(err)) == 0,
		"6.1: c2c lines converts the recorded run"))
		tap_diag("%s", err);
	for (size_t i = 0; i < 4; i++) {
		r = row(&lf, "mem_cgroup", limits[i]);
		hitm += r ? r->hitm_loads + r->hitm_stores + r->false_hitm + r->true_hitm : 1;
		loads += r ? r->loads : 0;
	}
	ok(hitm == 0 && loads > 0, "6.1: memory.max, parent, high, low are read (%g loads) with no HITM at all", loads);
	/* pahole -C mem_cgroup (6.1.192): memory at 256, usage alone on its line. */
	r = row(&lf, "mem_cgroup", "memory.usage");
	plugin_counts(d, 256, 8, &want);
	ok(r && r->hitm_loads > 0 && r->hitm_loads == want.load_hitm && r->false_hitm == 0,
	   "6.1: memory.usage has %g load HITMs (the plugin's rows: %llu), none false", r ? r->hitm_loads : -1,
	   (unsigned long long)want.load_hitm);
	hitm = claim_sum(&lf, "page_counter", "max+parent+high+low", "false_hitm", "usage", &nrows);
	ok(hitm == 0 && nrows >= 4, "6.1: the claim's sum is 0 over %d rows: measured, not missing", nrows);
	lines_fields_free(&lf);
	free(p);
	free(d);
}

/*
 * mem_cgroup's union { swap; memsw; } named by the guest's cgroup version,
 * which guest.txt's memory_cgroup line gives (lab/scripts/vm-init.sh
 * writes it; the recorded run predates it, so each case appends the line
 * to a copy): the 72 loads of 6.1's charge on the union's first word are
 * swap.usage's on v2, memsw.usage's on v1, and "swap|memsw.usage"'s where
 * guest.txt does not say.  The page_counter claims count the row whichever
 * name it has; lines/c2c/objects.tsv carries the version for c2c report.
 */
TEST(guest_cgroup)
{
	static const struct {
		const char *line, *field, *cell;
	} cases[] = {
		{ NULL, "swap|memsw.usage", "" },
		{ "memory_cgroup: v2\n", "swap.usage", "v2" },
		{ "memory_cgroup: v1\n", "memsw.usage", "v1" },
	};

	struct run_result rr;
	bool have_perf;

	free(run_capture_argv((const char *const[]){ "perf", "--version", NULL }, RUN_STDERR_MERGE, &rr));
	free(rr.err);
	have_perf = rr.status == 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = fixture("charge-6.1", "6.1.192"), err[1024], *p = xasprintf("%s/lines/fields.tsv", d);
		char *g = xasprintf("%s/guest.txt", d), *o = xasprintf("%s/lines/c2c/objects.tsv", d), *objs;
		const char *others[] = { "swap.usage", "memsw.usage", "swap|memsw.usage" };
		struct lines_fields lf;
		const struct lines_row *r;
		double usage;
		int nrows, stray = 0;

		if (cases[i].line) {
			char *t = read_text(g, NULL), *nt = xasprintf("%s%s", t ? t : "", cases[i].line);

			put_file(g, nt);
			free(t);
			free(nt);
		}
		{
			/* With perf (c2c.txt and its attribution under lines/c2c/) where there is one. */
			struct lines_out_opts lo = { .dir = d, .perf = have_perf ? "perf" : NULL, .quiet = true };

			err[0] = '\0';
			if (!ok(lines_out(&lo, err, sizeof(err)) == 0 && lines_fields_load(p, &lf, err, sizeof(err)) == 0,
				"6.1, %s: c2c lines converts the run",
				cases[i].line ? cases[i].cell : "no memory_cgroup line"))
				tap_diag("%s", err);
		}
		r = row(&lf, "mem_cgroup", cases[i].field);
		for (size_t j = 0; j < 3; j++)
			stray += strcmp(others[j], cases[i].field) && row(&lf, "mem_cgroup", others[j]);
		usage = claim_sum(&lf, "page_counter", "usage", "loads", "", &nrows);
		objs = read_text(o, NULL);
		ok(r && r->loads == 72 && r->offset == 448 && !stray &&
		   usage == r->loads + row(&lf, "mem_cgroup", "memory.usage")->loads && nrows == 2,
		   "6.1, %s: the union's first word is %s (%g loads at %ld), no other name; page_counter.usage "
		   "counts it with memory.usage (%g over %d rows)", cases[i].line ? cases[i].cell : "version unknown",
		   cases[i].field, r ? r->loads : -1, r ? r->offset : -1L, usage, nrows);
		if (!have_perf)
			tap_skip("lines/c2c/objects.tsv carries the version", "no perf in PATH (linux-perf): no c2c.txt");
		else
			ok(objs && strstr(objs, "\tcgroup\n") &&
			   strstr(objs, cases[i].cell[0] ? cases[i].cell : "checked by kernfs id\t\n"),
			   "6.1, %s: lines/c2c/objects.tsv carries the version for c2c report --objects",
			   cases[i].line ? cases[i].cell : "version unknown");
		free(objs);
		lines_fields_free(&lf);
		free(o);
		free(g);
		free(p);
		free(d);
	}
}

/* Replaces "# KEY\tVALUE" lines of DIR/lines/lines.tsv. */
static void set_meta(const char *dir, const char *key, const char *value)
{
	char *p = xasprintf("%s/lines/lines.tsv", dir), *t = read_text(p, NULL), *k = xasprintf("# %s\t", key);
	char *at = t ? strstr(t, k) : NULL;
	FILE *f;

	if (at) {
		char *eol = strchr(at, '\n');

		f = fopen(p, "w");
		fprintf(f, "%.*s%s%s%s", (int)(at - t), t, k, value, eol);
		fclose(f);
	}
	free(t);
	free(k);
	free(p);
}

/* A BTF with page_counter and no mem_cgroup, as a raw blob. */
static void write_btf_without_memcg(const char *path)
{
	struct btf *b = btf__new_empty();
	int lg = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	const void *raw;
	__u32 size;
	FILE *f;

	btf__add_struct(b, "page_counter", 8);
	btf__add_field(b, "usage", lg, 0, 0);
	raw = btf__raw_data(b, &size);
	f = fopen(path, "w");
	fwrite(raw, 1, size, f);
	fclose(f);
	btf__free(b);
}

/* window-ranges.tsv read through lines_trace_objs_load (the one reader of
 * the guest's objects and ranges): a field beyond its stride is named by
 * file, line and column. */
TEST(bad_range_fields)
{
	char *d = fixture("charge-6.1-user", "6.1.192"), err[1024];
	char *p = xasprintf("%s/lines/window-ranges.tsv", d);
	FILE *f = fopen(p, "w");

	fputs("window\tname\taddress\tsize\tstride\tfields\n"
	      "0\thslot\t0x7fe2c877b100\t1024\t256\tcount:0:8,state:252:8\n", f);
	fclose(f);
	ok(convert(d, err, sizeof(err)) < 0 &&
		   strstr(err, "window-ranges.tsv:2: field fields: 'count:0:8,state:252:8' is not NAME:OFFSET:SIZE,... "
			       "within a stride of 256"),
	   "a range's field past its stride: %s", err);
	free(p);
	free(d);
}

/* The harness's own counters, in a run that follows user space (scope=user). */
TEST(harness_slots)
{
	char *d = fixture("charge-6.1-user", "6.1.192"), err[1024], *p = xasprintf("%s/lines/fields.tsv", d);
	struct lines_fields lf;
	const struct lines_row *r;

	if (!ok(convert(d, err, sizeof(err)) == 0 && lines_fields_load(p, &lf, err, sizeof(err)) == 0,
		"scope=user: c2c lines converts the recorded run"))
		tap_diag("%s", err);
	r = row(&lf, "hslot", "count");
	ok(r && r->loads > 1000 && r->stores > 1000 && r->false_hitm == 0,
	   "the harness's padded per-worker counters (hslot.count): %g loads, %g stores, no false sharing (%g true: the "
	   "parent reads them)", r ? r->loads : -1, r ? r->stores : -1, r ? r->true_hitm : -1);
	r = row(&lf, "hslot", "(padding after count)");
	ok(r && r->loads + r->stores + r->hitm_loads + r->hitm_stores == 0,
	   "its padding after count has its row, untouched");
	lines_fields_free(&lf);
	free(p);
	free(d);
}

/* Ranges asked for in detail that no access in a window touched (the
 * plugin's detail_seen 0): one line says the zero is not a measurement;
 * touched, or a run from before the line, nothing. */
TEST(detail_unseen)
{
	char *d = fixture("charge-6.1", "6.1.192"), err[1024], *log = xasprintf("%s/stderr", tmp), *said;
	int saved, rc;

	set_meta(d, "detail_ranges", "1\n# detail_seen\t0");
	saved = tap_stderr_to(log);
	rc = convert(d, err, sizeof(err));
	said = tap_stderr_back(saved, log);
	ok(rc == 0 && said && strstr(said, "no access to the detail range (--lines-opts detail=) was counted in any window") &&
		   strstr(said, "its lines' zero is not a measurement") && !strchr(strstr(said, "no access"), '\n')[1],
	   "a detail range no window's access touched: said in one line, the run converted (%s)", said ? said : err);
	free(said);
	set_meta(d, "detail_seen", "1");
	saved = tap_stderr_to(log);
	rc = convert(d, err, sizeof(err));
	said = tap_stderr_back(saved, log);
	ok(rc == 0 && said && !strstr(said, "no access to the detail"), "touched: nothing said (%s)", said ? said : err);
	free(said);
	free(log);
	free(d);
}

TEST(refusals)
{
	char *d, err[1024], *p;

	d = fixture("charge-5.10", "5.10.262");
	set_meta(d, "status", "window-never-opened");
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "window never opened, so nothing was counted"),
	   "a window that never opened: %s", err);
	/* A user's own program under --shell opens no window and runs in user
	 * space: the line says what opens one and what counts its accesses. */
	ok(strstr(err, "around a --shell command of your own: vm --lines-window command") &&
	   strstr(err, "--lines-opts scope=user") && !strchr(err, '\n'),
	   "... and the way to count a --shell command: --lines-window command, scope=user, on one line");
	set_meta(d, "status", "table-full");
	ok(convert(d, err, sizeof(err)) < 0 &&
		   strstr(err, "line table filled: 68869 lines in 2097152 slots; 0 accesses to at least 0 more lines"),
	   "a full table, with its lines and what was dropped: %s", err);
	set_meta(d, "status", "detail-pool-full");
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "detail pool filled: 16384 records"),
	   "a full detail pool: %s", err);
	p = xasprintf("%s/lines/fields.tsv", d);
	ok(!path_exists(p), "nothing written for a refused run");
	free(p);
	free(d);

	d = fixture("charge-5.10", "5.10.262");
	p = xasprintf("%s/lines/vmlinux.btf", d);
	write_btf_without_memcg(p);
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "window-objects.tsv:2: the objects' BTF") &&
		   strstr(err, "lacks a struct the report needs: struct mem_cgroup is not in the BTF"),
	   "a guest BTF without struct mem_cgroup: %s", err);
	unlink(p);
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "the guest kernel sent no BTF"), "no BTF at all: %s", err);
	free(p);
	free(d);

	/* objects.btf (a program's own structs) names the objects in place of
	 * the kernel's BTF, which holds mem_cgroup here: one without it is
	 * refused, naming objects.btf. */
	d = fixture("charge-5.10", "5.10.262");
	p = xasprintf("%s/lines/objects.btf", d);
	write_btf_without_memcg(p);
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "lines/objects.btf)") &&
		   strstr(err, "struct mem_cgroup is not in the BTF"),
	   "objects.btf in place of vmlinux.btf: %s", err);
	free(p);
	free(d);

	d = fixture("charge-5.10", "5.10.262");
	p = xasprintf("%s/lines/window-objects.tsv", d);
	put_file(p, "window\tlabel\ttype\taddress\tsize\tsource\n0\tx\tmem_cgroup\tzz\t1\ty\n");
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "window-objects.tsv:2: field address: 'zz' is not a number"),
	   "a malformed object row: %s", err);
	free(p);
	free(d);

	/* A label that is no directory name stays inside lines/. */
	d = fixture("charge-5.10", "5.10.262");
	p = xasprintf("%s/lines/windows.tsv", d);
	put_file(p, "# memcg-lab lines-windows 1\nindex\tlabel\twho\trepeat\tpid\tstart_s\tlen_s\tobjects\t"
			       "ranges\n0\t../../evil\tharness\t0\t1\t1\t1\t0\t0\n");
	free(p);
	p = xasprintf("%s/lines/.._.._evil/fields.tsv", d);
	ok(convert(d, err, sizeof(err)) == 0 && path_exists(p), "a label '../../evil' becomes lines/.._.._evil/");
	free(p);
	p = xasprintf("%s/evil", tmp);
	ok(!path_exists(p), "nothing outside lines/");
	free(p);
	free(d);
}

/* ops.tsv from window-ops.tsv: the operations the lab counted per window,
 * added up per label and over all windows; what the claims divide by. */
TEST(window_ops)
{
	char *d, err[1024], *p, *q, unit[32], why[512];
	double ops = 0;

	d = fixture("charge-5.10", "5.10.262");
	p = xasprintf("%s/lines/fields.tsv", d);
	q = xasprintf("%s/lines/tasks=4/fields.tsv", d);
	ok(convert(d, err, sizeof(err)) == 0 && !lines_ops_of(p, &ops, unit, sizeof(unit), why, sizeof(why)) &&
	   strstr(why, "none of the 1 windows counted"),
	   "a run from before the counts: ops.tsv says none of its window was counted (%s)", why);
	free(p);
	p = xasprintf("%s/lines/window-ops.tsv", d);
	put_file(p, "window\tops\tunit\n0\t5000\tfaults\n");
	ok(convert(d, err, sizeof(err)) == 0, "window-ops.tsv converts (%s)", err);
	free(p);
	p = xasprintf("%s/lines/fields.tsv", d);
	ok(lines_ops_of(p, &ops, unit, sizeof(unit), why, sizeof(why)) && ops == 5000 && !strcmp(unit, "faults"),
	   "lines/ops.tsv: 5000 faults (%s)", why);
	ok(lines_ops_of(q, &ops, unit, sizeof(unit), why, sizeof(why)) && ops == 5000,
	   "lines/tasks=4/ops.tsv: the label's, the same (%s)", why);
	free(p);
	p = xasprintf("%s/lines/window-ops.tsv", d);
	put_file(p, "window\tops\tunit\n7\t5000\tfaults\n");
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "window-ops.tsv:2: field window: 7 is not a window"),
	   "a window the guest did not open: %s", err);
	put_file(p, "window\tops\tunit\n0\t5000\tfaults\n0\t1\tfaults\n");
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "window-ops.tsv:3: field window: window 0 counted twice"),
	   "a window counted twice: %s", err);
	put_file(p, "window\tops\tunit\n0\t-5\tfaults\n");
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "window-ops.tsv:2: field ops: '-5' is not a number"),
	   "a count that is no count: %s", err);
	free(p);
	/* Two labels of different units: each its own, the whole run mixed. */
	p = xasprintf("%s/lines/windows.tsv", d);
	put_file(p, "# memcg-lab lines-windows 1\nindex\tlabel\twho\trepeat\tpid\tstart_s\tlen_s\tobjects\t"
			       "ranges\n0\ttasks=4\tharness\t0\t1\t1\t1\t0\t0\n1\treaders=2\tstatread\t0\t1\t1\t1\t0\t0\n");
	free(p);
	p = xasprintf("%s/lines/window-ops.tsv", d);
	put_file(p, "window\tops\tunit\n0\t5000\tfaults\n1\t70\treads\n");
	free(p);
	p = xasprintf("%s/lines/fields.tsv", d);
	ok(convert(d, err, sizeof(err)) == 0 && lines_ops_of(q, &ops, unit, sizeof(unit), why, sizeof(why)) &&
	   ops == 5000 && !lines_ops_of(p, &ops, unit, sizeof(unit), why, sizeof(why)) &&
	   strstr(why, "different units"), "labels of different units: each label's own, not the sum (%s)", why);
	free(p);
	free(q);
	free(d);
}

/* A file's text with one line replaced (the fixture's window row). */
static void replace_line(const char *path, const char *prefix, const char *line)
{
	char *t = read_text(path, NULL), *at = t ? strstr(t, prefix) : NULL, *out;

	if (!at) {
		printf("Bail out! %s: no line %s\n", path, prefix);
		exit(1);
	}
	out = xasprintf("%.*s%s%s", (int)(at - t), t, line, strchr(at, '\n'));
	put_file(path, out);
	free(out);
	free(t);
}

/* The guest instructions per operation: ops.tsv's insns columns, insns.tsv
 * per window, and <driver>.<mode>.insns_per_op in the guest run's metrics
 * at the window's step (once, however often c2c lines runs); a window the
 * plugin did not count has "-", never a 0. */
TEST(insns_per_op)
{
	char *d = fixture("charge-5.10", "5.10.262"), err[1024], *p, *t;
	const char *lt;

	p = xasprintf("%s/lines/lines.tsv", d);
	replace_line(p, "#fields\twindow\t", "#fields\twindow\tindex\twindows\topen\taccesses\tload_hitm\t"
		     "store_hitm\tstore_inval\tfalse\ttrue\tinsns\tinsns_vcpu");
	replace_line(p, "window\t0\t", "window\t0\t1\t0\t9243097\t1711\t52\t1696\t803\t2656\t123456789\t-");
	replace_line(p, "# status\t", "# insns_counted\ttotal\n# status\tok");
	free(p);
	p = xasprintf("%s/lines/window-ops.tsv", d);
	put_file(p, "window\tops\tunit\n0\t5000\tfaults\n");
	free(p);
	p = xasprintf("%s/results/run1/data", d);
	mkdir_p(p, 0755);
	free(p);
	p = xasprintf("%s/results/run1/" METRICS_FILE, d);
	put_file(p, METRICS_HEADER "tasks=4\t0\tcharge.anon.total\t25000\tops/s\thigher\n"
		    "-\t0\truntime.charge_batch\t64\tpages\t-\n");
	ok(convert(d, err, sizeof(err)) == 0, "a window with its instructions converts (%s)", err);
	ok(convert(d, err, sizeof(err)) == 0, "and converts again (%s)", err);
	free(p);
	p = xasprintf("%s/lines/ops.tsv", d);
	t = read_text(p, NULL);
	ok(t && strstr(t, "windows\tcounted\tops\tunit\tinsns_windows\tinsns\tinsns_per_op\n1\t1\t5000\tfaults\t1\t"
			  "123456789\t24691.4\n"), "ops.tsv: 123456789 instructions over 5000 faults, 24691.4 a fault");
	free(t);
	free(p);
	p = xasprintf("%s/lines/tasks=4/insns.tsv", d);
	t = read_text(p, NULL);
	ok(t && strstr(t, "# guest instructions: exact (single-threaded TCG); a proxy for time that leaves out cache "
			  "misses\n") && strstr(t, "\n0\ttasks=4\t0\t5000\tfaults\t123456789\t24691.4\t-\n"),
	   "tasks=4/insns.tsv: the window's row, the count's words");
	free(t);
	free(p);
	p = xasprintf("%s/results/run1/" METRICS_FILE, d);
	t = read_text(p, NULL);
	lt = t ? strstr(t, "tasks=4\t0\tcharge.anon.insns_per_op\t24691.35") : NULL;
	ok(lt && strstr(lt, "\tinsns/op\tlower\n") && !strstr(strchr(lt, '\n'), "insns_per_op"),
	   "the run's metrics: charge.anon.insns_per_op at tasks=4, once after two conversions");
	free(t);
	free(p);
	/* Not counted: "-", and no metric. */
	p = xasprintf("%s/lines/lines.tsv", d);
	replace_line(p, "window\t0\t", "window\t0\t1\t0\t9243097\t1711\t52\t1696\t803\t2656\t-\t-");
	free(p);
	p = xasprintf("%s/results/run1/" METRICS_FILE, d);
	put_file(p, METRICS_HEADER "tasks=4\t0\tcharge.anon.total\t25000\tops/s\thigher\n");
	ok(convert(d, err, sizeof(err)) == 0, "a window without instructions converts (%s)", err);
	t = read_text(p, NULL);
	ok(t && !strstr(t, "insns_per_op"), "no insns_per_op metric where none was counted");
	free(t);
	free(p);
	p = xasprintf("%s/lines/ops.tsv", d);
	t = read_text(p, NULL);
	ok(t && strstr(t, "\n1\t1\t5000\tfaults\t0\t-\t-\n"), "ops.tsv: insns '-', never 0");
	free(t);
	free(p);
	free(d);
}

/* A guest that sent its code symbols delta-encoded (c2c/lines_ksyms.h):
 * lines/kallsyms is decoded from them, the code symbols exactly. */
TEST(ksyms_delta)
{
	char *d = fixture("charge-6.1", "6.1.192"), err[1024], line[512], *want = NULL, *got;
	char *k = xasprintf("%s/lines/kallsyms", d), *kd = xasprintf("%s/lines/kallsyms.delta", d);
	FILE *in = fopen(k, "r"), *out = fopen(kd, "w"), *w;
	size_t wlen = 0;
	uint64_t prev = 0;

	w = open_memstream(&want, &wlen);
	fputs(LINES_KSYMS_DELTA_HEADER, out);
	while (fgets(line, sizeof(line), in))
		if (lines_ksyms_encode_line(line, &prev, out))
			fputs(line, w);
	fclose(in);
	fclose(out);
	fclose(w);
	unlink(k);
	ok(convert(d, err, sizeof(err)) == 0, "a guest's kallsyms.delta converts (%s)", err);
	got = read_text(k, NULL);
	ok(got && !strcmp(got, want), "lines/kallsyms decoded from it: its code symbols exactly");
	free(got);
	put_file(kd, "no header\n");
	unlink(k);
	ok(convert(d, err, sizeof(err)) < 0 && strstr(err, "kallsyms.delta:1: not a memcg-lab kallsyms-delta 1 file"),
	   "a broken one: %s", err);
	free(want);
	free(k);
	free(kd);
	free(d);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	rc = tap_main(argc, argv);
	tap_rm_rf(tmp);
	return rc;
}
