/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf c2c as a collector of an experiment.
 *
 * 1. Capability: can this machine sample memory accesses at all, with which
 *    PMU (c2c/c2c_pmu.h: Intel PEBS, AMD IBS on Zen 4 and 5, Arm SPE per
 *    Neoverse core and AmpereOne, POWER), and what can its data not show
 *    (a perf too old to decode this core's data sources, IBS without a
 *    kernel filter, SPE stores without a memory level)?  Decided from
 *    `perf c2c record -e list`, cpuinfo, the core's MIDR and the PMUs in
 *    sysfs.  Where it cannot record, one line says why and the run goes on.
 * 2. Record: one bounded window in the driver's steady state (by default
 *    3-5 s starting at 3/4 of the driver's duration), system-wide,
 *    kernel-only where the PMU can filter, with the events, ldlat and
 *    sampling perf's own rules allow for the PMU, at a rate chosen for the
 *    CPU count (a budget of samples per second over the box); a size cap on
 *    the recording (perf record --max-size), a free-space check before the
 *    window, /proc/sys/kernel/perf_event_max_sample_rate raised for the
 *    window and restored after it (util/hoststate.h: also on exit,
 *    signals, crashes).  Lost and throttled samples are counted from the
 *    perf.data itself.
 * 3. Report: one `perf c2c report --stdio -NN -c pid,tid,iaddr
 *    --full-symbols --no-source` pass (Source:Line only when asked; a
 *    --double-cl report only when asked), under a timeout, streamed from
 *    perf's pipe into the parser and the report file at once, parsed into
 *    TSV and attributed to the run's own objects (lab/c2c/c2c_attr.h);
 *    then the perf.data is removed unless kept.
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
#include "c2c/c2c_pmu.h"

/* A perf.data cap and a report's time limit unless the run says otherwise. */
#define C2C_MAX_SIZE_DEFAULT (1024ULL << 20)
#define C2C_REPORT_TIMEOUT_DEFAULT 600.0
/* A window whose perf.data lost more than this share of its samples is marked. */
#define C2C_LOST_MARK 0.05
#define C2C_MAX_LIMITS 4

struct c2c_caps {
	bool supported;
	enum c2c_vendor vendor;
	const struct c2c_pmu *pmu;	/* the PMU's row (c2c/c2c_pmu.h); NULL: none known */
	bool peer;		/* Arm SPE: peer snoops, no HITM */
	bool ldlat;		/* --ldlat is passed where asked (not on AMD: it drops stores) */
	bool kernel_filter;	/* -k/--all-kernel is possible (not on AMD IBS) */
	bool double_cl;		/* perf c2c report --double-cl */
	bool decodes;		/* this perf decodes the PMU's data sources */
	long long min_period;	/* Arm SPE: caps/min_interval (0: unknown) */
	char events[256];	/* what `perf c2c record -e list` called available */
	char method[96];	/* "Intel load-latency sampling" ... */
	char perf_version[64];
	char line[640];		/* the one line for the user */
	/* What this PMU's data cannot show, one line each (log and report). */
	char limits[C2C_MAX_LIMITS][320];
	int nlimits;
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
	int amd_family;			/* cpuinfo "cpu family" on AMD (Zen 5: 0x1a) */
	unsigned midr;			/* Arm: MIDR_EL1 of cpu0 (0: not Arm or unknown) */
	long long spe_min_interval;	/* Arm: arm_spe_0/caps/min_interval (0: unknown) */
	const char *pmu_name;		/* a c2c_pmus[] row by name instead of detection (tests) */
};

void c2c_caps_decide(struct c2c_caps *c, const struct c2c_caps_input *in);
/* Runs perf and reads /proc and sysfs of this machine. */
void c2c_caps_detect(struct c2c_caps *c);
/* The caps a box with PMU p and this perf would have (plans, --dry-run). */
void c2c_caps_for_pmu(struct c2c_caps *c, const struct c2c_pmu *p, const char *perf_version);

struct c2c_opts {
	double start_frac;	/* window start as a fraction of the driver's duration (0.75) */
	double start_s;		/* or in seconds after start (>= 0 overrides start_frac) */
	double window_s;	/* window length; 0: 3-5 s fitted to the driver */
	int ldlat;		/* 0: perf's default, raised on > 148 CPUs where ldlat keeps stores */
	int freq;		/* the user's perf record -F; 0: from the budget (c2c_pmu_rate) */
	int budget;		/* samples per second over the box (C2C_BUDGET_DEFAULT) */
	unsigned long long max_size;	/* the cap of one window's perf.data (--max-size) */
	double report_timeout_s;	/* perf c2c report's time limit */
	bool keep_data;		/* keep perf.data once its report is parsed */
	bool source;		/* Source:Line in the report (addr2line: slow) */
	bool user;		/* user-space samples too (default: kernel only) */
	bool double_cl;		/* a second, --double-cl report where perf has it (default off) */
	const char *perf;	/* the perf binary ("perf") */
	int ncpus;		/* 0: online CPUs (for the ldlat rule and the rate; tests set it) */
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
/* The window's sampling (c2c_pmu_rate for the caps' PMU); -1 with r->why. */
int c2c_pick_rate(const struct c2c_caps *c, const struct c2c_opts *o, struct c2c_rate *r);
/*
 * The perf c2c record argv (NULL-terminated, malloc'd strings in a malloc'd
 * array) for a window of len_s seconds writing data, with the size cap
 * max_size (0: none); NULL with why when the options do not fit the PMU
 * (a -F for Arm SPE).  For the collector, tests and --dry-run.
 */
char **c2c_record_argv(const struct c2c_caps *c, const struct c2c_opts *o, double len_s, const char *data,
		       unsigned long long max_size, char *why, size_t whylen);
/* An argv as one line, words quoted where they need it (logs, --dry-run). */
void c2c_argv_line(char *const *argv, char *buf, size_t n);
void c2c_argv_free(char **argv);
/*
 * Runs perf (argv, from PATH) with its stdout checked into out (a capture
 * written whole: perf exits 0 on a full disk) and its stderr into errf;
 * tied to the lab's life.  Its exit status (128 + N: signal N), or -1.
 */
int c2c_run_to_files(char *const *argv, const char *out, const char *errf);

/* What one window recorded, from its perf.data and perf's log. */
struct c2c_window_counts {
	bool known;			/* read from the perf.data */
	unsigned long long samples;	/* PERF_RECORD_SAMPLE */
	unsigned long long lost;	/* samples lost (LOST and LOST_SAMPLES) */
	unsigned long long throttled;	/* THROTTLE records */
	unsigned long long aux_lost;	/* AUX records truncated (Arm SPE) */
	unsigned long long bytes;	/* the perf.data's size */
	double lost_share;		/* lost / (samples + lost) */
};

struct c2c_collector {
	struct c2c_caps caps;
	struct c2c_opts opts;
	struct c2c_window win;
	struct c2c_rate rate;
	unsigned long long cap;	/* the size cap passed to perf (bytes) */
	char *dir;		/* where perf data, reports and TSVs go */
	char *data;		/* dir/perf.c2c.data, once perf has finished it */
	char *part;		/* dir/perf.c2c.data.part, while perf writes it */
	pid_t pid;		/* the delayed perf c2c record, 0 when none */
	double t0;		/* CLOCK_MONOTONIC at start */
	long saved_rate;	/* perf_event_max_sample_rate before the window, -1: unchanged */
	bool recorded;
	bool capped;		/* perf stopped at the size cap: the window is cut short */
	bool timed_out;		/* the report ran past its limit */
	bool bound_failed;	/* a bound (disk, size, time) cost this window its data */
	struct c2c_window_counts counts;
	char status[1024];	/* what happened, one line (also in the log) */
};

/* The columns of c2c windows.tsv and one window's row (tag: "tasks=4.r0"). */
void c2c_windows_header(FILE *f);
void c2c_windows_row(const struct c2c_collector *c, const char *tag, FILE *f);

/*
 * Plans the window for driver_s seconds, checks the disk, and starts the
 * delayed recorder; caps: from c2c_caps_detect(), or NULL to detect here.
 * Returns NULL with a one-line reason in why when c2c cannot run here (the
 * experiment goes on without it); *bound is set when the reason is a bound
 * (too little free disk), which costs the run its completeness.
 */
struct c2c_collector *c2c_collector_start(const struct c2c_caps *caps, const struct c2c_opts *o,
					  double driver_s, const char *dir, bool *bound, char *why, size_t whylen);
/*
 * After the driver ended: stops a window still running, counts its samples,
 * lost samples and throttling from the perf.data, runs one report pass
 * (dir/c2c-report.txt; dir/c2c-report-double-cl.txt when asked), parses it
 * into dir/c2c/ (dir/c2c-double-cl/) and, when objects are given, writes
 * the field attribution and the false-sharing maps there; then removes the
 * perf.data unless kept.  0, or -1 with the reason in c->status.  Frees
 * nothing: call c2c_collector_free().
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
