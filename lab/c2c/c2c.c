// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include "c2c/c2c.h"
#include "c2c/c2c_legend.h"
#include "c2c/c2c_report_pass.h"
#include "perf/perfdata_loss.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/humanize.h"
#include "util/outfile.h"
#include "util/run.h"
#include "util/tsv.h"

#define SAMPLE_RATE_PATH "/proc/sys/kernel/perf_event_max_sample_rate"

/* ---------------------------------------------------------------- */
/* Capability                                                        */

static bool pmu_has(const char *root, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return path_exists(p);
}

/* "ldlat-loads   cpu/mem-loads,ldlat=30/P  : available" -> "ldlat-loads cpu/mem-loads,ldlat=30/P" */
static void available_events(const char *text, char *out, size_t n, int *count)
{
	const char *p = text;

	out[0] = '\0';
	*count = 0;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *avail = memmem(p, len, ": available", 11);

		if (avail && !memmem(p, len, "not available", 13)) {
			char ev[160];
			size_t o = 0;
			bool space = false;

			for (const char *c = p; c < avail && o + 1 < sizeof(ev); c++) {
				if (*c == ' ' || *c == '\t') {
					space = o > 0;
					continue;
				}
				if (space)
					ev[o++] = ' ';
				space = false;
				if (o + 1 < sizeof(ev))
					ev[o++] = *c;
			}
			ev[o] = '\0';
			if (o) {
				size_t used = strlen(out);

				snprintf(out + used, n - used, "%s%s", used ? ", " : "", ev);
				(*count)++;
			}
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* The first line saying why perf refused, trimmed. */
static void first_failure(const char *text, char *out, size_t n)
{
	const char *p = text, *hit = NULL;

	while (p && *p && !hit) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (memmem(p, len, "fail", 4) || memmem(p, len, "not supported", 13) ||
		    memmem(p, len, "no PMU", 6) || memmem(p, len, "rror", 4))
			hit = p;
		else
			p = nl ? nl + 1 : NULL;
	}
	if (!hit)
		hit = text;
	snprintf(out, n, "%.*s", (int)strcspn(hit, "\n"), hit);
}

/* The caps of PMU row p under this perf: ldlat, filter, display, limits. */
static void caps_of_pmu(struct c2c_caps *c, const struct c2c_pmu *p)
{
	c->pmu = p;
	c->vendor = p->vendor;
	c->ldlat = p->ldlat;
	c->kernel_filter = p->kernel_filter;
	c->peer = p->peer;
	c->decodes = c2c_pmu_perf_decodes(p, c->perf_version);
	snprintf(c->method, sizeof(c->method), "%s", p->what);
	if (!c->decodes && p->decode_major)
		snprintf(c->limits[c->nlimits++], sizeof(c->limits[0]), "%s is older than %d.%d, the first perf that "
			 "decodes %s data sources: its HITM and peer counts read 0 and are not a measurement",
			 c->perf_version[0] ? c->perf_version : "this perf", p->decode_major, p->decode_minor, p->what);
	else if (!c->decodes)
		snprintf(c->limits[c->nlimits++], sizeof(c->limits[0]), "%s", p->limit);
	if (p->limit && c->decodes)
		snprintf(c->limits[c->nlimits++], sizeof(c->limits[0]), "%s", p->limit);
}

void c2c_caps_for_pmu(struct c2c_caps *c, const struct c2c_pmu *p, const char *perf_version)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->perf_version, sizeof(c->perf_version), "%s", perf_version ? perf_version : "");
	c->double_cl = true;
	caps_of_pmu(c, p);
	snprintf(c->events, sizeof(c->events), "%s", p->events);
	c->supported = true;
	snprintf(c->line, sizeof(c->line), "c2c: %s (--pmu %s) [%s]; %s display; kernel-only filter %s",
		 c->method, p->name, p->events, c->peer ? "peer snoop" : "HITM",
		 c->kernel_filter ? "yes" : "no (all samples recorded)");
}

void c2c_caps_decide(struct c2c_caps *c, const struct c2c_caps_input *in)
{
	const char *root = in->pmu_root ? in->pmu_root : "/sys/bus/event_source/devices";
	const struct c2c_pmu *p;
	char why[320] = "", fail[200];
	int navail = 0;

	memset(c, 0, sizeof(*c));
	snprintf(c->perf_version, sizeof(c->perf_version), "%.*s",
		 in->perf_version ? (int)strcspn(in->perf_version, "\n") : 0,
		 in->perf_version ? in->perf_version : "");
	c->double_cl = in->report_help && strstr(in->report_help, "double-cl");
	c->min_period = in->spe_min_interval;

	p = in->pmu_name ? c2c_pmu_by_name(in->pmu_name) : c2c_pmu_detect(root, in->cpu_vendor, in->amd_family, in->midr);
	if (p)
		caps_of_pmu(c, p);
	else
		snprintf(c->method, sizeof(c->method), "no known memory-sampling PMU");

	if (!in->elist) {
		snprintf(why, sizeof(why), "perf is not installed (Debian package linux-perf)");
	} else {
		available_events(in->elist, c->events, sizeof(c->events), &navail);
		if (in->elist_status != 0 || !navail) {
			first_failure(in->elist, fail, sizeof(fail));
			snprintf(why, sizeof(why), "`perf c2c record -e list` says '%s'%s", fail,
				 in->hypervisor && !pmu_has(root, "cpu") && c->vendor != C2C_ARM ?
				 " (a VM without a virtual PMU: no memory sampling)" : "");
		} else if (c->vendor == C2C_AMD && !in->pmu_name && !pmu_has(root, "ibs_op/caps/zen4_ibs_extensions")) {
			snprintf(why, sizeof(why), "AMD IBS before Zen 4 (no ibs_op/caps/zen4_ibs_extensions): "
				 "perf c2c gives no usable HITM data there");
		} else if (!in->privileged) {
			snprintf(why, sizeof(why), "system-wide memory sampling needs root or "
				 "kernel.perf_event_paranoid <= 0");
		}
	}
	c->supported = !why[0] && p;
	if (!why[0] && !p)
		snprintf(why, sizeof(why), "perf lists memory events but the lab knows no rules for this CPU "
			 "(vendor '%s')", in->cpu_vendor ? in->cpu_vendor : "");
	if (c->supported)
		snprintf(c->line, sizeof(c->line), "c2c: supported: %s (--pmu %s) [%s]; %s display; kernel-only filter "
			 "%s; --double-cl report %s (%s)", c->method, p->name, c->events,
			 c->peer ? "peer snoop" : "HITM", c->kernel_filter ? "yes" : "no (all samples recorded)",
			 c->double_cl ? "possible" : "no", c->perf_version[0] ? c->perf_version : "perf version unknown");
	else
		snprintf(c->line, sizeof(c->line), "c2c: unsupported here: %s; c2c collection skipped", why);
}

static char *read_or_empty(const char *path)
{
	char *s = read_text(path, NULL);

	return s ? s : xstrdup("");
}

void c2c_caps_detect(struct c2c_caps *c)
{
	struct c2c_caps_input in = { 0 };
	char *cpuinfo = read_or_empty("/proc/cpuinfo"), *vendor = NULL, *elist = NULL, *help = NULL,
	     *version = NULL;
	const char *assume = getenv("MEMCG_LAB_C2C_VENDOR"), *pmu = getenv("MEMCG_LAB_C2C_PMU");
	long long paranoid = 2;

	if (program_on_path("perf")) {
		struct run_result r;

		elist = run_capture_argv((const char *const[]){ "perf", "c2c", "record", "-e", "list", "-v", NULL },
					 RUN_STDERR_MERGE, &r);
		in.elist_status = r.status;
		help = run_capture_argv((const char *const[]){ "perf", "c2c", "report", "-h", NULL }, RUN_STDERR_MERGE,
					NULL);
		version = run_capture_argv((const char *const[]){ "perf", "version", NULL }, RUN_STDERR_MERGE, NULL);
	}
	{
		char *l = strstr(cpuinfo, "vendor_id");

		if (l && (l = strchr(l, ':'))) {
			l++;
			l += strspn(l, " \t");
			vendor = strndup(l, strcspn(l, "\n"));
		}
	}
	{
		char *l = strstr(cpuinfo, "cpu family");

		if (l && (l = strchr(l, ':')))
			in.amd_family = atoi(l + 1);
	}
	{
		char midr[64];
		long long v;

		/* arch/arm64/kernel/cpuinfo.c: regs/identification/midr_el1, "0x%016llx" */
		if (read_buf("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr, sizeof(midr)) > 0)
			in.midr = (unsigned)strtoull(midr, NULL, 16);
		if (read_ll("/sys/bus/event_source/devices/arm_spe_0/caps/min_interval", &v) == 0)
			in.spe_min_interval = v;
	}
	read_ll("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	in.elist = elist;
	in.cpu_vendor = vendor ? vendor : "";
	in.hypervisor = strstr(cpuinfo, " hypervisor") != NULL;
	/*
	 * Tests on a machine without a memory PMU run the collector through a
	 * perf wrapper that records cpu-clock instead (lab/tests/lib/perf-c2c-
	 * cpu-clock.sh); this names the CPU vendor whose rules then apply.
	 */
	if (assume && *assume) {
		in.cpu_vendor = assume;
		in.hypervisor = false;
		in.amd_family = 0;
	}
	/* ... or the PMU row itself (--pmu's names), for the rules of an
	 * Arm or AMD box on this one. */
	if (pmu && *pmu) {
		in.pmu_name = pmu;
		in.hypervisor = false;
	}
	in.pmu_root = "/sys/bus/event_source/devices";
	in.report_help = help;
	in.perf_version = version;
	in.privileged = geteuid() == 0 || paranoid <= 0;
	c2c_caps_decide(c, &in);
	if ((assume && *assume) || (pmu && *pmu)) {
		size_t used = strlen(c->line);

		snprintf(c->line + used, sizeof(c->line) - used, " [%s %s from %s]", pmu && *pmu ? "PMU" : "vendor",
			 pmu && *pmu ? pmu : assume, pmu && *pmu ? "MEMCG_LAB_C2C_PMU" : "MEMCG_LAB_C2C_VENDOR");
	}
	free(cpuinfo);
	free(vendor);
	free(elist);
	free(help);
	free(version);
}

/* ---------------------------------------------------------------- */
/* Window and command line                                           */

void c2c_opts_default(struct c2c_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->start_frac = 0.75;
	o->start_s = -1;
	o->window_s = 0;
	o->freq = 0;
	o->budget = C2C_BUDGET_DEFAULT;
	o->max_size = C2C_MAX_SIZE_DEFAULT;
	o->report_timeout_s = C2C_REPORT_TIMEOUT_DEFAULT;
	o->double_cl = false;
	o->perf = "perf";
}

int c2c_plan_window(const struct c2c_opts *o, double driver_s, struct c2c_window *w)
{
	double rest;

	memset(w, 0, sizeof(*w));
	if (o->start_s < 0 && driver_s <= 0) {
		snprintf(w->note, sizeof(w->note), "the driver's duration is unknown: give a start time");
		return -1;
	}
	w->start_s = o->start_s >= 0 ? o->start_s : o->start_frac * driver_s;
	rest = driver_s > 0 ? driver_s - w->start_s : 0;
	if (o->window_s > 0) {
		w->len_s = o->window_s;
		if (driver_s > 0 && w->start_s + w->len_s > driver_s)
			snprintf(w->note, sizeof(w->note), "the %.1f s window runs %.1f s past the driver's end",
				 w->len_s, w->start_s + w->len_s - driver_s);
		return 0;
	}
	if (driver_s <= 0) {
		w->len_s = 4;
		return 0;
	}
	/* 3-5 s, ending before the driver does (its teardown is not steady state). */
	w->len_s = fmin(5.0, 0.8 * rest);
	if (w->len_s < 1.0) {
		snprintf(w->note, sizeof(w->note), "no steady-state window: %.1f s left after the start at %.1f s "
			 "of a %.1f s driver", rest, w->start_s, driver_s);
		return -1;
	}
	if (w->len_s < 3.0)
		snprintf(w->note, sizeof(w->note), "window %.1f s, shorter than 3 s: the driver runs only %.1f s",
			 w->len_s, driver_s);
	return 0;
}

static int ncpus_of(const struct c2c_opts *o)
{
	return o->ncpus > 0 ? o->ncpus : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

int c2c_pick_ldlat(const struct c2c_caps *c, const struct c2c_opts *o)
{
	int ncpus = ncpus_of(o);

	if (!c->ldlat)
		return 0;
	if (o->ldlat > 0)
		return o->ldlat;
	/* Joe Mario's advice: raise ldlat on busy big Intel boxes so perf does
	 * not drown.  Intel's ldlat filters loads only (stores are all
	 * sampled); SPE's min_latency filters every operation, stores too,
	 * and an AMD IBS ldlat keeps only load ops that missed L1
	 * (c2c/c2c_pmu.c): the lab raises it on Intel alone. */
	if (c->vendor != C2C_INTEL)
		return 0;
	if (ncpus >= 256)
		return 70;
	if (ncpus > 148)
		return 50;
	return 0;
}

int c2c_pick_rate(const struct c2c_caps *c, const struct c2c_opts *o, struct c2c_rate *r)
{
	static const struct c2c_pmu generic = { "generic", C2C_VENDOR_UNKNOWN, "memory sampling", "", 2, true,
						  true, true, false, 96, 0, 0, 0, 0, NULL };

	return c2c_pmu_rate(c->pmu ? c->pmu : &generic, ncpus_of(o), o->budget, o->freq, c->min_period, r);
}

char **c2c_record_argv(const struct c2c_caps *c, const struct c2c_opts *o, double len_s, const char *data,
		       unsigned long long max_size, char *why, size_t whylen)
{
	char **a;
	int n = 0, ldlat = c2c_pick_ldlat(c, o);
	struct c2c_rate rate;

	if (o->ldlat > 0 && !c->ldlat) {
		snprintf(why, whylen, "--ldlat %d: %s keeps only load ops above an ldlat (stores and near hits "
			 "dropped): the lab passes none there", o->ldlat, c->method);
		return NULL;
	}
	if (c2c_pick_rate(c, o, &rate) < 0) {
		snprintf(why, whylen, "%s", rate.why);
		return NULL;
	}
	a = xcalloc(24, sizeof(*a));
	a[n++] = xstrdup(o->perf ? o->perf : "perf");
	a[n++] = xstrdup("c2c");
	a[n++] = xstrdup("record");
	if (ldlat) {
		a[n++] = xstrdup("--ldlat");
		a[n++] = xasprintf("%d", ldlat);
	}
	if (!o->user && c->kernel_filter)
		a[n++] = xstrdup("--all-kernel");
	a[n++] = xstrdup("--");
	a[n++] = xstrdup("-a");
	if (rate.freq > 0) {
		a[n++] = xstrdup("-F");
		a[n++] = xasprintf("%d", rate.freq);
	} else if (rate.period > 0) {
		a[n++] = xstrdup("-c");
		a[n++] = xasprintf("%lld", rate.period);
	}
	/* perf record stops its session at this size (builtin-record.c
	 * record__output_max_size_exceeded: "perf size limit reached"). */
	if (max_size && !(max_size % (1ULL << 30)))
		a[n++] = xasprintf("--max-size=%lluG", max_size >> 30);
	else if (max_size && !(max_size % (1ULL << 20)))
		a[n++] = xasprintf("--max-size=%lluM", max_size >> 20);
	else if (max_size)
		a[n++] = xasprintf("--max-size=%lluK", (max_size + 1023) / 1024);
	a[n++] = xstrdup("-o");
	a[n++] = xstrdup(data);
	a[n++] = xstrdup("sleep");
	a[n++] = xasprintf("%.3f", len_s);
	return a;
}

void c2c_argv_line(char *const *argv, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; argv[i] && o < n; i++) {
		bool plain = argv[i][0] && !argv[i][strcspn(argv[i], " \t\n'\"\\$`;&|<>()*?[]{}!#~")];
		char *q = plain ? NULL : shell_quote(argv[i]);

		o += snprintf(buf + o, n - o, "%s%s", i ? " " : "", q ? q : argv[i]);
		free(q);
	}
}

void c2c_argv_free(char **argv)
{
	for (int i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* ---------------------------------------------------------------- */
/* Record                                                            */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * perf -F above perf_event_max_sample_rate is refused or throttled: raise
 * the limit for the window, through the host-state journal so that it comes
 * back after the window, on exit, on signals, and after a crash (cleanup).
 */
static void raise_rate(struct c2c_collector *c)
{
	long long cur;
	char val[32], err[256];

	c->saved_rate = -1;
	if (c->rate.freq <= 0 || read_ll(SAMPLE_RATE_PATH, &cur) < 0 || cur >= c->rate.freq)
		return;
	snprintf(val, sizeof(val), "%d", c->rate.freq);
	if (hoststate_set(SAMPLE_RATE_PATH, val, err, sizeof(err)) < 0) {
		/* perf then throttles to the old limit; its log says so */
		note("c2c: %s", err);
		return;
	}
	c->saved_rate = (long)cur;
}

static void restore_rate(struct c2c_collector *c)
{
	if (c->saved_rate >= 0)
		hoststate_restore(SAMPLE_RATE_PATH);
	c->saved_rate = -1;
}

/* Runs argv with stdout and stderr to files; returns the exit status or -1.
 * perf exits 0 when it cannot write its stdout (a full disk): the report
 * goes to a memfd and is written to out here, checked (util/outfile.h). */
int c2c_run_to_files(char *const *argv, const char *out, const char *errf)
{
	pid_t parent = getpid(), pid;
	int st, o = outfile_capture(argv[0]);

	if (o < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(o);
		return -1;
	}
	if (pid == 0) {
		int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		perf_detach_from_parent(parent);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			close(o);
			return -1;
		}
	if (outfile_save_capture(o, out))
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* What a window leaves on the disk besides its perf.data: reports, TSVs,
 * logs.  Kept free below the cap. */
#define C2C_DISK_RESERVE (64ULL << 20)
/* A cap smaller than this leaves no window worth its reports. */
#define C2C_MIN_CAP (16ULL << 20)

/*
 * The size cap of the window's perf.data: the run's cap, lowered to what
 * the disk holds beside the reserve; -1 with why when even the smallest
 * window would not fit (one line, no window: not a full disk).
 */
static int pick_cap(struct c2c_collector *c, char *why, size_t whylen)
{
	struct statvfs sv;
	unsigned long long free_b, want = c->opts.max_size ? c->opts.max_size : C2C_MAX_SIZE_DEFAULT;
	char a[32], b[32], d[32], e[32];

	c->cap = want;
	if (statvfs(c->dir, &sv) < 0)
		return 0;	/* unknown: perf's cap still holds */
	free_b = (unsigned long long)sv.f_bavail * sv.f_frsize;
	if (free_b < C2C_DISK_RESERVE + C2C_MIN_CAP) {
		snprintf(why, whylen, "c2c: %s has %s free, less than the %s a window needs at least (a %s "
			 "recording and %s for its reports): no window", c->dir, format_bytes(a, sizeof(a), free_b),
			 format_bytes(b, sizeof(b), C2C_DISK_RESERVE + C2C_MIN_CAP),
			 format_bytes(d, sizeof(d), C2C_MIN_CAP), format_bytes(e, sizeof(e), C2C_DISK_RESERVE));
		return -1;
	}
	if (free_b - C2C_DISK_RESERVE < want)
		c->cap = free_b - C2C_DISK_RESERVE;
	return 0;
}

struct c2c_collector *c2c_collector_start(const struct c2c_caps *caps, const struct c2c_opts *o,
					  double driver_s, const char *dir, bool *bound, char *why, size_t whylen)
{
	struct c2c_collector *c = xcalloc(1, sizeof(*c));
	pid_t parent = getpid();
	char **argv, cmd[512], cap[32], rate[48];
	int e;

	*bound = false;
	c->opts = *o;
	c->saved_rate = -1;
	if (caps)
		c->caps = *caps;
	else
		c2c_caps_detect(&c->caps);
	if (!c->caps.supported) {
		snprintf(why, whylen, "%s", c->caps.line);
		free(c);
		return NULL;
	}
	if (c2c_plan_window(o, driver_s, &c->win) < 0) {
		snprintf(why, whylen, "c2c: %s; c2c collection skipped", c->win.note);
		free(c);
		return NULL;
	}
	if (c2c_pick_rate(&c->caps, o, &c->rate) < 0) {
		snprintf(why, whylen, "c2c: %s; c2c collection skipped", c->rate.why);
		free(c);
		return NULL;
	}
	e = mkdir_p(dir, 0755);
	if (e < 0) {
		snprintf(why, whylen, "c2c: %s: cannot create: %s", dir, strerror(-e));
		free(c);
		return NULL;
	}
	c->dir = xstrdup(dir);
	if (pick_cap(c, why, whylen) < 0) {
		*bound = true;
		c2c_collector_free(c);
		return NULL;
	}
	c->data = xasprintf("%s/perf.c2c.data", dir);
	/* perf writes under another name until it has finished (wait_perf). */
	c->part = xasprintf("%s.part", c->data);
	unlink(c->data);
	argv = c2c_record_argv(&c->caps, o, c->win.len_s, c->part, c->cap, why, whylen);
	if (!argv) {
		c2c_collector_free(c);
		return NULL;
	}
	raise_rate(c);
	c->t0 = now_s();
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(why, whylen, "c2c: fork: %s", strerror(errno));
		c2c_argv_free(argv);
		c2c_collector_free(c);
		return NULL;
	}
	if (c->pid == 0) {
		char *log = xasprintf("%s/perf-record.log", dir);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		struct timespec ts;
		double left;

		perf_detach_from_parent(parent);
		/* Wait for the steady state, then become perf. */
		while ((left = c->t0 + c->win.start_s - now_s()) > 0) {
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	c2c_argv_line(argv, cmd, sizeof(cmd));
	snprintf(rate, sizeof(rate), "%.1f MB/s", c->rate.bytes_s / 1e6);
	snprintf(c->status, sizeof(c->status), "window %.1f s at %.1f s%s%.200s; %.256s; at most %s, capped at %s: %.400s",
		 c->win.len_s, c->win.start_s, c->win.note[0] ? "; " : "", c->win.note, c->rate.why, rate,
		 format_bytes(cap, sizeof(cap), c->cap), cmd);
	c2c_argv_free(argv);
	return c;
}

/*
 * How perf record ends (tools/perf/builtin-record.c): after its workload
 * (the sleep) exits, with its exit status; stopped by SIGINT, it sends its
 * workload SIGTERM, writes the data, and then re-raises the signal its
 * workload died of (out_child: signr = WTERMSIG(exit_status)) or, with no
 * workload left, the SIGINT itself (record__sig_exit).  So once the lab
 * has sent SIGINT, death by SIGINT or SIGTERM is perf finishing normally;
 * any other end, or a signal the lab did not send, is a failure, and
 * perf's log says why.  At --max-size perf stops its session itself
 * (record__output_max_size_exceeded: "perf size limit reached"), kills
 * its workload with SIGTERM and exits as above.
 */
static bool perf_finished(int st, int sent)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0;
	return WIFSIGNALED(st) && ((sent && WTERMSIG(st) == sent) || WTERMSIG(st) == SIGTERM);
}

static int wait_perf(struct c2c_collector *c)
{
	int st, sent = 0;
	pid_t r = waitpid(c->pid, &st, WNOHANG);
	char *log = xasprintf("%s/perf-record.log", c->dir), *text;

	if (r == 0) {
		double t = now_s() - c->t0;

		if (t < c->win.start_s) {
			/* The driver ended before the window opened. */
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &st, 0);
			c->pid = 0;
			unlink(c->part);
			snprintf(c->status, sizeof(c->status), "the driver ended at %.1f s, before the c2c window "
				 "(%.1f s): nothing recorded", t, c->win.start_s);
			free(log);
			return -1;
		}
		/* perf stops its workload and writes the data on SIGINT. */
		sent = SIGINT;
		kill(c->pid, sent);
		while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
			;
	} else if (r < 0) {
		c->pid = 0;
		snprintf(c->status, sizeof(c->status), "c2c: waitpid: %s", strerror(errno));
		free(log);
		return -1;
	}
	c->pid = 0;
	text = read_text(log, NULL);
	c->capped = text && strstr(text, "perf size limit reached");
	if (!perf_finished(st, sent) || (!sent && WIFSIGNALED(st) && !c->capped)) {
		char *usage = text ? strstr(text, "\n Usage: ") : NULL, last[400] = "";

		/* An option perf refused: its message comes before its usage text. */
		if (usage)
			*usage = '\0';
		if (text)
			c2c_log_tail(text, last, sizeof(last));
		snprintf(c->status, sizeof(c->status), "perf c2c record failed (%s %d%s)%s%s",
			 WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			 WIFSIGNALED(st) ? (sent ? ", not the lab's SIGINT" : ", not sent by the lab") : "",
			 last[0] ? ": " : ": no output in ", last[0] ? last : log);
		free(text);
		free(log);
		/* What perf left is not a complete recording: keep it as *.part. */
		return -1;
	}
	free(text);
	free(log);
	/* Only a recording perf finished gets the name reports read. */
	if (rename(c->part, c->data) < 0) {
		snprintf(c->status, sizeof(c->status), "c2c: %s: cannot rename to %s: %s", c->part, c->data,
			 strerror(errno));
		return -1;
	}
	c->recorded = true;
	return 0;
}

/* Samples, lost samples and throttling, from the perf.data itself. */
static void count_window(struct c2c_collector *c)
{
	struct perfdata_loss l;
	struct stat st;
	char err[400];

	memset(&c->counts, 0, sizeof(c->counts));
	if (!stat(c->data, &st))
		c->counts.bytes = (unsigned long long)st.st_size;
	if (perfdata_loss_read(c->data, &l, err, sizeof(err)) < 0) {
		note("c2c: %s: lost and throttled samples not counted: %s", c->data, err);
		return;
	}
	c->counts.known = true;
	c->counts.samples = l.samples;
	/* LOST and LOST_SAMPLES count the same records twice
	 * (__perf_output_begin): the larger of the two. */
	c->counts.lost = perfdata_loss_lost(&l);
	c->counts.throttled = l.throttle;
	c->counts.aux_lost = l.aux_truncated;
	c->counts.lost_share = perfdata_loss_share(&l) > 0 ? perfdata_loss_share(&l) : 0;
}

static int report_and_parse(struct c2c_collector *c, bool double_cl, const struct kbtf *k,
			    const struct c2c_objects *objs, char *sum, size_t sumlen)
{
	const char *name = double_cl ? "c2c-report-double-cl" : "c2c-report";
	char *txt = xasprintf("%s/%s.txt", c->dir, name), *log = xasprintf("%s/%s.log", c->dir, name);
	char *sub = xasprintf("%s/%s", c->dir, double_cl ? "c2c-double-cl" : "c2c"), err[400], lim[300];
	struct c2c_report_pass pass = { .perf = c->opts.perf, .data = c->data, .txt = txt, .log = log,
					.double_cl = double_cl, .source = c->opts.source,
					.timeout_s = c->opts.report_timeout_s };
	struct c2c_report r;
	struct c2c_attr_row *rows = NULL;
	size_t nrows = 0, named = 0;
	int ret = -1;
	bool timed_out;

	if (c2c_report_pass_run(&pass, &r, &timed_out, err, sizeof(err)) < 0) {
		snprintf(sum, sumlen, "%s: %s", name, err);
		c->timed_out |= timed_out;
		goto out;
	}
	/* Lcl and Rmt mean what this PMU means by them (c2c/c2c_legend.h);
	 * the report's own Events line, where it has one, wins. */
	c2c_report_assume_vendor(&r, c->caps.vendor);
	if (c2c_report_write_dir(&r, sub, err, sizeof(err)) < 0 || c2c_write_pmu_tsv(sub, &r, err, sizeof(err)) < 0) {
		snprintf(sum, sumlen, "%s", err);
		goto out;
	}
	rows = c2c_attribute(&r, k, objs, &nrows);
	for (size_t i = 0; i < nrows; i++)
		named += rows[i].obj != NULL;
	if (c2c_write_attribution_dir(sub, rows, nrows, objs, err, sizeof(err)) < 0) {
		snprintf(sum, sumlen, "%s", err);
	} else {
		char *p = xasprintf("%s/attribution.txt", sub);
		FILE *f = outfile_open(p, "w");

		for (int i = 0; i < c->caps.nlimits; i++)
			fprintf(f, "NOTE: %s\n", c->caps.limits[i]);
		c2c_print_attribution(&r, rows, nrows, objs, f);
		if (outfile_close(f)) {
			snprintf(sum, sumlen, "%s: %s", name, outfile_first_failure());
		} else if (c2c_report_limit(&r, lim, sizeof(lim))) {
			/* Not "0 cachelines": what the report cannot show. */
			snprintf(sum, sumlen, "%s: cannot show: %s", name, lim);
			ret = 0;
		} else {
			snprintf(sum, sumlen, "%s: %zu cachelines, %zu offset rows, %zu named to a field "
				 "(%zu parse warnings)", name, r.ncls, nrows, named, r.nwarns);
			ret = 0;
		}
		free(p);
	}
out:
	free(rows);
	c2c_report_free(&r);
	free(txt);
	free(log);
	free(sub);
	return ret;
}

int c2c_collector_finish(struct c2c_collector *c, const struct kbtf *k, const struct c2c_objects *objs)
{
	char one[480], two[480] = "", counts[200] = "";
	int ret;

	if (!c->pid && !c->recorded)
		return -1;
	ret = wait_perf(c);
	restore_rate(c);
	if (ret < 0)
		return -1;
	count_window(c);
	if (c->counts.known)
		snprintf(counts, sizeof(counts), "; %llu samples, %llu lost (%.1f%%)%s, throttled %llu time%s%s%s",
			 c->counts.samples, c->counts.lost, 100 * c->counts.lost_share,
			 c->counts.lost_share > C2C_LOST_MARK ? " MARKED: partial" : "", c->counts.throttled,
			 c->counts.throttled == 1 ? "" : "s",
			 c->counts.aux_lost ? ", AUX data lost " : "", c->counts.aux_lost ? "yes" : "");
	if (report_and_parse(c, false, k, objs, one, sizeof(one)) < 0) {
		snprintf(c->status, sizeof(c->status), "%s%s", one, counts);
		c->bound_failed |= c->timed_out;
		return -1;
	}
	if (c->opts.double_cl && c->caps.double_cl)
		report_and_parse(c, true, k, objs, two, sizeof(two));
	else
		snprintf(two, sizeof(two), "no --double-cl report (%s)",
			 c->caps.double_cl ? "not asked: c2c_double_cl" : "this perf is older than 6.3");
	if (c->capped) {
		char cap[32];

		c->bound_failed = true;
		snprintf(c->status, sizeof(c->status), "CUT SHORT at its %s size cap (c2c_max_size): the window "
			 "recorded less than %.1f s; %s; %s%s", format_bytes(cap, sizeof(cap), c->cap), c->win.len_s,
			 one, two, counts);
	} else {
		snprintf(c->status, sizeof(c->status), "%s; %s%s", one, two, counts);
	}
	/* The raw data, once its report is parsed, unless kept. */
	if (!c->opts.keep_data && unlink(c->data) == 0)
		strncat(c->status, "; perf.data removed (c2c_keep to keep it)",
			sizeof(c->status) - strlen(c->status) - 1);
	return 0;
}

void c2c_collector_free(struct c2c_collector *c)
{
	if (!c)
		return;
	if (c->pid > 0) {
		kill(c->pid, SIGINT);
		waitpid(c->pid, NULL, 0);
	}
	restore_rate(c);
	free(c->dir);
	free(c->data);
	free(c->part);
	free(c);
}

void c2c_windows_header(FILE *f)
{
	fputs("# memcg-lab c2c-windows 1\n", f);
	tsv_write_header(f, (const char *const[]){ "window", "start_s", "len_s", "pmu", "rate", "cap_bytes", "bytes",
						   "samples", "lost", "lost_pct", "throttled", "aux_lost", "status",
						   NULL });
}

void c2c_windows_row(const struct c2c_collector *c, const char *tag, FILE *f)
{
	const struct c2c_window_counts *w = &c->counts;
	const char *status = !c->recorded ? "not-recorded" : c->capped ? "cut-at-size-cap" :
			     c->timed_out ? "report-timed-out" :
			     w->known && w->lost_share > C2C_LOST_MARK ? "lost-over-5pct" : "ok";

	tsv_write_row(f, "%s\t%.1f\t%.1f\t%s\t", tag, c->win.start_s, c->win.len_s,
		      c->caps.pmu ? c->caps.pmu->name : "-");
	if (c->rate.freq)
		fprintf(f, "-F %d", c->rate.freq);
	else if (c->rate.period)
		fprintf(f, "-c %lld", c->rate.period);
	else
		fputc('-', f);
	fprintf(f, "\t%llu\t%llu\t", c->cap, w->bytes);
	if (w->known)
		fprintf(f, "%llu\t%llu\t%.2f\t%llu\t%llu", w->samples, w->lost, 100 * w->lost_share, w->throttled,
			w->aux_lost);
	else
		fputs("-\t-\t-\t-\t-", f);
	tsv_write_row(f, "\t%s\n", status);
}
