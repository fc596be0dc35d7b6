// SPDX-License-Identifier: GPL-2.0
/*
 * The lock tracer's records (lock/lock_tracer_records.h): what each one
 * means.  A ring-buffer page decoded with kbuffer and the fields of the
 * event formats; the records handled in time order -- waits per lock into
 * lockcon, the rstat lock's waits and holds per (root, level), the flush
 * calls -- and the locks named (a data symbol, the rstat lock of a
 * hierarchy, the caller a stacktrace trigger's stack shows).  Nothing here
 * touches tracefs: lock_tracer.c does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/kbuffer.h>
#include "lock/lock_tracer_records.h"
#include "util/err.h"
#include "util/fileio.h"

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

const char *lock_records_rstat_lock_name(const struct lock_tracer *t, int root)
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

void lock_records_decode_page(struct lock_tracer *t)
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
			snprintf(li->name, sizeof(li->name), "%s", lock_records_rstat_lock_name(t, rs->root));
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

static int cmp_tev(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The batch sorted, the records up to mark handled, the rest kept (from
 * drain() of lock_tracer.c). */
void lock_records_handle_until(struct lock_tracer *t, uint64_t mark)
{
	size_t i, k = 0;

	qsort(t->batch, t->nbatch, sizeof(*t->batch), cmp_tev);
	for (i = 0; i < t->nbatch && t->batch[i].ts <= mark; i++)
		process(t, &t->batch[i]);
	for (; i < t->nbatch; i++)
		t->batch[k++] = t->batch[i];
	t->nbatch = k;
}

void lock_records_init(struct lock_tracer *t, const struct lock_tracer_opts *o)
{
	lockcon_init(&t->lc, LOCKCON_BY_LOCK, NULL);
	t->lc.keep_acquired = false;
	t->lc.restart_spin = true;
	t->lc.max_hist = 1024;
	u64map_init(&t->infos);
	u64map_init(&t->rstat);
	u64map_init(&t->rstates);
	u64map_init(&t->last_begin);
	setup_names(t, o);
}

void lock_records_free(struct lock_tracer *t)
{
	size_t i = 0;
	void *v;

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
	free(t->batch);
}
