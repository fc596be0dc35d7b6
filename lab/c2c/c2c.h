/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf c2c as a collector of an experiment.
 *
 * 1. Capability: can this machine sample memory accesses at all?  Decided
 *    from `perf c2c record -e list` and the PMUs in sysfs (Intel load
 *    latency, AMD IBS on Zen 4 and later, Arm SPE with peer snoops instead
 *    of HITM).  Where it cannot, one line says why and the run goes on.
 * 2. Record: one bounded window in the driver's steady state (by default
 *    3-5 s starting at 3/4 of the driver's duration, both configurable),
 *    system-wide, kernel-only by default (memcg work), ldlat raised on big
 *    boxes (Joe Mario: 50, or 70, above ~150 CPUs), and
 *    /proc/sys/kernel/perf_event_max_sample_rate raised for the window and
 *    restored after it (util/hoststate.h: also on exit, signals, crashes).
 * 3. Reports: `perf c2c report --stdio -NN -c pid,tid,iaddr --full-symbols`,
 *    plus a `--double-cl` report where perf has it (6.3+), both parsed into
 *    TSV and attributed to the run's own objects (lab/c2c/c2c_attr.h).
 *
 * An experiment runner calls c2c_collector_start() before starting the
 * driver (the window is timed from that call) and c2c_collector_finish()
 * after the driver ended; an early end stops the window cleanly.
 */
#ifndef LAB_C2C_C2C_H
#define LAB_C2C_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "c2c/c2c_attr.h"

/* enum c2c_vendor: c2c/c2c_vendor.h (through c2c_attr.h, c2c_parse.h). */

struct c2c_caps {
	bool supported;
	enum c2c_vendor vendor;
	bool peer;		/* Arm SPE: peer snoops, no HITM */
	bool ldlat;		/* --ldlat is honoured */
	bool kernel_filter;	/* -k/--all-kernel is possible (not on AMD IBS) */
	bool double_cl;		/* perf c2c report --double-cl */
	char events[256];	/* what `perf c2c record -e list` called available */
	char method[96];	/* "Intel load-latency sampling" ... */
	char perf_version[64];
	char line[640];		/* the one line for the user */
};

/* What detection looks at; c2c_caps_decide() is pure so tests can feed it. */
struct c2c_caps_input {
	const char *elist;		/* output of `perf c2c record -e list -v` (NULL: perf missing) */
	int elist_status;		/* its exit status */
	const char *cpu_vendor;		/* /proc/cpuinfo vendor_id or "" */
	bool hypervisor;		/* cpuinfo flags has "hypervisor" */
	const char *pmu_root;		/* "/sys/bus/event_source/devices" */
	const char *report_help;	/* `perf c2c report -h` (for --double-cl) */
	const char *perf_version;	/* `perf version` */
	bool privileged;		/* root, or perf_event_paranoid <= 0 */
};

void c2c_caps_decide(struct c2c_caps *c, const struct c2c_caps_input *in);
/* Runs perf and reads /proc and sysfs of this machine. */
void c2c_caps_detect(struct c2c_caps *c);

struct c2c_opts {
	double start_frac;	/* window start as a fraction of the driver's duration (0.75) */
	double start_s;		/* or in seconds after start (>= 0 overrides start_frac) */
	double window_s;	/* window length; 0: 3-5 s fitted to the driver */
	int ldlat;		/* 0: perf's default, raised on > 148 CPUs */
	int freq;		/* perf record -F (default 60000, Joe Mario's guide) */
	bool user;		/* user-space samples too (default: kernel only) */
	bool double_cl;		/* the --double-cl report where perf has it (default on) */
	const char *perf;	/* the perf binary ("perf") */
	int ncpus;		/* 0: online CPUs (for the ldlat rule; tests set it) */
};

void c2c_opts_default(struct c2c_opts *o);

struct c2c_window {
	double start_s, len_s;
	char note[256];		/* why it is not the default, "" otherwise */
};

/* Plans the window for a driver of driver_s seconds; -1 with note when none fits. */
int c2c_plan_window(const struct c2c_opts *o, double driver_s, struct c2c_window *w);
/* ldlat to pass (0: none) for these caps and options. */
int c2c_pick_ldlat(const struct c2c_caps *c, const struct c2c_opts *o);
/*
 * The perf c2c record argv (NULL-terminated, malloc'd strings in a malloc'd
 * array) for a window of len_s seconds writing data.  For tests and logs.
 */
char **c2c_record_argv(const struct c2c_caps *c, const struct c2c_opts *o, double len_s, const char *data);
void c2c_argv_free(char **argv);
/*
 * Runs perf (argv, from PATH) with its stdout checked into out (a capture
 * written whole: perf exits 0 on a full disk) and its stderr into errf;
 * tied to the lab's life.  Its exit status (128 + N: signal N), or -1.
 */
int c2c_run_to_files(char *const *argv, const char *out, const char *errf);

struct c2c_collector {
	struct c2c_caps caps;
	struct c2c_opts opts;
	struct c2c_window win;
	char *dir;		/* where perf data, reports and TSVs go */
	char *data;		/* dir/perf.c2c.data, once perf has finished it */
	char *part;		/* dir/perf.c2c.data.part, while perf writes it */
	pid_t pid;		/* the delayed perf c2c record, 0 when none */
	double t0;		/* CLOCK_MONOTONIC at start */
	long saved_rate;	/* perf_event_max_sample_rate before the window, -1: unchanged */
	bool recorded;
	char status[1024];	/* what happened, one line (also in the log) */
};

/*
 * Plans the window for driver_s seconds and starts the delayed recorder;
 * caps: from c2c_caps_detect(), or NULL to detect here.  Returns NULL with a
 * one-line reason in why when c2c cannot run here (the experiment goes on
 * without it).
 */
struct c2c_collector *c2c_collector_start(const struct c2c_caps *caps, const struct c2c_opts *o,
					  double driver_s, const char *dir, char *why, size_t whylen);
/*
 * After the driver ended: stops a window still running, writes the reports
 * (dir/c2c-report.txt, dir/c2c-report-double-cl.txt), parses them into
 * dir/c2c/ and dir/c2c-double-cl/ and, when objects are given, writes the
 * field attribution and the false-sharing maps there.  0, or -1 with the
 * reason in c->status.  Frees nothing: call c2c_collector_free().
 */
int c2c_collector_finish(struct c2c_collector *c, const struct kbtf *k, const struct c2c_objects *objs);
void c2c_collector_free(struct c2c_collector *c);

/*
 * The run's own objects: the struct mem_cgroup of each memcg directory and
 * every CPU's memcg_stock / obj_stock (those that exist in BTF).  Whatever
 * cannot be found is said in one line each through note_fn.
 */
/*
 * The memcg directories of one run: the root memcg (memory_root) and the
 * run's tree memory_root/<tree>, every directory below it, depth first;
 * *dirs and each string malloc'd.
 */
void c2c_run_memcgs(const char *memory_root, const char *tree, char ***dirs, int *n);

void c2c_find_objects(struct c2c_objects *objs, const struct kbtf *k, const char *const *memcg_dirs,
		      int nmemcgs, void (*note_fn)(const char *line, void *arg), void *arg);

#endif
