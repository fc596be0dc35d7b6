// SPDX-License-Identifier: GPL-2.0
/*
 * `memcg-lab c2c report`: the struct field behind each hot offset of one
 * `perf c2c report --stdio` file, from the BTF of the kernel it was taken
 * on (c2c/c2c_attr.h does the attribution).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c_attr.h"
#include "c2c/c2c_attr_report.h"
#include "c2c/c2c_parse_dir.h"
#include "c2c/c2c_legend.h"
#include "kernel/btf.h"
#include "util/err.h"
#include "util/outfile.h"

int c2c_attr_report(const struct c2c_attr_request *rq)
{
	struct c2c_objects objs = { 0 };
	struct c2c_report r;
	struct c2c_attr_row *rows;
	struct kbtf k = { 0 };
	size_t n;
	char err[512];
	const char *path = rq->path, *btf = rq->btf, *vmlinux = rq->vmlinux, *out = rq->out;
	bool quiet = rq->quiet, have_btf = false;

	if (rq->nbases || rq->objects) {
		if (kbtf_open(&k, btf, vmlinux, err, sizeof(err)) < 0)
			die("%s", err);
		have_btf = true;
		if (!btf && !vmlinux)
			note("layout from the running kernel's BTF (%s%s%s); give --btf if the report was "
			     "taken on another kernel", k.path, k.release ? ", " : "", k.release ? k.release : "");
	}
	for (size_t i = 0; i < rq->nbases; i++) {
		char *end, label[64];
		uint64_t base;

		errno = 0;
		base = strtoull(rq->bases[i].base, &end, 0);
		if (errno || *end || end == rq->bases[i].base)
			die("--base '%s': expected an address (0x...)", rq->bases[i].base);
		snprintf(label, sizeof(label), "%s@%s", rq->bases[i].type, rq->bases[i].base);
		if (c2c_objects_add(&objs, &k, rq->bases[i].type, base, label, "--base", err, sizeof(err)) < 0)
			die("--struct %s: %s", rq->bases[i].type, err);
	}
	if (rq->objects && c2c_objects_read_tsv(&objs, &k, rq->objects, err, sizeof(err)) < 0)
		die("%s", err);
	if (rq->cgroup && (field_cgroup_parse(rq->cgroup, &objs.cgroup) < 0 || !rq->cgroup[0]))
		die("--cgroup '%s': expected v1 or v2", rq->cgroup);

	if (out) {
		c2c_parse_dir_or_die(path, out, quiet, &r);
		/* The offsets were streamed to the file: parse again, keeping them. */
		c2c_report_free(&r);
	}
	if (c2c_parse_path(&r, path, NULL, NULL) < 0)
		die("%s: cannot read: %s", path, strerror(errno));
	if (c2c_report_is_empty(&r))
		die("%s: no perf c2c report found (expected the output of `perf c2c report --stdio`)",
		    path);
	if (!quiet && !out)
		c2c_print_warnings(&r);

	c2c_report_assume_vendor(&r, rq->vendor);
	rows = c2c_attribute(&r, have_btf ? &k : NULL, &objs, &n);
	if (c2c_report_limit(&r, err, sizeof(err)))
		printf("%s: ", path);	/* the table's first line, "cannot show: ...", ends it */
	else
		printf("%s: %zu cachelines, %zu offset rows; sorted on %s; %s display%s%s%s\n", path, r.ncls, n,
		       r.sort_on ? r.sort_on : "(not stated)", r.peer_display ? "peer snoop" : "HITM",
		       r.double_cl ? "; 128-byte (--double-cl) groups" : "", r.vendor ? "; recorded on " : "",
		       r.vendor ? c2c_vendor_name(r.vendor) : "");
	c2c_print_attribution(&r, rows, n, &objs, stdout);
	if (out && (c2c_write_attribution_dir(out, rows, n, &objs, err, sizeof(err)) < 0 ||
		    c2c_write_pmu_tsv(out, &r, err, sizeof(err)) < 0))
		outfile_die(err);

	free(rows);
	c2c_report_free(&r);
	c2c_objects_free(&objs);
	if (have_btf)
		kbtf_close(&k);
	return 0;
}
