// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c report: the struct field behind each hot c2c offset. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/c2c_attr.h"
#include "analyze/c2c_parse_dir.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/options.h"
#include "util/outfile.h"

static const struct options_cmd report_cmd = {
	.name = "c2c report",
	.usage =
	"usage: memcg-lab c2c report FILE [--struct S --base ADDR]... [--objects TSV]\n"
	"                            [--btf F | --vmlinux F] [--out DIR] [-q]\n"
	"\n"
	"Reads `perf c2c report --stdio` output (FILE) and names, for every Pareto\n"
	"offset row, the struct field its data address falls in: nested and indexed\n"
	"(mem_cgroup.memory.usage, memcg_stock_pcp.cached[3]), from the BTF of the\n"
	"kernel the report was taken on.  Rows outside every known object, or all\n"
	"rows when no address is known, are attributed by code symbol only.\n"
	"\n",
};

/* The --base objects in order, each of the --struct type before it. */
struct pending {
	const char *type;
	struct pending_base {
		const char *type, *base;
	} *v;
	size_t n;
};

static void struct_opt(const struct lab_option *opt, const char *arg)
{
	((struct pending *)opt->value)->type = arg;
}

static void base_opt(const struct lab_option *opt, const char *arg)
{
	struct pending *p = opt->value;

	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v[p->n++] = (struct pending_base){ p->type, arg };
}

int cmd_c2c_report(int argc, char **argv)
{
	struct pending pend = { .type = "mem_cgroup" };
	const char *objects = NULL, *btf = NULL, *vmlinux = NULL, *out = NULL;
	bool quiet = false, have_btf = false;
	const struct lab_option opts[] = {
		OPT_CALLBACK(0, "struct", &pend, "S", "mem_cgroup", "BTF struct type of the next --base", struct_opt),
		OPT_CALLBACK(0, "base", &pend, "ADDR", NULL, "address of one object of that struct (repeatable)",
			     base_opt),
		OPT_STRING(0, "objects", &objects, "TSV", NULL,
			   "objects recorded by a lab run (label type address source)"),
		OPT_STRING(0, "btf", &btf, "F", NULL, "raw BTF or ELF with .BTF of the kernel the report came from"),
		OPT_STRING(0, "vmlinux", &vmlinux, "F", NULL, "vmlinux (BTF, else DWARF through pahole)\n"
			   "(default: the running kernel's /sys/kernel/btf/vmlinux)"),
		OPT_STRING('o', "out", &out, "DIR", NULL, "also write the parse TSVs, fields.tsv, symbols.tsv, "
			   "objects.tsv and per struct fieldmap-S.tsv, offsetmap-S.tsv (the false-sharing map for "
			   "the plot step)"),
		OPT_FLAG('q', "quiet", &quiet, "no parse warnings on stderr"),
		OPT_END(),
	};
	struct c2c_objects objs = { 0 };
	struct c2c_report r;
	struct c2c_attr_row *rows;
	struct kbtf k = { 0 };
	size_t n;
	char err[512];
	int file = options_parse(&report_cmd, opts, argc, argv);

	if (file != argc - 1)
		options_usage_error();

	if (pend.n || objects) {
		if (kbtf_open(&k, btf, vmlinux, err, sizeof(err)) < 0)
			die("%s", err);
		have_btf = true;
		if (!btf && !vmlinux)
			note("layout from the running kernel's BTF (%s%s%s); give --btf if the report was "
			     "taken on another kernel", k.path, k.release ? ", " : "", k.release ? k.release : "");
	}
	for (size_t i = 0; i < pend.n; i++) {
		char *end, label[64];
		uint64_t base;

		errno = 0;
		base = strtoull(pend.v[i].base, &end, 0);
		if (errno || *end || end == pend.v[i].base)
			die("--base '%s': expected an address (0x...)", pend.v[i].base);
		snprintf(label, sizeof(label), "%s@%s", pend.v[i].type, pend.v[i].base);
		if (c2c_objects_add(&objs, &k, pend.v[i].type, base, label, "--base", err, sizeof(err)) < 0)
			die("--struct %s: %s", pend.v[i].type, err);
	}
	if (objects && c2c_objects_read_tsv(&objs, &k, objects, err, sizeof(err)) < 0)
		die("%s", err);

	if (out) {
		c2c_parse_dir_or_die(argv[file], out, quiet, &r);
		/* The offsets were streamed to the file: parse again, keeping them. */
		c2c_report_free(&r);
	}
	if (c2c_parse_path(&r, argv[file], NULL, NULL) < 0)
		die("%s: cannot read: %s", argv[file], strerror(errno));
	if (c2c_report_is_empty(&r))
		die("%s: no perf c2c report found (expected the output of `perf c2c report --stdio`)",
		    argv[file]);
	if (!quiet && !out)
		c2c_print_warnings(&r);

	rows = c2c_attribute(&r, have_btf ? &k : NULL, &objs, &n);
	printf("%s: %zu cachelines, %zu offset rows; sorted on %s; %s display%s\n", argv[file], r.ncls, n,
	       r.sort_on ? r.sort_on : "(not stated)", r.peer_display ? "peer snoop" : "HITM",
	       r.double_cl ? "; 128-byte (--double-cl) groups" : "");
	c2c_print_attribution(&r, rows, n, &objs, stdout);
	if (out && c2c_write_attribution_dir(out, rows, n, &objs, err, sizeof(err)) < 0)
		outfile_die(err);

	free(rows);
	c2c_report_free(&r);
	c2c_objects_free(&objs);
	if (have_btf)
		kbtf_close(&k);
	free(pend.v);
	return 0;
}
