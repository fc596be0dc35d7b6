/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about the running machine that the kernel's types cannot tell:
 * topology (hwloc), what tracing and BPF can attach to, lock_stat, the
 * kernel config, and the perf installed.  Each with its evidence.
 */
#ifndef LAB_KERNEL_SYSINFO_H
#define LAB_KERNEL_SYSINFO_H

#include <stdbool.h>
#include <json-c/json.h>

struct lab_topology {
	int cpus;		/* online PUs */
	int cores;
	int smt;		/* PUs per core (1 without SMT) */
	int llcs;		/* last-level cache groups */
	int cpus_per_llc;
	int nodes;		/* NUMA nodes */
	char evidence[128];
};

/* Topology through hwloc; falls back to sysconf with a note in evidence. */
void lab_topology_read(struct lab_topology *t);

struct lab_capability {
	bool ok;
	char evidence[256];
};

struct lab_sysinfo {
	struct lab_topology topo;
	char tracefs[256];		/* mounted tracefs, "" if none */
	const char *tracefs_state;	/* "mounted", "mountable", "unavailable" */
	char tracefs_evidence[256];
	struct lab_capability bpf_tracepoint;
	struct lab_capability kprobes;
	struct lab_capability fentry;
	struct lab_capability lock_stat;
	char perf_version[128];		/* "" when perf is absent */
	char kconfig_source[320];	/* "/proc/config.gz", "/boot/config-...", "" */
	json_object *kconfig;		/* selected options */
};

void lab_sysinfo_read(struct lab_sysinfo *s);
void lab_sysinfo_free(struct lab_sysinfo *s);
json_object *lab_sysinfo_json(const struct lab_sysinfo *s);

#endif
