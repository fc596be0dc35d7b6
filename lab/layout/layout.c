// SPDX-License-Identifier: GPL-2.0
/*
 * The layout model: built from BTF, written to and read back from a
 * capture directory, and printed as a per-cacheline map.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout.h"
#include "kernel/btf.h"
#include "kernel/features.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/strfmt.h"
#include "util/tsv.h"

const char *const layout_struct_names[LAYOUT_NSTRUCTS] = {
	"mem_cgroup", "page_counter", "memcg_stock_pcp", "obj_stock_pcp", "memcg_vmstats_percpu",
};

#define PERCPU_SEC ".data..percpu"

const struct lay_struct *layout_struct(const struct layout *lay, const char *name)
{
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		if (!strcmp(lay->s[i].name, name))
			return &lay->s[i];
	return NULL;
}

const struct lay_field *lay_find(const struct lay_struct *s, const char *name)
{
	for (int i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].name, name))
			return &s->fields[i];
	return NULL;
}

const char *lay_leaf(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

bool lay_is_leaf(const struct lay_field *f)
{
	return !f->expanded && f->size > 0;
}

const struct lay_field *lay_alias_of(const struct lay_struct *s, const struct lay_field *f)
{
	if (f->size == 0)
		return NULL;
	for (const struct lay_field *o = s->fields; o < f; o++)
		if (o->offset == f->offset && o->size == f->size && o->depth == f->depth &&
		    o->expanded == f->expanded && !strcmp(o->type, f->type) &&
		    (f->depth == 0 || !strcmp(lay_leaf(o->name), lay_leaf(f->name))))
			return o;
	return NULL;
}

/* "memory" is related to "memory", "memory.usage", and vice versa. */
bool lay_related(const struct lay_field *f, const char *name)
{
	size_t a = strlen(f->name), b = strlen(name);

	if (a == b)
		return !strcmp(f->name, name);
	if (a > b)
		return !strncmp(f->name, name, b) && f->name[b] == '.';
	return !strncmp(name, f->name, a) && name[a] == '.';
}

bool lay_lines(const struct lay_field *f, uint64_t base, int L, uint64_t *first, uint64_t *last)
{
	if (f->size == 0)
		return false;
	*first = (base + f->offset) / L;
	*last = (base + f->offset + f->size - 1) / L;
	return true;
}

uint64_t lay_ncachelines(uint64_t size, int L)
{
	return (size + L - 1) / L;
}

const char *lay_tag_name(enum lay_tag t)
{
	return t == LAY_TAG_HOT ? "hot-written" : t == LAY_TAG_READ ? "read-mostly" : "";
}

enum lay_tag lay_tag_of(const struct lay_tags *tags, const struct lay_struct *s, const struct lay_field *f)
{
	if (!tags)
		return LAY_TAG_NONE;
	for (int i = 0; i < tags->n; i++) {
		const struct lay_tag_entry *e = &tags->e[i];

		if (!strcmp(e->strukt, f->owner) && !strcmp(e->field, lay_leaf(f->name)))
			return e->tag;
		if (!strcmp(e->strukt, s->name) && !strcmp(e->field, f->name))
			return e->tag;
	}
	return LAY_TAG_NONE;
}

/* ---- from BTF ---------------------------------------------------------- */

struct collect {
	const struct kbtf *k;
	struct lay_struct *s;
	int cap;
	char skip[256];			/* members of a zero-size aggregate are dropped */
	char owner[LAYOUT_DEPTH + 2][128];	/* declaring struct per depth */
};

static void struct_name_of(const struct kbtf *k, int id, char *buf, size_t n)
{
	char t[128];

	kbtf_type_name(k, id, t, sizeof(t));
	if (!strncmp(t, "struct ", 7))
		snprintf(buf, n, "%s", t + 7);
	else if (!strncmp(t, "union ", 6))
		snprintf(buf, n, "%s", t + 6);
	else
		snprintf(buf, n, "%s", t);
}

static bool is_captured(const char *type)
{
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		if (!strcmp(layout_struct_names[i], type))
			return true;
	return false;
}

static int collect_field(const struct kbtf_field *kf, void *arg)
{
	struct collect *c = arg;
	struct lay_field *f;
	size_t sl = strlen(c->skip);

	if (sl && !strncmp(kf->name, c->skip, sl) && kf->name[sl] == '.')
		return 0;
	if (c->s->nfields == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->s->fields = xrealloc(c->s->fields, c->cap * sizeof(*f));
	}
	f = &c->s->fields[c->s->nfields++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", kf->name);
	snprintf(f->owner, sizeof(f->owner), "%s", c->owner[kf->depth]);
	kbtf_type_name(c->k, kf->type_id, f->type, sizeof(f->type));
	f->offset = kf->offset;
	f->size = kf->size;
	f->bit_offset = kf->bit_offset;
	f->bit_size = kf->bit_size;
	f->nelems = kf->nelems;
	if (kf->nelems) {
		long es = kbtf_type_size(c->k, kf->elem_id);

		f->elem_size = es > 0 ? (uint64_t)es : 0;
	}
	f->depth = kf->depth;
	if (kf->aggregate) {
		char type[128];

		/* Only the captured structs a struct embeds are expanded. */
		struct_name_of(c->k, kf->resolved_id, type, sizeof(type));
		if (kf->size > 0 && kf->depth < LAYOUT_DEPTH && is_captured(type)) {
			f->expanded = true;
			snprintf(c->owner[kf->depth + 1], sizeof(c->owner[0]), "%s", type);
		} else {
			snprintf(c->skip, sizeof(c->skip), "%s", kf->name);
		}
	}
	return 0;
}

void layout_from_btf(struct layout *lay, const struct kbtf *k)
{
	struct kfeatures kf;

	memset(lay, 0, sizeof(*lay));
	lay->origin = k->compression ? xasprintf("%s %s, %s-compressed", kbtf_source_name(k->source), k->path,
						 k->compression)
				     : xasprintf("%s %s", kbtf_source_name(k->source), k->path);
	lay->release = k->release ? xstrdup(k->release) : NULL;
	lay->percpu_datasec = kbtf_has_datasec(k, PERCPU_SEC);
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		struct lay_struct *s = &lay->s[i];
		int id = kbtf_find_struct(k, layout_struct_names[i]);
		struct collect c = { .k = k, .s = s };
		uint64_t off;

		s->name = layout_struct_names[i];
		s->percpu_offset = -1;
		if (id < 0)
			continue;
		s->present = true;
		s->size = (uint64_t)kbtf_type_size(k, id);
		snprintf(c.owner[0], sizeof(c.owner[0]), "%s", s->name);
		kbtf_walk_fields(k, id, LAYOUT_DEPTH, collect_field, &c);
		if (!kbtf_datasec_var_of_type(k, PERCPU_SEC, id, s->percpu_var, sizeof(s->percpu_var), &off))
			s->percpu_offset = (int64_t)off;
	}
	/* The cacheline size and lock debugging, as the rest of the lab sees them. */
	kfeatures_detect(&kf, k, NULL, NULL);
	lay->cacheline = kf.cacheline_size;
	snprintf(lay->cacheline_evidence, LAY_EVIDENCE, "%s", kf.cacheline_size_evidence);
	lay->lock_debug = kf.lock_debug;
	lay->lock_rt = kf.lock_rt;
	lay->lock_size = kf.lock_size;
	snprintf(lay->lock_debug_evidence, LAY_EVIDENCE, "%s", kf.lock_debug_evidence);
}

void layout_free(struct layout *lay)
{
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		free(lay->s[i].fields);
	free(lay->origin);
	free(lay->release);
	memset(lay, 0, sizeof(*lay));
}

/* ---- capture directory -------------------------------------------------- */

static FILE *open_out(const char *dir, const char *name, char *err, size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, name);
	/* Checked (util/outfile.h): a file that cannot be opened fails at close_out. */
	FILE *f = outfile_open(path, "w");

	(void)err;
	(void)errlen;
	free(path);
	return f;
}

static int close_out(FILE *f, const char *dir, const char *name, char *err, size_t errlen)
{
	if (outfile_close(f)) {
		snprintf(err, errlen, "%s/%s: cannot write: %s", dir, name, strerror(errno));
		return -1;
	}
	return 0;
}

/* The capture's three files: their columns, as written and read back. */
static const char *const meta_cols[] = { "key", "value", NULL };
static const char *const struct_cols[] = { "struct", "present", "size", "cachelines", "percpu_var", "percpu_offset",
					   NULL };
static const char *const field_cols[] = { "struct", "field", "owner", "offset", "size", "bit_offset", "bit_size",
					  "nelems", "elem_size", "depth", "expanded", "type", NULL };

int layout_write_capture(const struct layout *lay, const struct lay_tags *tags, const char *dir,
			 char *err, size_t errlen)
{
	FILE *f;
	int r;

	r = mkdir_p(dir, 0755);
	if (r) {
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-r));
		return -1;
	}
	if (!(f = open_out(dir, "meta.tsv", err, errlen)))
		return -1;
	tsv_write_header(f, meta_cols);
	/* The origin and evidence name files, which may hold a tab or newline:
	 * util/tsv.h's writer makes each a space. */
	tsv_write_row(f, "release\t%s\n", lay->release ? lay->release : "");
	tsv_write_row(f, "origin\t%s\n", lay->origin);
	tsv_write_row(f, "cacheline\t%d\n", lay->cacheline);
	tsv_write_row(f, "cacheline_evidence\t%s\n", lay->cacheline_evidence);
	tsv_write_row(f, "lock_debug\t%d\n", lay->lock_debug);
	tsv_write_row(f, "lock_debug_evidence\t%s\n", lay->lock_debug_evidence);
	tsv_write_row(f, "lock_rt\t%d\n", lay->lock_rt);
	tsv_write_row(f, "lock_size\t%d\n", lay->lock_size);
	tsv_write_row(f, "percpu_datasec\t%d\n", lay->percpu_datasec);
	if (close_out(f, dir, "meta.tsv", err, errlen))
		return -1;

	if (!(f = open_out(dir, "structs.tsv", err, errlen)))
		return -1;
	tsv_write_header(f, struct_cols);
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		const struct lay_struct *s = &lay->s[i];

		tsv_write_row(f, "%s\t%d\t%" PRIu64 "\t%" PRIu64 "\t%s\t%" PRId64 "\n", s->name, s->present,
			s->size, lay_ncachelines(s->size, lay->cacheline),
			s->percpu_var[0] ? s->percpu_var : "-", s->percpu_offset);
	}
	if (close_out(f, dir, "structs.tsv", err, errlen))
		return -1;

	if (!(f = open_out(dir, "fields.tsv", err, errlen)))
		return -1;
	tsv_write_header(f, field_cols);
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		const struct lay_struct *s = &lay->s[i];

		for (int j = 0; j < s->nfields; j++) {
			const struct lay_field *x = &s->fields[j];

			tsv_write_row(f, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%u\t%u\t%u\t%" PRIu64 "\t%d\t%d\t%s\n",
				s->name, x->name, x->owner, x->offset, x->size, x->bit_offset, x->bit_size,
				x->nelems, x->elem_size, x->depth, x->expanded, x->type);
		}
	}
	if (close_out(f, dir, "fields.tsv", err, errlen))
		return -1;

	if (!(f = open_out(dir, "cachelines.txt", err, errlen)))
		return -1;
	fprintf(f, "# Per-cacheline map of the memcg structs: %s\n",
		lay->release ? lay->release : "(release unknown)");
	fprintf(f, "# from %s\n", lay->origin);
	fprintf(f, "# cacheline %d B (%s)\n", lay->cacheline, lay->cacheline_evidence);
	fprintf(f, "# Each row: a cacheline, its bytes, and every field on it as name@offset+size;\n"
		   "# [w] hot-written, [r] read-mostly (layouts/rules.conf), <name: continued from the\n"
		   "# line above, |name: zero-size padding marker.  Offsets and sizes from BTF.\n");
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		fputc('\n', f);
		layout_print_map(f, lay, &lay->s[i], tags);
	}
	return close_out(f, dir, "cachelines.txt", err, errlen);
}

/* Reading a capture back: every value is checked, and a bad one is named
 * by file, line and column (a capture is a file users keep in their own
 * trees, edit by hand and merge).  Limits: far above any real kernel's
 * struct (mem_cgroup is 2-9 KiB even with lockdep), low enough that the
 * map and the diff stay small on a hostile file. */
#define CAPTURE_MAX_SIZE (1 << 20)

struct row_ctx {
	struct layout *lay;
	char *why;
	size_t whylen;
};

static int num(struct row_ctx *c, const char *col, const char *v, long min, long max, long *out)
{
	if (parse_long(v, min, max, out)) {
		snprintf(c->why, c->whylen, "%s '%.40s': expected an integer from %ld to %ld", col, v, min, max);
		return -1;
	}
	return 0;
}

static int text_col(struct row_ctx *c, const char *col, const char *v, char *dst, size_t n)
{
	if (!v[0] || strlen(v) >= n) {
		snprintf(c->why, c->whylen, "%s '%.40s': %s", col, v, v[0] ? "too long" : "empty");
		return -1;
	}
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

/* Calls fn for every data row of text (the file dir/name), its columns
 * cols[] found by the header's names (util/tsv.h); the message names the
 * file, the line and the column. */
static int read_tsv(const char *dir, const char *name, const char *text, const char *const *cols,
		    int (*fn)(char **col, struct row_ctx *c), struct row_ctx *c, char *err, size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, name), why[256] = "";
	struct tsv t;
	int r;

	c->why = why;
	c->whylen = sizeof(why);
	r = tsv_open_text(&t, path, text, strlen(text), cols, 0, err, errlen);
	while (!r && (r = tsv_next(&t)) == TSV_ROW) {
		char *col[16];

		for (int i = 0; cols[i] && i < 16; i++)
			col[i] = (char *)tsv_get(&t, i);
		r = fn(col, c) ? tsv_fail(&t, -1, "%s", why) : 0;
	}
	tsv_close(&t);
	free(path);
	return r < 0 ? -1 : 0;
}

static int read_meta_row(char **col, struct row_ctx *c)
{
	struct layout *lay = c->lay;
	long v;

	if (!strcmp(col[0], "release")) {
		free(lay->release);
		lay->release = col[1][0] ? xstrdup(col[1]) : NULL;
	} else if (!strcmp(col[0], "cacheline")) {
		if (num(c, "cacheline", col[1], 8, 4096, &v))
			return -1;
		if (v & (v - 1)) {
			snprintf(c->why, c->whylen, "cacheline '%s': not a power of two", col[1]);
			return -1;
		}
		lay->cacheline = (int)v;
	} else if (!strcmp(col[0], "cacheline_evidence")) {
		snprintf(lay->cacheline_evidence, LAY_EVIDENCE, "%s", col[1]);
	} else if (!strcmp(col[0], "lock_debug")) {
		if (num(c, "lock_debug", col[1], 0, 1, &v))
			return -1;
		lay->lock_debug = v;
	} else if (!strcmp(col[0], "lock_rt")) {	/* absent from captures before 7.x support */
		if (num(c, "lock_rt", col[1], 0, 1, &v))
			return -1;
		lay->lock_rt = v;
	} else if (!strcmp(col[0], "lock_size")) {
		if (num(c, "lock_size", col[1], -1, 4096, &v))
			return -1;
		lay->lock_size = (int)v;
	} else if (!strcmp(col[0], "lock_debug_evidence")) {
		snprintf(lay->lock_debug_evidence, LAY_EVIDENCE, "%s", col[1]);
	} else if (!strcmp(col[0], "percpu_datasec")) {
		if (num(c, "percpu_datasec", col[1], 0, 1, &v))
			return -1;
		lay->percpu_datasec = v;
	}
	return 0;
}

static struct lay_struct *struct_by_name(struct layout *lay, const char *name)
{
	return (struct lay_struct *)layout_struct(lay, name);
}

static struct lay_struct *known_struct(struct row_ctx *c, const char *name)
{
	struct lay_struct *s = struct_by_name(c->lay, name);

	if (!s)
		snprintf(c->why, c->whylen, "struct '%.40s': not one of the structs the lab captures", name);
	return s;
}

static int read_struct_row(char **col, struct row_ctx *c)
{
	struct lay_struct *s = known_struct(c, col[0]);
	long present, size, lines, off;

	if (!s || num(c, "present", col[1], 0, 1, &present) ||
	    num(c, "size", col[2], 0, CAPTURE_MAX_SIZE, &size) ||
	    num(c, "cachelines", col[3], 0, CAPTURE_MAX_SIZE, &lines) ||
	    num(c, "percpu_offset", col[5], -1, 1L << 30, &off))
		return -1;
	if ((uint64_t)lines != lay_ncachelines((uint64_t)size, c->lay->cacheline)) {
		snprintf(c->why, c->whylen, "cachelines %ld: a %ld-byte struct spans %" PRIu64 " lines of %d bytes",
			 lines, size, lay_ncachelines((uint64_t)size, c->lay->cacheline), c->lay->cacheline);
		return -1;
	}
	if (!present && size) {
		snprintf(c->why, c->whylen, "size %ld for a struct that is not present", size);
		return -1;
	}
	s->present = present;
	s->size = (uint64_t)size;
	snprintf(s->percpu_var, sizeof(s->percpu_var), "%s", strcmp(col[4], "-") ? col[4] : "");
	s->percpu_offset = off;
	return 0;
}

static int read_field_row(char **col, struct row_ctx *c)
{
	struct lay_struct *s = known_struct(c, col[0]);
	struct lay_field f;
	long off, size, bo, bs, ne, es, depth, exp;

	if (!s)
		return -1;
	if (!s->present) {
		snprintf(c->why, c->whylen, "a field of struct %s, which structs.tsv says is not present", s->name);
		return -1;
	}
	memset(&f, 0, sizeof(f));
	if (text_col(c, "field", col[1], f.name, sizeof(f.name)) ||
	    text_col(c, "owner", col[2], f.owner, sizeof(f.owner)) ||
	    num(c, "offset", col[3], 0, (long)s->size, &off) ||
	    num(c, "size", col[4], 0, (long)s->size - off, &size) ||
	    num(c, "bit_offset", col[5], 0, 7, &bo) ||
	    num(c, "bit_size", col[6], 0, 64, &bs) ||
	    num(c, "nelems", col[7], 0, CAPTURE_MAX_SIZE, &ne) ||
	    num(c, "elem_size", col[8], 0, CAPTURE_MAX_SIZE, &es) ||
	    num(c, "depth", col[9], 0, LAYOUT_DEPTH, &depth) ||
	    num(c, "expanded", col[10], 0, 1, &exp) ||
	    text_col(c, "type", col[11], f.type, sizeof(f.type)))
		return -1;
	/* How kernel/btf.c writes them: a bitfield's bytes cover its bits;
	 * an array is nelems elements (elem_size 0: not known). */
	if (bs && size != (bo + bs + 7) / 8) {
		snprintf(c->why, c->whylen, "size %ld: a %ld-bit field at bit %ld takes %ld bytes",
			 size, bs, bo, (bo + bs + 7) / 8);
		return -1;
	}
	if (ne && es && ne * es != size) {
		snprintf(c->why, c->whylen, "size %ld: %ld elements of %ld bytes take %ld", size, ne, es, ne * es);
		return -1;
	}
	f.offset = (uint64_t)off;
	f.size = (uint64_t)size;
	f.bit_offset = (uint32_t)bo;
	f.bit_size = (uint32_t)bs;
	f.nelems = (uint32_t)ne;
	f.elem_size = (uint64_t)es;
	f.depth = (int)depth;
	f.expanded = exp;
	s->fields = xrealloc(s->fields, (s->nfields + 1) * sizeof(f));
	s->fields[s->nfields++] = f;
	return 0;
}

int layout_parse_capture(struct layout *lay, const char *dir, const char *meta, const char *structs,
			 const char *fields, char *err, size_t errlen)
{
	struct row_ctx c = { .lay = lay };

	memset(lay, 0, sizeof(*lay));
	lay->lock_size = -1;	/* captures made before lock_size was written */
	lay->origin = xasprintf("capture %s", dir);
	for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
		lay->s[i].name = layout_struct_names[i];
		lay->s[i].percpu_offset = -1;
	}
	if (read_tsv(dir, "meta.tsv", meta, meta_cols, read_meta_row, &c, err, errlen))
		return -1;
	if (lay->cacheline <= 0) {
		snprintf(err, errlen, "%s/meta.tsv: no cacheline size", dir);
		return -1;
	}
	if (read_tsv(dir, "structs.tsv", structs, struct_cols, read_struct_row, &c, err, errlen) ||
	    read_tsv(dir, "fields.tsv", fields, field_cols, read_field_row, &c, err, errlen))
		return -1;
	return 0;
}

int layout_load_capture(struct layout *lay, const char *dir, char *err, size_t errlen)
{
	static const char *const names[3] = { "meta.tsv", "structs.tsv", "fields.tsv" };
	char *text[3] = { NULL, NULL, NULL };
	int r = 0;

	for (int i = 0; i < 3 && !r; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		text[i] = read_text(path, NULL);
		if (!text[i]) {
			snprintf(err, errlen, "%s: not a layout capture: cannot read %s: %s", dir, names[i],
				 strerror(errno));
			r = -1;
		}
		free(path);
	}
	if (r) {
		/* The model stays freeable, as after a failed parse. */
		memset(lay, 0, sizeof(*lay));
	} else {
		r = layout_parse_capture(lay, dir, text[0], text[1], text[2], err, errlen);
	}
	for (int i = 0; i < 3; i++)
		free(text[i]);
	return r;
}

/* ---- the map ------------------------------------------------------------ */

static uint64_t percpu_base(const struct layout *lay, const struct lay_struct *s)
{
	return s->percpu_offset >= 0 ? (uint64_t)s->percpu_offset % lay->cacheline : 0;
}

void layout_print_map(FILE *out, const struct layout *lay, const struct lay_struct *s,
		      const struct lay_tags *tags)
{
	int L = lay->cacheline;
	uint64_t nlines;

	if (!s->present) {
		fprintf(out, "struct %s: absent\n", s->name);
		return;
	}
	nlines = lay_ncachelines(s->size, L);
	fprintf(out, "struct %s: %" PRIu64 " B, %" PRIu64 " cacheline%s of %d B", s->name, s->size,
		nlines, nlines == 1 ? "" : "s", L);
	if (s->percpu_offset >= 0)
		fprintf(out, "; per-cpu %s at %s+%" PRId64 " (%" PRIu64 " mod %d; the lines below "
			"are from the struct's start)", s->percpu_var, PERCPU_SEC, s->percpu_offset,
			percpu_base(lay, s), L);
	fputc('\n', out);
	for (uint64_t line = 0; line < nlines; line++) {
		uint64_t lo = line * L, hi = lo + L - 1;
		int shown = 0;

		if (hi >= s->size)
			hi = s->size - 1;
		fprintf(out, "  %3" PRIu64 " [%" PRIu64 "-%" PRIu64 "]", line, lo, hi);
		for (int i = 0; i < s->nfields; i++) {
			const struct lay_field *f = &s->fields[i];
			uint64_t a, b;
			enum lay_tag t;

			if (f->expanded)
				continue;
			if (f->size == 0) {
				if (f->offset >= lo && f->offset <= hi) {
					fprintf(out, " |%s", f->name);
					shown++;
				}
				continue;
			}
			lay_lines(f, 0, L, &a, &b);
			if (line < a || line > b)
				continue;
			shown++;
			if (line > a) {
				fprintf(out, " <%s", f->name);
				continue;
			}
			fprintf(out, " %s@%" PRIu64 "+%" PRIu64, f->name, f->offset, f->size);
			if (f->bit_size)
				fprintf(out, ":%u.%u", f->bit_offset, f->bit_size);
			t = lay_tag_of(tags, s, f);
			if (t != LAY_TAG_NONE)
				fprintf(out, "[%c]", t == LAY_TAG_HOT ? 'w' : 'r');
		}
		if (!shown)
			fprintf(out, " (padding)");
		fputc('\n', out);
	}
}
