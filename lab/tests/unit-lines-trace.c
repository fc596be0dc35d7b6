// SPDX-License-Identifier: GPL-2.0
/*
 * The lines plugin's access trace (c2c/lines_trace.h): written by the
 * plugin's own writer (c2c/lines_trace_write.h) and read back
 * (c2c/lines_trace_read.h): records in order with their sequence, an
 * access across two lines as two records, a full trace said with its
 * dropped count, and the refusals, each one line: another format
 * version, a trace the plugin never finished, one cut off (named with
 * its record count), a bad record (its sequence and field).  Then the
 * objects a record falls in (window-objects.tsv, window-ranges.tsv).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "c2c/lines_trace_read.h"
#include "c2c/lines_trace_write.h"
#include "tests/tap.h"

static char dir[] = "/tmp/unit-lines-trace.XXXXXX";

static char *path_of(const char *name)
{
	static char p[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put_file(const char *name, const void *data, size_t n)
{
	FILE *f = fopen(path_of(name), "w");

	if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
		printf("Bail out! cannot write %s\n", name);
		exit(1);
	}
}

/* The bytes of a file, and its size. */
static unsigned char *get_file(const char *name, size_t *n)
{
	FILE *f = fopen(path_of(name), "r");
	unsigned char *b = malloc(1 << 20);

	*n = f ? fread(b, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return b;
}

/* A trace of: a load, a store across two lines, a load on vCPU 2. */
static void write_three(const char *name, uint64_t cap)
{
	struct lines_trace_writer w;
	char err[256];

	if (lines_trace_writer_open(&w, path_of(name), cap, 4, false, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	lines_trace_put(&w, 0, 1, 0xffffffff81000010ULL, 0xffff888000001008ULL, 8, false);
	lines_trace_put(&w, 0, 3, 0xffffffff81000020ULL, 0xffff88800000103cULL, 8, true);
	lines_trace_put(&w, 1, 2, 0xffffffff81000030ULL, 0xffff888000002000ULL, 4, false);
	if (lines_trace_writer_finish(&w, err, sizeof(err)) < 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
}

/* The one-line error of opening name, or "" when it opened. */
static const char *open_err(const char *name)
{
	static char err[512];
	struct lines_trace t;

	err[0] = '\0';
	if (lines_trace_open(&t, path_of(name), err, sizeof(err)) == 0) {
		lines_trace_close(&t);
		return "";
	}
	return err;
}

TEST(records_in_order)
{
	struct lines_trace t;
	const struct lines_trace_rec *r;
	char err[512], note[256];
	struct stat st;

	write_three("t.bin", 100);
	if (stat(path_of("t.bin"), &st) < 0)
		st.st_size = -1;
	ok(st.st_size == 80 + 4 * 24,
	   "the file is the header and 4 records of 24 bytes (%lld bytes): cut to its records", (long long)st.st_size);
	if (!ok(lines_trace_open(&t, path_of("t.bin"), err, sizeof(err)) == 0, "a complete trace opens") ) {
		tap_diag("%s", err);
		return;
	}
	ok(t.hdr.nrecords == 4 && t.hdr.dropped == 0 && t.hdr.cap == 100 && t.hdr.vcpus == 4 &&
	   t.hdr.status == LINES_TRACE_COMPLETE && !strcmp(lines_trace_status_name(t.hdr.status), "complete"),
	   "its header: 4 records, none dropped, cap 100, 4 vCPUs, complete");
	ok(!lines_trace_full(&t, note, sizeof(note)), "a complete trace is not full");
	r = lines_trace_next(&t);
	ok(r && t.next == 1 && r->vaddr == 0xffff888000001008ULL && r->pc == 0xffffffff81000010ULL && r->vcpu == 1 &&
	   r->size == 8 && r->flags == 0 && r->window == 0, "record 0: the load, vCPU 1, 8 bytes, its PC and window");
	r = lines_trace_next(&t);
	ok(r && r->vaddr == 0xffff88800000103cULL && r->size == 4 && r->flags == LINES_TRACE_STORE && r->vcpu == 3,
	   "record 1: the store's first 4 bytes, to the end of its line");
	r = lines_trace_next(&t);
	ok(r && r->vaddr == 0xffff888000001040ULL && r->size == 4 && r->flags == LINES_TRACE_STORE &&
	   r->pc == 0xffffffff81000020ULL, "record 2: its other 4 bytes, on the next line, the same PC");
	r = lines_trace_next(&t);
	ok(r && r->window == 1 && r->vcpu == 2 && t.next == 4, "record 3: window 1, vCPU 2; next is 4");
	ok(!lines_trace_next(&t), "then the end");
	ok(lines_trace_at(&t, 2) && lines_trace_at(&t, 2)->size == 4 && !lines_trace_at(&t, 4),
	   "random access by sequence, NULL past the end");
	lines_trace_rewind(&t);
	ok(lines_trace_next(&t) == lines_trace_at(&t, 0), "rewound: record 0 again");
	lines_trace_close(&t);
}

TEST(full_trace_dropped)
{
	struct lines_trace t;
	char err[512], note[256];

	write_three("full.bin", 2);
	if (!ok(lines_trace_open(&t, path_of("full.bin"), err, sizeof(err)) == 0, "a full trace opens")) {
		tap_diag("%s", err);
		return;
	}
	ok(t.hdr.status == LINES_TRACE_FULL && t.hdr.nrecords == 2 && t.hdr.dropped == 2,
	   "full: 2 records (its cap) and the other 2 counted as dropped");
	ok(lines_trace_full(&t, note, sizeof(note)) && strstr(note, "full") && strstr(note, "cap of 2 records") &&
	   strstr(note, "2 more accesses were not written"), "said in one line: %s", note);
	lines_trace_close(&t);
}

TEST(refusals_one_line)
{
	unsigned char *b;
	size_t n;
	struct lines_trace_header *h;
	struct lines_trace_rec *r;
	struct lines_trace_writer w;
	char err[256];
	const char *e;

	write_three("good.bin", 100);
	b = get_file("good.bin", &n);
	h = (struct lines_trace_header *)b;

	h->version = 2;
	put_file("v2.bin", b, n);
	e = open_err("v2.bin");
	ok(strstr(e, "v2.bin: trace format version 2; this memcg-lab reads version 1") && !strchr(e, '\n'),
	   "another format version: %s", e);
	h->version = LINES_TRACE_VERSION;

	put_file("cut.bin", b, n - 30);
	e = open_err("cut.bin");
	ok(strstr(e, "cut.bin: cut off: 2 whole records of the 4 its header announces"), "cut off: %s", e);

	put_file("short.bin", b, 40);
	e = open_err("short.bin");
	ok(strstr(e, "short.bin: cut off: 40 bytes"), "shorter than a header: %s", e);

	/* qemu killed: the writer never finished, the header says writing. */
	if (lines_trace_writer_open(&w, path_of("writing.bin"), 10, 4, false, err, sizeof(err)) == 0) {
		lines_trace_put(&w, 0, 0, 1, 0x1000, 8, false);
		e = open_err("writing.bin");
		ok(strstr(e, "writing.bin: cut off: the plugin did not finish the trace (status writing)"),
		   "never finished: %s", e);
		lines_trace_writer_finish(&w, err, sizeof(err));
	}

	put_file("magic.bin", "not a trace at all, but long enough to hold the header of one: 80 bytes and more!!", 82);
	e = open_err("magic.bin");
	ok(strstr(e, "magic.bin: not a lines trace"), "no magic: %s", e);

	r = (struct lines_trace_rec *)(b + 80);
	r[1].vcpu = 4;
	put_file("vcpu.bin", b, n);
	e = open_err("vcpu.bin");
	ok(strstr(e, "vcpu.bin: record 1: field vcpu"), "a record's vCPU out of range: %s", e);
	r[1].vcpu = 3;
	r[2].size = 0;
	put_file("size.bin", b, n);
	e = open_err("size.bin");
	ok(strstr(e, "size.bin: record 2: field size"), "a record of 0 bytes: %s", e);
	r[2].size = 4;
	r[0].vaddr |= 0x3c;	/* 8 bytes at offset 0x3c cross the line */
	put_file("cross.bin", b, n);
	e = open_err("cross.bin");
	ok(strstr(e, "cross.bin: record 0: field size"), "a record across a line: %s", e);
	r[0].vaddr &= ~0x3cULL;
	r[0].vaddr |= 8;
	r[3].flags = 4;
	put_file("flags.bin", b, n);
	e = open_err("flags.bin");
	ok(strstr(e, "flags.bin: record 3: field flags"), "unknown flags: %s", e);
	r[3].flags = 0;
	h->status = 7;
	put_file("status.bin", b, n);
	e = open_err("status.bin");
	ok(strstr(e, "status.bin: header field status: 7"), "an unknown status: %s", e);
	h->status = LINES_TRACE_COMPLETE;
	put_file("again.bin", b, n);
	ok(!*open_err("again.bin"), "the same bytes repaired open again");
	free(b);
	e = open_err("absent.bin");
	ok(strstr(e, "absent.bin: cannot open"), "a missing file: %s", e);
}

TEST(record_objects)
{
	const char *objs = "window\tlabel\ttype\taddress\tsize\tsource\n"
			   "0\tmemcg:/c1\tmem_cgroup\t0xffff888000100000\t4096\tbpf\n"
			   "0\tcpu0\tmemcg_stock_pcp\t0xffff88803fc00000\t128\tpercpu\n"
			   "0\tinner\tpage_counter\t0xffff888000100100\t64\ttest\n"
			   "1\tmemcg:/c1\tmem_cgroup\t0xffff888000100000\t4096\tbpf\n";
	const char *rng = "window\tname\taddress\tsize\tstride\tfields\n"
			  "0\thslot\t0x7f0000001000\t1024\t256\tcount:0:8,state:128:4\n";
	struct lines_trace_objs o;
	const struct lines_trace_obj *x;
	uint64_t off = 0;
	char err[512];

	put_file("window-objects.tsv", objs, strlen(objs));
	put_file("window-ranges.tsv", rng, strlen(rng));
	int rc = lines_trace_objs_load(&o, dir, err, sizeof(err));

	if (!ok(rc == 0 && o.n == 5, "objects and ranges load (%zu)", o.n)) {
		tap_diag("%s", err);
		return;
	}
	x = lines_trace_obj_of(&o, 0, 0xffff888000100010ULL, &off);
	ok(x && !strcmp(x->type, "mem_cgroup") && off == 0x10 && !x->range, "an address in the memcg: offset 0x10");
	x = lines_trace_obj_of(&o, 0, 0xffff888000100108ULL, &off);
	ok(x && !strcmp(x->type, "page_counter") && off == 8, "nested: the inner object, offset 8");
	x = lines_trace_obj_of(&o, 0, 0xffff888000100148ULL, &off);
	ok(x && !strcmp(x->type, "mem_cgroup") && off == 0x148, "past the inner object: the memcg again");
	x = lines_trace_obj_of(&o, 0, 0xffff88803fc0007fULL, &off);
	ok(x && !strcmp(x->label, "cpu0") && off == 0x7f, "the stock's last byte");
	ok(!lines_trace_obj_of(&o, 0, 0xffff88803fc00080ULL, NULL), "one past it: no object (a neighbour on its line)");
	x = lines_trace_obj_of(&o, 0, 0x7f0000001000ULL + 2 * 256 + 130, &off);
	ok(x && x->range && !strcmp(x->type, "hslot") && off == 130 && !strcmp(x->fields, "count:0:8,state:128:4"),
	   "a range: offset within its element (130)");
	ok(!lines_trace_obj_of(&o, 1, 0xffff88803fc00000ULL, NULL) &&
	   lines_trace_obj_of(&o, 1, 0xffff888000100000ULL, NULL), "per window: window 1 has the memcg, not the stock");
	ok(!lines_trace_obj_of(&o, 2, 0xffff888000100000ULL, NULL), "a window without objects: none");
	lines_trace_objs_free(&o);

	put_file("window-objects.tsv", "window\tlabel\ttype\taddress\tsize\tsource\n0\tx\tmem_cgroup\tzz\t8\tbpf\n", 62);
	ok(lines_trace_objs_load(&o, dir, err, sizeof(err)) < 0 && strstr(err, "window-objects.tsv:2: field address"),
	   "a bad address: %s", err);
	put_file("window-objects.tsv", "window\tlabel\ttype\tsize\n", 23);
	ok(lines_trace_objs_load(&o, dir, err, sizeof(err)) < 0 && strstr(err, "no column 'address'"),
	   "a missing column: %s", err);
	unlink(path_of("window-objects.tsv"));
	unlink(path_of("window-ranges.tsv"));
	ok(lines_trace_objs_load(&o, dir, err, sizeof(err)) == 0 && o.n == 0, "no files: no objects");
	lines_trace_objs_free(&o);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	rc = tap_main(argc, argv);
	tap_rm_rf(dir);
	return rc;
}
