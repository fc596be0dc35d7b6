// SPDX-License-Identifier: GPL-2.0
/*
 * stock: the multi-memcg per-CPU stock under rotation.  K workers, each in
 * its own memcg and all pinned to one CPU, take turns: fault one page,
 * sched_yield() to the next.  Each fault charges a different memcg than the
 * one before, so while K <= the stock's slots every charge is served from a
 * precharged slot, and beyond it every charge drains a victim slot and
 * refills from the page_counters.  A pass is one charge batch of pages,
 * uncharged together by MADV_DONTNEED (one page_counter walk per batch).
 *
 * After the window the parent counts the memcgs holding a precharge
 * (stock.h); the workers take part through the shared struct stock_ctl.
 *
 * objstock is the same rotation through the per-CPU obj stock: a turn is
 * one open() and close() of /dev/null (a struct file from the "filp" slab
 * cache, SLAB_ACCOUNT, charged in bytes), so while K <= the obj stock's
 * objcg slots every turn is served from its memcg's slot, and beyond it a
 * turn drains a victim slot (its page uncharged) and charges a fresh page.
 */
#include <fcntl.h>
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "drivers/charge/loops.h"
#include "drivers/charge/stock.h"
#include "kernel/runtime_probe.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/futexword.h"

#define STEP_TIMEOUT_S 10
#define HOLD_LIMIT_S 0.2	/* the longest a parked worker keeps its CPU */
#define FIFO_PRIO 10

/* Waits while *w == v, for at most 100 ms. */
static void wait_change(int *w, int v)
{
	struct timespec ts = { 0, 100 * 1000 * 1000L };

	futex_word_wait(w, v, &ts);
}

struct stock_state {
	struct anon_region *a;	/* stock: the pages faulted in turn */
	int dev;		/* objstock: /dev, to open null from */
	struct stock_ctl *ctl;
	int idx;
};

static int stock_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;
	struct stock_state *s = calloc(1, sizeof(*s));
	int e;

	if (!s)
		return -ENOMEM;
	e = anon_region_setup(w, (size_t)o->stock_pages * o->page, (void **)&s->a);
	if (e < 0) {
		free(s);
		return e;
	}
	s->dev = -1;
	s->ctl = o->stock_ctl;
	s->idx = w->index;
	if (s->ctl && s->idx < s->ctl->k)
		s->ctl->w[w->index].pid = getpid();
	*state = s;
	return 0;
}

static int objstock_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;
	struct stock_state *s = calloc(1, sizeof(*s));
	int e;

	if (!s)
		return -ENOMEM;
	s->dev = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->dev < 0) {
		e = errno;
		snprintf(w->err, sizeof(w->err), "/dev: %s", strerror(e));
		free(s);
		return -e;
	}
	s->ctl = o->stock_ctl;
	s->idx = w->index;
	if (s->ctl && s->idx < s->ctl->k)
		s->ctl->w[w->index].pid = getpid();
	*state = s;
	return 0;
}

/* One struct file through the obj stock: charged in bytes, freed at once. */
static int objstock_turn(struct stock_state *s)
{
	int fd = openat(s->dev, "null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The last worker keeps the CPU until the parent has read the round. */
static void hold_cpu(struct stock_ctl *c, int round)
{
	double end = now_s() + HOLD_LIMIT_S;

	while (futex_word_load(&c->read_done) < round && now_s() < end)
		__asm__ __volatile__("" ::: "memory");
}

/* Parked: charge one page per round when told, then hand over to the next. */
static int stock_park(struct stock_state *s, const int *stop)
{
	struct stock_ctl *c = s->ctl;
	struct stock_worker_ctl *me = &c->w[s->idx];
	struct sched_param sp = { .sched_priority = FIFO_PRIO };
	int done = 0;

	/* Without CAP_SYS_NICE the rounds are just noisier. */
	if (c->hold)
		sched_setscheduler(0, SCHED_FIFO, &sp);
	__atomic_add_fetch(&c->parked, 1, __ATOMIC_SEQ_CST);
	futex_word(&c->parked, FUTEX_WAKE, INT_MAX, NULL);
	while (!hstop(stop)) {
		int cmd = futex_word_load(&me->cmd);

		if (cmd <= done) {
			wait_change(&me->cmd, cmd);
			continue;
		}
		if (s->a) {
			/* Last round's page goes back (an uncharge: the stock is untouched). */
			if (done && madvise(s->a->p, s->a->page, MADV_DONTNEED) < 0)
				return -errno;
			((volatile char *)s->a->p)[0] = 1;
		} else {
			int e = objstock_turn(s);

			if (e < 0)
				return e;
		}
		done = cmd;
		futex_word_store_wake(&me->done, done);
		if (s->idx + 1 < c->k) {
			futex_word_store_wake(&c->w[s->idx + 1].cmd, cmd);
		} else {
			futex_word_store_wake(&c->round_done, cmd);
			if (c->hold)
				hold_cpu(c, cmd);
		}
	}
	return 0;
}

/* A worker of another CPU (--stock-cpus) while the first CPU's are read:
 * it charges nothing more until the end. */
static int stock_idle(const int *stop)
{
	struct timespec ts = { 0, 20 * 1000 * 1000L };

	while (!hstop(stop))
		nanosleep(&ts, NULL);
	return 0;
}

/* Parked, or idle when it is not one of the K the holders are read with. */
static int stock_parked(struct stock_state *s, const int *stop)
{
	return s->idx < s->ctl->k ? stock_park(s, stop) : stock_idle(stop);
}

static int stock_loop(void *state, uint64_t *count, const int *stop)
{
	struct stock_state *s = state;
	struct anon_region *a = s->a;

	while (!hstop(stop)) {
		if (s->ctl && futex_word_load(&s->ctl->park))
			return stock_parked(s, stop);
		for (size_t off = 0; off < a->size; off += a->page) {
			a->p[off] = 1;
			hcount_add(count, 1);
			/* Hand the CPU to the next memcg's worker. */
			sched_yield();
		}
		if (madvise(a->p, a->size, MADV_DONTNEED) < 0)
			return -errno;
	}
	return 0;
}

static int objstock_loop(void *state, uint64_t *count, const int *stop)
{
	struct stock_state *s = state;

	while (!hstop(stop)) {
		int e;

		if (s->ctl && futex_word_load(&s->ctl->park))
			return stock_parked(s, stop);
		e = objstock_turn(s);
		if (e < 0)
			return e;
		hcount_add(count, 1);
		/* Hand the CPU to the next memcg's worker. */
		sched_yield();
	}
	return 0;
}

static void stock_teardown(void *state)
{
	struct stock_state *s = state;

	if (s->a)
		anon_region_teardown(s->a);
	if (s->dev >= 0)
		close(s->dev);
	free(s);
}

const struct hloop loop_stock = {
	.name = "stock",
	.what = "page faults taking turns on one CPU, one memcg per worker "
		"(each: one page charged from a stock slot, or a slot drained and refilled)",
	.unit = "charges",
	.rate_unit = "ops/s",
	.rate_scale = 1,
	.setup = stock_setup,
	.loop = stock_loop,
	.teardown = stock_teardown,
};

const struct hloop loop_objstock = {
	.name = "objstock",
	.what = "open()+close() of /dev/null taking turns on one CPU, one memcg per worker "
		"(each: a struct file charged from an obj stock slot, or a slot drained and a page charged)",
	.unit = "charges",
	.rate_unit = "ops/s",
	.rate_scale = 1,
	.setup = objstock_setup,
	.loop = objstock_loop,
	.teardown = stock_teardown,
};

/* ---- the parent's side ---- */

const char *stock_holders_file(const struct stock_ctl *c, const struct cg_env *env)
{
	return c->obj ? runtime_kmem_file(env) : cg_file_usage(env);
}

/* The holders' counter through an open fd: usage, or the obj stock's kmem. */
static int read_holder_value(const struct stock_ctl *c, const struct cg_env *env, int fd, long long *out)
{
	return c->obj ? runtime_read_kmem(env, fd, out) : cg_read_fd_ll(fd, out);
}

struct stock_ctl *stock_ctl_new(int k, bool hold, bool obj)
{
	struct stock_ctl *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (c == MAP_FAILED)
		die("cannot map the stock experiment's shared page: %s", strerror(errno));
	memset(c, 0, sizeof(*c));
	c->k = k;
	c->hold = hold;
	c->obj = obj;
	return c;
}

void stock_ctl_free(struct stock_ctl *c)
{
	munmap(c, sizeof(*c));
}

static char *fresh_name(const char *root, int k, int round, int i)
{
	char name[64];

	snprintf(name, sizeof(name), "holders-k%d-r%d-%d", k, round, i);
	return cg_name(root, name);
}

/* Waits until *w reaches v; false after STEP_TIMEOUT_S or on a signal. */
static bool wait_for(int *w, int v)
{
	double end = now_s() + STEP_TIMEOUT_S;
	int seen;

	while ((seen = futex_word_load(w)) < v) {
		if (now_s() > end || lab_stop_requested())
			return false;
		wait_change(w, seen);
	}
	return true;
}

static int one_round(struct stock_ctl *c, const struct cg_env *env, const char *root, int r, long page,
		     int *holders, char *err, size_t errlen)
{
	long long usage[STOCK_MAX_K], charged[STOCK_MAX_K];
	int fd[STOCK_MAX_K], k = c->k, ret = -1, e;

	for (int i = 0; i < k; i++)
		fd[i] = -1;
	for (int i = 0; i < k; i++) {
		char *cg = fresh_name(root, k, r, i);

		e = cg_create(env, cg);
		if (!e)
			e = fd[i] = cg_open_file(cg, stock_holders_file(c, env));
		/* The first read allocates the file's buffer: later ones do not charge. */
		if (e >= 0)
			e = read_holder_value(c, env, fd[i], &charged[i]);
		if (e >= 0)
			e = cg_enter(env, cg, c->w[i].pid);
		if (e >= 0)
			e = read_holder_value(c, env, fd[i], &charged[i]);
		if (e < 0) {
			snprintf(err, errlen, "fresh cgroup %s for worker %d: %s", cg, i, strerror(-e));
			free(cg);
			goto out;
		}
		free(cg);
	}
	futex_word_store_wake(&c->w[0].cmd, r + 1);
	if (!wait_for(&c->round_done, r + 1)) {
		snprintf(err, errlen, "the workers did not charge their round in %d s", STEP_TIMEOUT_S);
		goto out;
	}
	/* v2: the round's last memcg, held by construction, shows when the flush came. */
	if (c->obj && !runtime_wait_kmem(env, fd[k - 1], charged[k - 1], page)) {
		futex_word_store_wake(&c->read_done, r + 1);
		*holders = -1;	/* not read: see stock_holders_measure */
		ret = 0;
		goto out;
	}
	for (int i = 0; i < k; i++) {
		e = read_holder_value(c, env, fd[i], &usage[i]);
		if (e < 0) {
			futex_word_store_wake(&c->read_done, r + 1);
			snprintf(err, errlen, "cannot read a fresh cgroup's usage: %s", strerror(-e));
			goto out;
		}
		if (!c->obj)
			charged[i] += page;	/* the page the turn faulted in */
	}
	futex_word_store_wake(&c->read_done, r + 1);
	/* Half a 32-page batch: a cached memcg keeps batch - 1 pages (31 or 63),
	 * an evicted one none, on kernels with either batch size.  The obj
	 * stock: a held objcg keeps the page its first charge took (its file
	 * was freed back into the slot), an evicted one had it uncharged. */
	*holders = runtime_count_precharged(usage, charged, k, c->obj ? page / 2 : runtime_precharge_threshold(32, page),
					    NULL);
	ret = 0;
out:
	for (int i = 0; i < k; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return ret;
}

int stock_holders_measure(struct stock_ctl *c, const struct cg_env *env, const char *root, int rounds,
			  long page, struct stock_holders *h)
{
	memset(h, 0, sizeof(*h));
	h->best = -1;
	if (rounds < 1 || rounds > STOCK_MAX_ROUNDS || c->k < 1 || c->k > STOCK_MAX_K) {
		snprintf(h->err, sizeof(h->err), "holders: %d rounds of %d memcgs is out of range", rounds, c->k);
		return -1;
	}
	futex_word_store_wake(&c->park, 1);
	if (!wait_for(&c->parked, c->k)) {
		snprintf(h->err, sizeof(h->err), "only %d of %d workers parked in %d s",
			 futex_word_load(&c->parked), c->k, STEP_TIMEOUT_S);
		return -1;
	}
	for (int r = 0; r < rounds; r++) {
		if (one_round(c, env, root, r, page, &h->holders[r], h->err, sizeof(h->err)))
			return -1;
		h->rounds = r + 1;
		if (h->holders[r] > h->best)
			h->best = h->holders[r];
	}
	if (h->best < 0) {
		snprintf(h->err, sizeof(h->err), "not read: memory.stat's kernel never showed the round's last charge "
			 "within %d s (no periodic stats flush?)", RP_FLUSH_WAIT_S);
		return -1;
	}
	return 0;
}

int stock_holders_cleanup(const char *root, int k, int rounds, char *err, size_t errlen)
{
	int ret = 0;

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < k; i++) {
			char *cg = fresh_name(root, k, r, i);
			int e = cg_destroy(cg);

			/* One left behind would skew the next K's holders: the
			 * first is named, the rest still removed. */
			if (e < 0 && !ret) {
				snprintf(err, errlen, "cannot remove the fresh memcg %s: %s", cg, strerror(-e));
				ret = -1;
			}
			free(cg);
		}
	return ret;
}
