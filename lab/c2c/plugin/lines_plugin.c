// SPDX-License-Identifier: GPL-2.0
/*
 * lines-plugin: a qemu TCG plugin that follows every cacheline between a
 * guest's vCPUs (the model: c2c/lines_model.h; the output format and the
 * options: lab/c2c/README).  Built against the qemu-plugin.h of the
 * installed qemu (lab/scripts/qemu-plugin-header.sh) as
 * build/lines-plugin.so, with the QEMU_PLUGIN_VERSION 1 API only (qemu 7.2).
 *
 *   qemu-system-x86_64 ... -plugin build/lines-plugin.so,out=FILE[,OPTION=VALUE]...
 *
 * The window's magic NOPs (c2c/lines_window.h) get an execution callback
 * wherever they are translated.  Outside the windows nothing else is
 * instrumented; a prepare (or an opening) has qemu flush its translations
 * (qemu_plugin_reset, whose callback registers ours again), and from then
 * on (until a closing flushes them again: plugin API 4 on) the instructions in scope (the
 * guest kernel's, by default) get a memory callback and every block an
 * inline count of its instructions.  Inside the window the access's
 * physical address comes from qemu's TLB and goes to the model, and, with
 * trace=N, the accesses to the lines asked for in detail go to the trace
 * (c2c/lines_trace.h).  mode=insns counts the instructions alone.  At
 * qemu's exit the model is written to FILE (FILE.tmp, then renamed: a FILE
 * that exists is whole) and the trace's header to FILE.trace.
 *
 * The API: QEMU_PLUGIN_VERSION 1 (qemu 7.2) is the floor; with 2 and later
 * (qemu 9.0 on) the instructions are counted per vCPU in a scoreboard, and
 * from 3 on the instruction bytes are copied out.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <qemu-plugin.h>
#include "c2c/lines_model.h"
#include "c2c/lines_trace_write.h"
#include "c2c/lines_window.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define PLUGIN_NAME "lines-plugin"
#define PLUGIN_VERSION 1
#ifndef LINES_QEMU_HEADER
#define LINES_QEMU_HEADER "unknown"
#endif
/* x86-64: the kernel lives in the upper half of the address space. */
#define KERNEL_START 0xffff800000000000ULL

struct range {
	uint64_t lo, hi;	/* [lo, hi) */
};

struct ranges {
	struct range *r;
	size_t n;
};

enum scope { SCOPE_KERNEL, SCOPE_USER, SCOPE_ALL };
static const char *const scope_names[] = { "kernel", "user", "all", NULL };	/* enum scope */

/* Detail ranges the guest announced (c2c/lines_window.h): pending until
 * the next opening, then the window's (read lock-free by the callbacks:
 * a set, once published, never changes; the old ones are freed at exit). */
#define MAX_ANNOUNCED 65536
struct announced {
	struct range r[MAX_ANNOUNCED];
	unsigned n;
};
struct range_set {
	struct ranges rs;
	struct ranges lines;		/* rs rounded out to whole lines: what the trace records */
	struct range_set *prev;		/* freed at exit */
};

enum collect { COLLECT_LINES, COLLECT_INSNS };
static const char *const collect_names[] = { "lines", "insns" };
/* The window callbacks' user data. */
enum { W_CLOSE, W_OPEN, W_PREPARE };

static struct {
	qemu_plugin_id_t id;
	struct lines_model *m;
	enum collect collect;
	bool always;				/* window=always: instrumented from the start */
	int instrument;				/* translations instrument (atomic) */
	uint64_t flushes, unprepared;		/* translation flushes done; openings not prepared */
	uint64_t insns_at_open;			/* the counter(s) when the window opened */
	uint64_t vcpu_at_open[LINES_MAX_VCPUS];
	struct ranges detail_lines;		/* detail= rounded out to lines (the trace) */
	uint64_t trace_cap;			/* trace=N: records; 0 no trace */
	char *trace_path;
	struct lines_trace_writer tw;
	bool trace;				/* tw open */
	uint32_t window;			/* the open window's number (the trace's records) */
	const char *out, *qemu, *mode_how;
	enum scope scope;
	struct ranges pc, addr, detail;
	bool each;				/* windows=each */
	FILE *each_stream;
	char *each_path;
	pthread_mutex_t ann_mu;
	struct announced *ann;			/* at translation: the ranges of marker instructions */
	struct ranges pending;			/* run, for the next window */
	struct range_set *active;		/* this window's */
	uint64_t announced, ann_dropped, ann_broken;
	unsigned top, vcpus;
	bool mttcg;
	const char *target;
	int api_min, api_cur;
	uint64_t insns, windows_insns;		/* instrumented at translation (atomic) */
	pthread_t owner;			/* single-threaded TCG: the one vCPU thread */
	int owner_set;
	uint64_t thread_violations;
	uint64_t stale;				/* kernel accesses given to a user instruction */
	int detail_seen;			/* an access to a detail= range came in a window */
} P;

/*
 * The instructions the vCPUs run while instrumented: an inline add of each
 * block's length when it starts (so a block left early, by a fault or an
 * interrupt, counts its rest: at most its length, per such exit).  From
 * API 2 (qemu 9.0) one counter per vCPU in a scoreboard; qemu 7.2 has one
 * counter for all, exact under single-threaded TCG but racy under MTTCG
 * (its add is not atomic: concurrent vCPUs lose some: a lower bound).
 */
#if QEMU_PLUGIN_VERSION >= 2
static struct qemu_plugin_scoreboard *insns_sb;
static qemu_plugin_u64 insns_entry;
#define INSNS_PER_VCPU 1
#else
static uint64_t insns_counter;
#define INSNS_PER_VCPU 0
#endif

/* The instructions so far, all vCPUs; per vCPU into per (P.vcpus) where
 * the API counts them so. */
static uint64_t insns_now(uint64_t *per)
{
#if INSNS_PER_VCPU
	uint64_t t = 0;
	unsigned n = (unsigned)qemu_plugin_num_vcpus();

	for (unsigned v = 0; v < P.vcpus; v++) {
		per[v] = v < n ? qemu_plugin_u64_get(insns_entry, v) : 0;
		t += per[v];
	}
	return t;
#else
	(void)per;
	return __atomic_load_n(&insns_counter, __ATOMIC_RELAXED);
#endif
}

static void insns_count_tb(struct qemu_plugin_tb *tb, size_t n)
{
#if INSNS_PER_VCPU
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, insns_entry, n);
#else
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns_counter, n);
#endif
}

static bool in_ranges(const struct ranges *rs, uint64_t a)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a < rs->r[mid].lo)
			hi = mid;
		else if (a >= rs->r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static bool pc_in_scope(uint64_t pc)
{
	if (P.pc.n)
		return in_ranges(&P.pc, pc);
	switch (P.scope) {
	case SCOPE_KERNEL:
		return pc >= KERNEL_START;
	case SCOPE_USER:
		return pc < KERNEL_START;
	default:
		return true;
	}
}

static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	uint64_t pc = (uint64_t)(uintptr_t)udata;
	struct qemu_plugin_hwaddr *hw;
	const struct range_set *a;
	unsigned flags = 0, size;

	if (!lines_model_counting(P.m))
		return;
	if (!P.mttcg) {
		pthread_t self = pthread_self();

		if (__builtin_expect(!__atomic_load_n(&P.owner_set, __ATOMIC_RELAXED), 0)) {
			P.owner = self;
			__atomic_store_n(&P.owner_set, 1, __ATOMIC_RELEASE);
		} else if (__builtin_expect(!pthread_equal(self, P.owner), 0)) {
			/* Not single-threaded after all: said in the status. */
			__atomic_fetch_add(&P.thread_violations, 1, __ATOMIC_RELAXED);
		}
	}
	/*
	 * qemu 7.2 leaves the last instrumented instruction's callbacks armed
	 * while it delivers an interrupt, so the pushes of the interrupt frame
	 * onto the kernel stack come here as that instruction's stores.  A
	 * user instruction cannot touch kernel memory: those are dropped and
	 * counted (stale_accesses).  For a kernel instruction they cannot be
	 * told apart (lab/c2c/README).
	 */
	if (pc < KERNEL_START && vaddr >= KERNEL_START) {
		__atomic_fetch_add(&P.stale, 1, __ATOMIC_RELAXED);
		return;
	}
	if (P.addr.n && !in_ranges(&P.addr, vaddr))
		return;
	a = __atomic_load_n(&P.active, __ATOMIC_ACQUIRE);
	if (P.detail.n && in_ranges(&P.detail, vaddr)) {
		flags |= LINES_DETAIL;
		if (!__atomic_load_n(&P.detail_seen, __ATOMIC_RELAXED))
			__atomic_store_n(&P.detail_seen, 1, __ATOMIC_RELAXED);
	} else if (a && a->rs.n && in_ranges(&a->rs, vaddr)) {
		flags |= LINES_DETAIL;
	}
	if (qemu_plugin_mem_is_store(info))
		flags |= LINES_STORE;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw) {
		lines_model_skip(P.m, vcpu, LINES_SKIP_NO_PADDR);
		return;
	}
	if (qemu_plugin_hwaddr_is_io(hw)) {
		lines_model_skip(P.m, vcpu, LINES_SKIP_IO);
		return;
	}
	size = 1u << qemu_plugin_mem_size_shift(info);
	/* The trace: every access to a line of a detail range, whole lines
	 * (the neighbours of an object on its lines too), in the model's order. */
	if (P.trace && ((P.detail_lines.n && in_ranges(&P.detail_lines, vaddr)) ||
			(a && a->lines.n && in_ranges(&a->lines, vaddr))))
		lines_trace_put(&P.tw, __atomic_load_n(&P.window, __ATOMIC_RELAXED), vcpu, pc, vaddr, size,
				flags & LINES_STORE);
	lines_model_access(P.m, vcpu, pc, vaddr, qemu_plugin_hwaddr_phys_addr(hw), size, flags);
}

static int range_cmp(const void *a, const void *b);
static void ranges_finish(struct ranges *rs);
static void ranges_to_lines(const struct ranges *rs, struct ranges *lines);
static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void plugin_exit(qemu_plugin_id_t id, void *p);

/* After a flush (all vCPUs stopped): qemu_plugin_reset took every callback. */
static void reinstalled(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	P.flushes++;
}

/*
 * Back to uninstrumented code at a closing only from plugin API 4 (qemu
 * 9.2): qemu 7.2 leaves a vCPU's memory callbacks armed after a fault or
 * an interrupt (see mem_cb), and a flush frees what they point to, so that
 * the next access qemu makes for the vCPU (an interrupt frame's push)
 * reads freed memory and aborts (seen here); later qemus clear them when a
 * block ends, and qemu_plugin_reset itself was fixed in 9.1.2 and 9.2
 * ("plugins: fix qemu_plugin_reset").  Untested here (this host runs 7.2).
 * Before API 4 the first prepare is the only flush (nothing was armed
 * before it): the boot and all before the first window run uninstrumented,
 * the rest instrumented as before.
 */
#if QEMU_PLUGIN_VERSION >= 4
#define UNINSTRUMENT 1
#else
#define UNINSTRUMENT 0
#endif

/*
 * Instrument from now on (or no longer): the blocks qemu translates from
 * here follow the new state, and a flush of every translation (when this
 * vCPU leaves its block: qemu_plugin_reset) has none of the old ones run
 * again.  A flush already on its way does it (qemu ignores a second
 * request): the translations after it read the state of then.
 */
static void instrument(bool on)
{
	if (P.always || __atomic_load_n(&P.instrument, __ATOMIC_RELAXED) == on || (!on && !UNINSTRUMENT))
		return;
	__atomic_store_n(&P.instrument, on, __ATOMIC_RELEASE);
	qemu_plugin_reset(P.id, reinstalled);
}

/* At an opening the ranges announced since the last one become the
 * window's, the instructions are counted from here; at a closing the
 * window's instructions go to its row. */
static void window_cb(unsigned int vcpu, void *udata)
{
	uintptr_t what = (uintptr_t)udata;
	uint64_t per[LINES_MAX_VCPUS] = { 0 };

	if (what == W_PREPARE) {
		instrument(true);
		return;
	}
	if (what == W_OPEN && !lines_model_counting(P.m)) {
		struct range_set *set = calloc(1, sizeof(*set));

		/* An opening nobody prepared: the other vCPUs run their old,
		 * uninstrumented blocks until the flush (counted, and said). */
		if (!P.always && !__atomic_load_n(&P.instrument, __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&P.unprepared, 1, __ATOMIC_RELAXED);
			instrument(true);
		}
		pthread_mutex_lock(&P.ann_mu);
		if (set) {
			set->rs = P.pending;
			ranges_finish(&set->rs);
			ranges_to_lines(&set->rs, &set->lines);
			set->prev = P.active;
			__atomic_store_n(&P.active, set, __ATOMIC_RELEASE);
			memset(&P.pending, 0, sizeof(P.pending));
		}
		pthread_mutex_unlock(&P.ann_mu);
		P.insns_at_open = insns_now(per);
		memcpy(P.vcpu_at_open, per, sizeof(per));
		lines_model_window(P.m, vcpu, true);
		__atomic_store_n(&P.window, (uint32_t)lines_model_window_index(P.m), __ATOMIC_RELAXED);
		return;
	}
	if (what == W_CLOSE && lines_model_counting(P.m)) {
		uint64_t t = insns_now(per);

		for (unsigned v = 0; v < P.vcpus; v++)
			per[v] -= P.vcpu_at_open[v];
		lines_model_window_insns(P.m, t - P.insns_at_open, INSNS_PER_VCPU ? per : NULL, P.vcpus);
	}
	lines_model_window(P.m, vcpu, what == W_OPEN);
	if (what == W_CLOSE && !lines_model_counting(P.m))
		instrument(false);
}

/* A detail announcement ran: its range waits for the next opening. */
static void announce_cb(unsigned int vcpu, void *udata)
{
	const struct range *r = udata;
	struct range *grown;

	(void)vcpu;
	pthread_mutex_lock(&P.ann_mu);
	grown = realloc(P.pending.r, (P.pending.n + 1) * sizeof(*grown));
	if (grown) {
		P.pending.r = grown;
		P.pending.r[P.pending.n++] = *r;
		P.announced++;
	} else {
		P.ann_dropped++;
	}
	pthread_mutex_unlock(&P.ann_mu);
}

/* The displacement of a `nopl DISP32(%rax)`, or -1 when insn is none. */
static int64_t nop_disp(struct qemu_plugin_insn *insn)
{
	if (qemu_plugin_insn_size(insn) != LINES_WINDOW_INSN_SIZE)
		return -1;
#if QEMU_PLUGIN_VERSION >= 3
	/* From API 3 (qemu 9.1) the bytes are copied out. */
	uint8_t b[LINES_WINDOW_INSN_SIZE];

	if (qemu_plugin_insn_data(insn, b, sizeof(b)) != sizeof(b))
		return -1;
#else
	const uint8_t *b = qemu_plugin_insn_data(insn);
#endif
	if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return -1;
	return (uint32_t)b[3] | (uint32_t)b[4] << 8 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 24;
}

/* W_OPEN, W_CLOSE, W_PREPARE, W_ANNOUNCE (a detail announcement), or -1. */
#define W_ANNOUNCE 3
static int window_insn(struct qemu_plugin_insn *insn)
{
	int64_t disp = nop_disp(insn);

	if (disp == LINES_WINDOW_OPEN_DISP)
		return W_OPEN;
	if (disp == LINES_WINDOW_CLOSE_DISP)
		return W_CLOSE;
	if (disp == LINES_WINDOW_PREPARE_DISP)
		return W_PREPARE;
	if (disp == LINES_DETAIL_DISP)
		return W_ANNOUNCE;
	return -1;
}

/* The announcement whose marker is instruction i of tb: its range kept
 * (bounded), a callback on the marker; the instructions it used. */
static size_t announcement(struct qemu_plugin_tb *tb, size_t i, size_t n, struct qemu_plugin_insn *marker)
{
	int64_t w[LINES_DETAIL_INSNS - 1];
	struct range *r;

	for (size_t k = 0; k < LINES_DETAIL_INSNS - 1; k++) {
		w[k] = i + 1 + k < n ? nop_disp(qemu_plugin_tb_get_insn(tb, i + 1 + k)) : -1;
		if (w[k] < 0) {
			/* Cut by the end of a block (never, from a fresh page): said in the meta. */
			__atomic_fetch_add(&P.ann_broken, 1, __ATOMIC_RELAXED);
			return 1;
		}
	}
	pthread_mutex_lock(&P.ann_mu);
	r = P.ann->n < MAX_ANNOUNCED ? &P.ann->r[P.ann->n++] : NULL;
	pthread_mutex_unlock(&P.ann_mu);
	if (!r) {
		__atomic_fetch_add(&P.ann_dropped, 1, __ATOMIC_RELAXED);
		return LINES_DETAIL_INSNS;
	}
	r->lo = (uint64_t)w[0] | (uint64_t)w[1] << 32;
	r->hi = r->lo + (uint64_t)w[2];
	if (r->hi <= r->lo) {
		__atomic_fetch_add(&P.ann_broken, 1, __ATOMIC_RELAXED);
		return LINES_DETAIL_INSNS;
	}
	qemu_plugin_register_vcpu_insn_exec_cb(marker, announce_cb, QEMU_PLUGIN_CB_NO_REGS, r);
	return LINES_DETAIL_INSNS;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t added = 0;
	bool on = P.always || __atomic_load_n(&P.instrument, __ATOMIC_ACQUIRE);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		int w = window_insn(insn);

		if (w == W_ANNOUNCE) {
			i += announcement(tb, i, n, insn) - 1;
			continue;
		}
		if (w >= 0) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_cb, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)w);
			__atomic_fetch_add(&P.windows_insns, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (!on || P.collect != COLLECT_LINES || !pc_in_scope(pc))
			continue;
		/* The PC rides in the callback's user data: nothing allocated. */
		qemu_plugin_register_vcpu_mem_cb(insn, mem_cb, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
						 (void *)(uintptr_t)pc);
		added++;
	}
	if (on && n)
		insns_count_tb(tb, n);
	if (added)
		__atomic_fetch_add(&P.insns, added, __ATOMIC_RELAXED);
}

/* A field of /proc/self/status in kB ("VmHWM"), or 0. */
static unsigned long long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long v = 0;
	size_t n = strlen(key);

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtoull(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	char *tmp, problem[96] = "", terr[256];
	uint64_t violations = __atomic_load_n(&P.thread_violations, __ATOMIC_RELAXED);
	struct lines_totals t;
	FILE *f;
	int rc;

	(void)id;
	(void)p;
	/* An open window stays open (the model says so); under MTTCG vCPUs
	 * may still run: lines_model_write holds every stripe's lock. */
	if (asprintf(&tmp, "%s.tmp", P.out) < 0) {
		fprintf(stderr, PLUGIN_NAME ": %s: out of memory\n", P.out);
		return;
	}
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, PLUGIN_NAME ": %s: %s\n", tmp, strerror(errno));
		free(tmp);
		return;
	}
	if (violations)
		snprintf(problem, sizeof(problem), "not-single-threaded(%llu accesses from a second thread)",
			 (unsigned long long)violations);
	/* A window still open: its instructions so far. */
	if (lines_model_counting(P.m)) {
		uint64_t per[LINES_MAX_VCPUS] = { 0 }, t = insns_now(per);

		for (unsigned v = 0; v < P.vcpus; v++)
			per[v] -= P.vcpu_at_open[v];
		lines_model_window_insns(P.m, t - P.insns_at_open, INSNS_PER_VCPU ? per : NULL, P.vcpus);
	}
	if (P.trace && lines_trace_writer_finish(&P.tw, terr, sizeof(terr)) < 0)
		fprintf(stderr, PLUGIN_NAME ": %s: %s\n", P.trace_path, terr);
	lines_write_begin(f);
	lines_write_meta(f, "plugin", PLUGIN_NAME " %d", PLUGIN_VERSION);
	lines_write_meta(f, "qemu", "%s", P.qemu);
	lines_write_meta(f, "qemu_header", "%s", LINES_QEMU_HEADER);
	lines_write_meta(f, "plugin_api", "built %d, qemu accepts %d..%d", QEMU_PLUGIN_VERSION, P.api_min,
			 P.api_cur);
	lines_write_meta(f, "target", "%s", P.target);
	lines_write_meta(f, "vcpus", "%u", P.vcpus);
	lines_write_meta(f, "mode", "%s", P.mttcg ? "mttcg" : "single");
	lines_write_meta(f, "mode_from", "%s", P.mode_how);
	lines_write_meta(f, "scope", "%s", P.pc.n ? "pc" : scope_names[P.scope]);
	lines_write_meta(f, "pc_ranges", "%zu", P.pc.n);
	lines_write_meta(f, "addr_ranges", "%zu", P.addr.n);
	lines_write_meta(f, "detail_ranges", "%zu", P.detail.n);
	lines_write_meta(f, "detail_seen", "%d", __atomic_load_n(&P.detail_seen, __ATOMIC_RELAXED));
	lines_write_meta(f, "insns_instrumented", "%llu",
			 (unsigned long long)__atomic_load_n(&P.insns, __ATOMIC_RELAXED));
	lines_write_meta(f, "window_insns", "%llu",
			 (unsigned long long)__atomic_load_n(&P.windows_insns, __ATOMIC_RELAXED));
	lines_write_meta(f, "thread_violations", "%llu", (unsigned long long)violations);
	lines_write_meta(f, "qemu_vmhwm_kb", "%llu", status_kb("VmHWM"));
	lines_write_meta(f, "stale_accesses", "%llu", (unsigned long long)__atomic_load_n(&P.stale, __ATOMIC_RELAXED));
	lines_write_meta(f, "collect", "%s", collect_names[P.collect]);
	lines_write_meta(f, "instrumented", "%s", P.always ? "always" : UNINSTRUMENT ?
			 "in the windows (translations flushed at each prepare and closing)" :
			 "from the first window's prepare on (qemu 7.2: one flush)");
	lines_write_meta(f, "translation_flushes", "%llu", (unsigned long long)P.flushes);
	lines_write_meta(f, "opens_unprepared", "%llu", (unsigned long long)__atomic_load_n(&P.unprepared,
			 __ATOMIC_RELAXED));
	lines_write_meta(f, "insns_counted", "%s", INSNS_PER_VCPU ? "per-vcpu" : P.mttcg ? "total-racy" : "total");
	lines_write_meta(f, "insns_how", "%s", INSNS_PER_VCPU ?
			 "each translation block's length added when it starts, per vCPU (a scoreboard: plugin API 2 on)" :
			 P.mttcg ? "each translation block's length added when it starts, one counter for all vCPUs "
			 "(plugin API 1, qemu 7.2): under MTTCG the vCPUs' adds race and lose some (a lower bound)" :
			 "each translation block's length added when it starts, one counter for all vCPUs (plugin "
			 "API 1, qemu 7.2; exact under single-threaded TCG)");
	if (P.trace_cap) {
		uint64_t rec = lines_trace_writer_records(&P.tw), drop = lines_trace_writer_dropped(&P.tw);

		lines_write_meta(f, "trace_file", "%s", P.trace_path);
		lines_write_meta(f, "trace_cap", "%llu", (unsigned long long)P.trace_cap);
		lines_write_meta(f, "trace_records", "%llu", (unsigned long long)rec);
		lines_write_meta(f, "trace_dropped", "%llu", (unsigned long long)drop);
		lines_write_meta(f, "trace_status", "%s", !P.trace ? "not-written" : drop ? "full" : "complete");
	}
	pthread_mutex_lock(&P.ann_mu);
	lines_write_meta(f, "detail_announced", "%llu", (unsigned long long)P.announced);
	lines_write_meta(f, "detail_announce_dropped", "%llu",
			 (unsigned long long)(P.ann_dropped + __atomic_load_n(&P.ann_broken, __ATOMIC_RELAXED)));
	pthread_mutex_unlock(&P.ann_mu);
	rc = lines_model_write(P.m, f, P.top, problem);
	if (fclose(f) || rc) {
		fprintf(stderr, PLUGIN_NAME ": writing %s: %s\n", tmp, strerror(errno));
		free(tmp);
		return;
	}
	if (rename(tmp, P.out))
		fprintf(stderr, PLUGIN_NAME ": %s -> %s: %s\n", tmp, P.out, strerror(errno));
	if (P.each_stream) {
		fclose(P.each_stream);
		unlink(P.each_path);
	}
	lines_model_totals(P.m, &t);
	fprintf(stderr, PLUGIN_NAME ": %s: %llu accesses, %llu lines, %llu load HITM, %llu store HITM, %llu inval "
		"(%llu false, %llu true)%s\n", P.out, (unsigned long long)t.accesses,
		(unsigned long long)t.lines_used, (unsigned long long)t.load_hitm, (unsigned long long)t.store_hitm,
		(unsigned long long)t.store_inval, (unsigned long long)t.false_sharing,
		(unsigned long long)t.true_sharing,
		t.dropped_accesses ? " (table full: accesses dropped)" : "");
	free(tmp);
}

/* ---- options ---- */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorted, overlaps merged: in_ranges() searches them. */
static void ranges_finish(struct ranges *rs)
{
	size_t n = 0;

	if (!rs->n)
		return;
	qsort(rs->r, rs->n, sizeof(*rs->r), range_cmp);
	for (size_t i = 1; i < rs->n; i++) {
		if (rs->r[i].lo <= rs->r[n].hi) {
			if (rs->r[i].hi > rs->r[n].hi)
				rs->r[n].hi = rs->r[i].hi;
		} else {
			rs->r[++n] = rs->r[i];
		}
	}
	rs->n = n + 1;
}

/* rs (finished) rounded out to whole 64-byte lines, merged. */
static void ranges_to_lines(const struct ranges *rs, struct ranges *lines)
{
	memset(lines, 0, sizeof(*lines));
	if (!rs->n || !(lines->r = malloc(rs->n * sizeof(*lines->r))))
		return;
	for (size_t i = 0; i < rs->n; i++)
		lines->r[i] = (struct range){ rs->r[i].lo & ~63ULL,
					      rs->r[i].hi > UINT64_MAX - 63 ? UINT64_MAX : (rs->r[i].hi + 63) & ~63ULL };
	lines->n = rs->n;
	ranges_finish(lines);
}

static int range_add(struct ranges *rs, uint64_t lo, uint64_t hi)
{
	struct range *r = realloc(rs->r, (rs->n + 1) * sizeof(*r));

	if (!r)
		return -1;
	rs->r = r;
	rs->r[rs->n++] = (struct range){ lo, hi };
	return 0;
}

/* "LO-HI": [LO, HI), numbers in C syntax (0x for hex). */
static int parse_range(const char *opt, const char *s, struct ranges *rs)
{
	char lo[32];
	const char *dash = strchr(s, '-');
	uint64_t a, b;

	if (!dash || (size_t)(dash - s) >= sizeof(lo)) {
		fprintf(stderr, PLUGIN_NAME ": %s=%s: not LO-HI\n", opt, s);
		return -1;
	}
	memcpy(lo, s, dash - s);
	lo[dash - s] = '\0';
	if (parse_u64(lo, &a) || parse_u64(dash + 1, &b) || a >= b) {
		fprintf(stderr, PLUGIN_NAME ": %s=%s: not LO-HI with LO < HI\n", opt, s);
		return -1;
	}
	return range_add(rs, a, b);
}

/* pcfile, detailfile: one "LO HI [NAME]" per line (hex with 0x, or decimal); # comments. */
static int parse_rangefile(const char *opt, const char *path, struct ranges *rs)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned no = 0;

	if (!f) {
		fprintf(stderr, PLUGIN_NAME ": %s=%s: %s\n", opt, path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char a[40], b[40];
		uint64_t lo, hi;

		no++;
		if (line[0] == '#' || line[strspn(line, " \t\n")] == '\0')
			continue;
		if (sscanf(line, "%39s %39s", a, b) != 2 || parse_u64(a, &lo) || parse_u64(b, &hi) || lo >= hi) {
			fprintf(stderr, PLUGIN_NAME ": %s=%s:%u: not 'LO HI [NAME]' with LO < HI\n", opt, path, no);
			fclose(f);
			return -1;
		}
		if (range_add(rs, lo, hi)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* The mode from qemu's own command line: -accel tcg,thread=single|multi. */
static bool mttcg_from_cmdline(const char **how)
{
	FILE *f = fopen("/proc/self/cmdline", "r");
	char buf[16384];
	size_t n;
	bool single = false, multi = false;

	*how = "qemu's default for this target (MTTCG)";
	if (!f)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		if (strstr(buf + i, "thread=single"))
			single = true;
		if (strstr(buf + i, "thread=multi"))
			multi = true;
	}
	if (single || multi)
		*how = "qemu's command line";
	return multi || !single;
}

static int opt_u64(const char *name, const char *val, uint64_t min, uint64_t max, uint64_t *v)
{
	if (parse_u64(val, v) || *v < min || *v > max) {
		fprintf(stderr, PLUGIN_NAME ": %s=%s: not a number from %llu to %llu\n", name, val,
			(unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	return 0;
}

/*
 * The plugin's options, one row each (NAME=VALUE; lab/c2c/README), as
 * perf's option tables and pahole's btf_features[]: what the value is,
 * its bounds or words, where it goes.
 */
enum opt_kind { OPT_STR, OPT_U64, OPT_WORD, OPT_RANGE, OPT_RANGEFILE };

struct plugin_opt {
	const char *name;
	enum opt_kind kind;
	uint64_t min, max;		/* OPT_U64 */
	const char *const *words;	/* OPT_WORD: the values, NULL-ended; the index is stored */
	const char **str;		/* OPT_STR */
	uint64_t *u64;			/* OPT_U64 */
	unsigned *word;			/* OPT_WORD */
	struct ranges *ranges;		/* OPT_RANGE, OPT_RANGEFILE */
};

static const char *const windows_words[] = { "sum", "each", NULL };
static const char *const window_words[] = { "lab", "always", NULL };
static const char *const mttcg_words[] = { "auto", "on", "off", NULL };
static const char *const mode_words[] = { "lines", "insns", NULL };	/* enum collect */

/* One NAME=VALUE by its row: 0, or -1 with one line on stderr. */
static int opt_set(const struct plugin_opt *o, const char *val)
{
	unsigned i = 0;

	switch (o->kind) {
	case OPT_STR:
		*o->str = val;
		return 0;
	case OPT_U64:
		return opt_u64(o->name, val, o->min, o->max, o->u64);
	case OPT_RANGE:
		return parse_range(o->name, val, o->ranges);
	case OPT_RANGEFILE:
		return parse_rangefile(o->name, val, o->ranges);
	case OPT_WORD:
		while (o->words[i] && strcmp(val, o->words[i]))
			i++;
		if (!o->words[i]) {
			fprintf(stderr, PLUGIN_NAME ": %s=%s: not", o->name, val);
			for (i = 0; o->words[i]; i++)
				fprintf(stderr, "%s %s", i ? (o->words[i + 1] ? "," : " or") : "", o->words[i]);
			fputc('\n', stderr);
			return -1;
		}
		*o->word = i;
		return 0;
	}
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	struct lines_config c = { .lines = LINES_DEFAULT_LINES, .ext_lines = LINES_DEFAULT_EXT };
	uint64_t ext = LINES_DEFAULT_EXT, top = LINES_DEFAULT_TOP;
	unsigned scope = SCOPE_KERNEL, windows = 0, window = 0, mttcg = 0, mode = COLLECT_LINES;
	const struct plugin_opt opts[] = {
		{ "out", OPT_STR, .str = &P.out },
		{ "lines", OPT_U64, 64, 1ULL << 32, .u64 = &c.lines },
		{ "ext", OPT_U64, 0, 1u << 24, .u64 = &ext },
		{ "top", OPT_U64, 0, 1u << 24, .u64 = &top },
		{ "scope", OPT_WORD, .words = scope_names, .word = &scope },
		{ "pc", OPT_RANGE, .ranges = &P.pc },
		{ "pcfile", OPT_RANGEFILE, .ranges = &P.pc },
		{ "addr", OPT_RANGE, .ranges = &P.addr },
		{ "detail", OPT_RANGE, .ranges = &P.detail },
		{ "detailfile", OPT_RANGEFILE, .ranges = &P.detail },
		{ "window", OPT_WORD, .words = window_words, .word = &window },
		{ "windows", OPT_WORD, .words = windows_words, .word = &windows },
		{ "mode", OPT_WORD, .words = mode_words, .word = &mode },
		{ "trace", OPT_U64, 1, 1ULL << 32, .u64 = &P.trace_cap },
		{ "mttcg", OPT_WORD, .words = mttcg_words, .word = &mttcg },
		{ "qemu", OPT_STR, .str = &P.qemu },
	};
	const size_t nopts = sizeof(opts) / sizeof(opts[0]);
	char err[256];

	P.qemu = "unknown";
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *name = argv[i];
		size_t k = 0;

		if (!eq) {
			fprintf(stderr, PLUGIN_NAME ": '%s': options are NAME=VALUE (see lab/c2c/README)\n", argv[i]);
			return -1;
		}
		*eq = '\0';
		while (k < nopts && strcmp(name, opts[k].name))
			k++;
		if (k == nopts) {
			fprintf(stderr, PLUGIN_NAME ": unknown option '%s' (", name);
			for (k = 0; k < nopts; k++)
				fprintf(stderr, "%s%s", k ? ", " : "", opts[k].name);
			fprintf(stderr, ": see lab/c2c/README)\n");
			return -1;
		}
		if (opt_set(&opts[k], eq + 1))
			return -1;
	}
	c.ext_lines = (uint32_t)ext;
	P.scope = scope;
	P.each = windows == 1;
	P.collect = mode;
	if (!P.out) {
		fprintf(stderr, PLUGIN_NAME ": no out=FILE: where should the counts go?\n");
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, PLUGIN_NAME ": user-mode qemu: the plugin follows a whole guest (system emulation)\n");
		return -1;
	}
	ranges_finish(&P.pc);
	ranges_finish(&P.addr);
	ranges_finish(&P.detail);
	ranges_to_lines(&P.detail, &P.detail_lines);
	P.id = id;
	P.always = window == 1;
	if (P.trace_cap && P.collect != COLLECT_LINES) {
		fprintf(stderr, PLUGIN_NAME ": trace=%llu: the trace needs mode=lines (mode=insns follows no access)\n",
			(unsigned long long)P.trace_cap);
		return -1;
	}
	P.top = (unsigned)top;
	P.target = info->target_name;
	P.api_min = info->version.min;
	P.api_cur = info->version.cur;
	P.vcpus = (unsigned)info->system.max_vcpus;
	if (mttcg == 0) {
		P.mttcg = mttcg_from_cmdline(&P.mode_how);
	} else {
		P.mttcg = mttcg == 1;
		P.mode_how = "the mttcg option";
	}
	/* One vCPU: one thread either way, no locks needed. */
	if (P.vcpus == 1)
		P.mttcg = false;
	c.vcpus = P.vcpus;
	c.locked = P.mttcg;
	c.always = window == 1;
	pthread_mutex_init(&P.ann_mu, NULL);
	P.ann = calloc(1, sizeof(*P.ann));
	if (!P.ann) {
		fprintf(stderr, PLUGIN_NAME ": out of memory\n");
		return -1;
	}
	/* Each window on its own: written at its close into OUT.windows.tmp,
	 * copied into OUT at the end. */
	if (P.each && !c.always) {
		if (asprintf(&P.each_path, "%s.windows.tmp", P.out) < 0 || !(P.each_stream = fopen(P.each_path, "w+"))) {
			fprintf(stderr, PLUGIN_NAME ": %s.windows.tmp: %s\n", P.out, strerror(errno));
			return -1;
		}
		c.each = P.each_stream;
		c.each_top = (unsigned)top;
	}
	/* Counting instructions alone: no line is followed (the smallest table). */
	if (P.collect == COLLECT_INSNS) {
		c.lines = 64;
		c.ext_lines = 0;
	}
	P.m = lines_model_new(&c, err, sizeof(err));
	if (!P.m) {
		fprintf(stderr, PLUGIN_NAME ": %s\n", err);
		return -1;
	}
#if INSNS_PER_VCPU
	insns_sb = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	insns_entry = qemu_plugin_scoreboard_u64(insns_sb);
#endif
	if (P.trace_cap) {
		if (asprintf(&P.trace_path, "%s.trace", P.out) < 0 ||
		    lines_trace_writer_open(&P.tw, P.trace_path, P.trace_cap, P.vcpus, P.mttcg, err, sizeof(err)) < 0) {
			fprintf(stderr, PLUGIN_NAME ": trace: %s\n", err);
			return -1;
		}
		P.trace = true;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
