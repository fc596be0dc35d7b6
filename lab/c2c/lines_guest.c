// SPDX-License-Identifier: GPL-2.0
/* What the guest's lab left beside the plugin's counts (c2c/lines_guest.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/field_at.h"
#include "c2c/lines_ksyms.h"
#include "c2c/lines_guest.h"
#include "c2c/lines_session.h"
#include "c2c/lines_trace_read.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/tsv.h"

static const char *const win_cols[] = { "index", "label", "who", "repeat", NULL };
static const char *const ops_cols[] = { "window", "ops", "unit", NULL };

/* The guest's file at path read by its columns' names (util/tsv.h); a file
 * the guest did not send is no rows (t->text NULL).  0, or -1 with err. */
static int open_tsv(struct tsv *t, const char *path, const char *const cols[], char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	return path_exists(path) ? tsv_open(t, path, cols, 0, err, errlen) : 0;
}

/* The next row: false at the end, or with *rc -1 (err said why). */
static bool next_row(struct tsv *t, int *rc)
{
	int r = tsv_next(t);

	if (r < 0)
		*rc = -1;
	return r == TSV_ROW;
}

static int load_windows(struct lines_guest *g, const char *dir, char *err, size_t errlen)
{
	char *p = xasprintf("%s/lines/" LINES_WINDOWS_FILE, dir);
	struct tsv t;
	int rc = open_tsv(&t, p, win_cols, err, errlen);

	while (!rc && t.text && next_row(&t, &rc)) {
		struct lines_gwindow *w;
		uint64_t idx, rep;

		if (tsv_u64(&t, 0, &idx) || tsv_u64(&t, 3, &rep)) {
			rc = -1;
			break;
		}
		g->win = xrealloc(g->win, (g->nwin + 1) * sizeof(*g->win));
		w = &g->win[g->nwin++];
		w->index = (int64_t)idx;
		w->label = xstrdup(tsv_get(&t, 1));
		w->who = xstrdup(tsv_get(&t, 2));
		w->repeat = (int)rep;
		w->ops = -1;
		w->unit = NULL;
	}
	tsv_close(&t);
	free(p);
	return rc;
}

/* window-ops.tsv: each closed window's operations (absent: none counted). */
static int load_ops(struct lines_guest *g, const char *dir, char *err, size_t errlen)
{
	char *p = xasprintf("%s/lines/" LINES_OPS_FILE, dir);
	struct tsv t;
	int rc = open_tsv(&t, p, ops_cols, err, errlen);

	while (!rc && t.text && next_row(&t, &rc)) {
		uint64_t idx, ops;
		struct lines_gwindow *w = NULL;

		if (tsv_u64(&t, 0, &idx) || tsv_u64(&t, 1, &ops)) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < g->nwin && !w; i++)
			if (g->win[i].index == (int64_t)idx)
				w = &g->win[i];
		if (!w) {
			rc = tsv_fail(&t, 0, "%llu is not a window of " LINES_WINDOWS_FILE, (unsigned long long)idx);
			break;
		}
		if (w->ops >= 0) {
			rc = tsv_fail(&t, 0, "window %llu counted twice", (unsigned long long)idx);
			break;
		}
		w->ops = (int64_t)ops;
		w->unit = xstrdup(tsv_get(&t, 2));
	}
	tsv_close(&t);
	free(p);
	return rc;
}

/* "count:0:8,state:128:4" */
static int parse_fields(struct lines_grange *r, const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL;
	int rc = 0;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char name[128];
		unsigned long long off, size;

		if (sscanf(tok, "%127[^:]:%llu:%llu", name, &off, &size) != 3 || !size || off + size > r->stride) {
			rc = -1;
			break;
		}
		r->fields = xrealloc(r->fields, (r->nfields + 1) * sizeof(*r->fields));
		r->fields[r->nfields++] = (struct lines_gfield){ xstrdup(name), off, size };
	}
	free(copy);
	return rc;
}

/*
 * The objects and ranges the guest's lab found (window-objects.tsv,
 * window-ranges.tsv), read by their one reader (lines_trace_objs_load,
 * which lines predict reads them through too): objects named from the
 * guest's BTF, ranges with their fields.
 */
static int load_objects_ranges(struct lines_guest *g, const char *dir, char *err, size_t errlen)
{
	char *ld = xasprintf("%s/lines", dir), why[512];
	struct lines_trace_objs o;
	int rc = lines_trace_objs_load(&o, ld, err, errlen);

	for (size_t i = 0; !rc && i < o.n; i++) {
		const struct lines_trace_obj *x = &o.v[i];
		struct c2c_objects one = { 0 };
		struct lines_grange r = { 0 };

		if (x->range) {
			r = (struct lines_grange){ .window = x->window, .name = xstrdup(x->type), .addr = x->base,
						   .size = x->size, .stride = x->stride };
			if (parse_fields(&r, x->fields) < 0)
				rc = set_err(err, errlen, "%s/%s:%d: field fields: '%s' is not NAME:OFFSET:SIZE,... "
					     "within a stride of %llu", ld, x->file, x->line, x->fields,
					     (unsigned long long)r.stride);
			g->rng = xrealloc(g->rng, (g->nrng + 1) * sizeof(*g->rng));
			g->rng[g->nrng++] = r;
			continue;
		}
		if (!g->have_btf) {
			rc = set_err(err, errlen, "%s/%s: the guest kernel sent no BTF (/sys/kernel/btf/vmlinux: a kernel "
				     "without CONFIG_DEBUG_INFO_BTF): the struct fields of its objects cannot be named",
				     ld, x->file);
			break;
		}
		if (c2c_objects_add(&one, &g->btf, x->type, x->base, x->label, x->source, why, sizeof(why)) < 0) {
			rc = set_err(err, errlen, "%s/%s:%d: the objects' BTF (%s) lacks a struct the report needs: %s",
				     ld, x->file, x->line, g->btf.path, why);
			break;
		}
		g->obj = xrealloc(g->obj, (g->nobj + 1) * sizeof(*g->obj));
		g->obj[g->nobj].window = x->window;
		g->obj[g->nobj++].o = one.v[0];
		free(one.v);
	}
	lines_trace_objs_free(&o);
	free(ld);
	return rc;
}

/* The GNU build ID in /sys/kernel/notes (ELF notes: namesz, descsz, type, name, desc). */
static void load_build_id(struct lines_guest *g, const char *dir)
{
	char *p = xasprintf("%s/lines/notes", dir);
	size_t len = 0;
	char *buf = read_text(p, &len);

	for (size_t off = 0; buf && off + 12 <= len;) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		if (namesz > len || descsz > len)
			break;
		off += 12;
		if (type == 3 && namesz == 4 && off + 4 + descsz <= len && !memcmp(buf + off, "GNU", 4) && descsz <= 20 &&
		    descsz) {
			memcpy(g->build_id, buf + off + 4, descsz);
			g->build_id_len = descsz;
			break;
		}
		off += (namesz + 3) / 4 * 4 + (descsz + 3) / 4 * 4;
	}
	free(buf);
	free(p);
}

/* lines/kallsyms from the guest's delta-encoded lines/kallsyms.delta
 * (c2c/lines_ksyms.h), where it sent that; 0, or -1 with err. */
static int decode_kallsyms(const char *dir, char *err, size_t errlen)
{
	char *p = xasprintf("%s/lines/kallsyms", dir), *dp = xasprintf("%s.delta", p), *text = NULL, *plain = NULL;
	size_t n = 0;
	int rc = 0, e;

	if (path_exists(p) || !path_exists(dp))
		goto out;
	text = read_text(dp, NULL);
	if (!text) {
		rc = set_err(err, errlen, "%s: cannot read: %s", dp, strerror(errno));
		goto out;
	}
	plain = lines_ksyms_decode(dp, text, &n, err, errlen);
	if (!plain) {
		rc = -1;
		goto out;
	}
	e = write_file_atomic(p, plain, n);
	if (e < 0)
		rc = set_err(err, errlen, "%s: cannot write: %s", p, strerror(-e));
out:
	free(plain);
	free(text);
	free(dp);
	free(p);
	return rc;
}

/* _text of the guest's kallsyms, and the guest kernel's release. */
static void load_kallsyms(struct lines_guest *g, const char *dir)
{
	char *p = xasprintf("%s/lines/kallsyms", dir), line[512];
	FILE *f = fopen(p, "re");

	if (!f) {
		free(p);
	} else {
		g->kallsyms = p;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long a;
			char type, name[256];

			if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, "_text")) {
				g->text = a;
				break;
			}
		}
		fclose(f);
	}
	p = xasprintf("%s/guest.txt", dir);
	{
		char *t = read_text(p, NULL), *k = t ? strstr(t, "kernel: ") : NULL;

		if (k && (k == t || k[-1] == '\n')) {
			k += 8;
			g->release = xasprintf("%.*s", (int)strcspn(k, "\n"), k);
		}
		/* vm-init.sh's "memory_cgroup: v1|v2|none"; a guest.txt of
		 * before it, or none, leaves the version unknown. */
		k = t ? strstr(t, "memory_cgroup: ") : NULL;
		if (k && (k == t || k[-1] == '\n')) {
			char v[16];

			k += 15;
			snprintf(v, sizeof(v), "%.*s", (int)strcspn(k, "\n"), k);
			if (field_cgroup_parse(v, &g->cgroup) < 0)
				g->cgroup = FIELD_CG_UNKNOWN;
		}
		free(t);
	}
	free(p);
}

int lines_guest_load(struct lines_guest *g, const char *dir, char *err, size_t errlen)
{
	char *btf = xasprintf("%s/lines/" LINES_OBJECTS_BTF, dir), why[512];

	memset(g, 0, sizeof(*g));
	/* A program that named its own objects left its own BTF for them. */
	if (!path_exists(btf)) {
		free(btf);
		btf = xasprintf("%s/lines/vmlinux.btf", dir);
	}
	if (path_exists(btf)) {
		if (kbtf_open(&g->btf, btf, NULL, why, sizeof(why)) < 0) {
			free(btf);
			return set_err(err, errlen, "%s", why);
		}
		g->have_btf = true;
	}
	free(btf);
	load_build_id(g, dir);
	if (decode_kallsyms(dir, err, errlen) < 0)
		return -1;
	load_kallsyms(g, dir);
	if (load_windows(g, dir, err, errlen) || load_ops(g, dir, err, errlen) || load_objects_ranges(g, dir, err, errlen))
		return -1;
	return 0;
}

void lines_guest_free(struct lines_guest *g)
{
	for (size_t i = 0; i < g->nwin; i++) {
		free(g->win[i].label);
		free(g->win[i].who);
		free(g->win[i].unit);
	}
	for (size_t i = 0; i < g->nobj; i++) {
		free(g->obj[i].o.label);
		free(g->obj[i].o.type);
		free(g->obj[i].o.source);
	}
	for (size_t i = 0; i < g->nrng; i++) {
		for (size_t j = 0; j < g->rng[i].nfields; j++)
			free(g->rng[i].fields[j].name);
		free(g->rng[i].fields);
		free(g->rng[i].name);
	}
	free(g->win);
	free(g->obj);
	free(g->rng);
	free(g->kallsyms);
	free(g->release);
	if (g->have_btf)
		kbtf_close(&g->btf);
	memset(g, 0, sizeof(*g));
}

const char *lines_guest_label(const struct lines_guest *g, int64_t index)
{
	for (size_t i = 0; i < g->nwin; i++)
		if (g->win[i].index == index)
			return g->win[i].label;
	return NULL;
}

bool lines_guest_name(const struct lines_guest *g, int64_t w, uint64_t vaddr, struct lines_gname *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < g->nobj; i++) {
		const struct c2c_object *o = &g->obj[i].o;
		struct field_hit hit;

		if ((w >= 0 && g->obj[i].window != w) || vaddr < o->base || vaddr - o->base >= o->size)
			continue;
		if (field_at(&g->btf, o->type_id, vaddr - o->base, g->cgroup, &hit) < 0)
			continue;
		out->st = o->type;
		snprintf(out->field, sizeof(out->field), "%s", hit.name);
		out->off = hit.offset;
		out->size = hit.size;
		out->base = o->base;
		out->object = o;
		return true;
	}
	for (size_t i = 0; i < g->nrng; i++) {
		const struct lines_grange *r = &g->rng[i];
		uint64_t rel, el;

		if ((w >= 0 && r->window != w) || vaddr < r->addr || vaddr - r->addr >= r->size)
			continue;
		rel = (vaddr - r->addr) % r->stride;
		el = vaddr - r->addr - rel;
		out->st = r->name;
		out->base = r->addr + el;
		out->object = r;
		/* Bytes no field holds: "(padding after F)", from F's end to the next field. */
		{
			uint64_t start = 0, end = r->stride;
			const char *after = NULL;

			for (size_t j = 0; j < r->nfields; j++) {
				const struct lines_gfield *f = &r->fields[j];

				if (rel >= f->off && rel < f->off + f->size) {
					snprintf(out->field, sizeof(out->field), "%s", f->name);
					out->off = f->off;
					out->size = f->size;
					return true;
				}
				if (f->off + f->size <= rel && f->off + f->size >= start) {
					start = f->off + f->size;
					after = f->name;
				}
				if (f->off > rel && f->off < end)
					end = f->off;
			}
			if (after)
				snprintf(out->field, sizeof(out->field), "(padding after %s)", after);
			else
				snprintf(out->field, sizeof(out->field), "(padding)");
			out->off = start;
			out->size = end - start;
		}
		return true;
	}
	return false;
}
