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
enum { F_BUILD_ID = 2, F_HOSTNAME = 3, F_OSRELEASE = 4, F_VERSION = 5, F_ARCH = 6, F_NRCPUS = 7, F_CPUID = 9,
       F_CMDLINE = 11, F_EVENT_DESC = 12, F_NUMA_TOPOLOGY = 14, F_PMU_MAPPINGS = 16, F_MEM_TOPOLOGY = 22,
       F_MAX = 256 };
/* MEM_TOPOLOGY in blocks of 128 MiB, all on node 0. */
#define MEM_BLOCK (128ULL << 20)
#define RECORD_FINISHED_ROUND 68
/* perf's own records (tools/lib/perf/include/perf/event.h). */
#define RECORD_AUXTRACE_INFO 70
#define RECORD_AUXTRACE 71
#define RECORD_TIME_CONV 79
#define AUXTRACE_ARM_SPE 4	/* enum auxtrace_type (util/auxtrace.h) */
/* PMU types as the kernel numbers them on those boxes (dynamic ones: any
 * number above PERF_TYPE_MAX does; the file's PMU_MAPPINGS name them). */
#define PMU_TYPE_CPU 4
#define PMU_TYPE_IBS_OP 11
#define PMU_TYPE_ARM_SPE 8
#define MAX_SPE_CPUS 4096
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
	struct buf *aux;	/* Arm: each CPU's SPE records (MAX_SPE_CPUS) */
	struct task *tasks;	/* those with a COMM */
	size_t ntasks, nsamples;
	uint64_t time;
};

static const char *const kind_names[PERFDATA_MEM_NKINDS] = {
	"lcl-hitm", "rmt-hitm", "llc-hit", "l1-hit", "store", "store-miss",
	"ccx-hitm", "near-ccx-hitm", "far-ccx-hitm", "l3-hit", "dram", "l1-hit", "store", "store-miss",
	"l1", "l2", "peer-core", "local-cluster", "sys-cache", "peer-cluster", "remote", "dram", "store",
};

static const char *const arch_names[PERFDATA_NARCHS] = { "intel", "amd", "arm" };

const char *perfdata_arch_name(enum perfdata_arch a)
{
	return a < PERFDATA_NARCHS ? arch_names[a] : "?";
}

int perfdata_arch_parse(const char *name)
{
	for (int a = 0; a < PERFDATA_NARCHS; a++)
		if (!strcmp(name, arch_names[a]))
			return a;
	return -1;
}

enum perfdata_arch perfdata_mem_kind_arch(enum perfdata_mem_kind k)
{
	return k >= PERFDATA_MEM_ARM_L1 ? PERFDATA_ARCH_ARM :
	       k >= PERFDATA_MEM_AMD_CCX_HITM ? PERFDATA_ARCH_AMD : PERFDATA_ARCH_INTEL;
}

const char *perfdata_mem_kind_name(enum perfdata_mem_kind k)
{
	return k < PERFDATA_MEM_NKINDS ? kind_names[k] : "?";
}

int perfdata_mem_kind_parse_arch(enum perfdata_arch a, const char *name)
{
	for (int k = 0; k < PERFDATA_MEM_NKINDS; k++)
		if (perfdata_mem_kind_arch(k) == a && !strcmp(name, kind_names[k]))
			return k;
	return -1;
}

int perfdata_mem_kind_parse(const char *name)
{
	return perfdata_mem_kind_parse_arch(PERFDATA_ARCH_INTEL, name);
}

/*
 * AMD IBS on Zen 4 (arch/x86/events/amd/ibs.c): perf_ibs_parse_ld_st_data()
 * starts from PERF_MEM_NA, perf_ibs_get_mem_op() sets the op,
 * perf_ibs_get_mem_lvl() ORs in the level of g_zen4_data_src[DataSrc]
 * (L1 and L2 hits before it; stores get no DataSrc: LVL_NA, LVLNUM_NA),
 * perf_ibs_get_mem_snoop() says HITM for DataSrc 1, 2 and 5 in M state
 * (CacheHitSt 0) and NA otherwise, the TLB is an L1 DTLB hit, no lock.
 * (Kernels before "perf/x86/ibs: Set mem_lvl_num, mem_remote and
 * mem_hops", about 6.4, set only mem_lvl: REM_CCE1 for near, REM_CCE2
 * for far; c2c_decode_stats() counts those as rmt_hitm just the same.)
 */
static uint64_t amd_data_src(enum perfdata_mem_kind k)
{
	union perf_mem_data_src d = { .val = 0 };
	uint64_t lvl = 0;

	d.mem_op = PERF_MEM_OP_NA;
	d.mem_lvl = PERF_MEM_LVL_NA;
	d.mem_snoop = PERF_MEM_SNOOP_NA;
	d.mem_lock = PERF_MEM_LOCK_NA;
	d.mem_dtlb = PERF_MEM_TLB_NA;
	d.mem_op = k == PERFDATA_MEM_AMD_STORE || k == PERFDATA_MEM_AMD_STORE_MISS ? PERF_MEM_OP_STORE :
									  PERF_MEM_OP_LOAD;
	d.mem_lvl = 0;
	d.mem_lvl_num = 0;
#define L(x) (PERF_MEM_S(LVL, x) | PERF_MEM_S(LVL, HIT))
#define LN(x) PERF_MEM_S(LVLNUM, x)
	switch (k) {
	case PERFDATA_MEM_AMD_CCX_HITM:
	case PERFDATA_MEM_AMD_L3_HIT:
		lvl = L(L3) | LN(L3);
		break;
	case PERFDATA_MEM_AMD_NEAR_CCX_HITM:
		lvl = L(REM_CCE1) | LN(ANY_CACHE) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 0);
		break;
	case PERFDATA_MEM_AMD_FAR_CCX_HITM:
		lvl = L(REM_CCE2) | LN(ANY_CACHE) | PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 1);
		break;
	case PERFDATA_MEM_AMD_DRAM:
		lvl = L(LOC_RAM) | LN(RAM);
		break;
	case PERFDATA_MEM_AMD_L1_HIT:
	case PERFDATA_MEM_AMD_STORE:
		lvl = L(L1) | LN(L1);
		break;
	default:	/* a store that missed the DC: check_mab, no MAB hit */
		lvl = PERF_MEM_S(LVL, NA) | LN(NA);
		break;
	}
#undef L
#undef LN
	d.val |= lvl;
	if (k == PERFDATA_MEM_AMD_CCX_HITM || k == PERFDATA_MEM_AMD_NEAR_CCX_HITM ||
	    k == PERFDATA_MEM_AMD_FAR_CCX_HITM)
		d.mem_snoop = PERF_MEM_SNOOP_HITM;
	d.mem_dtlb = PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT;
	return d.val;
}

/*
 * What perf's common SPE decoding (tools/perf/util/arm-spe.c
 * arm_spe__synth_data_source_common(), _neoverse() in v6.1) makes of a
 * record: loads by their data source, stores with
 * no level (SPE records none for them), the TLB walk bit from the TLB
 * events.  The value the perf.data carries is the SPE record; this is
 * what the report code then sees.
 */
static uint64_t arm_data_src(enum perfdata_mem_kind k)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = PERF_MEM_OP_LOAD;
	switch (k) {
	case PERFDATA_MEM_ARM_L1:
		d.mem_lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L1;
		d.mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	case PERFDATA_MEM_ARM_L2:
		d.mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L2;
		d.mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	case PERFDATA_MEM_ARM_PEER_CORE:
		d.mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L2;
		d.mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case PERFDATA_MEM_ARM_LOCAL_CLUSTER:
	case PERFDATA_MEM_ARM_PEER_CLUSTER:
		d.mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		d.mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case PERFDATA_MEM_ARM_SYS_CACHE:
		d.mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT;
		d.mem_lvl_num = PERF_MEM_LVLNUM_L3;
		d.mem_snoop = PERF_MEM_SNOOP_HIT;
		break;
	case PERFDATA_MEM_ARM_REMOTE:
		/* "perf arm-spe: Correct memory level for remote access" (in
		 * 7.x and Debian's 6.1.187; v6.1 had REM_CCE1, ANY_CACHE):
		 * c2c counts either as rmt_peer. */
		d.mem_lvl = PERF_MEM_LVL_NA;
		d.mem_lvl_num = PERF_MEM_LVLNUM_NA;
		d.mem_remote = PERF_MEM_REMOTE_REMOTE;
		d.mem_snoopx = PERF_MEM_SNOOPX_PEER;
		break;
	case PERFDATA_MEM_ARM_DRAM:
		d.mem_lvl = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_HIT;
		d.mem_lvl_num = PERF_MEM_LVLNUM_RAM;
		d.mem_snoop = PERF_MEM_SNOOP_NONE;
		break;
	default:
		d.mem_op = PERF_MEM_OP_STORE;
		d.mem_lvl = PERF_MEM_LVL_NA;
		d.mem_lvl_num = PERF_MEM_LVLNUM_NA;
		d.mem_snoop = PERF_MEM_SNOOP_NA;
		break;
	}
	d.mem_dtlb = PERF_MEM_TLB_WK | PERF_MEM_TLB_HIT;
	return d.val;
}

uint64_t perfdata_mem_data_src(enum perfdata_mem_kind k)
{
	union perf_mem_data_src d = { .val = 0 };

	if (perfdata_mem_kind_arch(k) == PERFDATA_ARCH_AMD)
		return amd_data_src(k);
	if (perfdata_mem_kind_arch(k) == PERFDATA_ARCH_ARM)
		return arm_data_src(k);
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
	default:
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

/* The sample_id trailer of non-sample records: TID, TIME, CPU (and for
 * Arm the IDENTIFIER: perf adds an evsel per kind of sample it
 * synthesizes from the SPE trace, and tells their records apart by it). */
static void put_sample_id(const struct perfdata_writer *w, struct buf *b, uint32_t pid, uint32_t tid,
			  uint64_t time, uint32_t cpu)
{
	put_u32(b, pid);
	put_u32(b, tid);
	put_u64(b, time);
	put_u32(b, cpu);
	put_u32(b, 0);
	if (w->info.pmu == PERFDATA_ARCH_ARM)
		put_u64(b, 1);	/* the event's id */
}

static uint16_t sample_id_size(const struct perfdata_writer *w)
{
	return w->info.pmu == PERFDATA_ARCH_ARM ? 32 : 24;
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
		h.size = sizeof(h) + 8 + 3 * 8 + (bid ? 24 + 8 : 0) + sizeof(padded) + sample_id_size(w);
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
		put_sample_id(w, &w->mmaps, (uint32_t)-1, 0, w->time++, 0);
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
	h.size = sizeof(h) + 8 + sizeof(name) + sample_id_size(w);
	put(&w->comms, &h, sizeof(h));
	put_u32(&w->comms, pid);
	put_u32(&w->comms, tid);
	put(&w->comms, name, sizeof(name));
	put_sample_id(w, &w->comms, pid, tid, w->time++, 0);
}

/*
 * One SPE record (Arm ARM, "Statistical Profiling Extension"; perf's
 * reader: tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.c
 * arm_spe_get_packet() and arm-spe-decoder.c arm_spe_read_record()).
 * Short headers; a payload's size is 1 << header bits [5:4]:
 *   0xb0|i  ADDRESS (8 bytes): i 0 the PC (bits 55:0, EL in 62:61, NS in
 *           63: perf fills the top byte of an EL1/EL2 NS address), 2 the
 *           data VA (perf fills the top byte when bits 55:52 are 0xf), 3 PA
 *   0x64|i  CONTEXT (4 bytes): CONTEXTIDR_ELx, the tid (perf takes it as
 *           the sample's thread when the data has time stamps)
 *   0x49    OP-TYPE class 1, load/store (1 byte): bit 0 store; 0 GP-REG
 *   0x52    EVENTS (2 bytes): 1 retired, 2 L1D access, 3 L1D refill,
 *           4 TLB access, 8 LLC access, 9 LLC refill, 10 remote access
 *   0x98|i  COUNTER (2 bytes): i 0 total latency (perf's weight)
 *   0x53    DATA-SOURCE (2 bytes): the source (loads only)
 *   0x71    TIMESTAMP (8 bytes): ends the record
 */
enum { EV_RETIRED = 1, EV_L1D_ACCESS = 2, EV_L1D_REFILL = 3, EV_TLB_ACCESS = 4, EV_LLC_ACCESS = 8,
       EV_LLC_REFILL = 9, EV_REMOTE_ACCESS = 10 };

static void spe_pkt(struct buf *b, uint8_t hdr, uint64_t payload)
{
	unsigned len = 1U << ((hdr >> 4) & 3);

	if (hdr == 0x71)
		len = 8;
	put(b, &hdr, 1);
	put(b, &payload, len);	/* little endian */
}

static void spe_record(struct buf *b, const struct perfdata_mem_sample *s, uint64_t phys, uint64_t time)
{
	static const uint8_t source[] = {
		[PERFDATA_MEM_ARM_L1 - PERFDATA_MEM_ARM_L1] = 0x0,
		[PERFDATA_MEM_ARM_L2 - PERFDATA_MEM_ARM_L1] = 0x8,
		[PERFDATA_MEM_ARM_PEER_CORE - PERFDATA_MEM_ARM_L1] = 0x9,
		[PERFDATA_MEM_ARM_LOCAL_CLUSTER - PERFDATA_MEM_ARM_L1] = 0xa,
		[PERFDATA_MEM_ARM_SYS_CACHE - PERFDATA_MEM_ARM_L1] = 0xb,
		[PERFDATA_MEM_ARM_PEER_CLUSTER - PERFDATA_MEM_ARM_L1] = 0xc,
		[PERFDATA_MEM_ARM_REMOTE - PERFDATA_MEM_ARM_L1] = 0xd,
		[PERFDATA_MEM_ARM_DRAM - PERFDATA_MEM_ARM_L1] = 0xe,
	};
	/* The events each source comes with: a refill of L1D unless it hit
	 * there, an LLC access past L2, an LLC refill past the LLC. */
	uint64_t ev = 1u << EV_RETIRED | 1u << EV_L1D_ACCESS | 1u << EV_TLB_ACCESS;
	bool store = s->kind == PERFDATA_MEM_ARM_STORE;
	/* EL1 (EL2 under VHE gives the same address), non-secure; EL0 for user */
	uint64_t el = s->user ? 0 : 1ULL << 61 | 1ULL << 63;

	switch (s->kind) {
	case PERFDATA_MEM_ARM_L1:
	case PERFDATA_MEM_ARM_STORE:
		break;
	case PERFDATA_MEM_ARM_L2:
	case PERFDATA_MEM_ARM_PEER_CORE:
		ev |= 1u << EV_L1D_REFILL;
		break;
	case PERFDATA_MEM_ARM_LOCAL_CLUSTER:
	case PERFDATA_MEM_ARM_PEER_CLUSTER:
	case PERFDATA_MEM_ARM_SYS_CACHE:
		ev |= 1u << EV_L1D_REFILL | 1u << EV_LLC_ACCESS;
		break;
	case PERFDATA_MEM_ARM_REMOTE:
		ev |= 1u << EV_L1D_REFILL | 1u << EV_LLC_ACCESS | 1u << EV_LLC_REFILL | 1u << EV_REMOTE_ACCESS;
		break;
	default:	/* DRAM */
		ev |= 1u << EV_L1D_REFILL | 1u << EV_LLC_ACCESS | 1u << EV_LLC_REFILL;
		break;
	}
	spe_pkt(b, 0xb0, (s->ip & 0x00ffffffffffffffULL) | el);
	spe_pkt(b, 0x64, s->tid);
	spe_pkt(b, 0x49, store ? 1 : 0);
	spe_pkt(b, 0x52, ev);
	spe_pkt(b, 0x98, s->weight > 0xffff ? 0xffff : s->weight);
	if (!store)
		spe_pkt(b, 0x53, source[s->kind - PERFDATA_MEM_ARM_L1]);
	spe_pkt(b, 0xb2, s->addr & 0x00ffffffffffffffULL);
	spe_pkt(b, 0xb3, (phys & 0x00ffffffffffffffULL) | 1ULL << 63);
	spe_pkt(b, 0x71, time);
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
	if (w->info.pmu == PERFDATA_ARCH_ARM) {
		if (!w->aux)
			w->aux = xcalloc(MAX_SPE_CPUS, sizeof(*w->aux));
		spe_record(&w->aux[s->cpu % MAX_SPE_CPUS], s, phys, w->time);
		w->nsamples++;
		return;
	}
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
	struct perf_event_header h = { .type = type, .misc = misc, .size = sizeof(h) + n * 8 + sample_id_size(w) };

	put(&w->samples, &h, sizeof(h));
	put(&w->samples, v, n * 8);
	put_sample_id(w, &w->samples, 0, 0, w->time, 0);
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

static void attr_of(struct perf_event_attr *a, enum perfdata_arch arch)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_RAW;
	a->size = ATTR_SIZE;
	a->config = 0x1cd;	/* MEM_TRANS_RETIRED.LOAD_LATENCY */
	a->config1 = 30;	/* ldlat */
	if (arch == PERFDATA_ARCH_AMD) {
		a->type = PMU_TYPE_IBS_OP;	/* ibs_op// */
		a->config = a->config1 = 0;
	} else if (arch == PERFDATA_ARCH_ARM) {
		/* arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=1,min_latency=30/
		 * (the format in /sys/bus/event_source/devices/arm_spe_0/format) */
		a->type = PMU_TYPE_ARM_SPE;
		a->config = 1ULL << 0 | 1ULL << 1 | 1ULL << 33 | 1ULL << 34;
		a->config1 = 0;
		a->config2 = 30;
	}
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
	if (arch == PERFDATA_ARCH_ARM) {
		/* An AUX event: one sample per period, its records in the AUX area. */
		a->freq = 0;
		a->sample_period = 1;
		a->precise_ip = 0;
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	}
}

static const char *event_name(enum perfdata_arch arch)
{
	return arch == PERFDATA_ARCH_AMD ? "ibs_op//" :
	       arch == PERFDATA_ARCH_ARM ? "arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=1,min_latency=30/" :
					   EVENT_NAME;
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
	put_string(&feat[F_ARCH], or(in->arch, in->pmu == PERFDATA_ARCH_ARM ? "aarch64" : "x86_64"));
	put_u32(&feat[F_NRCPUS], in->ncpus);	/* available */
	put_u32(&feat[F_NRCPUS], in->ncpus);	/* online */
	if (in->cpuid || in->pmu != PERFDATA_ARCH_INTEL)
		put_string(&feat[F_CPUID], or(in->cpuid, in->pmu == PERFDATA_ARCH_AMD ? "AuthenticAMD-25-11-1" :
							  "0x00000000410fd0c0"));
	if (in->pmu == PERFDATA_ARCH_AMD) {
		/* util/header.c write_pmu_mappings(): count, then type and name each. */
		put_u32(&feat[F_PMU_MAPPINGS], 2);
		put_u32(&feat[F_PMU_MAPPINGS], PMU_TYPE_CPU);
		put_string(&feat[F_PMU_MAPPINGS], "cpu");
		put_u32(&feat[F_PMU_MAPPINGS], PMU_TYPE_IBS_OP);
		put_string(&feat[F_PMU_MAPPINGS], "ibs_op");
	} else if (in->pmu == PERFDATA_ARCH_ARM) {
		put_u32(&feat[F_PMU_MAPPINGS], 1);
		put_u32(&feat[F_PMU_MAPPINGS], PMU_TYPE_ARM_SPE);
		put_string(&feat[F_PMU_MAPPINGS], "arm_spe_0");
	}
	put_u32(&feat[F_CMDLINE], 1);
	put_string(&feat[F_CMDLINE], or(in->cmdline, "memsamples"));
	put_u32(&feat[F_EVENT_DESC], 1);
	put_u32(&feat[F_EVENT_DESC], ATTR_SIZE);
	put(&feat[F_EVENT_DESC], attr, ATTR_SIZE);
	put_u32(&feat[F_EVENT_DESC], 1);
	put_string(&feat[F_EVENT_DESC], event_name(in->pmu));
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

/*
 * What perf record writes of an SPE session around the AUX data: a
 * TIME_CONV (the SPE time stamps are the CPU's counter; here 1:1 with
 * perf's time: shift 0, mult 1, zero 0, which util/tsc.c converts as the
 * identity), then AUXTRACE_INFO (util/arm-spe.c
 * arm_spe_process_auxtrace_info(): version 1, priv[0] the PMU type,
 * priv[1] per-CPU mmaps; perf 6.13+ takes a priv of exactly that size
 * for version 1 and the MIDR from CPUID), both before any AUXTRACE; then
 * per CPU an AUXTRACE record (size, offset, reference, idx, tid -1, cpu)
 * followed by its records, padded with PAD packets to 8 bytes.
 */
static void spe_records(const struct perfdata_writer *w, struct buf *head, struct buf *aux)
{
	struct perf_event_header h = { .type = RECORD_TIME_CONV, .size = sizeof(h) + 6 * 8 };
	uint32_t idx = 0;

	put(head, &h, sizeof(h));
	put_u64(head, 0);	/* time_shift */
	put_u64(head, 1);	/* time_mult */
	put_u64(head, 0);	/* time_zero */
	put_u64(head, 0);	/* time_cycles */
	put_u64(head, ~0ULL);	/* time_mask */
	put_u64(head, 1);	/* cap_user_time_zero; not cap_user_time_short */
	h = (struct perf_event_header){ .type = RECORD_AUXTRACE_INFO, .size = sizeof(h) + 8 + 2 * 8 };
	put(head, &h, sizeof(h));
	put_u32(head, AUXTRACE_ARM_SPE);
	put_u32(head, 0);
	put_u64(head, PMU_TYPE_ARM_SPE);
	put_u64(head, 1);	/* per-CPU mmaps (c2c record is system-wide) */
	for (uint32_t cpu = 0; w->aux && cpu < MAX_SPE_CPUS; cpu++) {
		const struct buf *b = &w->aux[cpu];
		static const uint8_t pad[8];
		uint64_t size = (b->len + 7) / 8 * 8;

		if (!b->len)
			continue;
		h = (struct perf_event_header){ .type = RECORD_AUXTRACE, .size = sizeof(h) + 5 * 8 };
		put(aux, &h, sizeof(h));
		put_u64(aux, size);
		put_u64(aux, 0);		/* where in the CPU's AUX area */
		put_u64(aux, 0x1000 + idx);	/* reference */
		put_u32(aux, idx++);		/* idx: the mmap's */
		put_u32(aux, (uint32_t)-1);	/* tid: a per-CPU mmap's */
		put_u32(aux, cpu);
		put_u32(aux, 0);
		put(aux, b->p, b->len);
		put(aux, pad, size - b->len);	/* PAD packets */
	}
}

int perfdata_writer_save(struct perfdata_writer *w, const char *path, char *err, size_t errlen)
{
	const uint64_t hdr_size = 104, ids_off = hdr_size, attrs_off = ids_off + 8;
	const uint64_t attr_size = ATTR_SIZE + 16, data_off = attrs_off + attr_size, id = 1;
	struct buf feat[F_MAX] = { { 0 } }, out = { 0 }, head = { 0 }, aux = { 0 };
	uint64_t feature_bits[4] = { 0 }, feat_off, pos, data_len;
	struct perf_event_attr attr;
	struct perf_event_header fin = { .type = RECORD_FINISHED_ROUND, .size = sizeof(fin) };
	int nfeat = 0, ret = 0;

	attr_of(&attr, w->info.pmu);
	features(w, &attr, id, feat);
	for (int b = 0; b < F_MAX; b++)
		if (feat[b].len) {
			feature_bits[b / 64] |= 1ULL << (b % 64);
			nfeat++;
		}
	if (w->info.pmu == PERFDATA_ARCH_ARM)
		spe_records(w, &head, &aux);
	data_len = head.len + w->mmaps.len + w->comms.len + w->samples.len + aux.len + sizeof(fin);
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
	put(&out, head.p, head.len);
	put(&out, w->mmaps.p, w->mmaps.len);
	put(&out, w->comms.p, w->comms.len);
	put(&out, w->samples.p, w->samples.len);
	put(&out, aux.p, aux.len);
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
	free(head.p);
	free(aux.p);
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
	for (size_t i = 0; w->aux && i < MAX_SPE_CPUS; i++)
		free(w->aux[i].p);
	free(w->aux);
	free(w->tasks);
	free(w);
}
