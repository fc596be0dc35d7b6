// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v1/v2 helpers for the memory controller (see kernel/cgroup.h).
 *
 * Everything that removes or kills (cg_destroy, cg_killall) may run from a
 * signal handler through the undo registry, so it allocates nothing: paths
 * live in stack buffers, directories are walked with util/rawdir.h, and
 * messages are formatted into a buffer and written with write(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "kernel/cgroup.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owned.h"
#include "util/owner.h"
#include "util/rawdir.h"
#include "util/stale.h"

#define CG_PATH_MAX 1024

/* One line on stderr without malloc (safe in the undo steps). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "%s: ", lab_progname);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- detection ---------------------------------------------------------- */

const char *cg_mode_name(enum cg_mode mode)
{
	switch (mode) {
	case CG_V1: return "v1";
	case CG_V2: return "v2";
	case CG_HYBRID: return "hybrid";
	case CG_NONE: break;
	}
	return "none";
}

/* /proc/self/mounts escapes space, tab, newline and backslash as \ooo. */
static void unescape_mount(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static bool has_token(const char *list, const char *tok, const char *seps)
{
	size_t n = strlen(tok);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, seps);

		if (len == n && !strncmp(p, tok, n))
			return true;
		p += len;
		if (*p)
			p++;
	}
	return false;
}

static void add_evidence(struct cg_env *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_evidence(struct cg_env *env, const char *fmt, ...)
{
	size_t len = strlen(env->evidence);
	va_list ap;

	if (len && len + 2 < sizeof(env->evidence)) {
		strcpy(env->evidence + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(env->evidence + len, sizeof(env->evidence) - len, fmt, ap);
	va_end(ap);
}

int cg_detect_from(struct cg_env *env, const char *mounts_text, const char *v2_controllers)
{
	char *text = NULL, *line, *save = NULL;
	char v1_line[256] = "", v2_line[256] = "", ctl_buf[256];
	bool any_v1 = false, live = !mounts_text;

	memset(env, 0, sizeof(*env));
	if (live) {
		text = read_text("/proc/self/mounts", NULL);
		if (!text) {
			snprintf(env->evidence, sizeof(env->evidence),
				 "cannot read /proc/self/mounts: %s", strerror(errno));
			return -1;
		}
	} else {
		text = xstrdup(mounts_text);
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[256], type[64], opts[512];

		if (sscanf(line, "%255s %255s %63s %511s", dev, mnt, type, opts) != 4)
			continue;
		unescape_mount(mnt);
		if (!strcmp(type, "cgroup2")) {
			if (!env->unified_root[0]) {
				snprintf(env->unified_root, sizeof(env->unified_root), "%s", mnt);
				snprintf(v2_line, sizeof(v2_line), "%s", line);
			}
		} else if (!strcmp(type, "cgroup")) {
			any_v1 = true;
			if (!env->memory_root[0] && has_token(opts, "memory", ",")) {
				snprintf(env->memory_root, sizeof(env->memory_root), "%s", mnt);
				snprintf(v1_line, sizeof(v1_line), "%s", line);
			}
		}
	}
	free(text);

	if (env->memory_root[0]) {
		env->mode = env->unified_root[0] ? CG_HYBRID : CG_V1;
		add_evidence(env, "memory on v1: '%s'", v1_line);
		if (v2_line[0])
			add_evidence(env, "cgroup2: '%s'", v2_line);
		return 0;
	}
	if (!env->unified_root[0]) {
		env->mode = CG_NONE;
		add_evidence(env, "no cgroup hierarchy with the memory controller%s in /proc/self/mounts",
			     any_v1 ? " (v1 hierarchies without memory) and no cgroup2 mount" : "");
		return 0;
	}
	/* The memory controller is not on v1, so it is on v2 if the kernel has it. */
	if (!v2_controllers && live) {
		char path[512];
		ssize_t n;

		path_join(path, sizeof(path), env->unified_root, "cgroup.controllers");
		n = read_buf(path, ctl_buf, sizeof(ctl_buf));
		if (n < 0)
			snprintf(ctl_buf, sizeof(ctl_buf), "(unreadable: %s)", strerror(-n));
		else if (n > 0 && ctl_buf[n - 1] == '\n')
			ctl_buf[n - 1] = '\0';
		v2_controllers = ctl_buf;
	}
	add_evidence(env, "cgroup2: '%s'", v2_line);
	if (v2_controllers && !has_token(v2_controllers, "memory", " \n")) {
		env->mode = CG_NONE;
		add_evidence(env, "no v1 memory hierarchy and %s/cgroup.controllers lists no memory ('%s')",
			     env->unified_root, v2_controllers);
		return 0;
	}
	env->mode = any_v1 ? CG_HYBRID : CG_V2;
	env->memory_v2 = true;
	snprintf(env->memory_root, sizeof(env->memory_root), "%s", env->unified_root);
	if (v2_controllers)
		add_evidence(env, "cgroup.controllers: '%s'", v2_controllers);
	return 0;
}

int cg_detect(struct cg_env *env, const char *mounts_text)
{
	return cg_detect_from(env, mounts_text, NULL);
}

const char *cg_file_usage(const struct cg_env *env)
{
	return env->memory_v2 ? "memory.current" : "memory.usage_in_bytes";
}

const char *cg_file_limit(const struct cg_env *env)
{
	return env->memory_v2 ? "memory.max" : "memory.limit_in_bytes";
}

const char *cg_file_procs(const struct cg_env *env)
{
	(void)env;
	return "cgroup.procs";
}

const char *cg_file_threads(const struct cg_env *env)
{
	return env->memory_v2 ? "cgroup.threads" : "tasks";
}

/* ---- paths -------------------------------------------------------------- */

char *cg_name(const char *parent, const char *name)
{
	return xasprintf("%s/%s", parent, name);
}

char *cg_name_indexed(const char *parent, const char *name, int idx)
{
	return xasprintf("%s/%s_%d", parent, name, idx);
}

int cg_control(char *buf, size_t n, const char *cg, const char *file)
{
	return path_join(buf, n, cg, file);
}

/*
 * Length of the prefix of path that ends with its memcg-lab-<pid>-<start>
 * component (the run's root), or 0 when path is not inside a lab tree.
 * Absolute paths only, and no "." or ".." components anywhere.
 */
static size_t lab_root_len(const char *path)
{
	size_t root_end = 0;
	const char *p = path;

	if (!path || path[0] != '/')
		return 0;
	while (*p) {
		char comp[256];
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (!len)
			break;
		if (len >= sizeof(comp))
			return 0;
		memcpy(comp, p, len);
		comp[len] = '\0';
		if (!strcmp(comp, ".") || !strcmp(comp, ".."))
			return 0;
		if (!root_end) {
			pid_t pid;
			unsigned long long start;

			if (lab_owner_parse(comp, &pid, &start))
				root_end = (size_t)(p - path) + len;
		}
		p += len;
	}
	return root_end;
}

bool cg_path_is_lab(const char *path)
{
	return lab_root_len(path) > 0;
}

static int refuse(const char *what, const char *cg)
{
	say("refusing to %s '%s': not inside a memcg-lab-<pid>-<start> tree the lab created",
	    what, cg ? cg : "(null)");
	return -EPERM;
}

/* ---- reading and writing ------------------------------------------------ */

int cg_write(const char *cg, const char *file, const char *value)
{
	char path[CG_PATH_MAX];

	if (!cg_path_is_lab(cg))
		return refuse("write to", cg);
	if (cg_control(path, sizeof(path), cg, file))
		return -ENAMETOOLONG;
	return write_text(path, value);
}

int cg_write_ll(const char *cg, const char *file, long long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", value);
	return cg_write(cg, file, buf);
}

char *cg_read(const char *cg, const char *file)
{
	char path[CG_PATH_MAX];

	if (cg_control(path, sizeof(path), cg, file)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return read_text(path, NULL);
}

int cg_read_ll(const char *cg, const char *file, long long *out)
{
	char path[CG_PATH_MAX];

	if (cg_control(path, sizeof(path), cg, file))
		return -ENAMETOOLONG;
	return read_ll(path, out);
}

int cg_read_key_ll(const char *cg, const char *file, const char *key, long long *out)
{
	char *text = cg_read(cg, file), *line, *save = NULL;
	size_t klen = strlen(key);
	int ret = -ENOENT;

	if (!text)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end;

		if (strncmp(line, key, klen) || line[klen] != ' ')
			continue;
		errno = 0;
		*out = strtoll(line + klen + 1, &end, 10);
		ret = (end == line + klen + 1 || errno) ? -EINVAL : 0;
		break;
	}
	free(text);
	return ret;
}

int cg_open_file(const char *cg, const char *file)
{
	char path[CG_PATH_MAX];
	int fd;

	if (cg_control(path, sizeof(path), cg, file))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int cg_read_fd_ll(int fd, long long *out)
{
	char buf[64], *end;
	ssize_t n;

	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (!strncmp(buf, "max", 3)) {
		*out = LLONG_MAX;
		return 0;
	}
	errno = 0;
	*out = strtoll(buf, &end, 10);
	return (end == buf || errno) ? -EINVAL : 0;
}

/* Calls fn for every pid listed in a cgroup.procs/tasks file (no malloc). */
static int for_each_pid(const char *cg, const char *file, void (*fn)(pid_t pid, void *arg), void *arg)
{
	char path[CG_PATH_MAX], buf[4096];
	size_t have = 0;
	int fd;

	if (cg_control(path, sizeof(path), cg, file))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *p, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? -errno : 0;

			if (have) {	/* a last line without newline */
				buf[have] = '\0';
				fn((pid_t)strtol(buf, NULL, 10), arg);
			}
			close(fd);
			return e;
		}
		have += r;
		buf[have] = '\0';
		for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
			*nl = '\0';
			if (*p)
				fn((pid_t)strtol(p, NULL, 10), arg);
		}
		have = strlen(p);
		memmove(buf, p, have);
	}
}

static void count_pid(pid_t pid, void *arg)
{
	(void)pid;
	(*(int *)arg)++;
}

int cg_nr_procs(const char *cg)
{
	int n = 0, r = for_each_pid(cg, "cgroup.procs", count_pid, &n);

	return r < 0 ? r : n;
}

int cg_enter_root(const struct cg_env *env, pid_t pid)
{
	char path[sizeof(env->memory_root) + 32];

	if (env->mode == CG_NONE || !env->memory_root[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", env->memory_root, cg_file_procs(env));
	return write_ll(path, pid ? pid : getpid());
}

int cg_enter(const struct cg_env *env, const char *cg, pid_t pid)
{
	return cg_write_ll(cg, cg_file_procs(env), pid ? pid : getpid());
}

int cg_enter_thread(const struct cg_env *env, const char *cg, pid_t tid)
{
	/* A memory cgroup on v2 is a domain: its threads cannot be split. */
	if (env->memory_v2)
		return -EOPNOTSUPP;
	return cg_write_ll(cg, cg_file_threads(env), tid ? tid : gettid());
}

int cg_set_limit(const struct cg_env *env, const char *cg, long long bytes)
{
	if (bytes < 0)
		return cg_write(cg, cg_file_limit(env), env->memory_v2 ? "max" : "-1");
	return cg_write_ll(cg, cg_file_limit(env), bytes);
}

int cg_usage(const struct cg_env *env, const char *cg, long long *bytes)
{
	return cg_read_ll(cg, cg_file_usage(env), bytes);
}

/* "+memory" in a v2 cgroup's subtree_control, unless it is there already. */
static int enable_memory(const char *cg)
{
	char path[CG_PATH_MAX], buf[256];
	ssize_t n;

	if (path_join(path, sizeof(path), cg, "cgroup.subtree_control"))
		return -ENAMETOOLONG;
	n = read_buf(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (has_token(buf, "memory", " \n"))
		return 0;
	return write_text(path, "+memory");
}

int cg_create(const struct cg_env *env, const char *cg)
{
	char parent[CG_PATH_MAX];
	char *slash;
	int r;

	if (!cg_path_is_lab(cg))
		return refuse("create", cg);
	if (env->memory_v2) {
		snprintf(parent, sizeof(parent), "%s", cg);
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			/* The run's root is enabled by cg_tree_create(); deeper
			 * parents are ours and may be enabled here. */
			if (cg_path_is_lab(parent)) {
				r = enable_memory(parent);
				if (r)
					return r;
			}
		}
	}
	if (mkdir(cg, 0755) < 0)
		return -errno;
	return 0;
}

/* ---- killing and removal (no malloc: runs from signal handlers) -------- */

struct kill_ctx {
	pid_t self;
	bool self_inside;
	int killed;
};

static void kill_one(pid_t pid, void *arg)
{
	struct kill_ctx *k = arg;

	if (pid <= 0)
		return;
	if (pid == k->self) {	/* one of our own threads was moved in */
		k->self_inside = true;
		return;
	}
	if (kill(pid, SIGKILL) == 0)
		k->killed++;
}

static int kill_walk(const char *dir, const char *name, bool is_dir, void *arg);

static void kill_subtree(const char *cg, struct kill_ctx *k)
{
	for_each_pid(cg, "cgroup.procs", kill_one, k);
	rawdir_foreach(cg, kill_walk, k);
}

static int kill_walk(const char *dir, const char *name, bool is_dir, void *arg)
{
	char child[CG_PATH_MAX];

	if (is_dir && !path_join(child, sizeof(child), dir, name))
		kill_subtree(child, arg);
	return 0;
}

/* "<hierarchy mount>" for a path inside a lab tree: everything before the
 * memcg-lab-* component. */
static int hierarchy_of(const char *cg, char *buf, size_t n)
{
	size_t root = lab_root_len(cg);
	const char *slash;

	if (!root)
		return -EPERM;
	for (slash = cg + root; slash > cg && *slash != '/'; slash--)
		;
	if ((size_t)(slash - cg) + 1 > n)
		return -ENAMETOOLONG;
	memcpy(buf, cg, slash - cg);
	buf[slash - cg] = '\0';
	if (!buf[0])
		strcpy(buf, "/");
	return 0;
}

/* Where this process was before the run (its cgroup in cg's hierarchy). */
static char home_cg[CG_PATH_MAX];

static void move_self_home(const char *cg)
{
	char hier[CG_PATH_MAX], path[CG_PATH_MAX], buf[32];
	const char *home = home_cg;

	if (!home[0] || cg_path_is_lab(home)) {
		if (hierarchy_of(cg, hier, sizeof(hier)))
			return;
		home = hier;
	}
	/* The whole process: on v1 this also gathers threads moved singly. */
	if (path_join(path, sizeof(path), home, "cgroup.procs"))
		return;
	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	if (write_text(path, buf) < 0)
		say("could not move this process out of '%s' into '%s'", cg, home);
}

int cg_killall(const char *cg)
{
	struct kill_ctx k = { .self = getpid() };
	char path[CG_PATH_MAX];

	if (!cg_path_is_lab(cg))
		return refuse("kill the processes of", cg);
	kill_subtree(cg, &k);
	if (k.self_inside)
		move_self_home(cg);
	/* v2 (5.14+): kills the subtree atomically, even tasks forking now. */
	if (!k.self_inside && !cg_control(path, sizeof(path), cg, "cgroup.kill") && path_exists(path)) {
		int e = write_text(path, "1");

		if (e < 0 && e != -ENOENT) {	/* ENOENT: the cgroup is gone already */
			static bool said;

			/* cg_destroy retries this: say it once. */
			if (!said)
				say("cannot write 1 to %s: %s (a task forking now may escape the kill)", path,
				    strerror(-e));
			said = true;
			return e;
		}
	}
	return k.killed;
}

struct rm_ctx {
	int err;
};

static int rm_tree(const char *cg);

static int rm_walk(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct rm_ctx *r = arg;
	char child[CG_PATH_MAX];
	int e;

	if (!is_dir)
		return 0;
	if (path_join(child, sizeof(child), dir, name)) {
		r->err = -ENAMETOOLONG;
		return 0;
	}
	e = rm_tree(child);
	if (e && !r->err)
		r->err = e;
	return 0;
}

/* Depth-first rmdir; 0, -ENOENT when cg is gone, or the first error. */
static int rm_tree(const char *cg)
{
	struct rm_ctx r = { 0 };
	int e = rawdir_foreach(cg, rm_walk, &r);

	if (e == -ENOENT)
		return -ENOENT;
	if (rmdir(cg) == 0)
		return 0;
	e = -errno;
	if (e == -ENOENT)
		return -ENOENT;
	return r.err ? r.err : e;
}

/* How long cg_destroy waits without any task leaving before it gives up. */
#define CG_DESTROY_STALL_MS 5000

int cg_destroy(const char *cg)
{
	long wait_ms = 1, stalled_ms = 0;
	int e = 0, left = -1;

	if (!cg_path_is_lab(cg))
		return refuse("remove", cg);
	/*
	 * Processes leave a cgroup asynchronously after SIGKILL, so rmdir
	 * answers EBUSY for a while: kill again and retry with a growing
	 * pause (the selftests' cg_destroy does the same).  Thousands of
	 * exiting tasks on a slow machine (a 128-vCPU guest under TCG) take
	 * far longer than a few seconds, so the wait lasts while they keep
	 * leaving, and ends after CG_DESTROY_STALL_MS in which none did.
	 */
	for (;;) {
		int n;

		e = rm_tree(cg);
		if (e == 0 || e == -ENOENT)
			return 0;
		if (e != -EBUSY || stalled_ms >= CG_DESTROY_STALL_MS)
			break;
		n = cg_killall(cg);
		if (n >= 0 && left >= 0 && n < left)
			stalled_ms = 0;
		if (n >= 0)
			left = n;
		sleep_ms(wait_ms);
		stalled_ms += wait_ms;
		if (wait_ms < 200)
			wait_ms *= 2;
	}
	return e;
}

/* ---- the run's tree ----------------------------------------------------- */

/* One tree per process, shared by every cg_tree_create() of the run. */
static struct {
	pid_t pid;
	int refs;
	int handle;
	int err;		/* what the undo step's cg_destroy() returned */
	char root[512];
} run_tree;

static void run_tree_undo(void *arg)
{
	int e = 0;

	(void)arg;
	if (run_tree.pid != getpid() || !run_tree.root[0])
		return;
	if (!path_exists(run_tree.root)) {
		say("cgroup '%s' was already removed (by someone else?)", run_tree.root);
	} else {
		e = cg_destroy(run_tree.root);
		if (e)
			say("could not remove cgroup '%s': %s; `memcg-lab cleanup` removes it later",
			    run_tree.root, strerror(-e));
	}
	run_tree.err = e;
	run_tree.refs = 0;
	run_tree.root[0] = '\0';
}

/* Records the memory cgroup this process started in (for move_self_home). */
static void record_home(const struct cg_env *env)
{
	char buf[4096], *line, *save = NULL;

	home_cg[0] = '\0';
	if (read_buf("/proc/self/cgroup", buf, sizeof(buf)) <= 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		bool match;

		if (!c2)
			continue;
		*c2 = '\0';
		match = env->memory_v2 ? !strcmp(line, "0") : has_token(c1 + 1, "memory", ",");
		if (match) {
			snprintf(home_cg, sizeof(home_cg), "%s%s", env->memory_root,
				 strcmp(c2 + 1, "/") ? c2 + 1 : "");
			return;
		}
	}
}

/* 0, or -errno; a cgroupfs that keeps no attributes (an old kernel's) is
 * not an error: the tree's mode 0700 is then its marker. */
static int mark_tree(const char *root, const char *owner)
{
	int fd = lab_open_dir_at(AT_FDCWD, root), e;

	if (fd < 0)
		return fd;
	e = lab_mark(fd, owner);
	close(fd);
	return e == -EOPNOTSUPP ? 0 : e;
}

int cg_tree_create(struct cg_tree *t, char *err, size_t errlen)
{
	char name[64];
	int e;

	memset(t, 0, sizeof(*t));
	t->cleanup_handle = -1;
	if (cg_detect(&t->env, NULL) < 0) {
		snprintf(err, errlen, "%s", t->env.evidence);
		return -1;
	}
	if (t->env.mode == CG_NONE) {
		snprintf(err, errlen, "no memory controller mounted: %s", t->env.evidence);
		return -1;
	}
	if (run_tree.pid == getpid() && run_tree.refs > 0) {
		run_tree.refs++;
		snprintf(t->root, sizeof(t->root), "%s", run_tree.root);
		t->cleanup_handle = run_tree.handle;
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(err, errlen, "creating a cgroup under %s needs root (running as uid %d)",
			 t->env.memory_root, (int)geteuid());
		return -1;
	}
	lab_owner_name(name, sizeof(name));
	if (path_join(t->root, sizeof(t->root), t->env.memory_root, name)) {
		snprintf(err, errlen, "cgroup path too long under %s", t->env.memory_root);
		return -1;
	}
	if (t->env.memory_v2) {
		/* The hierarchy's root must hand the memory controller down. */
		e = enable_memory(t->env.memory_root);
		if (e) {
			snprintf(err, errlen, "cannot enable the memory controller in %s/cgroup.subtree_control: %s",
				 t->env.memory_root, strerror(-e));
			return -1;
		}
	}
	record_home(&t->env);
	/* A signal between mkdir and the undo step would leave the tree. */
	cleanup_hold();
	if (mkdir(t->root, LAB_DIR_MODE) < 0) {
		snprintf(err, errlen, "cannot create cgroup %s: %s", t->root, strerror(errno));
		cleanup_release();
		return -1;
	}
	run_tree.pid = getpid();
	run_tree.refs = 1;
	snprintf(run_tree.root, sizeof(run_tree.root), "%s", t->root);
	run_tree.handle = cleanup_push(run_tree_undo, NULL, "cgroup tree");
	cleanup_name(run_tree.handle, run_tree.root);
	t->cleanup_handle = run_tree.handle;
	/* The lab's marker (util/owned.h), before any task or child goes in:
	 * what cleanup takes for a tree of a run that is gone. */
	e = mark_tree(t->root, name);
	cleanup_release();
	if (e) {
		snprintf(err, errlen, "cannot mark cgroup %s as the lab's (xattr %s): %s", t->root, lab_mark_name(),
			 strerror(-e));
		cg_tree_destroy(t);
		return -1;
	}
	if (t->env.memory_v2) {
		e = enable_memory(t->root);
		if (e) {
			snprintf(err, errlen, "cannot enable the memory controller in %s/cgroup.subtree_control: %s",
				 t->root, strerror(-e));
			cg_tree_destroy(t);
			return -1;
		}
	}
	return 0;
}

int cg_tree_destroy(struct cg_tree *t)
{
	int e = 0;

	if (!t->root[0])
		return 0;
	if (run_tree.pid == getpid() && !strcmp(run_tree.root, t->root)) {
		if (--run_tree.refs > 0) {
			t->root[0] = '\0';
			return 0;
		}
		/* Through the undo step: a signal meanwhile waits for the
		 * removal to finish instead of cutting it short. */
		run_tree.err = 0;
		cleanup_pop(run_tree.handle, true);
		t->root[0] = '\0';
		return run_tree.err;
	}
	if (!path_exists(t->root)) {
		say("cgroup '%s' was already removed (by someone else?)", t->root);
	} else {
		e = cg_destroy(t->root);
		if (e)
			say("could not remove cgroup '%s': %s", t->root, strerror(-e));
	}
	t->root[0] = '\0';
	return e;
}

/* ---- workers ------------------------------------------------------------ */

pid_t cg_spawn(const struct cg_env *env, const char *cg, int cpu, int (*fn)(void *), void *arg)
{
	pid_t parent = getpid(), pid;
	int e;

	fflush(NULL);	/* the child must not write the parent's buffered output again */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0)
		return pid;
	if (worker_detach_from_parent(parent) < 0)
		_exit(EXIT_LAB_ERR);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			say("worker %d cannot pin itself to CPU %d: %s", (int)getpid(), cpu, strerror(errno));
			_exit(EXIT_LAB_ERR);
		}
	}
	if (cg) {
		e = cg_enter(env, cg, 0);
		if (e) {
			say("worker %d cannot enter cgroup '%s': %s", (int)getpid(), cg, strerror(-e));
			_exit(EXIT_LAB_ERR);
		}
	}
	_exit(fn(arg));
}

/* ---- stale trees -------------------------------------------------------- */

int cg_cleanup_stale_to(FILE *out, bool force, bool dry_run, int *kept)
{
	/* Only root may make or rename anything at the top of a cgroup
	 * hierarchy, and cgroupfs has no links of a user's: the tree is
	 * checked by fd, then removed by path (cg_destroy, signal-safe). */
	struct stale_pass p = { .noun = "cgroup", .remove = cg_destroy, .marker = true, .force = force,
				.dry_run = dry_run, .out = out };
	const char *roots[2];
	struct cg_env env;
	int scan_err = 0;

	if (cg_detect(&env, NULL) < 0) {
		fprintf(out, "could not look for lab cgroups: %s\n", env.evidence);
		return -EIO;
	}
	/* Trees live at the top of the memory hierarchy; look in the cgroup2
	 * root too, where a hybrid host may have had memory on v2 once. */
	roots[0] = env.memory_root;
	roots[1] = strcmp(env.unified_root, env.memory_root) ? env.unified_root : "";
	for (int i = 0; i < 2; i++) {
		int r;

		if (!roots[i][0])
			continue;
		r = stale_pass_run(&p, roots[i]);
		if (r < 0) {
			fprintf(out, "could not look for lab cgroups in %s: %s\n", roots[i], strerror(-r));
			scan_err = r;
		}
	}
	fflush(out);
	if (kept)
		*kept += p.kept;
	if (scan_err)
		return scan_err;
	return p.failed ? -EBUSY : p.removed;
}

int cg_cleanup_stale(bool force, bool dry_run)
{
	return cg_cleanup_stale_to(stdout, force, dry_run, NULL);
}
