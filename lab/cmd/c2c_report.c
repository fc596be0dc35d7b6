// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c report: the options; the report is c2c/c2c_attr_report.c. */
#include <stdlib.h>
#include "c2c/c2c_attr_report.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd report_cmd = {
	.name = "c2c report",
	.usage =
	"usage: memcg-lab c2c report FILE [--struct S --base ADDR]... [--objects TSV]\n"
	"                            [--cgroup v1|v2] [--btf F | --vmlinux F] [--pmu intel|amd|arm] [--out DIR] [-q]\n"
	"\n"
	"Reads `perf c2c report --stdio` output (FILE) and names, for every Pareto\n"
	"offset row, the struct field its data address falls in: nested and indexed\n"
	"(mem_cgroup.memory.usage, memcg_stock_pcp.cached[3]), from the BTF of the\n"
	"kernel the report was taken on.  Rows outside every known object, or all\n"
	"rows when no address is known, are attributed by code symbol only.\n"
	"Lcl and Rmt are named for the PMU that recorded the report (its Events\n"
	"line, else --pmu): on AMD, Rmt HITM is another CCX, not another socket;\n"
	"on Arm SPE the counts are peer snoops.  A report that cannot show sharing\n"
	"on its PMU says so in its first line.\n"
	"\n",
};

/* The --base objects in order, each of the --struct type before it. */
struct pending {
	const char *type;
	struct c2c_attr_base *v;
	size_t n;
};

static void pmu_opt(const struct lab_option *opt, const char *arg)
{
	int v = c2c_vendor_parse(arg);

	if (v < 0 || v == C2C_POWER)
		die("--pmu '%s': expected intel, amd or arm", arg);
	*(enum c2c_vendor *)opt->value = v;
}

static void struct_opt(const struct lab_option *opt, const char *arg)
{
	((struct pending *)opt->value)->type = arg;
}

static void base_opt(const struct lab_option *opt, const char *arg)
{
	struct pending *p = opt->value;

	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v[p->n++] = (struct c2c_attr_base){ p->type, arg };
}

int cmd_c2c_report(int argc, char **argv)
{
	struct pending pend = { .type = "mem_cgroup" };
	struct c2c_attr_request rq = { 0 };
	const struct lab_option opts[] = {
		OPT_CALLBACK(0, "struct", &pend, "S", "mem_cgroup", "BTF struct type of the next --base", struct_opt),
		OPT_CALLBACK(0, "base", &pend, "ADDR", NULL, "address of one object of that struct (repeatable)",
			     base_opt),
		OPT_STRING(0, "objects", &rq.objects, "TSV", NULL,
			   "objects recorded by a lab run (label type address source)"),
		OPT_STRING(0, "cgroup", &rq.cgroup, "v1|v2", NULL,
			   "the run's cgroup version: names a union's live member (mem_cgroup's memsw on v1, "
			   "swap on v2; default: the --objects file's, else both: swap|memsw)"),
		OPT_STRING(0, "btf", &rq.btf, "F", NULL, "raw BTF or ELF with .BTF of the kernel the report came from"),
		OPT_STRING(0, "vmlinux", &rq.vmlinux, "F", NULL, "vmlinux (BTF, else DWARF through pahole)\n"
			   "(default: the running kernel's /sys/kernel/btf/vmlinux)"),
		OPT_CALLBACK(0, "pmu", &rq.vendor, "V", NULL, "intel, amd or arm: the recording PMU, where the "
			     "report's Events line does not say", pmu_opt),
		OPT_STRING('o', "out", &rq.out, "DIR", NULL, "also write the parse TSVs, fields.tsv, symbols.tsv, "
			   "objects.tsv, pmu.tsv (what lcl and rmt are) and per struct fieldmap-S.tsv, "
			   "offsetmap-S.tsv (the false-sharing map for the plot step)"),
		OPT_FLAG('q', "quiet", &rq.quiet, "no parse warnings on stderr"),
		OPT_END(),
	};
	int file = options_parse(&report_cmd, opts, argc, argv), rc;

	if (file != argc - 1)
		options_usage_error();
	rq.path = argv[file];
	rq.bases = pend.v;
	rq.nbases = pend.n;
	rc = c2c_attr_report(&rq);
	free(pend.v);
	return rc;
}
