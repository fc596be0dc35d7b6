// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>
#include "perf/user_inlines.h"
#include "util/elffile.h"
#include "util/err.h"
#include "util/u64map.h"

struct dso {
	char *path;
	bool opened;
	Dwfl *dwfl;		/* NULL: no such file or no DWARF */
	Dwfl_Module *mod;
	uint64_t text_offset;	/* .text sh_addr - sh_offset, as perf's dso->text_offset */
	struct u64map nodes;	/* file offset -> (void *)nodes */
};

struct umap {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct pmaps {
	size_t n, cap;
	struct umap *m;
};

struct user_inlines {
	struct u64map procs;	/* pid -> struct pmaps * */
	struct dso **dsos;
	size_t ndsos, capdsos;
};

struct user_inlines *uinl_new(void)
{
	struct user_inlines *u = xcalloc(1, sizeof(*u));

	u64map_init(&u->procs);
	return u;
}

void uinl_free(struct user_inlines *u)
{
	size_t i = 0;
	void *v;

	if (!u)
		return;
	while (u64map_next(&u->procs, &i, NULL, &v)) {
		free(((struct pmaps *)v)->m);
		free(v);
	}
	u64map_free(&u->procs);
	for (i = 0; i < u->ndsos; i++) {
		if (u->dsos[i]->dwfl)
			dwfl_end(u->dsos[i]->dwfl);
		u64map_free(&u->dsos[i]->nodes);
		free(u->dsos[i]->path);
		free(u->dsos[i]);
	}
	free(u->dsos);
	free(u);
}

static struct dso *dso_of(struct user_inlines *u, const char *path)
{
	struct dso *d;

	for (size_t i = u->ndsos; i-- > 0;)
		if (!strcmp(u->dsos[i]->path, path))
			return u->dsos[i];
	if (u->ndsos == u->capdsos) {
		u->capdsos = u->capdsos ? 2 * u->capdsos : 16;
		u->dsos = xrealloc(u->dsos, u->capdsos * sizeof(*u->dsos));
	}
	d = xcalloc(1, sizeof(*d));
	d->path = xstrdup(path);
	u64map_init(&d->nodes);
	u->dsos[u->ndsos++] = d;
	return d;
}

static struct pmaps *pmaps_of(struct user_inlines *u, uint32_t pid)
{
	struct pmaps *p = u64map_get(&u->procs, pid);

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		u64map_put(&u->procs, pid, p);
	}
	return p;
}

static void pmaps_add(struct pmaps *p, struct umap m)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->m = xrealloc(p->m, p->cap * sizeof(*p->m));
	}
	p->m[p->n++] = m;
}

void uinl_mmap(struct user_inlines *u, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
	       const char *filename)
{
	struct pmaps *p;
	uint64_t end = start + len;
	size_t n;

	if (!len || pid == (uint32_t)-1 || filename[0] != '/')
		return;
	p = pmaps_of(u, pid);
	/* perf's maps__fixup_overlap_and_insert(): what the new map covers
	 * goes, the parts of an old map before and after it stay. */
	n = p->n;
	for (size_t i = 0; i < n; i++) {
		struct umap old = p->m[i];

		if (old.end <= start || old.start >= end)
			continue;
		p->m[i].end = p->m[i].start;	/* emptied; pieces appended below */
		if (old.start < start)
			pmaps_add(p, (struct umap){ old.start, start, old.pgoff, old.dso });
		if (old.end > end)
			pmaps_add(p, (struct umap){ end, old.end, old.pgoff + (end - old.start), old.dso });
	}
	/* Drop the emptied entries. */
	n = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->m[i].end > p->m[i].start)
			p->m[n++] = p->m[i];
	p->n = n;
	pmaps_add(p, (struct umap){ start, end, pgoff, dso_of(u, filename) });
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void dso_open(struct dso *d)
{
	struct elf_section s = { 0 };
	GElf_Addr bias;
	size_t shstrndx;
	Elf *elf;

	d->opened = true;
	d->dwfl = dwfl_begin(&offline_callbacks);
	if (!d->dwfl)
		return;
	d->mod = dwfl_report_offline(d->dwfl, d->path, d->path, -1);
	dwfl_report_end(d->dwfl, NULL, NULL);
	elf = d->mod ? dwfl_module_getelf(d->mod, &bias) : NULL;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		return;
	}
	while (elf_section_next(elf, &s))
		if (!strcmp(s.name, ".text")) {
			d->text_offset = s.sh.sh_addr - s.sh.sh_offset;
			break;
		}
}

/* 1 + the inlined_subroutine scopes around addr (an ELF address). */
static int dso_nodes(struct dso *d, uint64_t addr)
{
	Dwarf_Addr bias, cubias;
	Dwarf_Die *cu, *scopes = NULL, *nest = NULL;
	int n, nodes = 1;

	if (!d->opened)
		dso_open(d);
	if (!d->dwfl || !dwfl_module_getelf(d->mod, &bias))
		return 1;
	cu = dwfl_module_addrdie(d->mod, addr + bias, &cubias);
	if (!cu) {
		/* No .debug_aranges (clang writes none): look for the unit
		 * by the units' own address ranges, as addr2line does. */
		while ((cu = dwfl_module_nextcu(d->mod, cu, &cubias)))
			if (dwarf_haspc(cu, addr + bias - cubias) > 0)
				break;
		if (!cu)
			return 1;
	}
	/* dwarf_getscopes() goes from an inlined instance on to its abstract
	 * origin's scopes; the DIE tree around the innermost one holds every
	 * inlined level (as addr2line -i prints them). */
	if (dwarf_getscopes(cu, addr + bias - cubias, &scopes) > 0) {
		n = dwarf_getscopes_die(&scopes[0], &nest);
		for (int i = 0; i < n; i++)
			nodes += dwarf_tag(&nest[i]) == DW_TAG_inlined_subroutine;
	}
	free(nest);
	free(scopes);
	return nodes;
}

int uinl_nodes(struct user_inlines *u, uint32_t pid, uint64_t ip)
{
	struct pmaps *p = u64map_get(&u->procs, pid);
	const struct umap *m = NULL;
	uint64_t off;
	void *v;
	int nodes;

	if (!p)
		return 1;
	for (size_t i = 0; i < p->n; i++)
		if (ip >= p->m[i].start && ip < p->m[i].end) {
			m = &p->m[i];
			break;
		}
	if (!m)
		return 1;
	off = ip - m->start + m->pgoff;
	v = u64map_get(&m->dso->nodes, off);
	if (v)
		return (int)(uintptr_t)v;
	if (!m->dso->opened)
		dso_open(m->dso);
	nodes = dso_nodes(m->dso, off + m->dso->text_offset);
	u64map_put(&m->dso->nodes, off, (void *)(uintptr_t)nodes);
	return nodes;
}
