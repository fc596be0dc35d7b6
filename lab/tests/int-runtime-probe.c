// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime probes on the running kernel: the charge batch must be 64 pages
 * where page_counter is cacheline-split (the same 6.1 series raised
 * MEMCG_CHARGE_BATCH from 32), and the stock slots must equal the length of
 * memcg_stock_pcp.cached[] in the kernel's BTF (7 on 6.16+, 1 before), and the
 * obj stock slots the objcg slots BTF gives (obj_stock_pcp.cached[], 5 on
 * 7.2+; one cached_objcg before, in obj_stock_pcp or memcg_stock_pcp).  The
 * probe must leave nothing: no cgroup, no worker, our scheduling policy and
 * CPU affinity as they were.  Needs root and a memory controller.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kernel/btf.h"
#include "kernel/cgroup.h"
#include "kernel/runtime_probe.h"
#include "tests/tap.h"
#include "util/fileio.h"
#include "util/owner.h"

#define ROUNDS 5

static void samples(const char *what, const struct runtime_probe_stat *s, int n)
{
	char buf[256];
	int len = 0;

	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %d", s->samples[i]);
	tap_diag("%s: mode %d, spread %d..%d, rounds:%s", what, s->mode, s->min, s->max, buf);
}

/* What BTF says: 64/32 from the page_counter split, slots from cached[]. */
static int btf_expect(int *batch, int *slots, int *obj_slots)
{
	struct kbtf k;
	struct kbtf_field f;
	char err[256];
	int id;

	if (kbtf_open(&k, NULL, NULL, err, sizeof(err))) {
		tap_diag("no running-kernel BTF: %s", err);
		return -1;
	}
	id = kbtf_find_struct(&k, "page_counter");
	*batch = id > 0 && kbtf_member(&k, id, "_pad1_", &f) == 0 ? 64 : 32;
	id = kbtf_find_struct(&k, "memcg_stock_pcp");
	*slots = id > 0 && kbtf_member(&k, id, "cached", &f) == 0 ? (f.nelems ? (int)f.nelems : 1) : -1;
	*obj_slots = id > 0 && kbtf_member(&k, id, "cached_objcg", &f) == 0 ? 1 : -1;
	id = kbtf_find_struct(&k, "obj_stock_pcp");
	if (id > 0 && kbtf_member(&k, id, "cached", &f) == 0 && f.nelems)
		*obj_slots = (int)f.nelems;
	else if (id > 0 && kbtf_member(&k, id, "cached_objcg", &f) == 0)
		*obj_slots = 1;
	kbtf_close(&k);
	return *slots > 0 ? 0 : -1;
}

int main(void)
{
	struct runtime_probe_result r;
	struct cg_env env;
	cpu_set_t before, after;
	char err[512], name[64], root[600];
	int batch = -1, slots = -1, obj_slots = -1, rc;

	if (cg_detect(&env, NULL) || env.mode == CG_NONE)
		tap_skip_all(env.evidence);
	if (geteuid() != 0) {
		rc = runtime_probe_run(&env, 1, &r, err, sizeof(err));
		ok(rc == -1 && strstr(err, "needs root"), "not root: one clear line (%s)", err);
		tap_skip("charge batch and stock slots", "needs root to create cgroups");
		return tap_done();
	}

	sched_getaffinity(0, sizeof(before), &before);
	rc = runtime_probe_run(&env, ROUNDS, &r, err, sizeof(err));
	if (!ok(rc == 0, "runtime_probe_run, %d rounds", ROUNDS)) {
		tap_diag("%s", err);
		return tap_done();
	}
	tap_diag("%s", r.method);
	samples("charge batch (pages)", &r.charge_batch, ROUNDS);
	samples("stock slots", &r.stock_slots, ROUNDS);
	samples("obj stock slots", &r.obj_stock_slots, ROUNDS);
	tap_diag("%s", r.obj_method);

	if (btf_expect(&batch, &slots, &obj_slots) == 0) {
		is_int(r.charge_batch.mode, batch, "charge batch is %d pages, as the kernel's page_counter says",
		       batch);
		is_int(r.stock_slots.mode, slots, "stock slots are %d, the length of memcg_stock_pcp.cached[] in BTF",
		       slots);
	} else {
		tap_skip("charge batch matches BTF", "no memcg_stock_pcp in the running kernel's BTF");
		tap_skip("stock slots match BTF", "no memcg_stock_pcp in the running kernel's BTF");
	}
	ok(!r.stock_saturated, "the slot probe charged more memcgs (%d) than there are slots", r.stock_k);
	if (obj_slots > 0 && strstr(r.obj_method, "not measured")) {
		/* The probe says why it cannot see the stock here (e.g. a 6.1
		 * guest); where it can (this host's 6.18), it must match BTF. */
		tap_skip("obj stock slots match BTF", r.obj_method);
		tap_skip("the obj slot probe allocated in more memcgs than there are slots", r.obj_method);
	} else {
		if (obj_slots > 0)
			is_int(r.obj_stock_slots.mode, obj_slots, "obj stock slots are %d, the objcg slots in BTF",
			       obj_slots);
		else
			tap_skip("obj stock slots match BTF", "no objcg stock in the running kernel's BTF");
		ok(!r.obj_stock_saturated, "the obj slot probe allocated in more memcgs (%d) than there are slots",
		   r.obj_stock_k);
	}
	is_int(r.batch_stable_rounds, r.charge_batch.nsamples,
	       "pages 2 and 3 came from the stock the first page filled, every round");
	is_int(r.batch_first_usage[0], 0, "entering the cgroup charged nothing before the first page");

	lab_owner_name(name, sizeof(name));
	snprintf(root, sizeof(root), "%s/%s", env.memory_root, name);
	ok(!path_exists(root), "no cgroup left behind (%s)", root);
	ok(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, "no worker left behind");
	sched_getaffinity(0, sizeof(after), &after);
	ok(sched_getscheduler(0) == SCHED_OTHER && CPU_EQUAL(&before, &after),
	   "our scheduling policy and CPU affinity are as they were");

	rc = runtime_probe_run(&env, 0, &r, err, sizeof(err));
	ok(rc == -1 && strstr(err, "rounds"), "0 rounds: one clear line (%s)", err);
	return tap_done();
}
