// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/kpatch.h on real patch files: the lab's own A/B patches
 * (lab/kernel-patches/ab/, 7.3-batch32/0002) against the files of Debian's
 * linux-source-7.3 they touch (lab/tests/data/kpatch/linux-7.3/), checked
 * by patch(1) as the lab kernel's build applies them; a patch that does
 * not apply names its first failing hunk, as `git apply --check` would.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel/kpatch.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/run.h"

#define TREE TEST_DATA "/kpatch/linux-7.3"
#define AB "lab/kernel-patches/ab"

static char tmp[256];

static char *put(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", tmp, name), *d = xstrdup(p);

	*strrchr(d, '/') = '\0';
	mkdir_p(d, 0755);
	write_file_atomic(p, text, strlen(text));
	free(d);
	return p;
}

TEST(patch_subject)
{
	char s[256];

	kpatch_subject("From: a <a@b>\nSubject: [PATCH v2 2/3] mm: memcg: one\n slot in the stock\n\nbody\n", s,
		       sizeof(s));
	ok(!strcmp(s, "mm: memcg: one slot in the stock"), "Subject: folded, [PATCH v2 2/3] dropped: '%s'", s);
	kpatch_subject("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-Subject: no\n+x\n", s, sizeof(s));
	ok(!s[0], "a bare diff has no subject (its body is not a mail header)");
}

TEST(patch_sets)
{
	struct kpatch_set s;
	char err[512];
	char *bad = put("not-a-patch.txt", "hello\n"), *empty = xasprintf("%s/empty", tmp);

	ok(!kpatch_set_read(&s, AB "/page-counter-split-revert.patch", err, sizeof(err)) && s.n == 1 &&
	   !strcmp(s.subject, "mm: page_counter: put the limits back on usage's cacheline") &&
	   !strcmp(s.name, "put-the-limits-back-on-usage-s-cacheline"),
	   "a patch file: its subject and a directory name from it (%s, %s)", s.subject, s.name);
	kpatch_set_free(&s);
	ok(!kpatch_set_read(&s, "lab/kernel-patches/7.3-batch32", err, sizeof(err)) && s.n == 2 &&
	   strstr(s.files[0], "/0001-") && strstr(s.files[1], "/0002-"),
	   "a directory: its *.patch in name order (%d)", s.n);
	kpatch_set_free(&s);
	ok(kpatch_set_read(&s, bad, err, sizeof(err)) < 0 && strstr(err, "not-a-patch.txt: not a patch"),
	   "not a diff: one line naming the file (%s)", err);
	mkdir_p(empty, 0755);
	ok(kpatch_set_read(&s, empty, err, sizeof(err)) < 0 && strstr(err, "no *.patch file"),
	   "a directory without patches: said (%s)", err);
	ok(kpatch_set_read(&s, "/nonexistent.patch", err, sizeof(err)) < 0 && strstr(err, "No such file"),
	   "a missing patch: said (%s)", err);
	free(bad);
	free(empty);
}

TEST(patch_applies_or_names_hunk)
{
	struct kpatch_set s;
	char err[512] = "", *t, *twice, *tree;

	if (!program_on_path("patch")) {
		tap_skip("patch checks", "patch(1) is not installed (Debian package patch)");
		return;
	}
	kpatch_set_read(&s, AB "/page-counter-split-revert.patch", err, sizeof(err));
	ok(!kpatch_check(&s, TREE, err, sizeof(err)), "the split revert applies to 7.3's page_counter.h (%s)", err);
	kpatch_set_free(&s);
	kpatch_set_read(&s, AB "/nr-memcg-stock-1.patch", err, sizeof(err));
	ok(!kpatch_check(&s, TREE, err, sizeof(err)), "NR_MEMCG_STOCK 1 applies to 7.3's memcontrol.c (%s)", err);
	kpatch_set_free(&s);
	kpatch_set_read(&s, "lab/kernel-patches/7.3-batch32/0002-memcg-charge-batch-32.patch", err, sizeof(err));
	ok(!kpatch_check(&s, TREE, err, sizeof(err)), "the batch-32 patch applies (%s)", err);
	kpatch_set_free(&s);

	/* Applied twice: the second meets the tree the first left. */
	t = read_text(AB "/nr-memcg-stock-1.patch", NULL);
	twice = put("twice/9002-again.patch", t);
	free(put("twice/9001-once.patch", t));
	{
		char *dir = xasprintf("%s/twice", tmp);

		kpatch_set_read(&s, dir, err, sizeof(err));
		free(dir);
	}
	ok(kpatch_check(&s, TREE, err, sizeof(err)) < 0 && strstr(err, "9002-again.patch does not apply") &&
	   strstr(err, "Reversed (or previously applied)"),
	   "two patches in order: the second, applied on the first's result, is named: %s", err);
	kpatch_set_free(&s);

	/* A tree the hunk no longer fits: the hunk and its line are named. */
	tree = xasprintf("%s/tree", tmp);
	{
		char *mc = read_text(TREE "/mm/memcontrol.c", NULL), *at = strstr(mc, "#define NR_MEMCG_STOCK 7");

		memcpy(at, "#define NR_MEMCG_STOCK 8", 24);
		free(put("tree/mm/memcontrol.c", mc));
		free(mc);
	}
	kpatch_set_read(&s, AB "/nr-memcg-stock-1.patch", err, sizeof(err));
	ok(kpatch_check(&s, tree, err, sizeof(err)) < 0 &&
	   strstr(err, "nr-memcg-stock-1.patch does not apply to") && strstr(err, "hunk #1 of mm/memcontrol.c FAILED at line"),
	   "a hunk that does not fit: its number, file and line: %s", err);
	kpatch_set_free(&s);
	kpatch_set_read(&s, AB "/page-counter-split-revert.patch", err, sizeof(err));
	ok(kpatch_check(&s, tree, err, sizeof(err)) < 0 && strstr(err, "can't find file to patch"),
	   "a file the tree lacks: said: %s", err);
	kpatch_set_free(&s);
	{
		char *mc = read_text(TREE "/mm/memcontrol.c", NULL);

		ok(mc && strstr(mc, "#define NR_MEMCG_STOCK 7"), "the fixture tree itself is untouched");
		free(mc);
	}
	free(tree);
	free(twice);
	free(t);
}

TEST(first_failed_hunk)
{
	char out[256];

	kpatch_first_failure("patching file mm/memcontrol.c\nHunk #1 succeeded at 12.\nHunk #2 FAILED at 2090.\n"
			     "1 out of 2 hunks FAILED -- saving rejects\n", out, sizeof(out));
	ok(!strcmp(out, "hunk #2 of mm/memcontrol.c FAILED at line 2090"), "patch's words: %s", out);
	kpatch_first_failure("checking file 'a b.c'\nHunk #3 FAILED at 7.\n", out, sizeof(out));
	ok(!strcmp(out, "hunk #3 of a b.c FAILED at line 7"), "a quoted name (patch 2.7 --dry-run): %s", out);
	kpatch_first_failure("patching file x\nHunk #1 succeeded at 3.\n", out, sizeof(out));
	ok(!out[0], "no failure: nothing named");
}

int main(int argc, char **argv)
{
	int rc;

	snprintf(tmp, sizeof(tmp), "/tmp/memcg-lab-kpatch-test-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	rc = tap_main(argc, argv);
	tap_rm_rf(tmp);
	return rc;
}
