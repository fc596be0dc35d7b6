// SPDX-License-Identifier: GPL-2.0
/* memcg-lab ab: the options; the stages are experiment/ab.c. */
#include <stdlib.h>
#include "cmd/builtin.h"
#include "experiment/ab.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd ab_cmd = {
	.name = "ab",
	.usage =
	"usage: memcg-lab ab --patch FILE|DIR [--base lab|7.3|6.1] [--reverse] [--lines] [--trace]\n"
	"                    [--cpus N] [--mem MB] [--accel A] [--timeout S] [-s KEY=VALUE]...\n"
	"                    -- COMMAND [ARGS...]\n"
	"\n"
	"What a patch does, in one command: checks that the patch (a file, or a\n"
	"directory of *.patch applied in name order) applies to the base, builds the\n"
	"base and the patched kernel (lab/scripts/lab-kernel.sh: cached, and the second\n"
	"build compiles only what the patch touches), runs `memcg-lab COMMAND` in a\n"
	"guest of each (the same shape), and ends with compare and the mail text, A\n"
	"labelled base and B by the patch's subject.  A progress line per stage, with\n"
	"its time.  Results: results/<date>-ab-<name>/ with A/ and B/ (each side's vm\n"
	"results), compare.txt, mail.txt, the build and guest logs.\n"
	"\n"
	"Bases: lab (Debian's 7.3 with the lab's user-flush mutex), 7.3 and 6.1\n"
	"(Debian's sources as they are); the lab kernel's config either way.\n"
	"\n",
	.footer =
	"\n"
	"With --reverse the patch is the base's: A has it, B does not (a revert's A/B:\n"
	"  memcg-lab ab --patch lab/kernel-patches/ab/page-counter-split-revert.patch \\\n"
	"      --reverse --lines -- run experiments/lines-charge.exp).\n"
	"A patch that does not apply names its first failing hunk; one that does not\n"
	"build quotes the compiler's first error; a guest that does not boot says so;\n"
	"each is one line and exit 2, with nothing cached and the results incomplete.\n"
	"Ctrl-C at any stage stops the build (compilers too) or the guest.\n",
	.stop_at_arg = true,
};

/* A vm option ab passes on as it is, with its value. */
static void vm_opt(const struct lab_option *opt, const char *arg)
{
	struct option_list *l = opt->value;

	l->v = xrealloc(l->v, (l->n + 2) * sizeof(*l->v));
	l->v[l->n++] = xasprintf("--%s", opt->long_name);
	l->v[l->n++] = xstrdup(arg);
}

int cmd_ab(int argc, char **argv)
{
	struct option_list sets = { 0 }, vm = { 0 };
	struct ab_opts o = { .base = "lab" };
	const struct lab_option opts[] = {
		OPT_STRING(0, "patch", &o.patch, "FILE|DIR", NULL, "the patch, or a directory of *.patch"),
		OPT_STRING(0, "base", &o.base, "NAME", "lab", "the kernel it applies to: lab, 7.3 or 6.1"),
		OPT_FLAG(0, "reverse", &o.reverse, "the patch is the base's: A has it, B not"),
		OPT_FLAG(0, "lines", &o.lines, "vm --lines: exact cacheline counts in each guest"),
		OPT_FLAG(0, "trace", &o.trace, "vm --trace (and --lines): each side's access trace, A/lines/trace.bin "
			 "and B/lines/trace.bin, which `lines predict` replays on the other side's layout"),
		OPT_CALLBACK(0, "cpus", &vm, "N", "vm's", "vCPUs of each guest", vm_opt),
		OPT_CALLBACK(0, "mem", &vm, "MB", "vm's", "memory of each guest", vm_opt),
		OPT_CALLBACK(0, "accel", &vm, "A", "vm's", "auto, tcg or mttcg", vm_opt),
		OPT_CALLBACK(0, "timeout", &vm, "S", "vm's", "give up on a guest after S seconds", vm_opt),
		OPT_LIST('s', "set", &sets, "KEY=VALUE", "an experiment's entry, for -- run FILE"),
		OPT_END(),
	};
	int cmd = options_parse(&ab_cmd, opts, argc, argv), rc;

	if (!o.patch)
		die("ab: give --patch FILE|DIR");
	o.sets = (char **)sets.v;
	o.nsets = sets.n;
	o.vm_args = (char **)vm.v;
	o.nvm = vm.n;
	o.command = argv + cmd;
	o.ncommand = argc - cmd;
	rc = ab_run(&o, argc, argv);
	for (int i = 0; i < vm.n; i++)
		free((char *)vm.v[i]);
	free(vm.v);
	free(sets.v);
	return rc;
}
