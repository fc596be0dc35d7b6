// SPDX-License-Identifier: GPL-2.0
/* Naming the member at a byte of a struct from BTF (c2c/field_at.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "c2c/field_at.h"
#include "kernel/cgroup.h"
#include "util/err.h"

#define MAX_LEVEL_FIELDS 512

struct level {
	struct kbtf_field f[MAX_LEVEL_FIELDS];
	int n;
};

static int collect(const struct kbtf_field *f, void *arg)
{
	struct level *l = arg;

	if (l->n < MAX_LEVEL_FIELDS)
		l->f[l->n++] = *f;
	return 0;
}

/* Strips const/volatile/restrict/type tags, but not typedefs. */
static const struct btf_type *unqualified(const struct btf *btf, int id, int *out_id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && btf_is_mod(t)) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (out_id)
		*out_id = id;
	return t;
}

/* "prefix.name"; a name too long for the buffer is cut (BTF names are short). */
static void join(char *dst, size_t n, const char *prefix, const char *name)
{
	int r;

	if (prefix[0])
		r = snprintf(dst, n, "%s.%s", prefix, name);
	else
		r = snprintf(dst, n, "%s", name);
	if (r < 0 || (size_t)r >= n)
		dst[n - 1] = '\0';
}

/*
 * Array element naming: "cached[3]", then into the element when it is a
 * plain (not typedef'd) struct.  Multi-dimensional arrays index each level.
 */
static int name_array(const struct kbtf *k, int decl_id, uint64_t off, const char *name,
		      enum field_cgroup cg, struct field_hit *out);

/*
 * The union members the kernel uses by cgroup version; every other
 * overlap is named by all its members.
 *
 * mem_cgroup's anonymous union { struct page_counter swap; struct
 * page_counter memsw; } (every layout from 5.10 to 7.3): memsw counts
 * memory+swap on cgroup v1, swap counts swap alone on v2.  In
 * torvalds/linux, mm/memcontrol-v1.h: do_memsw_account() is
 * !cgroup_subsys_on_dfl(memory_cgrp_subsys), true on v1 alone (false
 * without CONFIG_MEMCG_V1); mm/memcontrol.c: try_charge_memcg() charges
 * &memcg->memsw only when do_memsw_account(), __mem_cgroup_try_charge_swap()
 * returns at once when do_memsw_account() and charges &memcg->swap
 * otherwise, and __mem_cgroup_uncharge_swap() uncharges memsw or swap by
 * the same test.
 */
static const struct live_member {
	const char *st;		/* the struct whose level holds the members */
	const char *v1, *v2;	/* the member live on cgroup v1, on v2 */
} live_members[] = {
	{ "mem_cgroup", "memsw", "swap" },
};

/* Index into hits[] of the member live on cg, or -1 when the table has
 * no entry for this struct and these members, or cg is unknown. */
static int live_hit(const struct kbtf *k, int type_id, const struct level *lv, const int *hits, int nh,
		    enum field_cgroup cg)
{
	const struct btf_type *t = btf__type_by_id(k->btf, type_id);
	const char *st = t ? btf__name_by_offset(k->btf, t->name_off) : NULL;

	if (!st || cg == FIELD_CG_UNKNOWN)
		return -1;
	for (size_t r = 0; r < sizeof(live_members) / sizeof(live_members[0]); r++) {
		const struct live_member *m = &live_members[r];
		int i1 = -1, i2 = -1;

		if (strcmp(m->st, st))
			continue;
		for (int i = 0; i < nh; i++) {
			if (!strcmp(lv->f[hits[i]].name, m->v1))
				i1 = i;
			else if (!strcmp(lv->f[hits[i]].name, m->v2))
				i2 = i;
		}
		if (i1 >= 0 && i2 >= 0 && nh == 2)
			return cg == FIELD_CG_V1 ? i1 : i2;
	}
	return -1;
}

static int name_level(const struct kbtf *k, int type_id, uint64_t off, const char *prefix,
		      enum field_cgroup cg, struct field_hit *out)
{
	/* On the heap: ~150 KiB, too big for a thread's stack or static TLS. */
	struct level *lv = xmalloc(sizeof(*lv));
	struct kbtf_field hit, prev;
	bool have_prev = false, later = false, same = true;
	long size = kbtf_type_size(k, type_id);
	int hits[MAX_LEVEL_FIELDS], nh = 0, pick;
	char members[256] = "";
	uint64_t lo = UINT64_MAX, hi = 0;

	if (size < 0 || off >= (uint64_t)size) {
		free(lv);
		return -1;
	}
	lv->n = 0;
	kbtf_walk_fields(k, type_id, 0, collect, lv);
	for (int i = 0; i < lv->n; i++) {
		const struct kbtf_field *f = &lv->f[i];

		if (f->size && f->offset <= off && off < f->offset + f->size) {
			hits[nh++] = i;
		} else if (f->size && f->offset + f->size <= off) {
			if (!have_prev || f->offset + f->size >= prev.offset + prev.size)
				prev = *f;
			have_prev = true;
		} else if (f->offset > off) {
			later = true;
		}
	}
	if (!nh) {
		char what[300];

		snprintf(what, sizeof(what), "(%s after %s)", later ? "hole" : "padding",
			 have_prev ? prev.name : "start");
		join(out->name, sizeof(out->name), prefix, what);
		out->hole = true;
		out->offset = have_prev ? prev.offset + prev.size : 0;
		out->size = 0;
		/* The hole runs up to the next member (or the end). */
		{
			uint64_t end = (uint64_t)size;

			for (int i = 0; i < lv->n; i++)
				if (lv->f[i].size && lv->f[i].offset > off && lv->f[i].offset < end)
					end = lv->f[i].offset;
			out->size = end - out->offset;
		}
		free(lv);
		return 0;
	}
	/*
	 * Members that overlap (a union's): the one live on this cgroup
	 * version where the table knows it, else all of them, '|'-joined,
	 * descending further only where they are alike (the same type at
	 * the same place: "swap|memsw.usage").
	 */
	pick = nh == 1 ? 0 : live_hit(k, type_id, lv, hits, nh, cg);
	hit = lv->f[hits[pick >= 0 ? pick : 0]];
	if (pick < 0) {
		for (int i = 0; i < nh; i++) {
			const struct kbtf_field *f = &lv->f[hits[i]];
			size_t len = strlen(members);

			snprintf(members + len, sizeof(members) - len, "%s%s", i ? "|" : "", f->name);
			same &= f->type_id == hit.type_id && f->offset == hit.offset && f->size == hit.size;
			lo = f->offset < lo ? f->offset : lo;
			hi = f->offset + f->size > hi ? f->offset + f->size : hi;
		}
	}
	free(lv);
	{
		char name[256];
		const struct btf_type *decl;
		int decl_id;

		join(name, sizeof(name), prefix, pick >= 0 ? hit.name : members);
		out->offset = hit.offset;
		out->size = hit.size;
		out->hole = false;
		snprintf(out->name, sizeof(out->name), "%s", name);
		if (!same) {
			/* Unlike members: the bytes of all of them, named together. */
			out->offset = lo;
			out->size = hi - lo;
			return 0;
		}
		decl = unqualified(k->btf, hit.type_id, &decl_id);
		if (!decl || btf_is_typedef(decl))
			return 0;	/* atomic_long_t, spinlock_t, ...: named whole */
		if (btf_is_array(decl)) {
			int r = name_array(k, decl_id, off - hit.offset, name, cg, out);

			if (r == 0)
				out->offset += hit.offset;
			return r;
		}
		if (btf_is_composite(decl)) {
			struct field_hit sub;

			if (name_level(k, decl_id, off - hit.offset, name, cg, &sub) == 0) {
				*out = sub;
				out->offset += hit.offset;
			}
		}
		return 0;
	}
}

static int name_array(const struct kbtf *k, int decl_id, uint64_t off, const char *name,
		      enum field_cgroup cg, struct field_hit *out)
{
	const struct btf_type *t = btf__type_by_id(k->btf, decl_id);
	uint64_t base = 0;
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", name);
	while (t && btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		long esz = kbtf_type_size(k, a->type);
		uint64_t idx;
		size_t len = strlen(buf);

		if (esz <= 0 || !a->nelems)
			break;
		idx = off / (uint64_t)esz;
		snprintf(buf + len, sizeof(buf) - len, "[%llu]", (unsigned long long)idx);
		base += idx * (uint64_t)esz;
		off -= idx * (uint64_t)esz;
		decl_id = a->type;
		t = unqualified(k->btf, decl_id, &decl_id);
		snprintf(out->name, sizeof(out->name), "%s", buf);
		out->offset = base;
		out->size = (uint64_t)esz;
		if (t && !btf_is_typedef(t) && btf_is_composite(t)) {
			struct field_hit sub;

			if (name_level(k, decl_id, off, buf, cg, &sub) == 0) {
				*out = sub;
				out->offset += base;
			}
			return 0;
		}
	}
	return 0;
}

int field_at(const struct kbtf *k, int type_id, uint64_t off, enum field_cgroup cg, struct field_hit *out)
{
	const struct btf_type *t;

	type_id = kbtf_resolve(k, type_id);
	t = btf__type_by_id(k->btf, type_id);
	if (!t || !btf_is_composite(t))
		return -1;
	memset(out, 0, sizeof(*out));
	return name_level(k, type_id, off, "", cg, out);
}

const char *field_cgroup_name(enum field_cgroup cg)
{
	return cg == FIELD_CG_V1 ? "v1" : cg == FIELD_CG_V2 ? "v2" : "";
}

int field_cgroup_parse(const char *s, enum field_cgroup *cg)
{
	if (!strcmp(s, "v1"))
		*cg = FIELD_CG_V1;
	else if (!strcmp(s, "v2"))
		*cg = FIELD_CG_V2;
	else if (!s[0])
		*cg = FIELD_CG_UNKNOWN;
	else
		return -1;
	return 0;
}

enum field_cgroup field_cgroup_of(const struct cg_env *env)
{
	if (!env || env->mode == CG_NONE)
		return FIELD_CG_UNKNOWN;
	return env->memory_v2 ? FIELD_CG_V2 : FIELD_CG_V1;
}
