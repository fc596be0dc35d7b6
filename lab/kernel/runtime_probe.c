// SPDX-License-Identifier: GPL-2.0
/*
 * Charge-batch, stock-slot and obj-stock-slot probes (see kernel/runtime_probe.h).
 *
 * Each charging worker is a forked process pinned to the probed CPU.  Before
 * it enters its cgroup it maps its own 2 MiB-aligned region (no THP), touches
 * the first page (so the page tables exist), and writes its stack and errno
 * (so copy-on-write faults are charged to the old cgroup).  After entering,
 * the only thing it charges is one page per touch it is told to make.  The
 * parent and the workers talk through futexes in a shared page, which
 * charges nothing either.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kernel/runtime_probe.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/futexword.h"

#define REGION (2UL << 20)	/* one PMD: one page table for all touches */
#define MAX_TOUCH 8		/* pages a worker may be told to touch */
#define ACK_TIMEOUT_MS 10000
#define SETTLE_US (300 * 1000)	/* for the RCU callbacks of exited workers */

/* One cache line per worker in a MAP_SHARED page. */
struct rp_ctl {
	int ready;	/* worker: 1 once inside its cgroup, -errno if it failed */
	int cmd;	/* parent (or the previous worker): pages to have touched, -1 to exit */
	int done;	/* worker: pages touched so far */
	int next;	/* worker to hand the CPU to after touching, -1: none */
	int spin_timeout; /* worker: it stopped holding the CPU before it was released */
} __attribute__((aligned(64)));

struct rp_shared {
	struct rp_ctl ctl[RP_MAX_K];
	/*
	 * While hold is set, a worker that has touched its pages and hands the
	 * CPU to nobody spins (SCHED_FIFO) instead of sleeping: no other task
	 * runs on the probed CPU, so nothing evicts our memcgs from its stock
	 * or drains it (drain work is a kworker) while the parent reads.
	 */
	int hold __attribute__((aligned(64)));
	int obj;	/* a touch is an open()+close() of /dev/null (obj stock) */
};

struct rp_worker_arg {
	const struct cg_env *env;
	const char *cg;
	struct rp_shared *sh;
	int idx;
	long page;
	bool realtime;
};

struct rp_worker {
	pid_t pid;
	char *cg;
	int usage_fd;
	long long usage0;
};

#define RT_PRIO 10
#define SPIN_LIMIT_NS (200 * 1000000LL)

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* vDSO: no syscall, no allocation */
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int set_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? RT_PRIO : 0 };

	return sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp) < 0 ? -errno : 0;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static void __attribute__((noinline)) prefault_stack(void)
{
	volatile char pad[64 << 10];

	for (size_t i = 0; i < sizeof(pad); i += 512)
		pad[i] = 0;
}

static int rp_worker_main(void *p)
{
	struct rp_worker_arg *a = p;
	struct rp_ctl *c = &a->sh->ctl[a->idx];
	char *map, *region;
	int touched = 0, e, dev;

	map = mmap(NULL, 2 * REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		futex_word_store_wake(&c->ready, -errno);
		return EXIT_LAB_ERR;
	}
	region = (char *)(((uintptr_t)map + REGION - 1) & ~(REGION - 1));
	madvise(region, REGION, MADV_NOHUGEPAGE);
	region[0] = 1;
	/* Opened before entering: only the struct files of the touches charge there. */
	dev = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dev < 0 && a->sh->obj) {
		futex_word_store_wake(&c->ready, -errno);
		return EXIT_LAB_ERR;
	}
	if (a->realtime)
		set_fifo(true);
	now_ns();
	prefault_stack();
	errno = 0;
	e = cg_enter(a->env, a->cg, 0);
	if (e) {
		futex_word_store_wake(&c->ready, e);
		return EXIT_LAB_ERR;
	}
	futex_word_store_wake(&c->ready, 1);
	for (;;) {
		int cmd = futex_word_load(&c->cmd);

		if (cmd < 0)
			return 0;
		if (cmd > touched) {
			for (int i = touched + 1; i <= cmd && i < MAX_TOUCH; i++) {
				int fd;

				if (!a->sh->obj) {
					((volatile char *)region)[i * a->page] = 1;
					continue;
				}
				fd = openat(dev, "null", O_RDONLY | O_CLOEXEC);
				if (fd >= 0)
					close(fd);
			}
			touched = cmd;
			futex_word_store_wake(&c->done, touched);
			/* The next worker is queued behind us on this CPU. */
			if (c->next >= 0)
				futex_word_store_wake(&a->sh->ctl[c->next].cmd, 1);
			continue;
		}
		if (touched && c->next < 0 && futex_word_load(&a->sh->hold)) {
			long long end = now_ns() + SPIN_LIMIT_NS;

			while (futex_word_load(&a->sh->hold) && futex_word_load(&c->cmd) == cmd && now_ns() < end)
				cpu_relax();
			if (futex_word_load(&a->sh->hold) && futex_word_load(&c->cmd) == cmd)
				futex_word_store_wake(&c->spin_timeout, 1);
			else
				continue;
		}
		futex_word(&c->cmd, FUTEX_WAIT, cmd, NULL);
	}
}

/* Waits until *word != unset; 0, or -1 with a reason when the worker died. */
static int wait_ack(int *word, int unset, pid_t pid, const char *cg, char *err, size_t errlen)
{
	struct timespec ts = { 0, 100 * 1000000L };

	for (int waited = 0; waited < ACK_TIMEOUT_MS; waited += 100) {
		int st;

		if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != unset)
			return 0;
		futex_word(word, FUTEX_WAIT, unset, &ts);
		if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != unset)
			return 0;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			snprintf(err, errlen, "probe worker %d for cgroup %s died (%s %d)", (int)pid, cg,
				 WIFSIGNALED(st) ? "signal" : "exit status",
				 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			return -1;
		}
	}
	snprintf(err, errlen, "probe worker %d for cgroup %s did not answer in %d s", (int)pid, cg,
		 ACK_TIMEOUT_MS / 1000);
	return -1;
}

struct probe_ctx {
	const struct cg_env *env;
	struct cg_tree tree;
	struct rp_shared *sh;
	struct rp_worker w[RP_MAX_K];
	int nw;
	int cpu;
	long page;
	bool realtime;	/* workers (and the parent) run SCHED_FIFO */
	bool can_hold;	/* realtime, and the parent has a CPU of its own */
	int disturbed;	/* rounds retried because a worker stopped holding */
	char no_obj[160];	/* why the obj stock's slots cannot be read here, or "" */
};

static int read_usage(const struct probe_ctx *p, struct rp_worker *w, long long *out, char *err, size_t errlen)
{
	int e = p->sh->obj ? runtime_read_kmem(p->env, w->usage_fd, out) : cg_read_fd_ll(w->usage_fd, out);

	if (e) {
		snprintf(err, errlen, "cannot read the usage of cgroup %s: %s%s", w->cg, strerror(-e),
			 e == -ENODEV || e == -ENOENT ? " (removed under our feet?)" : "");
		return -1;
	}
	return 0;
}


/* Ends every worker of the round and removes its cgroups. */
static void round_end(struct probe_ctx *p)
{
	__atomic_store_n(&p->sh->hold, 0, __ATOMIC_SEQ_CST);
	for (int i = 0; i < p->nw; i++)
		if (p->w[i].pid > 0)
			futex_word_store_wake(&p->sh->ctl[i].cmd, -1);
	for (int i = 0; i < p->nw; i++) {
		struct rp_worker *w = &p->w[i];

		if (w->pid > 0) {
			int st;

			/* A worker that does not leave in time is killed. */
			for (int t = 0; t < 200 && waitpid(w->pid, &st, WNOHANG) == 0; t++)
				usleep(5000);
			if (kill(w->pid, 0) == 0) {
				kill(w->pid, SIGKILL);
				waitpid(w->pid, &st, 0);
			}
		}
		if (w->usage_fd >= 0)
			close(w->usage_fd);
		if (w->cg) {
			int e = cg_destroy(w->cg);

			if (e)
				warnx_lab("could not remove probe cgroup %s: %s", w->cg, strerror(-e));
			free(w->cg);
		}
	}
	p->nw = 0;
}

/* Creates n fresh cgroups with a parked worker pinned to p->cpu in each. */
static int round_start(struct probe_ctx *p, const char *what, int round, int n, bool obj, char *err, size_t errlen)
{
	memset(p->sh, 0, sizeof(*p->sh));
	p->sh->obj = obj;
	p->nw = 0;
	for (int i = 0; i < n; i++) {
		struct rp_worker *w = &p->w[p->nw++];
		struct rp_worker_arg arg = { p->env, NULL, p->sh, i, p->page, p->realtime };
		char name[64];
		int e;

		memset(w, 0, sizeof(*w));
		w->usage_fd = -1;
		p->sh->ctl[i].next = -1;
		snprintf(name, sizeof(name), "probe-%s-r%d-%d", what, round, i);
		w->cg = cg_name(p->tree.root, name);
		e = cg_create(p->env, w->cg);
		if (e) {
			snprintf(err, errlen, "cannot create cgroup %s: %s", w->cg, strerror(-e));
			free(w->cg);
			w->cg = NULL;
			return -1;
		}
		e = w->usage_fd = cg_open_file(w->cg, p->sh->obj ? runtime_kmem_file(p->env) : cg_file_usage(p->env));
		if (e < 0) {
			snprintf(err, errlen, "cannot open %s/%s: %s", w->cg,
				 p->sh->obj ? runtime_kmem_file(p->env) : cg_file_usage(p->env), strerror(-e));
			return -1;
		}
		/* The first read allocates the file's buffer; later ones reuse it. */
		if (read_usage(p, w, &w->usage0, err, errlen))
			return -1;
		arg.cg = w->cg;
		w->pid = cg_spawn(p->env, NULL, p->cpu, rp_worker_main, &arg);
		if (w->pid < 0) {
			snprintf(err, errlen, "cannot fork a probe worker: %s", strerror(-w->pid));
			return -1;
		}
	}
	for (int i = 0; i < n; i++) {
		int r;

		if (wait_ack(&p->sh->ctl[i].ready, 0, p->w[i].pid, p->w[i].cg, err, errlen))
			return -1;
		r = p->sh->ctl[i].ready;
		if (r < 0) {
			snprintf(err, errlen, "probe worker could not enter cgroup %s: %s", p->w[i].cg, strerror(-r));
			return -1;
		}
	}
	/* Parked: read what entering the cgroup charged (nothing, normally). */
	for (int i = 0; i < n; i++)
		if (read_usage(p, &p->w[i], &p->w[i].usage0, err, errlen))
			return -1;
	return 0;
}

/* Tells worker first to touch up to pages; waits until worker last has. */
static int command(struct probe_ctx *p, int first, int last, int pages, char *err, size_t errlen)
{
	struct rp_ctl *c = &p->sh->ctl[last];

	futex_word_store_wake(&p->sh->ctl[first].cmd, pages);
	for (int seen; (seen = futex_word_load(&c->done)) < pages;)
		if (wait_ack(&c->done, seen, p->w[last].pid, p->w[last].cg, err, errlen))
			return -1;
	return 0;
}

/* One fresh memcg, one page: the usage jump is the charge batch.  Returns
 * 1 when the worker stopped holding its CPU (the round is retried). */
static int batch_round(struct probe_ctx *p, int round, struct runtime_probe_result *out,
		       char *err, size_t errlen)
{
	struct rp_worker *w = &p->w[0];
	long long u1, u3;
	int ret = -1;

	if (round_start(p, "batch", round, 1, false, err, errlen))
		goto out;
	__atomic_store_n(&p->sh->hold, p->can_hold, __ATOMIC_SEQ_CST);
	if (command(p, 0, 0, 1, err, errlen) || read_usage(p, w, &u1, err, errlen))
		goto out;
	/* Pages 2 and 3 must come from the stock the first one filled. */
	if (command(p, 0, 0, 3, err, errlen) || read_usage(p, w, &u3, err, errlen))
		goto out;
	if (futex_word_load(&p->sh->ctl[0].spin_timeout)) {
		ret = 1;
		goto out;
	}
	/* The first page filled the stock, yet pages 2 and 3 were charged
	 * again: the stock was drained in between (a drain_all_stock() from
	 * elsewhere, or a vCPU held off under TCG).  Not a reading of the
	 * batch: the round is retried.  A first page that charged itself
	 * alone (a hierarchy near its limit) stays a reading. */
	if (u1 - w->usage0 > p->page && u3 != u1) {
		ret = 1;
		goto out;
	}
	out->batch_first_usage[round] = (int)(w->usage0 / p->page);
	out->charge_batch.samples[round] = (int)((u1 - w->usage0) / p->page);
	if (u3 == u1)
		out->batch_stable_rounds++;
	ret = 0;
out:
	round_end(p);
	return ret;
}

/*
 * k fresh memcgs charge one page each, in turn, on one CPU (each worker
 * hands the CPU to the next); afterwards the ones still cached in that CPU's
 * stock hold a precharge.  Returns 1 when the last worker stopped holding.
 */
static int slots_round(struct probe_ctx *p, int round, int k, int batch, int *holders,
		       char *err, size_t errlen)
{
	long long usage[RP_MAX_K], charged[RP_MAX_K];
	bool holding[RP_MAX_K];
	int ret = -1;

	if (round_start(p, "slots", round, k, false, err, errlen))
		goto out;
	for (int i = 0; i + 1 < k; i++)
		p->sh->ctl[i].next = i + 1;
	__atomic_store_n(&p->sh->hold, p->can_hold, __ATOMIC_SEQ_CST);
	if (command(p, 0, k - 1, 1, err, errlen))
		goto out;
	/* Every worker has charged; the last one holds the CPU while we read. */
	for (int i = 0; i < k; i++) {
		if (read_usage(p, &p->w[i], &usage[i], err, errlen))
			goto out;
		charged[i] = p->w[i].usage0 + p->page;
	}
	if (futex_word_load(&p->sh->ctl[k - 1].spin_timeout)) {
		ret = 1;
		goto out;
	}
	*holders = runtime_count_precharged(usage, charged, k,
					    runtime_precharge_threshold(batch, p->page), holding);
	/* The last memcg to charge is the one its refill just cached: only a
	 * drain of the whole stock takes its precharge away.  Where the
	 * batch round saw a stock at all, that is a disturbed round. */
	if (batch > 1 && !holding[k - 1]) {
		ret = 1;
		goto out;
	}
	ret = 0;
out:
	round_end(p);
	return ret;
}

/*
 * k fresh memcgs allocate and free one struct file each, in turn, on one
 * CPU; afterwards the ones the obj stock still holds keep a page of kmem.
 * Returns 1 when the round was disturbed (the last worker stopped holding,
 * or on v2 the flush never showed the last memcg's page).
 */
static int objslots_round(struct probe_ctx *p, int round, int k, int *holders, char *err, size_t errlen)
{
	long long usage[RP_MAX_K], charged[RP_MAX_K];
	int ret = -1;

	/* The last round's workers exited just now; their tasks' and files' RCU-deferred
	 * frees refill this CPU's obj stock with their objcgs.  Let those land first. */
	usleep(SETTLE_US);
	if (round_start(p, "objslots", round, k, true, err, errlen))
		goto out;
	for (int i = 0; i + 1 < k; i++)
		p->sh->ctl[i].next = i + 1;
	/* v2 waits seconds for the flush: the last worker cannot hold that long. */
	__atomic_store_n(&p->sh->hold, p->can_hold && !p->env->memory_v2, __ATOMIC_SEQ_CST);
	if (command(p, 0, k - 1, 1, err, errlen))
		goto out;
	if (!runtime_wait_kmem(p->env, p->w[k - 1].usage_fd, p->w[k - 1].usage0, p->page)) {
		ret = 1;
		goto out;
	}
	for (int i = 0; i < k; i++) {
		if (read_usage(p, &p->w[i], &usage[i], err, errlen))
			goto out;
		charged[i] = p->w[i].usage0;	/* the file was freed again */
	}
	if (futex_word_load(&p->sh->ctl[k - 1].spin_timeout)) {
		ret = 1;
		goto out;
	}
	*holders = runtime_count_precharged(usage, charged, k, p->page / 2, NULL);
	ret = 0;
out:
	round_end(p);
	return ret;
}

const char *runtime_kmem_file(const struct cg_env *env)
{
	return env->memory_v2 ? "memory.stat" : "memory.kmem.usage_in_bytes";
}

int runtime_read_kmem(const struct cg_env *env, int fd, long long *out)
{
	static const char key[] = "kernel ";
	char buf[16384], *p;
	ssize_t n;

	if (!env->memory_v2)
		return cg_read_fd_ll(fd, out);
	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, sizeof(key) - 1)) {
			char *end;

			errno = 0;
			*out = strtoll(p + sizeof(key) - 1, &end, 10);
			return end == p + sizeof(key) - 1 || errno ? -EINVAL : 0;
		}
	return -ENOENT;
}

/*
 * v2 flushes memcg stats lazily; the periodic flush (forced, every 2 s)
 * brings them up to date.  The caller's memcg charged a page the stock
 * holds: once it shows, everything charged before it is flushed too.
 */
bool runtime_wait_kmem(const struct cg_env *env, int fd, long long before, long page)
{
	long long end = now_ns() + RP_FLUSH_WAIT_S * 1000000000LL, v;
	struct timespec ts = { 0, 20 * 1000 * 1000L };

	if (!env->memory_v2)
		return true;
	while (now_ns() < end && !lab_stop_requested()) {
		if (!runtime_read_kmem(env, fd, &v) && v - before >= page / 2)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

int runtime_count_precharged(const long long *usage, const long long *charged, int n,
			     long long min_excess, bool *holding)
{
	int count = 0;

	for (int i = 0; i < n; i++) {
		bool h = usage[i] - charged[i] >= min_excess;

		if (holding)
			holding[i] = h;
		count += h;
	}
	return count;
}

long long runtime_precharge_threshold(int batch_pages, long page_size)
{
	if (batch_pages < 2)
		batch_pages = 2;
	return (long long)(batch_pages / 2) * page_size;
}

void runtime_stat_finish(struct runtime_probe_stat *s, int n, bool evict_only)
{
	int best = 0;

	s->mode = -1;
	s->min = s->max = -1;
	s->nsamples = 0;
	for (int i = 0; i < n; i++) {
		int v = s->samples[i], count = 0;

		if (v < 0)
			continue;
		if (!s->nsamples++ || v < s->min)
			s->min = v;
		if (v > s->max)
			s->max = v;
		for (int j = 0; j < n; j++)
			count += s->samples[j] == v;
		/* Ties go to the larger value: noise evicts, it never adds. */
		if (count > best || (count == best && v > s->mode)) {
			best = count;
			s->mode = v;
		}
	}
	if (evict_only)
		s->mode = s->max;
}

/* The probed CPU: the last one we may use; the parent takes another. */
static int pick_cpus(cpu_set_t *orig, int *cpu, int *orch)
{
	if (sched_getaffinity(0, sizeof(*orig), orig) < 0)
		return -errno;
	*cpu = *orch = -1;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--) {
		if (!CPU_ISSET(c, orig))
			continue;
		if (*cpu < 0)
			*cpu = c;
		else {
			*orch = c;
			break;
		}
	}
	return *cpu < 0 ? -EINVAL : 0;
}

#define MAX_RETRIES 3

/* Whether the kernel memory of the probe's own cgroup can be read: not in
 * memory.stat of v2 kernels before 5.18 (no "kernel" entry), nor without
 * memory.kmem.* on v1.  "" when it can, else why not (p->no_obj). */
static void check_kmem_readable(struct probe_ctx *p)
{
	const char *file = runtime_kmem_file(p->env);
	int fd = cg_open_file(p->tree.root, file);
	long long v;
	int e = fd < 0 ? fd : runtime_read_kmem(p->env, fd, &v);

	if (fd >= 0)
		close(fd);
	if (!e)
		return;
	if (p->env->memory_v2 && e == -ENOENT)
		snprintf(p->no_obj, sizeof(p->no_obj), "not measured: %s has no 'kernel' entry (5.18+)", file);
	else
		snprintf(p->no_obj, sizeof(p->no_obj), "not measured: the probe's cgroup's %s: %s", file,
			 strerror(e < 0 ? -e : e));
}

/* The stock-slot probes, memcg (batch: the charge batch measured this
 * round) or obj stock (batch unused). */
static int stock_round(struct probe_ctx *p, int r, bool obj, int k, int batch, int *holders, char *err,
		       size_t errlen)
{
	return obj ? objslots_round(p, r, k, holders, err, errlen)
		   : slots_round(p, r, k, batch, holders, err, errlen);
}

/*
 * One stock's slots this round: *k memcgs in turn, retried when the round
 * was disturbed, and *k doubled while all of them kept theirs (the stock
 * may hold more than *k).  1 with *holders, 0 when every try was
 * disturbed, -1 with err.
 */
static int stock_slots(struct probe_ctx *p, int r, bool obj, int *k, int batch, int *holders, char *err,
		       size_t errlen)
{
	for (int t = 0;;) {
		int ret = stock_round(p, r, obj, *k, batch, holders, err, errlen);

		if (ret < 0)
			return -1;
		if (ret == 1) {
			p->disturbed++;
			if (t++ == MAX_RETRIES)
				return 0;
			continue;
		}
		if (*holders < *k || *k * 2 > RP_MAX_K)
			return 1;
		*k *= 2;
	}
}

static int one_round(struct probe_ctx *p, int r, struct runtime_probe_result *out,
		     char *err, size_t errlen)
{
	int batch, holders = -1, ret;

	for (int t = 0; (ret = batch_round(p, r, out, err, errlen)) == 1; t++) {
		p->disturbed++;
		if (t == MAX_RETRIES)
			return 0;	/* the round's samples stay -1 */
	}
	if (ret)
		return -1;
	batch = out->charge_batch.samples[r];
	ret = stock_slots(p, r, false, &out->stock_k, batch, &holders, err, errlen);
	if (ret <= 0)
		return ret;
	out->stock_slots.samples[r] = holders;
	if (holders == out->stock_k)
		out->stock_saturated = true;
	if (p->no_obj[0])
		return 0;
	holders = -1;
	ret = stock_slots(p, r, true, &out->obj_stock_k, 0, &holders, err, errlen);
	if (ret <= 0)
		return ret;
	out->obj_stock_slots.samples[r] = holders;
	if (holders == out->obj_stock_k)
		out->obj_stock_saturated = true;
	return 0;
}

int runtime_probe_run(const struct cg_env *env, int rounds, struct runtime_probe_result *out,
		      char *err, size_t errlen)
{
	struct sched_param orig_param;
	char how[128];
	int orig_policy;
	struct probe_ctx *p;
	cpu_set_t orig;
	int ret = -1, e;

	memset(out, 0, sizeof(*out));
	if (rounds < 1 || rounds > RP_MAX_ROUNDS) {
		snprintf(err, errlen, "runtime probe rounds must be 1..%d, not %d", RP_MAX_ROUNDS, rounds);
		return -1;
	}
	if (env->mode == CG_NONE) {
		snprintf(err, errlen, "runtime probes need a memory controller: %s", env->evidence);
		return -1;
	}
	p = xcalloc(1, sizeof(*p));
	p->env = env;
	p->page = sysconf(_SC_PAGESIZE);
	e = pick_cpus(&orig, &p->cpu, &out->orchestrator_cpu);
	if (e) {
		snprintf(err, errlen, "cannot read this process's CPU affinity: %s", strerror(-e));
		free(p);
		return -1;
	}
	p->sh = mmap(NULL, sizeof(*p->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->sh == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the probe's shared page: %s", strerror(errno));
		free(p);
		return -1;
	}
	if (cg_tree_create(&p->tree, err, errlen)) {
		munmap(p->sh, sizeof(*p->sh));
		free(p);
		return -1;
	}
	orig_policy = sched_getscheduler(0);
	sched_getparam(0, &orig_param);
	if (out->orchestrator_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(out->orchestrator_cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	/* SCHED_FIFO keeps other tasks off the probed CPU while we measure;
	 * without it (no CAP_SYS_NICE, RT group budget 0) rounds are noisier. */
	e = set_fifo(true);
	p->realtime = e == 0;
	p->can_hold = p->realtime && out->orchestrator_cpu >= 0;
	out->rounds = rounds;
	out->cpu = p->cpu;
	out->page_size = p->page;
	out->stock_k = 16;
	out->obj_stock_k = 8;
	for (int r = 0; r < rounds; r++) {
		out->charge_batch.samples[r] = -1;
		out->stock_slots.samples[r] = -1;
		out->obj_stock_slots.samples[r] = -1;
	}
	check_kmem_readable(p);
	for (int r = 0; r < rounds; r++)
		if (one_round(p, r, out, err, errlen))
			goto out;
	runtime_stat_finish(&out->charge_batch, rounds, false);
	runtime_stat_finish(&out->stock_slots, rounds, true);
	runtime_stat_finish(&out->obj_stock_slots, rounds, true);
	if (!p->no_obj[0] && out->obj_stock_saturated && out->obj_stock_k * 2 > RP_MAX_K) {
		/* No kernel's obj stock holds that many objcgs: the drains did
		 * not show (a 6.1 guest; files freed after an RCU grace period
		 * land in whichever objcg the stock holds then). */
		snprintf(p->no_obj, sizeof(p->no_obj), "not measured: all %d memcgs kept their kernel memory in "
			 "%s, so the stock's drains do not show there on this kernel", out->obj_stock_k,
			 runtime_kmem_file(env));
		memset(&out->obj_stock_slots, 0, sizeof(out->obj_stock_slots));
		for (int r = 0; r < rounds; r++)
			out->obj_stock_slots.samples[r] = -1;
		runtime_stat_finish(&out->obj_stock_slots, rounds, true);
		out->obj_stock_saturated = false;
	}
	if (!out->charge_batch.nsamples || !out->stock_slots.nsamples) {
		snprintf(err, errlen, "every runtime probe round on CPU %d was disturbed by other tasks", p->cpu);
		goto out;
	}
	if (p->can_hold)
		snprintf(how, sizeof(how), "SCHED_FIFO");
	else if (p->realtime)
		snprintf(how, sizeof(how), "SCHED_FIFO (sharing the parent's CPU: noisier)");
	else
		snprintf(how, sizeof(how), "SCHED_OTHER (SCHED_FIFO refused: %s; noisier)", strerror(-e));
	snprintf(out->method, sizeof(out->method),
		 "%s %s read by the parent (CPU %d) while %s workers pinned to CPU %d charge: "
		 "batch = usage jump on a fresh memcg's first page; slots = memcgs of %d charging "
		 "in turn that keep >= %lld KiB above their own pages; %d rounds, %d retried",
		 cg_mode_name(env->mode), cg_file_usage(env), out->orchestrator_cpu, how,
		 p->cpu, out->stock_k, runtime_precharge_threshold(out->charge_batch.mode, p->page) >> 10,
		 rounds, p->disturbed);
	if (p->no_obj[0])
		snprintf(out->obj_method, sizeof(out->obj_method), "obj slots %s", p->no_obj);
	else
		snprintf(out->obj_method, sizeof(out->obj_method), "obj slots = memcgs of %d opening /dev/null in "
			 "turn that keep >= %ld KiB of kmem in %s%s", out->obj_stock_k, p->page / 2 >> 10,
			 runtime_kmem_file(env), env->memory_v2 ? " (kernel, after the periodic stats flush)" : "");
	ret = 0;
out:
	if (ret)
		round_end(p);
	sched_setscheduler(0, orig_policy < 0 ? SCHED_OTHER : orig_policy, &orig_param);
	sched_setaffinity(0, sizeof(orig), &orig);
	cg_tree_destroy(&p->tree);
	munmap(p->sh, sizeof(*p->sh));
	free(p);
	return ret;
}
