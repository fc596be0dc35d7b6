// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/lock_hold.h"
#include "collect/bpf_log.h"
#include "collect/lock_bpf.h"
#include "lock_hold.skel.h"
#include "util/err.h"

struct lock_bpf {
	enum lock_bpf_mode mode;
	void *log;			/* libbpf's printer while we run */
	struct lock_hold *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[8];
	int nlinks;
	pthread_t thread;
	atomic_bool stop;
	bool running;
	struct lock_bpf_results res;
};

const char *lock_bpf_mode_name(enum lock_bpf_mode m)
{
	switch (m) {
	case LOCK_BPF_KPROBE: return "bpf-kprobe";
	case LOCK_BPF_FENTRY: return "bpf-fentry";
	case LOCK_BPF_RSTAT_TP: return "bpf-rstat-tracepoints";
	}
	return "?";
}

void lock_bpf_results_init(struct lock_bpf_results *r)
{
	memset(r, 0, sizeof(*r));
	hist_init(&r->hold);
	hist_init(&r->wait);
	hist_init(&r->func);
	hist_init(&r->rstat_hold);
}

int lock_bpf_consume(struct lock_bpf_results *r, const void *data, size_t size)
{
	struct lock_hold_rec rec;

	if (size < sizeof(rec)) {
		r->bad_records++;
		return 0;
	}
	memcpy(&rec, data, sizeof(rec));
	r->records++;
	switch (rec.kind) {
	case LH_HOLD:
		hist_record(&r->hold, rec.dur);
		r->addr = rec.addr;
		break;
	case LH_WAIT:
		hist_record(&r->wait, rec.dur);
		r->addr = rec.addr;
		break;
	case LH_FUNC:
		hist_record(&r->func, rec.dur);
		break;
	case LH_RSTAT_HOLD:
		hist_record(&r->rstat_hold, rec.dur);
		break;
	default:
		r->records--;
		r->bad_records++;
	}
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	return lock_bpf_consume(ctx, data, size);
}

static void *poller(void *arg)
{
	struct lock_bpf *b = arg;

	while (!atomic_load(&b->stop))
		ring_buffer__poll(b->rb, 100);
	return NULL;
}

static int attach(struct lock_bpf *b, struct bpf_link *l, const char *what, char *err, size_t errlen)
{
	long e = libbpf_get_error(l);

	if (!l || e) {
		int code = e ? -e : errno;

		snprintf(err, errlen, "cannot attach BPF to %s: %s%s", what, strerror(code),
			 b->mode == LOCK_BPF_KPROBE && !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ? "" :
			 b->mode == LOCK_BPF_KPROBE ? " (no kprobes: CONFIG_KPROBES is off)" :
			 b->mode == LOCK_BPF_FENTRY ? " (no BPF trampolines for fentry)" : "");
		return -1;
	}
	b->links[b->nlinks++] = l;
	return 0;
}

static int attach_all(struct lock_bpf *b, const struct lock_bpf_opts *o, char *err, size_t errlen)
{
	struct lock_hold *s = b->skel;
	const char *lf = o->lock_func ? o->lock_func : "mutex_lock";
	const char *uf = o->unlock_func ? o->unlock_func : "mutex_unlock";

	switch (o->mode) {
	case LOCK_BPF_RSTAT_TP:
		if (attach(b, bpf_program__attach(s->progs.rstat_locked), "cgroup:cgroup_rstat_locked", err, errlen) ||
		    attach(b, bpf_program__attach(s->progs.rstat_unlock), "cgroup:cgroup_rstat_unlock", err, errlen))
			return -1;
		return 0;
	case LOCK_BPF_KPROBE:
		if (attach(b, bpf_program__attach_kprobe(s->progs.lock_enter, false, lf), lf, err, errlen) ||
		    attach(b, bpf_program__attach_kprobe(s->progs.lock_exit, true, lf), lf, err, errlen) ||
		    attach(b, bpf_program__attach_kprobe(s->progs.unlock_enter, false, uf), uf, err, errlen))
			return -1;
		if (o->holder_func &&
		    (attach(b, bpf_program__attach_kprobe(s->progs.func_enter, false, o->holder_func),
			    o->holder_func, err, errlen) ||
		     attach(b, bpf_program__attach_kprobe(s->progs.func_exit, true, o->holder_func),
			    o->holder_func, err, errlen)))
			return -1;
		return 0;
	case LOCK_BPF_FENTRY:
		if (attach(b, bpf_program__attach(s->progs.lock_enter_fe), lf, err, errlen) ||
		    attach(b, bpf_program__attach(s->progs.lock_exit_fe), lf, err, errlen) ||
		    attach(b, bpf_program__attach(s->progs.unlock_enter_fe), uf, err, errlen))
			return -1;
		if (o->holder_func &&
		    (attach(b, bpf_program__attach(s->progs.func_enter_fe), o->holder_func, err, errlen) ||
		     attach(b, bpf_program__attach(s->progs.func_exit_fe), o->holder_func, err, errlen)))
			return -1;
		return 0;
	}
	return -1;
}

/* Only the programs of the chosen mode are loaded; fentry programs need
 * their targets before the load. */
static int select_programs(struct lock_hold *s, const struct lock_bpf_opts *o)
{
	const char *lf = o->lock_func ? o->lock_func : "mutex_lock";
	const char *uf = o->unlock_func ? o->unlock_func : "mutex_unlock";
	struct bpf_program *kp[] = { s->progs.lock_enter, s->progs.lock_exit, s->progs.unlock_enter,
				     s->progs.func_enter, s->progs.func_exit };
	struct bpf_program *fe[] = { s->progs.lock_enter_fe, s->progs.lock_exit_fe,
				     s->progs.unlock_enter_fe, s->progs.func_enter_fe, s->progs.func_exit_fe };
	bool holder = o->holder_func != NULL;

	for (int i = 0; i < 5; i++) {
		bool want = i < 3 || holder;

		bpf_program__set_autoload(kp[i], o->mode == LOCK_BPF_KPROBE && want);
		bpf_program__set_autoload(fe[i], o->mode == LOCK_BPF_FENTRY && want);
	}
	bpf_program__set_autoload(s->progs.rstat_locked, o->mode == LOCK_BPF_RSTAT_TP);
	bpf_program__set_autoload(s->progs.rstat_unlock, o->mode == LOCK_BPF_RSTAT_TP);
	if (o->mode == LOCK_BPF_FENTRY) {
		if (bpf_program__set_attach_target(fe[0], 0, lf) ||
		    bpf_program__set_attach_target(fe[1], 0, lf) ||
		    bpf_program__set_attach_target(fe[2], 0, uf))
			return -1;
		if (holder && (bpf_program__set_attach_target(fe[3], 0, o->holder_func) ||
			       bpf_program__set_attach_target(fe[4], 0, o->holder_func)))
			return -1;
	}
	return 0;
}

struct lock_bpf *lock_bpf_start(const struct lock_bpf_opts *o, char *err, size_t errlen)
{
	struct lock_bpf *b = xcalloc(1, sizeof(*b));
	int e;

	lock_bpf_results_init(&b->res);
	b->res.addr = o->addr;
	b->mode = o->mode;
	b->log = bpf_log_quiet();
	b->skel = lock_hold__open();
	if (!b->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	b->skel->rodata->target_addr = o->addr;
	b->skel->rodata->learn = !o->addr && o->holder_func;
	if (select_programs(b->skel, o)) {
		snprintf(err, errlen, "%s: no BTF target for %s", lock_bpf_mode_name(o->mode),
			 o->holder_func ? o->holder_func : "the lock functions");
		goto fail;
	}
	e = lock_hold__load(b->skel);
	if (e) {
		snprintf(err, errlen, "cannot load the %s BPF programs: %s%s", lock_bpf_mode_name(o->mode),
			 strerror(-e), e == -EPERM && geteuid() ? " (needs root or CAP_BPF+CAP_PERFMON)" :
			 o->mode == LOCK_BPF_FENTRY ? " (this kernel has no BPF trampolines for fentry)" : "");
		goto fail;
	}
	if (attach_all(b, o, err, errlen))
		goto fail;
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), on_event, &b->res, NULL);
	if (!b->rb) {
		snprintf(err, errlen, "cannot open the BPF ring buffer: %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&b->thread, NULL, poller, b)) {
		snprintf(err, errlen, "cannot start the BPF poller thread");
		goto fail;
	}
	b->running = true;
	bpf_log_restore(b->log);
	return b;
fail:
	bpf_log_restore(b->log);
	lock_bpf_free(b);
	return NULL;
}

void lock_bpf_stop(struct lock_bpf *b)
{
	uint32_t k;
	uint64_t v;

	if (!b->running)
		return;
	for (int i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	b->nlinks = 0;
	atomic_store(&b->stop, true);
	pthread_join(b->thread, NULL);
	b->running = false;
	ring_buffer__consume(b->rb);
	k = LH_CNT_LOST;
	if (!bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.counters), &k, &v))
		b->res.lost = v;
	k = LH_CNT_LEARNED;
	if (!b->res.addr && !bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.counters), &k, &v))
		b->res.addr = v;
}

const struct lock_bpf_results *lock_bpf_results(const struct lock_bpf *b)
{
	return &b->res;
}

void lock_bpf_free(struct lock_bpf *b)
{
	if (!b)
		return;
	lock_bpf_stop(b);
	for (int i = 0; i < b->nlinks; i++)
		bpf_link__destroy(b->links[i]);
	ring_buffer__free(b->rb);
	lock_hold__destroy(b->skel);
	free(b);
}
