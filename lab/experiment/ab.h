/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `memcg-lab ab`: what a patch does, in one command.  The stages, each
 * with a progress line and its time:
 *
 *   1. patch   the patch (a file, or a directory of them) applies to the
 *              base's source with the base's own patches (kernel/kpatch.h:
 *              the first failing hunk named);
 *   2. build   the base and the patched kernel (lab/scripts/lab-kernel.sh:
 *              its cache, and one object tree per source, so the second
 *              build compiles only what the patch touches; a patch that
 *              does not build: the first compiler error quoted);
 *   3. run     each side in a guest of the same shape (memcg-lab vm, with
 *              --lines where asked), the same command, into
 *              results/<date>-ab-<name>/A and B;
 *   4. judge   compare of the two runs with their labels (A base, B the
 *              patch's subject; --reverse: the patch is A's) and the mail
 *              text (report --mail), into the results and on stdout.
 *
 * Bases: lab (Debian's 7.3 with the lab's user-flush mutex), 7.3 and 6.1
 * (Debian's sources as they are, the lab's config).  The results are
 * "complete" only when every stage finished; a signal at any stage stops
 * its child (the build, with its compilers; the guest), leaves no cache
 * entry half made, and no results marked complete.
 */
#ifndef LAB_EXPERIMENT_AB_H
#define LAB_EXPERIMENT_AB_H

#include <stdbool.h>

struct ab_opts {
	const char *patch;	/* FILE or DIR */
	const char *base;	/* "lab" (default), "7.3", "6.1" */
	bool reverse;		/* the patch is the base's (a revert's A/B) */
	bool lines;		/* vm --lines: exact cacheline counts */
	bool trace;		/* vm --trace (implies --lines): each side's access
				 * trace, for lines predict across the pair */
	char **sets;		/* -s KEY=VALUE, passed to `run` */
	int nsets;
	char **vm_args;		/* --cpus N, --mem MB, ...: the guests' shape, for vm */
	int nvm;
	char **command;		/* the lab command each guest runs */
	int ncommand;
};

/* The base names, for usage and errors: "lab, 7.3, 6.1". */
const char *ab_base_names(void);

/* Runs the A/B; the exit status: 0 when every stage finished, 2 (one
 * line) when a stage failed, the guest command's status otherwise. */
int ab_run(const struct ab_opts *o, int argc, char **argv);

#endif
