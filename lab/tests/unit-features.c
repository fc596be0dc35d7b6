// SPDX-License-Identifier: GPL-2.0
/*
 * Feature detection on the BTF of eight real kernels (memcg-history.md
 * sections 4, 6, 7 and 11b): 5.10 is pre-split with one stock slot, 6.1 and
 * 6.12 are split with one slot, 6.16 to 7.3 have seven; the obj stock is its
 * own struct from 6.16 with one objcg, five from 7.2; 7.3-rt has PREEMPT_RT's
 * 32-byte lock; none has the user-flush mutex.  Tracepoints are read offline
 * from btf_trace_* typedefs.
 */
#include <string.h>
#include <unistd.h>
#include "kernel/btf.h"
#include "kernel/features.h"
#include "tests/tap.h"

struct expect {
	const char *release;
	bool split;
	int slots;
	bool obj_stock_split;
	const char *scope, *threshold, *rstat_lock;
	bool v1_counters;
	int obj_slots;		/* -1: null (no obj_stock_pcp) */
	bool rt;
	int lock_size;
	const char *tp_present[8];
	const char *tp_absent[8];
};

static const struct expect kernels[] = {
	{ "5.10.262", false, 1, false, "none", "none", "none", true, -1, false, -1,
	  { NULL },
	  { "lock:contention_begin", "cgroup:cgroup_rstat_locked", "memcg:memcg_flush_stats", NULL } },
	{ "6.1.192", true, 1, false, "unified", "global", "global cgroup_rstat_lock", true, -1, false, 0,
	  { "lock:contention_begin", "lock:contention_end", NULL },
	  { "cgroup:cgroup_rstat_locked", "memcg:memcg_flush_stats", NULL } },
	{ "6.12.117", true, 1, false, "subtree", "per-memcg", "global cgroup_rstat_lock", false, -1, false, 0,
	  { "lock:contention_begin", "cgroup:cgroup_rstat_lock_contended", "cgroup:cgroup_rstat_locked",
	    "cgroup:cgroup_rstat_unlock", "cgroup:cgroup_rstat_cpu_locked", NULL },
	  { "memcg:memcg_flush_stats", "memcg:mod_memcg_state", NULL } },
	{ "6.18.44", true, 7, true, "subtree", "per-memcg", "per-subsystem rstat_ss_lock", true, 1, false, 1,
	  { "lock:contention_end", "cgroup:cgroup_rstat_locked", "cgroup:cgroup_rstat_unlock",
	    "memcg:memcg_flush_stats", "memcg:mod_memcg_state", "memcg:count_memcg_events", NULL },
	  { "cgroup:cgroup_rstat_cpu_locked", NULL } },
	{ "6.16.12", true, 7, true, "subtree", "per-memcg", "per-subsystem rstat_ss_lock", false, 1, false, 1,
	  { "cgroup:cgroup_rstat_locked", "cgroup:cgroup_rstat_cpu_locked", "memcg:memcg_flush_stats", NULL },
	  { NULL } },
	{ "7.1.13", true, 7, true, "subtree", "per-memcg", "per-subsystem rstat_ss_lock", false, 1, false, 1,
	  { "cgroup:cgroup_rstat_locked", "memcg:memcg_flush_stats", NULL },
	  { "cgroup:cgroup_rstat_cpu_locked", NULL } },
	{ "7.2.12", true, 7, true, "subtree", "per-memcg", "per-subsystem rstat_ss_lock", false, 5, false, 1,
	  { "cgroup:cgroup_rstat_locked", "memcg:memcg_flush_stats", NULL },
	  { "cgroup:cgroup_rstat_cpu_locked", NULL } },
	{ "7.3.4-rt", true, 7, true, "subtree", "per-memcg", "per-subsystem rstat_ss_lock", false, 5, true, 32,
	  { "cgroup:cgroup_rstat_locked", "memcg:memcg_flush_stats", NULL },
	  { "cgroup:cgroup_rstat_cpu_locked", NULL } },
};

/* Every feature of one kernel's BTF against its row of kernels[]. */
static void check_kernel(const char *release)
{
	const struct expect *e = NULL;
	char path[128], err[512];
	struct kfeatures f;
	struct kbtf k;

	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (!strcmp(kernels[i].release, release))
			e = &kernels[i];
	if (!e) {
		ok(0, "%s: no row in kernels[]", release);
		return;
	}
	snprintf(path, sizeof(path), "build/btf/vmlinux-%s.btf", e->release);
	if (access(path, R_OK)) {
		tap_skip(path, "not built: run make first");
		return;
	}
	if (!ok(!kbtf_open(&k, path, NULL, err, sizeof(err)), "%s: BTF opens", e->release)) {
		tap_diag("%s", err);
		return;
	}
	ok(k.source == KBTF_RAW, "%s: recognised as a raw BTF file", e->release);
	ok(k.release && !strcmp(k.release, e->release), "%s: release from the file name", e->release);
	kfeatures_detect(&f, &k, NULL, NULL);
	is_int(f.cacheline_split, e->split, "%s: cacheline_split (%s)", e->release, f.cacheline_split_evidence);
	is_int(f.stock_slots, e->slots, "%s: stock_slots (%s)", e->release, f.stock_slots_evidence);
	is_int(f.user_flush_mutex, false, "%s: no user-flush mutex", e->release);
	is_int(f.obj_stock_split, e->obj_stock_split, "%s: obj_stock_split", e->release);
	is_int(f.cacheline_size, 64, "%s: cacheline size 64", e->release);
	is_int(f.lock_debug, false, "%s: non-debug locks (%s)", e->release, f.lock_debug_evidence);
	is_int(f.obj_stock_slots, e->obj_slots, "%s: obj_stock_slots (%s)", e->release, f.obj_stock_slots_evidence);
	ok(f.obj_stock_slots_evidence[0], "%s: obj_stock_slots has evidence", e->release);
	is_int(f.lock_rt, e->rt, "%s: PREEMPT_RT lock (%s)", e->release, f.lock_debug_evidence);
	is_int(f.lock_size, e->lock_size, "%s: the stock's lock is %d B", e->release, e->lock_size);
	ok(!strcmp(f.stock_class, "memcg_stock_pcp") && strstr(f.stock_class_evidence, "memcg_stock_pcp"),
	   "%s: stock class memcg_stock_pcp (%s)", e->release, f.stock_class_evidence);
	is_int(f.memcg_v1_counters, e->v1_counters, "%s: kmem/tcpmem counters (CONFIG_MEMCG_V1)", e->release);
	ok(!strcmp(f.flush_scope, e->scope), "%s: flush scope %s (got %s)", e->release, e->scope, f.flush_scope);
	ok(!strcmp(f.flush_threshold, e->threshold), "%s: flush threshold %s (got %s)", e->release,
	   e->threshold, f.flush_threshold);
	ok(!strcmp(f.flush_rstat_lock, e->rstat_lock), "%s: rstat lock %s (got %s)", e->release,
	   e->rstat_lock, f.flush_rstat_lock);
	for (int t = 0; e->tp_present[t]; t++)
		ok(kfeatures_has_tracepoint(&f, e->tp_present[t]), "%s: tracepoint %s in BTF", e->release,
		   e->tp_present[t]);
	for (int t = 0; e->tp_absent[t]; t++)
		ok(!kfeatures_has_tracepoint(&f, e->tp_absent[t]), "%s: no tracepoint %s", e->release,
		   e->tp_absent[t]);
	{
		json_object *j = kfeatures_json(&f), *v;

		ok(json_object_object_get_ex(j, "cacheline_split", &v) &&
		   json_object_get_type(v) == json_type_boolean, "%s: JSON cacheline_split is a bool", e->release);
		ok(json_object_object_get_ex(j, "stock_slots", &v) &&
		   json_object_get_type(v) == json_type_int && json_object_get_int(v) == e->slots,
		   "%s: JSON stock_slots is the int %d", e->release, e->slots);
		ok(json_object_object_get_ex(j, "user_flush_mutex", &v) &&
		   json_object_get_type(v) == json_type_boolean, "%s: JSON user_flush_mutex is a bool", e->release);
		ok(json_object_object_get_ex(j, "obj_stock_slots", &v) &&
		   (e->obj_slots < 0 ? v == NULL : json_object_get_int(v) == e->obj_slots),
		   "%s: JSON obj_stock_slots is %s", e->release, e->obj_slots < 0 ? "null" : "its slot count");
		ok(json_object_object_get_ex(j, "evidence", &v) && json_object_object_get_ex(v, "obj_stock_slots", &v) &&
		   json_object_get_string(v)[0], "%s: JSON evidence.obj_stock_slots", e->release);
		json_object_put(j);
	}
	kbtf_close(&k);
}

TEST(kernel_5_10)
{
	check_kernel("5.10.262");
}

TEST(kernel_6_1)
{
	check_kernel("6.1.192");
}

TEST(kernel_6_12)
{
	check_kernel("6.12.117");
}

TEST(kernel_6_18)
{
	check_kernel("6.18.44");
}

TEST(kernel_6_16)
{
	check_kernel("6.16.12");
}

TEST(kernel_7_1)
{
	check_kernel("7.1.13");
}

TEST(kernel_7_2)
{
	check_kernel("7.2.12");
}

TEST(kernel_7_3_rt)
{
	check_kernel("7.3.4-rt");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
