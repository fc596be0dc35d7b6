// SPDX-License-Identifier: GPL-2.0
/*
 * The charge driver's output: a summary per step (or per stock sweep) to
 * print, and the data/ files, metrics and meta.json entries of a results
 * directory.  The text goes to stdout and to data/charge-summary.txt alike.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/charge/report.h"
#include "drivers/charge/kmod.h"
#include "drivers/charge/loops.h"
#include "util/err.h"
#include "util/humanize.h"
#include "util/metrics.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/tsv.h"

static void fmt_rate(char *buf, size_t n, const struct hloop *l, double raw)
{
	double v = raw * l->rate_scale;

	if (!strcmp(l->rate_unit, "Mbps"))
		snprintf(buf, n, "%.0f", v);
	else
		format_si(buf, n, v);
}

static void fmt_count(char *buf, size_t n, long long v, const char *unit)
{
	if (!strcmp(unit, "bytes"))
		format_bytes(buf, (int)n, (uint64_t)v);
	else
		format_si(buf, n, (double)v);
}

static double share(double part, double a, double b)
{
	return a + b > 0 ? 100.0 * part / (a + b) : NAN;
}

static const char *cg_version(const struct charge_plan *pl)
{
	return !pl->use_cg ? "the root memcg (not charged)" : pl->env.memory_v2 ? "cgroup v2" : "cgroup v1";
}

static const char *cg_label(const struct placement *p, int cg)
{
	return cg >= 0 && p && cg < p->ncg ? p->label[cg] : "-";
}

/* Socket memory: which counter a sock run charged, from the evidence. */
static void socket_counter(FILE *f, const struct charge_plan *pl, const struct evidence *ev)
{
	const struct charge_config *o = &pl->cfg;
	long long peak = 0, now = 0;

	for (int c = 0; ev && c < ev->ncg; c++) {
		long long v0 = evidence_value(ev, c, 0), v1 = ev->nkeys > 1 ? evidence_value(ev, c, 1) : -1;

		now += v0 > 0 ? v0 : 0;
		peak = v1 > peak ? v1 : peak;
	}
	if (!pl->use_cg) {
		fprintf(f, "  socket memory: in the root memcg (--cgroups 0): not charged\n");
	} else if (pl->env.memory_v2) {
		char b[32];

		format_bytes(b, sizeof(b), (uint64_t)now);
		fprintf(f, "  socket memory: charged to memory (cgroup v2 charges socket buffers through the "
			"per-CPU stock); memory.stat sock at the window's end: %s in all\n", b);
	} else if (o->tcp_limit >= 0) {
		char b[32];

		format_bytes(b, sizeof(b), (uint64_t)peak);
		fprintf(f, "  socket memory: charged to memory.kmem.tcp (cgroup v1, tcp limit set), not through the "
			"per-CPU stock; largest memory.kmem.tcp.max_usage_in_bytes %s\n", b);
	} else {
		fprintf(f, "  socket memory: not charged: cgroup v1 charges sockets only to memory.kmem.tcp and "
			"only once a tcp limit is set (--tcp-limit); memory.kmem.tcp.max_usage_in_bytes %s\n",
			peak > 0 ? "moved anyway (unexpected)" : "stayed 0");
	}
}

void charge_report_step(FILE *f, const struct charge_plan *pl, const struct placement *p,
			const struct harness_result *r, const struct evidence *ev, const int *cpu, int tasks,
			const char *level, const struct charge_kmod_window *km)
{
	const struct charge_config *o = &pl->cfg;
	const struct hloop *l = pl->loop;
	char pin[256], a[32], b[32], c2[32], d[32];
	int shown = tasks > 32 ? 16 : tasks;
	unsigned long long *cg_ops = xcalloc(p ? p->ncg + 1 : 1, sizeof(unsigned long long));

	pin_describe(&pl->pin, cpu, tasks, pin, sizeof(pin));
	if (pl->use_cg)
		fprintf(f, "charge %s: %d %s%s%s%s%s in %d cgroup%s (%s)\n", o->mode, tasks,
			o->threads ? "thread" : "process", tasks == 1 ? "" : o->threads ? "s" : "es",
			level ? " (" : "", level ? level : "", level ? ")" : "", pl->ncg, pl->ncg > 1 ? "s" : "",
			cg_version(pl));
	else
		fprintf(f, "charge %s: %d %s%s%s%s%s in the root memcg (not charged)\n", o->mode, tasks,
			o->threads ? "thread" : "process", tasks == 1 ? "" : o->threads ? "s" : "es",
			level ? " (" : "", level ? level : "", level ? ")" : "");
	fprintf(f, "  %s; %d s measured after %d s warm-up\n", pin, o->duration, o->warmup);
	if (o->hierarchy_set)
		fprintf(f, "  hierarchy %dx%d below %s\n", o->depth, o->fanout, p ? p->tree.root : "-");
	fprintf(f, "  op: %s%s\n", l->what, o->populate ? "; faulted in by MADV_POPULATE_WRITE" : "");
	fprintf(f, "  %6s  %-14s %4s %12s %6s %6s  %s\n", "worker", "cgroup", "cpu", l->rate_unit, "user", "sys",
		"status");
	for (int i = 0; i < r->nworkers; i++) {
		const struct hworker_result *w = &r->w[i];

		if (p && w->cgroup >= 0 && w->cgroup < p->ncg)
			cg_ops[w->cgroup] += w->ops_all;
		if (i >= shown)
			continue;
		fmt_rate(a, sizeof(a), l, w->rate);
		fprintf(f, "  %6d  %-14s %4d %12s %5.1f%% %5.1f%%  %s\n", i, cg_label(p, w->cgroup), w->cpu, a,
			share(w->user_s, w->user_s, w->sys_s), share(w->sys_s, w->user_s, w->sys_s),
			w->status == HW_OK ? "ok" : w->why);
	}
	if (shown < r->nworkers)
		fprintf(f, "  ... %d more workers%s\n", r->nworkers - shown,
			o->results ? " (all in data/charge-workers.tsv)" : "");
	fmt_rate(a, sizeof(a), l, r->total_rate);
	fmt_rate(b, sizeof(b), l, r->worker_min);
	fmt_rate(c2, sizeof(c2), l, r->worker_max);
	fprintf(f, "  %6s  %-14s %4s %12s  (per worker min %s max %s;", "total", "", "", a, b, c2);
	fmt_rate(a, sizeof(a), l, r->second_min);
	fmt_rate(b, sizeof(b), l, r->second_max);
	fprintf(f, " per second min %s max %s)\n", a, b);
	fprintf(f, "  CPU: workers %.1f%% user, %.1f%% sys of %.2f s; machine %.1f%% user, %.1f%% sys, %.1f%% idle\n",
		share(r->workers_user_s, r->workers_user_s, r->workers_sys_s),
		share(r->workers_sys_s, r->workers_user_s, r->workers_sys_s), r->workers_user_s + r->workers_sys_s,
		r->cpu_user, r->cpu_sys, r->cpu_idle);
	if (ev && ev->ncg) {
		int show = ev->ncg > 16 ? 8 : ev->ncg;

		fprintf(f, "  charges seen by the kernel, start barrier to window end:\n");
		for (int c = 0; c < show; c++) {
			fprintf(f, "    %-14s", ev->label[c]);
			for (int k = 0; k < ev->nkeys; k++) {
				long long v = evidence_value(ev, c, k);

				if (v < 0)
					snprintf(d, sizeof(d), "n/a");
				else
					fmt_count(d, sizeof(d), v, ev->keys[k].unit);
				fprintf(f, "%s %s%s%s %s%s", k ? ";" : "", ev->keys[k].file, ev->keys[k].key ? " " : "",
					ev->keys[k].key ? ev->keys[k].key : "", ev->keys[k].cumulative && v >= 0 ? "+" : "",
					d);
				if (k == 0 && ev->keys[k].cumulative) {
					format_si(a, sizeof(a), (double)cg_ops[c]);
					fprintf(f, " (driver: %s %s)", a, l->unit);
				}
			}
			fputc('\n', f);
		}
		if (show < ev->ncg)
			fprintf(f, "    ... %d more cgroups%s\n", ev->ncg - show,
				o->results ? " (data/charge-cgroups.tsv)" : "");
	}
	if (!strcmp(o->mode, "sock"))
		socket_counter(f, pl, ev);
	if (!strcmp(o->mode, "kmem") && pl->kmod) {
		fprintf(f, "  module: %s%s%s%s; %lld-byte objects from its %s cache, %ld per write()\n", pl->kmod_path,
			pl->kmod_built[0] ? " (built against " : "", pl->kmod_built, pl->kmod_built[0] ? ")" : "",
			o->object_size, o->unaccounted ? "plain ('kmem_bench_unaccounted')" :
			"SLAB_ACCOUNT ('kmem_bench_accounted')", o->batch);
		if (km && km->ok && km->loops)
			fprintf(f, "  in the kernel: %llu alloc+free pairs in %.3f s, %.1f ns each (the module's "
				"ktime_get_ns() around each write's loop, start barrier to window end)\n",
				(unsigned long long)km->loops, km->ns / 1e9, (double)km->ns / (double)km->loops);
		else
			fprintf(f, "  in the kernel: the module's counters could not be read\n");
	} else if (!strcmp(o->mode, "kmem")) {
		fprintf(f, "  " KMOD_STANDIN " (%s)\n", pl->kmod_why);
		fprintf(f, "  slab cache: '%s' (struct file, SLAB_ACCOUNT); %ld objects held per worker; v1 shows "
			"kmem charges in memory.kmem.usage_in_bytes (its memory.stat has no slab lines), v2 in "
			"memory.stat slab_unreclaimable\n", KMEM_SLAB_CACHE, o->objects);
	}
	if (r->cut_short)
		fprintf(f, "  run cut short: %s\n", r->stop_reason);
	free(cg_ops);
}

void charge_report_metrics(FILE *mf, const struct charge_plan *pl, const char *step, int repeat,
			   const struct harness_result *r, const struct charge_kmod_window *km)
{
	const struct charge_config *o = &pl->cfg;
	const struct hloop *l = pl->loop;
	char m[96];

	if (!mf)
		return;
	snprintf(m, sizeof(m), "charge.%s.total", o->mode);
	metrics_emit(mf, step, repeat, m, r->total_rate * l->rate_scale, l->rate_unit, "higher");
	snprintf(m, sizeof(m), "charge.%s.per_worker", o->mode);
	metrics_emit(mf, step, repeat, m, r->total_rate * l->rate_scale / r->nworkers, l->rate_unit, "higher");
	snprintf(m, sizeof(m), "charge.%s.worker_min", o->mode);
	metrics_emit(mf, step, repeat, m, r->worker_min * l->rate_scale, l->rate_unit, "higher");
	snprintf(m, sizeof(m), "charge.%s.user_share", o->mode);
	metrics_emit(mf, step, repeat, m, share(r->workers_user_s, r->workers_user_s, r->workers_sys_s), "%",
		     "lower");
	snprintf(m, sizeof(m), "charge.%s.machine_idle", o->mode);
	metrics_emit(mf, step, repeat, m, r->cpu_idle, "%", "-");
	/* The module's own clock per alloc+free pair (no syscall in it). */
	if (km && km->ok && km->loops) {
		snprintf(m, sizeof(m), "charge.%s.loop_ns", o->mode);
		metrics_emit(mf, step, repeat, m, (double)km->ns / (double)km->loops, "ns", "lower");
	}
}

/* ---- meta.json's "charge": the common entries, then the mode's own ---- */

static void config_anon(json_object *j, const struct charge_plan *pl)
{
	const struct charge_config *o = &pl->cfg;

	json_object_object_add(j, "size_bytes", json_object_new_int64(o->size));
	json_object_object_add(j, "fault", json_object_new_string(o->populate ? "MADV_POPULATE_WRITE" :
								     "user-mode touch"));
}

static void config_file(json_object *j, const struct charge_plan *pl)
{
	const struct charge_config *o = &pl->cfg;

	json_object_object_add(j, "size_bytes", json_object_new_int64(o->size));
	json_object_object_add(j, "tmpfs", json_object_new_string(o->tmpfs));
}

/* The workload (the seed's module or the stand-in), then the module's
 * build and cache, or the stand-in's objects and slab cache. */
static void config_kmem(json_object *j, const struct charge_plan *pl)
{
	const struct charge_config *o = &pl->cfg;
	char w[1024];

	charge_report_workload(w, sizeof(w), pl);
	json_object_object_add(j, "workload", json_object_new_string(w));
	if (pl->kmod) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "path", json_object_new_string(pl->kmod_path));
		json_object_object_add(m, "built", json_object_new_string(pl->kmod_built));
		json_object_object_add(m, "object_bytes", json_object_new_int64(o->object_size));
		json_object_object_add(m, "cache", json_object_new_string(o->unaccounted ? "unaccounted" :
									    "accounted"));
		json_object_object_add(m, "batch", json_object_new_int64(o->batch));
		json_object_object_add(j, "module", m);
	} else {
		json_object_object_add(j, "objects", json_object_new_int((int)o->objects));
		json_object_object_add(j, "slab_cache", json_object_new_string(KMEM_SLAB_CACHE));
	}
}

/* The message size, the tcp limit, and which counter the socket memory is
 * charged to. */
static void config_sock(json_object *j, const struct charge_plan *pl)
{
	const struct charge_config *o = &pl->cfg;

	json_object_object_add(j, "msg_bytes", json_object_new_int64(o->msg));
	json_object_object_add(j, "tcp_limit_bytes", json_object_new_int64(o->tcp_limit));
	json_object_object_add(j, "socket_counter", json_object_new_string(
		!pl->use_cg ? "none (root memcg)" : pl->env.memory_v2 ? "memory (v2, per-CPU stock)" :
		o->tcp_limit >= 0 ? "memory.kmem.tcp (v1, tcp limit set)" : "none (v1 without a tcp limit)"));
}

/* Each mode's entries after the common ones; stock and objstock have none
 * (their sweep's figures are charge.stock, charge.objstock). */
static const struct {
	const char *mode;
	void (*config)(json_object *j, const struct charge_plan *pl);
} mode_config[] = {
	{ "anon", config_anon },
	{ "file", config_file },
	{ "kmem", config_kmem },
	{ "sock", config_sock },
};

json_object *charge_report_config(const struct charge_plan *pl, const struct placement *p)
{
	const struct charge_config *o = &pl->cfg;
	json_object *j = json_object_new_object();

	json_object_object_add(j, "mode", json_object_new_string(o->mode));
	json_object_object_add(j, "op", json_object_new_string(pl->loop->what));
	json_object_object_add(j, "model", json_object_new_string(o->threads ? "threads" : "processes"));
	json_object_object_add(j, "tasks", o->steps ? json_object_new_string("steps") :
			       json_object_new_int((int)pl->steps[pl->nsteps - 1]));
	json_object_object_add(j, "cgroups", json_object_new_int(pl->ncg));
	json_object_object_add(j, "cgroup_mode", json_object_new_string(cg_version(pl)));
	if (pl->use_cg)
		json_object_object_add(j, "cgroup_mounts", json_object_new_string(cg_mode_name(pl->env.mode)));
	if (p && p->have_tree)
		json_object_object_add(j, "cgroup_root", json_object_new_string(p->tree.root));
	if (o->hierarchy_set) {
		char h[32];

		snprintf(h, sizeof(h), "%dx%d", o->depth, o->fanout);
		json_object_object_add(j, "hierarchy", json_object_new_string(h));
	}
	json_object_object_add(j, "pin", json_object_new_string(o->pin ? o->pin : o->steps ? "compact" : "spread"));
	json_object_object_add(j, "limit_bytes", json_object_new_int64(o->limit));
	json_object_object_add(j, "duration_s", json_object_new_int(o->duration));
	json_object_object_add(j, "warmup_s", json_object_new_int(o->warmup));
	json_object_object_add(j, "on_death", json_object_new_string(o->stop_on_death ? "stop" : "continue"));
	for (size_t i = 0; i < sizeof(mode_config) / sizeof(mode_config[0]); i++)
		if (!strcmp(mode_config[i].mode, o->mode))
			mode_config[i].config(j, pl);
	return j;
}

void charge_report_workload(char *buf, size_t n, const struct charge_plan *pl)
{
	/* What it was built against is charge.module.built: the workload
	 * string stays the same across kernels, for a pair's verdict. */
	if (pl->kmod)
		snprintf(buf, n, "the seed's module: kmem_bench's kmem_cache_alloc()+kmem_cache_free() loop, "
			 "%lld-byte objects", pl->cfg.object_size);
	else
		snprintf(buf, n, "stand-in: " KMOD_STANDIN " (%s)", pl->kmod_why);
}

void charge_report_emit(const char *text)
{
	fputs(text, stdout);
	fflush(stdout);
}

void charge_report_write_data(struct results *res, const char *file, const char *text)
{
	FILE *f = results_open_data(res, file);

	fputs(text, f);
	outfile_close(f);
}

void charge_outputs_open(struct charge_outputs *out, struct results *res)
{
	memset(out, 0, sizeof(*out));
	if (!res)
		return;
	out->workers = results_open_data(res, "charge-workers.tsv");
	out->series = results_open_data(res, "charge-series.tsv");
	out->cgroups = results_open_data(res, "charge-cgroups.tsv");
	out->metrics = metrics_open(res->dir);
}

void charge_outputs_close(struct charge_outputs *out)
{
	FILE **all[] = { &out->workers, &out->series, &out->cgroups, &out->metrics };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (*all[i]) {
			outfile_close(*all[i]);
			*all[i] = NULL;
		}
}

void charge_report_steps(FILE *f, const struct charge_plan *pl, const struct charge_step_row *row, int n)
{
	const struct charge_config *o = &pl->cfg;
	const struct hloop *l = pl->loop;
	char a[32], b[32], c[32], d[32];

	fprintf(f, "\ncharge %s: topology steps (%s)\n", o->mode, l->rate_unit);
	fprintf(f, "  %6s  %-8s %10s %11s %10s %10s %6s %6s %6s\n", "tasks", "level", "total", "per worker",
		"min", "max", "user%", "sys%", "idle%");
	for (int i = 0; i < n; i++) {
		fmt_rate(a, sizeof(a), l, row[i].total / l->rate_scale);
		fmt_rate(b, sizeof(b), l, row[i].per_worker / l->rate_scale);
		fmt_rate(c, sizeof(c), l, row[i].wmin / l->rate_scale);
		fmt_rate(d, sizeof(d), l, row[i].wmax / l->rate_scale);
		fprintf(f, "  %6d  %-8s %10s %11s %10s %10s %6.1f %6.1f %6.1f%s\n", row[i].tasks,
			row[i].level ? row[i].level : "-", a, b, c, d, row[i].user, row[i].sys, row[i].idle,
			row[i].cut_short ? "  (cut short)" : "");
	}
}

/* The last K up to which every memcg kept its precharge, and the most that did. */
static void stock_cliff(const struct charge_stock_row *row, int n, int *cliff, int *most)
{
	*cliff = 0;
	*most = 0;
	for (int i = 0; i < n; i++) {
		if (row[i].h.best == row[i].k && *cliff == row[i].k - 1)
			*cliff = row[i].k;
		if (row[i].h.best > *most)
			*most = row[i].h.best;
	}
}

/* Mean over 2 <= K <= cliff (below) or K > cliff: with K = 1 sched_yield()
 * has nobody to switch to, so its rate is not comparable. */
static double mean_rate(const struct charge_stock_row *row, int n, bool below, int cliff, bool ns)
{
	double sum = 0;
	int cnt = 0;

	for (int i = 0; i < n; i++)
		if (row[i].k >= 2 && (row[i].k <= cliff) == below && row[i].rate > 0) {
			sum += ns ? row[i].ns_per_charge : row[i].rate;
			cnt++;
		}
	return cnt ? sum / cnt : NAN;
}

void charge_report_stock(FILE *f, const struct charge_plan *pl, const struct charge_stock_row *row, int n,
			 int *cliff_out, int *most_out)
{
	const struct charge_config *o = &pl->cfg;
	bool obj = !strcmp(o->mode, "objstock"), measured = false;
	const char *what = obj ? "obj stock" : "stock", *unit = obj ? "objcg slot" : "slot";
	const char *keeps = obj ? "keeps its objcg in the obj stock" : "keeps its precharge";
	int cliff, most;
	double r1, r2, n1, n2;

	if (o->stock_cpus > 1) {
		fprintf(f, "charge %s: K memcgs taking turns on each of CPUs", o->mode);
		for (int c = 0; c < o->stock_cpus; c++)
			fprintf(f, "%s%d", c ? "," : " ", pl->stock_cpu_list[c]);
		fprintf(f, " (%s), K = 1..%d; %d s per K after %d s warm-up; holders read on CPU %d\n",
			cg_version(pl), o->stock_max, o->duration, o->warmup, pl->stock_cpu);
	} else {
		fprintf(f, "charge %s: K memcgs taking turns on CPU %d (%s), K = 1..%d; %d s per K after %d s "
			"warm-up\n", o->mode, pl->stock_cpu, cg_version(pl), o->stock_max, o->duration, o->warmup);
	}
	fprintf(f, "  op: %s\n", pl->loop->what);
	if (pl->stock_slots > 0)
		fprintf(f, "  per-CPU %s from BTF: %d %s%s (%s)\n", what, pl->stock_slots, unit,
			pl->stock_slots == 1 ? "" : "s", pl->stock_evidence);
	else
		fprintf(f, "  per-CPU %s from BTF: unknown (%s); K swept to %d\n", what, pl->stock_evidence, o->stock_max);
	if (obj)
		fprintf(f, "  holders: memcgs still holding the page their first charge took after a round of one "
			"turn each, read from %s\n", pl->env.memory_v2 ? "memory.stat's kernel once the periodic "
			"stats flush (2 s) shows the round's last charge (v2)" : "memory.kmem.usage_in_bytes (v1)");
	fprintf(f, "  %4s %12s %14s %9s  %s\n", "K", "charges/s", "CPU ns/charge", "holders", "per round");
	for (int i = 0; i < n; i++) {
		char a[32], rounds[128] = "", held[16] = "-";
		size_t len = 0;

		format_si(a, sizeof(a), row[i].rate);
		for (int r = 0; r < row[i].h.rounds && len < sizeof(rounds); r++)
			len += snprintf(rounds + len, sizeof(rounds) - len, "%s%d", r ? " " : "", row[i].h.holders[r]);
		measured |= row[i].h.best >= 0;
		if (row[i].h.best >= 0)
			snprintf(held, sizeof(held), "%d", row[i].h.best);
		fprintf(f, "  %4d %12s %14.0f %9s  %s%s%s\n", row[i].k, a, row[i].ns_per_charge, held,
			row[i].h.err[0] ? row[i].h.err : rounds, row[i].cut_short ? " (cut short)" : "",
			row[i].h.best >= 0 && row[i].h.best < row[i].k ? "  <- fewer holders than memcgs" : "");
	}
	stock_cliff(row, n, &cliff, &most);
	if (!measured) {
		/* No holders (v2 objstock): split the rates at the slots BTF gives. */
		cliff = pl->stock_slots > 0 && pl->stock_slots < n ? pl->stock_slots : n;
		most = -1;
		fprintf(f, "  holders not measured; the rates below are split at the %d %s%s BTF gives\n", cliff, unit,
			cliff == 1 ? "" : "s");
	} else if (cliff < n) {
		fprintf(f, "  cliff: every memcg %s up to K = %d; beyond it at most %d do", keeps, cliff, most);
		if (pl->stock_slots > 0)
			fprintf(f, " -- %s the %d %s%s BTF gives", most == pl->stock_slots && cliff == pl->stock_slots ?
				"matches" : "does NOT match (other tasks on the CPU evict; see the rounds)",
				pl->stock_slots, unit, pl->stock_slots == 1 ? "" : "s");
		fputc('\n', f);
	} else {
		fprintf(f, "  no cliff up to K = %d: every memcg %s (the %s holds at least %d)\n", n, keeps, what, n);
	}
	*cliff_out = cliff;
	*most_out = most;
	r1 = mean_rate(row, n, true, cliff, false);
	r2 = mean_rate(row, n, false, cliff, false);
	n1 = mean_rate(row, n, true, cliff, true);
	n2 = mean_rate(row, n, false, cliff, true);
	if (cliff > 1 && cliff < n && r1 > 0)
		fprintf(f, "  K > %d against 2 <= K <= %d (K = 1 has no task to switch to): charges/s %+.1f%%, "
			"CPU ns per charge %+.1f%%\n", cliff, cliff, 100 * (r2 - r1) / r1, 100 * (n2 - n1) / n1);
	else if (cliff == 1 && n >= 3 && row[1].ns_per_charge > 0)
		fprintf(f, "  one slot: every K >= 2 misses; K = 2 against K = %d (K = 1 has no task to switch to): "
			"CPU ns per charge %+.1f%%\n", n, 100 * (row[n - 1].ns_per_charge - row[1].ns_per_charge) /
			row[1].ns_per_charge);
}

void charge_report_valid(FILE *f, const struct charge_plan *pl)
{
	const struct charge_config *o = &pl->cfg;

	fprintf(f, "charge: valid: %s, %s%d %s, %d cgroup%s (%s), %d s after %d s warm-up\n", o->mode,
		o->steps ? "steps up to " : "", pl->steps[pl->nsteps - 1], o->threads ? "threads" : "processes",
		pl->ncg, pl->ncg == 1 ? "" : "s", cg_version(pl), o->duration, o->warmup);
	if (!strcmp(o->mode, "kmem")) {
		char w[1024];

		charge_report_workload(w, sizeof(w), pl);
		fprintf(f, "  %s\n", w);
	}
}

struct charge_step_row charge_report_step_row(const struct charge_plan *pl, const struct harness_result *r,
					      int tasks, const char *level)
{
	double scale = pl->loop->rate_scale;

	return (struct charge_step_row){ tasks, level, r->total_rate * scale, r->total_rate * scale / tasks,
					 r->worker_min * scale, r->worker_max * scale,
					 share(r->workers_user_s, r->workers_user_s, r->workers_sys_s),
					 share(r->workers_sys_s, r->workers_user_s, r->workers_sys_s), r->cpu_idle,
					 r->cut_short };
}

FILE *charge_report_stock_tsv(struct results *res, const struct charge_plan *pl)
{
	FILE *tsv = results_open_data(res, strcmp(pl->cfg.mode, "objstock") ? "stock.tsv" : "objstock.tsv");

	if (tsv)
		tsv_write_header(tsv, (const char *const[]){ "K", "charges_per_s", "cpu_ns_per_charge", "holders",
							     "holders_per_round", "slots_btf", NULL });
	return tsv;
}

void charge_report_stock_row(FILE *tsv, FILE *mf, const struct charge_plan *pl, const char *step, int repeat,
			     const struct charge_stock_row *row)
{
	const char *mode = pl->cfg.mode;
	char mname[64];

	if (mf) {
		snprintf(mname, sizeof(mname), "%s.charges_per_s", mode);
		metrics_emit(mf, step, repeat, mname, row->rate, "ops/s", "higher");
		snprintf(mname, sizeof(mname), "%s.cpu_ns_per_charge", mode);
		metrics_emit(mf, step, repeat, mname, row->ns_per_charge, "ns", "lower");
		/* v2 objstock: no kmem counter, no holders (not a zero). */
		snprintf(mname, sizeof(mname), "%s.holders", mode);
		if (row->h.best >= 0)
			metrics_emit(mf, step, repeat, mname, row->h.best, "memcgs", "-");
	}
	if (tsv) {
		fprintf(tsv, "%d\t%.6g\t%.1f\t%d\t", row->k, row->rate, row->ns_per_charge, row->h.best);
		for (int i = 0; i < row->h.rounds; i++)
			fprintf(tsv, "%s%d", i ? "," : "", row->h.holders[i]);
		fprintf(tsv, "%s\t%d\n", row->h.rounds ? "" : "-", pl->stock_slots);
	}
}

void charge_report_stock_meta(struct results *res, const struct charge_plan *pl, int kmax, int cliff, int most)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "cpu", json_object_new_int(pl->stock_cpu));
	if (pl->cfg.stock_cpus > 1) {
		json_object *cpus = json_object_new_array();

		for (int c = 0; c < pl->cfg.stock_cpus; c++)
			json_object_array_add(cpus, json_object_new_int(pl->stock_cpu_list[c]));
		json_object_object_add(j, "cpus", cpus);
	}
	json_object_object_add(j, "slots_btf", json_object_new_int(pl->stock_slots));
	json_object_object_add(j, "slots_btf_evidence", json_object_new_string(pl->stock_evidence));
	json_object_object_add(j, "k_max", json_object_new_int(kmax));
	json_object_object_add(j, "holders_most", json_object_new_int(most));
	json_object_object_add(j, "cliff_k", json_object_new_int(cliff));
	json_object_object_add(j, "matches_btf", json_object_new_boolean(pl->stock_slots > 0 &&
					most == pl->stock_slots && cliff == pl->stock_slots));
	results_meta_set(res, pl->cfg.mode, j);
}
