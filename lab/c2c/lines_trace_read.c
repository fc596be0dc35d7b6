// SPDX-License-Identifier: GPL-2.0
/* The lines plugin's access trace read back (c2c/lines_trace_read.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "c2c/lines_model.h"
#include "c2c/lines_session.h"
#include "c2c/lines_trace_read.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/tsv.h"

#define HDR sizeof(struct lines_trace_header)
#define REC sizeof(struct lines_trace_rec)
#define U(x) ((unsigned long long)(x))

const char *lines_trace_status_name(uint32_t status)
{
	switch (status) {
	case LINES_TRACE_WRITING:
		return "writing";
	case LINES_TRACE_COMPLETE:
		return "complete";
	case LINES_TRACE_FULL:
		return "full";
	default:
		return "unknown";
	}
}

/* Every check of the header and the records; t->path set. */
static int validate(struct lines_trace *t, const unsigned char *data, size_t size, char *err, size_t errlen)
{
	struct lines_trace_header *h = &t->hdr;
	uint64_t whole;

	if (size < HDR)
		return set_err(err, errlen, "%s: cut off: %zu bytes, shorter than the %zu-byte header of a lines trace",
			       t->path, size, HDR);
	memcpy(h, data, HDR);
	if (memcmp(h->magic, LINES_TRACE_MAGIC, sizeof(h->magic)))
		return set_err(err, errlen, "%s: not a lines trace (no MLTRACE magic)", t->path);
	if (h->version != LINES_TRACE_VERSION)
		return set_err(err, errlen, "%s: trace format version %u; this memcg-lab reads version %d", t->path,
			       h->version, LINES_TRACE_VERSION);
	if (h->record_size != REC)
		return set_err(err, errlen, "%s: header field record_size: %u, not %zu", t->path, h->record_size, REC);
	whole = (size - HDR) / REC;
	if (h->status == LINES_TRACE_WRITING)
		return set_err(err, errlen, "%s: cut off: the plugin did not finish the trace (status writing): %llu "
			       "whole records", t->path, U(whole));
	if (h->status != LINES_TRACE_COMPLETE && h->status != LINES_TRACE_FULL)
		return set_err(err, errlen, "%s: header field status: %u is not complete (1) or full (2)", t->path,
			       h->status);
	if (h->nrecords > h->cap)
		return set_err(err, errlen, "%s: header field nrecords: %llu, more than its cap of %llu", t->path,
			       U(h->nrecords), U(h->cap));
	if (h->nrecords > (UINT64_MAX - HDR) / REC || size != HDR + h->nrecords * REC)
		return set_err(err, errlen, "%s: cut off: %llu whole records of the %llu its header announces "
			       "(%zu bytes)", t->path, U(whole), U(h->nrecords), size);
	if (h->status == LINES_TRACE_COMPLETE && h->dropped)
		return set_err(err, errlen, "%s: header field dropped: %llu in a trace whose status is complete",
			       t->path, U(h->dropped));
	if (!h->vcpus || h->vcpus > LINES_MAX_VCPUS)
		return set_err(err, errlen, "%s: header field vcpus: %u, not 1 to %d", t->path, h->vcpus,
			       LINES_MAX_VCPUS);
	t->rec = (const struct lines_trace_rec *)(data + HDR);
	for (uint64_t i = 0; i < h->nrecords; i++) {
		struct lines_trace_rec r;
		const char *field = NULL;

		memcpy(&r, data + HDR + i * REC, REC);
		if (r.vcpu >= h->vcpus)
			field = "vcpu";
		else if (!r.size || r.size > LINES_LINE_SIZE || (r.vaddr & (LINES_LINE_SIZE - 1)) + r.size > LINES_LINE_SIZE)
			field = "size";
		else if (r.flags & ~LINES_TRACE_STORE)
			field = "flags";
		else if (r.pad)
			field = "pad";
		if (field)
			return set_err(err, errlen, "%s: record %llu: field %s: vcpu %u (of %u), size %u at line offset "
				       "%u, flags 0x%x, pad %u", t->path, U(i), field, r.vcpu, h->vcpus, r.size,
				       (unsigned)(r.vaddr & (LINES_LINE_SIZE - 1)), r.flags, r.pad);
	}
	t->next = 0;
	return 0;
}

int lines_trace_open_mem(struct lines_trace *t, const char *name, const void *data, size_t size, char *err,
			 size_t errlen)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", name);
	/* Records are read in place: 8-byte fields want 8-byte alignment. */
	if ((uintptr_t)data % 8)
		return set_err(err, errlen, "%s: buffer not 8-byte aligned", name);
	if (validate(t, data, size, err, errlen) < 0) {
		t->rec = NULL;
		return -1;
	}
	return 0;
}

int lines_trace_open(struct lines_trace *t, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		e = errno;
		close(fd);
		return set_err(err, errlen, "%s: %s", path, S_ISREG(st.st_mode) ? strerror(e) : "not a file");
	}
	if (st.st_size) {
		t->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (t->map == MAP_FAILED) {
			e = errno;
			close(fd);
			t->map = NULL;
			return set_err(err, errlen, "%s: cannot map: %s", path, strerror(e));
		}
		t->map_len = (size_t)st.st_size;
		madvise(t->map, t->map_len, MADV_SEQUENTIAL);
	}
	close(fd);
	if (validate(t, t->map ? t->map : "", t->map_len, err, errlen) < 0) {
		lines_trace_close(t);
		return -1;
	}
	return 0;
}

const struct lines_trace_rec *lines_trace_next(struct lines_trace *t)
{
	if (!t->rec || t->next >= t->hdr.nrecords)
		return NULL;
	return &t->rec[t->next++];
}

const struct lines_trace_rec *lines_trace_at(const struct lines_trace *t, uint64_t seq)
{
	return t->rec && seq < t->hdr.nrecords ? &t->rec[seq] : NULL;
}

void lines_trace_rewind(struct lines_trace *t)
{
	t->next = 0;
}

void lines_trace_close(struct lines_trace *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	t->map = NULL;
	t->map_len = 0;
	t->rec = NULL;
	t->next = 0;
}

bool lines_trace_full(const struct lines_trace *t, char *note, size_t n)
{
	if (t->hdr.status != LINES_TRACE_FULL)
		return false;
	snprintf(note, n, "%s: the trace is full: its cap of %llu records was reached; %llu more accesses were not "
		 "written (a larger cap: --lines-opts trace=N)", t->path, U(t->hdr.cap), U(t->hdr.dropped));
	return true;
}

/* ---- objects ---- */

static const char *const obj_cols[] = { "window", "label", "type", "address", "size", "source", NULL };
static const char *const rng_cols[] = { "window", "name", "address", "size", "stride", "fields", NULL };

static struct lines_trace_obj *obj_add(struct lines_trace_objs *o)
{
	o->v = xrealloc(o->v, (o->n + 1) * sizeof(*o->v));
	memset(&o->v[o->n], 0, sizeof(o->v[o->n]));
	return &o->v[o->n++];
}

/* A window number as plugin records carry it (32 bits). */
static int window_of(struct tsv *t, uint32_t *w)
{
	uint64_t v;

	if (tsv_u64(t, 0, &v) < 0)
		return -1;
	if (v > UINT32_MAX)
		return tsv_fail(t, 0, "%llu is not a window number", U(v));
	*w = (uint32_t)v;
	return 0;
}

/* dir's file name by columns: absent, no rows (a run that had none). */
static int open_guest_tsv(struct tsv *t, const char *p, const char *const *cols, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	return path_exists(p) ? tsv_open(t, p, cols, 0, err, errlen) : 0;
}

static int load_objs(struct lines_trace_objs *o, const char *dir, char *err, size_t errlen)
{
	char *p = xasprintf("%s/" LINES_OBJECTS_FILE, dir);
	struct tsv t;
	int rc = open_guest_tsv(&t, p, obj_cols, err, errlen), r;

	while (!rc && (r = tsv_next(&t)) != TSV_END) {
		uint32_t w = 0;
		uint64_t addr = 0, size = 0;
		struct lines_trace_obj *x;

		if (r < 0 || window_of(&t, &w) || tsv_u64(&t, 3, &addr) || tsv_u64(&t, 4, &size)) {
			rc = -1;
			break;
		}
		if (!size || addr + size < addr) {
			rc = tsv_fail(&t, 4, "%llu at 0x%llx is no object", U(size), U(addr));
			break;
		}
		x = obj_add(o);
		*x = (struct lines_trace_obj){ .window = w, .label = xstrdup(tsv_get(&t, 1)),
					       .type = xstrdup(tsv_get(&t, 2)), .base = addr, .size = size,
					       .stride = size, .source = xstrdup(tsv_get(&t, 5)),
					       .file = LINES_OBJECTS_FILE, .line = t.lineno };
	}
	tsv_close(&t);
	free(p);
	return rc;
}

static int load_ranges(struct lines_trace_objs *o, const char *dir, char *err, size_t errlen)
{
	char *p = xasprintf("%s/" LINES_RANGES_FILE, dir);
	struct tsv t;
	int rc = open_guest_tsv(&t, p, rng_cols, err, errlen), r;

	while (!rc && (r = tsv_next(&t)) != TSV_END) {
		uint32_t w = 0;
		uint64_t addr = 0, size = 0, stride = 0;
		struct lines_trace_obj *x;

		if (r < 0 || window_of(&t, &w) || tsv_u64(&t, 2, &addr) || tsv_u64(&t, 3, &size) ||
		    tsv_u64(&t, 4, &stride)) {
			rc = -1;
			break;
		}
		if (!size || !stride || addr + size < addr) {
			rc = tsv_fail(&t, size ? 4 : 3, "0 is no range");
			break;
		}
		x = obj_add(o);
		*x = (struct lines_trace_obj){ .window = w, .label = xstrdup("-"), .type = xstrdup(tsv_get(&t, 1)),
					       .base = addr, .size = size, .stride = stride, .range = true,
					       .source = xstrdup("-"), .fields = xstrdup(tsv_get(&t, 5)),
					       .file = LINES_RANGES_FILE, .line = t.lineno };
	}
	tsv_close(&t);
	free(p);
	return rc;
}

static int obj_cmp(const void *a, const void *b)
{
	const struct lines_trace_obj *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

int lines_trace_objs_load(struct lines_trace_objs *o, const char *lines_dir, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (load_objs(o, lines_dir, err, errlen) < 0 || load_ranges(o, lines_dir, err, errlen) < 0) {
		lines_trace_objs_free(o);
		return -1;
	}
	if (o->n)
		qsort(o->v, o->n, sizeof(*o->v), obj_cmp);
	return 0;
}

const struct lines_trace_obj *lines_trace_obj_of(const struct lines_trace_objs *o, uint32_t window, uint64_t vaddr,
						 uint64_t *off)
{
	size_t lo = 0, hi = o->n;

	/* The last object of window whose base is <= vaddr... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lines_trace_obj *x = &o->v[mid];

		if (x->window < window || (x->window == window && x->base <= vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ...or one before it that still holds vaddr (objects may nest:
	 * the innermost, the one starting last, wins). */
	while (lo-- > 0) {
		const struct lines_trace_obj *x = &o->v[lo];

		if (x->window != window)
			break;
		if (vaddr - x->base < x->size) {
			if (off)
				*off = (vaddr - x->base) % x->stride;
			return x;
		}
	}
	return NULL;
}

void lines_trace_objs_free(struct lines_trace_objs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].label);
		free(o->v[i].type);
		free(o->v[i].source);
		free(o->v[i].fields);
	}
	free(o->v);
	memset(o, 0, sizeof(*o));
}
