// SPDX-License-Identifier: GPL-2.0
/*
 * Placement and evidence without touching the host's cgroups: hierarchy
 * specs and their limits, pinning orders on a 2-socket SMT topology, and
 * the kernel counters a run reads on cgroup v1 and v2, from control files
 * written in the kernel's formats into a temporary directory (this machine
 * has no v2 memory controller, so the v2 paths are checked here).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "drivers/charge/evidence.h"
#include "drivers/placement.h"
#include "tests/tap.h"

static char tmp[] = "/tmp/memcg-lab-unit-placement.XXXXXX";

/* A control file's text (a new or rewritten plain file here). */
static void put(const char *cg, const char *file, const char *text)
{
	char *p;
	FILE *f;

	if (asprintf(&p, "%s/%s", cg, file) < 0)
		exit(1);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		exit(1);
	free(p);
}

TEST(hierarchy_specs)
{
	struct cg_env env = { .mode = CG_V2, .memory_v2 = true };
	char err[256], dir[200];
	int d, f;

	ok(!hierarchy_parse("3x2", &d, &f, err, sizeof(err)) && d == 3 && f == 2, "3x2: three levels of two");
	ok(hierarchy_parse("3", &d, &f, err, sizeof(err)) && strstr(err, "DEPTHxFANOUT"),
	   "a spec without fanout is refused (%s)", err);
	ok(hierarchy_parse("0x4", &d, &f, err, sizeof(err)) && strstr(err, "at least 1"), "depth 0 is refused");
	is_int(hierarchy_leaves(3, 2), 8, "3x2 has 8 leaves");
	is_int(hierarchy_leaves(40, 40), INT_MAX, "a huge tree's leaf count saturates");

	snprintf(dir, sizeof(dir), "%s/v2", tmp);
	mkdir(dir, 0755);
	snprintf(env.memory_root, sizeof(env.memory_root), "%s", dir);
	ok(!hierarchy_check(&env, 3, 2, err, sizeof(err)), "a small tree fits an unlimited v2 root");
	put(dir, "cgroup.max.depth", "3\n");
	ok(hierarchy_check(&env, 3, 2, err, sizeof(err)) && strstr(err, "need cgroup.max.depth 4"),
	   "v2: a tree deeper than cgroup.max.depth is refused (%s)", err);
	put(dir, "cgroup.max.depth", "max\n");
	put(dir, "cgroup.max.descendants", "10\n");
	ok(hierarchy_check(&env, 3, 2, err, sizeof(err)) && strstr(err, "15 cgroups"),
	   "v2: more cgroups than cgroup.max.descendants is refused (%s)", err);
	env.memory_v2 = false;
	ok(!hierarchy_check(&env, 3, 2, err, sizeof(err)), "v1 has no such files to obey");
	ok(hierarchy_check(&env, 1000, 1, err, sizeof(err)) && strstr(err, "PATH_MAX"),
	   "a path deeper than PATH_MAX is refused (%s)", err);
	ok(hierarchy_check(&env, 2, 300, err, sizeof(err)) && strstr(err, "free IDs"),
	   "more cgroups than memcg IDs is refused (%s)", err);
}

TEST(pinning_orders)
{
	/* 2 cores x 2 threads: siblings 0/2 and 1/3 (a common Intel numbering). */
	int compact[] = { 0, 2, 1, 3 }, spread[] = { 0, 1, 2, 3 }, cpu[6];
	struct topo t = { .npu = 4, .compact = compact, .spread = spread, .ncores = 2, .smt = 2 };
	struct pin_plan p = { PIN_SPREAD, 0, NULL };
	int list[] = { 3, 1 };
	char desc[128];

	pin_assign(&p, &t, 6, cpu);
	ok(cpu[0] == 0 && cpu[1] == 1 && cpu[2] == 2 && cpu[4] == 0, "spread: one CPU per core first, then wraps");
	p.kind = PIN_COMPACT;
	pin_assign(&p, &t, 2, cpu);
	ok(cpu[0] == 0 && cpu[1] == 2, "compact: the first two workers share a core (SMT siblings)");
	p = (struct pin_plan){ PIN_LIST, 2, list };
	pin_assign(&p, &t, 3, cpu);
	ok(cpu[0] == 3 && cpu[1] == 1 && cpu[2] == 3, "a CPU list is used in turn");
	pin_describe(&p, cpu, 3, desc, sizeof(desc));
	ok(!strcmp(desc, "listed on CPUs 1,3"), "the plan describes itself (%s)", desc);
	p = (struct pin_plan){ PIN_NONE, 0, NULL };
	pin_assign(&p, &t, 2, cpu);
	ok(cpu[0] == -1 && cpu[1] == -1, "none: unpinned");
}

static void evidence(bool v2)
{
	struct cg_env env = { .mode = v2 ? CG_V2 : CG_V1, .memory_v2 = v2 };
	char cg[600], *cgs[1] = { cg }, *labels[1] = { "cg-0" }, why[256];
	struct evidence e;
	const char *v = v2 ? "v2" : "v1";

	snprintf(cg, sizeof(cg), "%s/%s-cg", tmp, v);
	mkdir(cg, 0755);
	if (v2) {
		put(cg, "memory.stat", "anon 4096\nfile 0\nsock 0\nslab_unreclaimable 1000\npgfault 100\n");
		put(cg, "memory.peak", "8192\n");
		put(cg, "memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n");
	} else {
		put(cg, "memory.stat", "cache 0\nrss 4096\npgpgin 100\npgpgout 90\npgfault 300\n");
		put(cg, "memory.max_usage_in_bytes", "8192\n");
		put(cg, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	}
	evidence_init(&e, &env, "anon", 1, cgs, labels);
	ok(e.nkeys == 2 && !strcmp(e.keys[0].key, v2 ? "pgfault" : "pgpgin") && e.keys[0].cumulative,
	   "%s anon: the charge counter is memory.stat %s, as a change", v, e.keys[0].key);
	evidence_before(&e);
	put(cg, "memory.stat", v2 ? "anon 4096\npgfault 1100\n" : "rss 4096\npgpgin 1100\npgfault 300\n");
	put(cg, v2 ? "memory.peak" : "memory.max_usage_in_bytes", "1052672\n");
	evidence_after(&e);
	is_int(evidence_value(&e, 0, 0), 1000, "%s: the change over the run", v);
	is_int(evidence_value(&e, 0, 1), 1052672, "%s: the peak as a value", v);
	ok(!evidence_death_cause(&e, 0, SIGKILL, why, sizeof(why)), "%s: a SIGKILL without an OOM kill is not one", v);
	put(cg, v2 ? "memory.events" : "memory.oom_control", v2 ? "oom 2\noom_kill 1\n" : "under_oom 0\noom_kill 1\n");
	ok(evidence_death_cause(&e, 0, SIGKILL, why, sizeof(why)) && strstr(why, "OOM killer in cgroup cg-0"),
	   "%s: an OOM kill is named with its cgroup (%s)", v, why);
	ok(!evidence_death_cause(&e, 0, SIGKILL, why, sizeof(why)), "%s: one OOM kill explains one death", v);
	evidence_free(&e);

	put(cg, "memory.stat", v2 ? "anon 4096\nsock 12288\npgfault 1100\n" : "rss 4096\npgpgin 1100\n");
	evidence_init(&e, &env, "sock", 1, cgs, labels);
	ok(!strcmp(e.keys[0].file, v2 ? "memory.stat" : "memory.kmem.tcp.usage_in_bytes"),
	   "%s sock: socket memory is read from %s", v, e.keys[0].file);
	evidence_before(&e);
	evidence_after(&e);
	ok(v2 ? evidence_value(&e, 0, 0) == 12288 : evidence_value(&e, 0, 0) == -1,
	   "%s sock: %s", v, v2 ? "memory.stat sock read" : "a missing file reads as unreadable, not 0");
	evidence_free(&e);
	evidence_init(&e, &env, "kmem", 1, cgs, labels);
	ok(!strcmp(e.keys[0].file, v2 ? "memory.stat" : "memory.kmem.usage_in_bytes") &&
	   (!v2 || !strcmp(e.keys[0].key, "slab_unreclaimable")),
	   "%s kmem: the slab charge is read from %s", v, e.keys[0].file);
	evidence_free(&e);
}

TEST(evidence_cgroup_v1)
{
	evidence(false);
}

TEST(evidence_cgroup_v2)
{
	evidence(true);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(tmp))
		return 1;
	rc = tap_main(argc, argv);
	if (tap_rm_rf(tmp))
		tap_diag("could not remove %s", tmp);
	return rc;
}
