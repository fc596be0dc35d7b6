// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c trace: the lines plugin's access trace, summed up per window and object, or dumped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_trace_read.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"
#include "util/tsv.h"

static const struct options_cmd trace_cmd = {
	.name = "c2c trace",
	.usage =
	"usage: memcg-lab c2c trace TRACE [--objects DIR] [--dump N]\n"
	"\n"
	"TRACE is the lines plugin's access trace (vm --lines --trace writes it to\n"
	"DIR/lines/trace.bin; format: lab/c2c/lines_trace.h).  Prints its header\n"
	"(status, records, dropped, cap) and per window the records, loads and\n"
	"stores; with --objects DIR (the run's lines/: window-objects.tsv,\n"
	"window-ranges.tsv) per object type too, and the records on an object's\n"
	"lines outside any object.  --dump N: the first N records as TSV: seq\n"
	"window vcpu rw size vaddr pc object offset.\n"
	"A trace of another format version, one cut off (named with its record\n"
	"count) or a bad record: one line, exit 2.  A full trace opens, and says\n"
	"so first.\n"
	"\n",
};

#define MAXW 4096
#define MAXT 64

struct tally {
	const char *type;
	unsigned long long loads, stores;
};

int cmd_c2c_trace(int argc, char **argv)
{
	const char *objdir = NULL;
	int dump = 0;
	const struct lab_option opts[] = {
		OPT_STRING(0, "objects", &objdir, "DIR", NULL, "the run's lines/ directory: objects per window"),
		OPT_INT(0, "dump", &dump, "N", "0", "the first N records as TSV", 0, 1 << 30),
		OPT_END(),
	};
	int i = options_parse(&trace_cmd, opts, argc, argv);
	static unsigned long long wl[MAXW], ws[MAXW];
	struct tally types[MAXT];
	unsigned long long outside = 0, later = 0;
	struct lines_trace_objs objs = { 0 };
	const struct lines_trace_rec *r;
	struct lines_trace t;
	char err[1024], note[512];
	size_t ntypes = 0;
	uint32_t maxw = 0;

	if (i != argc - 1)
		options_usage_error();
	if (lines_trace_open(&t, argv[i], err, sizeof(err)) < 0)
		die("c2c trace: %s", err);
	if (objdir && lines_trace_objs_load(&objs, objdir, err, sizeof(err)) < 0)
		die("c2c trace: %s", err);
	if (lines_trace_full(&t, note, sizeof(note)))
		printf("%s\n", note);
	printf("%s: %s, %llu records of %u bytes (%.1f MiB), %llu dropped, cap %llu, %u vCPUs\n", argv[i],
	       lines_trace_status_name(t.hdr.status), (unsigned long long)t.hdr.nrecords, t.hdr.record_size,
	       t.hdr.nrecords * (double)t.hdr.record_size / 1048576, (unsigned long long)t.hdr.dropped,
	       (unsigned long long)t.hdr.cap, t.hdr.vcpus);
	if (dump)
		printf("seq\twindow\tvcpu\trw\tsize\tvaddr\tpc\tobject\toffset\n");
	while ((r = lines_trace_next(&t))) {
		uint64_t off = 0;
		const struct lines_trace_obj *o = objdir ? lines_trace_obj_of(&objs, r->window, r->vaddr, &off) : NULL;
		bool store = r->flags & LINES_TRACE_STORE;

		if (r->window < MAXW) {
			(store ? ws : wl)[r->window]++;
			maxw = r->window > maxw ? r->window : maxw;
		} else {
			later++;
		}
		if (objdir && !o)
			outside++;
		if (o) {
			size_t k = 0;

			while (k < ntypes && strcmp(types[k].type, o->type))
				k++;
			if (k == ntypes && ntypes < MAXT)
				types[ntypes++] = (struct tally){ o->type, 0, 0 };
			if (k < ntypes)
				*(store ? &types[k].stores : &types[k].loads) += 1;
		}
		if (dump && t.next <= (uint64_t)dump) {
			printf("%llu\t%u\t%u\t%c\t%u\t0x%llx\t0x%llx\t", (unsigned long long)(t.next - 1), r->window,
			       r->vcpu, store ? 'W' : 'R', r->size, (unsigned long long)r->vaddr, (unsigned long long)r->pc);
			if (o)
				tsv_write_row(stdout, "%s\t%llu\n", o->type, (unsigned long long)off);
			else
				printf("-\t-\n");
		}
	}
	if (!dump) {
		printf("window\trecords\tloads\tstores\n");
		for (uint32_t w = 0; t.hdr.nrecords && w <= maxw; w++)
			if (wl[w] + ws[w])
				printf("%u\t%llu\t%llu\t%llu\n", w, wl[w] + ws[w], wl[w], ws[w]);
		if (later)
			printf("(%llu records of windows past %d)\n", later, MAXW);
		if (objdir) {
			printf("object\tloads\tstores\n");
			for (size_t k = 0; k < ntypes; k++)
				tsv_write_row(stdout, "%s\t%llu\t%llu\n", types[k].type, types[k].loads, types[k].stores);
			printf("-\t%llu records on the objects' lines, outside any object\n", outside);
		}
	}
	lines_trace_objs_free(&objs);
	lines_trace_close(&t);
	return 0;
}
