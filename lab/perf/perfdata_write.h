/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf.data writer for memory samples, as `perf c2c record` records them
 * on an Intel box (and, with an arch, on an AMD Zen 4 or an Arm SPE box),
 * so that the real `perf c2c report` (and `perf script`, `perf mem report`)
 * reads samples that did not come from a PMU: the cacheline plugin's exact
 * counts from a guest (lab/c2c/), and tests' known samples
 * (tests/tools/memsamples).
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
 *   lcl_hitm and rmt_hitm; stores as L1 hits or misses;
 * - the header features perf c2c report reads: NRCPUS and NUMA_TOPOLOGY
 *   (setup_nodes() fails without nodes), MEM_TOPOLOGY (the data address's
 *   node, from its physical address), plus those perf record always
 *   writes and perf report prints (hostname, os release, version, arch,
 *   cmdline, event desc), in perf's layout (util/header.c: strings are a
 *   u32 length, NUL-padded to 64 bytes).
 * Records: the kernel's MMAP (where its text address is given), a COMM
 * per task, then the samples in the order given, one microsecond apart
 * unless they carry a time, then FINISHED_ROUND.
 *
 * Other PMUs (enum perfdata_arch; Intel is the default and its files are
 * unchanged by the others):
 * - AMD IBS op on Zen 4: the kernel decodes IbsOpData2's DataSrc into
 *   data_src itself (arch/x86/events/amd/ibs.c perf_ibs_get_mem_lvl() and
 *   its g_zen4_data_src[] table, perf_ibs_get_mem_snoop(): HITM when the
 *   line was in M state), so the samples carry data_src as above; the
 *   event is ibs_op// (PMU_MAPPINGS names it), CPUID "AuthenticAMD-...".
 * - Arm SPE: the kernel writes no data_src; it writes SPE records into an
 *   AUX buffer and perf decodes them at report time
 *   (tools/perf/util/arm-spe-decoder/, arm-spe.c), choosing the data
 *   source decoding by the recording CPU's MIDR.  The file holds what
 *   `perf c2c record` writes there: the arm_spe_0 event, TIME_CONV,
 *   AUXTRACE_INFO (version 1 metadata: PMU type, per-CPU mmaps; the MIDR
 *   then comes from the CPUID feature, "0x00000000410fd0c0"), and per CPU
 *   one AUXTRACE record holding that CPU's SPE records (packets as
 *   arm-spe-pkt-decoder.c reads them: PC, CONTEXT (the tid), OP-TYPE,
 *   EVENTS, LAT, DATA-SOURCE, VA, PA, TIMESTAMP).  The real perf then does
 *   the decoding: whether a peer-core hit becomes a peer snoop depends on
 *   that perf knowing the CPU.
 */
#ifndef LAB_PERF_PERFDATA_WRITE_H
#define LAB_PERF_PERFDATA_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The PMU whose recording the file is. */
enum perfdata_arch {
	PERFDATA_ARCH_INTEL,	/* PEBS load latency (the default) */
	PERFDATA_ARCH_AMD,	/* IBS op, Zen 4 DataSrc */
	PERFDATA_ARCH_ARM,	/* SPE: an AUX trace perf decodes */
	PERFDATA_NARCHS,
};

/* "intel", "amd", "arm"; the arch of a name, -1 when it is none. */
const char *perfdata_arch_name(enum perfdata_arch a);
int perfdata_arch_parse(const char *name);

/* What a sample's data source says happened to the access. */
enum perfdata_mem_kind {
	/* Intel PEBS (arch/x86/events/intel/ds.c) */
	PERFDATA_MEM_LCL_HITM,	/* load: modified in another core's cache (same node) */
	PERFDATA_MEM_RMT_HITM,	/* load: modified in another node's cache */
	PERFDATA_MEM_LLC_HIT,	/* load: L3 hit, clean */
	PERFDATA_MEM_L1_HIT,	/* load: L1 hit */
	PERFDATA_MEM_STORE,	/* store: L1 hit */
	PERFDATA_MEM_STORE_MISS,	/* store: L1 miss (the line was taken from another core) */
	/* AMD IBS, Zen 4 DataSrc (arch/x86/include/asm/amd-ibs.h) */
	PERFDATA_MEM_AMD_CCX_HITM,	/* DataSrc 1 in M state: another core of this CCX */
	PERFDATA_MEM_AMD_NEAR_CCX_HITM,	/* DataSrc 2 in M state: another CCX, same NUMA node */
	PERFDATA_MEM_AMD_FAR_CCX_HITM,	/* DataSrc 5 in M state: another CCX, another NUMA node */
	PERFDATA_MEM_AMD_L3_HIT,	/* DataSrc 1, clean (O state) */
	PERFDATA_MEM_AMD_DRAM,		/* DataSrc 3, this node */
	PERFDATA_MEM_AMD_L1_HIT,	/* no DC miss */
	PERFDATA_MEM_AMD_STORE,		/* store, no DC miss */
	PERFDATA_MEM_AMD_STORE_MISS,	/* store, DC miss (IBS gives stores no DataSrc) */
	/* Arm SPE, the common data source encoding (Neoverse and Cortex TRMs) */
	PERFDATA_MEM_ARM_L1,		/* 0x0: L1D */
	PERFDATA_MEM_ARM_L2,		/* 0x8: L2 */
	PERFDATA_MEM_ARM_PEER_CORE,	/* 0x9: another core's L1/L2 in this cluster */
	PERFDATA_MEM_ARM_LOCAL_CLUSTER,	/* 0xa: the cluster's L3 */
	PERFDATA_MEM_ARM_SYS_CACHE,	/* 0xb: the system level cache */
	PERFDATA_MEM_ARM_PEER_CLUSTER,	/* 0xc: another cluster's cache */
	PERFDATA_MEM_ARM_REMOTE,	/* 0xd: another socket's cache or memory */
	PERFDATA_MEM_ARM_DRAM,		/* 0xe: DRAM */
	PERFDATA_MEM_ARM_STORE,		/* store (SPE gives stores no data source) */
	PERFDATA_MEM_NKINDS,
};

/* "lcl-hitm", "rmt-hitm", "llc-hit", "l1-hit", "store", "store-miss";
 * AMD: "ccx-hitm", "near-ccx-hitm", "far-ccx-hitm", "l3-hit", "dram",
 * "l1-hit", "store", "store-miss"; Arm: "l1", "l2", "peer-core",
 * "local-cluster", "sys-cache", "peer-cluster", "remote", "dram", "store". */
const char *perfdata_mem_kind_name(enum perfdata_mem_kind k);
/* The Intel kind of a name; -1 when it is none. */
int perfdata_mem_kind_parse(const char *name);
/* The kind of a name among an arch's kinds; -1 when it is none. */
int perfdata_mem_kind_parse_arch(enum perfdata_arch a, const char *name);
enum perfdata_arch perfdata_mem_kind_arch(enum perfdata_mem_kind k);
/*
 * union perf_mem_data_src's value for the kind, as PEBS or IBS fills it
 * in; for an Arm kind, what perf's common SPE decoding makes of it
 * (tools/perf/util/arm-spe.c arm_spe__synth_data_source_common(), perf
 * 6.1 to 7.3) on a CPU that perf knows.
 */
uint64_t perfdata_mem_data_src(enum perfdata_mem_kind k);

struct perfdata_mem_sample {
	enum perfdata_mem_kind kind;
	uint64_t ip, addr;	/* code and data addresses (virtual) */
	uint64_t phys_addr;	/* 0: derived from a direct-map addr */
	uint64_t weight;	/* load latency in cycles (perf c2c's averages) */
	uint64_t time;		/* 0: the previous sample's + 1 us */
	uint64_t period;	/* the events one sample stands for (0: 1) */
	uint32_t pid, tid, cpu;
	bool user;		/* ip is a user-space address */
};

/* What the file says of the machine that "recorded" it. */
struct perfdata_write_info {
	enum perfdata_arch pmu;		/* the PMU recorded; the samples' kinds are its */
	/* HEADER_CPUID (NULL: none for Intel; AMD "AuthenticAMD-25-11-1",
	 * a Zen 4 Genoa; Arm "0x00000000410fd0c0", the MIDR of a Neoverse
	 * N1), as perf's get_cpuid() writes it. */
	const char *cpuid;
	uint32_t ncpus;		/* NRCPUS, and the one NUMA node's CPU list */
	uint64_t mem_bytes;	/* MEM_TOPOLOGY covers [0, mem_bytes); 0: 8 GiB */
	const char *hostname, *os_release, *perf_version, *arch, *cmdline;	/* NULL: a default */
	/*
	 * The kernel the samples ran in (0: none said): its text's runtime
	 * address (_text, KASLR included) goes into a kernel MMAP record
	 * "[kernel.kallsyms]_text" as perf record writes it, so that perf
	 * relocates a vmlinux or kallsyms of that kernel; its GNU build ID
	 * (kernel_build_id_len bytes, 0: none) into the BUILD_ID feature, so
	 * that perf finds that kernel's kallsyms in a build-id cache
	 * (perf --buildid-dir DIR: DIR/[kernel.kallsyms]/<build id>/kallsyms).
	 */
	uint64_t kernel_text;
	uint8_t kernel_build_id[20];
	unsigned kernel_build_id_len;
};

struct perfdata_writer;

struct perfdata_writer *perfdata_writer_new(const struct perfdata_write_info *info);
/* A task's name (PERF_RECORD_COMM), written before every sample. */
void perfdata_writer_comm(struct perfdata_writer *w, uint32_t pid, uint32_t tid, const char *comm);
/* Tasks without a COMM get "memtest<pid>".  Arm: the sample becomes an SPE
 * record in its CPU's AUX trace (cpu below 4096). */
void perfdata_writer_sample(struct perfdata_writer *w, const struct perfdata_mem_sample *s);
size_t perfdata_writer_nsamples(const struct perfdata_writer *w);
/*
 * What a recording lost, or how the kernel throttled it, as the kernel (and
 * perf record, for LOST_SAMPLES) writes it: a record among the samples, in
 * call order, of the file's one event (id 1), with its sample_id trailer
 * (TID, TIME, CPU 0) at the time of the last sample or record.  The
 * layouts are in perf/perfdata_loss.h, which reads them back.
 */
void perfdata_writer_lost(struct perfdata_writer *w, uint64_t lost);		/* PERF_RECORD_LOST */
/* PERF_RECORD_LOST_SAMPLES; bpf: perf record --filter's drops (misc bit 15). */
void perfdata_writer_lost_samples(struct perfdata_writer *w, uint64_t lost, bool bpf);
void perfdata_writer_throttle(struct perfdata_writer *w, bool unthrottle);	/* PERF_RECORD_(UN)THROTTLE */
/* PERF_RECORD_AUX of size bytes at offset, flags PERF_AUX_FLAG_*. */
void perfdata_writer_aux(struct perfdata_writer *w, uint64_t offset, uint64_t size, uint64_t flags);
/* Writes the file whole (a temporary renamed into place: never half a
 * perf.data); 0, or -1 with err set. */
int perfdata_writer_save(struct perfdata_writer *w, const char *path, char *err, size_t errlen);
void perfdata_writer_free(struct perfdata_writer *w);

#endif
