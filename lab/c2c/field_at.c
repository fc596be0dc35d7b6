// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "c2c/field_at.h"
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
		      struct field_hit *out);

static int name_level(const struct kbtf *k, int type_id, uint64_t off, const char *prefix,
		      struct field_hit *out)
{
	/* On the heap: ~150 KiB, too big for a thread's stack or static TLS. */
	struct level *lv = xmalloc(sizeof(*lv));
	struct kbtf_field hit, prev;
	bool have_hit = false, have_prev = false, later = false;
	long size = kbtf_type_size(k, type_id);

	if (size < 0 || off >= (uint64_t)size) {
		free(lv);
		return -1;
	}
	lv->n = 0;
	kbtf_walk_fields(k, type_id, 0, collect, lv);
	for (int i = 0; i < lv->n; i++) {
		const struct kbtf_field *f = &lv->f[i];

		if (f->size && f->offset <= off && off < f->offset + f->size) {
			if (!have_hit) {
				hit = *f;
				have_hit = true;
			}
		} else if (f->size && f->offset + f->size <= off) {
			if (!have_prev || f->offset + f->size >= prev.offset + prev.size)
				prev = *f;
			have_prev = true;
		} else if (f->offset > off) {
			later = true;
		}
	}
	if (!have_hit) {
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
	free(lv);
	{
		char name[256];
		const struct btf_type *decl;
		int decl_id;

		join(name, sizeof(name), prefix, hit.name);
		out->offset = hit.offset;
		out->size = hit.size;
		out->hole = false;
		snprintf(out->name, sizeof(out->name), "%s", name);
		decl = unqualified(k->btf, hit.type_id, &decl_id);
		if (!decl || btf_is_typedef(decl))
			return 0;	/* atomic_long_t, spinlock_t, ...: named whole */
		if (btf_is_array(decl)) {
			int r = name_array(k, decl_id, off - hit.offset, name, out);

			if (r == 0)
				out->offset += hit.offset;
			return r;
		}
		if (btf_is_composite(decl)) {
			struct field_hit sub;

			if (name_level(k, decl_id, off - hit.offset, name, &sub) == 0) {
				*out = sub;
				out->offset += hit.offset;
			}
		}
		return 0;
	}
}

static int name_array(const struct kbtf *k, int decl_id, uint64_t off, const char *name,
		      struct field_hit *out)
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

			if (name_level(k, decl_id, off, buf, &sub) == 0) {
				*out = sub;
				out->offset += base;
			}
			return 0;
		}
	}
	return 0;
}

int field_at(const struct kbtf *k, int type_id, uint64_t off, struct field_hit *out)
{
	const struct btf_type *t;

	type_id = kbtf_resolve(k, type_id);
	t = btf__type_by_id(k->btf, type_id);
	if (!t || !btf_is_composite(t))
		return -1;
	memset(out, 0, sizeof(*out));
	return name_level(k, type_id, off, "", out);
}
