/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lab's cgroup helpers, in the style of the kernel selftests'
 * cgroup_util (cg_create, cg_write, cg_read_long, cg_destroy, ...), for the
 * memory controller on cgroup v1 and v2.
 *
 * The lab only ever touches cgroups it created: every run owns one tree per
 * run, rooted at "<memory mount>/memcg-lab-<pid>-<starttime>" (see
 * util/owner.h), registered for removal on exit and signals, and found by
 * name by `memcg-lab cleanup` after a SIGKILL.  Paths passed to these helpers
 * are absolute cgroupfs paths.
 */
#ifndef LAB_KERNEL_CGROUP_H
#define LAB_KERNEL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum cg_mode {
	CG_NONE,	/* no memory controller mounted */
	CG_V1,		/* memory controller on a v1 hierarchy (no cgroup2 mount) */
	CG_V2,		/* unified hierarchy only, memory controller on it */
	CG_HYBRID,	/* v1 controllers plus a cgroup2 mount */
};

struct cg_env {
	enum cg_mode mode;
	bool memory_v2;		/* the memory controller is on the v2 hierarchy */
	char memory_root[256];	/* mount point of the hierarchy with memory */
	char unified_root[256];	/* cgroup2 mount point, "" if none */
	char evidence[512];	/* the /proc/self/mounts lines that decided it */
};

/*
 * Reads /proc/self/mounts (or the given mounts text, for tests). 0, or -1
 * when the mounts cannot be read (reason in env->evidence); no memory
 * controller is not an error but mode CG_NONE.
 */
int cg_detect(struct cg_env *env, const char *mounts_text);
/*
 * The same with the cgroup2 root's cgroup.controllers given as text: the
 * memory controller is on v2 only when no v1 hierarchy has it and that file
 * lists it.  NULL reads the file when mounts_text is NULL too (the live
 * system), and trusts the mounts otherwise.
 */
int cg_detect_from(struct cg_env *env, const char *mounts_text, const char *v2_controllers);
const char *cg_mode_name(enum cg_mode mode);

/* File names of the memory controller on this hierarchy version. */
const char *cg_file_usage(const struct cg_env *env);	/* memory.usage_in_bytes | memory.current */
const char *cg_file_limit(const struct cg_env *env);	/* memory.limit_in_bytes | memory.max */
const char *cg_file_procs(const struct cg_env *env);	/* cgroup.procs on both */
const char *cg_file_threads(const struct cg_env *env);	/* tasks | cgroup.threads */

/*
 * A tree owned by this run.  cg_tree_create() makes the root under the
 * memory hierarchy (enabling +memory in subtree_control on v2, on the parent
 * when needed and on the root itself) and registers its removal with the
 * undo registry (util/cleanup.h).  Fails with a one-line reason in err when
 * no memory controller is mounted or we are not root.
 *
 * A process has one tree: a second cg_tree_create() shares it (runtime
 * probes and drivers of one run each "create" and "destroy" it), and only
 * the last cg_tree_destroy() removes it.
 */
struct cg_tree {
	struct cg_env env;
	char root[512];		/* absolute path of the run's root cgroup */
	int cleanup_handle;
};

int cg_tree_create(struct cg_tree *t, char *err, size_t errlen);
/* Kills everything inside and removes the whole tree (depth-first). */
int cg_tree_destroy(struct cg_tree *t);

/* Path helpers: "<parent>/<name>" (malloc'd). */
char *cg_name(const char *parent, const char *name);
char *cg_name_indexed(const char *parent, const char *name, int idx);
/* "<cg>/<file>" into a caller buffer. */
int cg_control(char *buf, size_t n, const char *cg, const char *file);

/* mkdir; on v2 also enables +memory in the parent's subtree_control, which
 * makes the parent an inner node: from then on only leaves take processes
 * (cg_enter into the parent answers -EBUSY). */
int cg_create(const struct cg_env *env, const char *cg);
/* Kill-and-retry removal of one cgroup and everything under it; 0 or -errno.
 * ENOENT (someone removed it) counts as success.  Waits while tasks keep
 * leaving, up to 5 s after the last one left.  Safe in undo steps. */
int cg_destroy(const char *cg);
/* Sends SIGKILL to every process in cg and below (also cgroup.kill on v2);
 * never to this process, which is moved back out instead.  Returns the
 * number of processes signalled, or -errno. */
int cg_killall(const char *cg);
/*
 * True when path lies inside a tree root named memcg-lab-<pid>-<start>
 * (absolute, no "." or ".." components).  Every helper that writes, kills
 * or removes refuses other paths with -EPERM and one line on stderr.
 */
bool cg_path_is_lab(const char *path);

int cg_write(const char *cg, const char *file, const char *value);
int cg_write_ll(const char *cg, const char *file, long long value);
/* Whole control file (malloc'd) or NULL with errno. */
char *cg_read(const char *cg, const char *file);
/* First integer of the file ("max" -> LLONG_MAX); 0 or -errno. */
int cg_read_ll(const char *cg, const char *file, long long *out);
/* Value of "key value" line in a flat-keyed file such as memory.stat. */
int cg_read_key_ll(const char *cg, const char *file, const char *key, long long *out);
/*
 * A control file kept open for repeated reads (pread at 0): the kernel keeps
 * the file's seq_file buffer, so a re-read allocates nothing, and so charges
 * nothing to the reader's memcg (the stock probes rely on it).  fd or -errno.
 */
int cg_open_file(const char *cg, const char *file);
int cg_read_fd_ll(int fd, long long *out);
/* Number of processes in cgroup.procs. */
int cg_nr_procs(const char *cg);

/* Moves a process (pid 0: the caller) or a thread into cg.  Threads only on
 * v1: a v2 memory cgroup is a domain, so cg_enter_thread() answers
 * -EOPNOTSUPP there (drivers use processes instead). */
int cg_enter(const struct cg_env *env, const char *cg, pid_t pid);
int cg_enter_thread(const struct cg_env *env, const char *cg, pid_t tid);
/*
 * Moves a process the lab forked (pid 0: the caller) into the root of the
 * memory hierarchy, where nothing is charged: the seeds' "root memcg"
 * baseline.  The one write the lab makes to a cgroup it did not create,
 * and only of its own workers' pids.
 */
int cg_enter_root(const struct cg_env *env, pid_t pid);

/* Memory limit in bytes (-1: unlimited), and current usage in bytes. */
int cg_set_limit(const struct cg_env *env, const char *cg, long long bytes);
int cg_usage(const struct cg_env *env, const char *cg, long long *bytes);

/*
 * Forks a worker that dies with its parent (PR_SET_PDEATHSIG), moves itself
 * into cg (when cg is not NULL), optionally pins itself to cpu (>= 0), then
 * runs fn(arg) and exits with its return value.  Returns the pid or -errno.
 */
pid_t cg_spawn(const struct cg_env *env, const char *cg, int cpu, int (*fn)(void *), void *arg);

/* Removes lab trees whose owner is gone (all of them when force is set)
 * and that the lab made: owned by its euid, mode 0700, marked with the
 * owner's name in the xattr trusted.memcg-lab (util/owned.h).  Reports
 * each removal, and each tree named like the lab's but left, on stdout;
 * returns the number removed or -errno. */
int cg_cleanup_stale(bool force, bool dry_run);
/* The same, reporting on out (stderr at the start of a run); the trees
 * left are added to *kept (when not NULL). */
int cg_cleanup_stale_to(FILE *out, bool force, bool dry_run, int *kept);

#endif
