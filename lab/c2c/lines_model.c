// SPDX-License-Identifier: GPL-2.0
/*
 * The cacheline model of the lab's qemu TCG plugin (c2c/lines_model.h).
 *
 * The hot path (lines_model_access, on every instrumented guest access):
 * hash the line to its stripe and slot, take the stripe's lock only when
 * locked (MTTCG), probe a few 64-byte slots, update the line's state and
 * counts.  No allocation: the table, the detail pool and the counters are
 * allocated once, by lines_model_new.
 *
 * One concern, a little over 1,000 lines as such: the model's table and
 * its one state machine per line (holders, writer, sites, detail), which
 * the hot path, the window's snapshot and the drop accounting all share.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "c2c/lines_model.h"

#define EXT_FULL UINT32_MAX	/* slot.ext: the pool was empty when the line needed detail */
#define MAX_PROBE 16		/* slots a line may be from its home slot (16 host lines in a row) */
#define SITE_PROBE 8		/* site slots a site may be from its home */
#define MAX_STRIPE_BITS 10	/* 1024 locks */
#define DROP_BITS (1u << 16)	/* the bitmap of dropped lines */
#define HASH_MUL 0x9E3779B97F4A7C15ULL

enum { K_LOAD_HITM, K_STORE_HITM, K_STORE_INVAL, K_NONE };

struct slot {
	uint64_t key;		/* line number + 1; 0: free */
	uint64_t holders;	/* bit per vCPU */
	uint64_t wmask, rmask, wpc;
	uint64_t loads, stores;
	uint32_t ext;		/* 1-based detail index; 0 none; EXT_FULL */
	uint16_t epoch;
	uint8_t wcpu, dirty;
};
_Static_assert(sizeof(struct slot) == 64, "a slot is one host cacheline");

struct stripe {
	pthread_mutex_t mu;
} __attribute__((aligned(64)));

/* Each vCPU's counters, written by its own thread only; and the line it
 * touched last (slots never move: a key, once set, stays). */
struct vstats {
	uint64_t last_key;
	struct slot *last_slot;
	uint64_t accesses, loads, stores;
	uint64_t kinds[3], false_sharing, true_sharing;
	uint64_t split, split_page_dropped, dropped_accesses;
	uint64_t ext_dropped_events, ext_dropped_lines, io, no_paddr;
} __attribute__((aligned(64)));

struct ext_rec {
	struct lines_ext pub;
	uint64_t slot;
};

struct lines_model {
	struct lines_model_head head;	/* first: lines_model_counting() */
	bool locked, always;
	unsigned vcpus;
	uint16_t epoch;
	uint64_t nslots, stripe_slots;
	unsigned stripe_bits;
	struct slot *slots;
	struct stripe *stripes;
	struct ext_rec *ext;
	uint32_t ext_cap, ext_next;
	struct vstats *vs;
	uint64_t *dropped;
	pthread_mutex_t win_mu;
	uint64_t opened, closed;
	uint64_t started;		/* windows that really opened (a window's index is the count before it) */
	/* Each window on its own (lines_config.each). */
	FILE *each;
	unsigned each_top;
	uint64_t each_lines, each_with_events;	/* written so far */
	bool each_failed;			/* a window could not be written */
	unsigned nrows;
	struct lines_window_row rows[LINES_WINDOWS];
	struct lines_totals at_open;
	/* The open window's instructions, from lines_model_window_insns(). */
	struct lines_window_row insns;
};

/* A counter of this vCPU's own: plain add, but read by others (relaxed). */
#define VINC(s, field) __atomic_store_n(&(s)->field, (s)->field + 1, __ATOMIC_RELAXED)
#define RD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/*
 * The line table and the detail pool: zeroed pages of their own, in huge
 * pages where the kernel gives them (THP on madvise), since lines hash all
 * over the table and a 4 KiB page per line would cost a TLB miss per access.
 */
#define HUGE (2UL << 20)

static size_t big_size(size_t n)
{
	return n < HUGE ? n : (n + HUGE - 1) & ~(HUGE - 1);
}

static void *big_alloc(size_t n)
{
	size_t nr = big_size(n);
	void *p = mmap(NULL, nr < HUGE ? nr : nr + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return NULL;
	if (nr < HUGE)
		return p;
	/* Aligned to 2 MiB: the slack on both sides goes back. */
	a = ((uintptr_t)p + HUGE - 1) & ~(HUGE - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if ((uintptr_t)p + nr + HUGE > a + nr)
		munmap((void *)(a + nr), (uintptr_t)p + nr + HUGE - (a + nr));
#ifdef MADV_HUGEPAGE
	madvise((void *)a, nr, MADV_HUGEPAGE);
#endif
	return (void *)a;
}

static void big_free(void *p, size_t n)
{
	if (p)
		munmap(p, big_size(n));
}

static void *zalloc_aligned(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, n))
		return NULL;
	memset(p, 0, n);
	return p;
}

struct lines_model *lines_model_new(const struct lines_config *c, char *err, size_t errlen)
{
	struct lines_model *m;
	uint64_t n = 64;
	unsigned nstripes;

	if (!c->vcpus || c->vcpus > LINES_MAX_VCPUS) {
		snprintf(err, errlen, "%u vCPUs: the model follows 1 to %d", c->vcpus, LINES_MAX_VCPUS);
		return NULL;
	}
	if (c->lines < 64 || c->lines > (1ULL << 32)) {
		snprintf(err, errlen, "a table of %llu lines: 64 to 2^32", (unsigned long long)c->lines);
		return NULL;
	}
	if (c->ext_lines > (1u << 24)) {
		snprintf(err, errlen, "%u detail records: at most 2^24", c->ext_lines);
		return NULL;
	}
	while (n < c->lines)
		n <<= 1;
	m = zalloc_aligned(sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->locked = c->locked;
	m->always = c->always;
	m->each = c->always ? NULL : c->each;
	m->each_top = c->each_top ? c->each_top : LINES_DEFAULT_TOP;
	m->vcpus = c->vcpus;
	m->nslots = n;
	/* At least 64 slots per stripe, at most 1024 stripes. */
	while ((1ULL << (m->stripe_bits + 1)) * 64 <= n && m->stripe_bits < MAX_STRIPE_BITS)
		m->stripe_bits++;
	nstripes = 1u << m->stripe_bits;
	m->stripe_slots = n >> m->stripe_bits;
	m->ext_cap = c->ext_lines;
	/* Zero pages: the pool's are touched only as records are used. */
	m->slots = big_alloc(n * sizeof(*m->slots));
	m->stripes = zalloc_aligned(nstripes * sizeof(*m->stripes));
	m->ext = m->ext_cap ? big_alloc((size_t)m->ext_cap * sizeof(*m->ext)) : NULL;
	m->vs = zalloc_aligned(c->vcpus * sizeof(*m->vs));
	m->dropped = calloc(DROP_BITS / 64, sizeof(uint64_t));
	if (!m->slots || !m->stripes || (m->ext_cap && !m->ext) || !m->vs || !m->dropped) {
		snprintf(err, errlen, "out of memory for %llu lines of %zu bytes and %u detail records of %zu",
			 (unsigned long long)n, sizeof(struct slot), m->ext_cap, sizeof(struct ext_rec));
		lines_model_free(m);
		return NULL;
	}
	for (unsigned i = 0; i < nstripes; i++)
		pthread_mutex_init(&m->stripes[i].mu, NULL);
	pthread_mutex_init(&m->win_mu, NULL);
	if (m->always) {
		m->head.counting = 1;
		m->nrows = 1;
		m->rows[0].windows = 1;
		m->started = 1;
	}
	return m;
}

void lines_model_free(struct lines_model *m)
{
	if (!m)
		return;
	big_free(m->slots, m->nslots * sizeof(*m->slots));
	free(m->stripes);
	big_free(m->ext, (size_t)m->ext_cap * sizeof(*m->ext));
	free(m->vs);
	free(m->dropped);
	free(m);
}

static void sum_totals(struct lines_model *m, struct lines_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned v = 0; v < m->vcpus; v++) {
		struct vstats *s = &m->vs[v];

		t->accesses += RD(s->accesses);
		t->loads += RD(s->loads);
		t->stores += RD(s->stores);
		t->load_hitm += RD(s->kinds[K_LOAD_HITM]);
		t->store_hitm += RD(s->kinds[K_STORE_HITM]);
		t->store_inval += RD(s->kinds[K_STORE_INVAL]);
		t->false_sharing += RD(s->false_sharing);
		t->true_sharing += RD(s->true_sharing);
		t->split += RD(s->split);
		t->split_page_dropped += RD(s->split_page_dropped);
		t->dropped_accesses += RD(s->dropped_accesses);
		t->ext_dropped_events += RD(s->ext_dropped_events);
		t->ext_dropped_lines += RD(s->ext_dropped_lines);
		t->io += RD(s->io);
		t->no_paddr += RD(s->no_paddr);
	}
}

static void row_add(struct lines_window_row *r, const struct lines_totals *now, const struct lines_totals *then)
{
	r->accesses += now->accesses - then->accesses;
	r->load_hitm += now->load_hitm - then->load_hitm;
	r->store_hitm += now->store_hitm - then->store_hitm;
	r->store_inval += now->store_inval - then->store_inval;
	r->false_sharing += now->false_sharing - then->false_sharing;
	r->true_sharing += now->true_sharing - then->true_sharing;
}

/* Instructions of a window (from) added to a row. */
static void insns_add(struct lines_window_row *r, const struct lines_window_row *from)
{
	if (!from->insns_counted)
		return;
	r->insns_per_vcpu = (r->insns_counted ? r->insns_per_vcpu : true) && from->insns_per_vcpu;
	r->insns_counted = true;
	r->insns += from->insns;
	for (unsigned v = 0; v < LINES_MAX_VCPUS; v++)
		r->insns_vcpu[v] += from->insns_vcpu[v];
}

void lines_model_window_insns(struct lines_model *m, uint64_t total, const uint64_t *per_vcpu, unsigned n)
{
	pthread_mutex_lock(&m->win_mu);
	memset(&m->insns, 0, sizeof(m->insns));
	m->insns.insns_counted = true;
	m->insns.insns = total;
	m->insns.insns_per_vcpu = per_vcpu != NULL;
	for (unsigned v = 0; per_vcpu && v < n && v < LINES_MAX_VCPUS; v++)
		m->insns.insns_vcpu[v] = per_vcpu[v];
	pthread_mutex_unlock(&m->win_mu);
}

int64_t lines_model_window_index(struct lines_model *m)
{
	int64_t i;

	pthread_mutex_lock(&m->win_mu);
	i = lines_model_counting(m) ? (int64_t)m->started - 1 : -1;
	pthread_mutex_unlock(&m->win_mu);
	return i;
}

static void lock_stripes(struct lines_model *m)
{
	if (m->locked)
		for (unsigned s = 0; s < 1u << m->stripe_bits; s++)
			pthread_mutex_lock(&m->stripes[s].mu);
}

static void unlock_stripes(struct lines_model *m)
{
	if (m->locked)
		for (unsigned s = 0; s < 1u << m->stripe_bits; s++)
			pthread_mutex_unlock(&m->stripes[s].mu);
}

static uint32_t ext_in_use(const struct lines_model *m)
{
	uint32_t n = RD(m->ext_next);

	return n < m->ext_cap ? n : m->ext_cap;
}

static int write_block(struct lines_model *m, FILE *f, const struct lines_window_row *row, unsigned top,
		       bool window_col, uint64_t *nlines, uint64_t *with_events);

void lines_model_window(struct lines_model *m, unsigned vcpu, bool open)
{
	struct lines_totals now;

	(void)vcpu;
	if (m->always)
		return;
	pthread_mutex_lock(&m->win_mu);
	if (open) {
		m->opened++;
		if (!lines_model_counting(m)) {
			sum_totals(m, &m->at_open);
			/* Every line's state starts afresh in a new window (and,
			 * each on its own, its counts and detail: the pool is
			 * reused; no access runs while the window is closed). */
			__atomic_store_n(&m->epoch, (uint16_t)(m->epoch + 1), __ATOMIC_RELAXED);
			if (m->each) {
				memset(m->ext, 0, (size_t)ext_in_use(m) * sizeof(*m->ext));
				__atomic_store_n(&m->ext_next, 0, __ATOMIC_RELAXED);
			}
			memset(&m->insns, 0, sizeof(m->insns));
			if (m->nrows < LINES_WINDOWS) {
				m->nrows++;
				m->rows[m->nrows - 1].index = m->started;
			}
			m->started++;
			m->rows[m->nrows - 1].windows++;
			m->rows[m->nrows - 1].open = true;
			__atomic_store_n(&m->head.counting, 1, __ATOMIC_RELEASE);
		}
	} else {
		m->closed++;
		if (lines_model_counting(m)) {
			struct lines_window_row one = { .index = m->started - 1, .windows = 1 };

			__atomic_store_n(&m->head.counting, 0, __ATOMIC_RELEASE);
			/* Accesses still in flight (MTTCG) end before the stripes are ours. */
			if (m->each)
				lock_stripes(m);
			sum_totals(m, &now);
			row_add(&m->rows[m->nrows - 1], &now, &m->at_open);
			insns_add(&m->rows[m->nrows - 1], &m->insns);
			m->rows[m->nrows - 1].open = false;
			if (m->each) {
				row_add(&one, &now, &m->at_open);
				insns_add(&one, &m->insns);
				if (write_block(m, m->each, &one, m->each_top, true, &m->each_lines,
						&m->each_with_events) || ferror(m->each))
					m->each_failed = true;
				unlock_stripes(m);
			}
		}
	}
	pthread_mutex_unlock(&m->win_mu);
}

void lines_model_skip(struct lines_model *m, unsigned vcpu, enum lines_skip why)
{
	struct vstats *s;

	if (!lines_model_counting(m) || vcpu >= m->vcpus)
		return;
	s = &m->vs[vcpu];
	if (why == LINES_SKIP_IO)
		VINC(s, io);
	else
		VINC(s, no_paddr);
}

static inline void counts_add(struct lines_counts *c, bool store, int kind, bool tru)
{
	if (store)
		c->stores++;
	else
		c->loads++;
	if (kind == K_NONE)
		return;
	if (kind == K_LOAD_HITM)
		c->load_hitm++;
	else if (kind == K_STORE_HITM)
		c->store_hitm++;
	else
		c->store_inval++;
	if (tru)
		c->true_sharing++;
	else
		c->false_sharing++;
}

/* What one access adds to a line's detail. */
struct event {
	unsigned vcpu, off, size;
	bool store, tru, detail;
	int kind;
	uint64_t pc, other, prev_pc;
	unsigned prev_vcpu;
};

static void ext_record(struct lines_ext *e, const struct event *ev)
{
	struct lines_shape *sh = NULL;
	struct lines_site *si = NULL;
	unsigned h;

	uint32_t tag;

	counts_add(&e->c, ev->store, ev->kind, ev->tru);
	for (unsigned i = e->shape_at[ev->off]; i; i = e->shapes[i - 1].next)
		if (e->shapes[i - 1].size == ev->size) {
			sh = &e->shapes[i - 1];
			break;
		}
	if (!sh && e->nshapes < LINES_SHAPES) {
		sh = &e->shapes[e->nshapes++];
		sh->off = ev->off;
		sh->size = ev->size;
		sh->next = e->shape_at[ev->off];
		e->shape_at[ev->off] = (uint8_t)e->nshapes;
	}
	if (sh) {
		counts_add(&sh->c, ev->store, ev->kind, ev->tru);
		if (ev->kind != K_NONE)
			sh->other_mask |= ev->other;
	} else {
		counts_add(&e->other_shapes, ev->store, ev->kind, ev->tru);
	}

	/* Sites count events only (every access where detail was asked for):
	 * the record's site table stays out of the host's cache otherwise. */
	if (ev->kind == K_NONE && !ev->detail)
		return;
	/* Sites: open addressing in the line's fixed table, by tags first. */
	tag = (uint32_t)((ev->pc ^ ((uint64_t)ev->vcpu << 56) ^ ((uint64_t)ev->off << 48) ^
			  ((uint64_t)ev->size << 40) ^ ((uint64_t)ev->store << 39)) * HASH_MUL >> 32) | 1;
	h = tag >> 8;
	for (unsigned n = 0; n < SITE_PROBE; n++) {
		unsigned k = (h + n) % LINES_SITES;
		struct lines_site *s = &e->sites[k];

		if (!e->site_tag[k]) {
			e->site_tag[k] = tag;
			s->pc = ev->pc;
			s->vcpu = ev->vcpu;
			s->off = ev->off;
			s->size = ev->size;
			s->store = ev->store;
			s->prev_vcpu = LINES_NO_VCPU;
			e->nsites++;
			si = s;
			break;
		}
		if (e->site_tag[k] == tag && s->pc == ev->pc && s->vcpu == ev->vcpu && s->off == ev->off &&
		    s->size == ev->size && s->store == ev->store) {
			si = s;
			break;
		}
	}
	if (!si) {
		counts_add(&e->other_sites, ev->store, ev->kind, ev->tru);
		return;
	}
	counts_add(&si->c, ev->store, ev->kind, ev->tru);
	if (ev->kind != K_NONE) {
		si->other_mask |= ev->other;
		si->prev_vcpu = ev->prev_vcpu;
		si->prev_pc = ev->prev_pc;
	}
}

static inline void stripe_lock(struct lines_model *m, unsigned st)
{
	if (m->locked)
		pthread_mutex_lock(&m->stripes[st].mu);
}

static inline void stripe_unlock(struct lines_model *m, unsigned st)
{
	if (m->locked)
		pthread_mutex_unlock(&m->stripes[st].mu);
}

static inline unsigned stripe_of(const struct lines_model *m, uint64_t h)
{
	return m->stripe_bits ? (unsigned)(h >> (64 - m->stripe_bits)) : 0;
}

/* One access within one line. */
static void line_access(struct lines_model *m, struct vstats *s, unsigned vcpu, uint64_t pc, uint64_t vaddr,
			uint64_t paddr, unsigned off, unsigned size, unsigned flags)
{
	bool store = flags & LINES_STORE;
	uint64_t key = (paddr >> 6) + 1, h = key * HASH_MUL, bit = 1ULL << vcpu, bytes = lines_mask(off, size);
	unsigned st = stripe_of(m, h);
	uint64_t base = (uint64_t)st * m->stripe_slots, i = (h >> 20) & (m->stripe_slots - 1);
	uint16_t epoch = __atomic_load_n(&m->epoch, __ATOMIC_RELAXED);
	unsigned probes = m->stripe_slots < MAX_PROBE ? (unsigned)m->stripe_slots : MAX_PROBE;
	struct event ev = { .vcpu = vcpu, .off = off, .size = size, .store = store, .kind = K_NONE, .pc = pc,
			    .detail = flags & LINES_DETAIL };
	struct slot *sl = NULL;

	stripe_lock(m, st);
	if (s->last_key == key) {
		sl = s->last_slot;
		i = (uint64_t)(sl - m->slots) - base;
	}
	for (unsigned n = 0; !sl && n < probes; n++, i = (i + 1) & (m->stripe_slots - 1)) {
		struct slot *c = &m->slots[base + i];

		if (c->key == key) {
			sl = c;
			break;
		}
		if (!c->key) {
			sl = c;
			sl->key = key;
			sl->epoch = (uint16_t)(epoch - 1);
			break;
		}
	}
	if (sl) {
		s->last_key = key;
		s->last_slot = sl;
	}
	if (!sl) {
		/* Full around its home: said, never silent. */
		uint32_t b = (uint32_t)(h >> 8) & (DROP_BITS - 1);

		stripe_unlock(m, st);
		VINC(s, dropped_accesses);
		__atomic_fetch_or(&m->dropped[b / 64], 1ULL << (b % 64), __ATOMIC_RELAXED);
		return;
	}
	if (sl->epoch != epoch) {
		sl->epoch = epoch;
		sl->holders = sl->wmask = sl->rmask = sl->wpc = 0;
		sl->wcpu = LINES_NO_VCPU;
		sl->dirty = 0;
		/* Each window on its own: its counts and detail start here. */
		if (m->each) {
			sl->ext = 0;
			sl->loads = sl->stores = 0;
		}
	}
	if (!store) {
		sl->loads++;
		if (sl->dirty && sl->wcpu != vcpu) {
			ev.kind = K_LOAD_HITM;
			ev.other = sl->wmask;
			sl->dirty = 0;
		}
		sl->holders |= bit;
		if (sl->wcpu != vcpu)
			sl->rmask |= bytes;
	} else {
		bool other_writer = sl->wcpu != LINES_NO_VCPU && sl->wcpu != vcpu;

		sl->stores++;
		if (sl->dirty && sl->wcpu != vcpu) {
			ev.kind = K_STORE_HITM;
			ev.other = sl->wmask;
		} else if (sl->holders & ~bit) {
			ev.kind = K_STORE_INVAL;
			ev.other = other_writer ? sl->wmask : sl->rmask;
		}
		/* The other side: the last writer, or (none) the vCPUs that loaded it. */
		ev.prev_vcpu = other_writer ? sl->wcpu : LINES_NO_VCPU;
		ev.prev_pc = other_writer ? sl->wpc : 0;
		/* Its dirty bytes grow while it keeps the line to itself. */
		if (sl->dirty && sl->wcpu == vcpu)
			sl->wmask |= bytes;
		else
			sl->wmask = bytes;
		sl->wcpu = (uint8_t)vcpu;
		sl->wpc = pc;
		sl->rmask = 0;
		sl->holders = bit;
		sl->dirty = 1;
	}
	if (ev.kind == K_LOAD_HITM) {
		ev.prev_vcpu = sl->wcpu;
		ev.prev_pc = sl->wpc;
	}
	if (ev.kind != K_NONE) {
		ev.tru = (bytes & ev.other) != 0;
		VINC(s, kinds[ev.kind]);
		if (ev.tru)
			VINC(s, true_sharing);
		else
			VINC(s, false_sharing);
	}
	/* Detail from the first event, or from the first access when asked. */
	if (ev.kind != K_NONE || (flags & LINES_DETAIL)) {
		if (!sl->ext) {
			uint32_t x = __atomic_fetch_add(&m->ext_next, 1, __ATOMIC_RELAXED);

			if (x < m->ext_cap) {
				struct ext_rec *e = &m->ext[x];

				e->pub.paddr = paddr & ~63ULL;
				e->pub.vaddr = vaddr & ~63ULL;
				e->slot = base + i;
				sl->ext = x + 1;
			} else {
				sl->ext = EXT_FULL;
				VINC(s, ext_dropped_lines);
			}
		}
		if (sl->ext == EXT_FULL && ev.kind != K_NONE)
			VINC(s, ext_dropped_events);
	}
	if (sl->ext && sl->ext != EXT_FULL)
		ext_record(&m->ext[sl->ext - 1].pub, &ev);
	stripe_unlock(m, st);
}

void lines_model_access(struct lines_model *m, unsigned vcpu, uint64_t pc, uint64_t vaddr, uint64_t paddr,
			unsigned size, unsigned flags)
{
	bool store = flags & LINES_STORE;
	struct vstats *s;
	unsigned off = paddr & 63;

	if (!lines_model_counting(m) || vcpu >= m->vcpus || !size)
		return;
	s = &m->vs[vcpu];
	VINC(s, accesses);
	if (store)
		VINC(s, stores);
	else
		VINC(s, loads);
	if (off + size <= LINES_LINE_SIZE) {
		line_access(m, s, vcpu, pc, vaddr, paddr, off, size, flags);
		return;
	}
	/* Split at line boundaries; a part on the next page has no paddr. */
	VINC(s, split);
	while (size) {
		unsigned part = LINES_LINE_SIZE - off < size ? LINES_LINE_SIZE - off : size;

		line_access(m, s, vcpu, pc, vaddr, paddr, off, part, flags);
		size -= part;
		vaddr += part;
		paddr += part;
		off = 0;
		if (size && !(paddr & 4095)) {
			VINC(s, split_page_dropped);
			return;
		}
	}
}

/* The totals; the caller holds win_mu. */
static void totals_locked(struct lines_model *m, struct lines_totals *t)
{
	uint64_t dropped = 0;

	sum_totals(m, t);
	for (unsigned w = 0; w < DROP_BITS / 64; w++)
		dropped += (uint64_t)__builtin_popcountll(RD(m->dropped[w]));
	t->dropped_lines_min = dropped;
	t->capacity = m->nslots;
	t->ext_capacity = m->ext_cap;
	t->ext_used = ext_in_use(m);
	for (uint64_t i = 0; i < m->nslots; i++)
		t->lines_used += RD(m->slots[i].key) != 0;
	t->windows_opened = m->opened;
	t->windows_closed = m->closed;
	t->window_open = lines_model_counting(m);
}

void lines_model_totals(struct lines_model *m, struct lines_totals *t)
{
	pthread_mutex_lock(&m->win_mu);
	totals_locked(m, t);
	pthread_mutex_unlock(&m->win_mu);
}

static unsigned stripe_of_paddr(const struct lines_model *m, uint64_t paddr)
{
	return stripe_of(m, ((paddr >> 6) + 1) * HASH_MUL);
}

size_t lines_model_bytes(const struct lines_model *m)
{
	return sizeof(*m) + m->nslots * sizeof(*m->slots) + ((size_t)1 << m->stripe_bits) * sizeof(*m->stripes) +
	       (size_t)m->ext_cap * sizeof(*m->ext) + m->vcpus * sizeof(*m->vs) + DROP_BITS / 8;
}

/* The slot of paddr's line, or NULL; the caller holds the stripe's lock.
 * Each window on its own: a line the open window has not touched has no
 * counts in it (its slot keeps an earlier window's). */
static struct slot *find_slot(struct lines_model *m, uint64_t paddr)
{
	uint64_t key = (paddr >> 6) + 1, h = key * HASH_MUL;
	uint64_t base = (uint64_t)stripe_of(m, h) * m->stripe_slots, i = (h >> 20) & (m->stripe_slots - 1);
	unsigned probes = m->stripe_slots < MAX_PROBE ? (unsigned)m->stripe_slots : MAX_PROBE;

	for (unsigned n = 0; n < probes; n++, i = (i + 1) & (m->stripe_slots - 1)) {
		struct slot *c = &m->slots[base + i];

		if (c->key == key)
			return m->each && c->epoch != RD(m->epoch) ? NULL : c;
		if (!c->key)
			return NULL;
	}
	return NULL;
}

bool lines_model_line_counts(struct lines_model *m, uint64_t paddr, uint64_t *loads, uint64_t *stores)
{
	unsigned st = stripe_of_paddr(m, paddr);
	struct slot *sl;
	bool found;

	stripe_lock(m, st);
	sl = find_slot(m, paddr);
	found = sl != NULL;
	*loads = sl ? sl->loads : 0;
	*stores = sl ? sl->stores : 0;
	stripe_unlock(m, st);
	return found;
}

const struct lines_ext *lines_model_ext(struct lines_model *m, uint64_t paddr)
{
	unsigned st = stripe_of_paddr(m, paddr);
	struct slot *sl;
	struct lines_ext *e = NULL;

	stripe_lock(m, st);
	sl = find_slot(m, paddr);
	if (sl && sl->ext && sl->ext != EXT_FULL) {
		e = &m->ext[sl->ext - 1].pub;
		e->loads = sl->loads;
		e->stores = sl->stores;
	}
	stripe_unlock(m, st);
	return e;
}

/* The window rows; the caller holds win_mu. */
static unsigned windows_locked(struct lines_model *m, struct lines_window_row *rows, unsigned max)
{
	unsigned n = m->nrows < max ? m->nrows : max;

	memcpy(rows, m->rows, n * sizeof(*rows));
	/* The open window's counts so far. */
	if (n && rows[n - 1].open) {
		struct lines_totals now, zero = { 0 };

		sum_totals(m, &now);
		row_add(&rows[n - 1], &now, m->always ? &zero : &m->at_open);
		insns_add(&rows[n - 1], &m->insns);
	}
	return n;
}

unsigned lines_model_windows(struct lines_model *m, struct lines_window_row *rows, unsigned max)
{
	unsigned n;

	pthread_mutex_lock(&m->win_mu);
	n = windows_locked(m, rows, max);
	pthread_mutex_unlock(&m->win_mu);
	return n;
}

/* ---- output (format: lab/c2c/README) ---- */

void lines_write_begin(FILE *f)
{
	fprintf(f, "# memcg-lab lines %d\n", LINES_FORMAT_VERSION);
}

/*
 * Text as one cell, util/tsv.h's rule: a tab, a newline or another control
 * byte becomes a space.  Its own copy: the plugin is built from
 * PLUGIN_SRCS alone (Makefile), without util/tsv.c and the util/err.c it
 * needs (whose allocators end the process, here qemu's, on failure).
 */
static void put_cell(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

/* The rows' cells are numbers and fixed words; a meta value may be text
 * (qemu's version, a trace path, a status): one cell, whatever it holds. */
void lines_write_meta(FILE *f, const char *key, const char *fmt, ...)
{
	char *v = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	fputs("# ", f);
	put_cell(f, key);
	fputc('\t', f);
	if (n >= 0)
		put_cell(f, v);
	free(v);
	fputc('\n', f);
}

static uint64_t events_of(const struct lines_counts *c)
{
	return c->load_hitm + c->store_hitm + c->store_inval;
}

static int ext_cmp(const void *a, const void *b)
{
	const struct lines_ext *x = *(const struct lines_ext *const *)a, *y = *(const struct lines_ext *const *)b;
	uint64_t ex = events_of(&x->c), ey = events_of(&y->c);

	if (ex != ey)
		return ex > ey ? -1 : 1;
	return x->paddr < y->paddr ? -1 : x->paddr > y->paddr;
}

static int site_cmp(const void *a, const void *b)
{
	const struct lines_site *x = *(const struct lines_site *const *)a, *y = *(const struct lines_site *const *)b;
	uint64_t ex = events_of(&x->c), ey = events_of(&y->c);
	uint64_t nx = x->c.loads + x->c.stores, ny = y->c.loads + y->c.stores;

	if (ex != ey)
		return ex > ey ? -1 : 1;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->vcpu - y->vcpu;
}

static void put_counts(FILE *f, const struct lines_counts *c)
{
	fprintf(f, "\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu", (unsigned long long)c->loads,
		(unsigned long long)c->stores, (unsigned long long)c->load_hitm, (unsigned long long)c->store_hitm,
		(unsigned long long)c->store_inval, (unsigned long long)c->false_sharing,
		(unsigned long long)c->true_sharing);
}

#define COUNT_COLS "loads\tstores\tload_hitm\tstore_hitm\tstore_inval\tfalse\ttrue"
#define U(x) ((unsigned long long)(x))

static void put_window_row(FILE *f, const struct lines_window_row *r, unsigned vcpus)
{
	fprintf(f, "window\t%llu\t%llu\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu", U(r->index), U(r->windows),
		r->open, U(r->accesses), U(r->load_hitm), U(r->store_hitm), U(r->store_inval),
		U(r->false_sharing), U(r->true_sharing));
	/* insns: "-" where nobody counted; insns_vcpu: per vCPU, "-" with the total only. */
	if (!r->insns_counted) {
		fputs("\t-\t-\n", f);
		return;
	}
	fprintf(f, "\t%llu\t", U(r->insns));
	if (!r->insns_per_vcpu)
		fputc('-', f);
	for (unsigned v = 0; r->insns_per_vcpu && v < vcpus; v++)
		fprintf(f, "%s%llu", v ? "," : "", U(r->insns_vcpu[v]));
	fputc('\n', f);
}

/*
 * The top lines of the detail pool, by events, with their shapes and sites
 * (after the window's row, when row is not NULL); window_col: the line rows
 * carry row->index, else "-" (the windows add up).  The caller holds every
 * stripe's lock.
 */
static int write_block(struct lines_model *m, FILE *f, const struct lines_window_row *row, unsigned top,
		       bool window_col, uint64_t *nlines, uint64_t *with_events)
{
	uint32_t used = ext_in_use(m);
	struct lines_ext **order = used ? calloc(used, sizeof(*order)) : NULL;
	unsigned n;
	char win[24] = "-";

	if (row) {
		put_window_row(f, row, m->vcpus);
		if (window_col)
			snprintf(win, sizeof(win), "%llu", U(row->index));
	}
	if (used && !order) {
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t x = 0; x < used; x++) {
		struct ext_rec *e = &m->ext[x];

		e->pub.loads = m->slots[e->slot].loads;
		e->pub.stores = m->slots[e->slot].stores;
		order[x] = &e->pub;
		*with_events += events_of(&e->pub.c) != 0;
	}
	if (used)
		qsort(order, used, sizeof(*order), ext_cmp);
	n = used < top ? used : top;
	*nlines += n;
	for (unsigned l = 0; l < n; l++) {
		struct lines_ext *e = order[l];
		const struct lines_site *sites[LINES_SITES];
		unsigned ns = 0;

		fprintf(f, "line\t0x%llx\t0x%llx\t%llu\t%llu", U(e->paddr), U(e->vaddr), U(e->loads), U(e->stores));
		put_counts(f, &e->c);
		fprintf(f, "\t%llu\t%llu\t%llu\t%llu\t%s\n", U(e->other_shapes.loads + e->other_shapes.stores),
			U(events_of(&e->other_shapes)), U(e->other_sites.loads + e->other_sites.stores),
			U(events_of(&e->other_sites)), win);
		for (unsigned i = 0; i < e->nshapes; i++) {
			const struct lines_shape *sh = &e->shapes[i];

			fprintf(f, "shape\t0x%llx\t%u\t%u", U(e->paddr), sh->off, sh->size);
			put_counts(f, &sh->c);
			fprintf(f, "\t0x%016llx\n", U(sh->other_mask));
		}
		for (unsigned i = 0; i < LINES_SITES; i++)
			if (e->sites[i].size)
				sites[ns++] = &e->sites[i];
		qsort(sites, ns, sizeof(*sites), site_cmp);
		for (unsigned i = 0; i < ns; i++) {
			const struct lines_site *si = sites[i];

			fprintf(f, "site\t0x%llx\t0x%llx\t%u\t%c\t%u\t%u", U(e->paddr), U(si->pc), si->vcpu,
				si->store ? 'W' : 'R', si->off, si->size);
			put_counts(f, &si->c);
			if (si->prev_vcpu == LINES_NO_VCPU)
				fprintf(f, "\t-\t0x0\t0x%016llx\n", U(si->other_mask));
			else
				fprintf(f, "\t%u\t0x%llx\t0x%016llx\n", si->prev_vcpu, U(si->prev_pc),
					U(si->other_mask));
		}
	}
	free(order);
	return 0;
}

/* The windows written at their close (each mode), into f. */
static int copy_each(struct lines_model *m, FILE *f)
{
	char buf[65536];
	size_t n;

	if (fflush(m->each) || fseek(m->each, 0, SEEK_SET))
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), m->each)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			return -1;
	return ferror(m->each) ? -1 : 0;
}

int lines_model_write(struct lines_model *m, FILE *f, unsigned top, const char *problem)
{
	struct lines_window_row rows[LINES_WINDOWS];
	struct lines_totals t;
	char status[512] = "";
	uint64_t with_events = 0, nlines = 0;
	unsigned nrows;
	bool each_failed;
	int rc = 0;

	/* vCPUs may still run (qemu exits from one of them): the window's lock
	 * first (as a closing window takes it), then every stripe's. */
	pthread_mutex_lock(&m->win_mu);
	lock_stripes(m);
	totals_locked(m, &t);
	nrows = windows_locked(m, rows, LINES_WINDOWS);
	each_failed = m->each && (m->each_failed || fflush(m->each) || ferror(m->each));
	if (m->each) {
		nlines = m->each_lines;
		with_events = m->each_with_events;
		/* The open window's lines are counted before they are written. */
		if (t.window_open) {
			uint32_t used = ext_in_use(m);

			for (uint32_t x = 0; x < used; x++)
				with_events += events_of(&m->ext[x].pub.c) != 0;
			nlines += used < m->each_top ? used : m->each_top;
		}
	} else {
		uint32_t used = ext_in_use(m);

		for (uint32_t x = 0; x < used; x++)
			with_events += events_of(&m->ext[x].pub.c) != 0;
		nlines = used < top ? used : top;
	}

#define PROBLEM(cond, word) \
	do { \
		if (cond) \
			snprintf(status + strlen(status), sizeof(status) - strlen(status), "%s%s", *status ? "," : "", word); \
	} while (0)
	PROBLEM(!m->always && !t.windows_opened, "window-never-opened");
	PROBLEM(!m->always && t.window_open, "window-open-at-exit");
	PROBLEM(t.dropped_accesses, "table-full");
	PROBLEM(t.ext_dropped_lines, "detail-pool-full");
	PROBLEM(each_failed, "windows-write-error");
	PROBLEM(problem && *problem, problem);
	lines_write_meta(f, "window", "%s", m->always ? "always" : "lab");
	lines_write_meta(f, "windows", "%s", m->each ? "each" : "sum");
	lines_write_meta(f, "windows_opened", "%llu", U(t.windows_opened));
	lines_write_meta(f, "windows_closed", "%llu", U(t.windows_closed));
	lines_write_meta(f, "window_open_at_exit", "%d", !m->always && t.window_open);
	lines_write_meta(f, "capacity", "%llu", U(t.capacity));
	lines_write_meta(f, "lines_used", "%llu", U(t.lines_used));
	lines_write_meta(f, "ext_capacity", "%llu", U(t.ext_capacity));
	lines_write_meta(f, "ext_used", "%llu", U(t.ext_used));
	lines_write_meta(f, "model_bytes", "%zu", lines_model_bytes(m));
	lines_write_meta(f, "accesses", "%llu", U(t.accesses));
	lines_write_meta(f, "loads", "%llu", U(t.loads));
	lines_write_meta(f, "stores", "%llu", U(t.stores));
	lines_write_meta(f, "load_hitm", "%llu", U(t.load_hitm));
	lines_write_meta(f, "store_hitm", "%llu", U(t.store_hitm));
	lines_write_meta(f, "store_inval", "%llu", U(t.store_inval));
	lines_write_meta(f, "false", "%llu", U(t.false_sharing));
	lines_write_meta(f, "true", "%llu", U(t.true_sharing));
	lines_write_meta(f, "split", "%llu", U(t.split));
	lines_write_meta(f, "split_page_dropped", "%llu", U(t.split_page_dropped));
	lines_write_meta(f, "io", "%llu", U(t.io));
	lines_write_meta(f, "no_paddr", "%llu", U(t.no_paddr));
	lines_write_meta(f, "dropped_accesses", "%llu", U(t.dropped_accesses));
	lines_write_meta(f, "dropped_lines_min", "%llu", U(t.dropped_lines_min));
	lines_write_meta(f, "ext_dropped_lines", "%llu", U(t.ext_dropped_lines));
	lines_write_meta(f, "ext_dropped_events", "%llu", U(t.ext_dropped_events));
	lines_write_meta(f, "lines_with_events", "%llu", U(with_events));
	lines_write_meta(f, "lines_written", "%llu", U(nlines));
	lines_write_meta(f, "status", "%s", *status ? status : "ok");
	fprintf(f, "#fields\twindow\tindex\twindows\topen\taccesses\tload_hitm\tstore_hitm\tstore_inval\tfalse\ttrue"
		"\tinsns\tinsns_vcpu\n");
	fprintf(f, "#fields\tline\tpaddr\tvaddr\twin_loads\twin_stores\t" COUNT_COLS
		"\tother_shape_accesses\tother_shape_events\tother_site_accesses\tother_site_events\twindow\n");
	fprintf(f, "#fields\tshape\tpaddr\toff\tsize\t" COUNT_COLS "\tother_mask\n");
	fprintf(f, "#fields\tsite\tpaddr\tpc\tvcpu\trw\toff\tsize\t" COUNT_COLS "\tprev_vcpu\tprev_pc\tother_mask\n");
	if (m->each) {
		uint64_t ignore = 0, ignore2 = 0;

		rc |= copy_each(m, f);
		/* A window still open: its row and lines so far. */
		if (t.window_open) {
			struct lines_window_row one = rows[nrows - 1];

			if (one.windows > 1) {
				/* The last row holds several windows (64 and more): its own counts. */
				struct lines_totals now;

				memset(&one, 0, sizeof(one));
				sum_totals(m, &now);
				row_add(&one, &now, &m->at_open);
				insns_add(&one, &m->insns);
				one.open = true;
			}
			one.index = m->started - 1;
			one.windows = 1;
			rc |= write_block(m, f, &one, m->each_top, true, &ignore, &ignore2);
		}
	} else {
		uint64_t ignore = 0, ignore2 = 0;

		for (unsigned r = 0; r < nrows; r++)
			put_window_row(f, &rows[r], m->vcpus);
		rc |= write_block(m, f, NULL, top, false, &ignore, &ignore2);
	}
	/* Without its end a reader knows the file is not whole. */
	if (!rc)
		fprintf(f, "# end\n");
	unlock_stripes(m);
	pthread_mutex_unlock(&m->win_mu);
	fflush(f);
	return rc || ferror(f) ? -1 : 0;
}
