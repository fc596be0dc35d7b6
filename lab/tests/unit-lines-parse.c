// SPDX-License-Identifier: GPL-2.0
/*
 * The lines plugin's output as recorded in real guests (lab/tests/data/lines/,
 * README.md there), read by c2c/lines_parse.h: the ground truth of
 * lab/tests/vm-lines.sh under single-threaded TCG and MTTCG holds in the
 * recorded files (so the reader and the bounds are tested where no qemu
 * is), and a kernel window of charge parses whole, its totals consistent
 * with its rows; a run with each window on its own carries its windows'
 * numbers.
 */
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_parse.h"
#include "tests/tap.h"

#define DIR TEST_DATA "/lines/"

struct truth_case {
	uint64_t a, b, n_a, n_b;
};

/* "case=NAME a=0x.. b=0x.. n_a=N n_b=N" from lines-truth's output. */
static int truth_case(const char *out, const char *name, struct truth_case *c)
{
	FILE *f = fopen(out, "r");
	char line[256], want[32];
	int found = 0;

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "case=%s ", name);
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			found = sscanf(line + strlen(want), "a=%lx b=%lx n_a=%lu n_b=%lu", &c->a, &c->b, &c->n_a,
				       &c->n_b) == 4;
	fclose(f);
	return found;
}

static uint64_t events(const struct lines_counts *c)
{
	return c->load_hitm + c->store_hitm + c->store_inval;
}

static void truth(const char *mode, uint64_t min)
{
	char tsv[128], out[128], err[256];
	struct lines_file f;
	struct truth_case fc, pc, tc;
	const struct lines_pline *l, *l2;

	snprintf(tsv, sizeof(tsv), DIR "truth-%s.tsv", mode);
	snprintf(out, sizeof(out), DIR "truth-%s.out", mode);
	if (!ok(lines_parse_file(tsv, &f, err, sizeof(err)) == 0, "%s: the recorded file parses", tsv)) {
		tap_diag("%s", err);
		return;
	}
	ok(truth_case(out, "false", &fc) && truth_case(out, "padded", &pc) && truth_case(out, "true", &tc),
	   "%s: lines-truth's three cases", out);
	ok(lines_meta(&f, "status") && !strcmp(lines_meta(&f, "status"), "ok") && f.nwindows == 3,
	   "%s: status ok, three windows", mode);

	l = lines_file_line_at_vaddr(&f, fc.a);
	ok(l && lines_file_line_at_vaddr(&f, fc.b) == l && fc.b - fc.a == 32,
	   "%s false: both fields (offsets 0 and 32) on one line", mode);
	ok(l && l->c.false_sharing >= min && l->c.true_sharing * 100 <= l->c.false_sharing &&
		   l->win_loads == fc.n_a + fc.n_b && l->win_stores == fc.n_a + fc.n_b,
	   "%s false: %llu false >= %llu, %llu true, every increment counted", mode,
	   l ? (unsigned long long)l->c.false_sharing : 0ULL, (unsigned long long)min,
	   l ? (unsigned long long)l->c.true_sharing : 0ULL);
	l = lines_file_line_at_vaddr(&f, pc.a);
	l2 = lines_file_line_at_vaddr(&f, pc.b);
	ok(l && l2 && l != l2 && !events(&l->c) && !events(&l2->c) && l->win_loads == pc.n_a && l2->win_loads == pc.n_b,
	   "%s padded: two lines, no event, every increment counted", mode);
	l = lines_file_line_at_vaddr(&f, tc.a);
	ok(l && l->c.true_sharing >= min && l->c.false_sharing * 100 <= l->c.true_sharing &&
		   l->win_stores == tc.n_a + tc.n_b,
	   "%s true: %llu true >= %llu, %llu false", mode, l ? (unsigned long long)l->c.true_sharing : 0ULL,
	   (unsigned long long)min, l ? (unsigned long long)l->c.false_sharing : 0ULL);
	lines_file_free(&f);
}

/* A kernel window of charge: the rows add up to what the meta lines say. */
TEST(kernel_window_sums)
{
	const char *path = DIR "charge-7.3.tsv";
	char err[256];
	struct lines_file f;
	uint64_t written = 0, with = 0, used = 0, top_events = UINT64_MAX;
	bool sorted = true, sums = true, meta;

	if (!ok(lines_parse_file(path, &f, err, sizeof(err)) == 0, "%s parses", path)) {
		tap_diag("%s", err);
		return;
	}
	meta = !lines_meta_u64(&f, "lines_written", &written) && !lines_meta_u64(&f, "lines_with_events", &with) &&
	       !lines_meta_u64(&f, "lines_used", &used);
	ok(meta && written == f.nlines && with >= written && used >= with,
	   "%zu line rows, as lines_written says, of %llu with events and %llu lines", f.nlines,
	   (unsigned long long)with, (unsigned long long)used);
	ok(!strcmp(lines_meta(&f, "scope") ?: "", "kernel") && !strcmp(lines_meta(&f, "mode") ?: "", "single"),
	   "the default scope (kernel) under single-threaded TCG");
	for (size_t i = 0; i < f.nlines; i++) {
		const struct lines_pline *l = &f.lines[i];
		struct lines_counts s = { 0 };

		if (events(&l->c) > top_events)
			sorted = false;
		top_events = events(&l->c);
		for (size_t k = 0; k < l->nshapes; k++) {
			s.loads += l->shapes[k].c.loads;
			s.stores += l->shapes[k].c.stores;
			s.load_hitm += l->shapes[k].c.load_hitm;
			s.false_sharing += l->shapes[k].c.false_sharing;
		}
		if (s.loads + s.stores + l->other_shape_accesses != l->c.loads + l->c.stores ||
		    s.load_hitm > l->c.load_hitm || s.false_sharing > l->c.false_sharing ||
		    l->win_loads < l->c.loads || (l->vaddr >> 48) != 0xffff)
			sums = false;
	}
	ok(sorted, "lines come by events, most first");
	ok(sums, "each line's shapes add up to its counts, kernel vaddrs, window counts >= detail counts");
	lines_file_free(&f);
}

/* A guest run with windows=each (charge-5.10/, trimmed to 60 lines): each
 * line row says its window, the window row its number. */
TEST(windows_each_numbered)
{
	const char *path = DIR "charge-5.10/lines/lines.tsv";
	char err[256];
	struct lines_file f;
	bool all0 = true;

	if (!ok(lines_parse_file(path, &f, err, sizeof(err)) == 0, "%s parses", path)) {
		tap_diag("%s", err);
		return;
	}
	for (size_t i = 0; i < f.nlines; i++)
		all0 = all0 && f.lines[i].window == 0;
	ok(!strcmp(lines_meta(&f, "windows") ?: "", "each") && f.nwindows == 1 && f.windows[0].index == 0 &&
		   f.nlines > 0 && all0,
	   "windows each: window 0's row, and its %zu lines say window 0", f.nlines);
	lines_file_free(&f);
	if (!ok(lines_parse_file(DIR "charge-7.3.tsv", &f, err, sizeof(err)) == 0 && f.nlines && f.lines[0].window == -1,
		"a file without the window column (windows add up): window -1"))
		tap_diag("%s", err);
	lines_file_free(&f);
}

TEST(truth_under_tcg)
{
	truth("tcg", 50);
}

TEST(truth_under_mttcg)
{
	truth("mttcg", 100);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
