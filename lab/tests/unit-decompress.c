// SPDX-License-Identifier: GPL-2.0
/*
 * util/decompress.h on a real kernel's BTF: the committed .xz fixture (made
 * by the xz CLI) decompresses to the bytes `xz -dc` gave build/btf/; gzip
 * and zstd of the same bytes (zlib's and libzstd's own encoders), two
 * members or frames back to back, give them twice; the kind is told by the
 * magic bytes; a cut-off stream, damaged data and a stream past the bound
 * are each one line naming the file.  kbtf_open() takes the three as
 * --btf takes the raw file, and leaves no file behind.
 */
#include <dirent.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "kernel/btf.h"
#include "tests/tap.h"
#include "util/decompress.h"
#include "util/fileio.h"

#define XZ "lab/tests/data/btf/vmlinux-6.1.192.btf.xz"
#define RAW "build/btf/vmlinux-6.1.192.btf"

static char dir[] = "/tmp/memcg-lab-unit-decompress.XXXXXX";

static char *path_of(const char *name)
{
	static char p[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void drop(char **p)
{
	free(*p);
	*p = NULL;
}

static int put(const char *name, const void *data, size_t n)
{
	int fd = open(path_of(name), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t w = fd < 0 ? -1 : write(fd, data, n);

	if (fd >= 0)
		close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/* Decompresses name into a memfd: 0 and the bytes, or -1 and err. */
static int unpack(const char *name, uint64_t max, char **out, uint64_t *n, char *err, size_t errlen)
{
	unsigned char magic[8] = { 0 };
	int fd = open(path_of(name), O_RDONLY), mfd = memfd_create("unit-decompress", MFD_CLOEXEC), rc;
	ssize_t m = fd < 0 ? -1 : read(fd, magic, sizeof(magic));

	if (fd >= 0)
		close(fd);
	err[0] = '\0';
	rc = z_decompress_fd(path_of(name), z_kind(magic, m > 0 ? (size_t)m : 0), mfd, max, n, err, errlen);
	*out = NULL;
	if (!rc) {
		*out = malloc(*n ? *n : 1);
		if (pread(mfd, *out, *n, 0) != (ssize_t)*n)
			rc = -1;
	}
	close(mfd);
	return rc;
}

static size_t gzip_member(const char *raw, size_t n, unsigned char *out, size_t cap)
{
	z_stream s;

	memset(&s, 0, sizeof(s));
	deflateInit2(&s, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);	/* 16: a gzip header */
	s.next_in = (unsigned char *)raw;
	s.avail_in = n;
	s.next_out = out;
	s.avail_out = cap;
	deflate(&s, Z_FINISH);
	n = s.total_out;
	deflateEnd(&s);
	return n;
}

/* zstd as the zstd CLI writes it: libzstd's encoder with the content checksum. */
static size_t zstd_frame(const char *raw, size_t n, unsigned char *out, size_t cap)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t r;

	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	r = ZSTD_compress2(c, out, cap, raw, n);
	ZSTD_freeCCtx(c);
	return r;
}

/* The raw BTF (read in main()), and the room its compressed copies take. */
static char *raw;
static size_t nraw, cap;

/* The magic bytes, never the name. */
TEST(kind_from_magic)
{
	ok(z_kind((const unsigned char *)"\xfd" "7zXZ\0\0", 6) == Z_XZ &&
	   z_kind((const unsigned char *)"\x1f\x8b\x08", 3) == Z_GZIP &&
	   z_kind((const unsigned char *)"\x28\xb5\x2f\xfd", 4) == Z_ZSTD &&
	   z_kind((const unsigned char *)raw, nraw) == Z_NONE && z_kind((const unsigned char *)"\x1f", 1) == Z_NONE,
	   "xz, gzip and zstd told by their magic; raw BTF and a short file are none");
}

/* xz: the committed fixture, as the xz CLI made it. */
TEST(xz_fixture_cut_bound_and_two_streams)
{
	char err[512], *got = NULL;
	size_t nxz;
	char *xz = read_text(XZ, &nxz);
	uint64_t n;

	ok(xz && !put("k.btf.xz", xz, nxz), "the xz fixture copied");
	ok(!unpack("k.btf.xz", 1ULL << 30, &got, &n, err, sizeof(err)) && n == nraw && !memcmp(got, raw, nraw),
	   "xz: the fixture decompresses to the %zu bytes xz -dc gave (%s)", nraw, err);
	drop(&got);
	/* Cut off mid-stream: said, never a short BTF. */
	ok(xz && !put("cut.xz", xz, nxz / 2) && unpack("cut.xz", 1ULL << 30, &got, &n, err, sizeof(err)) &&
	   strstr(err, "cut.xz: the xz data ends before its stream does (cut off"), "xz cut off: %s", err);
	drop(&got);
	/* A stream past the bound stops at it. */
	ok(unpack("k.btf.xz", 100000, &got, &n, err, sizeof(err)) && strstr(err, "k.btf.xz: xz data that "
	   "decompresses to more than 97.7 KiB: not a BTF or vmlinux"), "xz past the bound: %s", err);
	drop(&got);
	/* Two streams back to back (xz files concatenate). */
	if (xz) {
		char *two = malloc(2 * nxz);

		memcpy(two, xz, nxz);
		memcpy(two + nxz, xz, nxz);
		ok(!put("two.xz", two, 2 * nxz) && !unpack("two.xz", 1ULL << 30, &got, &n, err, sizeof(err)) &&
		   n == 2 * nraw && !memcmp(got + nraw, raw, nraw), "xz: two streams, both decompressed (%s)", err);
		drop(&got);
		free(two);
	}
	free(xz);
}

/* gzip: zlib's encoder, two members. */
TEST(gzip_members_cut_and_damaged)
{
	char err[512], *got = NULL;
	unsigned char *buf = malloc(2 * cap);
	size_t n1, n2;
	uint64_t n;

	n1 = gzip_member(raw, nraw, buf, cap);
	n2 = gzip_member(raw, nraw, buf + n1, cap);
	ok(n1 > 18 && !put("k.gz", buf, n1) && !unpack("k.gz", 1ULL << 30, &got, &n, err, sizeof(err)) && n == nraw &&
	   !memcmp(got, raw, nraw), "gzip: the BTF back, byte for byte (%s)", err);
	drop(&got);
	ok(!put("two.gz", buf, n1 + n2) && !unpack("two.gz", 1ULL << 30, &got, &n, err, sizeof(err)) && n == 2 * nraw &&
	   !memcmp(got + nraw, raw, nraw), "gzip: two members, both decompressed (%s)", err);
	drop(&got);
	ok(!put("cut.gz", buf, n1 - 100) && unpack("cut.gz", 1ULL << 30, &got, &n, err, sizeof(err)) &&
	   strstr(err, "cut.gz: the gzip data ends before its stream does (cut off"), "gzip cut off: %s", err);
	drop(&got);
	buf[n1 / 2] ^= 0xff;
	buf[n1 / 2 + 1] ^= 0xff;
	ok(!put("bad.gz", buf, n1) && unpack("bad.gz", 1ULL << 30, &got, &n, err, sizeof(err)) &&
	   strstr(err, "bad.gz: gzip: "), "gzip damaged: %s", err);
	drop(&got);
	free(buf);
}

/* zstd: libzstd's encoder with the content checksum the zstd CLI writes,
 * two frames. */
TEST(zstd_frames_cut_and_damaged)
{
	char err[512], *got = NULL;
	unsigned char *buf = malloc(2 * cap);
	size_t n1 = zstd_frame(raw, nraw, buf, 2 * cap);
	uint64_t n;

	ok(!ZSTD_isError(n1) && !put("k.zst", buf, n1) && !unpack("k.zst", 1ULL << 30, &got, &n, err, sizeof(err)) &&
	   n == nraw && !memcmp(got, raw, nraw), "zstd: the BTF back, byte for byte (%s)", err);
	drop(&got);
	if (!ZSTD_isError(n1) && 2 * n1 <= 2 * cap) {
		memcpy(buf + n1, buf, n1);
		ok(!put("two.zst", buf, 2 * n1) && !unpack("two.zst", 1ULL << 30, &got, &n, err, sizeof(err)) &&
		   n == 2 * nraw && !memcmp(got + nraw, raw, nraw), "zstd: two frames, both decompressed (%s)", err);
		drop(&got);
	}
	ok(!put("cut.zst", buf, n1 - 100) && unpack("cut.zst", 1ULL << 30, &got, &n, err, sizeof(err)) &&
	   strstr(err, "cut.zst: the zstd data ends before its stream does (cut off"), "zstd cut off: %s", err);
	drop(&got);
	buf[n1 / 2] ^= 0xff;
	buf[n1 / 2 + 7] ^= 0xff;
	ok(!put("bad.zst", buf, n1) && unpack("bad.zst", 1ULL << 30, &got, &n, err, sizeof(err)) &&
	   strstr(err, "bad.zst: zstd: "), "zstd damaged: %s", err);
	drop(&got);
	free(buf);
}

/* --btf of each: the same types as the raw file, the compression named,
 * the release still read from the name, no file left in $TMPDIR.  The
 * compressed files are main()'s (compressed_files()). */
TEST(kbtf_open_compressed)
{
	static const char *const files[] = { "k.btf.xz", "k.gz", "k.zst" };
	static const char *const kinds[] = { "xz", "gzip", "zstd" };
	unsigned char *buf = malloc(2 * cap);
	char err[512];
	struct kbtf k, r;
	size_t n1;

	setenv("TMPDIR", dir, 1);
	ok(!kbtf_open(&r, RAW, NULL, err, sizeof(err)), "the raw BTF opens");
	for (int i = 0; i < 3; i++) {
		int rc = kbtf_open(&k, path_of(files[i]), NULL, err, sizeof(err));

		ok(!rc && k.source == KBTF_RAW && k.compression && !strcmp(k.compression, kinds[i]) &&
		   kbtf_find_struct(&k, "mem_cgroup") == kbtf_find_struct(&r, "mem_cgroup") &&
		   kbtf_type_size(&k, kbtf_find_struct(&k, "mem_cgroup")) ==
		   kbtf_type_size(&r, kbtf_find_struct(&r, "mem_cgroup")),
		   "kbtf_open %s: raw BTF, %s named, struct mem_cgroup as in the raw file (%s)", files[i],
		   kinds[i], rc ? err : "");
		if (!rc)
			kbtf_close(&k);
	}
	kbtf_close(&r);
	ok(kbtf_open(&k, path_of("cut.zst"), NULL, err, sizeof(err)) && strstr(err, "cut.zst: the zstd data ends") &&
	   k.zfd < 0 && !k.read_path, "kbtf_open of a cut-off .zst: one line, its copy closed (%s)", err);
	kbtf_close(&k);
	ok(!kbtf_open(&k, path_of("k.btf.xz"), NULL, err, sizeof(err)) && !k.release,
	   "k.btf.xz: no release in the name, none invented");
	kbtf_close(&k);
	n1 = ZSTD_compress(buf, 2 * cap, raw, nraw, 1);
	ok(!ZSTD_isError(n1) && !put("vmlinux-6.1.192.btf.zst", buf, n1) &&
	   !kbtf_open(&k, path_of("vmlinux-6.1.192.btf.zst"), NULL, err, sizeof(err)) && k.release &&
	   !strcmp(k.release, "6.1.192"), "vmlinux-6.1.192.btf.zst: release 6.1.192 from the name");
	kbtf_close(&k);
	free(buf);
	{
		DIR *d = opendir(dir);
		struct dirent *e;
		int left = 0;

		while (d && (e = readdir(d)))
			left += !strncmp(e->d_name, "memcg-lab-tmp", 13);
		if (d)
			closedir(d);
		is_int(left, 0, "no decompressed copy left in $TMPDIR");
	}
}

/* The compressed copies kbtf_open_compressed opens (the other cases write
 * and check their own): k.btf.xz, k.gz, k.zst and cut.zst; 0 when written. */
static int compressed_files(void)
{
	unsigned char *buf = malloc(2 * cap);
	size_t nxz, n1;
	char *xz = read_text(XZ, &nxz);
	int rc = !xz || put("k.btf.xz", xz, nxz);

	rc |= put("k.gz", buf, gzip_member(raw, nraw, buf, cap));
	n1 = zstd_frame(raw, nraw, buf, 2 * cap);
	rc |= ZSTD_isError(n1) || put("k.zst", buf, n1) || put("cut.zst", buf, n1 - 100);
	free(xz);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	raw = read_text(RAW, &nraw);
	if (!raw)
		tap_skip_all(RAW " is not built (make)");
	if (!mkdtemp(dir))
		tap_skip_all("mkdtemp failed");
	cap = nraw + nraw / 2 + 4096;
	if (compressed_files())
		tap_diag("the compressed copies of %s could not all be written in %s", RAW, dir);
	rc = tap_main(argc, argv);
	free(raw);
	tap_rm_rf(dir);
	return rc;
}
