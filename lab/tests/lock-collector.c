// SPDX-License-Identifier: GPL-2.0
/*
 * The lock collector as an experiment runner uses it, around a real
 * workload in a lab-created cgroup tree (mkdir/rmdir churn, memory.stat
 * readers timing their own read()s, charging in a child): flush counts
 * exposed, the hold of the rstat flush lock measured and named, the
 * readers' latency kept as the upper bound.  Alongside, the BPF hold path
 * on the rstat tracepoints must see at least the holds the tracer saw; the
 * kprobe path runs where the kernel has kprobes and the user-flush mutex,
 * and must refuse cleanly elsewhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lock/lock_bpf.h"
#include "lock/lock_collector.h"
#include "kernel/tracefs_dir.h"
#include "tests/tap.h"
#include "util/cleanup.h"
#include "util/fileio.h"
#include "util/owner.h"

static char tree[512];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void remove_tree(void *arg)
{
	char p[600];

	(void)arg;
	snprintf(p, sizeof(p), "%s/charge", tree);
	rmdir(p);
	for (int i = 0; i < 64; i++) {
		snprintf(p, sizeof(p), "%s/c%d", tree, i);
		rmdir(p);
	}
	rmdir(tree);
}

static bool find_memory_root(char *buf, size_t n, bool *v2)
{
	char *m = read_text("/proc/self/mounts", NULL), *line, *save = NULL;
	bool found = false;

	for (line = m ? strtok_r(m, "\n", &save) : NULL; line && !found; line = strtok_r(NULL, "\n", &save)) {
		char dev[64], dir[256], type[32], opts[512];

		if (sscanf(line, "%63s %255s %31s %511s", dev, dir, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup") && (strstr(opts, ",memory") || !strncmp(opts, "memory", 6))) {
			snprintf(buf, n, "%s", dir);
			*v2 = false;
			found = true;
		}
	}
	free(m);
	if (!found) {
		char *c = read_text("/sys/fs/cgroup/cgroup.controllers", NULL);

		if (c && strstr(c, "memory")) {
			snprintf(buf, n, "/sys/fs/cgroup");
			*v2 = true;
			found = true;
		}
		free(c);
	}
	return found;
}

/* The children: readers time their read() of memory.stat into a shared
 * histogram each (the stat-read driver will do this for real). */
static void reader(struct hist *h, int loops)
{
	char path[600], buf[16384];

	snprintf(path, sizeof(path), "%s/memory.stat", tree);
	for (int i = 0; i < loops; i++) {
		int fd = open(path, O_RDONLY);
		uint64_t t0 = now_ns();

		if (fd < 0)
			_exit(1);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		hist_record(h, now_ns() - t0);
		close(fd);
	}
	_exit(0);
}

static void churner(int loops)
{
	char p[600];

	for (int i = 0; i < loops; i++) {
		snprintf(p, sizeof(p), "%s/c%d", tree, i % 64);
		mkdir(p, 0755);
		rmdir(p);
	}
	_exit(0);
}

static void charger(int loops)
{
	char p[600], file[64];
	static char page[1 << 20];

	snprintf(p, sizeof(p), "%s/charge/cgroup.procs", tree);
	if (write_ll(p, getpid()))
		_exit(1);
	snprintf(file, sizeof(file), "/dev/shm/lock-collector-%d", getpid());
	for (int i = 0; i < loops; i++) {
		int fd = open(file, O_CREAT | O_TRUNC | O_WRONLY, 0600);

		for (int k = 0; k < 8 && fd >= 0; k++)
			if (write(fd, page, sizeof(page)) < 0)
				break;
		if (fd >= 0)
			close(fd);
		unlink(file);
	}
	_exit(0);
}

static void run_workload(struct hist *shared)
{
	pid_t pids[6];
	int n = 0;

	if ((pids[n] = fork()) == 0)
		churner(200);
	n++;
	if ((pids[n] = fork()) == 0)
		charger(40);
	n++;
	for (int i = 0; i < 3; i++, n++)
		if ((pids[n] = fork()) == 0)
			reader(&shared[i], 400);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
}

/* The instance file holds want (first line). */
static bool instance_file_is(const char *dir, const char *file, const char *want)
{
	char p[700], buf[64];
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	n = read_buf(p, buf, sizeof(buf));
	if (n <= 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, want);
}

/* A stacktrace trigger on lock:contention_begin (the file lists the
 * available triggers in '#' lines). */
static bool stack_trigger_armed(const char *dir)
{
	char p[700], *text, *line, *save = NULL;
	bool armed = false;

	snprintf(p, sizeof(p), "%s/events/lock/contention_begin/trigger", dir);
	text = read_text(p, NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#' && strstr(line, "stacktrace"))
			armed = true;
	free(text);
	return armed;
}

int main(void)
{
	struct lock_collector_opts o = { .caller_stacks = -1 };
	const struct lock_hold_result *h;
	const struct flush_counts *fc;
	struct lock_collector *c;
	struct lock_bpf_opts bo = { .mode = LOCK_BPF_RSTAT_TP };
	struct lock_bpf *b;
	struct hist *shared, reads;
	char root[256], p[600], err[1024];
	struct lock_env env;
	bool v2;

	if (getuid())
		tap_skip_all("needs root (tracefs instance, cgroups, BPF)");
	cleanup_init();
	/* Where tracefs is, mounted for this test as a run would (and
	 * unmounted at its end) on a machine that has it unmounted. */
	if (lab_tracefs_find(p, sizeof(p), err, sizeof(err)))
		tap_skip_all(err);
	snprintf(root, sizeof(root), "%.200s/events/cgroup/cgroup_rstat_locked", p);
	if (!path_exists(root))
		tap_skip_all("no cgroup_rstat_* tracepoints on this kernel (6.10+)");
	if (!find_memory_root(root, sizeof(root), &v2))
		tap_skip_all("no memory cgroup controller mounted");
	lab_owner_name(p, sizeof(p));
	snprintf(tree, sizeof(tree), "%.200s/%.200s", root, p);
	if (mkdir(tree, 0755))
		tap_skip_all("cannot create the test's cgroup tree");
	cleanup_push(remove_tree, NULL, "test cgroup tree");
	if (v2) {
		snprintf(p, sizeof(p), "%s/cgroup.subtree_control", tree);
		write_text(p, "+memory");
	}
	snprintf(p, sizeof(p), "%s/charge", tree);
	mkdir(p, 0755);
	shared = mmap(NULL, 3 * sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < 3; i++)
		hist_init(&shared[i]);

	/* BPF first and last, so its window covers the tracer's. */
	b = lock_bpf_start(&bo, err, sizeof(err));
	ok(b != NULL, "BPF hold programs on the rstat tracepoints load and attach");
	if (!b)
		tap_diag("%s", err);
	c = lock_collector_start(&o, err, sizeof(err));
	if (!ok(c != NULL, "the collector starts")) {
		tap_diag("%s", err);
		return tap_done();
	}
	run_workload(shared);
	hist_init(&reads);
	for (int i = 0; i < 3; i++)
		hist_merge(&reads, &shared[i]);
	lock_collector_read_latency(c, &reads);
	ok(lock_collector_stop(c, err, sizeof(err)) == 0, "the collector stops");
	if (b)
		lock_bpf_stop(b);

	fc = lock_collector_flushes(c);
	ok(fc->available && fc->calls >= 1200 && fc->flushed + fc->skipped == fc->calls,
	   "flush counts for the stat-read driver, one call per read at least: %llu calls, %llu flushed "
	   "(%llu forced, %llu needed), %llu skipped",
	   (unsigned long long)fc->calls, (unsigned long long)fc->flushed, (unsigned long long)fc->forced,
	   (unsigned long long)fc->needed, (unsigned long long)fc->skipped);
	h = lock_collector_hold(c);
	ok(h->plan.method == HOLD_RSTAT_TP || h->plan.method == HOLD_BPF_KPROBE ||
	   h->plan.method == HOLD_BPF_FENTRY, "a hold method that gives histograms: %s",
	   hold_method_name(h->plan.method));
	ok(h->measured && h->hold.count > 0 && h->lock_name[0], "holds measured: %llu of %s, p99 %llu ns",
	   (unsigned long long)h->hold.count, h->lock_name,
	   (unsigned long long)hist_quantile(&h->hold, 0.99));
	ok(h->have_read_bound && h->read_latency.count == 1200, "the readers' 1200 read() latencies are kept as the bound");
	{
		const struct lock_tracer_stats *st = lock_tracer_stats(lock_collector_tracer(c));

		is_int(st->lost + st->lost_pages, 0, "the tracer lost no events");
		size_t nw;
		struct lockcon_entry **w = lockcon_sorted(lock_tracer_waits(lock_collector_tracer(c)), false, &nw);

		ok(nw > 0 && w[0]->wait_total > 0, "contention waits collected: %zu locks waited for", nw);
		free(w);
	}
	if (b) {
		const struct lock_bpf_results *r = lock_bpf_results(b);
		struct rstat_stat *s;
		uint64_t traced = 0;
		size_t n;

		s = lock_tracer_rstat(lock_collector_tracer(c), &n);
		for (size_t i = 0; i < n; i++)
			traced += s[i].hold.count;
		free(s);
		ok(r->rstat_hold.count > 0 && r->rstat_hold.count >= traced && !r->lost,
		   "BPF saw %llu rstat holds, at least the tracer's %llu, none lost",
		   (unsigned long long)r->rstat_hold.count, (unsigned long long)traced);
		lock_bpf_free(b);
	} else {
		tap_skip("BPF rstat holds against the tracer's", "BPF did not attach");
	}
	lock_collector_free(c);

	/* The same counts through tracefs events, the fallback without BPF. */
	o.flush_events = true;
	c = lock_collector_start(&o, err, sizeof(err));
	if (ok(c != NULL, "the collector starts with flush counting from tracefs events")) {
		for (int i = 0; i < 3; i++)
			hist_init(&shared[i]);
		run_workload(shared);
		lock_collector_stop(c, err, sizeof(err));
		fc = lock_collector_flushes(c);
		ok(fc->available && fc->calls >= 1200 && fc->flushed + fc->skipped == fc->calls &&
		   !strcmp(lock_tracer_stats(lock_collector_tracer(c))->flush_counting, "tracefs events"),
		   "tracefs events count every read too: %llu calls for our 1200 reads",
		   (unsigned long long)fc->calls);
		lock_collector_free(c);
	}
	o.flush_events = false;

	/* A kernel without some events: the rest is traced, the absent ones
	 * are named, the hold falls back to what is left. */
	o.hide_events = "memcg:memcg_flush_stats,cgroup:cgroup_rstat_locked";
	c = lock_collector_start(&o, err, sizeof(err));
	if (ok(c != NULL, "the collector starts with two events absent")) {
		const char *miss = lock_tracer_missing(lock_collector_tracer(c));

		ok(strstr(miss, "memcg:memcg_flush_stats (Linux 6.13+)") &&
		   strstr(miss, "cgroup:cgroup_rstat_locked (Linux 6.10+)") && !strstr(miss, "contention_begin"),
		   "the absent events are named with the release that added them (%s)", miss);
		run_workload(shared);
		lock_collector_stop(c, err, sizeof(err));
		ok(!lock_collector_flushes(c)->available && !lock_tracer_has_rstat(lock_collector_tracer(c)),
		   "no flush counts and no rstat holds are claimed");
		{
			size_t nw;
			struct lockcon_entry **w = lockcon_sorted(lock_tracer_waits(lock_collector_tracer(c)),
								  false, &nw);

			ok(nw > 0, "lock waits are still traced");
			free(w);
		}
		ok(strstr(lock_collector_notes(c), "not traced on this kernel") != NULL,
		   "the notes say what was not traced");
		ok(lock_collector_hold(c)->plan.method != HOLD_RSTAT_TP &&
		   strstr(lock_collector_hold(c)->plan.reason, "before 6.10"),
		   "the hold method says why the rstat pair is not used (%s)", lock_collector_hold(c)->plan.reason);
		lock_collector_free(c);
	}
	o.hide_events = NULL;

	/* Prepared, the collector records nothing (tracing off in its
	 * instance, no stack trigger armed: it would count down meanwhile);
	 * enable opens the window in a few writes, and the window is
	 * recorded.  This is what lets a driver prepare before its warm-up and
	 * trace its measured phase from the first moment. */
	c = lock_collector_prepare(&o, err, sizeof(err));
	if (ok(c != NULL, "the collector prepares")) {
		const struct lock_tracer *t = lock_collector_tracer(c);
		const struct lock_tracer_stats *st = lock_tracer_stats(t);
		char dir[600];
		uint64_t t0, t1;

		snprintf(dir, sizeof(dir), "/sys/kernel/tracing/instances/%s", lock_tracer_instance(t));
		ok(instance_file_is(dir, "tracing_on", "0") && !stack_trigger_armed(dir),
		   "prepared: tracing is off in %s and no stack trigger is armed", dir);
		t0 = now_ns();
		ok(lock_collector_enable(c, err, sizeof(err)) == 0, "enable opens the window");
		t1 = now_ns();
		ok(t1 - t0 < 200000000ull, "enable is cheap: %.1f ms (the set-up was done in prepare)",
		   (t1 - t0) / 1e6);
		ok(instance_file_is(dir, "tracing_on", "1") && stack_trigger_armed(dir),
		   "enabled: tracing on and the stack trigger armed");
		lock_collector_stop(c, err, sizeof(err));
		ok(st->on_ns >= t0 && st->on_ns <= t1 && st->off_ns > st->on_ns,
		   "the window is recorded (opened %.1f ms into enable, %.1f ms long)",
		   (st->on_ns - t0) / 1e6, (st->off_ns - st->on_ns) / 1e6);
		lock_collector_free(c);
	}
	c = lock_collector_prepare(&o, err, sizeof(err));
	if (ok(c != NULL, "a second collector prepares")) {
		char dir[600];

		snprintf(dir, sizeof(dir), "/sys/kernel/tracing/instances/%s",
			 lock_tracer_instance(lock_collector_tracer(c)));
		ok(lock_collector_stop(c, err, sizeof(err)) == 0 && !path_exists(dir) &&
		   !lock_collector_flushes(c)->calls, "stopped without a window: its instance is gone, nothing counted");
		lock_collector_free(c);
	}

	/* A stop while a file of the instance is open in this process (a
	 * libtracefs write between its open and its close, interrupted by the
	 * signal): the undo step, run from the handler, closes it and removes
	 * the instance at once, not after 5 s of EBUSY, with it left. */
	{
		int pfd[2];
		char dir[600] = "";
		uint64_t t0 = now_ns(), t1;
		pid_t pid = -1;
		int st = -1;

		if (pipe(pfd) == 0 && (pid = fork()) == 0) {
			char path[700];
			int fd;

			close(pfd[0]);
			worker_detach_from_parent(getppid());
			cleanup_init();
			c = lock_collector_prepare(&o, err, sizeof(err));
			if (!c)
				_exit(3);
			snprintf(dir, sizeof(dir), "/sys/kernel/tracing/instances/%s",
				 lock_tracer_instance(lock_collector_tracer(c)));
			if (write(pfd[1], dir, strlen(dir) + 1) < 0)
				_exit(4);
			snprintf(path, sizeof(path), "%s/trace", dir);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				_exit(5);
			raise(SIGTERM);
			_exit(6);
		} else if (pid > 0) {
			ssize_t n;

			close(pfd[1]);
			n = read(pfd[0], dir, sizeof(dir) - 1);
			dir[n > 0 ? n : 0] = '\0';
			waitpid(pid, &st, 0);
			close(pfd[0]);
		}
		t1 = now_ns();
		if (!ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM && dir[0] && !path_exists(dir) &&
			t1 - t0 < 3000000000ull,
			"a stop with a file of the instance open: the instance is removed (%s), in %.1f s", dir,
			(t1 - t0) / 1e9) && dir[0])
			rmdir(dir);
	}

	/* The kprobe method: end to end where it can run, a clean refusal
	 * where it cannot. */
	{
		struct ksyms ks;
		bool have_ks = ksyms_load(&ks, NULL, err, sizeof(err)) == 0;

		lock_env_probe(&env, have_ks ? &ks : NULL, NULL);
		if (!env.kprobes) {
			struct lock_bpf_opts ko = { .mode = LOCK_BPF_KPROBE, .holder_func = "mem_cgroup_flush_stats" };

			b = lock_bpf_start(&ko, err, sizeof(err));
			ok(!b && strstr(err, "mutex_lock"), "no kprobes here: the kprobe method refuses in one line (%s)", err);
			lock_bpf_free(b);
			tap_skip("user-flush mutex holds by BPF kprobes", "this kernel has no kprobes");
		} else if (!env.user_flush) {
			tap_skip("user-flush mutex holds by BPF kprobes",
				 "no stats_user_flush_mutex/mem_cgroup_user_flush_stats in this kernel");
		} else {
			c = lock_collector_start(&o, err, sizeof(err));
			if (ok(c != NULL, "the collector starts on the user-flush kernel")) {
				for (int i = 0; i < 3; i++)
					hist_init(&shared[i]);
				run_workload(shared);
				lock_collector_stop(c, err, sizeof(err));
				h = lock_collector_hold(c);
				ok(h->plan.method == HOLD_BPF_KPROBE && h->hold.count > 0,
				   "stats_user_flush_mutex holds by %s: %llu, p99 %llu ns", hold_method_name(h->plan.method),
				   (unsigned long long)h->hold.count, (unsigned long long)hist_quantile(&h->hold, 0.99));
				lock_collector_free(c);
			}
		}
		if (have_ks)
			ksyms_free(&ks);
	}
	return tap_done();
}
