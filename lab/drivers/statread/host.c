// SPDX-License-Identifier: GPL-2.0
/* The host facts statread_plan() checks a request against. */
#include <errno.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "drivers/statread/driver.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/meminfo.h"
#include "util/nofile.h"
#include "util/results.h"

/* Memory cgroup ids are 16 bits (MEM_CGROUP_ID_MAX = USHRT_MAX). */
#define MEMCG_ID_MAX 65535

static long long memcgs_in_use(void)
{
	char *t = read_text("/proc/cgroups", NULL), *line, *save;
	long long n = 0;

	if (!t)
		return 0;
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32];
		int hier;
		long long num;

		if (sscanf(line, "%31s %d %lld", name, &hier, &num) == 3 && !strcmp(name, "memory"))
			n = num;
	}
	free(t);
	return n;
}

/* cgroup.max.descendants / cgroup.max.depth of the cgroup the run's tree
 * goes under (absent at a hierarchy's root and on v1: no limit). */
static void v2_limits(struct statread_host *h, const struct cg_env *env)
{
	char path[600], *stat;
	long long max, used = 0;

	h->descendants_left = LLONG_MAX;
	h->depth_left = LLONG_MAX;
	if (!env->memory_v2)
		return;
	snprintf(path, sizeof(path), "%s/cgroup.max.descendants", env->memory_root);
	if (!read_ll(path, &max) && max != LLONG_MAX) {
		snprintf(path, sizeof(path), "%s/cgroup.stat", env->memory_root);
		stat = read_text(path, NULL);
		if (stat && strstr(stat, "nr_descendants "))
			used = strtoll(strstr(stat, "nr_descendants ") + 15, NULL, 10);
		free(stat);
		h->descendants_left = max - used;
	}
	snprintf(path, sizeof(path), "%s/cgroup.max.depth", env->memory_root);
	if (!read_ll(path, &max) && max != LLONG_MAX)
		h->depth_left = max;
}

static long long threads_left(void)
{
	long long tmax = LLONG_MAX, pmax = LLONG_MAX, running, total = 0;
	char buf[128];

	read_ll("/proc/sys/kernel/threads-max", &tmax);
	read_ll("/proc/sys/kernel/pid_max", &pmax);
	if (read_buf("/proc/loadavg", buf, sizeof(buf)) > 0)
		sscanf(buf, "%*s %*s %*s %lld/%lld", &running, &total);
	return (tmax < pmax ? tmax : pmax) - total;
}

static const char *disk_fs_name(long type)
{
	switch (type) {
	case EXT4_SUPER_MAGIC:
		return "ext4";	/* also ext2/ext3: same magic */
	case XFS_SUPER_MAGIC:
		return "xfs";
	case BTRFS_SUPER_MAGIC:
		return "btrfs";
	case F2FS_SUPER_MAGIC:
		return "f2fs";
	case 0x2fc12fc1:
		return "zfs";
	case 0xca451a4e:
		return "bcachefs";
	}
	return NULL;
}

/* Whether dir can hold the page-cache allocators' files: a local disk
 * filesystem (whose clean pages reclaim drops without swap) where a
 * sparse temporary file can be made.  Says why in h->file_dir_why. */
static bool check_file_dir(struct statread_host *h, const char *dir)
{
	struct statfs sf;
	const char *fs;
	int fd;

	snprintf(h->file_dir, sizeof(h->file_dir), "%s", dir);
	if (statfs(dir, &sf) < 0) {
		snprintf(h->file_dir_why, sizeof(h->file_dir_why), "%s: %s", dir, strerror(errno));
		return false;
	}
	fs = disk_fs_name((long)sf.f_type);
	if (!fs) {
		snprintf(h->file_dir_why, sizeof(h->file_dir_why),
			 "%s is on %s (filesystem magic 0x%lx), not ext4/xfs/btrfs/f2fs; pick one "
			 "with --file-dir", dir,
			 sf.f_type == TMPFS_MAGIC ? "tmpfs" : sf.f_type == RAMFS_MAGIC ? "ramfs" :
			 sf.f_type == OVERLAYFS_SUPER_MAGIC ? "overlayfs" : "another filesystem",
			 (unsigned long)sf.f_type);
		return false;
	}
	fd = reclaim_alloc_open_file(dir, 1 << 20);
	if (fd < 0) {
		snprintf(h->file_dir_why, sizeof(h->file_dir_why),
			 "%s (%s): cannot create a temporary file: %s", dir, fs, strerror(-fd));
		return false;
	}
	close(fd);
	snprintf(h->file_dir_why, sizeof(h->file_dir_why), "%s (%s, sparse temporary files)", dir, fs);
	return true;
}

void statread_host_limits(struct statread_host *h, const struct cg_env *env)
{
	struct meminfo mi;

	memset(h, 0, sizeof(*h));
	h->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (!meminfo_read(&mi)) {
		h->mem_available = mi.available;
		h->swap_free = mi.swap_free;
	}
	h->memcgs_in_use = memcgs_in_use();
	h->memcgs_max = MEMCG_ID_MAX;
	v2_limits(h, env);
	h->threads_left = threads_left();
	h->nofile_max = nofile_reachable();
}

void statread_host_probe(struct statread_host *h, const struct cg_env *env, const char *file_dir)
{
	statread_host_limits(h, env);
	if (file_dir) {
		h->file_dir_ok = check_file_dir(h, file_dir);
		return;
	}
	/* The first local disk directory of $TMPDIR, /var/tmp, the lab's own tree. */
	{
		const char *cands[] = { getenv("TMPDIR"), "/var/tmp", lab_root_dir() };
		char first_why[sizeof(h->file_dir_why)] = "";

		for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
			if (!cands[i] || !*cands[i])
				continue;
			if (check_file_dir(h, cands[i])) {
				h->file_dir_ok = true;
				return;
			}
			if (!first_why[0])
				memcpy(first_why, h->file_dir_why, sizeof(first_why));
		}
		memcpy(h->file_dir_why, first_why, sizeof(first_why));
	}
}
