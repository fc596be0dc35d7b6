// SPDX-License-Identifier: GPL-2.0
/* Compressed input files through liblzma, zlib and libzstd (util/decompress.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "util/decompress.h"
#include "util/err.h"
#include "util/humanize.h"

#define CHUNK (256 * 1024)

enum zkind z_kind(const unsigned char *m, size_t n)
{
	if (n >= 6 && !memcmp(m, "\xfd" "7zXZ\0", 6))
		return Z_XZ;
	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		return Z_GZIP;
	if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
		return Z_ZSTD;
	return Z_NONE;
}

const char *z_name(enum zkind k)
{
	switch (k) {
	case Z_XZ: return "xz";
	case Z_GZIP: return "gzip";
	case Z_ZSTD: return "zstd";
	case Z_NONE: break;
	}
	return "none";
}

/* What one decompression has: its input, its output and its bound. */
struct zrun {
	const char *path;
	enum zkind k;
	int in, out;
	uint64_t max, written;
	char *err;
	size_t errlen;
	unsigned char ibuf[CHUNK], obuf[CHUNK];
};

/* Reads the next input chunk: bytes, 0 at the end, -1 (err set) on error. */
static ssize_t zread(struct zrun *z)
{
	ssize_t n;

	do
		n = read(z->in, z->ibuf, sizeof(z->ibuf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		set_err(z->err, z->errlen, "%s: cannot read: %s", z->path, strerror(errno));
	return n;
}

/* Writes n decompressed bytes; -1 (err set) past the bound or on a write error. */
static int zwrite(struct zrun *z, const unsigned char *p, size_t n)
{
	if (z->written + n > z->max) {
		char b[32];

		return set_err(z->err, z->errlen, "%s: %s data that decompresses to more than %s: not a BTF or vmlinux "
			       "the lab reads (decompress it yourself if it is one)", z->path, z_name(z->k),
			       format_bytes(b, sizeof(b), z->max));
	}
	while (n) {
		ssize_t w = write(z->out, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return set_err(z->err, z->errlen, "%s: cannot write its decompressed copy: %s", z->path,
				       strerror(errno));
		p += w;
		n -= (size_t)w;
		z->written += (uint64_t)w;
	}
	return 0;
}

static int cut_off(struct zrun *z)
{
	return set_err(z->err, z->errlen, "%s: the %s data ends before its stream does (cut off, after %" PRIu64
		       " bytes decompressed)", z->path, z_name(z->k), z->written);
}

static const char *lzma_words(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR: return "out of memory";
	case LZMA_MEMLIMIT_ERROR: return "memory limit reached";
	case LZMA_FORMAT_ERROR: return "not in the xz format";
	case LZMA_OPTIONS_ERROR: return "unsupported compression options";
	case LZMA_DATA_ERROR: return "damaged data";
	case LZMA_BUF_ERROR: return "cut off";
	default: return "liblzma error";
	}
}

static int unxz(struct zrun *z)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED);
	bool eof = false;
	int rc = 0;

	if (r != LZMA_OK)
		return set_err(z->err, z->errlen, "%s: liblzma: %s", z->path, lzma_words(r));
	do {
		if (!s.avail_in && !eof) {
			ssize_t n = zread(z);

			if (n < 0) {
				rc = -1;
				break;
			}
			s.next_in = z->ibuf;
			s.avail_in = (size_t)n;
			eof = n == 0;
		}
		s.next_out = z->obuf;
		s.avail_out = sizeof(z->obuf);
		r = lzma_code(&s, eof ? LZMA_FINISH : LZMA_RUN);
		if (zwrite(z, z->obuf, sizeof(z->obuf) - s.avail_out)) {
			rc = -1;
			break;
		}
		if (r == LZMA_BUF_ERROR && eof) {
			rc = cut_off(z);
			break;
		}
		if (r != LZMA_OK && r != LZMA_STREAM_END) {
			rc = set_err(z->err, z->errlen, "%s: xz: %s (after %" PRIu64 " bytes decompressed)", z->path,
				     lzma_words(r), z->written);
			break;
		}
	} while (r != LZMA_STREAM_END);
	lzma_end(&s);
	return rc;
}

static int ungzip(struct zrun *z)
{
	z_stream s;
	int r = Z_OK, rc = 0;
	bool eof = false;

	memset(&s, 0, sizeof(s));
	/* 15 + 32: a gzip (or zlib) header, told by itself. */
	if (inflateInit2(&s, 15 + 32) != Z_OK)
		return set_err(z->err, z->errlen, "%s: zlib: cannot start inflating", z->path);
	for (;;) {
		if (!s.avail_in && !eof) {
			ssize_t n = zread(z);

			if (n < 0) {
				rc = -1;
				break;
			}
			s.next_in = z->ibuf;
			s.avail_in = (uInt)n;
			eof = n == 0;
		}
		if (r == Z_STREAM_END) {
			if (!s.avail_in && eof)
				break;
			if (!s.avail_in)
				continue;
			/* Another member follows (gzip files concatenate). */
			if (inflateReset(&s) != Z_OK) {
				rc = set_err(z->err, z->errlen, "%s: zlib: cannot restart for the next member", z->path);
				break;
			}
		}
		s.next_out = z->obuf;
		s.avail_out = sizeof(z->obuf);
		r = inflate(&s, Z_NO_FLUSH);
		if (zwrite(z, z->obuf, sizeof(z->obuf) - s.avail_out)) {
			rc = -1;
			break;
		}
		/* No progress: more input, or the end came before the stream's. */
		if (r == Z_BUF_ERROR) {
			if (eof) {
				rc = cut_off(z);
				break;
			}
			continue;
		}
		if (r != Z_OK && r != Z_STREAM_END) {
			rc = set_err(z->err, z->errlen, "%s: gzip: %s (after %" PRIu64 " bytes decompressed)", z->path,
				     s.msg ? s.msg : "damaged data", z->written);
			break;
		}
	}
	inflateEnd(&s);
	return rc;
}

static int unzstd(struct zrun *z)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t last = 0;
	int rc = 0;

	if (!d)
		return set_err(z->err, z->errlen, "%s: libzstd: out of memory", z->path);
	for (;;) {
		ssize_t n = zread(z);
		ZSTD_inBuffer in;

		if (n < 0) {
			rc = -1;
			break;
		}
		if (n == 0) {
			/* A frame still open at the end: cut off. */
			if (last)
				rc = cut_off(z);
			break;
		}
		in = (ZSTD_inBuffer){ z->ibuf, (size_t)n, 0 };
		/* Until the input is used and the output no longer fills the buffer
		 * (a full buffer may leave more to flush). */
		for (;;) {
			ZSTD_outBuffer out = { z->obuf, sizeof(z->obuf), 0 };

			last = ZSTD_decompressStream(d, &out, &in);
			if (ZSTD_isError(last)) {
				rc = set_err(z->err, z->errlen, "%s: zstd: %s (after %" PRIu64 " bytes decompressed)",
					     z->path, ZSTD_getErrorName(last), z->written);
				goto out;
			}
			if (zwrite(z, z->obuf, out.pos)) {
				rc = -1;
				goto out;
			}
			if (in.pos == in.size && out.pos < out.size)
				break;
		}
	}
out:
	ZSTD_freeDCtx(d);
	return rc;
}

int z_decompress_fd(const char *path, enum zkind k, int fd, uint64_t max, uint64_t *out, char *err,
		    size_t errlen)
{
	struct zrun *z = xcalloc(1, sizeof(*z));
	int rc;

	*z = (struct zrun){ .path = path, .k = k, .out = fd, .max = max, .err = err, .errlen = errlen };
	z->in = open(path, O_RDONLY | O_CLOEXEC);
	if (z->in < 0) {
		rc = set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		free(z);
		return rc;
	}
	switch (k) {
	case Z_XZ:
		rc = unxz(z);
		break;
	case Z_GZIP:
		rc = ungzip(z);
		break;
	case Z_ZSTD:
		rc = unzstd(z);
		break;
	default:
		rc = set_err(err, errlen, "%s: not compressed", path);
		break;
	}
	close(z->in);
	*out = z->written;
	free(z);
	return rc;
}
