// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/bpf_log.h"
#include "lock/flush_count.h"
#include "util/err.h"

extern const char bpf_obj_flushctr[], bpf_obj_flushctr_end[];

struct flush_count {
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	int counts_fd;
};

struct flush_count *flush_count_load(int force_off, int needs_off, char *err, size_t errlen)
{
	struct flush_count *f = xcalloc(1, sizeof(*f));
	void *log = bpf_log_quiet();
	struct { __u32 force_off, needs_off; } cfg = { force_off, needs_off };
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
	f->prog = bpf_object__find_program_by_name(f->obj, "count_flush");
	cmap = bpf_object__find_map_by_name(f->obj, "config");
	counts = bpf_object__find_map_by_name(f->obj, "counts");
	if (!f->prog || !cmap || !counts || bpf_map_update_elem(bpf_map__fd(cmap), &k, &cfg, 0)) {
		snprintf(err, errlen, "the flush counter BPF object lacks its program or maps");
		goto fail;
	}
	f->counts_fd = bpf_map__fd(counts);
	/* The trial attach: what counts meanwhile is zeroed by the real one. */
	if (flush_count_attach(f, err, errlen))
		goto fail;
	flush_count_detach(f);
	bpf_log_restore(log);
	return f;
fail:
	bpf_log_restore(log);
	flush_count_free(f);
	return NULL;
}

int flush_count_attach(struct flush_count *f, char *err, size_t errlen)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *zero = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*zero));
	void *log;

	for (uint32_t k = 0; k < 4; k++)
		if (bpf_map_update_elem(f->counts_fd, &k, zero, 0)) {
			snprintf(err, errlen, "cannot zero the flush counter: %s", strerror(errno));
			free(zero);
			return -1;
		}
	free(zero);
	log = bpf_log_quiet();
	f->link = bpf_program__attach(f->prog);
	bpf_log_restore(log);
	if (!f->link) {
		snprintf(err, errlen, "cannot attach BPF to memcg:memcg_flush_stats: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void flush_count_detach(struct flush_count *f)
{
	if (f->link) {
		bpf_link__destroy(f->link);
		f->link = NULL;
	}
}

void flush_count_stop(struct flush_count *f, uint64_t counts[4])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*v));

	flush_count_detach(f);
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
