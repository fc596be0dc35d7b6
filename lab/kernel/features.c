// SPDX-License-Identifier: GPL-2.0
/*
 * Feature detection (memcg-history.md section 7): classify by BTF shapes,
 * confirm by symbols, and keep a sentence of evidence for every answer.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "kernel/features.h"
#include "util/fileio.h"
#include "util/strfmt.h"

/* Evidence buffers are KF_EVIDENCE bytes; a cut sentence beats a failed probe. */
#define ev(buf, ...) str_setf(buf, KF_EVIDENCE, __VA_ARGS__)
#define ev_add(buf, ...) str_appendf(buf, KF_EVIDENCE, __VA_ARGS__)

static int pow2_ceil(long v)
{
	int p = 1;

	while (p < v && p < (1 << 20))
		p <<= 1;
	return p;
}

static void detect_cacheline_size(struct kfeatures *f, const struct kbtf *k)
{
	int pc = kbtf_find_struct(k, "page_counter");
	struct kbtf_field pad;
	long long v;

	if (pc > 0 && !kbtf_member(k, pc, "_pad1_", &pad) && pad.offset > 0) {
		f->cacheline_size = pow2_ceil((long)pad.offset);
		ev(f->cacheline_size_evidence, "page_counter._pad1_ at offset %llu (CACHELINE_PADDING)",
		   (unsigned long long)pad.offset);
		return;
	}
	if (k->source == KBTF_RUNNING &&
	    !read_ll("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", &v) && v > 0) {
		f->cacheline_size = (int)v;
		ev(f->cacheline_size_evidence, "sysfs cpu0 coherency_line_size (no page_counter padding in BTF)");
		return;
	}
	f->cacheline_size = 64;
	ev(f->cacheline_size_evidence, "assumed 64 (no page_counter padding in BTF%s)",
	   k->source == KBTF_RUNNING ? ", no sysfs cache info" : "; offline input");
}

struct line0 {
	int L;
	char names[KF_EVIDENCE / 2];
	bool only_usage_failcnt;
	bool usage_at_0;
};

static int collect_line0(const struct kbtf_field *fd, void *arg)
{
	struct line0 *l = arg;

	if (fd->offset >= (uint64_t)l->L || fd->size == 0)
		return 0;
	if (!strcmp(fd->name, "usage") && fd->offset == 0)
		l->usage_at_0 = true;
	else if (strcmp(fd->name, "failcnt"))
		l->only_usage_failcnt = false;
	if (strlen(l->names) + strlen(fd->name) + 3 < sizeof(l->names))
		snprintf(l->names + strlen(l->names), sizeof(l->names) - strlen(l->names), "%s%s",
			 l->names[0] ? ", " : "", fd->name);
	return 0;
}

static void detect_split(struct kfeatures *f, const struct kbtf *k)
{
	int pc = kbtf_find_struct(k, "page_counter");
	struct kbtf_field p1, p2;
	struct line0 l = { .L = f->cacheline_size, .only_usage_failcnt = true };
	char t1[128] = "", t2[128] = "";
	bool pads;

	if (pc < 0) {
		f->cacheline_split = false;
		ev(f->cacheline_split_evidence, "struct page_counter absent from BTF");
		return;
	}
	pads = !kbtf_member(k, pc, "_pad1_", &p1) && !kbtf_member(k, pc, "_pad2_", &p2);
	if (pads) {
		kbtf_type_name(k, p1.resolved_id, t1, sizeof(t1));
		kbtf_type_name(k, p2.resolved_id, t2, sizeof(t2));
	}
	kbtf_walk_fields(k, pc, 0, collect_line0, &l);
	f->cacheline_split = pads && l.usage_at_0 && l.only_usage_failcnt &&
			     (strstr(t1, "cacheline_padding") || strstr(t1, "pc_padding"));
	if (pads)
		ev(f->cacheline_split_evidence, "page_counter (%ld B): _pad1_@%llu, _pad2_@%llu (%s); line 0 holds %s",
		   kbtf_type_size(k, pc), (unsigned long long)p1.offset, (unsigned long long)p2.offset, t1,
		   l.names);
	else
		ev(f->cacheline_split_evidence, "page_counter (%ld B) has no _pad1_/_pad2_; line 0 holds %s",
		   kbtf_type_size(k, pc), l.names);
}

/* A dep_map anywhere inside the lock: lockdep (CONFIG_DEBUG_LOCK_ALLOC). */
static int find_dep_map(const struct kbtf_field *fd, void *arg)
{
	(void)arg;
	return strstr(fd->name, "dep_map") != NULL;
}

/*
 * The stock's lock, by what it is rather than by its size alone:
 * local_trylock_t is 1 byte (local_lock_t empty) on a non-debug build; on
 * PREEMPT_RT it is a spinlock_t over struct rt_mutex_base (32 B on
 * x86-64), which is not debugging; lockdep adds a struct lockdep_map.
 */
static void classify_lock(struct kfeatures *f, const struct kbtf *k, const char *owner, int st)
{
	struct kbtf_field lock, inner;
	char tl[128], tr[128] = "", ti[128] = "";
	int r;

	f->lock_debug = f->lock_rt = false;
	f->lock_size = -1;
	if (kbtf_member(k, st, "lock", &lock) && kbtf_member(k, st, "stock_lock", &lock)) {
		ev(f->lock_debug_evidence, "%s has no lock member (pre-5.19)", owner);
		return;
	}
	kbtf_type_name(k, lock.type_id, tl, sizeof(tl));
	r = kbtf_resolve(k, lock.type_id);
	kbtf_type_name(k, r, tr, sizeof(tr));
	if (!kbtf_member(k, r, "lock", &inner))
		kbtf_type_name(k, inner.resolved_id, ti, sizeof(ti));
	f->lock_size = (int)lock.size;
	f->lock_rt = strstr(ti, "rt_mutex") != NULL;
	if (kbtf_walk_fields(k, r, 4, find_dep_map, NULL) > 0)
		f->lock_debug = true;
	else if (!f->lock_rt)	/* Non-debug: local_trylock_t is 1 byte, local_lock_t is empty. */
		f->lock_debug = strstr(tl, "trylock") ? lock.size > 1 : lock.size > 0;
	ev(f->lock_debug_evidence, "%s.%s is %s of %llu B", owner, lock.name, tl, (unsigned long long)lock.size);
	if (f->lock_rt)
		ev_add(f->lock_debug_evidence, " (%s over %s: PREEMPT_RT, not debugging%s)", tr, ti,
		       f->lock_debug ? "; with lockdep's dep_map: the stock rules do not apply" : "");
	else
		ev_add(f->lock_debug_evidence, " (%s)", f->lock_debug ? "lockdep or another debug option: layout "
		       "rules on the stock do not apply" : "non-debug");
}

static void detect_stock(struct kfeatures *f, const struct kbtf *k)
{
	int st = kbtf_find_struct(k, "memcg_stock_pcp");
	int pc = kbtf_find_struct(k, "page_counter");
	struct kbtf_field cached, nr, pstock, batch;
	char tc[128], tn[128];

	if (st < 0) {
		int os = kbtf_find_struct(k, "obj_stock_pcp");

		f->stock_slots = 0;
		if (pc > 0 && !kbtf_member(k, pc, "stock", &pstock)) {
			int ps = kbtf_resolve(k, pstock.resolved_id);
			const struct btf_type *t = btf__type_by_id(k->btf, ps);

			/* The percpu pointer's target: struct page_counter_stock{,_pcp}. */
			if (t && btf_is_ptr(t))
				ps = kbtf_resolve(k, t->type);
			f->stock_class = "page_counter";
			kbtf_type_name(k, pstock.type_id, tc, sizeof(tc));
			ev(f->stock_class_evidence, "struct memcg_stock_pcp absent; page_counter.stock is %s @%llu", tc,
			   (unsigned long long)pstock.offset);
			if (!kbtf_member(k, pc, "batch", &batch))
				ev_add(f->stock_class_evidence, ", page_counter.batch @%llu",
				       (unsigned long long)batch.offset);
			ev_add(f->stock_class_evidence, " (per-page_counter stock)");
			ev(f->stock_slots_evidence, "struct memcg_stock_pcp absent; page_counter.stock exists "
			   "(per-page_counter stock design: no memcg slots)");
			/* v1 of the series locks the per-CPU stock; v4 uses atomics. */
			if (ps > 0 && btf_is_composite(btf__type_by_id(k->btf, ps)) &&
			    !kbtf_member(k, ps, "lock", &batch)) {
				kbtf_type_name(k, ps, tn, sizeof(tn));
				classify_lock(f, k, tn, ps);
				return;
			}
			ev_add(f->stock_class_evidence, "; its per-CPU stock has no lock (atomics)");
		} else {
			f->stock_class = "none";
			ev(f->stock_class_evidence, "struct memcg_stock_pcp absent and page_counter has no stock member");
			ev(f->stock_slots_evidence, "struct memcg_stock_pcp absent from BTF");
		}
		if (os > 0)
			classify_lock(f, k, "obj_stock_pcp", os);
		else
			ev(f->lock_debug_evidence, "no memcg_stock_pcp or obj_stock_pcp to inspect");
		return;
	}
	if (kbtf_member(k, st, "cached", &cached)) {
		f->stock_slots = 0;
		ev(f->stock_slots_evidence, "memcg_stock_pcp has no 'cached' member");
	} else {
		kbtf_type_name(k, cached.type_id, tc, sizeof(tc));
		if (!kbtf_member(k, st, "nr_pages", &nr))
			kbtf_type_name(k, nr.type_id, tn, sizeof(tn));
		else
			snprintf(tn, sizeof(tn), "absent");
		f->stock_slots = cached.nelems ? (int)cached.nelems : 1;
		ev(f->stock_slots_evidence, "memcg_stock_pcp.cached is %s, nr_pages is %s%s", tc, tn,
		   cached.nelems && nr.nelems != cached.nelems ? " (lengths differ!)" : "");
	}
	f->stock_class = "memcg_stock_pcp";
	ev(f->stock_class_evidence, "per-CPU struct memcg_stock_pcp (%ld B%s), a memcg stock of %d slot%s",
	   kbtf_type_size(k, st), kbtf_has_datasec_var(k, ".data..percpu", "memcg_stock") ?
	   ", VAR memcg_stock" : "", f->stock_slots, f->stock_slots == 1 ? "" : "s");
	if (pc > 0 && !kbtf_member(k, pc, "stock", &pstock))
		ev_add(f->stock_class_evidence, "; page_counter.stock too (both designs?)");
	classify_lock(f, k, "memcg_stock_pcp", st);
}

static const char *const ufm_symbols[] = {
	"stats_user_flush_mutex", "mem_cgroup_user_flush_stats",
};

static void detect_user_flush_mutex(struct kfeatures *f, const struct kbtf *k, const struct ksyms *syms)
{
	f->user_flush_mutex = false;
	f->user_flush_mutex_evidence[0] = '\0';
	for (size_t i = 0; i < sizeof(ufm_symbols) / sizeof(ufm_symbols[0]); i++) {
		const struct ksym *s = syms ? ksyms_find(syms, ufm_symbols[i]) : NULL;

		if (s) {
			f->user_flush_mutex = true;
			ev_add(f->user_flush_mutex_evidence, "%s%s: %s (%c)",
			       f->user_flush_mutex_evidence[0] ? "; " : "", syms->source, s->name, s->type);
		}
		if (kbtf_func_nparams(k, ufm_symbols[i]) >= 0) {
			f->user_flush_mutex = true;
			ev_add(f->user_flush_mutex_evidence, "%sBTF FUNC %s",
			       f->user_flush_mutex_evidence[0] ? "; " : "", ufm_symbols[i]);
		}
	}
	if (!f->user_flush_mutex)
		ev(f->user_flush_mutex_evidence, "stats_user_flush_mutex and mem_cgroup_user_flush_stats absent "
		   "from BTF FUNCs%s%s%s (the patch never reached a release)",
		   syms ? " and " : "", syms ? syms->source : "", syms ? "" : "; no symbol table to check");
}

static void detect_obj_stock(struct kfeatures *f, const struct kbtf *k)
{
	int os = kbtf_find_struct(k, "obj_stock_pcp"), st = kbtf_find_struct(k, "memcg_stock_pcp");
	struct kbtf_field cached, nr;
	char tc[128], tn[128] = "absent";

	f->obj_stock_split = os > 0 && kbtf_has_datasec_var(k, ".data..percpu", "obj_stock");
	if (os > 0)
		ev(f->obj_stock_split_evidence, "struct obj_stock_pcp (%ld B)%s", kbtf_type_size(k, os),
		   kbtf_has_datasec_var(k, ".data..percpu", "obj_stock") ? " and per-cpu VAR obj_stock"
									  : "; no per-cpu VAR obj_stock");
	else
		ev(f->obj_stock_split_evidence, "no struct obj_stock_pcp: the objcg stock lives in memcg_stock_pcp");

	f->obj_stock_slots = -1;
	if (os < 0) {
		if (st > 0 && !kbtf_member(k, st, "cached_objcg", &cached))
			ev(f->obj_stock_slots_evidence, "no struct obj_stock_pcp: one objcg in memcg_stock_pcp.cached_objcg "
			   "(before 6.16), not counted as an obj stock");
		else
			ev(f->obj_stock_slots_evidence, "no struct obj_stock_pcp%s", st > 0 ?
			   " and no memcg_stock_pcp.cached_objcg" : "");
		return;
	}
	if (!kbtf_member(k, os, "nr_bytes", &nr))
		kbtf_type_name(k, nr.type_id, tn, sizeof(tn));
	if (!kbtf_member(k, os, "cached", &cached) && cached.nelems) {
		kbtf_type_name(k, cached.type_id, tc, sizeof(tc));
		f->obj_stock_slots = (int)cached.nelems;
		ev(f->obj_stock_slots_evidence, "obj_stock_pcp.cached is %s, nr_bytes is %s%s (multi-objcg obj stock)",
		   tc, tn, nr.nelems != cached.nelems ? " (lengths differ!)" : "");
	} else if (!kbtf_member(k, os, "cached_objcg", &cached)) {
		kbtf_type_name(k, cached.type_id, tc, sizeof(tc));
		f->obj_stock_slots = 1;
		ev(f->obj_stock_slots_evidence, "obj_stock_pcp.cached_objcg is %s, nr_bytes is %s (one objcg)", tc, tn);
	} else {
		ev(f->obj_stock_slots_evidence, "obj_stock_pcp has neither cached[] nor cached_objcg");
	}
}

static bool has_sym(const struct kbtf *k, const struct ksyms *syms, const char *name)
{
	return kbtf_func_nparams(k, name) >= 0 || (syms && ksyms_find(syms, name));
}

static void detect_flush(struct kfeatures *f, const struct kbtf *k, const struct ksyms *syms)
{
	int flush = kbtf_func_nparams(k, "mem_cgroup_flush_stats");
	int inner = kbtf_func_nparams(k, "__mem_cgroup_flush_stats");
	int ss = kbtf_find_struct(k, "cgroup_subsys");
	int vs = kbtf_find_struct(k, "memcg_vmstats"), vp = kbtf_find_struct(k, "memcg_vmstats_percpu");
	struct kbtf_field fld;
	bool rstat = has_sym(k, syms, "mem_cgroup_css_rstat_flush");
	char *e = f->flush_evidence;

	e[0] = '\0';
	if (!rstat) {
		f->flush_scope = "none";
		ev_add(e, "no mem_cgroup_css_rstat_flush");
	} else if (flush == 1 || inner == 2) {
		f->flush_scope = "subtree";
		ev_add(e, flush == 1 ? "mem_cgroup_flush_stats(memcg)" : "__mem_cgroup_flush_stats(memcg, force)");
	} else if (flush == 0 || inner == 0) {
		f->flush_scope = "unified";
		ev_add(e, flush == 0 ? "mem_cgroup_flush_stats(void)" : "__mem_cgroup_flush_stats(void)");
	} else {
		f->flush_scope = "unknown (flush functions inlined)";
		ev_add(e, "mem_cgroup_css_rstat_flush present, no flush FUNC");
	}

	if ((vs > 0 && !kbtf_member(k, vs, "stats_updates", &fld)) ||
	    (vp > 0 && !kbtf_member(k, vp, "stats_updates", &fld))) {
		f->flush_threshold = "per-memcg";
		ev_add(e, "; memcg_vmstats%s.stats_updates", vs > 0 && !kbtf_member(k, vs, "stats_updates", &fld) ? "" : "_percpu");
	} else if (kbtf_has_datasec_var(k, ".data..percpu", "stats_updates")) {
		f->flush_threshold = "global";
		ev_add(e, "; per-cpu VAR stats_updates");
	} else {
		f->flush_threshold = "none";
	}

	if (!rstat) {
		f->flush_rstat_lock = "none";
	} else if (ss > 0 && !kbtf_member(k, ss, "rstat_ss_lock", &fld)) {
		f->flush_rstat_lock = "per-subsystem rstat_ss_lock";
		ev_add(e, "; cgroup_subsys.rstat_ss_lock");
	} else {
		f->flush_rstat_lock = "global cgroup_rstat_lock";
		ev_add(e, "; no cgroup_subsys.rstat_ss_lock");
	}
	f->flush_force_flag = inner == 2;
	f->flush_lockless_updates = ss > 0 && !kbtf_member(k, ss, "lhead", &fld);
	if (f->flush_lockless_updates)
		ev_add(e, "; cgroup_subsys.lhead");

	if (!rstat)
		snprintf(f->flush_scheme, sizeof(f->flush_scheme),
			 "no rstat flushing: per-cpu deltas pushed up eagerly (pre-5.13 shape)");
	else
		snprintf(f->flush_scheme, sizeof(f->flush_scheme), "%s flush, %s threshold, %s%s%s",
			 f->flush_scope, f->flush_threshold, f->flush_rstat_lock,
			 f->flush_force_flag ? ", force flag" : "",
			 f->flush_lockless_updates ? ", lockless update list" : "");
}

static const char *const tracepoints[] = {
	"lock:contention_begin",
	"lock:contention_end",
	"cgroup:cgroup_rstat_lock_contended",
	"cgroup:cgroup_rstat_locked",
	"cgroup:cgroup_rstat_unlock",
	"cgroup:cgroup_rstat_cpu_lock_contended",
	"cgroup:cgroup_rstat_cpu_locked",
	"cgroup:cgroup_rstat_cpu_unlock",
	"memcg:memcg_flush_stats",
	"memcg:mod_memcg_state",
	"memcg:mod_memcg_lruvec_state",
	"memcg:count_memcg_events",
};

static void detect_tracepoints(struct kfeatures *f, const struct kbtf *k, const char *tracefs)
{
	f->ntracepoints = 0;
	for (size_t i = 0; i < sizeof(tracepoints) / sizeof(tracepoints[0]); i++) {
		struct kf_tracepoint *tp = &f->tracepoints[f->ntracepoints++];
		const char *colon = strchr(tracepoints[i], ':');
		char buf[512];

		tp->name = tracepoints[i];
		snprintf(buf, sizeof(buf), "btf_trace_%s", colon + 1);
		tp->in_btf = kbtf_has_typedef(k, buf);
		tp->in_tracefs = -1;
		if (tracefs) {
			snprintf(buf, sizeof(buf), "%s/events/%.*s/%s", tracefs, (int)(colon - tracepoints[i]),
				 tracepoints[i], colon + 1);
			tp->in_tracefs = path_exists(buf);
		}
	}
}

void kfeatures_detect(struct kfeatures *f, const struct kbtf *k, const struct ksyms *syms,
		      const char *tracefs_dir)
{
	int mc = kbtf_find_struct(k, "mem_cgroup");
	struct kbtf_field fld;

	memset(f, 0, sizeof(*f));
	detect_cacheline_size(f, k);
	detect_split(f, k);
	detect_stock(f, k);
	detect_user_flush_mutex(f, k, syms);
	detect_obj_stock(f, k);
	detect_flush(f, k, syms);
	f->memcg_v1_counters = mc > 0 && (!kbtf_member(k, mc, "kmem", &fld) || !kbtf_member(k, mc, "tcpmem", &fld));
	detect_tracepoints(f, k, tracefs_dir);
}

bool kfeatures_has_tracepoint(const struct kfeatures *f, const char *name)
{
	for (int i = 0; i < f->ntracepoints; i++)
		if (!strcmp(f->tracepoints[i].name, name))
			return f->tracepoints[i].in_tracefs >= 0 ? f->tracepoints[i].in_tracefs == 1
								: f->tracepoints[i].in_btf;
	return false;
}

json_object *kfeatures_tracepoints_json(const struct kfeatures *f)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < f->ntracepoints; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "btf", json_object_new_boolean(f->tracepoints[i].in_btf));
		json_object_object_add(t, "tracefs", f->tracepoints[i].in_tracefs < 0 ? NULL :
				       json_object_new_boolean(f->tracepoints[i].in_tracefs));
		json_object_object_add(o, f->tracepoints[i].name, t);
	}
	return o;
}

/* A member of struct kfeatures as it goes into meta.json. */
enum json_kind {
	J_BOOL,
	J_INT,
	J_INT_OR_NULL,		/* negative: null (the kernel has none) */
	J_STR,			/* const char * */
	J_BUF,			/* char[] */
};

struct json_field {
	const char *name;
	enum json_kind kind;
	size_t off;
};

#define FIELD(name, kind, member) { name, kind, offsetof(struct kfeatures, member) }

static const struct json_field top_fields[] = {
	FIELD("cacheline_split", J_BOOL, cacheline_split),
	FIELD("stock_slots", J_INT, stock_slots),
	FIELD("user_flush_mutex", J_BOOL, user_flush_mutex),
	FIELD("obj_stock_split", J_BOOL, obj_stock_split),
	FIELD("cacheline_size", J_INT, cacheline_size),
	FIELD("lock_debug", J_BOOL, lock_debug),
	FIELD("lock_rt", J_BOOL, lock_rt),
	FIELD("lock_size", J_INT_OR_NULL, lock_size),
	FIELD("stock_class", J_STR, stock_class),
	FIELD("obj_stock_slots", J_INT_OR_NULL, obj_stock_slots),
	FIELD("memcg_v1_counters", J_BOOL, memcg_v1_counters),
	FIELD("flush_scheme", J_BUF, flush_scheme),
};

static const struct json_field flush_fields[] = {
	FIELD("scope", J_STR, flush_scope),
	FIELD("threshold", J_STR, flush_threshold),
	FIELD("rstat_lock", J_STR, flush_rstat_lock),
	FIELD("force_flag", J_BOOL, flush_force_flag),
	FIELD("lockless_updates", J_BOOL, flush_lockless_updates),
};

static const struct json_field evidence_fields[] = {
	FIELD("cacheline_split", J_BUF, cacheline_split_evidence),
	FIELD("stock_slots", J_BUF, stock_slots_evidence),
	FIELD("user_flush_mutex", J_BUF, user_flush_mutex_evidence),
	FIELD("obj_stock_split", J_BUF, obj_stock_split_evidence),
	FIELD("cacheline_size", J_BUF, cacheline_size_evidence),
	FIELD("lock_debug", J_BUF, lock_debug_evidence),
	FIELD("stock_class", J_BUF, stock_class_evidence),
	FIELD("obj_stock_slots", J_BUF, obj_stock_slots_evidence),
	FIELD("flush_scheme", J_BUF, flush_evidence),
};

#undef FIELD

static json_object *field_json(const struct kfeatures *f, const struct json_field *d)
{
	const char *p = (const char *)f + d->off;

	switch (d->kind) {
	case J_BOOL:
		return json_object_new_boolean(*(const bool *)p);
	case J_INT:
		return json_object_new_int(*(const int *)p);
	case J_INT_OR_NULL:
		return *(const int *)p < 0 ? NULL : json_object_new_int(*(const int *)p);
	case J_STR:
		return json_object_new_string(*(const char *const *)p);
	case J_BUF:
		return json_object_new_string(p);
	}
	return NULL;
}

static json_object *fields_json(const struct kfeatures *f, const struct json_field *d, size_t n)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, d[i].name, field_json(f, &d[i]));
	return o;
}

#define FIELDS_JSON(f, table) fields_json(f, table, sizeof(table) / sizeof(table[0]))

json_object *kfeatures_json(const struct kfeatures *f)
{
	json_object *o = FIELDS_JSON(f, top_fields);

	json_object_object_add(o, "flush", FIELDS_JSON(f, flush_fields));
	json_object_object_add(o, "evidence", FIELDS_JSON(f, evidence_fields));
	return o;
}
