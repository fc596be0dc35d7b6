// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c report: the struct field behind each hot c2c offset. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analyze/c2c_attr.h"
#include "cmd/builtin.h"
#include "cmd/c2c_sub.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"

static const char report_usage[] =
	"usage: memcg-lab c2c report FILE [--struct S --base ADDR]... [--objects TSV]\n"
	"                            [--btf F | --vmlinux F] [--out DIR] [-q]\n"
	"\n"
	"Reads `perf c2c report --stdio` output (FILE) and names, for every Pareto\n"
	"offset row, the struct field its data address falls in: nested and indexed\n"
	"(mem_cgroup.memory.usage, memcg_stock_pcp.cached[3]), from the BTF of the\n"
	"kernel the report was taken on.  Rows outside every known object, or all\n"
	"rows when no address is known, are attributed by code symbol only.\n"
	"\n"
	"  --struct S        BTF struct type of the next --base (default mem_cgroup)\n"
	"  --base ADDR       address of one object of that struct (repeatable)\n"
	"  --objects TSV     objects recorded by a lab run (label type address source)\n"
	"  --btf F           raw BTF or ELF with .BTF of the kernel the report came from\n"
	"  --vmlinux F       vmlinux (BTF, else DWARF through pahole)\n"
	"                    (default: the running kernel's /sys/kernel/btf/vmlinux)\n"
	"  -o, --out DIR     also write the parse TSVs, fields.tsv, symbols.tsv,\n"
	"                    objects.tsv and per struct fieldmap-S.tsv, offsetmap-S.tsv\n"
	"                    (the false-sharing map for the plot step)\n"
	"  -q, --quiet       no parse warnings on stderr\n";

struct pending {
	const char *type;
	const char *base;
};

int c2c_report_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "struct", required_argument, NULL, 's' },
		{ "base", required_argument, NULL, 'b' },
		{ "objects", required_argument, NULL, 'O' },
		{ "btf", required_argument, NULL, 'B' },
		{ "vmlinux", required_argument, NULL, 'V' },
		{ "out", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pending *pend = xcalloc(argc, sizeof(*pend));
	const char *type = "mem_cgroup", *objects = NULL, *btf = NULL, *vmlinux = NULL, *out = NULL;
	struct c2c_objects objs = { 0 };
	struct c2c_report r;
	struct c2c_attr_row *rows;
	struct kbtf k = { 0 };
	bool quiet = false, have_btf = false;
	size_t npend = 0, n;
	char err[512];
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's': type = optarg; break;
		case 'b':
			pend[npend].type = type;
			pend[npend++].base = optarg;
			break;
		case 'O': objects = optarg; break;
		case 'B': btf = optarg; break;
		case 'V': vmlinux = optarg; break;
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case 'h': usage_exit(report_usage, 0);
		default: usage_exit(report_usage, EXIT_LAB_ERR);
		}
	}
	if (optind != argc - 1)
		usage_exit(report_usage, EXIT_LAB_ERR);

	if (npend || objects) {
		if (kbtf_open(&k, btf, vmlinux, err, sizeof(err)) < 0)
			die("%s", err);
		have_btf = true;
		if (!btf && !vmlinux)
			note("layout from the running kernel's BTF (%s%s%s); give --btf if the report was "
			     "taken on another kernel", k.path, k.release ? ", " : "", k.release ? k.release : "");
	}
	for (size_t i = 0; i < npend; i++) {
		char *end, label[64];
		uint64_t base;

		errno = 0;
		base = strtoull(pend[i].base, &end, 0);
		if (errno || *end || end == pend[i].base)
			die("--base '%s': expected an address (0x...)", pend[i].base);
		snprintf(label, sizeof(label), "%s@%s", pend[i].type, pend[i].base);
		if (c2c_objects_add(&objs, &k, pend[i].type, base, label, "--base", err, sizeof(err)) < 0)
			die("--struct %s: %s", pend[i].type, err);
	}
	if (objects && c2c_objects_read_tsv(&objs, &k, objects, err, sizeof(err)) < 0)
		die("%s", err);

	if (out) {
		c2c_parse_or_die(argv[optind], out, quiet, &r);
		/* The offsets were streamed to the file: parse again, keeping them. */
		c2c_report_free(&r);
	}
	if (c2c_parse_path(&r, argv[optind], NULL, NULL) < 0)
		die("%s: cannot read: %s", argv[optind], strerror(errno));
	if (c2c_report_is_empty(&r))
		die("%s: no perf c2c report found (expected the output of `perf c2c report --stdio`)",
		    argv[optind]);
	if (!quiet && !out)
		c2c_print_warnings(&r);

	rows = c2c_attribute(&r, have_btf ? &k : NULL, &objs, &n);
	printf("%s: %zu cachelines, %zu offset rows; sorted on %s; %s display%s\n", argv[optind], r.ncls, n,
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
	free(pend);
	return 0;
}
