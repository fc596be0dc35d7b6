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
#include "bpf/lockhold.bpf.h"
#include "kernel/bpf_log.h"
#include "lock/lock_bpf.h"
#include "util/err.h"

extern const char bpf_obj_lockhold[], bpf_obj_lockhold_end[];

/* The programs of lab/bpf/lockhold.bpf.c. */
enum { P_LOCK, P_LOCK_RET, P_UNLOCK, P_FUNC, P_FUNC_RET, P_NKPROBE };
static const char *const kprobe_progs[P_NKPROBE] = {
	"lock_enter", "lock_exit", "unlock_enter", "func_enter", "func_exit",
};
static const char *const fentry_progs[P_NKPROBE] = {
	"lock_enter_fe", "lock_exit_fe", "unlock_enter_fe", "func_enter_fe", "func_exit_fe",
};

struct lock_bpf {
	enum lock_bpf_mode mode;
	struct lock_bpf_opts o;		/* its strings are the caller's, until free */
	void *log;			/* libbpf's printer while we run */
	struct bpf_object *obj;
	struct bpf_program *kp[P_NKPROBE], *fe[P_NKPROBE], *rstat_locked, *rstat_unlock;
	int counters_fd;
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
	const char *lf = o->lock_func ? o->lock_func : "mutex_lock";
	const char *uf = o->unlock_func ? o->unlock_func : "mutex_unlock";

	switch (o->mode) {
	case LOCK_BPF_RSTAT_TP:
		if (attach(b, bpf_program__attach(b->rstat_locked), "cgroup:cgroup_rstat_locked", err, errlen) ||
		    attach(b, bpf_program__attach(b->rstat_unlock), "cgroup:cgroup_rstat_unlock", err, errlen))
			return -1;
		return 0;
	case LOCK_BPF_KPROBE:
		if (attach(b, bpf_program__attach_kprobe(b->kp[P_LOCK], false, lf), lf, err, errlen) ||
		    attach(b, bpf_program__attach_kprobe(b->kp[P_LOCK_RET], true, lf), lf, err, errlen) ||
		    attach(b, bpf_program__attach_kprobe(b->kp[P_UNLOCK], false, uf), uf, err, errlen))
			return -1;
		if (o->holder_func &&
		    (attach(b, bpf_program__attach_kprobe(b->kp[P_FUNC], false, o->holder_func),
			    o->holder_func, err, errlen) ||
		     attach(b, bpf_program__attach_kprobe(b->kp[P_FUNC_RET], true, o->holder_func),
			    o->holder_func, err, errlen)))
			return -1;
		return 0;
	case LOCK_BPF_FENTRY:
		for (int i = 0; i < P_NKPROBE; i++) {
			const char *what = i < P_FUNC ? (i == P_UNLOCK ? uf : lf) : o->holder_func;

			if (i >= P_FUNC && !o->holder_func)
				break;
			if (attach(b, bpf_program__attach(b->fe[i]), what, err, errlen))
				return -1;
		}
		return 0;
	}
	return -1;
}

/* Only the programs of the chosen mode are loaded; fentry programs need
 * their targets before the load. */
static int select_programs(struct lock_bpf *b, const struct lock_bpf_opts *o)
{
	const char *lf = o->lock_func ? o->lock_func : "mutex_lock";
	const char *uf = o->unlock_func ? o->unlock_func : "mutex_unlock";
	bool holder = o->holder_func != NULL;

	for (int i = 0; i < P_NKPROBE; i++) {
		bool want = i < P_FUNC || holder;

		b->kp[i] = bpf_object__find_program_by_name(b->obj, kprobe_progs[i]);
		b->fe[i] = bpf_object__find_program_by_name(b->obj, fentry_progs[i]);
		if (!b->kp[i] || !b->fe[i])
			return -1;
		bpf_program__set_autoload(b->kp[i], o->mode == LOCK_BPF_KPROBE && want);
		bpf_program__set_autoload(b->fe[i], o->mode == LOCK_BPF_FENTRY && want);
		if (o->mode == LOCK_BPF_FENTRY && want &&
		    bpf_program__set_attach_target(b->fe[i], 0, i < P_FUNC ? (i == P_UNLOCK ? uf : lf) :
						   o->holder_func))
			return -1;
	}
	b->rstat_locked = bpf_object__find_program_by_name(b->obj, "rstat_locked");
	b->rstat_unlock = bpf_object__find_program_by_name(b->obj, "rstat_unlock");
	if (!b->rstat_locked || !b->rstat_unlock)
		return -1;
	bpf_program__set_autoload(b->rstat_locked, o->mode == LOCK_BPF_RSTAT_TP);
	bpf_program__set_autoload(b->rstat_unlock, o->mode == LOCK_BPF_RSTAT_TP);
	return 0;
}

struct lock_bpf *lock_bpf_load(const struct lock_bpf_opts *o, char *err, size_t errlen)
{
	struct lock_bpf *b = xcalloc(1, sizeof(*b));
	struct lockhold_cfg cfg = { .target_addr = o->addr, .learn = !o->addr && o->holder_func };
	struct bpf_map *config, *counters, *events;
	__u32 k = 0;
	int e;

	lock_bpf_results_init(&b->res);
	b->res.addr = o->addr;
	b->mode = o->mode;
	b->o = *o;
	b->counters_fd = -1;
	b->log = bpf_log_quiet();
	b->obj = bpf_object__open_mem(bpf_obj_lockhold, bpf_obj_lockhold_end - bpf_obj_lockhold, NULL);
	if (!b->obj) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	if (select_programs(b, o)) {
		snprintf(err, errlen, "%s: no BTF target for %s", lock_bpf_mode_name(o->mode),
			 o->holder_func ? o->holder_func : "the lock functions");
		goto fail;
	}
	e = bpf_object__load(b->obj);
	if (e) {
		snprintf(err, errlen, "cannot load the %s BPF programs: %s%s", lock_bpf_mode_name(o->mode),
			 strerror(-e), e == -EPERM && geteuid() ? " (needs root or CAP_BPF+CAP_PERFMON)" :
			 o->mode == LOCK_BPF_FENTRY ? " (this kernel has no BPF trampolines for fentry)" : "");
		goto fail;
	}
	config = bpf_object__find_map_by_name(b->obj, "config");
	counters = bpf_object__find_map_by_name(b->obj, "counters");
	events = bpf_object__find_map_by_name(b->obj, "events");
	if (!config || !counters || !events || bpf_map_update_elem(bpf_map__fd(config), &k, &cfg, 0)) {
		snprintf(err, errlen, "the lock hold BPF object lacks its maps");
		goto fail;
	}
	b->counters_fd = bpf_map__fd(counters);
	b->rb = ring_buffer__new(bpf_map__fd(events), on_event, &b->res, NULL);
	if (!b->rb) {
		snprintf(err, errlen, "cannot open the BPF ring buffer: %s", strerror(errno));
		goto fail;
	}
	bpf_log_restore(b->log);
	return b;
fail:
	bpf_log_restore(b->log);
	lock_bpf_free(b);
	return NULL;
}

int lock_bpf_attach(struct lock_bpf *b, char *err, size_t errlen)
{
	int r = -1;

	if (b->running)
		return 0;
	b->log = bpf_log_quiet();
	if (attach_all(b, &b->o, err, errlen))
		goto out;
	if (pthread_create(&b->thread, NULL, poller, b)) {
		snprintf(err, errlen, "cannot start the BPF poller thread");
		goto out;
	}
	b->running = true;
	r = 0;
out:
	if (r) {
		/* Nothing half attached stays. */
		for (int i = 0; i < b->nlinks; i++)
			bpf_link__destroy(b->links[i]);
		b->nlinks = 0;
	}
	bpf_log_restore(b->log);
	return r;
}

struct lock_bpf *lock_bpf_start(const struct lock_bpf_opts *o, char *err, size_t errlen)
{
	struct lock_bpf *b = lock_bpf_load(o, err, errlen);

	if (b && lock_bpf_attach(b, err, errlen)) {
		lock_bpf_free(b);
		return NULL;
	}
	return b;
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
	if (!bpf_map_lookup_elem(b->counters_fd, &k, &v))
		b->res.lost = v;
	k = LH_CNT_LEARNED;
	if (!b->res.addr && !bpf_map_lookup_elem(b->counters_fd, &k, &v))
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
	if (b->obj)
		bpf_object__close(b->obj);
	free(b);
}
