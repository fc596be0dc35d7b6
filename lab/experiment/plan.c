// SPDX-License-Identifier: GPL-2.0
/* The plan of an experiment on a given machine (experiment/plan.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "drivers/charge/plan.h"
#include "drivers/placement.h"
#include "drivers/statread/driver.h"
#include "experiment/plan.h"
#include "experiment/plan_steps.h"
#include "kernel/cgroup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/humanize.h"
#include "util/meminfo.h"
#include "util/nofile.h"
#include "util/strfmt.h"

/* The kernel's default pid_max: PIDS_PER_CPU_DEFAULT (1024) per possible
 * CPU, at least 32768, at most PID_MAX_LIMIT (4M on 64-bit; kernel/pid.c). */
#define PIDS_PER_CPU 1024
#define PID_MAX_DEFAULT 32768
#define PID_MAX_LIMIT (4 * 1024 * 1024)
/* threads-max: RAM / (8 * THREAD_SIZE), THREAD_SIZE 16 KiB on x86-64
 * (kernel/fork.c set_max_threads). */
#define THREAD_SIZE_X86 (16 * 1024)
/* and its pages, 4 KiB. */
#define PAGE_SIZE_X86 4096
/* perf's DEFAULT_MAX_SAMPLE_RATE and sysctl_perf_cpu_time_max_percent (kernel/events/core.c). */
#define PERF_SAMPLE_RATE_DEFAULT 100000
#define PERF_CPU_TIME_PERCENT_DEFAULT 25

/* ---- the machine ---- */

static long long tasks_running(void)
{
	char buf[128];
	long long running, total;

	if (read_buf("/proc/loadavg", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "%*s %*s %*s %lld/%lld", &running, &total) == 2)
		return total;
	return 0;
}

int exp_plan_host_this(struct exp_plan_host *h, char *err, size_t errlen)
{
	struct charge_host stock;
	struct cg_env env;
	struct meminfo mi;
	long long v;

	(void)err;
	(void)errlen;
	memset(h, 0, sizeof(*h));
	exp_host_this_machine(&h->model, &h->topo);
	h->have_topo = h->model.topo != NULL;
	snprintf(h->what, sizeof(h->what), "this machine");
	h->page_size = sysconf(_SC_PAGESIZE);
	if (!meminfo_read(&mi)) {
		h->mem_bytes = mi.available;
		h->mem_total = mi.total;
		h->swap_free = mi.swap_free;
	}
	h->pid_max = read_ll("/proc/sys/kernel/pid_max", &v) ? LLONG_MAX : v;
	h->threads_max = read_ll("/proc/sys/kernel/threads-max", &v) ? LLONG_MAX : v;
	h->tasks_now = tasks_running();
	h->pids_left = pids_headroom(NULL, 0, NULL, NULL);
	h->nofile_max = nofile_reachable();
	if (cg_detect(&env, NULL) == 0) {
		struct statread_host sh;

		/* The memcg ids and cgroup limits statread's plan checks. */
		statread_host_limits(&sh, &env);
		h->memcgs_in_use = sh.memcgs_in_use;
		h->descendants_left = sh.descendants_left;
		h->depth_left = sh.depth_left;
	} else {
		h->descendants_left = h->depth_left = LLONG_MAX;
	}
	h->memcgs_max = EXP_MEMCG_ID_MAX;
	h->sample_rate_max = read_ll("/proc/sys/kernel/perf_event_max_sample_rate", &v) ? 0 : v;
	h->cpu_time_max_percent = read_ll("/proc/sys/kernel/perf_cpu_time_max_percent", &v) ?
				  PERF_CPU_TIME_PERCENT_DEFAULT : (int)v;
	h->root = geteuid() == 0;
	c2c_caps_detect(&h->c2c);
	/* The slots the charge driver's stock modes read. */
	memset(&stock, 0, sizeof(stock));
	charge_host_stock_slots(&stock);
	h->stock_slots = stock.stock_slots > 0 ? stock.stock_slots : 0;
	h->obj_stock_slots = stock.obj_stock_slots;
	return 0;
}

int exp_plan_host_describe(struct exp_plan_host *h, const char *spec, char *err, size_t errlen)
{
	char why[512];
	long long pid_max;
	bool xml = access(spec, R_OK) == 0;

	memset(h, 0, sizeof(*h));
	if (topo_load_spec(&h->topo, spec, why, sizeof(why)))
		return set_err(err, errlen, "--topology %s", why);
	h->have_topo = true;
	h->described = true;
	h->model.topo = &h->topo;
	h->model.ncpus = h->topo.npu;
	h->model.memory_v1 = false;	/* the users' boxes: cgroup v2 */
	snprintf(h->what, sizeof(h->what), "%s %s", xml ? "the machine in" : "the synthetic machine", spec);
	/* hwloc gives a synthetic NUMA node 1 GB unless its memory is given:
	 * no description, so no memory check. */
	h->mem_bytes = h->mem_total = xml || strstr(spec, "memory=") ? h->topo.mem_bytes : 0;
	h->page_size = PAGE_SIZE_X86;
	pid_max = (long long)PIDS_PER_CPU * h->topo.npu;
	h->pid_max = pid_max < PID_MAX_DEFAULT ? PID_MAX_DEFAULT : pid_max > PID_MAX_LIMIT ? PID_MAX_LIMIT : pid_max;
	h->threads_max = h->mem_bytes > 0 ? h->mem_bytes / (8ll * THREAD_SIZE_X86) : LLONG_MAX;
	if (h->threads_max < 20)
		h->threads_max = 20;
	/* A booted box's own tasks: per-CPU kernel threads and services. */
	h->tasks_now = 8ll * h->topo.npu + 500;
	h->pids_left = LLONG_MAX;
	/* The lab runs as root, which raises its hard limit up to fs.nr_open. */
	h->nofile_max = NOFILE_NR_OPEN_DEFAULT;
	h->memcgs_in_use = 100;
	h->memcgs_max = EXP_MEMCG_ID_MAX;
	h->descendants_left = h->depth_left = LLONG_MAX;
	h->sample_rate_max = PERF_SAMPLE_RATE_DEFAULT;
	h->cpu_time_max_percent = PERF_CPU_TIME_PERCENT_DEFAULT;
	h->root = true;
	/* A described box's PMU is not described: --pmu gives it. */
	snprintf(h->c2c.line, sizeof(h->c2c.line), "c2c: the box's memory-sampling PMU is not described "
		 "(--pmu intel|amd-zen4|amd-zen5|arm-...|power)");
	return 0;
}

void exp_plan_host_pmu(struct exp_plan_host *h, const struct c2c_pmu *p)
{
	struct c2c_caps here;

	c2c_caps_detect(&here);
	c2c_caps_for_pmu(&h->c2c, p, here.perf_version);
}

void exp_plan_host_free(struct exp_plan_host *h)
{
	if (h->have_topo)
		topo_free(&h->topo);
	h->have_topo = false;
	h->model.topo = NULL;
}

/* ---- phases ---- */

/* The entry a refusal of a phase points at: its schedule's values when the
 * steps are what grows, else its [driver] command line. */
static void where_of(const struct experiment *x, const struct phase *ph, bool step, char *buf, size_t n)
{
	const struct exp_entry *e = NULL;

	if (step && ph->param)
		e = expfile_get(&x->f, ph->sched, ph->small && expfile_get(&x->f, ph->sched, "small_values") ?
				"small_values" : "values");
	if (!e)
		e = expfile_get(&x->f, ph->drv, "command");
	expfile_where(&x->f, e, buf, n);
}

/* Each limit of item "limits at 256 CPUs": fits, or one line with the number. */
static int check_limits(const struct exp_step_plan *st, const struct exp_plan_host *h, const char *where,
			const char *step, char *err, size_t errlen)
{
	if (st->tasks + h->tasks_now > h->pid_max)
		return set_err(err, errlen, "%s: step %s: %lld tasks needed, over kernel.pid_max %lld with %lld running",
			    where, step, st->tasks, h->pid_max, h->tasks_now);
	if (st->tasks + h->tasks_now > h->threads_max)
		return set_err(err, errlen, "%s: step %s: %lld tasks needed, over kernel.threads-max %lld with %lld running",
			    where, step, st->tasks, h->threads_max, h->tasks_now);
	if (st->tasks > h->pids_left)
		return set_err(err, errlen, "%s: step %s: %lld tasks needed, over the %lld the pids controller's pids.max "
			    "above the run still allows", where, step, st->tasks, h->pids_left);
	if (st->fds > h->nofile_max)
		return set_err(err, errlen, "%s: step %s: %lld files open in one process, over the %lld it "
			    "can have (RLIMIT_NOFILE; root: fs.nr_open)", where, step, st->fds, h->nofile_max);
	if (st->memcgs + h->memcgs_in_use > h->memcgs_max)
		return set_err(err, errlen, "%s: step %s: %lld memory cgroups do not fit the memcg ids: %lld in use of "
			    "%lld (MEM_CGROUP_ID_MAX)", where, step, st->memcgs, h->memcgs_in_use, h->memcgs_max);
	if (st->memcgs > h->descendants_left)
		return set_err(err, errlen, "%s: step %s: %lld cgroups, over the %lld more cgroup.max.descendants allows",
			    where, step, st->memcgs, h->descendants_left);
	if (st->depth > h->depth_left)
		return set_err(err, errlen, "%s: step %s: a tree %d levels deep, over cgroup.max.depth %lld", where, step,
			    st->depth, h->depth_left);
	return 0;
}

/* The ldlat range the sampler's kernel driver accepts: Arm SPE's
 * min_latency 12 bits, Intel's ldlat 16 bits (config1:0-15); AMD IBS gets
 * none from the lab (c2c/c2c_pmu.c); 0 is "perf's default" everywhere. */
static int ldlat_range(enum c2c_vendor v, int *lo, int *hi, const char **name)
{
	switch (v) {
	case C2C_ARM: *lo = 0, *hi = 4095, *name = "Arm SPE"; return 0;
	case C2C_INTEL: *lo = 1, *hi = 65535, *name = "Intel load latency"; return 0;
	default: return -1;
	}
}

static int check_c2c(struct exp_plan *p, const struct experiment *x, const struct exp_plan_host *h, char *err,
		     size_t errlen)
{
	const char *name;
	char where[600];
	int lo, hi;

	expfile_where(&x->f, expfile_get(&x->f, "collect", "c2c"), where, sizeof(where));
	if (p->freq > h->sample_rate_max) {
		if (!h->root)
			return set_err(err, errlen, "%s: c2c -F %d needs kernel.perf_event_max_sample_rate >= %d; it is "
				    "%lld and only root can raise it", where, p->freq, p->freq, h->sample_rate_max);
		if (h->cpu_time_max_percent == 0 || h->cpu_time_max_percent == 100)
			return set_err(err, errlen, "%s: c2c -F %d needs kernel.perf_event_max_sample_rate >= %d; it is "
				    "%lld and kernel.perf_cpu_time_max_percent = %d makes the kernel refuse to raise it",
				    where, p->freq, p->freq, h->sample_rate_max, h->cpu_time_max_percent);
		p->rate_raised = true;
	}
	if (p->ldlat && !ldlat_range(h->c2c.vendor, &lo, &hi, &name) && (p->ldlat < lo || p->ldlat > hi))
		return set_err(err, errlen, "%s: c2c ldlat %d for %d CPUs: %s takes %d..%d", where, p->ldlat,
			    h->model.ncpus, name, lo, hi);
	return 0;
}

/* Whether and how the windows record on this box: the command line of one
 * window (its length that of the first phase's) and the data it writes. */
static int plan_c2c(struct exp_plan *p, const struct experiment *x, const struct exp_plan_host *h, char *err,
		    size_t errlen)
{
	struct c2c_opts co = x->around.c2c_opts;
	double len = 4;
	char **argv, why[400];

	co.ncpus = h->model.ncpus;
	if (x->around.c2c == C2C_MODE_OFF) {
		snprintf(p->c2c_why, sizeof(p->c2c_why), "[collect] c2c = no");
		return 0;
	}
	if (!h->c2c.supported) {
		snprintf(p->c2c_why, sizeof(p->c2c_why), "%s", h->c2c.line);
		return 0;
	}
	for (int i = 0; i < p->nph; i++)
		if (p->ph[i].win_ok) {
			len = p->ph[i].win.len_s;
			break;
		}
	p->ldlat = c2c_pick_ldlat(&h->c2c, &co);
	if (c2c_pick_rate(&h->c2c, &co, &p->rate) < 0)
		return set_err(err, errlen, "c2c: %s", p->rate.why);
	p->freq = p->rate.freq;
	argv = c2c_record_argv(&h->c2c, &co, len, "DIR/perf.c2c.data", co.max_size, why, sizeof(why));
	if (!argv)
		return set_err(err, errlen, "c2c: %s", why);
	c2c_argv_line(argv, p->c2c_cmd, sizeof(p->c2c_cmd));
	c2c_argv_free(argv);
	p->c2c_on = true;
	return check_c2c(p, x, h, err, errlen);
}

static void values_why(struct exp_plan *p, const struct experiment *x, const struct exp_plan_host *h)
{
	for (int i = 0; i < x->nph; i++) {
		const struct phase *ph = &x->ph[i];
		long small_cpus = atol(expfile_value(&x->f, ph->sched, "small_cpus",
						     expfile_value(&x->f, "experiment", "small_cpus", "16")));
		bool has_small = expfile_get(&x->f, ph->sched, "small_values") ||
				 expfile_get(&x->f, ph->small_sec, "duration") || ph->small;

		for (size_t k = 0; k < x->f.n && !has_small; k++)
			has_small = !strcmp(x->f.e[k].section, ph->small_sec);
		str_appendf(p->values_why, sizeof(p->values_why), "%s%s%s%s", i ? "; " : "", ph->name,
			    ph->name[0] ? ": " : "", ph->small ? "[small]" : "full size");
		if (!has_small)
			str_appendf(p->values_why, sizeof(p->values_why), " (no [small] values)");
		else
			str_appendf(p->values_why, sizeof(p->values_why), " (%d CPUs %s %ld)", h->model.ncpus,
				    ph->small ? "<" : ">=", small_cpus);
		if (ph->v1)
			str_appendf(p->values_why, sizeof(p->values_why), " + [v1] (memory on cgroup v1)");
	}
}

int exp_plan(struct exp_plan *p, const struct experiment *x, const struct exp_plan_host *h, char *err, size_t errlen)
{
	struct c2c_opts co = x->around.c2c_opts;

	memset(p, 0, sizeof(*p));
	co.ncpus = h->model.ncpus;
	values_why(p, x, h);
	for (int i = 0; i < x->nph; i++) {
		const struct phase *ph = &x->ph[i];
		struct exp_phase_plan *pp = &p->ph[p->nph++];
		char where[600];

		pp->ph = ph;
		pp->nsteps = ph->nvalues ? ph->nvalues : 1;
		for (int s = 0; s < pp->nsteps; s++) {
			struct exp_step_plan *st = &pp->step[s];
			char label[160], why[512];
			int ac, r;
			char **av = driver_argv(x, ph, ph->nvalues ? ph->values[s] : 0, false, &ac);

			st->value = ph->nvalues ? ph->values[s] : 0;
			step_label(ph, s, label, sizeof(label));
			r = !strcmp(ph->command, "statread") ? plan_step_statread(pp, st, av, ac, h, why, sizeof(why))
							     : plan_step_charge(pp, st, av, ac, h, why, sizeof(why));
			free_argv(av);
			where_of(x, ph, pp->nsteps > 1, where, sizeof(where));
			if (r)
				return set_err(err, errlen, "%s: step %s: %s", where, label, why);
			if (check_limits(st, h, where, label, err, errlen))
				return -1;
			if (st->seconds < 0)
				pp->work_bound = true;
			else
				pp->seconds += st->seconds * x->repeats;
		}
		if (ph->param && h->model.topo && !strcmp(expfile_value(&x->f, ph->sched, ph->small &&
				expfile_get(&x->f, ph->sched, "small_values") ? "small_values" : "values", ""), "topology")) {
			int s[TOPO_MAX_STEPS];
			const char *names[TOPO_MAX_STEPS];
			int n = topo_steps(h->model.topo, s, names);

			for (int k = 0; k < pp->nsteps && k < n; k++)
				pp->step[k].level = names[k];
		}
		pp->win_ok = !c2c_plan_window(&co, exp_plan_driver_seconds(p, x, i, 0), &pp->win);
		p->seconds += pp->seconds;
		p->work_bound |= pp->work_bound;
	}
	return plan_c2c(p, x, h, err, errlen);
}

double exp_plan_driver_seconds(const struct exp_plan *p, const struct experiment *x, int i, int s)
{
	if (p && i < p->nph && s < p->ph[i].nsteps && p->ph[i].step[s].sweep && p->ph[i].step[s].seconds > 0)
		return p->ph[i].step[s].seconds;
	return phase_duration(x, &x->ph[i]);
}

/* ---- printing ---- */

static void fmt_time(char *buf, size_t n, double s)
{
	if (s < 120)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, n, "%.0f min", s / 60);
	else
		snprintf(buf, n, "%.1f h", s / 3600);
}

static void print_limit(FILE *f, const char *what, long long need, long long max, const char *how)
{
	if (max == LLONG_MAX)
		fprintf(f, "  %-26s %10lld of no limit%s\n", what, need, how);
	else
		fprintf(f, "  %-26s %10lld of %lld%s\n", what, need, max, how);
}

void exp_plan_print(FILE *f, const struct exp_plan *p, const struct experiment *x, const struct exp_plan_host *h)
{
	const struct topo *t = h->model.topo;
	long long tasks = 0, fds = 0, memcgs = 0;
	char b[32], tm[32];

	fprintf(f, "plan: %s for %s\n", x->f.path, h->what);
	if (t)
		fprintf(f, "machine: %d CPUs; SMT %d, %s %d, node %d (%d node%s), package %d; memory %s; cgroup %s%s\n",
			t->npu, t->smt, strcmp(t->llc_name, "none") ? t->llc_name : "no cache level, LLC", t->llc,
			t->node, t->nnodes, t->nnodes == 1 ? "" : "s", t->package,
			h->mem_bytes > 0 ? format_bytes(b, 32, h->mem_bytes) : "not described (memory checks skipped)",
			h->model.memory_v1 ? "v1" : "v2", h->described ? " (assumed)" : "");
	else
		fprintf(f, "machine: %d CPUs (hwloc: %s)\n", h->model.ncpus, h->model.topo_err);
	fprintf(f, "values: %s\n", p->values_why);
	for (int i = 0; i < p->nph; i++) {
		const struct exp_phase_plan *pp = &p->ph[i];
		const struct phase *ph = pp->ph;

		fprintf(f, "\nphase %d/%d %s: %s, %d step%s x %d repeat%s\n", i + 1, p->nph,
			ph->name[0] ? ph->name : "-", pp->what, pp->nsteps, pp->nsteps == 1 ? "" : "s", x->repeats,
			x->repeats == 1 ? "" : "s");
		fprintf(f, "  cgroups: %s\n", pp->tree);
		fprintf(f, "  workers: %s\n", pp->workers);
		if (pp->note[0])
			fprintf(f, "  note: %s\n", pp->note);
		fprintf(f, "  %-22s %-9s %8s %8s %8s %10s %8s %8s %10s\n", "step", "level", "workers", "readers",
			"allocs", "memcgs", "tasks", "fds", "time");
		for (int s = 0; s < pp->nsteps; s++) {
			const struct exp_step_plan *st = &pp->step[s];
			char label[160];

			step_label(ph, s, label, sizeof(label));
			if (st->seconds >= 0)
				fmt_time(tm, sizeof(tm), st->seconds);
			else
				snprintf(tm, sizeof(tm), "work-bound");
			fprintf(f, "  %-22s %-9s %8lld %8lld %8lld %10lld %8lld %8lld %10s\n", label,
				st->level ? st->level : "-", st->workers, st->readers, st->allocators, st->memcgs,
				st->tasks, st->fds, tm);
			if (st->tasks > tasks)
				tasks = st->tasks;
			if (st->fds > fds)
				fds = st->fds;
			if (st->memcgs > memcgs)
				memcgs = st->memcgs;
		}
		if (!p->c2c_on)
			;
		else if (pp->win_ok)
			fprintf(f, "  c2c window: %.1f s from %.1f s of the driver's %.0f s\n", pp->win.len_s,
				pp->win.start_s, exp_plan_driver_seconds(p, x, i, 0));
		else
			fprintf(f, "  c2c window: none (%s)\n", pp->win.note);
	}
	fprintf(f, "\ncollectors: probe (once); layout check: %s; runtime probes: %s; c2c: %s%s%s\n",
		x->layout_check ? "once" : "no", x->runtime_probe ? "once" : "no",
		p->c2c_on ? "a window per step and repeat" : "off (", p->c2c_on ? "" : p->c2c_why,
		p->c2c_on ? "" : ")");
	if (p->c2c_on) {
		const struct c2c_opts *co = &x->around.c2c_opts;
		char b[32], w[32], cap[32];
		double len = 4;

		for (int i = 0; i < p->nph; i++)
			if (p->ph[i].win_ok) {
				len = p->ph[i].win.len_s;
				break;
			}
		fprintf(f, "c2c on %s at %d CPUs: %s\n", h->c2c.pmu->name, h->model.ncpus, p->c2c_cmd);
		fprintf(f, "  %s; ldlat %d%s\n", p->rate.why, p->ldlat,
			p->ldlat ? "" : h->c2c.vendor == C2C_AMD ? " (none on AMD IBS: it would drop stores)" :
			" (perf's default)");
		fprintf(f, "  data: at most %s/s, %s per %.1f s window, capped at %s; the perf.data %s once "
			"reported; the report pass limited to %.0f s%s\n", format_bytes(b, sizeof(b), p->rate.bytes_s),
			format_bytes(w, sizeof(w), p->rate.bytes_s * len), len, format_bytes(cap, sizeof(cap), co->max_size),
			co->keep_data ? "kept" : "removed", co->report_timeout_s, co->source ? ", Source:Line on" : "");
		if (p->freq)
			fprintf(f, "  perf_event_max_sample_rate %lld%s (throttling at perf_cpu_time_max_percent %d)\n",
				h->sample_rate_max, p->freq > h->sample_rate_max ? ": raised for the window, restored after"
				: "", h->cpu_time_max_percent);
		for (int i = 0; i < h->c2c.nlimits; i++)
			fprintf(f, "  NOTE: %s\n", h->c2c.limits[i]);
	}
	fprintf(f, "limits%s:\n", h->described ? " (the kernel's defaults for this size; a booted box's own tasks "
		"estimated)" : "");
	print_limit(f, "tasks (kernel.pid_max)", tasks + h->tasks_now, h->pid_max, " with those running");
	print_limit(f, "tasks (threads-max)", tasks + h->tasks_now, h->threads_max, "");
	print_limit(f, "tasks (pids controller)", tasks, h->pids_left, "");
	print_limit(f, "open files per process", fds, h->nofile_max, " (RLIMIT_NOFILE; root: fs.nr_open)");
	print_limit(f, "memcg ids", memcgs + h->memcgs_in_use, h->memcgs_max, " (MEM_CGROUP_ID_MAX)");
	print_limit(f, "cgroup.max.descendants", memcgs, h->descendants_left, "");
	fmt_time(tm, sizeof(tm), p->seconds);
	fprintf(f, "estimated time: %s%s of driver time (setup, probes, reports and plots come on top)\n",
		p->work_bound ? "at least " : "", tm);
	if (p->work_bound)
		fprintf(f, "  work-bound steps run until their allocators have done --work; not estimated\n");
}
