// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "drivers/placement.h"
#include "util/cpus.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/labcost.h"
#include "util/owner.h"

/* The memory controller's cgroup IDs are 16 bits (MEM_CGROUP_ID_MAX). */
#define MEMCG_ID_MAX 65535
/* The longest control file name the lab touches, with its slash. */
#define LONGEST_CONTROL "/memory.kmem.tcp.max_usage_in_bytes"

int hierarchy_parse(const char *s, int *depth, int *fanout, char *err, size_t errlen)
{
	char *end;
	long d, f;

	errno = 0;
	d = strtol(s, &end, 10);
	if (end == s || *end != 'x' || errno)
		goto bad;
	s = end + 1;
	f = strtol(s, &end, 10);
	if (end == s || *end || errno)
		goto bad;
	if (d < 1 || f < 1 || d > INT_MAX || f > INT_MAX) {
		snprintf(err, errlen, "depth and fanout must be at least 1");
		return -1;
	}
	*depth = (int)d;
	*fanout = (int)f;
	return 0;
bad:
	snprintf(err, errlen, "not DEPTHxFANOUT (e.g. 3x2: three levels, two children each)");
	return -1;
}

long hierarchy_leaves(int depth, int fanout)
{
	long n = 1;

	for (int i = 0; i < depth; i++) {
		if (n > INT_MAX / fanout)
			return INT_MAX;
		n *= fanout;
	}
	return n;
}

/* Name of the level-l (1-based) cgroup with index idx below its parent. */
static void level_name(char *buf, size_t n, int depth, int level, int idx)
{
	if (depth == 1)
		snprintf(buf, n, "cg-%d", idx);
	else
		snprintf(buf, n, "l%d-%d", level, idx);
}

static long memcg_ids_in_use(void)
{
	char *t = read_text("/proc/cgroups", NULL), *line, *save = NULL;
	long n = -1;

	if (!t)
		return -1;
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32];
		long hier, num;

		if (sscanf(line, "%31s %ld %ld", name, &hier, &num) == 3 && !strcmp(name, "memory"))
			n = num;
	}
	free(t);
	return n;
}

void hierarchy_limits_read(const struct cg_env *env, struct hierarchy_limits *l)
{
	char file[600];
	long long d;

	l->memcg_ids_used = memcg_ids_in_use();
	l->max_depth = l->max_descendants = LLONG_MAX;
	if (!env->memory_v2)
		return;
	snprintf(file, sizeof(file), "%s/cgroup.max.depth", env->memory_root);
	if (read_ll(file, &d) == 0)
		l->max_depth = d;
	snprintf(file, sizeof(file), "%s/cgroup.max.descendants", env->memory_root);
	if (read_ll(file, &d) == 0)
		l->max_descendants = d;
}

int hierarchy_fits(const struct cg_env *env, const struct hierarchy_limits *lim, int depth, int fanout,
		   char *err, size_t errlen)
{
	long total = 0, level = 1, used = lim->memcg_ids_used;
	size_t path = strlen(env->memory_root) + 1 + strlen(LAB_OWNER_PREFIX) + 32 + strlen(LONGEST_CONTROL);
	char name[64];

	/* Every level, then every node: a deep tree fails on PATH_MAX first. */
	for (int l = 1; l <= depth; l++) {
		level_name(name, sizeof(name), depth, l, fanout - 1);
		path += 1 + strlen(name);
		if (path >= PATH_MAX) {
			snprintf(err, errlen, "the deepest control file's path would be over PATH_MAX (%d bytes) "
				 "from level %d on", PATH_MAX, l);
			return -1;
		}
	}
	for (int l = 1; l <= depth; l++) {
		if (level > (MEMCG_ID_MAX + 1L) / fanout) {
			total = MEMCG_ID_MAX + 1L;
			break;
		}
		level *= fanout;
		total += level;
	}
	if (total + 1 + (used > 0 ? used : 0) > MEMCG_ID_MAX) {
		snprintf(err, errlen, "%s%ld cgroups, more than the memory controller's free IDs (%d, %ld in use)",
			 total > MEMCG_ID_MAX ? "over " : "", total, MEMCG_ID_MAX, used > 0 ? used : 0);
		return -1;
	}
	/* v2 limits on the hierarchy above the run's root (a delegated subtree). */
	if (env->memory_v2) {
		if (lim->max_depth < depth + 1) {
			snprintf(err, errlen, "the run's root and %d levels below it need cgroup.max.depth %d, but "
				 "%s/cgroup.max.depth allows %lld", depth, depth + 1, env->memory_root, lim->max_depth);
			return -1;
		}
		if (lim->max_descendants < total + 1) {
			snprintf(err, errlen, "%ld cgroups, but %s/cgroup.max.descendants allows %lld", total + 1,
				 env->memory_root, lim->max_descendants);
			return -1;
		}
	}
	return 0;
}

int hierarchy_check(const struct cg_env *env, int depth, int fanout, char *err, size_t errlen)
{
	struct hierarchy_limits l;

	hierarchy_limits_read(env, &l);
	return hierarchy_fits(env, &l, depth, fanout, err, errlen);
}

int placement_build(struct placement *p, int depth, int fanout, int ncg, long long limit_bytes,
		    long long tcp_limit_bytes, char *err, size_t errlen)
{
	int *prev = xcalloc(depth, sizeof(int)), *dig = xcalloc(depth, sizeof(int));
	int e, ret = -1;
	double t0 = labcost_now();

	memset(p, 0, sizeof(*p));
	p->depth = depth;
	p->fanout = fanout;
	if (cg_tree_create(&p->tree, err, errlen))
		goto out;
	p->have_tree = true;
	p->leaf = xcalloc(ncg, sizeof(char *));
	p->label = xcalloc(ncg, sizeof(char *));
	for (int j = 0; j < ncg; j++) {
		char *path = xstrdup(p->tree.root), *label = xstrdup("");

		/* Leaf j's index at each level: j's digits in base fanout. */
		for (int l = depth - 1, v = j; l >= 0; l--, v /= fanout)
			dig[l] = v % fanout;
		for (int l = 0; l < depth; l++) {
			char name[64], *np, *nl;
			bool fresh = j == 0;

			for (int k = 0; k <= l && !fresh; k++)
				fresh = dig[k] != prev[k];
			level_name(name, sizeof(name), depth, l + 1, dig[l]);
			np = cg_name(path, name);
			nl = xasprintf("%s%s%s", label, l ? "/" : "", name);
			free(path);
			free(label);
			path = np;
			label = nl;
			if (fresh && (e = cg_create(&p->tree.env, path)) < 0) {
				snprintf(err, errlen, "cannot create cgroup %s: %s", path, strerror(-e));
				free(path);
				free(label);
				goto out;
			}
		}
		memcpy(prev, dig, depth * sizeof(int));
		p->leaf[j] = path;
		p->label[j] = label;
		p->ncg = j + 1;
		if (limit_bytes >= 0 && (e = cg_set_limit(&p->tree.env, path, limit_bytes)) < 0) {
			snprintf(err, errlen, "%s: cannot set the limit to %lld bytes: %s", path, limit_bytes,
				 strerror(-e));
			goto out;
		}
		if (tcp_limit_bytes >= 0 &&
		    (e = cg_write_ll(path, "memory.kmem.tcp.limit_in_bytes", tcp_limit_bytes)) < 0) {
			snprintf(err, errlen, "%s/memory.kmem.tcp.limit_in_bytes: cannot set %lld: %s", path,
				 tcp_limit_bytes, strerror(-e));
			goto out;
		}
	}
	ret = 0;
out:
	labcost_add(LABCOST_CGROUP_SETUP, labcost_now() - t0);
	free(prev);
	free(dig);
	return ret;
}

void placement_destroy(struct placement *p)
{
	double t0 = labcost_now();

	for (int i = 0; i < p->ncg; i++) {
		free(p->leaf[i]);
		free(p->label[i]);
	}
	free(p->leaf);
	free(p->label);
	if (p->have_tree)
		cg_tree_destroy(&p->tree);
	memset(p, 0, sizeof(*p));
	labcost_add(LABCOST_CGROUP_TEARDOWN, labcost_now() - t0);
}

int placement_enter(void *arg, int idx, char *err, size_t errlen)
{
	struct placement *p = arg;
	int e = cg_enter(&p->tree.env, p->leaf[idx], 0);

	if (e < 0)
		snprintf(err, errlen, "cannot enter cgroup %s: %s", p->leaf[idx], strerror(-e));
	return e;
}

/* ---- CPUs ---- */

static int check_cpu(int cpu, const cpu_set_t *online, const cpu_set_t *usable, char *err, size_t errlen)
{
	char list[256];

	if (!CPU_ISSET(cpu, online)) {
		cpulist_format(online, list, sizeof(list));
		snprintf(err, errlen, "CPU %d is offline or absent (online: %s)", cpu, list);
		return -1;
	}
	if (!CPU_ISSET(cpu, usable)) {
		cpulist_format(usable, list, sizeof(list));
		snprintf(err, errlen, "CPU %d is online but not allowed to this process (allowed: %s)", cpu, list);
		return -1;
	}
	return 0;
}

void pin_cpus_read(struct pin_cpus *c)
{
	memset(c, 0, sizeof(*c));
	if ((c->read_err = cpus_online(&c->online, NULL)) == 0)
		c->read_err = cpus_usable(&c->usable);
}

int pin_parse_on(const char *s, const struct topo *t, const struct pin_cpus *c, struct pin_plan *p,
		 char *err, size_t errlen)
{
	int n;

	memset(p, 0, sizeof(*p));
	if (!strcmp(s, "none")) {
		p->kind = PIN_NONE;
		return 0;
	}
	if (!strcmp(s, "spread") || !strcmp(s, "compact")) {
		p->kind = s[0] == 's' ? PIN_SPREAD : PIN_COMPACT;
		return 0;
	}
	if (c->read_err < 0) {
		snprintf(err, errlen, "cannot read the online CPUs: %s", strerror(-c->read_err));
		return -1;
	}
	p->cpus = xcalloc(CPU_SETSIZE, sizeof(int));
	if (!strncmp(s, "pack", 4) && (!s[4] || s[4] == ':')) {
		p->kind = PIN_PACK;
		p->ncpus = 1;
		p->cpus[0] = t->compact[0];
		if (!s[4])
			return 0;
		n = cpulist_parse(s + 5, p->cpus, CPU_SETSIZE, err, errlen);
		if (n != 1) {
			if (n > 1)
				snprintf(err, errlen, "pack takes one CPU (pack:3)");
			goto fail;
		}
	} else {
		p->kind = PIN_LIST;
		n = cpulist_parse(s, p->cpus, CPU_SETSIZE, err, errlen);
		if (n < 0) {
			if (!strchr("0123456789", s[0]))
				snprintf(err, errlen, "want spread, compact, pack, pack:CPU, none or a CPU list "
					 "(0,2-5)");
			goto fail;
		}
		p->ncpus = n;
	}
	for (int i = 0; i < p->ncpus; i++)
		if (check_cpu(p->cpus[i], &c->online, &c->usable, err, errlen))
			goto fail;
	return 0;
fail:
	pin_free(p);
	return -1;
}

int pin_parse(const char *s, const struct topo *t, struct pin_plan *p, char *err, size_t errlen)
{
	struct pin_cpus c;

	pin_cpus_read(&c);
	return pin_parse_on(s, t, &c, p, err, errlen);
}

void pin_assign(const struct pin_plan *p, const struct topo *t, int n, int *cpu)
{
	for (int i = 0; i < n; i++) {
		switch (p->kind) {
		case PIN_NONE: cpu[i] = -1; break;
		case PIN_SPREAD: cpu[i] = t->spread[i % t->npu]; break;
		case PIN_COMPACT: cpu[i] = t->compact[i % t->npu]; break;
		case PIN_PACK: cpu[i] = p->cpus[0]; break;
		case PIN_LIST: cpu[i] = p->cpus[i % p->ncpus]; break;
		}
	}
}

void pin_describe(const struct pin_plan *p, const int *cpu, int n, char *buf, size_t len)
{
	static const char *const names[] = { "unpinned", "spread", "compact", "packed", "listed" };
	char list[512];
	cpu_set_t set;

	if (p->kind == PIN_NONE) {
		snprintf(buf, len, "unpinned");
		return;
	}
	CPU_ZERO(&set);
	for (int i = 0; i < n; i++)
		if (cpu[i] >= 0)
			CPU_SET(cpu[i], &set);
	cpulist_format(&set, list, sizeof(list));
	snprintf(buf, len, "%s on CPU%s %s", names[p->kind], CPU_COUNT(&set) == 1 ? "" : "s", list);
}

void pin_free(struct pin_plan *p)
{
	free(p->cpus);
	p->cpus = NULL;
	p->ncpus = 0;
}

/* ---- tasks ---- */

static long tasks_now(void)
{
	char buf[256];
	long running, total;

	if (read_buf("/proc/loadavg", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%*s %*s %*s %ld/%ld", &running, &total) != 2)
		return 0;
	return total;
}

/*
 * This process's pids cgroup: the mount point and the path below it, of a
 * v1 pids hierarchy, or else of cgroup v2 (where the pids controller sits
 * in the unified hierarchy, as on the users' boxes).
 */
static bool pids_cgroup(char *mnt, size_t mlen, char *rel, size_t rlen)
{
	char *mounts = read_text("/proc/self/mounts", NULL), *self = read_text("/proc/self/cgroup", NULL);
	char *line, *save = NULL, v2[256] = "";

	mnt[0] = rel[0] = '\0';
	for (line = mounts ? strtok_r(mounts, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char dev[64], where[256], type[32], opts[512];

		if (sscanf(line, "%63s %255s %31s %511s", dev, where, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup") && (strstr(opts, ",pids") || !strncmp(opts, "pids", 4)))
			snprintf(mnt, mlen, "%s", where);
		else if (!strcmp(type, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", where);
	}
	save = NULL;
	for (line = self ? strtok_r(self, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : NULL;

		if (p && mnt[0] && !strncmp(c + 1, "pids:", 5))
			snprintf(rel, rlen, "%s", p + 1);
		else if (p && !mnt[0] && v2[0] && !strncmp(line, "0::", 3))
			snprintf(rel, rlen, "%s", p + 1);
	}
	if (!mnt[0])
		snprintf(mnt, mlen, "%s", v2);
	free(mounts);
	free(self);
	return mnt[0] && rel[0];
}

long long pids_headroom(char *file, size_t n, long long *max_out, long long *cur_out)
{
	char mnt[256], rel[768];
	long long left = LLONG_MAX;

	if (file && n)
		file[0] = '\0';
	if (!pids_cgroup(mnt, sizeof(mnt), rel, sizeof(rel)))
		return left;
	/* Every pids cgroup from ours up to (not including) the root. */
	while (rel[0] && strcmp(rel, "/")) {
		char f[1100];
		long long max, cur;

		snprintf(f, sizeof(f), "%s%s/pids.max", mnt, rel);
		if (read_ll(f, &max) == 0 && max != LLONG_MAX) {
			char fc[1100];

			snprintf(fc, sizeof(fc), "%s%s/pids.current", mnt, rel);
			if (read_ll(fc, &cur) == 0 && max - cur < left) {
				left = max - cur;
				if (file)
					snprintf(file, n, "%s", f);
				if (max_out)
					*max_out = max;
				if (cur_out)
					*cur_out = cur;
			}
		}
		*strrchr(rel, '/') = '\0';
	}
	return left;
}

void task_limits_read(struct task_limits *l)
{
	static const char *const sysctls[] = { "/proc/sys/kernel/pid_max", "/proc/sys/kernel/threads-max" };
	long long *max[] = { &l->pid_max, &l->threads_max };
	struct rlimit rl;

	memset(l, 0, sizeof(*l));
	l->now = tasks_now();
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++)
		if (read_ll(sysctls[i], max[i]))
			*max[i] = LLONG_MAX;
	/* root is not held to RLIMIT_NPROC. */
	l->nproc_limited = geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
	l->nproc = l->nproc_limited ? (unsigned long)rl.rlim_cur : 0;
	l->pids_left = pids_headroom(l->pids_file, sizeof(l->pids_file), &l->pids_max, &l->pids_cur);
}

int task_limits_check(const struct task_limits *l, long need, char *err, size_t errlen)
{
	/* "kernel.pid_max", as sysctl(8) names it. */
	static const char *const names[] = { "kernel.pid_max", "kernel.threads-max" };
	const long long max[] = { l->pid_max, l->threads_max };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (need + l->now > max[i]) {
			snprintf(err, errlen, "%ld tasks needed, over the pid limit: %s is %lld and %ld tasks exist",
				 need, names[i], max[i], l->now);
			return -1;
		}
	if (l->nproc_limited && (unsigned long)(need + l->now) > l->nproc) {
		snprintf(err, errlen, "%ld tasks needed, over RLIMIT_NPROC (%lu)", need, l->nproc);
		return -1;
	}
	if (need > l->pids_left) {
		snprintf(err, errlen, "%ld tasks needed, over the pid limit: %s is %lld and %lld are in use",
			 need, l->pids_file, l->pids_max, l->pids_cur);
		return -1;
	}
	return 0;
}

int tasks_check(long need, char *err, size_t errlen)
{
	struct task_limits l;

	task_limits_read(&l);
	return task_limits_check(&l, need, err, errlen);
}
