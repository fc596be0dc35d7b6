// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
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
#include <bpf/btf.h>
#include "c2c/c2c.h"
#include "kernel/cgroup.h"
#include "kernel/kallsyms.h"
#include "kernel/kread.h"
#include "kernel/memcg_addr.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/outfile.h"
#include "util/run.h"

#define SAMPLE_RATE_PATH "/proc/sys/kernel/perf_event_max_sample_rate"

/* ---------------------------------------------------------------- */
/* Capability                                                        */

static bool pmu_has(const char *root, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return path_exists(p);
}

static bool pmu_file_is_1(const char *root, const char *rel)
{
	char p[512], buf[16];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return read_buf(p, buf, sizeof(buf)) > 0 && buf[0] == '1';
}

static bool pmu_prefix(const char *root, const char *prefix)
{
	DIR *d = opendir(root);
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return found;
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

void c2c_caps_decide(struct c2c_caps *c, const struct c2c_caps_input *in)
{
	const char *root = in->pmu_root ? in->pmu_root : "/sys/bus/event_source/devices";
	const char *v = in->cpu_vendor ? in->cpu_vendor : "";
	char why[320] = "", fail[200];
	int navail = 0;
	bool zen4;

	memset(c, 0, sizeof(*c));
	snprintf(c->perf_version, sizeof(c->perf_version), "%.*s",
		 in->perf_version ? (int)strcspn(in->perf_version, "\n") : 0,
		 in->perf_version ? in->perf_version : "");
	c->double_cl = in->report_help && strstr(in->report_help, "double-cl");

	if (pmu_has(root, "ibs_op") || !strcmp(v, "AuthenticAMD") || !strcmp(v, "HygonGenuine"))
		c->vendor = C2C_AMD;
	else if (pmu_prefix(root, "arm_spe"))
		c->vendor = C2C_ARM;
	else if (pmu_has(root, "cpu/events/mem-loads") || pmu_has(root, "cpu_core/events/mem-loads") ||
		 !strcmp(v, "GenuineIntel"))
		c->vendor = C2C_INTEL;
	else if (pmu_has(root, "cpu/events/mem-loads") || strstr(v, "POWER"))
		c->vendor = C2C_POWER;

	switch (c->vendor) {
	case C2C_INTEL:
		snprintf(c->method, sizeof(c->method), "Intel load-latency sampling (mem-loads/mem-stores)");
		c->ldlat = c->kernel_filter = true;
		break;
	case C2C_AMD:
		zen4 = pmu_has(root, "ibs_op/caps/zen4_ibs_extensions");
		snprintf(c->method, sizeof(c->method), "AMD IBS op sampling%s",
			 zen4 ? " (Zen 4 extensions)" : "");
		/* IBS filters load latency only where caps/ldlat says so; it rejects :k/:u. */
		c->ldlat = pmu_file_is_1(root, "ibs_op/caps/ldlat");
		c->kernel_filter = false;
		break;
	case C2C_ARM:
		snprintf(c->method, sizeof(c->method), "Arm SPE sampling (peer snoops, no HITM)");
		c->peer = c->ldlat = c->kernel_filter = true;
		break;
	case C2C_POWER:
		snprintf(c->method, sizeof(c->method), "POWER random-instruction sampling");
		c->kernel_filter = true;
		break;
	default:
		snprintf(c->method, sizeof(c->method), "no known memory-sampling PMU");
	}

	if (!in->elist) {
		snprintf(why, sizeof(why), "perf is not installed (Debian package linux-perf)");
	} else {
		available_events(in->elist, c->events, sizeof(c->events), &navail);
		if (in->elist_status != 0 || !navail) {
			first_failure(in->elist, fail, sizeof(fail));
			snprintf(why, sizeof(why), "`perf c2c record -e list` says '%s'%s", fail,
				 in->hypervisor && !pmu_has(root, "cpu") && c->vendor != C2C_ARM ?
				 " (a VM without a virtual PMU: no memory sampling)" : "");
		} else if (c->vendor == C2C_AMD && !pmu_has(root, "ibs_op/caps/zen4_ibs_extensions")) {
			snprintf(why, sizeof(why), "AMD IBS before Zen 4 (no ibs_op/caps/zen4_ibs_extensions): "
				 "perf c2c gives no usable HITM data there");
		} else if (!in->privileged) {
			snprintf(why, sizeof(why), "system-wide memory sampling needs root or "
				 "kernel.perf_event_paranoid <= 0");
		}
	}
	c->supported = !why[0];
	if (c->supported)
		snprintf(c->line, sizeof(c->line), "c2c: supported: %s [%s]; %s display; kernel-only filter %s; "
			 "--double-cl report %s (%s)", c->method, c->events, c->peer ? "peer snoop" : "HITM",
			 c->kernel_filter ? "yes" : "no (all samples recorded)", c->double_cl ? "yes" : "no",
			 c->perf_version[0] ? c->perf_version : "perf version unknown");
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
	const char *assume = getenv("MEMCG_LAB_C2C_VENDOR");
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
	}
	in.pmu_root = "/sys/bus/event_source/devices";
	in.report_help = help;
	in.perf_version = version;
	in.privileged = geteuid() == 0 || paranoid <= 0;
	c2c_caps_decide(c, &in);
	if (assume && *assume) {
		size_t used = strlen(c->line);

		snprintf(c->line + used, sizeof(c->line) - used, " [vendor %s from MEMCG_LAB_C2C_VENDOR]", assume);
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
	o->freq = 60000;
	o->double_cl = true;
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

int c2c_pick_ldlat(const struct c2c_caps *c, const struct c2c_opts *o)
{
	int ncpus = o->ncpus > 0 ? o->ncpus : (int)sysconf(_SC_NPROCESSORS_ONLN);

	if (!c->ldlat)
		return 0;
	if (o->ldlat > 0)
		return o->ldlat;
	/* Joe Mario's advice: raise ldlat on busy big boxes so perf does not
	 * drown.  AMD IBS takes an ldlat of 128..2048 cycles only
	 * (arch/x86/events/amd/ibs.c, 6.15+): there the raise is its least. */
	if (ncpus > 148 && c->vendor == C2C_AMD)
		return 128;
	if (ncpus >= 256)
		return 70;
	if (ncpus > 148)
		return 50;
	return 0;
}

char **c2c_record_argv(const struct c2c_caps *c, const struct c2c_opts *o, double len_s, const char *data)
{
	char **a = xcalloc(24, sizeof(*a));
	int n = 0, ldlat = c2c_pick_ldlat(c, o);

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
	if (o->freq > 0) {
		a[n++] = xstrdup("-F");
		a[n++] = xasprintf("%d", o->freq);
	}
	a[n++] = xstrdup("-o");
	a[n++] = xstrdup(data);
	a[n++] = xstrdup("sleep");
	a[n++] = xasprintf("%.3f", len_s);
	return a;
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
	if (c->opts.freq <= 0 || read_ll(SAMPLE_RATE_PATH, &cur) < 0 || cur >= c->opts.freq)
		return;
	snprintf(val, sizeof(val), "%d", c->opts.freq);
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

struct c2c_collector *c2c_collector_start(const struct c2c_caps *caps, const struct c2c_opts *o,
					  double driver_s, const char *dir, char *why, size_t whylen)
{
	struct c2c_collector *c = xcalloc(1, sizeof(*c));
	pid_t parent = getpid();
	char **argv;
	int e;

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
	e = mkdir_p(dir, 0755);
	if (e < 0) {
		snprintf(why, whylen, "c2c: %s: cannot create: %s", dir, strerror(-e));
		free(c);
		return NULL;
	}
	c->dir = xstrdup(dir);
	c->data = xasprintf("%s/perf.c2c.data", dir);
	/* perf writes under another name until it has finished (wait_perf). */
	c->part = xasprintf("%s.part", c->data);
	unlink(c->data);
	argv = c2c_record_argv(&c->caps, o, c->win.len_s, c->part);
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
	{
		char cmd[1024] = "";

		for (int i = 0; argv[i]; i++) {
			size_t used = strlen(cmd);

			snprintf(cmd + used, sizeof(cmd) - used, "%s%s", i ? " " : "", argv[i]);
		}
		snprintf(c->status, sizeof(c->status), "window %.1f s at %.1f s%s%s: %s", c->win.len_s,
			 c->win.start_s, c->win.note[0] ? "; " : "", c->win.note, cmd);
	}
	c2c_argv_free(argv);
	return c;
}

/* perf's last words: its last (up to three) non-empty log lines, joined by " | ". */
static void log_tail(const char *text, char *out, size_t n)
{
	const char *starts[3] = { 0 };
	size_t lens[3] = { 0 }, o = 0;
	int k = 0;

	for (const char *p = text; *p;) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, "\n");
		if (len) {
			memmove(starts, starts + 1, 2 * sizeof(*starts));
			memmove(lens, lens + 1, 2 * sizeof(*lens));
			starts[2] = p;
			lens[2] = len;
			k += k < 3;
		}
		p += len + (p[len] == '\n');
	}
	out[0] = '\0';
	for (int i = 3 - k; i < 3 && o + 1 < n; i++)
		o += snprintf(out + o, n - o, "%s%.*s", i > 3 - k ? " | " : "", (int)lens[i], starts[i]);
}

/*
 * How perf record ends (tools/perf/builtin-record.c): after its workload
 * (the sleep) exits, with its exit status; stopped by SIGINT, it sends its
 * workload SIGTERM, writes the data, and then re-raises the signal its
 * workload died of (out_child: signr = WTERMSIG(exit_status)) or, with no
 * workload left, the SIGINT itself (record__sig_exit).  So once the lab
 * has sent SIGINT, death by SIGINT or SIGTERM is perf finishing normally;
 * any other end, or a signal the lab did not send, is a failure, and
 * perf's log says why.
 */
static bool perf_finished(int st, int sent)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0;
	return sent && WIFSIGNALED(st) && (WTERMSIG(st) == sent || WTERMSIG(st) == SIGTERM);
}

static int wait_perf(struct c2c_collector *c)
{
	int st, sent = 0;
	pid_t r = waitpid(c->pid, &st, WNOHANG);

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
		return -1;
	}
	c->pid = 0;
	if (!perf_finished(st, sent)) {
		char *log = xasprintf("%s/perf-record.log", c->dir), *text = read_text(log, NULL), last[400] = "";
		char *usage = text ? strstr(text, "\n Usage: ") : NULL;

		/* An option perf refused: its message comes before its usage text. */
		if (usage)
			*usage = '\0';
		if (text)
			log_tail(text, last, sizeof(last));
		snprintf(c->status, sizeof(c->status), "perf c2c record failed (%s %d%s)%s%s",
			 WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			 WIFSIGNALED(st) ? (sent ? ", not the lab's SIGINT" : ", not sent by the lab") : "",
			 last[0] ? ": " : ": no output in ", last[0] ? last : log);
		free(text);
		free(log);
		/* What perf left is not a complete recording: keep it as *.part. */
		return -1;
	}
	/* Only a recording perf finished gets the name reports read. */
	if (rename(c->part, c->data) < 0) {
		snprintf(c->status, sizeof(c->status), "c2c: %s: cannot rename to %s: %s", c->part, c->data,
			 strerror(errno));
		return -1;
	}
	c->recorded = true;
	return 0;
}

static int report_and_parse(struct c2c_collector *c, bool double_cl, const struct kbtf *k,
			    const struct c2c_objects *objs, char *sum, size_t sumlen)
{
	const char *name = double_cl ? "c2c-report-double-cl" : "c2c-report";
	char *txt = xasprintf("%s/%s.txt", c->dir, name), *log = xasprintf("%s/%s.log", c->dir, name);
	char *sub = xasprintf("%s/%s", c->dir, double_cl ? "c2c-double-cl" : "c2c");
	char *argv[16], err[400];
	struct c2c_report r;
	int n = 0, st, ret = -1;

	argv[n++] = (char *)(c->opts.perf ? c->opts.perf : "perf");
	argv[n++] = "c2c";
	argv[n++] = "report";
	argv[n++] = "-i";
	argv[n++] = c->data;
	argv[n++] = "--stdio";
	argv[n++] = "-NN";
	argv[n++] = "-c";
	argv[n++] = "pid,tid,iaddr";
	argv[n++] = "--full-symbols";
	if (double_cl)
		argv[n++] = "--double-cl";
	argv[n] = NULL;
	st = c2c_run_to_files(argv, txt, log);
	if (st != 0) {
		snprintf(sum, sumlen, "%s failed (status %d, see %s)", name, st, log);
		goto out;
	}
	if (c2c_parse_to_dir(txt, sub, &r, err, sizeof(err)) < 0) {
		snprintf(sum, sumlen, "%s", err);
		goto out;
	}
	c2c_report_free(&r);
	if (c2c_parse_path(&r, txt, NULL, NULL) == 0) {
		size_t nrows;
		struct c2c_attr_row *rows = c2c_attribute(&r, k, objs, &nrows);
		size_t named = 0;

		for (size_t i = 0; i < nrows; i++)
			named += rows[i].obj != NULL;
		if (c2c_write_attribution_dir(sub, rows, nrows, objs, err, sizeof(err)) < 0) {
			snprintf(sum, sumlen, "%s", err);
		} else {
			char *p = xasprintf("%s/attribution.txt", sub);
			FILE *f = outfile_open(p, "w");

			c2c_print_attribution(&r, rows, nrows, objs, f);
			if (outfile_close(f)) {
				snprintf(sum, sumlen, "%s: %s", name, outfile_first_failure());
			} else {
				snprintf(sum, sumlen, "%s: %zu cachelines, %zu offset rows, %zu named to a field "
					 "(%zu parse warnings)", name, r.ncls, nrows, named, r.nwarns);
				ret = 0;
			}
			free(p);
		}
		free(rows);
		c2c_report_free(&r);
	}
out:
	free(txt);
	free(log);
	free(sub);
	return ret;
}

int c2c_collector_finish(struct c2c_collector *c, const struct kbtf *k, const struct c2c_objects *objs)
{
	char one[480], two[480] = "";
	int ret;

	if (!c->pid && !c->recorded)
		return -1;
	ret = wait_perf(c);
	restore_rate(c);
	if (ret < 0)
		return -1;
	if (report_and_parse(c, false, k, objs, one, sizeof(one)) < 0) {
		snprintf(c->status, sizeof(c->status), "%s", one);
		return -1;
	}
	if (c->opts.double_cl && c->caps.double_cl)
		report_and_parse(c, true, k, objs, two, sizeof(two));
	else
		snprintf(two, sizeof(two), "no --double-cl report (%s)",
			 c->caps.double_cl ? "disabled" : "this perf is older than 6.3");
	snprintf(c->status, sizeof(c->status), "%s; %s", one, two);
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

/* ---------------------------------------------------------------- */
/* The run's own objects                                             */

/* The struct type of a per-CPU variable, from its BTF VAR; before 5.11
 * BTF has no per-CPU VARs: then "<var>_pcp", the stocks' struct, where BTF
 * has it (kallsyms says whether the variable exists). */
static const char *percpu_struct(const struct kbtf *k, const char *var)
{
	int id = btf__find_by_name_kind(k->btf, var, BTF_KIND_VAR);
	const struct btf_type *t;

	if (id <= 0 && btf__find_by_name_kind(k->btf, ".data..percpu", BTF_KIND_DATASEC) <= 0) {
		char *name = xasprintf("%s_pcp", var);
		const char *type = NULL;

		id = btf__find_by_name_kind(k->btf, name, BTF_KIND_STRUCT);
		if (id > 0)
			type = btf__name_by_offset(k->btf, btf__type_by_id(k->btf, id)->name_off);
		free(name);
		return type;
	}
	if (id <= 0 || !kbtf_has_datasec_var(k, ".data..percpu", var))
		return NULL;
	t = btf__type_by_id(k->btf, kbtf_resolve(k, btf__type_by_id(k->btf, id)->type));
	if (!t || !btf_is_struct(t))
		return NULL;
	return btf__name_by_offset(k->btf, t->name_off);
}

/* Every directory below root (root included), depth first. */
static void collect_dirs(const char *root, char ***dirs, int *n, int *cap)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*dirs = xrealloc(*dirs, *cap * sizeof(**dirs));
	}
	(*dirs)[(*n)++] = xstrdup(root);
	while ((de = readdir(d))) {
		char *sub;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", root, de->d_name);
		collect_dirs(sub, dirs, n, cap);
		free(sub);
	}
	closedir(d);
}

void c2c_run_memcgs(const char *memory_root, const char *tree, char ***dirs, int *n)
{
	char *root = xasprintf("%s/%s", memory_root, tree);
	int cap = 1;

	*dirs = xcalloc(1, sizeof(**dirs));
	(*dirs)[0] = xstrdup(memory_root);
	*n = 1;
	collect_dirs(root, dirs, n, &cap);
	free(root);
}

void c2c_find_objects(struct c2c_objects *objs, const struct kbtf *k, const char *const *memcg_dirs,
		      int nmemcgs, void (*note_fn)(const char *line, void *arg), void *arg)
{
	static const char *const vars[] = { "memcg_stock", "obj_stock" };
	/* The stats flush's locks, by symbol (lab/README 1.4, 1.6). */
	static const struct {
		const char *sym, *type;
	} globals[] = {
		{ "stats_user_flush_mutex", "mutex" },		/* the lab kernel's user-flush mutex */
		{ "memory_cgrp_subsys", "cgroup_subsys" },	/* its rstat_ss_lock: 6.16 on */
		{ "cgroup_rstat_lock", "spinlock" },		/* the one rstat lock before 6.16 */
	};
	struct kread kr;
	struct ksyms syms;
	struct cg_env cg;
	char err[512], line[700];
	bool have_syms, have_cg = cg_detect(&cg, NULL) == 0;

	if (kread_open(&kr, err, sizeof(err)) < 0) {
		snprintf(line, sizeof(line), "object addresses not found: %s; c2c offsets are attributed by "
			 "code symbol only", err);
		note_fn(line, arg);
		return;
	}
	for (int i = 0; i < nmemcgs; i++) {
		uint64_t addr;
		const char *base = strrchr(memcg_dirs[i], '/');
		char label[300];

		if (memcg_addr_of(&kr, k, memcg_dirs[i], &addr, err, sizeof(err)) < 0) {
			note_fn(err, arg);
			continue;
		}
		if (have_cg && !strcmp(memcg_dirs[i], cg.memory_root))
			snprintf(label, sizeof(label), "memcg (root)");
		else
			snprintf(label, sizeof(label), "memcg %s", base ? base + 1 : memcg_dirs[i]);
		if (c2c_objects_add(objs, k, "mem_cgroup", addr, label,
				    "bpf: task->cgroups->subsys[memory], checked by kernfs id", err, sizeof(err)) < 0)
			note_fn(err, arg);
	}
	have_syms = ksyms_load(&syms, NULL, err, sizeof(err)) == 0;
	if (!have_syms) {
		snprintf(line, sizeof(line), "per-CPU stock addresses not found: %s", err);
		note_fn(line, arg);
	}
	for (size_t v = 0; have_syms && v < sizeof(vars) / sizeof(vars[0]); v++) {
		const char *type = percpu_struct(k, vars[v]);
		int ncpus = possible_cpus();
		uint64_t *addrs;

		if (!type)
			continue;	/* e.g. obj_stock before 6.16: part of memcg_stock */
		addrs = xcalloc(ncpus, sizeof(*addrs));
		if (percpu_var_addrs(&kr, &syms, vars[v], addrs, ncpus, err, sizeof(err)) < 0) {
			note_fn(err, arg);
		} else {
			for (int cpu = 0; cpu < ncpus; cpu++) {
				char label[64];

				snprintf(label, sizeof(label), "%s cpu%d", vars[v], cpu);
				if (c2c_objects_add(objs, k, type, addrs[cpu], label,
						    "kallsyms + __per_cpu_offset (bpf)", err, sizeof(err)) < 0) {
					note_fn(err, arg);
					break;
				}
			}
		}
		free(addrs);
	}
	for (size_t i = 0; have_syms && i < sizeof(globals) / sizeof(globals[0]); i++) {
		const struct ksym *sym = ksyms_find(&syms, globals[i].sym);

		/* Absent from this kernel (the mutex from every release), or a
		 * struct its BTF does not have: nothing to name. */
		if (!sym || !sym->addr || kbtf_find_struct(k, globals[i].type) < 0)
			continue;
		if (c2c_objects_add(objs, k, globals[i].type, sym->addr, globals[i].sym, "kallsyms", err,
				    sizeof(err)) < 0)
			note_fn(err, arg);
	}
	if (have_syms)
		ksyms_free(&syms);
	kread_close(&kr);
}
