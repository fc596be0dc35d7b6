// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collect/bpf_log.h"
#include "collect/flush_count.h"
#include "util/err.h"

extern const char bpf_obj_flushctr[], bpf_obj_flushctr_end[];

struct flush_count {
	struct bpf_object *obj;
	struct bpf_link *link;
	int counts_fd;
};

struct flush_count *flush_count_start(int force_off, int needs_off, char *err, size_t errlen)
{
	struct flush_count *f = xcalloc(1, sizeof(*f));
	void *log = bpf_log_quiet();
	struct { __u32 force_off, needs_off; } cfg = { force_off, needs_off };
	struct bpf_program *prog;
	struct bpf_map *cmap, *counts;
	__u32 k = 0;
	int e;

	f->counts_fd = -1;
	f->obj = bpf_object__open_mem(bpf_obj_flushctr, bpf_obj_flushctr_end - bpf_obj_flushctr, NULL);
	if (!f->obj) {
		snprintf(err, errlen, "cannot open the flush counter BPF object: %s", strerror(errno));
		goto fail;
	}
	e = bpf_object__load(f->obj);
	if (e) {
		snprintf(err, errlen, "cannot load the flush counter BPF program: %s", strerror(-e));
		goto fail;
	}
	prog = bpf_object__find_program_by_name(f->obj, "count_flush");
	cmap = bpf_object__find_map_by_name(f->obj, "config");
	counts = bpf_object__find_map_by_name(f->obj, "counts");
	if (!prog || !cmap || !counts || bpf_map_update_elem(bpf_map__fd(cmap), &k, &cfg, 0)) {
		snprintf(err, errlen, "the flush counter BPF object lacks its program or maps");
		goto fail;
	}
	f->counts_fd = bpf_map__fd(counts);
	f->link = bpf_program__attach(prog);
	if (!f->link) {
		snprintf(err, errlen, "cannot attach BPF to memcg:memcg_flush_stats: %s", strerror(errno));
		goto fail;
	}
	bpf_log_restore(log);
	return f;
fail:
	bpf_log_restore(log);
	flush_count_free(f);
	return NULL;
}

void flush_count_stop(struct flush_count *f, uint64_t counts[4])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*v));

	if (f->link) {
		bpf_link__destroy(f->link);
		f->link = NULL;
	}
	for (uint32_t k = 0; k < 4; k++) {
		counts[k] = 0;
		if (bpf_map_lookup_elem(f->counts_fd, &k, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			counts[k] += v[c];
	}
	free(v);
}

void flush_count_free(struct flush_count *f)
{
	if (!f)
		return;
	if (f->link)
		bpf_link__destroy(f->link);
	if (f->obj)
		bpf_object__close(f->obj);
	free(f);
}
