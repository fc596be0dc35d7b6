// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "lock/lock_stat.h"
#include "lock/lock_types.h"
#include "lock/lockcon_text.h"
#include "lock/lock_bpf.h"
#include "lock/lock_collector.h"
#include "lock/perf_lock.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/metrics.h"
#include "util/strfmt.h"
#include "util/tsv.h"

struct lock_collector {
	struct lock_collector_opts o;
	struct ksyms ks;
	bool have_ks;
	struct lock_env env;
	struct lock_tracer *tracer;
	struct lock_bpf *bpf;
	struct lockstat ls_before;
	bool have_ls_before;
	struct perf_info perf;
	struct perf_lock_rec rec, live;
	bool recording, live_bpf;
	bool live_bpf_used;		/* perf ran in BPF mode (live_bpf ends at stop) */
	char perf_data[512];
	char perf_mode[256];		/* which perf lock mode ran, "" when none */
	struct lockcon_text_table *perf_tables[3];	/* caller, thread (from perf.data), BPF live */
	size_t perf_ntables[3];
	struct lock_hold_result hold;
	char notes[2048];
	bool enabled;			/* lock_collector_enable ran */
	bool stopped;
};

static void add_note(struct lock_collector *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct lock_collector *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	str_vappendf(c->notes, sizeof(c->notes), fmt, ap);
	va_end(ap);
	str_appendf(c->notes, sizeof(c->notes), "\n");
}

/*
 * perf lock alongside: BPF mode (a live `perf lock contention -a -b`) where
 * perf has it, else tracepoint mode (`perf lock record -a`, then perf lock
 * contention -i on the file).  Which one ran is in perf_mode.
 */
static void start_perf(struct lock_collector *c, const char *dir)
{
	char log[600], kerr[512];

	perf_info_probe(&c->perf);
	if (!c->perf.found) {
		add_note(c, "perf lock alongside: no perf in PATH");
		return;
	}
	if (c->perf.bpf_skel) {
		snprintf(log, sizeof(log), "%s/perf-lock-contention-bpf.txt", dir);
		if (perf_lock_live_start(&c->live, &c->perf, log, kerr, sizeof(kerr))) {
			add_note(c, "perf lock contention -b: %s; tracepoint mode instead", kerr);
		} else {
			c->live_bpf = c->live_bpf_used = true;
			snprintf(c->perf_mode, sizeof(c->perf_mode),
				 "BPF mode (perf %s: perf lock contention -a -b over the window)", c->perf.version);
			return;
		}
	}
	snprintf(c->perf_data, sizeof(c->perf_data), "%s/perf-lock.data", dir);
	snprintf(log, sizeof(log), "%s/perf-lock-record.log", dir);
	if (perf_lock_record_start(&c->rec, c->perf_data, log, kerr, sizeof(kerr))) {
		add_note(c, "perf lock record: %s", kerr);
		c->perf_data[0] = '\0';
		return;
	}
	c->recording = true;
	snprintf(c->perf_mode, sizeof(c->perf_mode),
		 "tracepoint mode (perf %s: perf lock record -a, then perf lock contention -i%s)",
		 c->perf.version, c->perf.bpf_skel ? "; -b failed to start" :
		 "; it was built without BPF skeletons, so no -b");
}

static bool snapshot_lock_stat(struct lockstat *ls, char *err, size_t errlen)
{
	char *text = read_text("/proc/lock_stat", NULL);
	int r;

	if (!text) {
		snprintf(err, errlen, "/proc/lock_stat: %s", strerror(errno));
		return false;
	}
	r = lockstat_parse(text, "/proc/lock_stat", ls, err, errlen);
	free(text);
	return r == 0;
}

/* BPF could not measure the holds (why): the next method down the list. */
static void hold_fall_back(struct lock_collector *c, const char *why)
{
	struct hold_plan *p = &c->hold.plan;

	add_note(c, "hold time of %s: %s failed: %s", p->target, hold_method_name(p->method), why);
	if (c->env.lock_stat) {
		p->method = HOLD_LOCK_STAT;
		snprintf(p->lock_stat_class, sizeof(p->lock_stat_class), "%s", p->target);
		snprintf(p->reason, sizeof(p->reason), "%s: /proc/lock_stat holdtime columns (BPF failed)",
			 p->target);
	} else {
		p->method = HOLD_NONE;
		snprintf(p->reason, sizeof(p->reason), "%s: no method can measure holds: BPF failed (%s) "
			 "and there is no /proc/lock_stat; only the readers' read() latency bounds it",
			 p->target, why);
	}
}

/* Before the window: the BPF programs loaded (the verifier), not attached. */
static void prepare_hold(struct lock_collector *c)
{
	struct hold_plan *p = &c->hold.plan;
	char err[512];

	if (p->method == HOLD_BPF_KPROBE || p->method == HOLD_BPF_FENTRY) {
		struct lock_bpf_opts bo = {
			.mode = p->method == HOLD_BPF_KPROBE ? LOCK_BPF_KPROBE : LOCK_BPF_FENTRY,
			.lock_func = p->lock_func, .unlock_func = p->unlock_func,
			.holder_func = p->holder_func[0] ? p->holder_func : NULL, .addr = p->addr,
		};

		c->bpf = lock_bpf_load(&bo, err, sizeof(err));
		if (!c->bpf)
			hold_fall_back(c, err);
	}
}

/* At the window's start: BPF attached, or lock_stat's first snapshot. */
static void enable_hold(struct lock_collector *c)
{
	struct hold_plan *p = &c->hold.plan;
	char err[512];

	if (c->bpf && lock_bpf_attach(c->bpf, err, sizeof(err))) {
		lock_bpf_free(c->bpf);
		c->bpf = NULL;
		hold_fall_back(c, err);
	}
	if (p->method == HOLD_LOCK_STAT) {
		c->have_ls_before = snapshot_lock_stat(&c->ls_before, err, sizeof(err));
		if (!c->have_ls_before) {
			add_note(c, "hold time of %s: %s", p->target, err);
			p->method = HOLD_NONE;
		}
	}
}

struct lock_collector *lock_collector_prepare(const struct lock_collector_opts *o, char *err, size_t errlen)
{
	struct lock_collector *c = xcalloc(1, sizeof(*c));
	const char *tracefs_dir = o->tracefs_dir;
	char kerr[256];

	c->o = *o;
	hist_init(&c->hold.hold);
	hist_init(&c->hold.wait);
	hist_init(&c->hold.read_latency);
	c->have_ks = ksyms_load(&c->ks, NULL, kerr, sizeof(kerr)) == 0;
	if (!c->have_ks)
		add_note(c, "no kernel symbols (%s): locks stay unnamed", kerr);
	if (!o->no_tracer) {
		/* Before the probe: on a fresh machine this mounts tracefs, and
		 * the probe must see its events (the rstat tracepoints). */
		struct lock_tracer_opts to = { .tracefs_dir = o->tracefs_dir };

		if (lock_tracer_find_tracefs(&to, err, errlen)) {
			lock_collector_free(c);
			return NULL;
		}
		tracefs_dir = lock_tracer_tracefs_dir();
	}
	lock_env_probe(&c->env, c->have_ks ? &c->ks : NULL, tracefs_dir);
	hold_plan_choose(&c->hold.plan, o->hold, &c->env, c->have_ks ? &c->ks : NULL);

	if (!o->no_tracer) {
		struct lock_tracer_opts to = {
			.tracefs_dir = o->tracefs_dir, .buffer_kb = o->buffer_kb,
			.caller_stacks = o->caller_stacks, .ksyms = c->have_ks ? &c->ks : NULL,
			.flush_events = o->flush_events, .hide_events = o->hide_events,
		};

		if (c->env.user_flush) {
			to.learn_func = USER_FLUSH_FUNC;
			to.learn_name = USER_FLUSH_MUTEX;
		}
		c->tracer = lock_tracer_prepare(&to, err, errlen);
		if (!c->tracer) {
			lock_collector_free(c);
			return NULL;
		}
		if (c->hold.plan.method == HOLD_RSTAT_TP && !lock_tracer_has_rstat(c->tracer)) {
			/* The kernel has the events' files but the tracer could not
			 * use them: the next method down the list. */
			c->env.rstat_tp = false;
			hold_plan_choose(&c->hold.plan, o->hold, &c->env, c->have_ks ? &c->ks : NULL);
		}
	} else if (c->hold.plan.method == HOLD_RSTAT_TP) {
		c->hold.plan.method = HOLD_NONE;
		add_note(c, "hold time of %s: the rstat tracepoints need the tracer (--no-tracer given)",
			 c->hold.plan.target);
	}
	prepare_hold(c);
	return c;
}

int lock_collector_enable(struct lock_collector *c, char *err, size_t errlen)
{
	const struct lock_collector_opts *o = &c->o;

	if (c->enabled)
		return 0;
	if (c->tracer) {
		if (lock_tracer_enable(c->tracer, err, errlen))
			return -1;
		if (lock_tracer_missing(c->tracer)[0])
			add_note(c, "not traced on this kernel: %s", lock_tracer_missing(c->tracer));
	}
	c->enabled = true;
	enable_hold(c);
	if (o->perf)
		start_perf(c, o->perf_dir ? o->perf_dir : ".");
	return 0;
}

struct lock_collector *lock_collector_start(const struct lock_collector_opts *o, char *err, size_t errlen)
{
	struct lock_collector *c = lock_collector_prepare(o, err, errlen);

	if (c && lock_collector_enable(c, err, errlen)) {
		lock_collector_free(c);
		return NULL;
	}
	return c;
}

void lock_collector_read_latency(struct lock_collector *c, const struct hist *h)
{
	hist_merge(&c->hold.read_latency, h);
	c->hold.have_read_bound = c->hold.read_latency.count > 0;
}

/* The rstat hold of the memory controller's lock: every (root, level) row
 * whose lock is the one memory flushes under. */
static void collect_rstat_hold(struct lock_collector *c)
{
	int mroot = lock_tracer_memory_root(c->tracer);
	const char *mname = lock_tracer_rstat_lock_name(c->tracer, mroot >= 0 ? mroot : 0);
	struct rstat_stat *r;
	size_t n;

	snprintf(c->hold.lock_name, sizeof(c->hold.lock_name), "%s", mname);
	r = lock_tracer_rstat(c->tracer, &n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(lock_tracer_rstat_lock_name(c->tracer, r[i].root), mname))
			continue;
		hist_merge(&c->hold.hold, &r[i].hold);
		hist_merge(&c->hold.wait, &r[i].wait);
	}
	free(r);
	c->hold.measured = c->hold.hold.count > 0;
	if (!c->hold.measured)
		add_note(c, "hold time of %s: no cgroup_rstat_locked/unlock pair in the window "
			 "(nothing flushed?)", mname);
}

static void finish_hold(struct lock_collector *c, struct lockstat *after, bool have_after)
{
	struct lock_hold_result *h = &c->hold;

	switch (h->plan.method) {
	case HOLD_RSTAT_TP:
		if (c->tracer)
			collect_rstat_hold(c);
		break;
	case HOLD_BPF_KPROBE:
	case HOLD_BPF_FENTRY: {
		const struct lock_bpf_results *br = lock_bpf_results(c->bpf);

		hist_merge(&h->hold, &br->hold);
		hist_merge(&h->wait, &br->wait);
		h->measured = br->hold.count > 0;
		snprintf(h->lock_name, sizeof(h->lock_name), "%s", h->plan.target);
		if (br->lost)
			add_note(c, "hold time of %s: %" PRIu64 " BPF records lost (ring buffer full)",
				 h->plan.target, br->lost);
		if (!h->measured)
			add_note(c, "hold time of %s: the lock was not taken in the window%s", h->plan.target,
				 br->func.count ? "" : " (its holder function never ran)");
		break;
	}
	case HOLD_LOCK_STAT: {
		const struct lockstat_class *b, *a;
		struct lockstat_class d;

		snprintf(h->lock_name, sizeof(h->lock_name), "%s", h->plan.lock_stat_class);
		a = have_after ? lockstat_find(after, h->plan.lock_stat_class) : NULL;
		b = lockstat_find(&c->ls_before, h->plan.lock_stat_class);
		if (!a) {
			add_note(c, "hold time of %s: no class '%s' in /proc/lock_stat", h->plan.target,
				 h->plan.lock_stat_class);
			break;
		}
		lockstat_delta(b, a, &d);
		h->count = d.acquisitions;
		h->total_ns = d.hold_total;
		h->max_ns = d.hold_max;
		h->measured = d.acquisitions > 0;
		break;
	}
	case HOLD_NONE:
		break;
	}
	if (h->hold.count) {
		h->count = h->hold.count;
		h->total_ns = h->hold.sum;
		h->max_ns = h->hold.max;
	}
}

static void run_perf_reports(struct lock_collector *c)
{
	static const char *const views[2] = { "caller", "thread" };
	char err[512];

	for (int v = 0; v < 2; v++) {
		char out[600];

		snprintf(out, sizeof(out), "%s/perf-lock-contention-%s.txt",
			 c->o.perf_dir ? c->o.perf_dir : ".", views[v]);
		if (perf_lock_contention(&c->perf, c->perf_data, v == 1, out, &c->perf_tables[v],
					 &c->perf_ntables[v], err, sizeof(err)))
			add_note(c, "perf lock contention (%s view): %s", views[v], err);
	}
}

int lock_collector_stop(struct lock_collector *c, char *err, size_t errlen)
{
	struct lockstat after;
	bool have_after = false;
	char perr[512];
	int r = 0;

	if (c->stopped)
		return 0;
	c->stopped = true;
	if (!c->enabled) {
		/* Prepared only (the run ended before its window): nothing was
		 * measured; the instance goes. */
		add_note(c, "the window never opened: nothing was measured");
		return c->tracer && lock_tracer_stop(c->tracer, err, errlen) ? -1 : 0;
	}
	if (c->hold.plan.method == HOLD_LOCK_STAT)
		have_after = snapshot_lock_stat(&after, perr, sizeof(perr));
	if (c->tracer && lock_tracer_stop(c->tracer, err, errlen))
		r = -1;
	if (c->bpf)
		lock_bpf_stop(c->bpf);
	if (c->live_bpf) {
		char out[600];

		snprintf(out, sizeof(out), "%s/perf-lock-contention-bpf.txt", c->o.perf_dir ? c->o.perf_dir : ".");
		if (perf_lock_record_stop(&c->live, perr, sizeof(perr)) ||
		    perf_lock_parse_output(out, &c->perf_tables[2], &c->perf_ntables[2], perr, sizeof(perr)))
			add_note(c, "perf lock contention -b: %s", perr);
		c->live_bpf = false;
	}
	if (c->recording) {
		if (perf_lock_record_stop(&c->rec, perr, sizeof(perr)))
			add_note(c, "perf lock record: %s", perr);
		else
			run_perf_reports(c);
		c->recording = false;
	}
	finish_hold(c, &after, have_after);
	if (have_after)
		lockstat_free(&after);
	if (c->tracer) {
		const struct lock_tracer_stats *st = lock_tracer_stats(c->tracer);

		if (st->lost || st->lost_pages)
			add_note(c, "the tracer lost %" PRIu64 " events (ring buffer full: raise --buffer-kb, "
				 "now %zu KiB per CPU)", st->lost + st->lost_pages, st->buffer_kb);
	}
	return r;
}

void lock_collector_free(struct lock_collector *c)
{
	if (!c)
		return;
	if (!c->stopped) {
		char err[256];

		lock_collector_stop(c, err, sizeof(err));
	}
	lock_tracer_free(c->tracer);
	lock_bpf_free(c->bpf);
	if (c->have_ls_before)
		lockstat_free(&c->ls_before);
	for (int v = 0; v < 3; v++)
		if (c->perf_tables[v])
			lockcon_text_free(c->perf_tables[v], c->perf_ntables[v]);
	if (c->have_ks)
		ksyms_free(&c->ks);
	free(c);
}

const struct flush_counts *lock_collector_flushes(const struct lock_collector *c)
{
	static const struct flush_counts none;

	return c->tracer ? lock_tracer_flushes(c->tracer) : &none;
}

const struct lock_hold_result *lock_collector_hold(const struct lock_collector *c)
{
	return &c->hold;
}

const struct lock_tracer *lock_collector_tracer(const struct lock_collector *c)
{
	return c->tracer;
}

const char *lock_collector_notes(const struct lock_collector *c)
{
	return c->notes;
}

const char *lock_collector_perf_data(const struct lock_collector *c)
{
	return c->perf_data[0] ? c->perf_data : NULL;
}

/* ---- output ---- */

/* count total mean max p50 p99 of a histogram, "-" when empty. */
static void hist_cols(FILE *f, const struct hist *h)
{
	if (!h || !h->count) {
		fprintf(f, "\t0\t-\t-\t-\t-\t-");
		return;
	}
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%.0f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, h->count, h->sum,
		hist_mean(h), h->max, hist_quantile(h, 0.5), hist_quantile(h, 0.99));
}

/*
 * Histograms go where the plot step finds them: data/hist-<group>.<series>.tsv
 * with group lock-wait or lock-hold (one CDF each) and the lock as the
 * series, titled with the lock and the method that measured it.
 */
static void write_hist(struct results *r, const char *group, const char *lock, const char *title,
		       const struct hist *h)
{
	char name[300];
	size_t k;
	FILE *f;

	if (!h || !h->count)
		return;
	k = (size_t)snprintf(name, sizeof(name), "hist-%s.", group);
	for (const char *p = lock; *p && k + 5 < sizeof(name); p++)
		name[k++] = isalnum((unsigned char)*p) || *p == '.' || *p == '-' ? *p : '_';
	snprintf(name + k, sizeof(name) - k, ".tsv");
	f = results_open_data(r, name);
	tsv_write_row(f, "# title: %s\n", title);
	hist_write_tsv(h, f);
	fclose(f);
}

static void hold_title(const struct lock_collector *c, char *buf, size_t n)
{
	snprintf(buf, n, "lock hold times (method: %s)", hold_method_name(c->hold.plan.method));
}

#define WAIT_TITLE "lock wait times (lock:contention_begin/end)"

static void lock_label(const struct lock_collector *c, const struct lockcon_entry *e, char *buf, size_t n)
{
	const struct lock_info *li = c->tracer ? lock_tracer_info(c->tracer, e->addr) : NULL;

	if (li && li->name[0])
		snprintf(buf, n, "%s", li->name);
	else
		snprintf(buf, n, "0x%016" PRIx64, e->addr);
}

static bool is_target(const struct lock_collector *c, const char *label)
{
	return c->hold.measured && c->hold.lock_name[0] && !strcmp(label, c->hold.lock_name);
}

static void write_locks(struct lock_collector *c, struct results *r)
{
	FILE *f = results_open_data(r, "lock-locks.tsv");
	const struct lockcon *lc = lock_tracer_waits(c->tracer);
	struct lockcon_entry **v;
	bool target_done = false;
	size_t n;

	tsv_write_header(f, (const char *const[]){ "lock", "addr", "type", "name_from", "caller", "contended", "wait_count",
						   "wait_total_ns", "wait_mean_ns", "wait_max_ns", "wait_p50_ns",
						   "wait_p99_ns", "hold_count", "hold_total_ns", "hold_mean_ns",
						   "hold_max_ns", "hold_p50_ns", "hold_p99_ns", "wait_method",
						   "hold_method", NULL });
	v = lockcon_sorted(lc, false, &n);
	for (size_t i = 0; i < n; i++) {
		const struct lock_info *li = lock_tracer_info(c->tracer, v[i]->addr);
		char label[200];
		bool tgt;

		lock_label(c, v[i], label, sizeof(label));
		tgt = is_target(c, label);
		target_done |= tgt;
		tsv_write_row(f, "%s\t0x%016" PRIx64 "\t%s\t%s\t%s\t%" PRIu64, label, v[i]->addr,
			      lock_type_name(v[i]->flags), li && li->how[0] ? li->how : "-",
			      li && li->caller[0] ? li->caller : "-", v[i]->contended);
		hist_cols(f, v[i]->hist);
		hist_cols(f, tgt ? &c->hold.hold : NULL);
		tsv_write_row(f, "\tlock:contention_begin/end\t%s\n", tgt ? hold_method_name(c->hold.plan.method) : "-");
		write_hist(r, "lock-wait", label, WAIT_TITLE, v[i]->hist);
	}
	free(v);
	if (c->hold.measured && !target_done) {
		/* The target was never contended: its row has holds only. */
		tsv_write_row(f, "%s\t-\t-\t%s\t-\t0", c->hold.lock_name, hold_method_name(c->hold.plan.method));
		hist_cols(f, NULL);
		hist_cols(f, &c->hold.hold);
		tsv_write_row(f, "\t-\t%s\n", hold_method_name(c->hold.plan.method));
	}
	if (c->hold.measured) {
		char t[160];

		hold_title(c, t, sizeof(t));
		write_hist(r, "lock-hold", c->hold.lock_name, t, &c->hold.hold);
	}
	fclose(f);
}

static void write_rstat(struct lock_collector *c, struct results *r)
{
	FILE *f = results_open_data(r, "lock-rstat.tsv");
	struct rstat_stat *s;
	size_t n;

	tsv_write_header(f, (const char *const[]){ "lock", "root", "level", "acquired", "contended", "wait_count",
						   "wait_total_ns", "wait_mean_ns", "wait_max_ns", "wait_p50_ns",
						   "wait_p99_ns", "hold_count", "hold_total_ns", "hold_mean_ns",
						   "hold_max_ns", "hold_p50_ns", "hold_p99_ns", NULL });
	s = lock_tracer_rstat(c->tracer, &n);
	for (size_t i = 0; i < n; i++) {
		char label[200], lvl[32];

		tsv_write_row(f, "%s\t%d\t%d\t%" PRIu64 "\t%" PRIu64, lock_tracer_rstat_lock_name(c->tracer, s[i].root),
			      s[i].root, s[i].level, s[i].acquired, s[i].contended);
		hist_cols(f, &s[i].wait);
		hist_cols(f, &s[i].hold);
		fputc('\n', f);
		snprintf(label, sizeof(label), "%s.root%d.level%d",
			 lock_tracer_rstat_lock_name(c->tracer, s[i].root), s[i].root, s[i].level);
		snprintf(lvl, sizeof(lvl), "%d", s[i].level);
		write_hist(r, "lock-wait", label, WAIT_TITLE, &s[i].wait);
		write_hist(r, "lock-hold", label, "rstat flush lock hold times (method: rstat tracepoints)",
			   &s[i].hold);
	}
	free(s);
	fclose(f);
}

static void write_hold(struct lock_collector *c, struct results *r)
{
	const struct lock_hold_result *h = &c->hold;
	FILE *f = results_open_data(r, "lock-hold.tsv");

	tsv_write_header(f, (const char *const[]){ "target", "lock", "measure", "method", "count", "total_ns", "mean_ns",
						   "max_ns", "p50_ns", "p99_ns", "reason", NULL });
	tsv_write_row(f, "%s\t%s\thold\t%s", h->plan.target, h->lock_name[0] ? h->lock_name : "-",
		      hold_method_name(h->plan.method));
	if (h->hold.count)
		hist_cols(f, &h->hold);
	else if (h->measured)
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%.0f\t%" PRIu64 "\t-\t-", h->count, h->total_ns,
			h->count ? (double)h->total_ns / h->count : 0.0, h->max_ns);
	else
		hist_cols(f, NULL);
	tsv_write_row(f, "\t%s\n", h->plan.reason);
	if (h->wait.count) {
		tsv_write_row(f, "%s\t%s\twait\t%s", h->plan.target, h->lock_name, hold_method_name(h->plan.method));
		hist_cols(f, &h->wait);
		fprintf(f, "\t-\n");
		{
			char t[160], series[200];

			snprintf(t, sizeof(t), "lock wait times (method: %s)", hold_method_name(h->plan.method));
			snprintf(series, sizeof(series), "%s.by-hold-method", h->lock_name);
			write_hist(r, "lock-wait", series, t, &h->wait);
		}
	}
	tsv_write_row(f, "%s\t%s\tread_latency_upper_bound\tstat-read driver", h->plan.target,
		      h->lock_name[0] ? h->lock_name : "-");
	hist_cols(f, h->have_read_bound ? &h->read_latency : NULL);
	tsv_write_row(f, "\t%s\n", h->have_read_bound ? "each read() holds the lock at most this long" :
		      "no read() latency was passed to the collector");
	if (h->have_read_bound) {
		char t[160];

		hold_title(c, t, sizeof(t));
		write_hist(r, "lock-hold", "read-latency-upper-bound", t, &h->read_latency);
	}
	fclose(f);
}

static void write_flush(struct lock_collector *c, struct results *r)
{
	const struct flush_counts *fc = lock_collector_flushes(c);
	FILE *f = results_open_data(r, "lock-flush.tsv");

	tsv_write_header(f, (const char *const[]){ "available", "calls", "forced", "needed", "flushed", "skipped",
						   NULL });
	fprintf(f, "%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", fc->available,
		fc->calls, fc->forced, fc->needed, fc->flushed, fc->skipped);
	fclose(f);
}

static json_object *meta_json(const struct lock_collector *c)
{
	json_object *o = json_object_new_object(), *hold = json_object_new_object();
	const struct flush_counts *fc = lock_collector_flushes(c);

	if (c->tracer) {
		const struct lock_tracer_stats *st = lock_tracer_stats(c->tracer);

		json_object_object_add(o, "tracefs_instance", json_object_new_string(lock_tracer_instance(c->tracer)));
		json_object_object_add(o, "events", json_object_new_int64(st->events));
		json_object_object_add(o, "lost_events", json_object_new_int64(st->lost + st->lost_pages));
		json_object_object_add(o, "buffer_kb_per_cpu", json_object_new_int64(st->buffer_kb));
		json_object_object_add(o, "missing_events", json_object_new_string(lock_tracer_missing(c->tracer)));
	}
	json_object_object_add(hold, "target", json_object_new_string(c->hold.plan.target));
	json_object_object_add(hold, "lock", json_object_new_string(c->hold.lock_name));
	json_object_object_add(hold, "method", json_object_new_string(hold_method_name(c->hold.plan.method)));
	json_object_object_add(hold, "reason", json_object_new_string(c->hold.plan.reason));
	json_object_object_add(hold, "measured", json_object_new_boolean(c->hold.measured));
	json_object_object_add(hold, "kernel", json_object_new_string(c->env.evidence));
	json_object_object_add(o, "hold", hold);
	if (fc->available) {
		json_object *fj = json_object_new_object();

		json_object_object_add(fj, "calls", json_object_new_int64(fc->calls));
		json_object_object_add(fj, "forced", json_object_new_int64(fc->forced));
		json_object_object_add(fj, "needed", json_object_new_int64(fc->needed));
		json_object_object_add(fj, "flushed", json_object_new_int64(fc->flushed));
		json_object_object_add(fj, "skipped", json_object_new_int64(fc->skipped));
		json_object_object_add(fj, "counted_by", json_object_new_string(
			c->tracer ? lock_tracer_stats(c->tracer)->flush_counting : ""));
		json_object_object_add(o, "memcg_flush_stats", fj);
	}
	if (c->perf_data[0])
		json_object_object_add(o, "perf_data", json_object_new_string(c->perf_data));
	if (c->perf_mode[0]) {
		json_object_object_add(o, "perf_version", json_object_new_string(c->perf.version));
		json_object_object_add(o, "perf_mode", json_object_new_string(c->live_bpf_used ? "bpf" : "tracepoint"));
	}
	json_object_object_add(o, "notes", json_object_new_string(c->notes));
	return o;
}

/* One metrics row; under the runner, tagged with its step and repeat. */
static void emit(FILE *m, const struct results *r, const char *name, double v, const char *unit,
		 const char *better)
{
	metrics_emit(m, r->attached ? r->step : "-", r->repeat, name, v, unit, better);
}

/* count, p50, p99 and max of a histogram as metrics PREFIX.{count,p50,p99,max}. */
static void emit_hist(FILE *m, const struct results *r, const char *prefix, const struct hist *h)
{
	static const struct {
		const char *name;
		double q;
	} qs[] = { { "p50", 0.5 }, { "p99", 0.99 } };
	char name[300];

	if (!h || !h->count)
		return;
	snprintf(name, sizeof(name), "%s.count", prefix);
	emit(m, r, name, (double)h->count, "events", "-");
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		snprintf(name, sizeof(name), "%s.%s", prefix, qs[i].name);
		emit(m, r, name, (double)hist_quantile(h, qs[i].q), "ns", "lower");
	}
	snprintf(name, sizeof(name), "%s.max", prefix);
	emit(m, r, name, (double)h->max, "ns", "lower");
}

/*
 * data/metrics.tsv, so that `compare` sets two lock records side by side (an
 * A/B of kernels, e.g. with and without the user-flush mutex): flush.* (the
 * memcg_flush_stats counts), ufmutex.{hold,wait}.* (the user-flush mutex;
 * another target by its name) and rstat.r<root>.l<level>.{hold,wait}.*
 * (the rstat lock; also when it is the target).  Short names: compare's
 * table shows 26 characters of them.
 */
static void write_metrics(struct lock_collector *c, struct results *r)
{
	const struct flush_counts *fc = lock_collector_flushes(c);
	FILE *m = metrics_open(r->dir);
	char p[300];

	if (fc->available) {
		emit(m, r, "flush.calls", (double)fc->calls, "flushes", "-");
		emit(m, r, "flush.forced", (double)fc->forced, "flushes", "-");
		emit(m, r, "flush.needed", (double)fc->needed, "flushes", "-");
		emit(m, r, "flush.flushed", (double)fc->flushed, "flushes", "-");
		emit(m, r, "flush.skipped", (double)fc->skipped, "flushes", "-");
	}
	if (c->hold.measured && c->hold.lock_name[0] && !c->hold.plan.rstat_target) {
		const char *tag = strcmp(c->hold.lock_name, "stats_user_flush_mutex") ? c->hold.lock_name : "ufmutex";

		snprintf(p, sizeof(p), "%s.hold", tag);
		emit_hist(m, r, p, &c->hold.hold);
		snprintf(p, sizeof(p), "%s.wait", tag);
		emit_hist(m, r, p, &c->hold.wait);
	}
	if (c->tracer) {
		size_t n;
		struct rstat_stat *s = lock_tracer_rstat(c->tracer, &n);

		for (size_t i = 0; i < n; i++) {
			snprintf(p, sizeof(p), "rstat.r%d.l%d.hold", s[i].root, s[i].level);
			emit_hist(m, r, p, &s[i].hold);
			snprintf(p, sizeof(p), "rstat.r%d.l%d.wait", s[i].root, s[i].level);
			emit_hist(m, r, p, &s[i].wait);
		}
		free(s);
	}
	fclose(m);
}

int lock_collector_write(struct lock_collector *c, struct results *r)
{
	if (c->tracer) {
		write_locks(c, r);
		write_rstat(c, r);
	}
	write_hold(c, r);
	write_flush(c, r);
	write_metrics(c, r);
	for (int v = 0; v < 3; v++) {
		static const char *const names[3] = { "perf-lock-contention-caller.tsv",
						       "perf-lock-contention-thread.tsv",
						       "perf-lock-contention-bpf.tsv" };

		if (!c->perf_tables[v] || !c->perf_ntables[v])
			continue;
		FILE *f = results_open_data(r, names[v]);

		lockcon_text_write_tsv(f, &c->perf_tables[v][0]);
		fclose(f);
	}
	{
		/* The tables a reader of report.txt sees, as the terminal showed them. */
		FILE *t = results_open_data(r, "lock-report.txt");

		lock_collector_print(c, t);
		fclose(t);
	}
	results_meta_set(r, "lock", meta_json(c));
	return 0;
}

static void print_time(FILE *f, uint64_t ns)
{
	char buf[32];

	lockcon_text_format_time(ns, buf, sizeof(buf));
	fprintf(f, "%s", buf);
}

void lock_collector_print(const struct lock_collector *c, FILE *f)
{
	const struct lock_hold_result *h = &c->hold;
	const struct flush_counts *fc = lock_collector_flushes(c);

	if (c->tracer) {
		const struct lock_tracer_stats *st = lock_tracer_stats(c->tracer);
		struct rstat_stat *s;
		size_t n;

		fprintf(f, "tracer: tracefs instance %s, %" PRIu64 " events, %" PRIu64 " lost, %zu KiB per CPU\n",
			lock_tracer_instance(c->tracer), st->events, st->lost + st->lost_pages, st->buffer_kb);
		if (fc->available)
			fprintf(f, "flushes (memcg:memcg_flush_stats, %s): %" PRIu64 " calls: %" PRIu64 " flushed "
				"(%" PRIu64 " forced, %" PRIu64 " over the threshold), %" PRIu64 " skipped\n",
				st->flush_counting, fc->calls, fc->flushed, fc->forced, fc->needed, fc->skipped);
		s = lock_tracer_rstat(c->tracer, &n);
		if (n)
			fprintf(f, "\nrstat flush lock (cgroup_rstat_locked/unlock):\n"
				"%-40s %4s %5s %9s %9s %12s %12s %12s %12s\n", "lock", "root", "level",
				"acquired", "contended", "hold p50", "hold p99", "hold max", "wait p99");
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%-40s %4d %5d %9" PRIu64 " %9" PRIu64 " ",
				lock_tracer_rstat_lock_name(c->tracer, s[i].root), s[i].root, s[i].level,
				s[i].acquired, s[i].contended);
			print_time(f, hist_quantile(&s[i].hold, 0.5));
			fputc(' ', f);
			print_time(f, hist_quantile(&s[i].hold, 0.99));
			fputc(' ', f);
			print_time(f, s[i].hold.max);
			fputc(' ', f);
			print_time(f, hist_quantile(&s[i].wait, 0.99));
			fputc('\n', f);
		}
		free(s);
	}
	fprintf(f, "\nhold time of %s: method %s\n  %s\n", h->plan.target, hold_method_name(h->plan.method),
		h->plan.reason);
	if (h->hold.count) {
		fprintf(f, "  %s: %" PRIu64 " holds, p50 ", h->lock_name, h->hold.count);
		print_time(f, hist_quantile(&h->hold, 0.5));
		fprintf(f, ", p99 ");
		print_time(f, hist_quantile(&h->hold, 0.99));
		fprintf(f, ", max ");
		print_time(f, h->hold.max);
		fputc('\n', f);
	} else if (h->measured) {
		fprintf(f, "  %s: %" PRIu64 " holds, mean ", h->lock_name, h->count);
		print_time(f, h->count ? h->total_ns / h->count : 0);
		fprintf(f, ", max ");
		print_time(f, h->max_ns);
		fputc('\n', f);
	}
	if (h->have_read_bound) {
		fprintf(f, "  upper bound, the readers' read() latency: p50 ");
		print_time(f, hist_quantile(&h->read_latency, 0.5));
		fprintf(f, ", p99 ");
		print_time(f, hist_quantile(&h->read_latency, 0.99));
		fputc('\n', f);
	}
	if (c->tracer) {
		const struct lockcon *lc = lock_tracer_waits(c->tracer);
		struct lockcon_entry **v;
		size_t n;

		v = lockcon_sorted(lc, false, &n);
		if (n)
			fprintf(f, "\nmost waited-for locks (lock:contention_begin/end):\n"
				"%10s %12s %12s %12s %10s   %s\n", "contended", "total wait", "max wait",
				"p99 wait", "type", "lock (caller)");
		for (size_t i = 0; i < n && i < 15; i++) {
			const struct lock_info *li = lock_tracer_info(c->tracer, v[i]->addr);
			char label[200];

			lock_label(c, v[i], label, sizeof(label));
			fprintf(f, "%10" PRIu64 " ", v[i]->contended);
			print_time(f, v[i]->wait_total);
			fputc(' ', f);
			print_time(f, v[i]->wait_max);
			fputc(' ', f);
			print_time(f, v[i]->hist ? hist_quantile(v[i]->hist, 0.99) : 0);
			fprintf(f, " %10s   %s%s%s%s\n", lock_type_name(v[i]->flags), label,
				li && li->caller[0] ? " (" : "", li && li->caller[0] ? li->caller : "",
				li && li->caller[0] ? ")" : "");
		}
		free(v);
	}
	if (c->perf_mode[0])
		fprintf(f, "\nperf lock: %s\n", c->perf_mode);
	if (c->notes[0])
		fprintf(f, "\nnotes:\n%s", c->notes);
}
