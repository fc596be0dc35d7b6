// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the access trace's reader (c2c/lines_trace_read.h), kept
 * to this one file: the plugin branch writes the real lines_trace_read.c,
 * and this file goes when it lands (both define the same functions).  It
 * makes the checks the header promises: magic, version, record size,
 * status, the file's size against nrecords, nrecords <= cap, vcpus, and
 * every record; and it reads window-objects.tsv / window-ranges.tsv.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "c2c/lines_trace_read.h"
#include "util/err.h"
#include "util/fileio.h"

#define U(x) ((unsigned long long)(x))

const char *lines_trace_status_name(uint32_t status)
{
	return status == LINES_TRACE_WRITING ? "writing" : status == LINES_TRACE_COMPLETE ? "complete" :
	       status == LINES_TRACE_FULL ? "full" : "unknown";
}

static int check(struct lines_trace *t, const unsigned char *data, size_t size, char *err, size_t errlen)
{
	const struct lines_trace_header *h = &t->hdr;
	uint64_t whole;

	if (size < sizeof(*h))
		return set_err(err, errlen, "%s: cut off: %zu bytes, shorter than the trace header (%zu)", t->path,
			       size, sizeof(*h));
	memcpy(&t->hdr, data, sizeof(*h));
	if (memcmp(h->magic, LINES_TRACE_MAGIC, 8))
		return set_err(err, errlen, "%s: not a lines trace (no MLTRACE magic)", t->path);
	if (h->version != LINES_TRACE_VERSION)
		return set_err(err, errlen, "%s: trace format version %u; this memcg-lab reads version %d", t->path,
			       h->version, LINES_TRACE_VERSION);
	if (h->record_size != sizeof(struct lines_trace_rec))
		return set_err(err, errlen, "%s: field record_size: %u, want %zu", t->path, h->record_size,
			       sizeof(struct lines_trace_rec));
	whole = (size - sizeof(*h)) / sizeof(struct lines_trace_rec);
	if (h->status == LINES_TRACE_WRITING)
		return set_err(err, errlen, "%s: cut off: the plugin did not finish the trace (status writing): %llu "
			       "whole records", t->path, U(whole));
	if (h->status != LINES_TRACE_COMPLETE && h->status != LINES_TRACE_FULL)
		return set_err(err, errlen, "%s: field status: %u is not a trace status", t->path, h->status);
	if (size != sizeof(*h) + h->nrecords * sizeof(struct lines_trace_rec) || whole != h->nrecords)
		return set_err(err, errlen, "%s: cut off: %llu whole records of the %llu its header announces", t->path,
			       U(whole), U(h->nrecords));
	if (h->nrecords > h->cap)
		return set_err(err, errlen, "%s: field nrecords: %llu, above its cap %llu", t->path, U(h->nrecords),
			       U(h->cap));
	if (!h->vcpus || h->vcpus > 64)
		return set_err(err, errlen, "%s: field vcpus: %u, want 1..64", t->path, h->vcpus);
	t->rec = (const struct lines_trace_rec *)(data + sizeof(*h));
	for (uint64_t i = 0; i < h->nrecords; i++) {
		const struct lines_trace_rec *r = &t->rec[i];
		const char *f = r->vcpu >= h->vcpus ? "vcpu" : !r->size || r->size > 64 ? "size" :
				(r->vaddr & 63) + r->size > 64 ? "size" : r->flags & ~LINES_TRACE_STORE ? "flags" :
				r->pad ? "pad" : NULL;

		if (f)
			return set_err(err, errlen, "%s: record %llu: field %s: out of range", t->path, U(i), f);
	}
	return 0;
}

int lines_trace_open_mem(struct lines_trace *t, const char *name, const void *data, size_t size, char *err,
			 size_t errlen)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s", name);
	return check(t, data, size, err, errlen);
}

int lines_trace_open(struct lines_trace *t, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	if (fd < 0)
		return set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			close(fd);
			return set_err(err, errlen, "%s: cannot map: %s", path, strerror(errno));
		}
	}
	close(fd);
	rc = lines_trace_open_mem(t, path, map ? map : "", (size_t)st.st_size, err, errlen);
	t->map = map;
	t->map_len = (size_t)st.st_size;
	if (rc < 0)
		lines_trace_close(t);
	return rc;
}

const struct lines_trace_rec *lines_trace_next(struct lines_trace *t)
{
	return t->next < t->hdr.nrecords ? &t->rec[t->next++] : NULL;
}

const struct lines_trace_rec *lines_trace_at(const struct lines_trace *t, uint64_t seq)
{
	return seq < t->hdr.nrecords ? &t->rec[seq] : NULL;
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
	t->rec = NULL;
}

bool lines_trace_full(const struct lines_trace *t, char *note, size_t n)
{
	if (t->hdr.status != LINES_TRACE_FULL)
		return false;
	snprintf(note, n, "%s: the trace is full: its cap of %llu records was reached; %llu more accesses were not "
		 "written", t->path, U(t->hdr.cap), U(t->hdr.dropped));
	return true;
}

/* ---- objects ---- */

static int cmp_obj(const void *a, const void *b)
{
	const struct lines_trace_obj *x = a, *y = b;

	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	return x->base < y->base ? -1 : x->base > y->base;
}

/* One TSV by header names; want[] columns; -1 with err. */
static int load_tsv(struct lines_trace_objs *o, const char *path, bool range, char *err, size_t errlen)
{
	static const char *const ocols[] = { "window", "label", "type", "address", "size", "source" };
	static const char *const rcols[] = { "window", "name", "address", "size", "stride", "fields" };
	const char *const *want = range ? rcols : ocols;
	char *text = read_text(path, NULL), *save = NULL;
	int col[6], lineno = 0, rc = 0;
	bool header = false;

	if (!text)
		return errno == ENOENT ? 0 : set_err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
	for (char *line = strtok_r(text, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		char *f[16];
		int nf = 0;
		struct lines_trace_obj v = { 0 };
		unsigned long long num[3];

		lineno++;
		if (line[0] == '#')
			continue;
		for (char *p = line; p && nf < 16; nf++) {
			f[nf] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = '\0';
		}
		if (!header) {
			for (int c = 0; c < 6; c++) {
				col[c] = -1;
				for (int i = 0; i < nf; i++)
					if (!strcmp(f[i], want[c]))
						col[c] = i;
				if (col[c] < 0)
					rc = set_err(err, errlen, "%s:%d: no column '%s' in the header", path, lineno, want[c]);
			}
			header = true;
			continue;
		}
		for (int c = 0; c < 6 && !rc; c++)
			if (col[c] >= nf)
				rc = set_err(err, errlen, "%s:%d: field %s: missing (the row is short)", path, lineno, want[c]);
		for (int c = 0, k = 0; c < 5 && !rc; c++) {
			char *end;

			if (c == 1 || c == 2)
				continue;
			errno = 0;
			num[k] = strtoull(f[col[c]], &end, 0);
			if (!f[col[c]][0] || *end || errno || f[col[c]][0] == '-')
				rc = set_err(err, errlen, "%s:%d: field %s: '%s' is not a number", path, lineno, want[c],
					     f[col[c]]);
			k++;
		}
		if (rc)
			break;
		v.window = (uint32_t)num[0];
		v.base = num[1];
		v.size = num[2];
		v.range = range;
		if (range) {
			char *end;

			errno = 0;
			v.stride = strtoull(f[col[4]], &end, 0);
			if (!f[col[4]][0] || *end || errno || !v.stride)
				rc = set_err(err, errlen, "%s:%d: field stride: '%s' is not a number", path, lineno, f[col[4]]);
			v.label = xstrdup("-");
			v.type = xstrdup(f[col[1]]);
			v.source = xstrdup("-");
			v.fields = xstrdup(f[col[5]]);
		} else {
			v.stride = v.size;
			v.label = xstrdup(f[col[1]]);
			v.type = xstrdup(f[col[2]]);
			v.source = xstrdup(f[col[5]]);
		}
		if (!v.size && !rc)
			rc = set_err(err, errlen, "%s:%d: field size: 0", path, lineno);
		o->v = xrealloc(o->v, (o->n + 1) * sizeof(*o->v));
		o->v[o->n++] = v;
	}
	free(text);
	return rc;
}

int lines_trace_objs_load(struct lines_trace_objs *o, const char *lines_dir, char *err, size_t errlen)
{
	char *a = xasprintf("%s/window-objects.tsv", lines_dir), *b = xasprintf("%s/window-ranges.tsv", lines_dir);
	int rc;

	memset(o, 0, sizeof(*o));
	rc = load_tsv(o, a, false, err, errlen);
	if (!rc)
		rc = load_tsv(o, b, true, err, errlen);
	free(a);
	free(b);
	if (o->n)
		qsort(o->v, o->n, sizeof(*o->v), cmp_obj);
	return rc;
}

const struct lines_trace_obj *lines_trace_obj_of(const struct lines_trace_objs *o, uint32_t window,
						 uint64_t vaddr, uint64_t *off)
{
	size_t lo = 0, hi = o->n;

	/* The last object of window with base <= vaddr. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct lines_trace_obj *m = &o->v[mid];

		if (m->window < window || (m->window == window && m->base <= vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct lines_trace_obj *m = &o->v[i];

		if (m->window != window)
			break;
		if (vaddr - m->base < m->size) {
			if (off)
				*off = m->range ? (vaddr - m->base) % m->stride : vaddr - m->base;
			return m;
		}
		/* Objects of one window do not overlap: the nearest below is the only one. */
		break;
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
