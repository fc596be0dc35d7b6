// SPDX-License-Identifier: GPL-2.0
/*
 * memsamples: writes a perf.data holding memory samples chosen by the test,
 * as `perf c2c record` would have recorded them on an Intel box, so that
 * the real `perf c2c report` can be run on known samples where no PMU is.
 *
 *   memsamples -o FILE [--cpus N] SAMPLE...
 *   SAMPLE: KIND,ADDR,COUNT[,cpu=N][,ip=ADDR][,pid=N][,weight=N]
 *   KIND:   lcl-hitm | rmt-hitm | llc-hit | l1-hit | store
 *
 * What perf needs of the file, from its source (tools/perf):
 * - one attribute as `perf c2c record -e ldlat-loads` sets it
 *   (builtin-c2c.c, util/mem-events.c: cpu/mem-loads,ldlat=30/P, i.e. raw
 *   0x1cd with ldlat 30 in config1; precise; perf record -d -W --phys-data
 *   --sample-cpu: IP|TID|TIME|ADDR|CPU|PERIOD|WEIGHT|DATA_SRC|PHYS_ADDR);
 * - data_src encoded as Intel PEBS load latency does
 *   (arch/x86/events/intel/ds.c): local HITM is an L3 hit with a HITM
 *   snoop, remote HITM a hit in a remote cache (REM_CCE1) with a HITM
 *   snoop, which c2c_decode_stats() (util/mem-events.c) counts as
 *   lcl_hitm and rmt_hitm;
 * - the header features perf c2c report reads: NRCPUS and NUMA_TOPOLOGY
 *   (setup_nodes() fails without nodes), MEM_TOPOLOGY (the data address's
 *   node, from its physical address: the direct map's), plus those perf record always
 *   writes and perf report prints (hostname, os release, version, arch,
 *   cmdline, event desc), in perf's layout (util/header.c: strings are a
 *   u32 length, NUL-padded to 64 bytes).
 * Samples are spread one microsecond apart; the records end with
 * FINISHED_ROUND, as perf record writes them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

/* perf's feature bits (tools/perf/util/header.h). */
enum { F_HOSTNAME = 3, F_OSRELEASE = 4, F_VERSION = 5, F_ARCH = 6, F_NRCPUS = 7, F_CMDLINE = 11,
       F_EVENT_DESC = 12, F_NUMA_TOPOLOGY = 14, F_MEM_TOPOLOGY = 22, F_MAX = 256 };
/* MEM_TOPOLOGY: 64 blocks of 128 MiB (the physical addresses below 8 GiB) on node 0. */
#define MEM_BLOCK (128ULL << 20)
#define MEM_BLOCKS 64
#define RECORD_FINISHED_ROUND 68
/* What perf 6.1 writes (PERF_ATTR_SIZE_VER7); every later perf reads it. */
#define ATTR_SIZE 128
#define EVENT_NAME "cpu/mem-loads,ldlat=30/P"

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("memsamples");
			exit(1);
		}
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct buf *b, uint64_t v) { put(b, &v, 8); }

/* util/header.c do_write_string(): u32 length with the NUL, padded to 64. */
static void put_string(struct buf *b, const char *s)
{
	uint32_t len = strlen(s) + 1, padded = (len + 63) / 64 * 64;
	static const char zeros[64];

	put_u32(b, padded);
	put(b, s, len - 1);
	put(b, zeros, padded - len + 1);
}

struct sample {
	uint64_t addr, ip, data_src, weight;
	uint32_t count, cpu, pid;
};

#define SAMPLE_SYNTAX "KIND,ADDR,COUNT[,cpu=N][,ip=ADDR][,pid=N][,weight=N]"

static void usage(const char *why, const char *arg)
{
	fprintf(stderr, "memsamples: %s%s%s\nusage: memsamples -o FILE [--cpus N] " SAMPLE_SYNTAX "...\n"
		"  KIND: lcl-hitm | rmt-hitm | llc-hit | l1-hit | store\n", arg ? arg : "", arg ? ": " : "", why);
}

/* union perf_mem_data_src as Intel PEBS load latency fills it in. */
static int data_src_of(const char *kind, uint64_t *out)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = PERF_MEM_OP_LOAD;
	d.mem_lock = PERF_MEM_LOCK_NA;
	d.mem_dtlb = PERF_MEM_TLB_NA;
	d.mem_snoop = PERF_MEM_SNOOP_NONE;
	if (!strcmp(kind, "lcl-hitm")) {
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		d.mem_snoop = PERF_MEM_SNOOP_HITM;
	} else if (!strcmp(kind, "rmt-hitm")) {
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE1;
		/* Not mem_remote: without mem_hops c2c_decode_stats() would
		 * count it as remote DRAM too. */
		d.mem_lvl_num = PERF_MEM_LVLNUM_ANY_CACHE;
		d.mem_snoop = PERF_MEM_SNOOP_HITM;
	} else if (!strcmp(kind, "llc-hit")) {
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		d.mem_snoop = PERF_MEM_SNOOP_HIT;
	} else if (!strcmp(kind, "l1-hit")) {
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L1;
	} else if (!strcmp(kind, "store")) {
		d.mem_op = PERF_MEM_OP_STORE;
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L1;
	} else {
		return -1;
	}
	*out = d.val;
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

static int parse_sample(char *spec, struct sample *s)
{
	char *save = NULL, *kind = strtok_r(spec, ",", &save), *addr = strtok_r(NULL, ",", &save);
	char *count = strtok_r(NULL, ",", &save), *kv;
	uint64_t v;

	memset(s, 0, sizeof(*s));
	s->ip = 0xffffffff81000000ULL;
	s->pid = 1000;
	s->weight = 200;
	if (!kind || !addr || !count || data_src_of(kind, &s->data_src) < 0 || parse_u64(addr, &s->addr) < 0 ||
	    parse_u64(count, &v) < 0 || !v || v > 1000000)
		return -1;
	s->count = (uint32_t)v;
	while ((kv = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(kv, '=');

		if (!eq || parse_u64(eq + 1, &v) < 0)
			return -1;
		*eq = '\0';
		if (!strcmp(kv, "cpu"))
			s->cpu = (uint32_t)v;
		else if (!strcmp(kv, "ip"))
			s->ip = v;
		else if (!strcmp(kv, "pid"))
			s->pid = (uint32_t)v;
		else if (!strcmp(kv, "weight"))
			s->weight = v;
		else
			return -1;
	}
	return 0;
}

static void attr_of(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_RAW;
	a->size = ATTR_SIZE;
	a->config = 0x1cd;	/* MEM_TRANS_RETIRED.LOAD_LATENCY */
	a->config1 = 30;	/* ldlat */
	a->sample_freq = 4000;
	a->freq = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			 PERF_SAMPLE_PHYS_ADDR;
	a->read_format = PERF_FORMAT_ID;
	a->disabled = 1;
	a->inherit = 1;
	a->precise_ip = 3;
	a->mmap = a->comm = a->task = a->mmap_data = a->mmap2 = a->comm_exec = 1;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
}

/* The sample_id trailer of non-sample records: TID, TIME, CPU. */
static void put_sample_id(struct buf *b, uint32_t pid, uint64_t time, uint32_t cpu)
{
	put_u32(b, pid);
	put_u32(b, pid);
	put_u64(b, time);
	put_u32(b, cpu);
	put_u32(b, 0);
}

static void put_comm(struct buf *b, uint32_t pid, uint64_t time)
{
	char comm[16];
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_USER };

	snprintf(comm, sizeof(comm), "memtest%u", pid);
	h.size = sizeof(h) + 8 + sizeof(comm) + 24;
	put(b, &h, sizeof(h));
	put_u32(b, pid);
	put_u32(b, pid);
	put(b, comm, sizeof(comm));
	put_sample_id(b, pid, time, 0);
}

static void put_sample(struct buf *b, const struct sample *s, uint64_t time)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL,
				       .size = sizeof(h) + 9 * 8 };

	put(b, &h, sizeof(h));
	put_u64(b, s->ip);			/* IP */
	put_u32(b, s->pid);			/* TID */
	put_u32(b, s->pid);
	put_u64(b, time);			/* TIME */
	put_u64(b, s->addr);			/* ADDR */
	put_u32(b, s->cpu);			/* CPU */
	put_u32(b, 0);
	put_u64(b, 1);				/* PERIOD */
	put_u64(b, s->weight);			/* WEIGHT */
	put_u64(b, s->data_src);		/* DATA_SRC */
	put_u64(b, (s->addr - 0xffff888000000000ULL) % (MEM_BLOCK * MEM_BLOCKS));	/* PHYS_ADDR */
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	struct sample *samples = calloc(argc, sizeof(*samples));
	struct buf data = { 0 }, feat[F_MAX] = { { 0 } }, out = { 0 };
	const char *path = NULL;
	uint64_t features[4] = { 0 }, time = 1000000000ULL, id = 1;
	uint32_t ncpus = 2, nsamples = 0;
	char cpus[32], cmdline[4096] = "";
	int ret = 2;
	FILE *f;

	if (!samples) {
		perror("memsamples");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			path = argv[++i];
		} else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
			uint64_t v;

			if (parse_u64(argv[++i], &v) < 0 || !v || v > 4096) {
				usage("expected 1..4096", "--cpus");
				goto out;
			}
			ncpus = (uint32_t)v;
		} else {
			char *spec = strdup(argv[i]);
			int r = spec ? parse_sample(spec, &samples[nsamples]) : -1;

			free(spec);
			if (r < 0) {
				usage("expected " SAMPLE_SYNTAX, argv[i]);
				goto out;
			}
			if (samples[nsamples].cpu >= ncpus) {
				usage("its cpu is not below --cpus (give --cpus first)", argv[i]);
				goto out;
			}
			nsamples++;
		}
	}
	if (!path || !nsamples) {
		usage("give -o FILE and at least one sample", NULL);
		goto out;
	}

	/* Records: a COMM for each task, then the samples, interleaved. */
	for (uint32_t i = 0; i < nsamples; i++) {
		bool seen = false;

		for (uint32_t j = 0; j < i; j++)
			seen |= samples[j].pid == samples[i].pid;
		if (!seen)
			put_comm(&data, samples[i].pid, time++);
	}
	for (uint32_t left = 1; left;) {
		left = 0;
		for (uint32_t i = 0; i < nsamples; i++) {
			if (!samples[i].count)
				continue;
			put_sample(&data, &samples[i], time);
			time += 1000;
			left += --samples[i].count;
		}
	}
	{
		struct perf_event_header h = { .type = RECORD_FINISHED_ROUND, .size = sizeof(h) };

		put(&data, &h, sizeof(h));
	}

	/* Features. */
	attr_of(&attr);
	put_string(&feat[F_HOSTNAME], "memsamples");
	put_string(&feat[F_OSRELEASE], "6.1.192");
	put_string(&feat[F_VERSION], "6.1.187");
	put_string(&feat[F_ARCH], "x86_64");
	put_u32(&feat[F_NRCPUS], ncpus);	/* available */
	put_u32(&feat[F_NRCPUS], ncpus);	/* online */
	for (int i = 0; i < argc; i++) {
		size_t used = strlen(cmdline);

		snprintf(cmdline + used, sizeof(cmdline) - used, "%s%s", i ? " " : "", argv[i]);
	}
	put_u32(&feat[F_CMDLINE], 1);
	put_string(&feat[F_CMDLINE], cmdline);
	put_u32(&feat[F_EVENT_DESC], 1);
	put_u32(&feat[F_EVENT_DESC], ATTR_SIZE);
	put(&feat[F_EVENT_DESC], &attr, ATTR_SIZE);
	put_u32(&feat[F_EVENT_DESC], 1);
	put_string(&feat[F_EVENT_DESC], EVENT_NAME);
	put_u64(&feat[F_EVENT_DESC], id);
	/* One NUMA node holding every CPU. */
	snprintf(cpus, sizeof(cpus), ncpus > 1 ? "0-%u" : "0", ncpus - 1);
	put_u32(&feat[F_NUMA_TOPOLOGY], 1);
	put_u32(&feat[F_NUMA_TOPOLOGY], 0);
	put_u64(&feat[F_NUMA_TOPOLOGY], 16ULL << 20);	/* kB */
	put_u64(&feat[F_NUMA_TOPOLOGY], 8ULL << 20);
	put_string(&feat[F_NUMA_TOPOLOGY], cpus);
	/* Without it perf c2c report warns "No memory nodes" and shows no data Node. */
	put_u64(&feat[F_MEM_TOPOLOGY], 1);		/* version */
	put_u64(&feat[F_MEM_TOPOLOGY], MEM_BLOCK);
	put_u64(&feat[F_MEM_TOPOLOGY], 1);		/* nodes */
	put_u64(&feat[F_MEM_TOPOLOGY], 0);		/* node */
	put_u64(&feat[F_MEM_TOPOLOGY], MEM_BLOCKS);	/* its size in blocks */
	put_u64(&feat[F_MEM_TOPOLOGY], MEM_BLOCKS);	/* the bitmap: bits, words */
	put_u64(&feat[F_MEM_TOPOLOGY], ~0ULL);

	/* The file: header, the attribute's ids, the attribute, data, features. */
	{
		const uint64_t hdr_size = 104, ids_off = hdr_size, attrs_off = ids_off + 8;
		const uint64_t attr_size = ATTR_SIZE + 16, data_off = attrs_off + attr_size;
		uint64_t feat_off, pos;
		int nfeat = 0;

		for (int b = 0; b < F_MAX; b++)
			if (feat[b].len) {
				features[b / 64] |= 1ULL << (b % 64);
				nfeat++;
			}
		put_u64(&out, 0x32454c4946524550ULL);	/* "PERFILE2" */
		put_u64(&out, hdr_size);
		put_u64(&out, attr_size);
		put_u64(&out, attrs_off);
		put_u64(&out, attr_size);
		put_u64(&out, data_off);
		put_u64(&out, data.len);
		put_u64(&out, 0);			/* event_types */
		put_u64(&out, 0);
		put(&out, features, sizeof(features));
		put_u64(&out, id);
		put(&out, &attr, ATTR_SIZE);
		put_u64(&out, ids_off);
		put_u64(&out, 8);
		put(&out, data.p, data.len);
		feat_off = out.len;
		pos = feat_off + nfeat * 16;
		for (int b = 0; b < F_MAX; b++)
			if (feat[b].len) {
				put_u64(&out, pos);
				put_u64(&out, feat[b].len);
				pos += feat[b].len;
			}
		for (int b = 0; b < F_MAX; b++)
			if (feat[b].len)
				put(&out, feat[b].p, feat[b].len);
	}
	f = fopen(path, "we");
	if (f) {
		bool written = fwrite(out.p, 1, out.len, f) == out.len;

		if (fclose(f) == 0 && written)
			ret = 0;
	}
	if (ret)
		fprintf(stderr, "memsamples: %s: %s\n", path, strerror(errno));
out:
	for (int b = 0; b < F_MAX; b++)
		free(feat[b].p);
	free(data.p);
	free(out.p);
	free(samples);
	return ret;
}
