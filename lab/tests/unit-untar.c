// SPDX-License-Identifier: GPL-2.0
/*
 * util/untar.h, the copy of a guest's results onto the host, on payloads
 * made here: a well-formed one as a guest's busybox tar writes it (long
 * names, links inside, a pax name) is extracted whole; each hostile one
 * (absolute names, '..', links out, devices, FIFOs, hard links out, a name
 * twice, the host's own files) and each damaged one (a header checksum, a
 * member cut short, no end) is refused with one line naming the member or
 * the byte, and then nothing at all is extracted.  The payloads are what a
 * guest could send with the serial port's checksum right: the content is
 * wrong, not the transfer.  No root needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "tests/tap.h"
#include "util/fileio.h"
#include "util/owned.h"
#include "util/run.h"
#include "util/untar.h"

static char tmp[] = "/tmp/unit-untar.XXXXXX";
/* A file beside the destinations that no case may touch, and a member
 * name longer than a ustar name field (main() writes both). */
static char canary[300], longname[200];

/* ---- building archives ---------------------------------------------------- */

struct tar {
	unsigned char *b;
	size_t n;
};

static void octal(unsigned char *f, size_t n, unsigned long long v)
{
	snprintf((char *)f, n, "%0*llo", (int)n - 1, v);
}

/* One header (ustar, or GNU's magic with gnu set) and its data. */
static void add_hdr(struct tar *t, const char *name, char type, const char *link, const char *data, size_t size,
		    unsigned mode, bool gnu)
{
	size_t padded = (size + 511) / 512 * 512;
	unsigned char *h;
	unsigned sum = 0;

	t->b = realloc(t->b, t->n + 512 + padded);
	h = t->b + t->n;
	memset(h, 0, 512 + padded);
	strncpy((char *)h, name, 100);
	octal(h + 100, 8, mode);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, 1700000000);
	h[156] = (unsigned char)type;
	if (link)
		strncpy((char *)h + 157, link, 100);
	memcpy(h + 257, gnu ? "ustar  \0" : "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	if (size)
		memcpy(h + 512, data, size);
	t->n += 512 + padded;
}

static void add(struct tar *t, const char *name, char type, const char *link, const char *data)
{
	add_hdr(t, name, type, link, data, data ? strlen(data) : 0, type == '5' ? 0755 : 0644, false);
}

/* A name longer than 100 bytes, as busybox and GNU tar write it. */
static void add_long(struct tar *t, const char *name, const char *data)
{
	add_hdr(t, "././@LongLink", 'L', NULL, name, strlen(name) + 1, 0, true);
	add_hdr(t, "cut-name", '0', NULL, data, strlen(data), 0644, true);
}

static void add_pax_path(struct tar *t, const char *path, const char *data)
{
	char rec[600];
	int len = (int)strlen(path) + 9, n;

	/* "LEN path=P\n", LEN counting itself */
	n = snprintf(rec, sizeof(rec), "%d path=%s\n", len + (len >= 10 ? 2 : 1), path);
	if (n != (int)strtol(rec, NULL, 10))
		n = snprintf(rec, sizeof(rec), "%d path=%s\n", n, path);
	add_hdr(t, "PaxHeader", 'x', NULL, rec, (size_t)n, 0644, false);
	add(t, "ignored-name", '0', NULL, data);
}

static void end(struct tar *t)
{
	t->b = realloc(t->b, t->n + 1024);
	memset(t->b + t->n, 0, 1024);
	t->n += 1024;
}

/* The archive gzipped into a file; its path (static). */
static const char *gz(const struct tar *t, size_t len)
{
	static char path[300];
	gzFile g;

	snprintf(path, sizeof(path), "%s/payload.tgz", tmp);
	g = gzopen(path, "wb");
	gzwrite(g, t->b, (unsigned)len);
	gzclose(g);
	return path;
}

/* ---- running it ------------------------------------------------------------ */

static char *out;	/* what untar said */
static char dest[400];

static int count_fn(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)flag;
	return ftw->level > 0 ? 1 : 0;	/* stop at the first entry below the top */
}

/* 0 when dir holds nothing (nothing was extracted), else 1. */
static int entries(const char *dir)
{
	return nftw(dir, count_fn, 8, FTW_PHYS) > 0;
}

static int lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* A fresh destination, then the archive (gzipped) into it. */
static int run_tar(struct tar *t, size_t len, const char *preexisting)
{
	size_t sz = 0;
	FILE *f;
	int n, fd;

	snprintf(dest, sizeof(dest), "%s/dest", tmp);
	fd = open(tmp, O_RDONLY | O_DIRECTORY);
	lab_rmtree_at(fd, "dest");
	close(fd);
	mkdir(dest, 0700);
	if (preexisting) {
		char p[500];

		snprintf(p, sizeof(p), "%s/%s", dest, preexisting);
		write_file_atomic(p, "host\n", 5);
	}
	free(out);
	out = NULL;
	f = open_memstream(&out, &sz);
	n = untar_safe(gz(t, len), "payload.tgz", dest, f);
	fclose(f);
	free(t->b);
	t->b = NULL;
	t->n = 0;
	return n;
}

/* What untar said, on one line for a test's description. */
static const char *said_line(void)
{
	static char buf[600];

	snprintf(buf, sizeof(buf), "%s", out ? out : "nothing said");
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = *(p + 1) ? '|' : '\0';
	return buf;
}

/* src into the gzipped tar tgz, by busybox's tar (i == 0) or GNU tar:
 * the tool's exit status. */
static int tar_czf(int i, const char *src, const char *tgz)
{
	struct run_result r;

	free(run_capture_argv(i ? (const char *const[]){ "tar", "-C", src, "-czf", tgz, ".", NULL }
				: (const char *const[]){ "/bin/busybox", "tar", "-C", src, "-czf", tgz, ".", NULL },
			      RUN_STDERR_MERGE, &r));
	free(r.err);
	return r.status;
}

/* The file tgz into a fresh destination: untar_safe's count. */
static int run_untar(const char *tgz)
{
	size_t sz = 0;
	FILE *f;
	int fd, n;

	snprintf(dest, sizeof(dest), "%s/dest", tmp);
	fd = open(tmp, O_RDONLY | O_DIRECTORY);
	lab_rmtree_at(fd, "dest");
	close(fd);
	mkdir(dest, 0700);
	free(out);
	out = NULL;
	f = open_memstream(&out, &sz);
	n = untar_safe(tgz, "payload.tgz", dest, f);
	fclose(f);
	return n;
}

static bool said(const char *s)
{
	return out && strstr(out, s);
}

/* One refusal naming the member, and nothing extracted. */
static void refused(struct tar *t, const char *line, const char *what)
{
	int n = run_tar(t, t->n, NULL);
	bool good = n == 1 && lines(out) == 1 && said(line) && entries(dest) == 0;

	ok(good, "%s: one line, nothing extracted (%s)", what, said_line());
}

static char *content(const char *rel)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", dest, rel);
	return read_text(p, NULL);
}

/* A guest's results as busybox tar writes them. */
TEST(guest_results_extracted)
{
	struct tar t = { 0 };
	char *s, link[500];
	int n;

	add(&t, "./", '5', NULL, NULL);
	add(&t, "./output.txt", '0', NULL, "hello from the guest\n");
	add(&t, "./results/", '5', NULL, NULL);
	add(&t, "./results/a/", '5', NULL, NULL);
	add(&t, "./results/a/meta.json", '0', NULL, "{}\n");
	add(&t, "./results/latest", '2', "a", NULL);
	add(&t, "./results/a/self", '2', "../a/meta.json", NULL);
	add(&t, "./results/a/copy", '1', "./results/a/meta.json", NULL);
	add(&t, "./implied/deeper/file", '0', NULL, "x\n");
	add_long(&t, longname + 2, "{\"long\": 1}\n");
	add_pax_path(&t, "./results/pax-named", "pax\n");
	end(&t);
	n = run_tar(&t, t.n, "vm.env");
	ok(n == 0 && !out[0], "a guest's results are extracted, nothing said (%s)", said_line());
	s = content("output.txt");
	ok(s && !strcmp(s, "hello from the guest\n"), "a file's data");
	free(s);
	snprintf(link, sizeof(link), "%s/results/latest", dest);
	n = (int)readlink(link, longname + 150, 40);
	ok(n == 1 && longname[150] == 'a', "a link inside the results stays a link (latest -> a)");
	s = content("results/a/copy");
	ok(s && !strcmp(s, "{}\n"), "a hard link inside, to a file before it");
	free(s);
	s = content("implied/deeper/file");
	ok(s && !strcmp(s, "x\n"), "directories only implied by a member's name are made");
	free(s);
	s = content(longname + 2);
	ok(s && strstr(s, "long"), "a GNU long name (%zu bytes)", strlen(longname + 2));
	free(s);
	s = content("results/pax-named");
	ok(s && !strcmp(s, "pax\n"), "a pax path");
	free(s);
	s = content("vm.env");
	ok(s && !strcmp(s, "host\n"), "the host's own file is left as it was");
	free(s);
}

/* Names. */
TEST(hostile_names_refused)
{
	struct tar t = { 0 };

	add(&t, "./output.txt", '0', NULL, "fine\n");
	add(&t, "/etc/evil", '0', NULL, "x\n");
	end(&t);
	refused(&t, "payload.tgz: member '/etc/evil': an absolute name", "an absolute name, after a good member");
	add(&t, "../evil", '0', NULL, "x\n");
	end(&t);
	refused(&t, "member '../evil': a '..' component", "a '..' name");
	add(&t, "./results/../../evil", '0', NULL, "x\n");
	end(&t);
	refused(&t, "member './results/../../evil': a '..' component", "a '..' deeper in");
	add(&t, "./a'b\nc", '0', NULL, "x\n");
	add(&t, "../x", '0', NULL, "x\n");
	end(&t);
	refused(&t, "member '../x'", "after a name with a quote and a newline");
	add(&t, "./bad\nname/../x", '0', NULL, "x\n");
	end(&t);
	refused(&t, "member './bad\\x0aname/../x': a '..' component", "a newline in a refused name is shown as \\x0a");
}

/* Links. */
TEST(hostile_links_refused)
{
	struct tar t = { 0 };

	add(&t, "./results/etc", '2', "/etc", NULL);
	end(&t);
	refused(&t, "member './results/etc': a symbolic link to an absolute path ('/etc')", "a link to /etc");
	add(&t, "./results/up", '2', "../../..", NULL);
	end(&t);
	refused(&t, "member './results/up': a symbolic link out of the directory ('../../..')", "a link out by '..'");
	add(&t, "./results/a", '2', ".", NULL);
	add(&t, "./results/b", '2', "a/../..", NULL);
	end(&t);
	refused(&t, "member './results/b': a symbolic link through another link of the archive", "a link through a link");
	add(&t, "./results/d/", '5', NULL, NULL);
	add(&t, "./results/l", '2', "d", NULL);
	add(&t, "./results/l/f", '0', NULL, "x\n");
	end(&t);
	refused(&t, "member './results/l/f': under the symbolic link './results/l' of the archive", "a member under a link");
	add(&t, "./hard", '1', "/etc/passwd", NULL);
	end(&t);
	refused(&t, "member './hard': a hard link to '/etc/passwd': an absolute name", "a hard link to /etc/passwd");
	add(&t, "./hard", '1', "../x", NULL);
	end(&t);
	refused(&t, "member './hard': a hard link to '../x': a '..' component", "a hard link out by '..'");
	add(&t, "./hard", '1', "./later", NULL);
	add(&t, "./later", '0', NULL, "x\n");
	end(&t);
	refused(&t, "member './hard': a hard link to 'later', not a file the archive extracts before it",
		"a hard link to a file not extracted yet");
}

/* Kinds. */
TEST(member_kinds)
{
	struct tar t = { 0 };
	char *s, link[500];
	int n;

	add(&t, "./null", '3', NULL, NULL);
	end(&t);
	refused(&t, "member './null': a character device", "a character device");
	add(&t, "./sda", '4', NULL, NULL);
	end(&t);
	refused(&t, "member './sda': a block device", "a block device");
	add(&t, "./fifo", '6', NULL, NULL);
	end(&t);
	refused(&t, "member './fifo': a FIFO", "a FIFO");
	/* What libarchive reads as no kind at all: GNU's 'M', the rest of a
	 * file from another volume. */
	add(&t, "./cont", 'M', NULL, "rest\n");
	end(&t);
	refused(&t, "member './cont': not a file, directory or link", "a member of no kind (GNU 'M')");
	/* A typeflag no tar defines is a regular file (POSIX; libarchive and
	 * GNU tar read it so): extracted as one. */
	add(&t, "./q", 'Q', NULL, "q\n");
	end(&t);
	n = run_tar(&t, t.n, NULL);
	s = content("q");
	ok(n == 0 && s && !strcmp(s, "q\n"), "an unknown typeflag is a regular file, as POSIX says (%s)", said_line());
	free(s);
	/* GNU's volume label ('V') names the archive, not a member. */
	add(&t, "./vol", 'V', NULL, NULL);
	add(&t, "./f", '0', NULL, "f\n");
	end(&t);
	n = run_tar(&t, t.n, NULL);
	s = content("f");
	snprintf(link, sizeof(link), "%s/vol", dest);
	ok(n == 0 && s && !strcmp(s, "f\n") && access(link, F_OK), "a volume label makes nothing (%s)", said_line());
	free(s);
}

/* Twice, and the host's own. */
TEST(name_twice_and_hosts_own_file)
{
	struct tar t = { 0 };
	char *s;
	int n;

	add(&t, "./x", '0', NULL, "1\n");
	add(&t, "./x", '0', NULL, "2\n");
	end(&t);
	refused(&t, "member './x': a second member of that name", "a name twice");
	add(&t, "./meta.json", '0', NULL, "{\"forged\": 1}\n");
	end(&t);
	n = run_tar(&t, 0, NULL);	/* reset */
	add(&t, "./meta.json", '0', NULL, "{\"forged\": 1}\n");
	end(&t);
	n = run_tar(&t, t.n, "meta.json");
	s = content("meta.json");
	ok(n == 1 && said("member './meta.json': the directory holds 'meta.json' already") && s && !strcmp(s, "host\n"),
	   "a member named like the host's own file is refused, the file kept (%s)", said_line());
	free(s);
}

/* Damage. */
TEST(damaged_archives_refused)
{
	struct tar t = { 0 };
	int n;

	add(&t, "./f", '0', NULL, "data\n");
	end(&t);
	t.b[0] ^= 1;
	refused(&t, "a damaged tar header at byte 0 (its checksum is wrong)", "a header whose checksum is wrong");
	add(&t, "./f", '0', NULL, "data\n");
	add(&t, "./g", '0', NULL, "data\n");
	n = run_tar(&t, 3 * 512 + 100, NULL);
	ok(n == 1 && said("member './g': cut short in its data") && entries(dest) == 0,
	   "a member cut short: named, nothing extracted (%s)", said_line());
	add(&t, "./f", '0', NULL, "data\n");
	n = run_tar(&t, t.n, NULL);
	ok(n == 1 && said("cut short: no end-of-archive block after byte 1024") && entries(dest) == 0,
	   "no end block: said, nothing extracted (%s)", said_line());
	{
		char p[400];
		size_t sz = 0;
		FILE *f;

		snprintf(p, sizeof(p), "%s/plain", tmp);
		write_file_atomic(p, "not gzip at all\n", 16);
		free(out);
		out = NULL;
		f = open_memstream(&out, &sz);
		n = untar_safe(p, "plain", dest, f);
		fclose(f);
		ok(n == 1 && lines(out) == 1 && said("plain: not a gzip stream"), "not a gzip stream: one line (%s)", said_line());
	}
}

/* The real tools: busybox's tar (the guest's) and GNU tar, on a tree
 * with a long name, a link inside, and then a FIFO and a link out. */
TEST(real_tars_busybox_and_gnu)
{
	char *s;
	int n;

	for (int i = 0; i < 2; i++) {
		const char *tool = i ? "tar" : "busybox tar";
		char src[400], deep[700], file[800], tgz[400];
		int fd;

		if (!i && access("/bin/busybox", X_OK)) {
			tap_skip("busybox tar's archive is extracted", "no /bin/busybox (apt-get install busybox-static)");
			tap_skip("busybox tar's FIFO and link out are refused", "no /bin/busybox");
			continue;
		}
		snprintf(src, sizeof(src), "%s/src", tmp);
		snprintf(tgz, sizeof(tgz), "%s/payload.tgz", tmp);
		fd = open(tmp, O_RDONLY | O_DIRECTORY);
		lab_rmtree_at(fd, "src");
		close(fd);
		snprintf(deep, sizeof(deep), "%s/results/r1/%s", src, longname + 60);
		mkdir_p(deep, 0755);
		snprintf(file, sizeof(file), "%s/output.txt", src);
		write_file_atomic(file, "hi\n", 3);
		snprintf(file, sizeof(file), "%s/results/r1/meta.json", src);
		write_file_atomic(file, "{}\n", 3);
		snprintf(file, sizeof(file), "%s/results/latest", src);
		n = symlink("r1", file);
		n = tar_czf(i, src, tgz);
		n = n ? -1 : run_untar(tgz);
		s = content("results/latest/meta.json");
		ok(n == 0 && s && !strcmp(s, "{}\n"), "%s's archive is extracted (%s)", tool, said_line());
		free(s);
		snprintf(file, sizeof(file), "%s/fifo", src);
		n = mkfifo(file, 0644);
		snprintf(file, sizeof(file), "%s/results/etc", src);
		n |= symlink("/etc", file);
		n = n || tar_czf(i, src, tgz) ? -1 : run_untar(tgz);
		ok(n == 2 && said("member './fifo': a FIFO") &&
		   said("member './results/etc': a symbolic link to an absolute path ('/etc')") && entries(dest) == 0,
		   "%s's FIFO and link out are refused, nothing extracted (%s)", tool, said_line());
	}
}

/* GNU tar's sparse file (-S: a hole, then data), in its 'S' header
 * and in pax's GNU.sparse records; and a pax name in UTF-8, which
 * libarchive reads under the lab's C locale with a warning. */
TEST(gnu_sparse_and_utf8_pax_name)
{
	char src[400], tgz[400], file[800], *s;
	int n, fd;

	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(tgz, sizeof(tgz), "%s/payload.tgz", tmp);
	fd = open(tmp, O_RDONLY | O_DIRECTORY);
	lab_rmtree_at(fd, "src");
	close(fd);
	mkdir(src, 0755);
	snprintf(file, sizeof(file), "%s/sparse", src);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	n = fd < 0 || pwrite(fd, "data", 4, 1 << 20) != 4;
	close(fd);
	for (int pax = 0; pax < 2; pax++) {
		free(run_capture_argv((const char *const[]){ "tar", "-S", pax ? "--format=pax" : "--format=gnu",
							     "-C", src, "-czf", tgz, ".", NULL },
				      RUN_STDERR_MERGE, NULL));
		n = run_untar(tgz);
		ok(n == 1 && said("member './sparse': a sparse file (a kind this reader does not extract)") &&
		   entries(dest) == 0, "GNU tar's sparse file (%s) is refused (%s)", pax ? "pax" : "'S'",
		   said_line());
	}
	unlink(file);
	snprintf(file, sizeof(file), "%s/caf\xc3\xa9", src);
	write_file_atomic(file, "utf-8\n", 6);
	setenv("LC_ALL", "C.UTF-8", 1);
	free(run_capture_argv((const char *const[]){ "tar", "--format=pax", "-C", src, "-czf", tgz, ".", NULL },
			      RUN_STDERR_MERGE, NULL));
	unsetenv("LC_ALL");
	n = run_untar(tgz);
	s = content("caf\xc3\xa9");
	ok(n == 0 && s && !strcmp(s, "utf-8\n"), "a pax name in UTF-8 keeps its bytes (%s)", said_line());
	free(s);
}

/* Last: what every case before left outside its destination. */
TEST(nothing_outside_destination_touched)
{
	char *s = read_text(canary, NULL);

	ok(s && !strcmp(s, "canary\n"), "nothing outside the destination was touched");
	free(s);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(canary, sizeof(canary), "%s/canary", tmp);
	write_file_atomic(canary, "canary\n", 7);
	snprintf(longname, sizeof(longname), "./results/%s/meta.json",
		 "2025-01-01-000000-a-results-directory-name-far-longer-than-the-hundred-bytes-of-a-ustar-name-field");
	rc = tap_main(argc, argv);
	{
		int fd = open("/tmp", O_RDONLY | O_DIRECTORY);

		lab_rmtree_at(fd, tmp + 5);
		close(fd);
	}
	return rc;
}
