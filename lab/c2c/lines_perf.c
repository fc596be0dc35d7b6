// SPDX-License-Identifier: GPL-2.0
/* The plugin's events as perf.data, and perf c2c report of it (c2c/lines_perf.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "c2c/c2c.h"
#include "c2c/lines_out.h"
#include "c2c/lines_perf.h"
#include "perf/perfdata_write.h"
#include "perf/symfile.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"

#define KERNEL_START 0xffff800000000000ULL

static bool selected(const struct lines_perf_sel *s, const struct lines_pline *l)
{
	const char *label;

	if (!s->label)
		return true;
	label = l->window >= 0 ? lines_guest_label(s->g, l->window) : NULL;
	return label && !strcmp(label, s->label);
}

static uint64_t site_events(const struct lines_psite *si)
{
	return si->c.load_hitm + si->c.store_hitm + si->c.store_inval;
}

/* m samples of one kind at one site. */
static void emit(struct perfdata_writer *w, const struct lines_pline *l, const struct lines_psite *si,
		 enum perfdata_mem_kind kind, uint64_t m, uint64_t period)
{
	uint32_t task = LINES_PERF_TID_BASE + si->vcpu;
	struct perfdata_mem_sample s = {
		.kind = kind, .ip = si->pc, .addr = l->vaddr + si->off, .phys_addr = l->paddr + si->off,
		.weight = 0, .period = period, .pid = task, .tid = task, .cpu = si->vcpu,
		.user = si->pc < KERNEL_START,
	};

	while (m--)
		perfdata_writer_sample(w, &s);
}

int lines_perf_write(const struct lines_perf_sel *s, const char *path, size_t *nsamples, uint64_t *period,
		     char *err, size_t errlen)
{
	const struct lines_file *lf = s->lf;
	struct perfdata_write_info info = {
		.ncpus = s->vcpus ? s->vcpus : 1, .mem_bytes = s->mem_bytes, .hostname = "memcg-lab-guest",
		.os_release = s->g->release, .perf_version = "memcg-lab lines plugin", .arch = "x86_64",
		.cmdline = "memcg-lab vm --lines", .kernel_text = s->g->text,
		.kernel_build_id_len = s->g->build_id_len,
	};
	struct perfdata_writer *w;
	uint64_t total = 0, acc = 0, k, maxpa = 0;
	int rc;

	memcpy(info.kernel_build_id, s->g->build_id, sizeof(info.kernel_build_id));
	for (size_t i = 0; i < lf->nlines; i++) {
		const struct lines_pline *l = &lf->lines[i];

		if (!selected(s, l))
			continue;
		maxpa = l->paddr + 64 > maxpa ? l->paddr + 64 : maxpa;
		for (size_t j = 0; j < l->nsites; j++)
			total += site_events(&l->sites[j]);
	}
	if (!info.mem_bytes)
		info.mem_bytes = maxpa;
	k = total > LINES_PERF_MAX_SAMPLES ? (total + LINES_PERF_MAX_SAMPLES - 1) / LINES_PERF_MAX_SAMPLES : 1;
	w = perfdata_writer_new(&info);
	for (unsigned v = 0; v < info.ncpus; v++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "vcpu%u", v);
		perfdata_writer_comm(w, LINES_PERF_TID_BASE + v, LINES_PERF_TID_BASE + v, comm);
	}
	for (size_t i = 0; i < lf->nlines; i++) {
		const struct lines_pline *l = &lf->lines[i];

		if (!selected(s, l))
			continue;
		for (size_t j = 0; j < l->nsites; j++) {
			const struct lines_psite *si = &l->sites[j];
			const struct {
				uint64_t n;
				enum perfdata_mem_kind kind;
			} kinds[] = {
				{ si->c.load_hitm, PERFDATA_MEM_LCL_HITM },
				{ si->c.store_hitm, PERFDATA_MEM_STORE_MISS },
				{ si->c.store_inval, PERFDATA_MEM_STORE_MISS },
			};

			/* Systematic: the k-th, 2k-th ... event over all sites. */
			for (size_t x = 0; x < sizeof(kinds) / sizeof(kinds[0]); x++) {
				emit(w, l, si, kinds[x].kind, (acc + kinds[x].n) / k - acc / k, k);
				acc += kinds[x].n;
			}
		}
	}
	*nsamples = perfdata_writer_nsamples(w);
	*period = k;
	rc = perfdata_writer_save(w, path, err, errlen);
	perfdata_writer_free(w);
	return rc;
}

int lines_perf_buildid(const struct lines_guest *g, const char *dir, char *err, size_t errlen)
{
	char hex[41] = "", *sub, *dst, *elf, *link_dir, *link, *target;
	char *text = NULL;
	size_t len;
	int rc = 0, e;

	if (!g->kallsyms || !g->build_id_len || !g->text)
		return 1;
	for (unsigned i = 0; i < g->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", g->build_id[i]);
	sub = xasprintf("%s/[kernel.kallsyms]/%s", dir, hex);
	dst = xasprintf("%s/kallsyms", sub);
	elf = xasprintf("%s/elf", sub);
	link_dir = xasprintf("%s/.build-id/%.2s", dir, hex);
	link = xasprintf("%s/%s", link_dir, hex + 2);
	target = xasprintf("../../[kernel.kallsyms]/%s", hex);
	e = mkdir_p(sub, 0755);
	if (!e)
		e = mkdir_p(link_dir, 0755);
	if (e < 0) {
		rc = set_err(err, errlen, "%s: cannot create: %s", e == -ENOENT ? dir : sub, strerror(-e));
		goto out;
	}
	text = read_text(g->kallsyms, &len);
	if (!text) {
		rc = set_err(err, errlen, "%s: cannot read: %s", g->kallsyms, strerror(errno));
		goto out;
	}
	/* perf 6.1 reads the kallsyms; 7.x takes the host's for any kernel
	 * without a vmlinux, so the ELF symbol file (perf/symfile.h) too. */
	if ((!path_exists(dst) && outfile_write(dst, text, len) < 0) ||
	    perf_symfile_write(elf, text, g->build_id, g->build_id_len, err, errlen) < 0) {
		if (!*err)
			set_err(err, errlen, "%s: cannot write: %s", dst, strerror(errno));
		rc = -1;
		goto out;
	}
	/* perf's cache: .build-id/xx/<rest> is a link to the build ID's directory. */
	if (symlink(target, link) < 0 && errno != EEXIST)
		rc = set_err(err, errlen, "%s: cannot link: %s", link, strerror(errno));
out:
	free(text);
	free(sub);
	free(dst);
	free(elf);
	free(link_dir);
	free(link);
	free(target);
	return rc;
}
