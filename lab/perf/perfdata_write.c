// SPDX-License-Identifier: GPL-2.0
/* perf.data of memory samples (perf/perfdata_write.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "perf/perfdata_write.h"
#include "util/err.h"
#include "util/outfile.h"

/* perf's feature bits (tools/perf/util/header.h). */
enum { F_BUILD_ID = 2, F_HOSTNAME = 3, F_OSRELEASE = 4, F_VERSION = 5, F_ARCH = 6, F_NRCPUS = 7, F_CMDLINE = 11,
       F_EVENT_DESC = 12, F_NUMA_TOPOLOGY = 14, F_MEM_TOPOLOGY = 22, F_MAX = 256 };
/* MEM_TOPOLOGY in blocks of 128 MiB, all on node 0. */
#define MEM_BLOCK (128ULL << 20)
#define RECORD_FINISHED_ROUND 68
/* What perf 6.1 writes (PERF_ATTR_SIZE_VER7); every later perf reads it. */
#define ATTR_SIZE 128
#define EVENT_NAME "cpu/mem-loads,ldlat=30/P"
/* The x86-64 direct map, where a kernel data address's physical address is
 * its offset (without KASLR of the map). */
#define DIRECT_MAP 0xffff888000000000ULL

struct buf {
	uint8_t *p;
	size_t len, cap;
};

struct task {
	uint32_t pid, tid;
};

struct perfdata_writer {
	struct perfdata_write_info info;
	struct buf mmaps, comms, samples;
	struct task *tasks;	/* those with a COMM */
	size_t ntasks, nsamples;
	uint64_t time;
};

static const char *const kind_names[PERFDATA_MEM_NKINDS] = {
	"lcl-hitm", "rmt-hitm", "llc-hit", "l1-hit", "store", "store-miss",
};

const char *perfdata_mem_kind_name(enum perfdata_mem_kind k)
{
	return k < PERFDATA_MEM_NKINDS ? kind_names[k] : "?";
}

int perfdata_mem_kind_parse(const char *name)
{
	for (int k = 0; k < PERFDATA_MEM_NKINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

uint64_t perfdata_mem_data_src(enum perfdata_mem_kind k)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = PERF_MEM_OP_LOAD;
	d.mem_lock = PERF_MEM_LOCK_NA;
	d.mem_dtlb = PERF_MEM_TLB_NA;
	d.mem_snoop = PERF_MEM_SNOOP_NONE;
	switch (k) {
	case PERFDATA_MEM_LCL_HITM:
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		d.mem_snoop = PERF_MEM_SNOOP_HITM;
		break;
	case PERFDATA_MEM_RMT_HITM:
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE1;
		/* Not mem_remote: without mem_hops c2c_decode_stats() would
		 * count it as remote DRAM too. */
		d.mem_lvl_num = PERF_MEM_LVLNUM_ANY_CACHE;
		d.mem_snoop = PERF_MEM_SNOOP_HITM;
		break;
	case PERFDATA_MEM_LLC_HIT:
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		d.mem_snoop = PERF_MEM_SNOOP_HIT;
		break;
	case PERFDATA_MEM_L1_HIT:
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L1;
		break;
	case PERFDATA_MEM_STORE:
		d.mem_op = PERF_MEM_OP_STORE;
		d.mem_lvl = PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L1;
		break;
	case PERFDATA_MEM_STORE_MISS:
		d.mem_op = PERF_MEM_OP_STORE;
		d.mem_lvl = PERF_MEM_LVL_MISS | PERF_MEM_LVL_L1;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L1;
		break;
	case PERFDATA_MEM_NKINDS:
		break;
	}
	return d.val;
}

static void put(struct buf *b, const void *d, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = xrealloc(b->p, b->cap);
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

/* The sample_id trailer of non-sample records: TID, TIME, CPU. */
static void put_sample_id(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	put_u32(b, pid);
	put_u32(b, tid);
	put_u64(b, time);
	put_u32(b, cpu);
	put_u32(b, 0);
}

struct perfdata_writer *perfdata_writer_new(const struct perfdata_write_info *info)
{
	struct perfdata_writer *w = xcalloc(1, sizeof(*w));

	w->info = *info;
	if (!w->info.ncpus)
		w->info.ncpus = 1;
	if (!w->info.mem_bytes)
		w->info.mem_bytes = 64 * MEM_BLOCK;
	w->time = 1000000000ULL;
	if (w->info.kernel_text) {
		/*
		 * perf record's kernel map (util/synthetic-events.c
		 * perf_event__synthesize_kernel_mmap): start and pgoff are _text.
		 * With the build ID in it (MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID,
		 * as perf record --buildid-mmap writes it, the default since
		 * 6.16): perf 7.x keys a map's DSO by it, and without it takes
		 * the host's /proc/kallsyms for the guest's kernel.
		 */
		static const char name[] = "[kernel.kallsyms]_text";
		char padded[(sizeof(name) + 7) / 8 * 8] = "";
		bool bid = w->info.kernel_build_id_len > 0;
		struct perf_event_header h = { .type = bid ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP,
					       .misc = PERF_RECORD_MISC_KERNEL | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0) };

		memcpy(padded, name, sizeof(name));
		h.size = sizeof(h) + 8 + 3 * 8 + (bid ? 24 + 8 : 0) + sizeof(padded) + 24;
		put(&w->mmaps, &h, sizeof(h));
		put_u32(&w->mmaps, (uint32_t)-1);	/* pid: the host kernel's */
		put_u32(&w->mmaps, 0);
		put_u64(&w->mmaps, w->info.kernel_text);
		put_u64(&w->mmaps, ~0ULL - w->info.kernel_text);
		put_u64(&w->mmaps, w->info.kernel_text);
		if (bid) {
			uint8_t id[24] = { (uint8_t)w->info.kernel_build_id_len };

			memcpy(id + 4, w->info.kernel_build_id, w->info.kernel_build_id_len);
			put(&w->mmaps, id, sizeof(id));
			put_u32(&w->mmaps, 5);		/* prot: PROT_READ | PROT_EXEC */
			put_u32(&w->mmaps, 0);		/* flags */
		}
		put(&w->mmaps, padded, sizeof(padded));
		put_sample_id(&w->mmaps, (uint32_t)-1, 0, w->time++, 0);
	}
	return w;
}

void perfdata_writer_comm(struct perfdata_writer *w, uint32_t pid, uint32_t tid, const char *comm)
{
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_USER };
	char name[16] = "";

	for (size_t i = 0; i < w->ntasks; i++)
		if (w->tasks[i].pid == pid && w->tasks[i].tid == tid)
			return;
	w->tasks = xrealloc(w->tasks, (w->ntasks + 1) * sizeof(*w->tasks));
	w->tasks[w->ntasks++] = (struct task){ pid, tid };
	strncpy(name, comm, sizeof(name) - 1);
	h.size = sizeof(h) + 8 + sizeof(name) + 24;
	put(&w->comms, &h, sizeof(h));
	put_u32(&w->comms, pid);
	put_u32(&w->comms, tid);
	put(&w->comms, name, sizeof(name));
	put_sample_id(&w->comms, pid, tid, w->time++, 0);
}

void perfdata_writer_sample(struct perfdata_writer *w, const struct perfdata_mem_sample *s)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .misc = s->user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL,
				       .size = sizeof(h) + 9 * 8 };
	uint64_t phys = s->phys_addr;
	bool named = false;

	for (size_t i = 0; i < w->ntasks && !named; i++)
		named = w->tasks[i].pid == s->pid && w->tasks[i].tid == s->tid;
	if (!named) {
		char comm[16];

		snprintf(comm, sizeof(comm), "memtest%u", s->pid);
		perfdata_writer_comm(w, s->pid, s->tid, comm);
	}
	if (!phys)
		phys = (s->addr - DIRECT_MAP) % w->info.mem_bytes;
	w->time = s->time ? s->time : w->time + 1000;
	put(&w->samples, &h, sizeof(h));
	put_u64(&w->samples, s->ip);				/* IP */
	put_u32(&w->samples, s->pid);				/* TID */
	put_u32(&w->samples, s->tid);
	put_u64(&w->samples, w->time);				/* TIME */
	put_u64(&w->samples, s->addr);				/* ADDR */
	put_u32(&w->samples, s->cpu);				/* CPU */
	put_u32(&w->samples, 0);
	put_u64(&w->samples, s->period ? s->period : 1);	/* PERIOD */
	put_u64(&w->samples, s->weight);			/* WEIGHT */
	put_u64(&w->samples, perfdata_mem_data_src(s->kind));	/* DATA_SRC */
	put_u64(&w->samples, phys);				/* PHYS_ADDR */
	w->nsamples++;
}

/* A record of the event's: header, u64 fields, the sample_id trailer. */
static void put_event_record(struct perfdata_writer *w, uint32_t type, uint16_t misc, const uint64_t *v, size_t n)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = sizeof(h) + n * 8 + 24 };

	put(&w->samples, &h, sizeof(h));
	put(&w->samples, v, n * 8);
	put_sample_id(&w->samples, 0, 0, w->time, 0);
}

void perfdata_writer_lost(struct perfdata_writer *w, uint64_t lost)
{
	put_event_record(w, PERF_RECORD_LOST, 0, (const uint64_t[]){ 1, lost }, 2);
}

void perfdata_writer_lost_samples(struct perfdata_writer *w, uint64_t lost, bool bpf)
{
	put_event_record(w, PERF_RECORD_LOST_SAMPLES, bpf ? 1 << 15 : 0, (const uint64_t[]){ lost }, 1);
}

void perfdata_writer_throttle(struct perfdata_writer *w, bool unthrottle)
{
	put_event_record(w, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0,
			 (const uint64_t[]){ w->time, 1, 1 }, 3);
}

void perfdata_writer_aux(struct perfdata_writer *w, uint64_t offset, uint64_t size, uint64_t flags)
{
	put_event_record(w, PERF_RECORD_AUX, 0, (const uint64_t[]){ offset, size, flags }, 3);
}

size_t perfdata_writer_nsamples(const struct perfdata_writer *w)
{
	return w->nsamples;
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

static const char *or(const char *s, const char *deflt)
{
	return s ? s : deflt;
}

/* The header features, each in its own buffer (empty: not written). */
static void features(const struct perfdata_writer *w, const struct perf_event_attr *attr, uint64_t id,
		     struct buf feat[F_MAX])
{
	const struct perfdata_write_info *in = &w->info;
	uint64_t blocks = (in->mem_bytes + MEM_BLOCK - 1) / MEM_BLOCK;
	char cpus[32];

	if (in->kernel_build_id_len) {
		/* util/header.c write_buildid(): the record, the name NUL-padded to 64. */
		static const char name[] = "[kernel.kallsyms]";
		char padded[64] = "";
		struct perf_event_header h = { .type = 0, .misc = PERF_RECORD_MISC_KERNEL | (1 << 15),
					       .size = sizeof(h) + 4 + 24 + sizeof(padded) };
		uint8_t id[24] = { 0 };

		memcpy(padded, name, sizeof(name));
		memcpy(id, in->kernel_build_id, in->kernel_build_id_len);
		id[20] = (uint8_t)in->kernel_build_id_len;	/* PERF_RECORD_MISC_BUILD_ID_SIZE: its size */
		put(&feat[F_BUILD_ID], &h, sizeof(h));
		put_u32(&feat[F_BUILD_ID], (uint32_t)-1);	/* HOST_KERNEL_ID */
		put(&feat[F_BUILD_ID], id, sizeof(id));
		put(&feat[F_BUILD_ID], padded, sizeof(padded));
	}
	put_string(&feat[F_HOSTNAME], or(in->hostname, "memsamples"));
	put_string(&feat[F_OSRELEASE], or(in->os_release, "6.1.192"));
	put_string(&feat[F_VERSION], or(in->perf_version, "6.1.187"));
	put_string(&feat[F_ARCH], or(in->arch, "x86_64"));
	put_u32(&feat[F_NRCPUS], in->ncpus);	/* available */
	put_u32(&feat[F_NRCPUS], in->ncpus);	/* online */
	put_u32(&feat[F_CMDLINE], 1);
	put_string(&feat[F_CMDLINE], or(in->cmdline, "memsamples"));
	put_u32(&feat[F_EVENT_DESC], 1);
	put_u32(&feat[F_EVENT_DESC], ATTR_SIZE);
	put(&feat[F_EVENT_DESC], attr, ATTR_SIZE);
	put_u32(&feat[F_EVENT_DESC], 1);
	put_string(&feat[F_EVENT_DESC], EVENT_NAME);
	put_u64(&feat[F_EVENT_DESC], id);
	/* One NUMA node holding every CPU. */
	snprintf(cpus, sizeof(cpus), in->ncpus > 1 ? "0-%u" : "0", in->ncpus - 1);
	put_u32(&feat[F_NUMA_TOPOLOGY], 1);
	put_u32(&feat[F_NUMA_TOPOLOGY], 0);
	put_u64(&feat[F_NUMA_TOPOLOGY], in->mem_bytes >> 10);	/* kB */
	put_u64(&feat[F_NUMA_TOPOLOGY], in->mem_bytes >> 11);
	put_string(&feat[F_NUMA_TOPOLOGY], cpus);
	/* Without it perf c2c report warns "No memory nodes" and shows no data Node. */
	put_u64(&feat[F_MEM_TOPOLOGY], 1);		/* version */
	put_u64(&feat[F_MEM_TOPOLOGY], MEM_BLOCK);
	put_u64(&feat[F_MEM_TOPOLOGY], 1);		/* nodes */
	put_u64(&feat[F_MEM_TOPOLOGY], 0);		/* node */
	put_u64(&feat[F_MEM_TOPOLOGY], blocks);		/* its size in blocks */
	put_u64(&feat[F_MEM_TOPOLOGY], blocks);		/* the bitmap: bits, then words */
	for (uint64_t i = 0; i < (blocks + 63) / 64; i++)
		put_u64(&feat[F_MEM_TOPOLOGY], blocks - i * 64 >= 64 ? ~0ULL : (1ULL << (blocks - i * 64)) - 1);
}

int perfdata_writer_save(struct perfdata_writer *w, const char *path, char *err, size_t errlen)
{
	const uint64_t hdr_size = 104, ids_off = hdr_size, attrs_off = ids_off + 8;
	const uint64_t attr_size = ATTR_SIZE + 16, data_off = attrs_off + attr_size, id = 1;
	struct buf feat[F_MAX] = { { 0 } }, out = { 0 };
	uint64_t feature_bits[4] = { 0 }, feat_off, pos, data_len;
	struct perf_event_attr attr;
	struct perf_event_header fin = { .type = RECORD_FINISHED_ROUND, .size = sizeof(fin) };
	int nfeat = 0, ret = 0;

	attr_of(&attr);
	features(w, &attr, id, feat);
	for (int b = 0; b < F_MAX; b++)
		if (feat[b].len) {
			feature_bits[b / 64] |= 1ULL << (b % 64);
			nfeat++;
		}
	data_len = w->mmaps.len + w->comms.len + w->samples.len + sizeof(fin);
	/* The file: header, the attribute's ids, the attribute, data, features. */
	put_u64(&out, 0x32454c4946524550ULL);	/* "PERFILE2" */
	put_u64(&out, hdr_size);
	put_u64(&out, attr_size);
	put_u64(&out, attrs_off);
	put_u64(&out, attr_size);
	put_u64(&out, data_off);
	put_u64(&out, data_len);
	put_u64(&out, 0);			/* event_types */
	put_u64(&out, 0);
	put(&out, feature_bits, sizeof(feature_bits));
	put_u64(&out, id);
	put(&out, &attr, ATTR_SIZE);
	put_u64(&out, ids_off);
	put_u64(&out, 8);
	put(&out, w->mmaps.p, w->mmaps.len);
	put(&out, w->comms.p, w->comms.len);
	put(&out, w->samples.p, w->samples.len);
	put(&out, &fin, sizeof(fin));
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
	if (outfile_write(path, (const char *)out.p, out.len)) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		ret = -1;
	}
	for (int b = 0; b < F_MAX; b++)
		free(feat[b].p);
	free(out.p);
	return ret;
}

void perfdata_writer_free(struct perfdata_writer *w)
{
	if (!w)
		return;
	free(w->mmaps.p);
	free(w->comms.p);
	free(w->samples.p);
	free(w->tasks);
	free(w);
}
