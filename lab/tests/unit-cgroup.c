// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup detection on recorded /proc/self/mounts layouts (v1, v2, hybrid,
 * none), the control-file names per version, the guard that keeps the lab
 * away from cgroups it did not create, and the probes' counting logic.
 * Needs neither root nor a memory controller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel/cgroup.h"
#include "kernel/runtime_probe.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"

static char *fixture(const char *name)
{
	char path[256];
	char *text;

	snprintf(path, sizeof(path), TEST_DATA "/cgroup/%s", name);
	text = read_text(path, NULL);
	if (!text) {
		printf("Bail out! cannot read %s\n", path);
		exit(1);
	}
	return text;
}

static void check(const char *file, const char *controllers, enum cg_mode mode, bool v2,
		  const char *memory_root, const char *unified_root)
{
	char *text = fixture(file);
	struct cg_env env;
	int r = cg_detect_from(&env, text, controllers);

	ok(r == 0 && env.mode == mode && env.memory_v2 == v2 &&
	   !strcmp(env.memory_root, memory_root) && !strcmp(env.unified_root, unified_root),
	   "%s%s%s: %s, memory %s '%s', cgroup2 at '%s'", file, controllers ? " + controllers " : "",
	   controllers ? controllers : "", cg_mode_name(mode),
	   mode == CG_NONE ? "controller absent" : v2 ? "on v2 at" : "on v1 at", memory_root, unified_root);
	if (env.mode != mode || strcmp(env.memory_root, memory_root))
		tap_diag("  got %s, memory '%s' (v2 %d), cgroup2 '%s'; evidence: %s", cg_mode_name(env.mode),
			 env.memory_root, env.memory_v2, env.unified_root, env.evidence);
	ok(env.evidence[0] != '\0', "%s: the decision comes with evidence", file);
	free(text);
}

TEST(detect_from_recorded_mounts)
{
	check("mounts-hybrid-lab.txt", NULL, CG_HYBRID, false, "/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified");
	check("mounts-hybrid-systemd.txt", NULL, CG_HYBRID, false, "/sys/fs/cgroup/memory",
	      "/sys/fs/cgroup/unified");
	check("mounts-v1.txt", NULL, CG_V1, false, "/sys/fs/cgroup/memory", "");
	check("mounts-v2.txt", NULL, CG_V2, true, "/sys/fs/cgroup", "/sys/fs/cgroup");
	check("mounts-v2.txt", "cpuset cpu io memory hugetlb pids rdma misc", CG_V2, true,
	      "/sys/fs/cgroup", "/sys/fs/cgroup");
	/* Booted with cgroup_disable=memory: cgroup2 is there, memory is not. */
	check("mounts-v2.txt", "cpuset cpu io pids", CG_NONE, false, "", "/sys/fs/cgroup");
	/* This VM's cgroup2 lists only hugetlb, but memory is on v1. */
	check("mounts-hybrid-lab.txt", "hugetlb", CG_HYBRID, false, "/sys/fs/cgroup/memory",
	      "/sys/fs/cgroup/unified");
	check("mounts-v2-escaped.txt", NULL, CG_V2, true, "/mnt/my cgroups", "/mnt/my cgroups");
	check("mounts-none.txt", NULL, CG_NONE, false, "", "");
}

/* A v1 hierarchy named "memorytest" is not the memory controller. */
TEST(v1_evidence_quotes_memory_line)
{
	struct cg_env env;
	char *text = fixture("mounts-v1.txt");


	cg_detect(&env, text);
	ok(strstr(env.evidence, "/sys/fs/cgroup/memory ") && !strstr(env.evidence, "memtest"),
	   "v1: the evidence quotes the memory line, not name=memorytest");
	free(text);
}

/* Control files per version. */
TEST(control_files_per_version)
{
	struct cg_env env;

	memset(&env, 0, sizeof(env));
	env.mode = CG_V1;
	ok(!strcmp(cg_file_usage(&env), "memory.usage_in_bytes") &&
	   !strcmp(cg_file_limit(&env), "memory.limit_in_bytes") &&
	   !strcmp(cg_file_procs(&env), "cgroup.procs") && !strcmp(cg_file_threads(&env), "tasks"),
	   "v1 files: memory.usage_in_bytes, memory.limit_in_bytes, cgroup.procs, tasks");
	env.mode = CG_HYBRID;
	env.memory_v2 = true;
	ok(!strcmp(cg_file_usage(&env), "memory.current") && !strcmp(cg_file_limit(&env), "memory.max") &&
	   !strcmp(cg_file_procs(&env), "cgroup.procs") && !strcmp(cg_file_threads(&env), "cgroup.threads"),
	   "v2 files (memory on the unified hierarchy): memory.current, memory.max, cgroup.procs, cgroup.threads");
	is_int(cg_enter_thread(&env, "/sys/fs/cgroup/memcg-lab-1-2/x", 1), -EOPNOTSUPP,
	       "v2: a thread cannot enter a memory cgroup alone (domain cgroup)");
}

/* The guard: only paths inside memcg-lab-<pid>-<start>. */
TEST(lab_path_guard)
{
	ok(cg_path_is_lab("/sys/fs/cgroup/memory/memcg-lab-123-4567"), "a run's root is ours");
	ok(cg_path_is_lab("/sys/fs/cgroup/memory/memcg-lab-123-4567/probe-batch-r0-0"), "below a root is ours");
	ok(!cg_path_is_lab("/sys/fs/cgroup/memory"), "the hierarchy root is not ours");
	ok(!cg_path_is_lab("/sys/fs/cgroup/memory/memcg-lab-proto-4202"), "memcg-lab-proto-4202 is not a run's name");
	ok(!cg_path_is_lab("/sys/fs/cgroup/memory/memcg-lab-123-4567/../system.slice"), "'..' never passes");
	ok(!cg_path_is_lab("memcg-lab-123-4567"), "relative paths never pass");
	ok(!cg_path_is_lab("/sys/fs/cgroup/memory/memcg-lab-123-"), "an owner name without start time is not ours");
}

TEST(refusals_said_on_stderr)
{
	/* The refusals also say why on stderr: capture it. */
	char errpath[] = "/tmp/unit-cgroup-stderr.XXXXXX";
	int fd = mkstemp(errpath), saved = dup(2);
	char *said;
	int d, k, w;

	fflush(stderr);
	dup2(fd, 2);
	d = cg_destroy("/sys/fs/cgroup/memory/user.slice");
	k = cg_killall("/sys/fs/cgroup/memory");
	w = cg_write("/sys/fs/cgroup/memory", "memory.limit_in_bytes", "1");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	said = read_text(errpath, NULL);
	unlink(errpath);
	is_int(d, -EPERM, "cg_destroy refuses a cgroup outside the lab's trees");
	is_int(k, -EPERM, "cg_killall refuses the hierarchy root");
	is_int(w, -EPERM, "cg_write refuses a cgroup the lab did not create");
	ok(said && strstr(said, "refusing to remove '/sys/fs/cgroup/memory/user.slice': not inside a memcg-lab-"),
	   "and says so in one line naming the cgroup");
	free(said);
}

TEST(refused_cgroup_kill_said_once)
{
	/* A cgroup.kill the kernel refuses (here: a directory, EISDIR) is
	 * an error, said once, not a kill that silently did not happen. */
	char top[] = "/tmp/unit-cgroup-kill.XXXXXX", errpath[] = "/tmp/unit-cgroup-stderr.XXXXXX";
	char cg[128], p[192], *said = NULL;
	int fd = -1, saved = dup(2), k1 = 0, k2 = 0;

	if (mkdtemp(top) && (fd = mkstemp(errpath)) >= 0) {
		snprintf(cg, sizeof(cg), "%s/memcg-lab-1-2", top);
		snprintf(p, sizeof(p), "%s/cgroup.kill", cg);
		mkdir(cg, 0755);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/cgroup.procs", cg);
		close(open(p, O_WRONLY | O_CREAT, 0644));
		fflush(stderr);
		dup2(fd, 2);
		k1 = cg_killall(cg);
		k2 = cg_killall(cg);
		fflush(stderr);
		dup2(saved, 2);
		close(fd);
		said = read_text(errpath, NULL);
		unlink(errpath);
	}
	close(saved);
	is_int(k1, -EISDIR, "cg_killall returns a refused cgroup.kill write");
	ok(said && strstr(said, "/memcg-lab-1-2/cgroup.kill: Is a directory") && !strchr(strchr(said, '\n') + 1, '\n') &&
	   k2 == -EISDIR, "and says so once, naming the file, though cg_destroy's retries call it again");
	free(said);
	if (tap_rm_rf(top))
		tap_diag("rm -rf %s failed", top);
}

TEST(cgroup_paths_joined)
{
	char *n = cg_name_indexed("/a/memcg-lab-1-2", "w", 3);
	char buf[64];

	ok(!strcmp(n, "/a/memcg-lab-1-2/w_3"), "cg_name_indexed: <parent>/<name>_<idx>");
	free(n);
	cg_control(buf, sizeof(buf), "/a/b/", "memory.stat");
	ok(!strcmp(buf, "/a/b/memory.stat"), "cg_control joins without a double slash");
}

/* Counting memcgs that hold a precharge (the stock probes). */
TEST(precharged_memcgs_counted)
{
	const long page = 4096;
	/* 16 memcgs charged one page in turn; 7 kept 63 pages, 9 were drained. */
	long long usage[16], charged[16];
	bool holding[16];
	int n;

	for (int i = 0; i < 16; i++) {
		charged[i] = page;
		usage[i] = i >= 9 ? 64 * page : page;
	}
	usage[3] = 2 * page;	/* a page table charged too: still drained */
	n = runtime_count_precharged(usage, charged, 16, runtime_precharge_threshold(64, page), holding);
	is_int(n, 7, "7 of 16 memcgs above their own page by >= 32 pages hold a precharge");
	ok(holding[9] && holding[15] && !holding[3] && !holding[0], "holding[] marks exactly those");
	is_int(runtime_precharge_threshold(64, page), 32 * page, "threshold: half a batch of 64");
	is_int(runtime_precharge_threshold(32, page), 16 * page, "threshold: half a batch of 32");
}

/* A probe's rounds summed up: the mode, the spread, failed rounds. */
TEST(probe_rounds_summed)
{
	struct runtime_probe_stat s = { .samples = { 7, 6, 7, -1, 7, 5 } };

	runtime_stat_finish(&s, 6, false);
	ok(s.mode == 7 && s.min == 5 && s.max == 7 && s.nsamples == 5,
	   "mode 7, spread 5..7 over 5 rounds, a failed round skipped");
	struct runtime_probe_stat t = { .samples = { 6, 7 } };

	runtime_stat_finish(&t, 2, false);
	is_int(t.mode, 7, "a tie goes to the larger value (noise only evicts)");
	struct runtime_probe_stat u = { .samples = { -1, -1 } };

	runtime_stat_finish(&u, 2, true);
	ok(u.mode == -1 && u.nsamples == 0, "no round worked: mode -1");
	struct runtime_probe_stat v = { .samples = { 6, 7, 6, -1, 6 } };

	runtime_stat_finish(&v, 5, false);
	is_int(v.mode, 6, "the batch's answer is the commonest value");
	runtime_stat_finish(&v, 5, true);
	ok(v.mode == 7 && v.min == 6 && v.nsamples == 4,
	   "a slot count, where rounds only undercount: the largest value, 7 of 6 7 6 6");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
