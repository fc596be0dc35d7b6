// SPDX-License-Identifier: GPL-2.0
/*
 * The stat-read plan on made-up hosts: the tree and readers it builds, the
 * defaults scaled to the machine, the control files of cgroup v1 and v2
 * (from recorded mounts files), and every refusal of bad input.
 */
#include <stdlib.h>
#include <string.h>
#include "drivers/statread/driver.h"
#include "tests/tap.h"
#include "util/fileio.h"

#define FIX TEST_DATA "/statread/"

static struct cg_env env_from(const char *file)
{
	struct cg_env env;
	char *text = read_text(file, NULL);

	if (!text) {
		printf("Bail out! cannot read %s\n", file);
		exit(1);
	}
	cg_detect(&env, text);
	free(text);
	return env;
}

/* A roomy machine: 256 CPUs, 1 TiB available, no swap, plenty of ids. */
static struct statread_host big_host(void)
{
	struct statread_host h = {
		.ncpus = 256,
		.mem_available = 1ll << 40,
		.swap_free = 0,
		.memcgs_in_use = 40,
		.memcgs_max = 65535,
		.descendants_left = 1ll << 40,
		.depth_left = 1ll << 40,
		.threads_left = 1 << 20,
		.nofile_max = 1 << 20,
		.file_dir_ok = true,
	};

	strcpy(h.file_dir, "/var/tmp");
	return h;
}

/* Plans and expects a refusal whose text contains want. */
static void refused(const struct statread_config *c, const struct cg_env *env,
		    const struct statread_host *h, const char *want, const char *what)
{
	struct statread_plan p;
	char err[512] = "";
	int r = statread_plan(&p, c, env, h, err, sizeof(err));

	ok(r == -1 && strstr(err, want), "refused: %s", what);
	if (r != -1 || !strstr(err, want))
		tap_diag("  got %d '%s', want an error with '%s'", r, err, want);
	statread_plan_free(&p);
}

/* The recorded mounts (main() reads them): memory on v1, on v2, none. */
static struct cg_env v1, v2, none;

/* Hierarchy versions from the recorded mounts. */
TEST(hierarchy_versions_from_mounts)
{
	ok(v1.mode != CG_NONE && !v1.memory_v2 && !strcmp(v1.memory_root, "/sys/fs/cgroup/memory"),
	   "v1 fixture: memory on v1 at /sys/fs/cgroup/memory");
	ok(v2.memory_v2 && !strcmp(v2.memory_root, "/sys/fs/cgroup"),
	   "v2 fixture: memory on the unified hierarchy at /sys/fs/cgroup");
	ok(none.mode == CG_NONE, "no-cgroup fixture: no memory controller");
}

/* The reference shape on a 256-CPU machine, unscaled. */
TEST(reference_shape_256_cpus)
{
	struct statread_host h = big_host();
	struct statread_config c;
	struct statread_plan p;
	char err[512];

	statread_config_defaults(&c);
	is_int(statread_plan(&p, &c, &v1, &h, err, sizeof(err)), 0, "reference plan is accepted");
	is_int(p.cfg.top * 100 + p.cfg.children * 10 + p.cfg.allocators, 50 * 100 + 5 * 10 + 10,
	       "256 CPUs: 50 x 5 leaves, 10 allocators each");
	ok(!p.scaled_note[0], "256 CPUs: nothing scaled, nothing said");
	is_int(p.ncgs, 1 + 50 + 250, "1 root + 50 top + 250 leaves");
	is_int(p.nallocators, 2500, "2500 allocators");
	is_int(p.nreaders, 301, "one reader per cgroup");
	ok(p.readers_at[SR_ROOT] == 1 && p.readers_at[SR_TOP] == 50 && p.readers_at[SR_LEAF] == 250,
	   "readers at every level: 1 root, 50 top, 250 leaf");
	is_int(p.cfg.limit_bytes, 25 << 20, "leaf limit: a quarter of 10 x 10 MiB");
	is_int(p.cfg.alloc_bytes, 10 << 20, "working set: 10 MiB per allocator (stress.sh)");
	ok(!strcmp(p.cgs[0].rel, "") && p.cgs[0].level == SR_ROOT, "cgroup 0 is the run's root");
	ok(!strcmp(p.cgs[1].rel, "top0") && !strcmp(p.cgs[2].rel, "top0/leaf0") &&
	   !strcmp(p.cgs[p.ncgs - 1].rel, "top49/leaf4"), "tree names: top<i>/leaf<j>");
	ok(!strcmp(p.limit_file, "memory.limit_in_bytes") && !strcmp(p.hit_limit_file, "memory.failcnt") &&
	   !strcmp(p.oom_file, "memory.oom_control"), "v1 control files");
	statread_plan_free(&p);
}

/* The same on v2: other files, same tree. */
TEST(v2_files_same_tree)
{
	struct statread_host h = big_host();
	struct statread_config c;
	struct statread_plan p;
	char err[512];

	statread_config_defaults(&c);
	is_int(statread_plan(&p, &c, &v2, &h, err, sizeof(err)), 0, "v2 plan is accepted");
	ok(p.v2 && !strcmp(p.limit_file, "memory.max") && !strcmp(p.hit_limit_file, "memory.events") &&
	   !strcmp(p.hit_limit_key, "max") && !strcmp(p.oom_file, "memory.events") &&
	   !strcmp(p.reclaim_keys[0], "pgscan"), "v2 control files: memory.max, memory.events, pgscan");
	{
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		statread_describe_setup(f, &p, &v2, "/sys/fs/cgroup/memcg-lab-1-2");
		fclose(f);
		ok(strstr(out, "mkdir /sys/fs/cgroup/memcg-lab-1-2/top49/leaf4 (+memory") != NULL,
		   "v2 setup: leaves under the unified root, +memory in subtree_control");
		ok(strstr(out, "/sys/fs/cgroup/memcg-lab-1-2/top0/leaf0/memory.max = 26214400") != NULL,
		   "v2 setup: leaf limit written to memory.max");
		ok(strstr(out, "/sys/fs/cgroup/memcg-lab-1-2/top0/memory.max") == NULL,
		   "v2 setup: top level unlimited by default");
		ok(strstr(out, "reader 0 (root): /sys/fs/cgroup/memcg-lab-1-2/memory.stat") != NULL,
		   "v2 setup: the root reader reads the run's root");
		free(out);
	}
	statread_plan_free(&p);
}

/* Host root and numa_stat on v2. */
TEST(host_root_numa_stat_v2)
{
	struct statread_host h = big_host();
	struct statread_config c;
	struct statread_plan p;
	char err[512];

	statread_config_defaults(&c);
	c.host_root = true;
	c.file_mask = (1u << SR_STAT) | (1u << SR_NUMA_STAT);
	statread_plan(&p, &c, &v2, &h, err, sizeof(err));
	{
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		statread_describe_setup(f, &p, &v2, "/sys/fs/cgroup/memcg-lab-1-2");
		fclose(f);
		ok(strstr(out, "reader 0 (root): /sys/fs/cgroup/memory.stat") &&
		   strstr(out, "reader 0 (root): /sys/fs/cgroup/memory.numa_stat"),
		   "--host-root --files stat,numa_stat: root reader reads the host root's two files");
		free(out);
	}
	statread_plan_free(&p);
}

/* Scaled down on a small machine, and said so. */
TEST(scaled_down_on_small_machine)
{
	struct statread_host h = big_host();
	struct statread_config c;
	struct statread_plan p;
	char err[512];

	statread_config_defaults(&c);
	h.ncpus = 2;
	is_int(statread_plan(&p, &c, &v1, &h, err, sizeof(err)), 0, "2 CPUs: accepted");
	ok(p.scaled_note[0] && strstr(p.scaled_note, "2 CPUs"), "2 CPUs: scaling is said");
	ok(p.nleaves >= 1 && p.nleaves <= 4 && p.nallocators <= 8,
	   "2 CPUs: a small tree (%d leaves, %d allocators)", p.nleaves, p.nallocators);
	ok(p.cfg.allocators * p.cfg.alloc_bytes >= 2 * p.cfg.limit_bytes,
	   "2 CPUs: each leaf's allocators need at least twice its limit");
	statread_plan_free(&p);
	c.top = 3;
	c.children = 4;
	c.allocators = 2;
	is_int(statread_plan(&p, &c, &v1, &h, err, sizeof(err)), 0, "explicit shape on 2 CPUs");
	ok(!p.scaled_note[0] && p.nleaves == 12, "explicit shape: kept, nothing said");
	statread_plan_free(&p);
	h.ncpus = 64;
	statread_config_defaults(&c);
	statread_plan(&p, &c, &v1, &h, err, sizeof(err));
	ok(p.cfg.children == 5 && p.cfg.allocators == 10 && p.nleaves >= 55 && p.nleaves <= 65,
	   "64 CPUs: about one leaf per CPU, 5 per top, 10 allocators (%d leaves)", p.nleaves);
	statread_plan_free(&p);
}

/* Readers: a total spread round robin, and level selection. */
TEST(readers_spread_and_levels)
{
	struct statread_host h = big_host();
	struct statread_config c;
	struct statread_plan p;
	char err[512];

	statread_config_defaults(&c);
	c.top = 2;
	c.children = 3;
	c.total_readers = 20;
	statread_plan(&p, &c, &v1, &h, err, sizeof(err));
	is_int(p.nreaders, 20, "--total-readers 20: 20 readers");
	ok(p.readers_at[SR_ROOT] + p.readers_at[SR_TOP] + p.readers_at[SR_LEAF] == 20 &&
	   p.readers_at[SR_LEAF] >= 6 * 2, "spread over all 9 cgroups (leaf %d)", p.readers_at[SR_LEAF]);
	statread_plan_free(&p);
	c.total_readers = 0;
	c.readers_per_cg = 2;
	c.level_mask = 1u << SR_LEAF;
	statread_plan(&p, &c, &v1, &h, err, sizeof(err));
	ok(p.nreaders == 12 && p.readers_at[SR_LEAF] == 12, "--levels leaf --readers 2: 12 leaf readers");
	statread_plan_free(&p);
}

TEST(bad_input_refused)
{
	struct statread_host h = big_host();
	struct statread_config c;
	struct statread_plan p;
	char err[512];

	statread_config_defaults(&c);
	c.interval_ns = 0;
	refused(&c, &v1, &h, "--interval must be longer than 0", "interval of zero");
	statread_config_defaults(&c);
	refused(&c, &none, &h, "no memory controller", "no memory controller mounted");
	c.top = 20000;
	refused(&c, &v1, &h, "memory cgroup limit", "tree larger than the memcg id space");
	{
		struct statread_host tight = big_host();

		statread_config_defaults(&c);
		tight.descendants_left = 100;
		refused(&c, &v2, &tight, "cgroup.max.descendants", "tree larger than cgroup.max.descendants");
		tight = big_host();
		tight.depth_left = 2;
		refused(&c, &v2, &tight, "cgroup.max.depth", "tree deeper than cgroup.max.depth");
		tight = big_host();
		tight.threads_left = 1000;
		refused(&c, &v1, &tight, "threads", "more readers and allocators than threads left");
		/* Wei Xu's 10000 readers under a hard limit the lab cannot raise. */
		tight = big_host();
		tight.nofile_max = 4096;
		c.total_readers = 10000;
		refused(&c, &v2, &tight, "10000 readers keep 10064 files open, over the 4096",
			"more reader files than RLIMIT_NOFILE allows, with the numbers");
		c.reopen = true;
		{
			struct statread_plan p;
			char err[512] = "";

			ok(statread_plan(&p, &c, &v2, &tight, err, sizeof(err)) == 0 && p.fds == SR_BASE_FDS,
			   "--reopen keeps no reader file open: 10000 readers fit 4096 files (%s)", err);
			statread_plan_free(&p);
		}
		statread_config_defaults(&c);
		tight = big_host();
		tight.mem_available = 8ll << 30;
		c.limit_bytes = -1;
		c.alloc_bytes = 1ll << 30;
		refused(&c, &v1, &tight, "with no limit", "allocators exceeding memory with no limit");
		c.limit_bytes = 1ll << 30;
		c.alloc_bytes = 0;
		refused(&c, &v1, &tight, "more than half", "limits adding up past half of memory");
		statread_config_defaults(&c);
		c.limit_bytes = 200 << 20;
		c.alloc_bytes = 10 << 20;
		refused(&c, &v1, &h, "nothing would be reclaimed", "working set that fits the limit");
		statread_config_defaults(&c);
		c.kind = ALLOC_TMPFS;
		refused(&c, &v1, &h, "needs swap", "tmpfs allocators without swap");
		c.kind = ALLOC_ANON;
		refused(&c, &v1, &h, "needs swap", "anon allocators without swap");
		tight = big_host();
		tight.swap_free = 1ll << 30;
		refused(&c, &v1, &tight, "of swap is free", "anon allocators with too little swap");
		tight.swap_free = 64ll << 30;
		ok(!statread_plan(&p, &c, &v1, &tight, err, sizeof(err)), "anon allocators with enough swap");
		statread_plan_free(&p);
		statread_config_defaults(&c);
		tight = big_host();
		tight.file_dir_ok = false;
		strcpy(tight.file_dir_why, "/tmp is on tmpfs");
		refused(&c, &v1, &tight, "disk filesystem: /tmp is on tmpfs", "file allocators on tmpfs");
		c.allocators = 0;
		ok(!statread_plan(&p, &c, &v1, &tight, err, sizeof(err)),
		   "readers alone (--allocators 0) need no file directory");
		statread_plan_free(&p);
	}
	statread_config_defaults(&c);
	c.file_mask = 0;
	refused(&c, &v1, &h, "--files", "no file to read");
	statread_config_defaults(&c);
	c.duration_ns = 0;
	refused(&c, &v1, &h, "--duration", "zero duration");
}

int main(int argc, char **argv)
{
	v1 = env_from(FIX "mounts-v1-hybrid");
	v2 = env_from(FIX "mounts-v2");
	none = env_from(FIX "mounts-none");
	return tap_main(argc, argv);
}
