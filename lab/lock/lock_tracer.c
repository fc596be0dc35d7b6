// SPDX-License-Identifier: GPL-2.0
/*
 * The lock tracer's tracefs instance (lock/lock_tracer.h): found or
 * mounted, created with the lab's name and mark, its buffer, clock and
 * events set (the formats of the traced events only), the stacktrace
 * trigger armed and re-armed, the per-CPU buffers read by a thread, its
 * losses read back, the instance removed (an undo step if the run dies),
 * and the results handed out.  What the records mean is
 * lock_tracer_records.c's.
 */
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
#include "lock/lock_tracer_records.h"
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

const char *lock_tracer_rstat_lock_name(const struct lock_tracer *t, int root)
{
	return lock_records_rstat_lock_name(t, root);
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

/* Reads every CPU's buffer dry, then handles what is older than the drain's
 * start (everything when final). */
static void drain(struct lock_tracer *t, bool final)
{
	uint64_t start = now_mono();

	for (int cpu = 0; cpu < t->ncpus; cpu++) {
		if (t->fds[cpu] < 0)
			continue;
		for (;;) {
			ssize_t r = read(t->fds[cpu], t->pagebuf, t->page);

			if (r <= 0)
				break;
			lock_records_decode_page(t);
		}
	}
	lock_records_handle_until(t, final ? UINT64_MAX : start - WATERMARK_NS);
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
	lock_records_init(t, o);

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
	lock_records_free(t);
	free(t->fds);
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
