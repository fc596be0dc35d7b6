/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_LAYOUT_LAYOUT_RUN_H
#define LAB_LAYOUT_LAYOUT_RUN_H

#include <stdbool.h>

/* What `memcg-lab layout` was asked; NULL: not given. */
struct layout_request {
	const char *btf, *vmlinux;	/* the kernel (neither: the running one) */
	const char *out;		/* the capture's directory */
	const char *rules;		/* NULL: layouts/rules.conf */
	const char *against;		/* a capture directory or a BTF/vmlinux file */
	bool check;
	int width;			/* wrap --check and --against at this column (0: never) */
};

/*
 * Captures (with --out, or when neither --check nor --against is asked: to
 * layouts/<release>/), checks and diffs one kernel's layouts, printing on
 * stdout.  Returns 1 when a hard rule failed the check or, with --against,
 * a hot-written field gained a sharer no rule allows; else 0.  An error is
 * one line and exit 2.
 */
int layout_run(const struct layout_request *rq);

#endif
