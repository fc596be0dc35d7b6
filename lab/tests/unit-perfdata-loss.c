// SPDX-License-Identifier: GPL-2.0
/*
 * perf/perfdata_loss.c on files whose losses are known: the lab's perf.data
 * writer with LOST, LOST_SAMPLES (and perf record --filter's BPF drops),
 * THROTTLE, UNTHROTTLE and AUX records among its samples (the real perf
 * 6.1 and 7.3 read the same files in lab/tests/perf-losses.sh); a
 * recording large enough that records straddle the reader's 1 MiB pieces;
 * and hand-built data sections for what the writer never writes: AUXTRACE
 * payloads, compressed records, damaged or cut-off records, each refused
 * with the byte where it happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "perf/perfdata.h"
#include "perf/perfdata_loss.h"
#include "perf/perfdata_write.h"
#include "tests/tap.h"
#include "util/err.h"

static char tmp[] = "/tmp/unit-perfdata-loss.XXXXXX";

static void write_samples(struct perfdata_writer *w, int n)
{
	for (int i = 0; i < n; i++) {
		struct perfdata_mem_sample s = {
			.kind = i % 2 ? PERFDATA_MEM_LCL_HITM : PERFDATA_MEM_STORE,
			.ip = 0xffffffff81001000ULL, .addr = 0xffff888100000000ULL + 64 * (i % 8),
			.weight = 100, .pid = 100, .tid = 100, .cpu = i % 2,
		};

		perfdata_writer_sample(w, &s);
	}
}

static char *save(struct perfdata_writer *w, const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name), err[512];

	if (perfdata_writer_save(w, path, err, sizeof(err)))
		tap_diag("%s", err);
	perfdata_writer_free(w);
	return path;
}

/* A file: the header, then data as the data section (no attrs, no features). */
static char *handmade(const char *name, const void *data, size_t len, uint64_t feat0)
{
	struct perfdata_header h = { .magic = PF_MAGIC2, .size = sizeof(h), .attr_size = 0 };
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "w");

	h.data.offset = sizeof(h);
	h.data.size = len;
	h.adds_features[0] = feat0;
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 || (len && fwrite(data, len, 1, f) != 1) || fclose(f))
		tap_diag("cannot write %s: %s", path, strerror(errno));
	return path;
}

/* Overwrites 8 bytes at off. */
static void poke64(const char *path, uint64_t off, uint64_t v)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, &v, 8, off) != 8)
		tap_diag("cannot patch %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static uint64_t peek64(const char *path, uint64_t off)
{
	int fd = open(path, O_RDONLY);
	uint64_t v = 0;

	if (fd < 0 || pread(fd, &v, 8, off) != 8)
		tap_diag("cannot read %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return v;
}

/* Reads path expecting a refusal whose line holds want. */
static void refused(const char *path, const char *want, const char *what)
{
	struct perfdata_loss l;
	char err[512] = "";
	int r = perfdata_loss_read(path, &l, err, sizeof(err));

	ok(r == -1 && strstr(err, want) && strstr(err, path) && !strchr(err, '\n') && !l.samples && !l.records,
	   "%s: refused naming the file and '%s'", what, want);
	if (r != -1 || !strstr(err, want))
		tap_diag("  got %d: %s", r, err);
}

TEST(known_losses)
{
	struct perfdata_write_info info = { .ncpus = 2 };
	struct perfdata_writer *w = perfdata_writer_new(&info);
	struct perfdata_loss l;
	char err[512] = "", line[1024], *path;

	write_samples(w, 10);
	perfdata_writer_lost(w, 300);
	perfdata_writer_throttle(w, false);
	write_samples(w, 3);
	perfdata_writer_lost(w, 5);
	perfdata_writer_throttle(w, true);
	perfdata_writer_lost_samples(w, 200, false);
	perfdata_writer_lost_samples(w, 200, false);
	perfdata_writer_lost_samples(w, 7, true);
	perfdata_writer_aux(w, 0, 4096, PERF_AUX_FLAG_TRUNCATED);
	perfdata_writer_aux(w, 4096, 4096, PERF_AUX_FLAG_COLLISION);
	perfdata_writer_aux(w, 8192, 4096, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_COLLISION);
	perfdata_writer_aux(w, 12288, 4096, PERF_AUX_FLAG_PARTIAL);
	perfdata_writer_aux(w, 16384, 4096, 0);
	path = save(w, "known.data");
	if (!ok(perfdata_loss_read(path, &l, err, sizeof(err)) == 0, "known losses: read"))
		tap_diag("  %s", err);
	is_int(l.samples, 13, "13 samples");
	is_int(l.lost, 305, "LOST: 300 + 5 summed");
	is_int(l.lost_records, 2, "in 2 LOST records");
	is_int(l.lost_samples, 400, "LOST_SAMPLES: 200 + 200 summed, the BPF filter's 7 apart");
	is_int(l.lost_samples_records, 2, "in 2 LOST_SAMPLES records");
	is_int(l.bpf_dropped, 7, "7 dropped by the BPF filter");
	is_int(l.throttle, 1, "1 THROTTLE");
	is_int(l.unthrottle, 1, "1 UNTHROTTLE");
	is_int(l.aux, 5, "5 AUX records");
	is_int(l.aux_truncated, 3, "3 of them lost data (TRUNCATED, COLLISION or both; PARTIAL is a gap, not a loss)");
	is_int(l.aux_collision, 2, "2 by collision");
	/* The COMM the writer adds, 13 samples, 12 loss records, FINISHED_ROUND. */
	is_int(l.records, 1 + 13 + 12 + 1, "every record counted");
	is_int(perfdata_loss_lost(&l), 400, "lost: the larger view, LOST_SAMPLES' 400, not 705");
	ok(perfdata_loss_share(&l) > 0.9685 && perfdata_loss_share(&l) < 0.9686,
	   "share 400 / (13 + 400), as perf's own 'lost 96.85%%'");
	perfdata_loss_line(&l, line, sizeof(line));
	ok(!strcmp(line, "13 samples, 400 lost (96.85%): 400 in 2 LOST_SAMPLES records, 305 in 2 LOST records; "
			 "throttled 1 time, unthrottled 1 time; AUX data lost in 3 of 5 AUX records (2 by collision); "
			 "7 dropped by the --filter BPF program (not lost)"), "the line: %s", line);
	perfdata_loss_tsv_row(&l, line, sizeof(line));
	ok(!strcmp(line, "13\t305\t2\t400\t1\t1\t3\t96.85"), "the TSV row");
	ok(!strcmp(perfdata_loss_tsv_header,
		   "samples\tlost\tlost_records\tlost_samples\tthrottle\tunthrottle\taux_truncated\tlost_pct"),
	   "the TSV header");
	perfdata_loss_line(&l, line, 20);
	is_int(strlen(line), 19, "a short buffer: the line cut, terminated");
	free(path);
}

TEST(no_losses)
{
	struct perfdata_write_info info = { .ncpus = 1 };
	struct perfdata_writer *w = perfdata_writer_new(&info);
	struct perfdata_loss l;
	char err[512] = "", line[512], *path;

	write_samples(w, 4);
	path = save(w, "clean.data");
	ok(perfdata_loss_read(path, &l, err, sizeof(err)) == 0 && l.samples == 4 && !l.lost && !l.lost_samples &&
	   !l.throttle && !l.aux, "no losses: 4 samples and nothing else");
	perfdata_loss_line(&l, line, sizeof(line));
	ok(!strcmp(line, "4 samples, 0 lost (no LOST or LOST_SAMPLES records); never throttled"),
	   "the line says which records were not there: %s", line);
	ok(perfdata_loss_share(&l) == 0, "share 0 of 4 samples");
	free(path);

	/* LOST records only (a kernel or perf before 6.0): those are the loss. */
	w = perfdata_writer_new(&info);
	write_samples(w, 6);
	perfdata_writer_lost(w, 2);
	path = save(w, "lost-only.data");
	ok(perfdata_loss_read(path, &l, err, sizeof(err)) == 0 && perfdata_loss_lost(&l) == 2 &&
	   perfdata_loss_share(&l) == 0.25, "LOST only: 2 lost of 8, 25%%");
	free(path);
}

TEST(zero_samples)
{
	uint8_t fin[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };	/* FINISHED_ROUND */
	struct perfdata_loss l;
	char err[512] = "", row[256], *path = handmade("empty.data", fin, sizeof(fin), 0);

	ok(perfdata_loss_read(path, &l, err, sizeof(err)) == 0 && l.records == 1 && !l.samples,
	   "no samples: one record, read");
	ok(perfdata_loss_share(&l) == -1, "a share of nothing is -1, not 0");
	perfdata_loss_tsv_row(&l, row, sizeof(row));
	ok(!strcmp(row, "0\t0\t0\t0\t0\t0\t0\t-"), "and '-' in the TSV: %s", row);
	free(path);
}

/* Records that straddle the reader's 1 MiB pieces. */
TEST(large_counts)
{
	struct perfdata_write_info info = { .ncpus = 2 };
	struct perfdata_writer *w = perfdata_writer_new(&info);
	struct perfdata_loss l;
	char err[512] = "", *path;
	struct stat st;
	int r;

	for (int k = 0; k < 30; k++) {
		write_samples(w, 1001);
		perfdata_writer_lost(w, k);
		perfdata_writer_throttle(w, false);
		perfdata_writer_throttle(w, true);
	}
	path = save(w, "large.data");
	stat(path, &st);
	r = perfdata_loss_read(path, &l, err, sizeof(err));
	ok(r == 0 && st.st_size > 2 * (1 << 20) && l.samples == 30030 && l.lost == 435 && l.lost_records == 30 &&
	   l.throttle == 30 && l.unthrottle == 30,
	   "a %jd-byte file read in 1 MiB pieces: 30030 samples, LOST 0+..+29 = 435, 30 throttles",
	   (intmax_t)st.st_size);
	if (r || l.samples != 30030 || l.lost != 435)
		tap_diag("  %s; %" PRIu64 " samples, %" PRIu64 " lost", err, l.samples, l.lost);
	free(path);
}

TEST(handmade_records)
{
	/* LOST {id, lost}, then AUXTRACE {size, offset, reference, idx, tid, cpu, reserved} + 16 payload
	 * bytes holding what would be a LOST record, then LOST_SAMPLES {lost}. */
	uint64_t d[] = {
		2 | (uint64_t)24 << 48, 1, 11,
		71 | (uint64_t)56 << 48, 16, 0, 0, 0, 0, 0,
		2 | (uint64_t)24 << 48, 99,
		13 | (uint64_t)16 << 48, 4,
	};
	struct perfdata_loss l;
	char err[512] = "", *path;
	uint64_t bad[4];

	path = handmade("auxtrace.data", d, sizeof(d), 0);
	ok(perfdata_loss_read(path, &l, err, sizeof(err)) == 0 && l.records == 3 && l.lost == 11 &&
	   l.lost_records == 1 && l.lost_samples == 4, "an AUXTRACE payload is skipped, not read as records");
	if (l.lost != 11)
		tap_diag("  %s; lost %" PRIu64 " in %" PRIu64 " records", err, l.lost, l.records);
	free(path);

	/* The same payload running past the data section. */
	d[4] = 64;
	path = handmade("auxtrace-cut.data", d, sizeof(d), 0);
	refused(path, "AUXTRACE record at byte 128 carries 64 bytes, past the data section's end at byte 216",
		"an AUXTRACE payload past the end");
	free(path);

	memcpy(bad, (uint64_t[]){ 2 | (uint64_t)24 << 48, 1, 11, 81 | (uint64_t)8 << 48 }, sizeof(bad));
	path = handmade("compressed.data", bad, sizeof(bad), 0);
	refused(path, "Zstd-compressed record (perf record -z) at byte 128", "a COMPRESSED record");
	free(path);
	bad[3] = 83 | (uint64_t)8 << 48;
	path = handmade("compressed2.data", bad, sizeof(bad), 0);
	refused(path, "Zstd-compressed record (perf record -z) at byte 128", "a COMPRESSED2 record (perf 6.15+)");
	free(path);
	path = handmade("compressed-feat.data", bad, 24, 1ULL << PF_FEAT_COMPRESSED);
	refused(path, "Zstd-compressed (perf record -z)", "the COMPRESSED header feature");
	free(path);
	path = handmade("dir.data", bad, 24, 1ULL << PF_FEAT_DIR_FORMAT);
	refused(path, "perf record --threads", "a perf.data directory's header");
	free(path);

	bad[3] = 2 | (uint64_t)12 << 48;
	path = handmade("odd.data", bad, sizeof(bad), 0);
	refused(path, "corrupt record header at byte 128 (type 2, size 12)", "a record size not a multiple of 8");
	free(path);
	bad[3] = 2 | (uint64_t)4 << 48;
	path = handmade("tiny.data", bad, sizeof(bad), 0);
	refused(path, "corrupt record header at byte 128 (type 2, size 4)", "a record smaller than its header");
	free(path);
	path = handmade("half-header.data", bad, 28, 0);
	refused(path, "truncated record header at byte 128", "a data section ending inside a record header");
	free(path);
}

TEST(cut_files)
{
	struct perfdata_write_info info = { .ncpus = 2 };
	struct perfdata_writer *w = perfdata_writer_new(&info);
	char *path, *want;
	uint64_t off, size, aux_at;

	write_samples(w, 20);
	perfdata_writer_lost(w, 3);
	perfdata_writer_aux(w, 0, 64, 0);
	path = save(w, "cut.data");
	off = peek64(path, 40);
	size = peek64(path, 48);
	/* The AUX record (56 bytes) is last before the 8-byte FINISHED_ROUND. */
	aux_at = off + size - 8 - 56;

	/* A data size that ends inside the AUX record. */
	poke64(path, 48, size - 16);
	want = xasprintf("truncated: the record at byte %" PRIu64 " (type 11, 56 bytes) runs past the data "
			 "section's end at byte %" PRIu64, aux_at, off + size - 16);
	refused(path, want, "a record running past the data section");
	free(want);

	/* The file cut inside its data section. */
	poke64(path, 48, size);
	if (truncate(path, off + size / 2))
		tap_diag("truncate: %s", strerror(errno));
	want = xasprintf("truncated: the data section ends at byte %" PRIu64 " but the file has %" PRIu64,
			 off + size, off + size / 2);
	refused(path, want, "a file cut inside its data");
	free(want);

	if (truncate(path, 60))
		tap_diag("truncate: %s", strerror(errno));
	refused(path, "truncated: the header ends at byte 104 but the file has 60", "a file cut inside its header");
	if (truncate(path, 10))
		tap_diag("truncate: %s", strerror(errno));
	refused(path, "truncated: 10 bytes, not even a perf.data header", "a 10-byte file");
	poke64(path, 0, 0x50455246494c4532ULL);
	poke64(path, 8, 104);
	refused(path, "a big-endian perf.data is not supported", "a big-endian magic");
	free(path);

	path = handmade("zero.data", NULL, 0, 0);
	refused(path, "the data size in the header is 0: perf record did not finish", "a data size of 0");
	poke64(path, 8, 16);
	refused(path, "pipe-mode perf.data", "a pipe-mode header");
	poke64(path, 0, 0x1234);
	refused(path, "not a perf.data file", "no magic");
	free(path);
	path = xasprintf("%s/missing.data", tmp);
	refused(path, "cannot open: No such file or directory", "a missing file");
	free(path);
	refused(tmp, "a perf.data directory (perf record --threads)", "a directory");
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	rc = tap_main(argc, argv);
	tap_rm_rf(tmp);
	return rc;
}
