// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab layout: capture, check and diff the cacheline layouts of
 * struct mem_cgroup, page_counter, memcg_stock_pcp, obj_stock_pcp and
 * memcg_vmstats_percpu.  Meant for after every rebase and for kernel CI:
 *
 *   memcg-lab layout --vmlinux vmlinux --check     (exit 1 names the rule)
 *
 * This file is the options; the work is layout/layout_run.c.
 */
#include "layout/layout_run.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd layout_cmd = {
	.name = "layout",
	.usage =
	"usage: memcg-lab layout [--btf FILE | --vmlinux FILE] [--out DIR] [--check] [--rules FILE]\n"
	"                        [--against DIR_OR_BTF]\n"
	"\n"
	"Captures, checks and diffs the cacheline layouts of struct mem_cgroup, page_counter,\n"
	"memcg_stock_pcp, obj_stock_pcp and memcg_vmstats_percpu, from BTF.\n"
	"\n",
	.footer =
	"\n"
	"Exit status: 0 no hard rule failed and no new sharing, 1 a hard rule failed (--check) or a\n"
	"hot-written field gained a sharer no rule allows (--against), 2 an error.\n",
};

int cmd_layout(int argc, char **argv)
{
	struct layout_request rq = { .width = 80 };
	const struct lab_option opts[] = {
		OPT_STRING(0, "btf", &rq.btf, "FILE", NULL, "raw BTF blob (or an ELF with .BTF)"),
		OPT_STRING(0, "vmlinux", &rq.vmlinux, "FILE", NULL, "vmlinux: its .BTF, else its DWARF converted by "
			   "pahole --btf_encode_detached\n(neither: the running kernel's /sys/kernel/btf/vmlinux)"),
		OPT_STRING(0, "out", &rq.out, "DIR", NULL, "write the capture to DIR: pahole's <struct>.txt, "
			   "cachelines.txt (the per-cacheline map), fields.tsv, structs.tsv, meta.tsv.  Without --check "
			   "and --against the capture is written to layouts/<kernel-release>/"),
		OPT_FLAG(0, "check", &rq.check, "check the rules: one line per rule, pass / FAIL / warn (a soft rule) / n/a"),
		OPT_STRING(0, "rules", &rq.rules, "FILE", "layouts/rules.conf", "the rules (its header explains the "
			   "syntax)"),
		OPT_STRING(0, "against", &rq.against, "X", NULL, "cacheline-aware diff from X (a capture directory or a "
			   "BTF/vmlinux file) to this kernel; '!' marks a hot-written field's new sharer that no rule "
			   "allows (exit 1)"),
		OPT_INT(0, "width", &rq.width, "N", "80", "wrap --check and --against at N columns (0: one line per "
			"rule, detail and change)", 0, 10000),
		OPT_END(),
	};
	int arg = options_parse(&layout_cmd, opts, argc, argv);

	if (arg < argc)
		die("layout: unexpected argument '%s' (see --help)", argv[arg]);
	if (rq.btf && rq.vmlinux)
		die("layout: --btf and --vmlinux are exclusive: give one kernel");
	return layout_run(&rq);
}
