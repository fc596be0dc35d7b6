// SPDX-License-Identifier: GPL-2.0
/*
 * What a stat-read run answers, for a person (the text summary) and for
 * plots and comparisons (the results directory's TSV files and meta.json).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/hist_summary.h"
#include "drivers/statread/driver.h"
#include "util/err.h"
#include "util/humanize.h"
#include "util/metrics.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/tsv.h"

/* Rows of the latency table: each level with readers, then all of them. */
#define ROW_ALL SR_NLEVELS

static bool row_used(const struct statread_plan *p, int lv)
{
	return lv == ROW_ALL || p->readers_at[lv] > 0;
}

static int levels_read(const struct statread_plan *p)
{
	int n = 0;

	for (int l = 0; l < SR_NLEVELS; l++)
		n += p->readers_at[l] > 0;
	return n;
}

static void row_hist(const struct statread_result *res, int lv, int f, struct hist *out)
{
	hist_init(out);
	for (int l = 0; l < SR_NLEVELS; l++)
		if (lv == ROW_ALL || lv == l)
			hist_merge(out, &res->hist[l][f]);
}

static uint64_t row_sum(const uint64_t v[SR_NLEVELS][SR_NFILES], int lv, int f)
{
	uint64_t n = 0;

	for (int l = 0; l < SR_NLEVELS; l++)
		if (lv == ROW_ALL || lv == l)
			n += v[l][f];
	return n;
}

static const char *row_name(int lv)
{
	return lv == ROW_ALL ? "all" : statread_level_names[lv];
}

static int row_count(const int v[SR_NLEVELS], int lv)
{
	int n = 0;

	for (int l = 0; l < SR_NLEVELS; l++)
		if (lv == ROW_ALL || lv == l)
			n += v[l];
	return n;
}

static void describe_run(FILE *f, const struct statread_plan *p, const struct statread_result *res)
{
	const struct statread_config *c = &p->cfg;
	char b1[32], b2[32], b3[32], how[80];

	fprintf(f, "tree: 1 root, %d top-level, %d leaves (%d x %d), cgroup %s, %s\n",
		c->top, p->nleaves, c->top, c->children, p->v2 ? "v2" : "v1", res->tree_root);
	if (p->scaled_note[0])
		fprintf(f, "note: %s\n", p->scaled_note);
	if (p->nallocators)
		fprintf(f, "allocators: %d per leaf (%d), %s, %s working set each; leaf limit %s%s%s\n",
			c->allocators, p->nallocators,
			c->kind == ALLOC_FILE ? "page cache of sparse files" :
			c->kind == ALLOC_TMPFS ? "tmpfs (memfd) write/read/truncate" : "anonymous pages",
			format_bytes(b1, sizeof(b1), c->alloc_bytes),
			c->limit_bytes > 0 ? format_bytes(b2, sizeof(b2), c->limit_bytes) : "none",
			c->top_limit_bytes > 0 ? ", top-level limit " : "",
			c->top_limit_bytes > 0 ? format_bytes(b3, sizeof(b3), c->top_limit_bytes) : "");
	else
		fprintf(f, "allocators: none (readers alone, no reclaim)\n");
	if (c->flat_out)
		snprintf(how, sizeof(how), "back to back");
	else
		snprintf(how, sizeof(how), "every %s, staggered over one period",
			 format_ns(b1, sizeof(b1), (uint64_t)c->interval_ns));
	fprintf(f, "readers: %d (root %d, top %d, leaf %d), %s%s%s %s%s; %.1f s measured after "
		"%.1f s warm-up%s\n",
		p->nreaders, p->readers_at[SR_ROOT], p->readers_at[SR_TOP], p->readers_at[SR_LEAF],
		c->file_mask & (1u << SR_STAT) ? "memory.stat" : "",
		c->file_mask == ((1u << SR_STAT) | (1u << SR_NUMA_STAT)) ? " + " : "",
		c->file_mask & (1u << SR_NUMA_STAT) ? "memory.numa_stat" : "",
		how, c->reopen ? " (open+read+close each)" : "",
		res->measured_s, (double)c->warmup_ns / 1e9,
		c->host_root ? "; root readers read the host's root cgroup" : "");
	if (res->hooks_started)
		fprintf(f, "collectors: ran in %.1f%% of the measured phase (from %.3f s to %.3f s of %.3f s)\n",
			100 * res->traced_share, res->traced_from_s, res->traced_to_s, res->measured_s);
}

static void latency_table(FILE *f, const struct statread_plan *p, const struct statread_result *res)
{
	static struct hist h;

	fprintf(f, "\n%-5s %-16s %7s %7s %9s %9s %9s %9s %9s %9s %7s %7s %7s\n",
		"level", "file", "cgroups", "readers", "reads", "p50", "p90", "p99", "p99.9", "max",
		">1ms", ">10ms", ">1s");
	for (int fi = 0; fi < SR_NFILES; fi++) {
		if (!(p->cfg.file_mask & (1u << fi)))
			continue;
		for (int lv = 0; lv <= ROW_ALL; lv++) {
			struct hist_summary s;
			char q[5][24];

			if (!row_used(p, lv))
				continue;
			row_hist(res, lv, fi, &h);
			hist_summarize(&h, &s);
			fprintf(f, "%-5s %-16s %7d %7d %9" PRIu64 " %9s %9s %9s %9s %9s %6.2f%% %6.2f%% %6.2f%%\n",
				row_name(lv), statread_file_names[fi], row_count(p->cgs_at, lv),
				row_count(p->readers_at, lv), row_sum(res->reads, lv, fi),
				format_ns(q[0], 24, s.p50), format_ns(q[1], 24, s.p90),
				format_ns(q[2], 24, s.p99), format_ns(q[3], 24, s.p999),
				format_ns(q[4], 24, s.max), hist_summary_over_pct(&s, 0),
				hist_summary_over_pct(&s, 1), hist_summary_over_pct(&s, 2));
		}
	}
	fputc('\n', f);
}

static void reclaim_lines(FILE *f, const struct statread_plan *p, const struct statread_result *res)
{
	long long hit = 0, sums[3] = { 0 };
	int leaves_hit = 0;

	if (!p->nallocators)
		return;
	for (int i = 0; i < p->nleaves; i++) {
		const struct statread_leaf_result *l = &res->leaves[i];

		if (l->hit_limit > 0) {
			hit += l->hit_limit;
			leaves_hit++;
		}
		for (int k = 0; k < 3; k++)
			if (l->reclaim[k] > 0)
				sums[k] += l->reclaim[k];
	}
	fprintf(f, "reclaim: %d of %d leaves hit their limit (%s %lld in total)",
		leaves_hit, p->nleaves, p->hit_limit_key ? "memory.events max" : "memory.failcnt", hit);
	for (int k = 0; k < 3; k++)
		if (p->reclaim_keys[k])
			fprintf(f, "; %s %lld", p->reclaim_keys[k], sums[k]);
	fputc('\n', f);
	if (res->oom_killed || res->oom_kills_total)
		fprintf(f, "OOM KILLS: %d allocators killed by SIGKILL; the leaves' oom_kill counters "
			"add up to %lld\n", res->oom_killed, res->oom_kills_total);
	else
		fprintf(f, "OOM kills: none\n");
	if (res->died_other)
		fprintf(f, "ALLOCATOR FAILURES: %d allocators exited early (first status %d)\n",
			res->died_other, res->first_exit_status);
}

uint64_t statread_measured_reads(const struct statread_result *res)
{
	uint64_t n = 0;

	for (int l = 0; l < SR_NLEVELS; l++)
		for (int fi = 0; fi < SR_NFILES; fi++)
			n += res->reads[l][fi];
	return n;
}

void statread_report_text(FILE *f, const struct statread_plan *p, const struct statread_result *res)
{
	uint64_t errors = 0;
	char b1[32];

	fprintf(f, "statread: how long a memory.stat read takes at each level %s%s\n",
		p->nallocators ? "while reclaim runs" : "(no allocators: no reclaim)",
		res->interrupted ? " (INTERRUPTED: partial run)" : "");
	describe_run(f, p, res);
	latency_table(f, p, res);
	if (p->nallocators) {
		double mib = (double)res->alloc_bytes_measured / (1 << 20);
		double secs = res->measured_s > 0 ? res->measured_s : 1;

		fprintf(f, "allocators: %.1f MiB/s in total, %.1f MiB/s each (slowest %.1f, fastest %.1f) "
			"during the measured phase\n", mib / secs, mib / secs / p->nallocators,
			(double)res->alloc_min_bytes / (1 << 20) / secs,
			(double)res->alloc_max_bytes / (1 << 20) / secs);
		fprintf(f, "allocation phase (%d allocators%s%s%s):  real %.2f s   user %.2f s   sys %.2f s\n",
			p->nallocators, p->cfg.work_bytes > 0 ? ", " : "",
			p->cfg.work_bytes > 0 ? format_bytes(b1, sizeof(b1), p->cfg.work_bytes) : "",
			p->cfg.work_bytes > 0 ? " each" : "",
			res->alloc_real_s, res->alloc_user_s, res->alloc_sys_s);
	}
	reclaim_lines(f, p, res);
	for (int l = 0; l < SR_NLEVELS; l++)
		for (int fi = 0; fi < SR_NFILES; fi++)
			errors += res->errors[l][fi];
	if (errors)
		fprintf(f, "READ ERRORS: %" PRIu64 " (first: %s)\n", errors, strerror(res->first_errno));
	if (!p->cfg.flat_out)
		fprintf(f, "missed periods: %" PRIu64 " (a reader fell behind: a slow read, or a late "
			"wake-up on a busy CPU)\n", res->missed_ticks);
	if (!statread_measured_reads(res))
		fprintf(f, "NOTHING MEASURED: the run ended before the warm-up was over%s\n",
			p->cfg.work_bytes > 0 ? " (the allocators finished their --work first: raise "
			"--work or lower --warmup)" : "");
	if (!res->tree_removed)
		fprintf(f, "WARNING: %s was still there after the run\n", res->tree_root);
}

static json_object *config_json(const struct statread_plan *p)
{
	const struct statread_config *c = &p->cfg;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "cgroup", json_object_new_string(p->v2 ? "v2" : "v1"));
	json_object_object_add(o, "top", json_object_new_int(c->top));
	json_object_object_add(o, "children", json_object_new_int(c->children));
	json_object_object_add(o, "allocators_per_leaf", json_object_new_int(c->allocators));
	json_object_object_add(o, "readers", json_object_new_int(p->nreaders));
	json_object_object_add(o, "interval_ns", json_object_new_int64(c->flat_out ? 0 : c->interval_ns));
	json_object_object_add(o, "flat_out", json_object_new_boolean(c->flat_out));
	json_object_object_add(o, "duration_ns", json_object_new_int64(c->duration_ns));
	json_object_object_add(o, "warmup_ns", json_object_new_int64(c->warmup_ns));
	json_object_object_add(o, "alloc", json_object_new_string(alloc_kind_names[c->kind]));
	json_object_object_add(o, "leaf_limit_bytes", json_object_new_int64(c->limit_bytes));
	json_object_object_add(o, "top_limit_bytes", json_object_new_int64(c->top_limit_bytes));
	json_object_object_add(o, "alloc_bytes", json_object_new_int64(c->alloc_bytes));
	json_object_object_add(o, "work_bytes", json_object_new_int64(c->work_bytes));
	json_object_object_add(o, "reopen", json_object_new_boolean(c->reopen));
	json_object_object_add(o, "host_root", json_object_new_boolean(c->host_root));
	if (c->file_dir)
		json_object_object_add(o, "file_dir", json_object_new_string(c->file_dir));
	if (p->scaled_note[0])
		json_object_object_add(o, "scaled", json_object_new_string(p->scaled_note));
	return o;
}

/* Group names for the plot step's CDFs: data/hist-<group>.<level>.tsv. */
static const char *const hist_group[SR_NFILES] = { "stat-read", "numa-stat-read" };
static const char *const metric_prefix[SR_NFILES] = { "statread", "statread.numa" };

static void emit(FILE *m, const struct results *r, const char *fmt_metric, const char *a,
		 const char *b, double v, const char *unit, const char *better)
{
	char name[96];

	snprintf(name, sizeof(name), fmt_metric, a, b);
	metrics_emit(m, r->attached ? r->step : "-", r->repeat, name, v, unit, better);
}

static void emit_latency(FILE *m, const struct results *r, const char *pre, const char *lvn,
			 const struct hist_summary *s, double measured_s)
{
	emit(m, r, "%s.%s.p50", pre, lvn, (double)s->p50, "ns", "lower");
	emit(m, r, "%s.%s.p99", pre, lvn, (double)s->p99, "ns", "lower");
	emit(m, r, "%s.%s.p999", pre, lvn, (double)s->p999, "ns", "lower");
	emit(m, r, "%s.%s.max", pre, lvn, (double)s->max, "ns", "lower");
	emit(m, r, "%s.%s.over_1ms", pre, lvn, hist_summary_over_pct(s, 0), "%", "lower");
	emit(m, r, "%s.%s.over_1s", pre, lvn, hist_summary_over_pct(s, 2), "%", "lower");
	if (measured_s > 0)
		emit(m, r, "%s.%s.reads_s", pre, lvn, (double)s->count / measured_s, "reads/s", "higher");
}

static void write_latency(struct results *r, FILE *m, const struct statread_plan *p,
			  const struct statread_result *res, json_object *levels)
{
	static struct hist h;
	FILE *sum = results_open_data(r, "statread-summary.tsv");

	tsv_write_header(sum, (const char *const[]){ "level", "file", "cgroups", "readers", "reads", "errors", "count",
						     "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns",
						     "mean_ns", "over_1ms", "over_10ms", "over_1s", NULL });
	for (int fi = 0; fi < SR_NFILES; fi++) {
		if (!(p->cfg.file_mask & (1u << fi)))
			continue;
		for (int lv = 0; lv <= ROW_ALL; lv++) {
			const char *pre = metric_prefix[fi], *lvn = row_name(lv);
			struct hist_summary s;
			json_object *o;

			if (!row_used(p, lv))
				continue;
			row_hist(res, lv, fi, &h);
			hist_summarize(&h, &s);
			tsv_write_row(sum, "%s\t%s\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
				"\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%.0f"
				"\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
				lvn, statread_file_names[fi], row_count(p->cgs_at, lv),
				row_count(p->readers_at, lv), row_sum(res->reads, lv, fi),
				row_sum(res->errors, lv, fi), s.count, s.min, s.p50, s.p90, s.p99,
				s.p999, s.max, s.mean, s.over[0], s.over[1], s.over[2]);
			if (lv != ROW_ALL) {
				char *name = xasprintf("hist-%s.%s.tsv", hist_group[fi], lvn);
				FILE *tsv = results_open_data(r, name);

				/* The plot merges levels into one figure: the level is its
				 * series label, the title says what all of them measured. */
				tsv_write_row(tsv, "# title: %s read() latency %s\n", statread_file_names[fi],
					      p->nallocators ? "while reclaim runs" : "(no allocators)");
				tsv_write_row(tsv, "# level: %s (each read() timed with CLOCK_MONOTONIC)\n", lvn);
				hist_write_tsv(&h, tsv);
				outfile_close(tsv);
				free(name);
			}
			/* With one level read, "all" would only repeat it. */
			if (lv != ROW_ALL || levels_read(p) > 1)
				emit_latency(m, r, pre, lvn, &s, res->measured_s);
			o = json_object_new_object();
			json_object_object_add(o, "level", json_object_new_string(lvn));
			json_object_object_add(o, "file", json_object_new_string(statread_file_names[fi]));
			json_object_object_add(o, "reads", json_object_new_int64((int64_t)s.count));
			json_object_object_add(o, "p50_ns", json_object_new_int64((int64_t)s.p50));
			json_object_object_add(o, "p99_ns", json_object_new_int64((int64_t)s.p99));
			json_object_object_add(o, "p999_ns", json_object_new_int64((int64_t)s.p999));
			json_object_object_add(o, "max_ns", json_object_new_int64((int64_t)s.max));
			for (int t = 0; t < HIST_NTHRESH; t++) {
				char key[32];

				snprintf(key, sizeof(key), "over_%s", hist_thresh_names[t]);
				json_object_object_add(o, key, json_object_new_int64((int64_t)s.over[t]));
			}
			json_object_array_add(levels, o);
		}
	}
	outfile_close(sum);
}

static void write_allocators(struct results *r, FILE *m, const struct statread_plan *p,
			     const struct statread_result *res, json_object *o)
{
	FILE *f;

	if (!p->nallocators)
		return;
	f = results_open_data(r, "statread-allocators.tsv");
	tsv_write_header(f, (const char *const[]){ "t_s", "mib_per_s", NULL });
	for (int i = 0; i < res->nsamples; i++)
		fprintf(f, "%.3f\t%.1f\n", res->sample_t[i], res->sample_mib_s[i]);
	outfile_close(f);
	f = results_open_data(r, "statread-allocation.tsv");
	tsv_write_header(f, (const char *const[]){ "allocators", "real_s", "user_s", "sys_s", "measured_bytes",
						   "measured_s", "oom_killed", "failed", NULL });
	fprintf(f, "%d\t%.3f\t%.3f\t%.3f\t%" PRIu64 "\t%.3f\t%d\t%d\n", p->nallocators,
		res->alloc_real_s, res->alloc_user_s, res->alloc_sys_s, res->alloc_bytes_measured,
		res->measured_s, res->oom_killed, res->died_other);
	outfile_close(f);
	if (res->measured_s > 0)
		emit(m, r, "%s%s.alloc.mib_s", "statread", "",
		     (double)res->alloc_bytes_measured / (1 << 20) / res->measured_s, "MiB/s", "higher");
	emit(m, r, "%s%s.alloc.real", "statread", "", res->alloc_real_s, "s", "lower");
	emit(m, r, "%s%s.alloc.user", "statread", "", res->alloc_user_s, "s", "lower");
	emit(m, r, "%s%s.alloc.sys", "statread", "", res->alloc_sys_s, "s", "lower");
	json_object_object_add(o, "alloc_real_s", json_object_new_double(res->alloc_real_s));
	json_object_object_add(o, "alloc_user_s", json_object_new_double(res->alloc_user_s));
	json_object_object_add(o, "alloc_sys_s", json_object_new_double(res->alloc_sys_s));
	json_object_object_add(o, "alloc_measured_bytes", json_object_new_int64((int64_t)res->alloc_bytes_measured));
	json_object_object_add(o, "oom_killed", json_object_new_int(res->oom_killed));
	json_object_object_add(o, "oom_kills_counted", json_object_new_int64(res->oom_kills_total));
	json_object_object_add(o, "allocator_failures", json_object_new_int(res->died_other));

	f = results_open_data(r, "statread-reclaim.tsv");
	{
		const char *cols[7] = { "leaf", p->hit_limit_key ? "events_max" : "failcnt" };
		int nc = 2;

		for (int k = 0; k < 3; k++)
			if (p->reclaim_keys[k])
				cols[nc++] = p->reclaim_keys[k];
		cols[nc++] = "oom_kill";
		cols[nc] = NULL;
		tsv_write_header(f, cols);
	}
	for (int i = 0, n = 0; i < p->ncgs; i++) {
		const struct statread_leaf_result *l;

		if (p->cgs[i].level != SR_LEAF)
			continue;
		l = &res->leaves[n++];
		tsv_write_row(f, "%s\t%lld", p->cgs[i].rel, l->hit_limit);
		for (int k = 0; k < 3; k++)
			if (p->reclaim_keys[k])
				fprintf(f, "\t%lld", l->reclaim[k]);
		fprintf(f, "\t%lld\n", l->oom_kills);
	}
	outfile_close(f);
}

void statread_report_results(struct results *r, const struct statread_plan *p,
			     const struct statread_result *res)
{
	json_object *o = json_object_new_object(), *levels = json_object_new_array(), *runs;
	FILE *f = results_open_data(r, "statread.txt"), *m = metrics_open(r->dir);

	statread_report_text(f, p, res);
	outfile_close(f);
	if (r->attached) {
		json_object_object_add(o, "step", json_object_new_string(r->step));
		json_object_object_add(o, "repeat", json_object_new_int(r->repeat));
	}
	json_object_object_add(o, "config", config_json(p));
	write_latency(r, m, p, res, levels);
	json_object_object_add(o, "latency", levels);
	write_allocators(r, m, p, res, o);
	outfile_close(m);
	json_object_object_add(o, "measured_s", json_object_new_double(res->measured_s));
	if (res->hooks_started) {
		/* What the collectors (the lock collector's flush counts) cover. */
		json_object *tw = json_object_new_object();

		json_object_object_add(tw, "from_s", json_object_new_double(res->traced_from_s));
		json_object_object_add(tw, "to_s", json_object_new_double(res->traced_to_s));
		json_object_object_add(tw, "share", json_object_new_double(res->traced_share));
		json_object_object_add(o, "traced_window", tw);
	}
	json_object_object_add(o, "missed_periods", json_object_new_int64((int64_t)res->missed_ticks));
	json_object_object_add(o, "tree_root", json_object_new_string(res->tree_root));
	json_object_object_add(o, "tree_removed", json_object_new_boolean(res->tree_removed));
	json_object_object_add(o, "interrupted", json_object_new_boolean(res->interrupted));
	/* One entry per run: the runner starts statread once per step and repeat. */
	if (!json_object_object_get_ex(r->meta, "statread", &runs) || !json_object_is_type(runs, json_type_array)) {
		runs = json_object_new_array();
		json_object_object_add(r->meta, "statread", runs);
	}
	json_object_array_add(runs, o);
	if (p->scaled_note[0] && !r->attached)
		json_object_object_add(r->meta, "scaled", json_object_new_string(p->scaled_note));
	results_meta_set(r, "statread", json_object_get(runs));
}
