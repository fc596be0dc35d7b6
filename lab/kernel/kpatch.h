/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel patch as the user gives it to `memcg-lab ab`: one file, or a
 * directory of *.patch files applied in name order (git format-patch's
 * numbering).  Its subject line names the B side of an A/B; whether it
 * applies to a source tree is patch(1)'s dry run, with the first hunk that
 * fails named (git apply --check's answer, from the patch program the lab
 * kernel's build uses).
 */
#ifndef LAB_KERNEL_KPATCH_H
#define LAB_KERNEL_KPATCH_H

#include <stddef.h>

struct kpatch_set {
	char **files;		/* absolute or as given, in the order they apply */
	int n;
	char subject[256];	/* the first patch's Subject:, "[PATCH n/m]" dropped */
	char name[64];		/* a directory name from the subject: [a-z0-9-] */
};

/*
 * Reads FILE (a patch) or DIR (its *.patch files, sorted): 0, or -1 with one
 * line in err (no such file, a directory without patches, a file that is
 * not a unified diff: no "--- "/"+++ " pair).
 */
int kpatch_set_read(struct kpatch_set *s, const char *path, char *err, size_t errlen);
void kpatch_set_free(struct kpatch_set *s);

/* The subject of a patch file's mail header ("Subject: [PATCH 2/3] mm: x"
 * -> "mm: x", folded lines joined); "" when it has none. */
void kpatch_subject(const char *text, char *out, size_t n);

/*
 * Whether the set applies, in order, to the tree at src (patch -p1
 * --dry-run, each patch on the files as the ones before it leave them: a
 * scratch copy of the files they touch).  0, or -1 with one line in err:
 * "FILE: hunk #N of PATH FAILED at line L" for the first hunk that does
 * not apply, or what patch said.
 */
int kpatch_check(const struct kpatch_set *s, const char *src, char *err, size_t errlen);

/* The first failure in patch(1)'s output ("Hunk #2 FAILED at 2090.",
 * "can't find file to patch"), as "hunk #2 of mm/memcontrol.c FAILED at
 * line 2090"; "" when it names none. */
void kpatch_first_failure(const char *patch_output, char *out, size_t n);

#endif
