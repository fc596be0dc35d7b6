// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <tracefs/tracefs.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include "perf/tp_field.h"
#include "lock/flush_count.h"
#include "lock/lock_tracer.h"
#include "kernel/tracefs_dir.h"
#include "util/cleanup.h"
#include "util/fdholders.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owned.h"
#include "util/owner.h"
#include "util/strfmt.h"

#define TRACEFS_MAGIC	0x74726163
#define DEBUGFS_MAGIC	0x64626720
/* Records younger than this at the start of a drain wait for the next one:
 * a record is stamped at reserve and becomes readable at commit, and in a
 * VM the vCPU can be descheduled in between for milliseconds. */
#define WATERMARK_NS	(50 * 1000 * 1000ull)
#define DEFAULT_STACKS	256

enum kind { K_CB = 1, K_CE, K_RC, K_RL, K_RU, K_FS, K_KS, K_NKINDS };

struct evdef {
	const char *sys, *name, *since;
	int kind;
};

static const struct evdef evdefs[] = {
	{ "lock", "contention_begin", "5.19", K_CB },
	{ "lock", "contention_end", "5.19", K_CE },
	{ "cgroup", "cgroup_rstat_lock_contended", "6.10", K_RC },
	{ "cgroup", "cgroup_rstat_locked", "6.10", K_RL },
	{ "cgroup", "cgroup_rstat_unlock", "6.10", K_RU },
	{ "memcg", "memcg_flush_stats", "6.13", K_FS },
};
#define NEVDEFS (sizeof(evdefs) / sizeof(evdefs[0]))

/* A decoded record. */
struct tev {
	uint64_t ts;
	uint64_t a;		/* lock address, cgroup id, memcg id */
	uint64_t seq;		/* decode order, for a stable sort */
	int32_t pid;
	uint32_t b;		/* flags, root, force */
	int32_t c, d;		/* level/contended, needs_flush */
	uint8_t kind;
	uint64_t caller;	/* K_KS: the caller frame; else 0 */
	uint64_t holder;	/* K_KS: a frame inside the learn function, 0 if none */
};

enum rphase { R_NONE, R_CONTENDED, R_LOCKED };

struct rstate {
	uint8_t phase;
	int root, level;
	uint64_t ts;
};

struct lock_tracer {
	struct tracefs_instance *inst;
	char name[64];
	char dir[PATH_MAX];		/* the instance directory (rmdir on undo) */
	int ncpus;
	int *fds;			/* per-CPU trace_pipe_raw, -1 when closed */
	int cleanup_handle;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	size_t page;
	uint8_t *pagebuf;

	int ids[K_NKINDS];		/* event id per kind, -1 when not traced */
	struct tp_field f_addr_b, f_flags, f_addr_e, f_root, f_level, f_id, f_contended;
	struct tp_field f_fid, f_force, f_needs, f_ks_size, f_ks_caller;
	char missing[512];
	int caller_stacks;
	int stack_rounds;		/* times the trigger was armed */
	bool flush_events;

	pthread_t thread;
	atomic_bool stop;
	bool enabled;			/* the window opened (lock_tracer_enable) */
	bool running;			/* ... and has not closed yet */
	bool stopped;
	int poll_ms;
	uint64_t seq;

	struct tev *batch;
	size_t nbatch, capbatch;

	/* aggregation, owned by the reader thread until stop */
	struct lockcon lc;
	struct u64map infos;		/* addr -> struct lock_info */
	struct u64map rstat;		/* root << 32 | level -> struct rstat_stat */
	struct u64map rstates;		/* pid -> struct rstate */
	struct u64map last_begin;	/* pid -> lock addr + 1 of its last contention */
	struct flush_counts fc;
	struct flush_count *fcount;	/* in-kernel flush counting, or NULL */
	struct lock_tracer_stats st;

	/* names */
	const struct ksyms *ks;
	struct ksyms own_ks;
	uint64_t text_lo, text_hi;	/* _text .. _end/_etext: static data lies between */
	bool per_ss_rstat;		/* 6.16+: one rstat lock per subsystem */
	char roots[16][96];		/* controllers per hierarchy id, from /proc/cgroups */
	char rstat_names[16][160];
	uint64_t learn_lo, learn_hi;	/* holder function, for naming its lock */
	char learn_name[128];
	char learn_func[128];
};

static uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Undo step: must not malloc (it may run from a signal handler). */
static void undo_instance(void *arg)
{
	struct lock_tracer *t = arg;

	for (int i = 0; i < t->ncpus; i++)
		if (t->fds && t->fds[i] >= 0) {
			close(t->fds[i]);
			t->fds[i] = -1;
		}
	/* A file of the instance the interrupted code had open (libtracefs
	 * between its open and close while this runs from a signal handler)
	 * would pin it for as long as this runs. */
	if (t->dir[0] && rmdir(t->dir) < 0 && errno == EBUSY)
		fd_close_under(t->dir);
	/* The reader thread may still be inside read() on a file closed here. */
	tracefs_instance_remove(t->dir);
}

int lock_tracer_find_tracefs(const struct lock_tracer_opts *o, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct statfs sfs;

	if (o->tracefs_dir) {
		char tmp[PATH_MAX];

		if (statfs(o->tracefs_dir, &sfs) < 0) {
			snprintf(err, errlen, "%s: %s", o->tracefs_dir, strerror(errno));
			return -1;
		}
		if (sfs.f_type == DEBUGFS_MAGIC) {
			snprintf(tmp, sizeof(tmp), "%s/tracing", o->tracefs_dir);
			if (statfs(tmp, &sfs) < 0 || sfs.f_type != TRACEFS_MAGIC)
				goto not_tracefs;
		} else if (sfs.f_type != TRACEFS_MAGIC) {
			goto not_tracefs;
		} else {
			snprintf(tmp, sizeof(tmp), "%s", o->tracefs_dir);
		}
		tracefs_set_tracing_dir(tmp);
		return 0;
not_tracefs:
		snprintf(err, errlen, "%s: not a tracefs mount (mount one with "
			 "'mount -t tracefs nodev %s')", o->tracefs_dir, o->tracefs_dir);
		return -1;
	}
	/* The mounted one, or mounted now for this run (kernel/tracefs_dir.h). */
	if (lab_tracefs_find(dir, sizeof(dir), err, errlen))
		return -1;
	tracefs_set_tracing_dir(dir);
	return 0;
}

const char *lock_tracer_tracefs_dir(void)
{
	return tracefs_tracing_dir();
}

static void read_cgroup_roots(struct lock_tracer *t)
{
	char *text = read_text("/proc/cgroups", NULL), *line, *save = NULL;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ss[64];
		int root, n, en;

		if (line[0] == '#' || sscanf(line, "%63s %d %d %d", ss, &root, &n, &en) != 4 || !en)
			continue;
		if (root < 0 || root >= 16)
			continue;
		if (strlen(t->roots[root]) + strlen(ss) + 2 < sizeof(t->roots[root]))
			snprintf(t->roots[root] + strlen(t->roots[root]),
				 sizeof(t->roots[root]) - strlen(t->roots[root]), "%s%s",
				 t->roots[root][0] ? "," : "", ss);
	}
	free(text);
}

/* The lock the rstat tracepoints of each hierarchy root report on. */
static void name_rstat_locks(struct lock_tracer *t)
{
	for (int r = 0; r < 16; r++) {
		char *buf = t->rstat_names[r];
		size_t n = sizeof(t->rstat_names[r]);

		if (!t->per_ss_rstat)
			/* <= 6.15: one global spinlock for every hierarchy. */
			snprintf(buf, n, "cgroup_rstat_lock");
		else if (r != 0 && t->roots[r][0] && !strchr(t->roots[r], ','))
			/* A v1 hierarchy with one controller: its own lock. */
			snprintf(buf, n, "%.60s_cgrp_subsys.rstat_ss_lock", t->roots[r]);
		else
			snprintf(buf, n, "rstat_ss_lock/rstat_base_lock (root %d: %.90s)", r,
				 t->roots[r][0] ? t->roots[r] : "?");
	}
}

const char *lock_tracer_rstat_lock_name(const struct lock_tracer *t, int root)
{
	return t->rstat_names[root >= 0 && root < 16 ? root : 15];
}

static void setup_names(struct lock_tracer *t, const struct lock_tracer_opts *o)
{
	const struct ksym *s;
	char err[256];

	t->ks = o->ksyms;
	if (!t->ks) {
		if (ksyms_load(&t->own_ks, NULL, err, sizeof(err)) == 0)
			t->ks = &t->own_ks;
	}
	read_cgroup_roots(t);
	if (t->ks)
		t->per_ss_rstat = ksyms_find(t->ks, "css_rstat_flush") != NULL;
	name_rstat_locks(t);
	if (!t->ks)
		return;
	if (o->learn_func && o->learn_name && (s = ksyms_find(t->ks, o->learn_func))) {
		/* The function spans up to the next symbol's address. */
		const struct ksym *next = s;

		while (next < t->ks->by_addr + t->ks->n && next->addr == s->addr)
			next++;
		t->learn_lo = s->addr;
		t->learn_hi = next < t->ks->by_addr + t->ks->n ? next->addr : s->addr + 1;
		snprintf(t->learn_name, sizeof(t->learn_name), "%s", o->learn_name);
		snprintf(t->learn_func, sizeof(t->learn_func), "%s", o->learn_func);
	}
	if ((s = ksyms_find(t->ks, "_text")))
		t->text_lo = s->addr;
	if ((s = ksyms_find(t->ks, "_end")) || (s = ksyms_find(t->ks, "__bss_stop")))
		t->text_hi = s->addr;
}

static struct lock_info *info_of(struct lock_tracer *t, uint64_t addr)
{
	struct lock_info *li = u64map_get(&t->infos, addr);
	const struct ksym *s;
	uint64_t off;

	if (li)
		return li;
	li = xcalloc(1, sizeof(*li));
	li->addr = addr;
	/* Static locks: a data symbol of the kernel image (KALLSYMS_ALL). */
	if (t->ks && t->text_lo && addr >= t->text_lo && (!t->text_hi || addr < t->text_hi) &&
	    (s = ksyms_lookup(t->ks, addr, &off)) && strchr("dDbB", s->type) && off < 4096) {
		/* Without KALLSYMS_ALL the data symbols are few and far
		 * apart; a lock far past its symbol is not part of it. */
		if (off)
			snprintf(li->name, sizeof(li->name), "%s+%#" PRIx64, s->name, off);
		else
			snprintf(li->name, sizeof(li->name), "%s", s->name);
		snprintf(li->how, sizeof(li->how), "kallsyms");
	}
	u64map_put(&t->infos, addr, li);
	return li;
}

/* The lock's caller: ksyms_lock_caller() (no fixed frame count: the
 * trigger's stack depends on the unwinder and on BPF trampolines). */
static void stack_caller(const struct lock_tracer *t, const uint64_t *f, int n, struct tev *e)
{
	int c = t->ks ? ksyms_lock_caller(t->ks, f, n) : -1;

	for (int k = 0; k < n; k++)
		if (t->learn_lo && t->learn_lo <= f[k] && f[k] < t->learn_hi)
			e->holder = f[k];
	if (c >= 0)
		e->caller = f[c];
}

static void push(struct lock_tracer *t, const struct tev *e)
{
	if (t->nbatch == t->capbatch) {
		t->capbatch = t->capbatch ? t->capbatch * 2 : 4096;
		t->batch = xrealloc(t->batch, t->capbatch * sizeof(*t->batch));
	}
	t->batch[t->nbatch++] = *e;
}

static int kind_of(const struct lock_tracer *t, int id)
{
	for (int k = 1; k < K_NKINDS; k++)
		if (t->ids[k] == id)
			return k;
	return 0;
}

static void decode_page(struct lock_tracer *t)
{
	unsigned long long ts;
	void *rec;
	int missed;

	if (kbuffer_load_subbuffer(t->kbuf, t->pagebuf) < 0)
		return;
	missed = kbuffer_missed_events(t->kbuf);
	if (missed > 0)
		t->st.lost_pages += missed;
	for (rec = kbuffer_read_event(t->kbuf, &ts); rec; rec = kbuffer_next_event(t->kbuf, &ts)) {
		const uint8_t *d = rec;
		int size = kbuffer_event_size(t->kbuf);
		struct tev e = { .ts = ts, .seq = t->seq++ };
		uint16_t type;

		if (size < 8)
			continue;
		memcpy(&type, d, 2);
		memcpy(&e.pid, d + 4, 4);
		e.kind = kind_of(t, type);
		t->st.events++;
		switch (e.kind) {
		case K_CB:
			e.a = tp_field_read(d, size, &t->f_addr_b);
			e.b = tp_field_read(d, size, &t->f_flags);
			break;
		case K_CE:
			e.a = tp_field_read(d, size, &t->f_addr_e);
			break;
		case K_RC:
		case K_RL:
		case K_RU:
			e.b = tp_field_read(d, size, &t->f_root);
			e.c = tp_field_read(d, size, &t->f_level);
			e.a = tp_field_read(d, size, &t->f_id);
			e.d = tp_field_read(d, size, &t->f_contended);
			break;
		case K_FS:
			e.a = tp_field_read(d, size, &t->f_fid);
			e.b = tp_field_read(d, size, &t->f_force);
			e.d = tp_field_read(d, size, &t->f_needs);
			break;
		case K_KS: {
			int n = (int)tp_field_read(d, size, &t->f_ks_size);
			int room = (size - t->f_ks_caller.offset) / 8;
			uint64_t frames[64];

			if (n > room)
				n = room;
			if (n > 64)
				n = 64;
			if (n > 0)
				memcpy(frames, d + t->f_ks_caller.offset, n * 8);
			t->st.stacks++;
			stack_caller(t, frames, n > 0 ? n : 0, &e);
			break;
		}
		default:
			continue;
		}
		push(t, &e);
	}
}

static struct rstat_stat *rstat_of(struct lock_tracer *t, int root, int level)
{
	uint64_t key = (uint64_t)(uint32_t)root << 32 | (uint32_t)level;
	struct rstat_stat *r = u64map_get(&t->rstat, key);

	if (!r) {
		r = xcalloc(1, sizeof(*r));
		r->root = root;
		r->level = level;
		hist_init(&r->wait);
		hist_init(&r->hold);
		u64map_put(&t->rstat, key, r);
	}
	return r;
}

static struct rstate *rstate_of(struct lock_tracer *t, int pid)
{
	struct rstate *s = u64map_get(&t->rstates, (uint32_t)pid);

	if (!s) {
		s = xcalloc(1, sizeof(*s));
		u64map_put(&t->rstates, (uint32_t)pid, s);
	}
	return s;
}

static void process(struct lock_tracer *t, const struct tev *e)
{
	struct rstate *rs;
	struct rstat_stat *r;
	struct lock_info *li;
	char buf[128];

	switch (e->kind) {
	case K_CB:
		li = info_of(t, e->a);
		rs = u64map_get(&t->rstates, (uint32_t)e->pid);
		if (rs && rs->phase == R_CONTENDED && !li->name[0]) {
			/* Waiting on a lock between rstat_lock_contended and
			 * rstat_locked: this address is the rstat lock. */
			snprintf(li->name, sizeof(li->name), "%s", lock_tracer_rstat_lock_name(t, rs->root));
			snprintf(li->how, sizeof(li->how), "cgroup_rstat_lock_contended");
		}
		lockcon_begin(&t->lc, (uint32_t)e->pid, e->ts, e->a, e->b, NULL, 0);
		u64map_put(&t->last_begin, (uint32_t)e->pid, (void *)(uintptr_t)(e->a + 1));
		break;
	case K_CE:
		lockcon_end(&t->lc, (uint32_t)e->pid, e->ts, e->a, NULL, 0);
		break;
	case K_KS: {
		uintptr_t a = (uintptr_t)u64map_get(&t->last_begin, (uint32_t)e->pid);

		if (!a)
			break;
		li = info_of(t, a - 1);
		/* The stack was taken inside the wait: it ends when this
		 * record was stamped, and that time was not lock waiting. */
		lockcon_rebase(&t->lc, (uint32_t)e->pid, a - 1, e->ts);
		if (e->caller && !li->caller[0] && t->ks) {
			/* BPF trampolines and programs too, those attached
			 * after the symbols were read included. */
			ksyms_frame(t->ks, e->caller, buf, sizeof(buf));
			snprintf(li->caller, sizeof(li->caller), "%s", buf);
		}
		if (e->holder && !li->name[0] && t->learn_name[0]) {
			snprintf(li->name, sizeof(li->name), "%s", t->learn_name);
			snprintf(li->how, sizeof(li->how), "stack via %.50s", t->learn_func);
		}
		break;
	}
	case K_RC:
		rs = rstate_of(t, e->pid);
		rs->phase = R_CONTENDED;
		rs->ts = e->ts;
		rs->root = e->b;
		rs->level = e->c;
		break;
	case K_RL:
		rs = rstate_of(t, e->pid);
		r = rstat_of(t, e->b, e->c);
		r->acquired++;
		if (e->d) {
			r->contended++;
			if (rs->phase == R_CONTENDED)
				hist_record(&r->wait, e->ts - rs->ts);
			else
				r->wait_unpaired++;
		}
		rs->phase = R_LOCKED;
		rs->ts = e->ts;
		rs->root = e->b;
		rs->level = e->c;
		break;
	case K_RU:
		rs = u64map_get(&t->rstates, (uint32_t)e->pid);
		if (!rs || rs->phase != R_LOCKED) {
			t->st.unlock_unpaired++;
			break;
		}
		r = rstat_of(t, rs->root, rs->level);
		hist_record(&r->hold, e->ts - rs->ts);
		rs->phase = R_NONE;
		break;
	case K_FS:
		t->fc.calls++;
		t->fc.forced += !!e->b;
		t->fc.needed += !!e->d;
		if (e->b || e->d)
			t->fc.flushed++;
		else
			t->fc.skipped++;
		break;
	}
}

/*
 * The trigger's stacks go to whichever locks are contended first, which
 * are the hot spinlocks; when they are used up while some contended lock
 * still has no caller, arm the trigger again (a few times at most) with a
 * filter that leaves out the locks already named.
 */
#define MAX_STACK_ROUNDS 4
#define MAX_FILTER_LOCKS 48

static void rearm_stacks(struct lock_tracer *t)
{
	char *trig, *p;
	size_t i = 0, n = 0, unnamed = 0;
	uint64_t key;
	void *v;

	if (t->ids[K_KS] < 0 || t->stack_rounds >= MAX_STACK_ROUNDS ||
	    t->st.stacks < (uint64_t)t->stack_rounds * t->caller_stacks)
		return;
	while (u64map_next(&t->infos, &i, &key, &v)) {
		const struct lock_info *li = v;

		if (!li->caller[0] && u64map_get(&t->lc.entries, key))
			unnamed++;
	}
	if (!unnamed)
		return;
	trig = xmalloc(64 + MAX_FILTER_LOCKS * 40);
	p = trig + sprintf(trig, "stacktrace:%d", t->caller_stacks);
	i = 0;
	while (u64map_next(&t->infos, &i, &key, &v) && n < MAX_FILTER_LOCKS) {
		const struct lock_info *li = v;

		if (li->caller[0])
			p += sprintf(p, "%s lock_addr != 0x%" PRIx64, n++ ? " &&" : " if", key);
	}
	tracefs_event_file_write(t->inst, "lock", "contention_begin", "trigger", "!stacktrace");
	if (tracefs_event_file_write(t->inst, "lock", "contention_begin", "trigger", trig) >= 0)
		t->stack_rounds++;
	else
		t->stack_rounds = MAX_STACK_ROUNDS;	/* the kernel refused: stop trying */
	free(trig);
}

static int cmp_tev(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Reads every CPU's buffer dry, then handles what is older than the drain's
 * start (everything when final). */
static void drain(struct lock_tracer *t, bool final)
{
	uint64_t start = now_mono(), mark;
	size_t i, k = 0;

	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		if (t->fds[cpu] < 0)
			continue;
		for (;;) {
			ssize_t r = read(t->fds[cpu], t->pagebuf, t->page);

			if (r <= 0)
				break;
			decode_page(t);
		}
	}
	qsort(t->batch, t->nbatch, sizeof(*t->batch), cmp_tev);
	mark = final ? UINT64_MAX : start - WATERMARK_NS;
	for (i = 0; i < t->nbatch && t->batch[i].ts <= mark; i++)
		process(t, &t->batch[i]);
	for (; i < t->nbatch; i++)
		t->batch[k++] = t->batch[i];
	t->nbatch = k;
	if (!final)
		rearm_stacks(t);
}

static void *reader(void *arg)
{
	struct lock_tracer *t = arg;

	while (!atomic_load(&t->stop)) {
		struct timespec ts = { 0, (long)t->poll_ms * 1000000L };

		drain(t, false);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static size_t default_buffer_kb(int ncpus)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t avail = pages > 0 && psz > 0 ? (uint64_t)pages * psz : 1ull << 30;
	/* At most 1/64 of free memory over all CPUs, between 1 and 8 MiB each:
	 * 8 MiB holds ~200k records, four seconds of a busy lock at the
	 * 50 ms drain period. */
	uint64_t kb = avail / 64 / (ncpus > 0 ? ncpus : 1) / 1024;

	if (kb > 8192)
		kb = 8192;
	if (kb < 1024)
		kb = 1024;
	return kb;
}

static bool hidden(const char *list, const char *sys, const char *name)
{
	char want[128];
	const char *p = list;
	size_t n;

	if (!list)
		return false;
	n = snprintf(want, sizeof(want), "%s:%s", sys, name);
	while ((p = strstr(p, want))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/*
 * The formats of the traced events and ftrace:kernel_stack only, each
 * parsed from its format file: tracefs_local_events_system() would parse
 * every event of the systems and read /proc/kallsyms, saved_cmdlines and
 * printk_formats too, for printing that the tracer never does (on a
 * loaded 2-CPU machine, most of a second).  An event without a format
 * file is one this kernel lacks.
 */
static int load_formats(struct lock_tracer *t, char *err, size_t errlen)
{
	const char *tdir = tracefs_tracing_dir();

	t->tep = tep_alloc();
	if (!t->tep || !tdir) {
		snprintf(err, errlen, "%s: cannot read the event formats", tdir ? tdir : "tracefs");
		return -1;
	}
	for (size_t i = 0; i <= NEVDEFS; i++) {
		const char *sys = i < NEVDEFS ? evdefs[i].sys : "ftrace";
		const char *name = i < NEVDEFS ? evdefs[i].name : "kernel_stack";
		char path[PATH_MAX];
		size_t len;
		char *text;

		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tdir, sys, name);
		text = read_text(path, &len);
		if (!text)
			continue;
		/* A print format it cannot parse still leaves the fields. */
		tep_parse_event(t->tep, text, len, sys);
		free(text);
	}
	return 0;
}

static int enable_events(struct lock_tracer *t, const char *hide, char *err, size_t errlen)
{
	int traced = 0;

	if (load_formats(t, err, errlen))
		return -1;
	for (int k = 0; k < K_NKINDS; k++)
		t->ids[k] = -1;
	for (size_t i = 0; i < NEVDEFS; i++) {
		const struct evdef *d = &evdefs[i];
		struct tep_event *ev = hidden(hide, d->sys, d->name) ? NULL :
				       tep_find_event_by_name(t->tep, d->sys, d->name);
		bool ok = ev != NULL;

		switch (d->kind) {
		case K_CB:
			ok = ok && !tp_field_lookup(ev, "lock_addr", &t->f_addr_b) &&
			     !tp_field_lookup(ev, "flags", &t->f_flags);
			break;
		case K_CE:
			ok = ok && !tp_field_lookup(ev, "lock_addr", &t->f_addr_e);
			break;
		case K_RC:
		case K_RL:
		case K_RU:
			ok = ok && !tp_field_lookup(ev, "root", &t->f_root) &&
			     !tp_field_lookup(ev, "level", &t->f_level) && !tp_field_lookup(ev, "id", &t->f_id) &&
			     !tp_field_lookup(ev, "contended", &t->f_contended);
			break;
		case K_FS:
			ok = ok && !tp_field_lookup(ev, "id", &t->f_fid) &&
			     !tp_field_lookup(ev, "force", &t->f_force) &&
			     !tp_field_lookup(ev, "needs_flush", &t->f_needs);
			break;
		}
		if (ok && d->kind == K_FS && !t->flush_events) {
			char ferr[256];

			/* One event per memory.stat read: count them in the
			 * kernel when BPF allows, trace them otherwise. */
			t->fcount = flush_count_load(t->f_force.offset, t->f_needs.offset, ferr, sizeof(ferr));
			if (t->fcount) {
				t->fc.available = true;
				snprintf(t->st.flush_counting, sizeof(t->st.flush_counting), "BPF counter");
				traced++;
				continue;
			}
		}
		if (ok && d->kind == K_FS)
			snprintf(t->st.flush_counting, sizeof(t->st.flush_counting), "tracefs events");
		if (ok && tracefs_event_enable(t->inst, d->sys, d->name) == 0) {
			t->ids[d->kind] = ev->id;
			if (d->kind == K_FS)
				t->fc.available = true;
			traced++;
			continue;
		}
		str_appendf(t->missing, sizeof(t->missing), "%s%s:%s (Linux %s+)",
			    t->missing[0] ? ", " : "", d->sys, d->name, d->since);
	}
	if (!traced) {
		snprintf(err, errlen, "none of the lock events exist on this kernel: %s", t->missing);
		return -1;
	}
	if (t->ids[K_CB] >= 0 && t->caller_stacks > 0) {
		struct tep_event *ks = tep_find_event_by_name(t->tep, "ftrace", "kernel_stack");
		struct tep_format_field *frames = ks ? tep_find_field(ks, "caller") : NULL;

		/* The frames are an array: only their offset is needed.  The
		 * trigger itself is armed when the window opens: it counts down
		 * even while tracing is off. */
		if (frames)
			t->f_ks_caller = (struct tp_field){ .offset = frames->offset, .size = 8 };
		if (frames && !tp_field_lookup(ks, "size", &t->f_ks_size))
			t->ids[K_KS] = ks->id;
		else
			str_appendf(t->missing, sizeof(t->missing),
				    "%sthe stacktrace trigger (unnamed locks stay unnamed)",
				    t->missing[0] ? ", " : "");
	}
	return 0;
}

/* The first stacktrace trigger; the reader re-arms it (rearm_stacks). */
static void arm_stacks(struct lock_tracer *t)
{
	char trig[32];

	if (t->ids[K_KS] < 0)
		return;
	snprintf(trig, sizeof(trig), "stacktrace:%d", t->caller_stacks);
	if (tracefs_event_file_write(t->inst, "lock", "contention_begin", "trigger", trig) >= 0) {
		t->stack_rounds = 1;
		return;
	}
	t->ids[K_KS] = -1;
	str_appendf(t->missing, sizeof(t->missing), "%sthe stacktrace trigger (unnamed locks stay unnamed)",
		    t->missing[0] ? ", " : "");
}

static int open_cpus(struct lock_tracer *t, char *err, size_t errlen)
{
	t->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (t->ncpus < 1)
		t->ncpus = 1;
	t->fds = xmalloc(t->ncpus * sizeof(*t->fds));
	for (int i = 0; i < t->ncpus; i++)
		t->fds[i] = -1;
	for (int i = 0; i < t->ncpus; i++) {
		char path[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", t->dir, i);
		t->fds[i] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (t->fds[i] < 0 && errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

struct lock_tracer *lock_tracer_prepare(const struct lock_tracer_opts *o, char *err, size_t errlen)
{
	struct lock_tracer *t;
	char *dir;

	if (lock_tracer_find_tracefs(o, err, errlen))
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->cleanup_handle = -1;
	t->caller_stacks = o->caller_stacks < 0 ? DEFAULT_STACKS : o->caller_stacks;
	t->flush_events = o->flush_events;
	t->poll_ms = o->poll_ms > 0 ? o->poll_ms : 50;
	t->page = sysconf(_SC_PAGESIZE);
	t->pagebuf = xmalloc(t->page);
	lockcon_init(&t->lc, LOCKCON_BY_LOCK, NULL);
	t->lc.keep_acquired = false;
	t->lc.restart_spin = true;
	t->lc.max_hist = 1024;
	u64map_init(&t->infos);
	u64map_init(&t->rstat);
	u64map_init(&t->rstates);
	u64map_init(&t->last_begin);
	setup_names(t, o);

	lab_owner_name(t->name, sizeof(t->name));
	if (tracefs_instance_exists(t->name)) {
		snprintf(err, errlen, "tracefs instance %s exists already (one tracer per process)", t->name);
		goto fail;
	}
	cleanup_hold();	/* no signal between the instance and its undo step */
	t->inst = tracefs_instance_create(t->name);
	if (!t->inst) {
		cleanup_release();
		snprintf(err, errlen, "%s/instances/%s: cannot create: %s", tracefs_tracing_dir(), t->name,
			 strerror(errno));
		goto fail;
	}
	dir = tracefs_instance_get_dir(t->inst);
	snprintf(t->dir, sizeof(t->dir), "%s", dir ? dir : "");
	tracefs_put_tracing_file(dir);
	t->cleanup_handle = cleanup_push(undo_instance, t, "tracefs instance");
	cleanup_name(t->cleanup_handle, t->dir);
	cleanup_release();
	/* The lab's mark on its instance (util/owned.h): tracefs keeps no
	 * extended attributes and makes instances 0750, so the 0700 given
	 * here is what `memcg-lab cleanup` takes for one the lab made. */
	if (chmod(t->dir, LAB_DIR_MODE) < 0) {
		snprintf(err, errlen, "%s: cannot set mode %04o: %s", t->dir, LAB_DIR_MODE, strerror(errno));
		goto fail;
	}
	/* A new instance records from its creation: nothing may reach the
	 * buffer before the window opens (lock_tracer_enable). */
	if (tracefs_trace_off(t->inst) < 0) {
		snprintf(err, errlen, "%s/tracing_on: %s", t->dir, strerror(errno));
		goto fail;
	}

	t->st.buffer_kb = o->buffer_kb ? o->buffer_kb : default_buffer_kb(sysconf(_SC_NPROCESSORS_CONF));
	if (tracefs_instance_set_buffer_size(t->inst, t->st.buffer_kb, -1) < 0) {
		snprintf(err, errlen, "%s/buffer_size_kb: cannot set %zu KiB: %s", t->dir, t->st.buffer_kb,
			 strerror(errno));
		goto fail;
	}
	/* The instance's own options: drop new records when full (so losses
	 * are counted as drops), and the monotonic clock. */
	tracefs_option_disable(t->inst, TRACEFS_OPTION_OVERWRITE);
	if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "%s/trace_clock: the 'mono' clock is not available", t->dir);
		goto fail;
	}
	t->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!t->kbuf || enable_events(t, o->hide_events, err, errlen) || open_cpus(t, err, errlen))
		goto fail;
	return t;
fail:
	lock_tracer_free(t);
	return NULL;
}

int lock_tracer_enable(struct lock_tracer *t, char *err, size_t errlen)
{
	if (t->running || t->enabled)
		return 0;
	if (t->fcount && flush_count_attach(t->fcount, err, errlen))
		return -1;
	arm_stacks(t);
	t->st.on_ns = now_mono();
	if (tracefs_trace_on(t->inst) < 0) {
		snprintf(err, errlen, "%s/tracing_on: %s", t->dir, strerror(errno));
		flush_count_detach(t->fcount);
		return -1;
	}
	t->enabled = true;
	if (pthread_create(&t->thread, NULL, reader, t)) {
		snprintf(err, errlen, "cannot start the tracer thread");
		tracefs_trace_off(t->inst);
		flush_count_detach(t->fcount);
		t->enabled = false;
		return -1;
	}
	t->running = true;
	return 0;
}

struct lock_tracer *lock_tracer_start(const struct lock_tracer_opts *o, char *err, size_t errlen)
{
	struct lock_tracer *t = lock_tracer_prepare(o, err, errlen);

	if (t && lock_tracer_enable(t, err, errlen)) {
		lock_tracer_free(t);
		return NULL;
	}
	return t;
}

static void read_cpu_stats(struct lock_tracer *t)
{
	for (int i = 0; i < t->ncpus; i++) {
		char path[PATH_MAX + 64], buf[1024];
		const char *keys[] = { "overrun:", "commit overrun:", "dropped events:" };

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", t->dir, i);
		if (read_buf(path, buf, sizeof(buf)) <= 0)
			continue;
		for (size_t k = 0; k < 3; k++) {
			char *p = strstr(buf, keys[k]);

			/* "overrun:" also matches inside "commit overrun:". */
			if (k == 0)
				while (p && p > buf && p[-1] != '\n')
					p = strstr(p + 1, keys[k]);
			if (p)
				t->st.lost += strtoull(p + strlen(keys[k]), NULL, 10);
		}
	}
}

int lock_tracer_stop(struct lock_tracer *t, char *err, size_t errlen)
{
	if (t->stopped)
		return 0;
	t->stopped = true;
	if (t->running) {
		/* The window closes for both counters at once; draining and the
		 * totals come after. */
		tracefs_trace_off(t->inst);
		if (t->fcount)
			flush_count_detach(t->fcount);
		t->st.off_ns = now_mono();
		atomic_store(&t->stop, true);
		pthread_join(t->thread, NULL);
		t->running = false;
		drain(t, true);
		read_cpu_stats(t);
	}
	if (t->fcount && t->st.off_ns) {
		uint64_t n[4];

		flush_count_stop(t->fcount, n);
		/* n[force << 1 | needs_flush] */
		t->fc.calls = n[0] + n[1] + n[2] + n[3];
		t->fc.forced = n[2] + n[3];
		t->fc.needed = n[1] + n[3];
		t->fc.flushed = n[1] + n[2] + n[3];
		t->fc.skipped = n[0];
	}
	t->st.ncpus = t->ncpus;
	for (int i = 0; i < t->ncpus; i++)
		if (t->fds[i] >= 0) {
			close(t->fds[i]);
			t->fds[i] = -1;
		}
	if (tracefs_instance_destroy(t->inst) < 0) {
		snprintf(err, errlen, "%s: cannot remove: %s", t->dir, strerror(errno));
		return -1;
	}
	cleanup_pop(t->cleanup_handle, false);
	t->cleanup_handle = -1;
	return 0;
}

void lock_tracer_free(struct lock_tracer *t)
{
	size_t i = 0;
	void *v;

	if (!t)
		return;
	if (t->running) {
		char err[256];

		lock_tracer_stop(t, err, sizeof(err));
	}
	if (t->cleanup_handle >= 0) {
		cleanup_pop(t->cleanup_handle, true);
		t->cleanup_handle = -1;
	}
	flush_count_free(t->fcount);
	if (t->inst)
		tracefs_instance_free(t->inst);
	if (t->kbuf)
		kbuffer_free(t->kbuf);
	if (t->tep)
		tep_free(t->tep);
	while (u64map_next(&t->infos, &i, NULL, &v))
		free(v);
	i = 0;
	while (u64map_next(&t->rstat, &i, NULL, &v))
		free(v);
	i = 0;
	while (u64map_next(&t->rstates, &i, NULL, &v))
		free(v);
	u64map_free(&t->infos);
	u64map_free(&t->rstat);
	u64map_free(&t->rstates);
	u64map_free(&t->last_begin);
	lockcon_free(&t->lc);
	if (t->ks == &t->own_ks)
		ksyms_free(&t->own_ks);
	free(t->fds);
	free(t->batch);
	free(t->pagebuf);
	free(t);
}

const char *lock_tracer_instance(const struct lock_tracer *t)
{
	return t->name;
}

const char *lock_tracer_missing(const struct lock_tracer *t)
{
	return t->missing;
}

const struct lockcon *lock_tracer_waits(const struct lock_tracer *t)
{
	return &t->lc;
}

const struct lock_info *lock_tracer_info(const struct lock_tracer *t, uint64_t addr)
{
	return u64map_get(&t->infos, addr);
}

static int cmp_rstat(const void *a, const void *b)
{
	const struct rstat_stat *x = a, *y = b;

	if (x->root != y->root)
		return x->root - y->root;
	return x->level - y->level;
}

struct rstat_stat *lock_tracer_rstat(const struct lock_tracer *t, size_t *count)
{
	struct rstat_stat *arr = xmalloc((t->rstat.n + 1) * sizeof(*arr));
	size_t i = 0, n = 0;
	void *v;

	while (u64map_next(&t->rstat, &i, NULL, &v))
		arr[n++] = *(struct rstat_stat *)v;
	qsort(arr, n, sizeof(*arr), cmp_rstat);
	*count = n;
	return arr;
}

const struct flush_counts *lock_tracer_flushes(const struct lock_tracer *t)
{
	return &t->fc;
}

const struct lock_tracer_stats *lock_tracer_stats(const struct lock_tracer *t)
{
	return &t->st;
}

bool lock_tracer_has_rstat(const struct lock_tracer *t)
{
	return t->ids[K_RL] >= 0 && t->ids[K_RU] >= 0;
}

int lock_tracer_memory_root(const struct lock_tracer *t)
{
	for (int r = 0; r < 16; r++) {
		const char *p = t->roots[r];
		size_t len = strlen("memory");

		while ((p = strstr(p, "memory"))) {
			if ((p == t->roots[r] || p[-1] == ',') && (p[len] == ',' || !p[len]))
				return r;
			p += len;
		}
	}
	return -1;
}
