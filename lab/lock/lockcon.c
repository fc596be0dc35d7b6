// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "lock/lock_types.h"
#include "lock/lockcon.h"
#include "util/err.h"

/* tools/perf/include/perf/perf_dlfilter.h and uapi: context markers. */
#define CTX_HV		((uint64_t)-32)
#define CTX_KERNEL	((uint64_t)-128)
#define CTX_USER	((uint64_t)-512)
#define CTX_MAX		((uint64_t)-4095)

enum seq_state { SEQ_NONE, SEQ_CONTENDED, SEQ_ACQUIRED };

struct seq {
	uint64_t addr;
	uint64_t t0;
	uint8_t state;
};

struct thread_seqs {
	uint32_t n, cap;
	struct seq s[];
};

void lockcon_init(struct lockcon *lc, enum lockcon_by by, const struct psyms *syms)
{
	memset(lc, 0, sizeof(*lc));
	lc->by = by;
	lc->syms = syms;
	lc->max_stack = 8;
	lc->stack_skip = 3;
	lc->keep_acquired = true;
	lc->max_hist = 2048;
	u64map_init(&lc->entries);
	u64map_init(&lc->threads);
}

void lockcon_free(struct lockcon *lc)
{
	size_t i = 0;
	void *v;

	while (u64map_next(&lc->entries, &i, NULL, &v)) {
		struct lockcon_entry *e = v;

		free(e->hist);
		free(e);
	}
	i = 0;
	while (u64map_next(&lc->threads, &i, NULL, &v))
		free(v);
	u64map_free(&lc->entries);
	u64map_free(&lc->threads);
}

/*
 * The nodes perf's thread__resolve_callchain() puts in its cursor: the
 * first max_stack real addresses in callee order (markers do not count),
 * each with whether it is a kernel address (user addresses are never
 * symbolized here).  An address is one node, or, for perf 7.x's user
 * addresses, one per function of its inline chain (user_nodes): more nodes
 * than max_stack then.  Returns the count, at most LOCKCON_NODES; an
 * unknown context marker empties the chain, as in perf.
 */
#define LOCKCON_NODES 256
static int chain_frames(const struct lockcon *lc, const uint64_t *ips, uint64_t nr,
			uint64_t *out, bool *kernel)
{
	bool k = false;	/* perf starts in user mode until a marker says otherwise */
	int n = 0, entries = 0;

	for (uint64_t i = 0; i < nr && entries < lc->max_stack; i++) {
		uint64_t ip = ips[i];

		if (ip >= CTX_MAX) {
			if (ip == CTX_KERNEL)
				k = true;
			else if (ip == CTX_USER || ip == CTX_HV)
				k = false;
			else
				return 0;
			continue;
		}
		entries++;
		for (int r = k || !lc->user_nodes ? 1 : lc->user_nodes(lc->user_arg, lc->pid, ip);
		     r > 0 && n < LOCKCON_NODES; r--) {
			out[n] = ip;
			kernel[n] = k;
			n++;
		}
	}
	return n;
}

static bool frame_has_sym(const struct lockcon *lc, uint64_t ip, bool kernel)
{
	return kernel && lc->syms && perf_symbols_lookup(lc->syms, ip);
}

static bool frame_is_lock(const struct lockcon *lc, uint64_t ip, bool kernel)
{
	/* The range test first: it is cheap and almost always false. */
	return kernel && lc->syms && perf_symbols_is_lock_function(lc->syms, ip) &&
	       frame_has_sym(lc, ip, kernel);
}

uint64_t lockcon_chain_id(const struct lockcon *lc, const uint64_t *ips, uint64_t nr)
{
	uint64_t f[LOCKCON_NODES], hash = 0;
	bool k[LOCKCON_NODES];
	int n;

	if (lc->max_stack > 64)
		return 0;
	n = chain_frames(lc, ips, nr, f, k);
	for (int i = lc->stack_skip; i < n; i++) {
		if (frame_is_lock(lc, f[i], k[i]))
			continue;
		/*
		 * hash_long(ip, 64) of tools/include/linux/hash.h: its
		 * hash_64_generic() returns u32, so only the low 32 bits of
		 * the product count (and chains differing in an address's
		 * high bits share a key, as in perf).
		 */
		hash ^= (uint32_t)(f[i] * 0x61C8864680B583EBull);
	}
	return hash;
}

bool lockcon_caller(struct lockcon *lc, const uint64_t *ips, uint64_t nr, char *buf, size_t n)
{
	uint64_t f[LOCKCON_NODES];
	bool k[LOCKCON_NODES];
	int nf;

	if (lc->max_stack > 64)
		return false;
	nf = chain_frames(lc, ips, nr, f, k);
	for (int i = lc->stack_skip; i < nf; i++) {
		if (!k[i]) {
			/* perf would try the user symbol here; we cannot. */
			lc->user_callers++;
			continue;
		}
		if (!frame_has_sym(lc, f[i], true) || frame_is_lock(lc, f[i], true))
			continue;
		perf_symbols_format(lc->syms, f[i], buf, n);
		return true;
	}
	return false;
}

static uint64_t key_of(const struct lockcon *lc, uint32_t tid, uint64_t addr,
		       const uint64_t *ips, uint64_t nr)
{
	switch (lc->by) {
	case LOCKCON_BY_THREAD:
		return tid;
	case LOCKCON_BY_LOCK:
		return addr;
	case LOCKCON_BY_CALLER:
	default:
		return lockcon_chain_id(lc, ips, nr);
	}
}

static struct lockcon_entry *new_entry(struct lockcon *lc, uint64_t key, uint64_t addr,
				       unsigned int flags, const uint64_t *ips, uint64_t nr)
{
	struct lockcon_entry *e = xcalloc(1, sizeof(*e));

	e->key = key;
	e->addr = addr;
	e->flags = flags;
	e->wait_min = UINT64_MAX;
	if (lc->by == LOCKCON_BY_CALLER) {
		if (!lockcon_caller(lc, ips, nr, e->name, sizeof(e->name)))
			snprintf(e->name, sizeof(e->name), "Unknown");
	} else if (lc->by == LOCKCON_BY_LOCK && lc->syms) {
		const struct psym *s = perf_symbols_lookup(lc->syms, addr);

		if (s)
			snprintf(e->name, sizeof(e->name), "%s", s->name);
	}
	if (lc->nhist < lc->max_hist) {
		e->hist = xmalloc(sizeof(*e->hist));
		hist_init(e->hist);
		lc->nhist++;
	}
	u64map_put(&lc->entries, key, e);
	return e;
}

/* perf's get_seq(): the state of (tid, addr), created when missing. */
static struct seq *get_seq(struct lockcon *lc, uint32_t tid, uint64_t addr, bool create)
{
	struct thread_seqs *t = u64map_get(&lc->threads, tid);

	if (!t) {
		if (!create)
			return NULL;
		t = xmalloc(sizeof(*t) + 4 * sizeof(t->s[0]));
		t->n = 0;
		t->cap = 4;
		u64map_put(&lc->threads, tid, t);
	}
	for (uint32_t i = 0; i < t->n; i++)
		if (t->s[i].addr == addr)
			return &t->s[i];
	if (!create)
		return NULL;
	if (t->n == t->cap) {
		t->cap *= 2;
		t = xrealloc(t, sizeof(*t) + t->cap * sizeof(t->s[0]));
		u64map_put(&lc->threads, tid, t);
	}
	t->s[t->n] = (struct seq){ .addr = addr, .state = SEQ_NONE };
	return &t->s[t->n++];
}

static void drop_seq(struct lockcon *lc, uint32_t tid, struct seq *s)
{
	struct thread_seqs *t = u64map_get(&lc->threads, tid);

	*s = t->s[--t->n];
}

void lockcon_begin(struct lockcon *lc, uint32_t tid, uint64_t time, uint64_t addr,
		   unsigned int flags, const uint64_t *ips, uint64_t nr)
{
	uint64_t key = key_of(lc, tid, addr, ips, nr);
	struct lockcon_entry *e = u64map_get(&lc->entries, key);
	struct seq *s;

	lc->begins++;
	if (!e)
		e = new_entry(lc, key, addr, flags, ips, nr);
	s = get_seq(lc, tid, addr, true);
	if (s->state == SEQ_CONTENDED) {
		if (lc->restart_spin && (flags & LCB_F_SPIN) && !(flags & LCB_F_MUTEX)) {
			lc->restarted++;
			s->t0 = time;
			return;
		}
		/* A nested begin (optimistic spin, then sleep): keep the first. */
		lc->nested++;
		return;
	}
	s->state = SEQ_CONTENDED;
	s->t0 = time;
	e->contended++;
}

void lockcon_end(struct lockcon *lc, uint32_t tid, uint64_t time, uint64_t addr,
		 const uint64_t *ips, uint64_t nr)
{
	uint64_t key = key_of(lc, tid, addr, ips, nr), wait;
	struct lockcon_entry *e = u64map_get(&lc->entries, key);
	struct seq *s;

	lc->ends++;
	if (!e) {
		lc->ends_unkeyed++;
		return;
	}
	if (!u64map_get(&lc->threads, tid))
		return;
	s = get_seq(lc, tid, addr, true);
	switch (s->state) {
	case SEQ_NONE:
		if (!lc->keep_acquired)
			drop_seq(lc, tid, s);
		return;
	case SEQ_CONTENDED:
		break;
	default:
		if (!e->broken) {
			e->broken = true;
			lc->bad[LOCKCON_BAD_ACQUIRED]++;
		}
		drop_seq(lc, tid, s);
		return;
	}
	wait = time - s->t0;
	e->wait_total += wait;
	if (wait < e->wait_min)
		e->wait_min = wait;
	if (wait > e->wait_max)
		e->wait_max = wait;
	e->acquired++;
	if (e->hist)
		hist_record(e->hist, wait);
	if (lc->keep_acquired)
		s->state = SEQ_ACQUIRED;
	else
		drop_seq(lc, tid, s);
}

void lockcon_rebase(struct lockcon *lc, uint32_t tid, uint64_t addr, uint64_t t0)
{
	struct seq *s = get_seq(lc, tid, addr, false);

	if (s && s->state == SEQ_CONTENDED && t0 > s->t0)
		s->t0 = t0;
}

uint64_t lockcon_avg(const struct lockcon_entry *e)
{
	return e->acquired ? e->wait_total / e->acquired : 0;
}

uint64_t lockcon_bad_total(const struct lockcon *lc)
{
	uint64_t n = 0;

	for (int i = 0; i < LOCKCON_BAD_MAX; i++)
		n += lc->bad[i];
	return n;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct lockcon_entry *x = *(struct lockcon_entry *const *)a;
	const struct lockcon_entry *y = *(struct lockcon_entry *const *)b;

	if (x->wait_total != y->wait_total)
		return x->wait_total > y->wait_total ? -1 : 1;
	if (x->contended != y->contended)
		return x->contended > y->contended ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

struct lockcon_entry **lockcon_sorted(const struct lockcon *lc, bool all, size_t *n)
{
	struct lockcon_entry **v = xmalloc((lc->entries.n + 1) * sizeof(*v));
	size_t i = 0, k = 0;
	void *val;

	while (u64map_next(&lc->entries, &i, NULL, &val)) {
		struct lockcon_entry *e = val;

		/* perf prints only entries that waited. */
		if (all || e->wait_total)
			v[k++] = e;
	}
	qsort(v, k, sizeof(*v), cmp_entry);
	*n = k;
	return v;
}
