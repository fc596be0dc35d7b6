// SPDX-License-Identifier: GPL-2.0
/* Lost and throttled records of a perf.data, one streaming pass (perf/perfdata_loss.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "perf/perfdata.h"
#include "perf/perfdata_loss.h"
#include "util/err.h"

/* tools/lib/perf/include/perf/event.h */
#define MISC_LOST_SAMPLES_BPF	(1 << 15)
#define PF_RECORD_COMPRESSED2	83	/* perf 6.15+: the same, 8-byte aligned */
#define AUX_FLAG_TRUNCATED	0x01	/* PERF_AUX_FLAG_TRUNCATED */
#define AUX_FLAG_COLLISION	0x08	/* PERF_AUX_FLAG_COLLISION */

/* A record is at most 64 KiB (u16 size): a piece always holds one. */
#define PIECE (1u << 20)

const char perfdata_loss_tsv_header[] =
	"samples\tlost\tlost_records\tlost_samples\tthrottle\tunthrottle\taux_truncated\tlost_pct";

/* The bytes [base, base + len) of the file, read with pread. */
struct piece {
	int fd;
	uint8_t *buf;
	uint64_t base;
	size_t len;
};

/*
 * The n bytes at off, read into the piece when they are not in it (at most
 * up to end, the data section's end); NULL when the file ends first, or on
 * a read error (errno set, 0 for the end).
 */
static const uint8_t *at(struct piece *p, uint64_t off, size_t n, uint64_t end)
{
	size_t want;

	if (off >= p->base && off - p->base + n <= p->len)
		return p->buf + (off - p->base);
	want = end - off < PIECE ? end - off : PIECE;
	p->base = off;
	p->len = 0;
	while (p->len < want) {
		ssize_t got = pread(p->fd, p->buf + p->len, want - p->len, off + p->len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (!got)
				errno = 0;
			break;
		}
		p->len += got;
	}
	return p->len >= n ? p->buf : NULL;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The header's checks: 0, or -1 with err; sets out->data_offset/size. */
static int read_header(int fd, const char *path, uint64_t fsize, struct perfdata_loss *out,
		       char *err, size_t errlen)
{
	struct perfdata_header h;
	uint64_t feat[4];
	ssize_t got;

	if (fsize < PF_PIPE_HDR)
		return set_err(err, errlen, "%s: truncated: %" PRIu64 " bytes, not even a perf.data header",
			       path, fsize);
	memset(&h, 0, sizeof(h));
	got = pread(fd, &h, fsize < sizeof(h) ? fsize : sizeof(h), 0);
	if (got < PF_PIPE_HDR)
		return set_err(err, errlen, "%s: cannot read the header: %s", path,
			       got < 0 ? strerror(errno) : "short read");
	if (h.magic == PF_MAGIC2_SW)
		return set_err(err, errlen, "%s: a big-endian perf.data is not supported", path);
	if (h.magic == PF_MAGIC1)
		return set_err(err, errlen, "%s: a version-1 perf.data (perf before 2.6.35) is not supported",
			       path);
	if (h.magic != PF_MAGIC2)
		return set_err(err, errlen, "%s: not a perf.data file (no PERFILE2 magic)", path);
	if (h.size == PF_PIPE_HDR)
		return set_err(err, errlen, "%s: a pipe-mode perf.data (perf record -o -) is not supported; "
			       "convert it with 'perf inject -i %s -o FILE'", path, path);
	if (h.size != sizeof(h))
		return set_err(err, errlen, "%s: unknown header size %" PRIu64 " (want %zu)", path, h.size,
			       sizeof(h));
	if ((uint64_t)got < sizeof(h))
		return set_err(err, errlen, "%s: truncated: the header ends at byte %zu but the file has %" PRIu64,
			       path, sizeof(h), fsize);
	memcpy(feat, h.adds_features, sizeof(feat));
	if (feat[PF_FEAT_DIR_FORMAT / 64] >> (PF_FEAT_DIR_FORMAT % 64) & 1)
		return set_err(err, errlen, "%s: a perf.data directory header (perf record --threads) is not "
			       "supported; record without --threads", path);
	if (feat[PF_FEAT_COMPRESSED / 64] >> (PF_FEAT_COMPRESSED % 64) & 1)
		return set_err(err, errlen, "%s: records are Zstd-compressed (perf record -z), which the lab "
			       "does not decompress, so it cannot count them; record again without -z", path);
	if (h.data.offset < sizeof(h) || h.data.offset % 8)
		return set_err(err, errlen, "%s: corrupt header: the data section starts at byte %" PRIu64,
			       path, h.data.offset);
	if (h.data.offset > fsize || h.data.size > fsize - h.data.offset)
		return set_err(err, errlen, "%s: truncated: the data section ends at byte %" PRIu64
			       " but the file has %" PRIu64 " (cut short, or copied while perf record ran?)",
			       path, h.data.offset + h.data.size, fsize);
	if (!h.data.size)
		return set_err(err, errlen, "%s: the data size in the header is 0: perf record did not "
			       "finish (killed?)", path);
	out->data_offset = h.data.offset;
	out->data_size = h.data.size;
	return 0;
}

/* Counts one record whose header is h (its body is at b, h->size bytes in all). */
static void count(struct perfdata_loss *l, const struct perf_event_header *h, const uint8_t *b)
{
	size_t body = h->size - sizeof(*h);

	l->records++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		l->samples++;
		break;
	case PERF_RECORD_LOST:
		if (body >= 16) {
			l->lost += u64_at(b + 8);
			l->lost_records++;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (body < 8)
			break;
		if (h->misc & MISC_LOST_SAMPLES_BPF) {
			l->bpf_dropped += u64_at(b);
		} else {
			l->lost_samples += u64_at(b);
			l->lost_samples_records++;
		}
		break;
	case PERF_RECORD_THROTTLE:
		l->throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		l->unthrottle++;
		break;
	case PERF_RECORD_AUX:
		l->aux++;
		if (body >= 24) {
			uint64_t flags = u64_at(b + 16);

			l->aux_truncated += !!(flags & (AUX_FLAG_TRUNCATED | AUX_FLAG_COLLISION));
			l->aux_collision += !!(flags & AUX_FLAG_COLLISION);
		}
		break;
	}
}

static int walk(struct piece *p, const char *path, struct perfdata_loss *l, char *err, size_t errlen)
{
	uint64_t off = l->data_offset, end = l->data_offset + l->data_size;

	while (off < end) {
		struct perf_event_header h;
		const uint8_t *r;

		if (end - off < sizeof(h))
			return set_err(err, errlen, "%s: truncated record header at byte %" PRIu64
				       " (the data section ends at byte %" PRIu64 ")", path, off, end);
		r = at(p, off, sizeof(h), end);
		if (!r)
			goto short_read;
		memcpy(&h, r, sizeof(h));
		/* perf pads every record to 8 bytes; anything else is damage. */
		if (h.size < sizeof(h) || h.size % 8)
			return set_err(err, errlen, "%s: corrupt record header at byte %" PRIu64
				       " (type %u, size %u)", path, off, h.type, h.size);
		if (h.size > end - off)
			return set_err(err, errlen, "%s: truncated: the record at byte %" PRIu64 " (type %u, "
				       "%u bytes) runs past the data section's end at byte %" PRIu64,
				       path, off, h.type, h.size, end);
		if (h.type == PF_RECORD_COMPRESSED || h.type == PF_RECORD_COMPRESSED2)
			return set_err(err, errlen, "%s: a Zstd-compressed record (perf record -z) at byte %"
				       PRIu64 ", which the lab does not decompress, so it cannot count "
				       "what it holds; record again without -z", path, off);
		r = at(p, off, h.size, end);
		if (!r)
			goto short_read;
		count(l, &h, r + sizeof(h));
		/* AUXTRACE records carry their payload after the record. */
		if (h.type == PF_RECORD_AUXTRACE && h.size >= sizeof(h) + 8) {
			uint64_t payload = u64_at(r + sizeof(h));

			if (payload > end - off - h.size || payload % 8)
				return set_err(err, errlen, "%s: truncated: the AUXTRACE record at byte %" PRIu64
					       " carries %" PRIu64 " bytes, past the data section's end at "
					       "byte %" PRIu64, path, off, payload, end);
			off += payload;
		}
		off += h.size;
	}
	return 0;
short_read:
	if (errno)
		return set_err(err, errlen, "%s: cannot read at byte %" PRIu64 ": %s", path, off, strerror(errno));
	return set_err(err, errlen, "%s: truncated: the file ended at byte %" PRIu64 " while read, before "
		       "the data section's end at byte %" PRIu64 " (did it shrink?)", path, p->base + p->len, end);
}

int perfdata_loss_read(const char *path, struct perfdata_loss *out, char *err, size_t errlen)
{
	struct piece p = { .fd = -1 };
	struct stat st;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	p.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p.fd < 0 || fstat(p.fd, &st) < 0) {
		set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		set_err(err, errlen, "%s: a perf.data directory (perf record --threads) is not supported; "
			"record without --threads", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(err, errlen, "%s: not a regular file (a pipe-mode perf.data is not supported)", path);
		goto out;
	}
	if (read_header(p.fd, path, st.st_size, out, err, errlen))
		goto out;
	posix_fadvise(p.fd, out->data_offset, out->data_size, POSIX_FADV_SEQUENTIAL);
	p.buf = xmalloc(PIECE);
	ret = walk(&p, path, out, err, errlen);
out:
	if (ret)
		memset(out, 0, sizeof(*out));
	free(p.buf);
	if (p.fd >= 0)
		close(p.fd);
	return ret;
}

uint64_t perfdata_loss_lost(const struct perfdata_loss *l)
{
	return l->lost > l->lost_samples ? l->lost : l->lost_samples;
}

double perfdata_loss_share(const struct perfdata_loss *l)
{
	uint64_t lost = perfdata_loss_lost(l);

	if (!lost && !l->samples)
		return -1;
	return (double)lost / ((double)l->samples + (double)lost);
}

/* snprintf at *pos, which never passes n - 1. */
static void add(char *buf, size_t n, size_t *pos, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t n, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*pos + 1 >= n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *pos, n - *pos, fmt, ap);
	va_end(ap);
	if (w > 0)
		*pos += (size_t)w < n - *pos ? (size_t)w : n - *pos - 1;
}

static const char *s_of(uint64_t v)
{
	return v == 1 ? "" : "s";
}

void perfdata_loss_line(const struct perfdata_loss *l, char *buf, size_t n)
{
	uint64_t lost = perfdata_loss_lost(l);
	size_t pos = 0;

	if (!n)
		return;
	buf[0] = '\0';
	add(buf, n, &pos, "%" PRIu64 " sample%s, ", l->samples, s_of(l->samples));
	if (!l->lost_records && !l->lost_samples_records)
		add(buf, n, &pos, "0 lost (no LOST or LOST_SAMPLES records)");
	else
		add(buf, n, &pos, "%" PRIu64 " lost (%.2f%%): %" PRIu64 " in %" PRIu64 " LOST_SAMPLES record%s, %"
		    PRIu64 " in %" PRIu64 " LOST record%s", lost, 100 * perfdata_loss_share(l),
		    l->lost_samples, l->lost_samples_records, s_of(l->lost_samples_records),
		    l->lost, l->lost_records, s_of(l->lost_records));
	if (!l->throttle && !l->unthrottle)
		add(buf, n, &pos, "; never throttled");
	else
		add(buf, n, &pos, "; throttled %" PRIu64 " time%s, unthrottled %" PRIu64 " time%s",
		    l->throttle, s_of(l->throttle), l->unthrottle, s_of(l->unthrottle));
	if (l->aux)
		add(buf, n, &pos, "; AUX data lost in %" PRIu64 " of %" PRIu64 " AUX record%s (%" PRIu64
		    " by collision)", l->aux_truncated, l->aux, s_of(l->aux), l->aux_collision);
	if (l->bpf_dropped)
		add(buf, n, &pos, "; %" PRIu64 " dropped by the --filter BPF program (not lost)", l->bpf_dropped);
}

void perfdata_loss_tsv_row(const struct perfdata_loss *l, char *buf, size_t n)
{
	double share = perfdata_loss_share(l);
	char pct[32] = "-";

	if (share >= 0)
		snprintf(pct, sizeof(pct), "%.2f", 100 * share);
	snprintf(buf, n, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%"
		 PRIu64 "\t%s", l->samples, l->lost, l->lost_records, l->lost_samples, l->throttle,
		 l->unthrottle, l->aux_truncated, pct);
}
