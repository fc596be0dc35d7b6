// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include "perf/perfdata.h"
#include "perf/tracedata.h"
#include "util/err.h"
#include "util/u64map.h"

bool perfdata_has_feat(const struct perf_file *pf, int bit)
{
	return bit >= 0 && bit < 256 && (pf->feat[bit / 64] >> (bit % 64)) & 1;
}

/* The file section of feature bit (sections follow the data, one per set
 * bit in bit order); false when the feature is absent or out of range. */
static bool feat_section(const struct perf_file *pf, int bit, struct perfdata_section *out)
{
	uint64_t base = pf->data_off + pf->data_size;
	int idx = 0;

	if (!perfdata_has_feat(pf, bit))
		return false;
	for (int b = 0; b < bit; b++)
		idx += perfdata_has_feat(pf, b);
	if (base + (idx + 1) * sizeof(*out) > pf->size)
		return false;
	memcpy(out, pf->map + base + idx * sizeof(*out), sizeof(*out));
	return out->offset <= pf->size && out->size <= pf->size - out->offset;
}

/*
 * Whether the feature table after the data, and every section it points
 * to, lie inside the file: 0, or -1 with where it is cut in err.  perf
 * reads what it can of such a file (and refuses one whose tracing data is
 * cut with only "incompatible file format"); perfdata_open records the place in
 * pf->cut for the reader that then misses a feature.
 */
static int check_feat_sections(const struct perf_file *pf, char *err, size_t errlen)
{
	uint64_t base = pf->data_off + pf->data_size, n = 0;
	struct perfdata_section s;

	for (int b = 0; b < 256; b++)
		n += perfdata_has_feat(pf, b);
	if (base + n * sizeof(s) > pf->size)
		return set_err(err, errlen, "%s: truncated: the table of its %" PRIu64 " header features "
			       "ends at byte %" PRIu64 " but the file has %zu", pf->path, n,
			       base + n * sizeof(s), pf->size);
	for (int b = 0, idx = 0; b < 256; b++) {
		if (!perfdata_has_feat(pf, b))
			continue;
		memcpy(&s, pf->map + base + idx++ * sizeof(s), sizeof(s));
		if (s.offset > pf->size || s.size > pf->size - s.offset)
			return set_err(err, errlen, "%s: truncated: header feature %d ends at byte %" PRIu64
				       " but the file has %zu", pf->path, b, s.offset + s.size, pf->size);
	}
	return 0;
}

/* perf's do_write_string(): u32 length (NUL and padding included), bytes. */
static char *feat_string(const struct perf_file *pf, int bit)
{
	struct perfdata_section s;
	uint32_t len;

	if (!feat_section(pf, bit, &s) || s.size < 4)
		return NULL;
	memcpy(&len, pf->map + s.offset, 4);
	if (len > s.size - 4)
		return NULL;
	return strndup((const char *)pf->map + s.offset + 4, len);
}

static char *feat_cmdline(const struct perf_file *pf)
{
	struct perfdata_section s;
	const uint8_t *p, *end;
	uint32_t nr, len;
	char *out = NULL;

	if (!feat_section(pf, PF_FEAT_CMDLINE, &s) || s.size < 4)
		return NULL;
	p = pf->map + s.offset;
	end = p + s.size;
	memcpy(&nr, p, 4);
	p += 4;
	for (uint32_t i = 0; i < nr && end - p >= 4; i++) {
		char *arg, *joined;

		memcpy(&len, p, 4);
		p += 4;
		if (len > (size_t)(end - p))
			break;
		arg = strndup((const char *)p, len);
		p += len;
		joined = out ? xasprintf("%s %s", out, arg) : xstrdup(arg);
		free(out);
		free(arg);
		out = joined;
	}
	return out;
}

/* The [kernel.kallsyms] entry of HEADER_BUILD_ID. */
static void feat_kernel_build_id(struct perf_file *pf)
{
	struct perfdata_section s;
	const uint8_t *p, *end;

	if (!feat_section(pf, PF_FEAT_BUILD_ID, &s))
		return;
	p = pf->map + s.offset;
	end = p + s.size;
	while (end - p >= (ptrdiff_t)sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const uint8_t *bid;
		size_t idlen = 20;

		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) + 4 + 24 || h.size > end - p)
			break;
		bid = p + sizeof(h) + 4;
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: byte 20 holds the length. */
		if ((h.misc & (1 << 15)) && bid[20] && bid[20] <= 20)
			idlen = bid[20];
		if (!strncmp((const char *)bid + 24, "[kernel.kallsyms]", h.size - sizeof(h) - 28)) {
			for (size_t i = 0; i < idlen; i++)
				snprintf(pf->kernel_build_id + 2 * i, 3, "%02x", bid[i]);
			return;
		}
		p += h.size;
	}
}

static int read_attrs(struct perf_file *pf, const struct perfdata_header *h, char *err, size_t errlen)
{
	/* attr_size covers perf_file_attr: the attr, then its id section. */
	uint64_t entry = h->attr_size, asize = h->attr_size - sizeof(struct perfdata_section);

	if (h->attr_size < 64 + sizeof(struct perfdata_section) || h->attr_size > 4096)
		return set_err(err, errlen, "%s: bad attr_size %" PRIu64 " in the header", pf->path,
			       h->attr_size);
	if (h->attrs.size % entry)
		return set_err(err, errlen, "%s: attribute section size %" PRIu64
			       " is not a multiple of %" PRIu64, pf->path, h->attrs.size, entry);
	pf->nevsel = h->attrs.size / entry;
	if (!pf->nevsel)
		return set_err(err, errlen, "%s: no events recorded (empty attribute section)", pf->path);
	pf->evsel = xcalloc(pf->nevsel, sizeof(*pf->evsel));
	for (int i = 0; i < pf->nevsel; i++) {
		const uint8_t *a = pf->map + h->attrs.offset + i * entry;
		struct perfdata_evsel *e = &pf->evsel[i];
		struct perfdata_section ids;

		memcpy(&e->attr, a, asize < sizeof(e->attr) ? asize : sizeof(e->attr));
		memcpy(&ids, a + asize, sizeof(ids));
		if (ids.offset > pf->size || ids.size > pf->size - ids.offset || ids.size % 8)
			return set_err(err, errlen, "%s: event %d: id list out of the file", pf->path, i);
		e->nids = ids.size / 8;
		e->ids = xmalloc(ids.size + 8);
		memcpy(e->ids, pf->map + ids.offset, ids.size);
		for (uint32_t k = 0; k < e->nids; k++)
			u64map_put(&pf->id_map, e->ids[k], e);
		snprintf(e->name, sizeof(e->name), "%u/%#llx", e->attr.type,
			 (unsigned long long)e->attr.config);
		if (i && (e->attr.sample_type & PERF_SAMPLE_IDENTIFIER) !=
			 (pf->evsel[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER))
			return set_err(err, errlen, "%s: events disagree on PERF_SAMPLE_IDENTIFIER", pf->path);
	}
	pf->sample_id_all = pf->evsel[0].attr.sample_id_all;
	return 0;
}

static void name_tracepoints(struct perf_file *pf)
{
	for (int i = 0; i < pf->nevsel; i++) {
		struct perfdata_evsel *e = &pf->evsel[i];

		if (e->attr.type != PERF_TYPE_TRACEPOINT || !pf->tep)
			continue;
		e->tp = tep_find_event(pf->tep, (int)e->attr.config);
		if (e->tp)
			snprintf(e->name, sizeof(e->name), "%s:%s", e->tp->system, e->tp->name);
	}
}

int perfdata_open(struct perf_file *pf, const char *path, char *err, size_t errlen)
{
	struct perfdata_header h;
	struct perfdata_section s;
	struct stat st;

	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
	pf->path = xstrdup(path);
	pf->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pf->fd < 0 || fstat(pf->fd, &st) < 0) {
		set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		set_err(err, errlen, "%s: a perf.data directory (perf record --threads) is not supported; "
			"record without --threads", path);
		goto fail;
	}
	pf->size = st.st_size;
	if (pf->size < PF_PIPE_HDR) {
		set_err(err, errlen, "%s: truncated: %zu bytes, not even a perf.data header", path, pf->size);
		goto fail;
	}
	pf->map = mmap(NULL, pf->size, PROT_READ, MAP_PRIVATE, pf->fd, 0);
	if (pf->map == MAP_FAILED) {
		pf->map = NULL;
		set_err(err, errlen, "%s: cannot map: %s", path, strerror(errno));
		goto fail;
	}
	madvise((void *)pf->map, pf->size, MADV_SEQUENTIAL);
	memcpy(&h, pf->map, PF_PIPE_HDR);
	if (h.magic == PF_MAGIC2_SW) {
		set_err(err, errlen, "%s: a big-endian perf.data is not supported", path);
		goto fail;
	}
	if (h.magic == PF_MAGIC1) {
		set_err(err, errlen, "%s: a version-1 perf.data (perf before 2.6.35) is not supported", path);
		goto fail;
	}
	if (h.magic != PF_MAGIC2) {
		set_err(err, errlen, "%s: not a perf.data file (no PERFILE2 magic)", path);
		goto fail;
	}
	if (h.size == PF_PIPE_HDR) {
		set_err(err, errlen, "%s: a pipe-mode perf.data (perf record -o -) is not supported; "
			"convert it with 'perf inject -i %s -o FILE'", path, path);
		goto fail;
	}
	if (h.size != sizeof(h) || pf->size < sizeof(h)) {
		set_err(err, errlen, "%s: truncated or unknown header (%" PRIu64 " bytes, file %zu)",
			path, h.size, pf->size);
		goto fail;
	}
	memcpy(&h, pf->map, sizeof(h));
	memcpy(pf->feat, h.adds_features, sizeof(pf->feat));
	pf->data_off = h.data.offset;
	pf->data_size = h.data.size;
	if (h.attrs.offset > pf->size || h.attrs.size > pf->size - h.attrs.offset) {
		set_err(err, errlen, "%s: truncated: the attribute section ends at byte %" PRIu64
			" but the file has %zu", path, h.attrs.offset + h.attrs.size, pf->size);
		goto fail;
	}
	if (pf->data_off > pf->size || pf->data_size > pf->size - pf->data_off) {
		set_err(err, errlen, "%s: truncated: the data section ends at byte %" PRIu64
			" but the file has %zu (copied while perf record was running?)",
			path, pf->data_off + pf->data_size, pf->size);
		goto fail;
	}
	if (pf->data_off % 8) {
		set_err(err, errlen, "%s: corrupt header: the data section starts at byte %" PRIu64
			", not on an 8-byte boundary", path, pf->data_off);
		goto fail;
	}
	if (!pf->data_size) {
		set_err(err, errlen, "%s: the data size in the header is 0: perf record did not finish "
			"(killed?), so the file has no event formats either", path);
		goto fail;
	}
	check_feat_sections(pf, pf->cut, sizeof(pf->cut));
	if (read_attrs(pf, &h, err, errlen))
		goto fail;
	if (perfdata_has_feat(pf, PF_FEAT_DIR_FORMAT)) {
		set_err(err, errlen, "%s: a perf.data directory header (perf record --threads) is not supported",
			path);
		goto fail;
	}
	if (perfdata_has_feat(pf, PF_FEAT_COMPRESSED)) {
		set_err(err, errlen, "%s: records are Zstd-compressed (perf record -z), which the lab "
			"does not read; record again without -z", path);
		goto fail;
	}
	if (feat_section(pf, PF_FEAT_TRACING_DATA, &s)) {
		char what[300];

		snprintf(what, sizeof(what), "%s: tracing data", path);
		pf->tep = tracedata_parse(pf->map + s.offset, s.size, what, err, errlen);
		if (!pf->tep)
			goto fail;
	}
	name_tracepoints(pf);
	pf->hostname = feat_string(pf, PF_FEAT_HOSTNAME);
	pf->osrelease = feat_string(pf, PF_FEAT_OSRELEASE);
	pf->version = feat_string(pf, PF_FEAT_VERSION);
	pf->arch = feat_string(pf, PF_FEAT_ARCH);
	pf->cmdline = feat_cmdline(pf);
	feat_kernel_build_id(pf);
	return 0;
fail:
	perfdata_close(pf);
	return -1;
}

void perfdata_close(struct perf_file *pf)
{
	if (pf->map)
		munmap((void *)pf->map, pf->size);
	if (pf->fd >= 0)
		close(pf->fd);
	for (int i = 0; i < pf->nevsel; i++)
		free(pf->evsel[i].ids);
	free(pf->evsel);
	if (pf->tep)
		tep_free(pf->tep);
	free(pf->path);
	free(pf->hostname);
	free(pf->osrelease);
	free(pf->version);
	free(pf->arch);
	free(pf->cmdline);
	u64map_free(&pf->id_map);
	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
}

const struct perfdata_evsel *perfdata_find_evsel(const struct perf_file *pf, const char *name)
{
	for (int i = 0; i < pf->nevsel; i++)
		if (!strcmp(pf->evsel[i].name, name))
			return &pf->evsel[i];
	return NULL;
}

static const struct perfdata_evsel *evsel_of_id(const struct perf_file *pf, uint64_t id)
{
	if (pf->nevsel == 1)
		return &pf->evsel[0];
	return u64map_get(&pf->id_map, id);
}

/* Size in bytes of a PERF_SAMPLE_READ block. */
static size_t read_format_size(uint64_t rf, const uint8_t *p, const uint8_t *end)
{
	size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & (1u << 4)) ? 8 : 0);
	size_t head = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		      ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);
	uint64_t nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return per + head;
	if (end - p < 8)
		return (size_t)-1;
	memcpy(&nr, p, 8);
	if (nr > 4096)
		return (size_t)-1;
	return 8 + head + nr * per;
}

#define NEED(n) do { if ((size_t)(end - p) < (size_t)(n)) goto short_rec; } while (0)

int perfdata_parse_sample(const struct perf_file *pf, const struct perf_event_header *ev,
		    struct perfdata_sample *s, char *err, size_t errlen)
{
	const uint8_t *p = (const uint8_t *)(ev + 1), *end = (const uint8_t *)ev + ev->size;
	const struct perfdata_evsel *e = &pf->evsel[0];
	uint64_t st = e->attr.sample_type, v;

	memset(s, 0, sizeof(*s));
	if (st & PERF_SAMPLE_IDENTIFIER) {
		NEED(8);
		memcpy(&s->id, p, 8);
		e = evsel_of_id(pf, s->id);
		if (!e)
			return set_err(err, errlen, "%s: sample with unknown id %" PRIu64, pf->path, s->id);
		st = e->attr.sample_type;
		p += 8;
	} else if (pf->nevsel > 1 && (st & PERF_SAMPLE_ID)) {
		/* Without IDENTIFIER the id sits after ip, tid, time, addr. */
		const uint8_t *q = p;

		q += 8 * !!(st & PERF_SAMPLE_IP) + 8 * !!(st & PERF_SAMPLE_TID) +
		     8 * !!(st & PERF_SAMPLE_TIME) + 8 * !!(st & PERF_SAMPLE_ADDR);
		if (q + 8 > end)
			goto short_rec;
		memcpy(&v, q, 8);
		e = evsel_of_id(pf, v);
		if (!e)
			return set_err(err, errlen, "%s: sample with unknown id %" PRIu64, pf->path, v);
		st = e->attr.sample_type;
	}
	s->evsel = e;
	if (st & PERF_SAMPLE_IP) {
		NEED(8);
		memcpy(&s->ip, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		memcpy(&s->pid, p, 4);
		memcpy(&s->tid, p + 4, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		NEED(8);
		memcpy(&s->time, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		NEED(8);
		memcpy(&s->addr, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		NEED(8);
		memcpy(&s->id, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		NEED(8);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		NEED(8);
		memcpy(&s->cpu, p, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		NEED(8);
		memcpy(&s->period, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_READ) {
		size_t n = read_format_size(e->attr.read_format, p, end);

		if (n == (size_t)-1)
			goto short_rec;
		NEED(n);
		p += n;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		memcpy(&s->nr, p, 8);
		p += 8;
		if (s->nr > (size_t)(end - p) / 8)
			goto short_rec;
		s->ips = (const uint64_t *)p;
		p += s->nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(4);
		memcpy(&s->raw_size, p, 4);
		p += 4;
		NEED(s->raw_size);
		s->raw = p;
	}
	return 0;
short_rec:
	return set_err(err, errlen, "%s: a sample record (%u bytes) is shorter than its sample_type "
		       "%#llx says", pf->path, ev->size, (unsigned long long)st);
}

/* Time of a record for ordering; false when it has none. */
static bool record_time(const struct perf_file *pf, const struct perf_event_header *ev, uint64_t *t)
{
	const uint8_t *end = (const uint8_t *)ev + ev->size, *p;
	const struct perfdata_evsel *e = &pf->evsel[0];
	uint64_t st = e->attr.sample_type;

	if (ev->type == PERF_RECORD_SAMPLE) {
		const uint8_t *q = (const uint8_t *)(ev + 1);
		size_t toff;

		/* The hot path of ordering: find the time without a full parse. */
		if (pf->nevsel > 1) {
			uint64_t id;

			if (!(st & PERF_SAMPLE_IDENTIFIER)) {
				struct perfdata_sample s;
				char err[8];

				if (perfdata_parse_sample(pf, ev, &s, err, sizeof(err)) ||
				    !(s.evsel->attr.sample_type & PERF_SAMPLE_TIME))
					return false;
				*t = s.time;
				return true;
			}
			if (q + 8 > end)
				return false;
			memcpy(&id, q, 8);
			e = evsel_of_id(pf, id);
			if (!e)
				return false;
			st = e->attr.sample_type;
		}
		if (!(st & PERF_SAMPLE_TIME))
			return false;
		toff = 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID));
		if (q + toff + 8 > end)
			return false;
		memcpy(t, q + toff, 8);
		return true;
	}
	if (ev->type >= PF_RECORD_HEADER_ATTR || !pf->sample_id_all)
		return false;
	/* The sample_id trailer, read backwards from the end. */
	p = end;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		uint64_t id;

		if (p - 8 < (const uint8_t *)(ev + 1))
			return false;
		memcpy(&id, p - 8, 8);
		e = evsel_of_id(pf, id);
		if (!e)
			return false;
		st = e->attr.sample_type;
		p -= 8;
	}
	p -= 8 * (!!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_ID));
	if (!(st & PERF_SAMPLE_TIME) || p - 8 < (const uint8_t *)(ev + 1))
		return false;
	memcpy(t, p - 8, 8);
	return true;
}

struct qent {
	uint64_t time;
	uint64_t off;
};

/*
 * A stable sort by (time, offset) that exploits what a round holds: each
 * CPU's records were written in time order, so the queue is a handful of
 * ascending runs.  Natural merge sort: find the runs, merge neighbours until
 * one is left (n log(runs) instead of qsort's n log n with a call per
 * comparison).
 */
static inline bool qent_le(const struct qent *x, const struct qent *y)
{
	return x->time < y->time || (x->time == y->time && x->off <= y->off);
}

static void sort_runs(struct qent *a, size_t n, struct qent **tmp, size_t *tmpcap)
{
	size_t *runs, nr = 0;

	if (n < 2)
		return;
	if (*tmpcap < n) {
		*tmpcap = n;
		*tmp = xrealloc(*tmp, n * sizeof(**tmp));
	}
	runs = xmalloc((n + 1) * sizeof(*runs));
	runs[nr++] = 0;
	for (size_t i = 1; i < n; i++)
		if (!qent_le(&a[i - 1], &a[i]))
			runs[nr++] = i;
	runs[nr] = n;
	while (nr > 1) {
		size_t out = 0;

		for (size_t r = 0; r < nr; r += 2) {
			size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nr ? runs[r + 2] : n;
			size_t i = lo, j = mid, k = lo;

			if (r + 1 == nr) {
				runs[out++] = lo;
				break;
			}
			while (i < mid && j < hi)
				(*tmp)[k++] = qent_le(&a[i], &a[j]) ? a[i++] : a[j++];
			while (i < mid)
				(*tmp)[k++] = a[i++];
			while (j < hi)
				(*tmp)[k++] = a[j++];
			memcpy(a + lo, *tmp + lo, (hi - lo) * sizeof(*a));
			runs[out++] = lo;
		}
		runs[out] = n;
		nr = out;
	}
	free(runs);
}

struct queue {
	struct qent *q, *tmp;
	size_t n, cap, tmpcap;
	size_t sorted;		/* q[0..sorted) is in order */
	uint64_t max_time;	/* perf's oe->max_timestamp */
	uint64_t next_flush;	/* perf's oe->next_flush */
	uint64_t last_flush;
};

static int deliver(struct perf_file *pf, uint64_t off, perfdata_record_fn fn, void *arg)
{
	return fn(pf, (const struct perf_event_header *)(pf->map + off), off, arg);
}

/* Delivers queued records with time <= limit, in (time, file offset) order. */
static int flush(struct perf_file *pf, struct queue *qu, uint64_t limit, perfdata_record_fn fn, void *arg)
{
	size_t i;
	int r;

	if (qu->sorted < qu->n)
		sort_runs(qu->q, qu->n, &qu->tmp, &qu->tmpcap);
	for (i = 0; i < qu->n && qu->q[i].time <= limit; i++) {
		qu->last_flush = qu->q[i].time;
		r = deliver(pf, qu->q[i].off, fn, arg);
		if (r) {
			qu->n = 0;
			return r;
		}
	}
	memmove(qu->q, qu->q + i, (qu->n - i) * sizeof(*qu->q));
	qu->n -= i;
	qu->sorted = qu->n;
	return 0;
}

int perfdata_for_each(struct perf_file *pf, perfdata_record_fn fn, void *arg, char *err, size_t errlen)
{
	struct queue qu = { 0 };
	uint64_t off = pf->data_off, end = pf->data_off + pf->data_size;
	int r = 0;

	memset(&pf->stats, 0, sizeof(pf->stats));
	while (off < end) {
		struct perf_event_header h;
		uint64_t t;

		if (end - off < sizeof(h)) {
			r = set_err(err, errlen, "%s: truncated record header at byte %" PRIu64, pf->path, off);
			goto out;
		}
		memcpy(&h, pf->map + off, sizeof(h));
		/* perf pads every record to 8 bytes; anything else is damage. */
		if (h.size < sizeof(h) || h.size > end - off || h.size % 8) {
			r = set_err(err, errlen, "%s: corrupt or truncated record at byte %" PRIu64
				    " (type %u, size %u, data section ends at %" PRIu64 ")",
				    pf->path, off, h.type, h.size, end);
			goto out;
		}
		pf->stats.records++;
		if (h.type == PF_RECORD_COMPRESSED) {
			r = set_err(err, errlen, "%s: Zstd-compressed records (perf record -z) at byte %" PRIu64
				    " are not supported; record again without -z", pf->path, off);
			goto out;
		}
		if (h.type == PF_RECORD_FINISHED_ROUND) {
			pf->stats.rounds++;
			/* perf leaves next_flush alone when nothing is queued. */
			if (qu.n) {
				r = flush(pf, &qu, qu.next_flush, fn, arg);
				if (r)
					goto out;
				qu.next_flush = qu.max_time;
			}
			off += h.size;
			continue;
		}
		if (h.type == PERF_RECORD_SAMPLE)
			pf->stats.samples++;
		else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16)
			pf->stats.lost += *(const uint64_t *)(pf->map + off + sizeof(h) + 8);
		else if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= sizeof(h) + 8)
			pf->stats.lost_samples += *(const uint64_t *)(pf->map + off + sizeof(h));
		if (!record_time(pf, (const struct perf_event_header *)(pf->map + off), &t)) {
			r = deliver(pf, off, fn, arg);
			if (r)
				goto out;
		} else {
			if (t < qu.last_flush)
				pf->stats.out_of_order++;
			if (qu.n == qu.cap) {
				qu.cap = qu.cap ? qu.cap * 2 : 65536;
				qu.q = xrealloc(qu.q, qu.cap * sizeof(*qu.q));
			}
			if (!qu.n || t >= qu.max_time)
				qu.max_time = t;
			if (qu.sorted == qu.n && (!qu.n || qent_le(&qu.q[qu.n - 1], &(struct qent){ t, off })))
				qu.sorted++;
			qu.q[qu.n++] = (struct qent){ t, off };
		}
		/* AUXTRACE records carry their payload after the record. */
		if (h.type == PF_RECORD_AUXTRACE && h.size >= sizeof(h) + 8) {
			uint64_t payload = *(const uint64_t *)(pf->map + off + sizeof(h));

			if (payload > end - off - h.size || payload % 8) {
				r = set_err(err, errlen, "%s: corrupt AUXTRACE record at byte %" PRIu64, pf->path, off);
				goto out;
			}
			off += payload;
		}
		off += h.size;
	}
	r = flush(pf, &qu, UINT64_MAX, fn, arg);
out:
	free(qu.q);
	free(qu.tmp);
	return r;
}
