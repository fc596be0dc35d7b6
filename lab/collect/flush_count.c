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
#include "flushctr.skel.h"
#include "util/err.h"

struct flush_count {
	struct flushctr *skel;
	struct bpf_link *link;
};

struct flush_count *flush_count_start(int force_off, int needs_off, char *err, size_t errlen)
{
	struct flush_count *f = xcalloc(1, sizeof(*f));
	void *log = bpf_log_quiet();
	int e;

	f->skel = flushctr__open();
	if (!f->skel) {
		snprintf(err, errlen, "cannot open the flush counter BPF object: %s", strerror(errno));
		goto fail;
	}
	f->skel->rodata->force_off = force_off;
	f->skel->rodata->needs_off = needs_off;
	e = flushctr__load(f->skel);
	if (e) {
		snprintf(err, errlen, "cannot load the flush counter BPF program: %s", strerror(-e));
		goto fail;
	}
	f->link = bpf_program__attach(f->skel->progs.count_flush);
	if (libbpf_get_error(f->link)) {
		snprintf(err, errlen, "cannot attach BPF to memcg:memcg_flush_stats: %s",
			 strerror(-libbpf_get_error(f->link)));
		f->link = NULL;
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
		if (bpf_map_lookup_elem(bpf_map__fd(f->skel->maps.counts), &k, v))
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
	flushctr__destroy(f->skel);
	free(f);
}
