// SPDX-License-Identifier: GPL-2.0
/* The access trace's writer (c2c/lines_trace_write.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "c2c/lines_trace_write.h"

#define HDR sizeof(struct lines_trace_header)
#define REC sizeof(struct lines_trace_rec)

static void header(const struct lines_trace_writer *w, struct lines_trace_header *h, uint32_t status)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, LINES_TRACE_MAGIC, sizeof(h->magic));
	h->version = LINES_TRACE_VERSION;
	h->record_size = REC;
	h->cap = w->cap;
	h->vcpus = w->vcpus;
	h->status = status;
	if (status != LINES_TRACE_WRITING) {
		h->nrecords = lines_trace_writer_records(w);
		h->dropped = lines_trace_writer_dropped(w);
		h->status = h->dropped ? LINES_TRACE_FULL : LINES_TRACE_COMPLETE;
	}
}

int lines_trace_writer_open(struct lines_trace_writer *w, const char *path, uint64_t cap, unsigned vcpus,
			    bool locked, char *err, size_t errlen)
{
	struct lines_trace_header h;
	void *p;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (!cap || cap > (SIZE_MAX - HDR) / REC) {
		snprintf(err, errlen, "%s: a trace of %llu records cannot be mapped", path, (unsigned long long)cap);
		return -1;
	}
	w->cap = cap;
	w->vcpus = vcpus;
	w->locked = locked;
	w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	header(w, &h, LINES_TRACE_WRITING);
	/* Sparse: the cap's blocks are taken only as records are written. */
	w->map_len = HDR + cap * REC;
	if (pwrite(w->fd, &h, HDR, 0) != (ssize_t)HDR || ftruncate(w->fd, (off_t)w->map_len) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	p = mmap(NULL, w->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot map %zu bytes: %s", path, w->map_len, strerror(errno));
		goto fail;
	}
	w->rec = (struct lines_trace_rec *)((char *)p + HDR);
	return 0;
fail:
	close(w->fd);
	w->fd = -1;
	return -1;
}

uint64_t lines_trace_writer_records(const struct lines_trace_writer *w)
{
	uint64_t n = __atomic_load_n(&w->n, __ATOMIC_RELAXED);

	return n < w->cap ? n : w->cap;
}

uint64_t lines_trace_writer_dropped(const struct lines_trace_writer *w)
{
	uint64_t n = __atomic_load_n(&w->n, __ATOMIC_RELAXED);

	return n > w->cap ? n - w->cap : 0;
}

int lines_trace_writer_finish(struct lines_trace_writer *w, char *err, size_t errlen)
{
	struct lines_trace_header h;
	int rc = 0;

	if (w->fd < 0)
		return 0;
	header(w, &h, LINES_TRACE_COMPLETE);
	/* The records first, then the header that says they are whole (one
	 * page cache: what the map wrote, the file has). */
	if (w->rec && munmap((char *)w->rec - HDR, w->map_len) < 0)
		rc = -1;
	w->rec = NULL;
	if (!rc && (ftruncate(w->fd, (off_t)(HDR + h.nrecords * REC)) < 0 || pwrite(w->fd, &h, HDR, 0) != (ssize_t)HDR))
		rc = -1;
	if (close(w->fd) < 0)
		rc = -1;
	w->fd = -1;
	if (rc)
		snprintf(err, errlen, "writing the trace: %s", strerror(errno));
	return rc;
}
