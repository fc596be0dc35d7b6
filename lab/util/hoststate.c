// SPDX-License-Identifier: GPL-2.0
/*
 * The host-state journal (see util/hoststate.h).  Restoring may run from a
 * signal handler, so the entries live in a static table and the restore
 * path uses only open/read/write/unlink/rmdir and util/rawdir.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/owned.h"
#include "util/owner.h"
#include "util/rawdir.h"

#define HS_MAX 32
#define HS_VALUE 256
#define HS_PATH 512

struct hs_entry {
	char path[HS_PATH];	/* the setting */
	char orig[HS_VALUE];	/* the host's value before any lab run */
	char journal[HS_PATH];	/* our journal file for it */
	int handle;
	bool active;
	bool mount;		/* a mount the lab made (see "mounts" below) */
};

static struct hs_entry entries[HS_MAX];
static char state_dir[256];
static char owner_dir[HS_PATH];
static pid_t owner_pid;

const char *hoststate_dir(void)
{
	if (!state_dir[0]) {
		const char *e = getenv("MEMCG_LAB_STATE_DIR");

		snprintf(state_dir, sizeof(state_dir), "%s", e && *e ? e : "/run/memcg-lab");
	}
	return state_dir;
}

/* "/proc/sys/kernel/x" -> "%proc%sys%kernel%x" */
static void path_key(const char *path, char *key, size_t n)
{
	size_t i;

	for (i = 0; path[i] && i + 1 < n; i++)
		key[i] = path[i] == '/' ? '%' : path[i];
	key[i] = '\0';
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Parses the journal file name in the owner directory dirfd, "<path>\n<original>\n":
 * a regular file of the lab's euid, never through a link (no malloc). */
static int read_journal(int dirfd, const char *name, char *path, size_t pn, char *orig, size_t on)
{
	char buf[HS_PATH + HS_VALUE + 4], *nl;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (!nl || (size_t)(nl - buf) >= pn)
		return -EINVAL;
	memcpy(path, buf, nl - buf);
	path[nl - buf] = '\0';
	snprintf(orig, on, "%s", nl + 1);
	chomp(orig);
	return 0;
}

/* ---- the journal's directories -------------------------------------------
 *
 * The journal says what root writes back, so only what the lab made counts
 * (util/owned.h): the state directory owned by the lab's euid, mode 0700;
 * each owner's directory the same, and marked with its owner's name; each
 * entry a regular file of the lab's euid, read without following a link.
 */

/* The state directory, open: an fd, -1 with why when it is not the lab's,
 * or -errno (-ENOENT: no run ever journaled anything here). */
static int state_dir_open(char *why, size_t n)
{
	int fd = open(hoststate_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;

	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR) {
			snprintf(why, n, "%s", lab_open_dir_why(-errno));
			return -1;
		}
		return -errno;
	}
	r = lab_owned(fd, NULL, false, why, n);
	if (r == 0)
		return fd;
	close(fd);
	if (r < 0)
		snprintf(why, n, "%s", strerror(-r));
	return -1;
}

/* An owner's journal directory in the state directory, open and checked:
 * an fd, or -1 with why (not the lab's, or not there). */
static int owner_dir_open(int statefd, const char *owner, char *why, size_t n)
{
	int fd = lab_open_dir_at(statefd, owner), r;

	if (fd < 0) {
		snprintf(why, n, "%s", lab_open_dir_why(fd));
		return -1;
	}
	r = lab_owned(fd, owner, true, why, n);
	if (r == 0)
		return fd;
	close(fd);
	if (r < 0)
		snprintf(why, n, "%s", strerror(-r));
	return -1;
}

/* rawdir_foreach_fd over the state directory, when it is the lab's. */
static int state_dir_foreach(rawdir_fd_fn fn, void *arg)
{
	char why[160];
	int fd = state_dir_open(why, sizeof(why)), r;

	if (fd < 0)
		return fd == -1 ? -EPERM : fd;
	r = rawdir_foreach_fd(fd, fn, arg);
	close(fd);
	return r;
}

/* ---- mounts -------------------------------------------------------------
 *
 * A mount the lab made is journaled like a setting, under the pseudo path
 * "mount:<mount namespace inode>:<mount point>" with the original
 * "<fstype> <mount id>": the namespace makes runs in different mount
 * namespaces different settings (a private namespace's mount is not the
 * host's), the mount id (statx, see mount_id_of()) makes sure that only the
 * very mount a lab run made is ever unmounted, never one someone made later.
 * Everything here may run from a signal handler: syscalls and no malloc.
 */
#define MOUNT_PREFIX "mount:"

struct mount_key {
	unsigned long long ns;		/* inode of the mount namespace */
	const char *target;		/* points into the pseudo path */
	char fstype[16];
	unsigned long long mnt_id;
};

static unsigned long long parse_ull(const char *s, const char **end)
{
	unsigned long long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned long long)(*s++ - '0');
	*end = s;
	return v;
}

/* True for a mount entry: "mount:<ns>:<target>" with "<fstype> <mnt_id>". */
static bool parse_mount(const char *path, const char *orig, struct mount_key *m)
{
	const char *p, *sp;
	size_t n;

	if (strncmp(path, MOUNT_PREFIX, strlen(MOUNT_PREFIX)))
		return false;
	m->ns = parse_ull(path + strlen(MOUNT_PREFIX), &p);
	if (*p != ':' || p[1] != '/')
		return false;
	m->target = p + 1;
	sp = strchr(orig, ' ');
	n = sp ? (size_t)(sp - orig) : 0;
	if (!n || n >= sizeof(m->fstype))
		return false;
	memcpy(m->fstype, orig, n);
	m->fstype[n] = '\0';
	m->mnt_id = parse_ull(sp + 1, &p);
	return m->mnt_id && !*p;
}

static unsigned long long mount_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/mnt", &st) ? 0 : (unsigned long long)st.st_ino;
}

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U	/* Linux 6.8 */
#endif

/*
 * The id of the mount path is on (0 if path does not exist): the unique
 * one where the kernel has it (6.8+), else the old one, which the kernel
 * hands out again once a mount is gone (so before 6.8 a tracefs mounted
 * anew in the same place can pass for the lab's).
 */
static unsigned long long mount_id_of(const char *path)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW,
		  STATX_MNT_ID | STATX_MNT_ID_UNIQUE, &stx) ||
	    !(stx.stx_mask & (STATX_MNT_ID | STATX_MNT_ID_UNIQUE)))
		return 0;
	return stx.stx_mnt_id;
}

static long fs_magic(const char *fstype)
{
	if (!strcmp(fstype, "tracefs"))
		return TRACEFS_MAGIC;
	if (!strcmp(fstype, "debugfs"))
		return DEBUGFS_MAGIC;
	return 0;
}

/* The mount id when target is the root of a mount of fstype, else 0. */
static unsigned long long mounted_at(const char *target, const char *fstype)
{
	char parent[HS_PATH];
	unsigned long long id = mount_id_of(target);
	struct statfs sfs;

	if (!id || statfs(target, &sfs) || sfs.f_type != fs_magic(fstype))
		return 0;
	/* debugfs's tracing/ automount is tracefs inside debugfs: still a
	 * mount of its own; a plain directory shares its parent's id. */
	if (path_join(parent, sizeof(parent), target, ".."))
		return 0;
	return mount_id_of(parent) == id ? 0 : id;
}

/* Undoes a mount entry in this mount namespace: 0 unmounted, 1 it was not
 * mounted any more (or is not the lab's mount now), -errno. */
static int undo_mount(const struct mount_key *m)
{
	if (mounted_at(m->target, m->fstype) != m->mnt_id)
		return 1;
	if (umount2(m->target, UMOUNT_NOFOLLOW) == 0)
		return 0;
	/* A child (perf) may still hold a file open: detach it now, the
	 * kernel drops it when the last user goes. */
	if (errno == EBUSY && umount2(m->target, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		return 0;
	return -errno;
}

/* Puts a setting back: writes the value, or unmounts. 0, 1 (a mount that
 * was gone already), -errno; -EXDEV for a mount in another namespace. */
static int restore_value(const char *path, const char *orig)
{
	struct mount_key m;

	if (!parse_mount(path, orig, &m))
		return write_text(path, orig);
	if (m.ns != mount_ns())
		return -EXDEV;
	return undo_mount(&m);
}

/* "/proc/sys/x" or "the tracefs mount at /sys/kernel/tracing" (no malloc). */
static const char *describe(const char *path, const char *orig, char *buf, size_t n)
{
	struct mount_key m;

	if (!parse_mount(path, orig, &m))
		return path;
	snprintf(buf, n, "the %s mount at %s", m.fstype, m.target);
	return buf;
}

/*
 * Runs that start or end at the same time must not both mount (two
 * stacked tracefs: the lower one would be left) nor unmount under one that
 * is joining: deciding and mounting, deciding and unmounting, happen under
 * one lock on <state dir>/.mounts.lock (flock: a syscall, fine in a
 * signal handler; held for a few syscalls only).  -1 when it cannot be
 * had within 3 s: then it goes on without.
 */
static int mounts_lock(void)
{
	char file[HS_PATH];
	int fd;

	if (path_join(file, sizeof(file), hoststate_dir(), ".mounts.lock"))
		return -1;
	fd = open(file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* Bounded: a signal's undo step must not wait forever for a lock
	 * this very process holds (a signal in the middle of a mount). */
	for (int i = 0; fd >= 0 && i < 300; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		nanosleep(&ts, NULL);
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static void mounts_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/*
 * Looks for another owner's journal entry for the same setting.  Sets
 * *live when one of them still runs, and copies an original value found
 * into orig (when not NULL).
 */
struct others_ctx {
	const char *key;
	const char *skip;	/* an owner name to ignore */
	const char *want_orig;	/* only entries with this original, or NULL */
	bool live;
	bool found;
	char *orig;
	size_t orig_len;
};

static int others_walk(int statefd, const char *name, bool is_dir, void *arg)
{
	struct others_ctx *o = arg;
	char path[HS_PATH], orig[HS_VALUE], why[160];
	unsigned long long start;
	pid_t pid;
	int fd, r;

	if (!is_dir || !lab_owner_parse(name, &pid, &start) || (o->skip && !strcmp(name, o->skip)))
		return 0;
	/* Not the lab's: its "original" is nothing to restore. */
	fd = owner_dir_open(statefd, name, why, sizeof(why));
	if (fd < 0)
		return 0;
	r = read_journal(fd, o->key, path, sizeof(path), orig, sizeof(orig));
	close(fd);
	if (r)
		return 0;
	if (o->want_orig && strcmp(orig, o->want_orig))
		return 0;
	if (o->orig && !o->found)
		snprintf(o->orig, o->orig_len, "%s", orig);
	o->found = true;
	if (lab_owner_alive(name))
		o->live = true;
	return 0;
}

static void restore_entry(void *arg)
{
	struct hs_entry *e = arg;
	struct others_ctx o = { 0 };
	char key[HS_PATH], me[64];
	int r, lock;

	if (!e->active || owner_pid != getpid())
		return;
	e->active = false;
	lock = e->mount ? mounts_lock() : -1;
	path_key(e->path, key, sizeof(key));
	lab_owner_name(me, sizeof(me));
	o.key = key;
	o.skip = me;
	state_dir_foreach(others_walk, &o);
	/* Another live run still wants its value; it restores the original. */
	if (!o.live) {
		r = restore_value(e->path, e->orig);
		if (r < 0) {
			char msg[HS_PATH + HS_VALUE + 96], what[HS_PATH + 32];
			int n = snprintf(msg, sizeof(msg), "%s: could not restore %s%s%s%s: %s\n",
					 lab_progname, describe(e->path, e->orig, what, sizeof(what)),
					 e->mount ? "" : " to '", e->mount ? "" : e->orig, e->mount ? "" : "'",
					 strerror(-r));

			if (write(STDERR_FILENO, msg, n > 0 && n < (int)sizeof(msg) ? n : 0) < 0)
				n = 0;
			mounts_unlock(lock);
			return;	/* keep the journal: cleanup retries */
		}
	}
	unlink(e->journal);
	mounts_unlock(lock);
	rmdir(owner_dir);	/* fails while other entries remain: fine */
}

static struct hs_entry *find_entry(const char *path)
{
	for (int i = 0; i < HS_MAX; i++)
		if (entries[i].active && owner_pid == getpid() && !strcmp(entries[i].path, path))
			return &entries[i];
	return NULL;
}

void hoststate_restore_all(void)
{
	for (int i = HS_MAX - 1; i >= 0; i--)
		if (entries[i].active)
			cleanup_pop(entries[i].handle, true);
}

void hoststate_restore(const char *path)
{
	struct hs_entry *e = find_entry(path);

	if (e)
		cleanup_pop(e->handle, true);
}

/* The state directory (the lab's, or made now, 0700) and this process's
 * journal directory in it, marked with its owner's name before any entry
 * goes in.  0, or -1 with a one-line reason in err. */
static int journal_dir_make(char *err, size_t errlen)
{
	char why[160], me[64];
	int statefd, fd, r;

	r = mkdir_p(owner_dir, LAB_DIR_MODE);
	if (r) {
		snprintf(err, errlen, "cannot create the host-state journal %s: %s", owner_dir, strerror(-r));
		return -1;
	}
	statefd = state_dir_open(why, sizeof(why));
	if (statefd < 0) {
		snprintf(err, errlen, "the host-state journal %s is not the lab's: %s", hoststate_dir(),
			 statefd == -1 ? why : strerror(-statefd));
		return -1;
	}
	lab_owner_name(me, sizeof(me));
	fd = lab_open_dir_at(statefd, me);
	r = fd < 0 ? fd : lab_mark(fd, me);
	if (r == 0 || r == -EOPNOTSUPP)
		r = lab_owned(fd, me, true, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "cannot mark it (xattr %s): %s", lab_mark_name(), strerror(-r));
	if (fd >= 0)
		close(fd);
	close(statefd);
	if (r) {
		snprintf(err, errlen, "the host-state journal %s is not the lab's: %s", owner_dir,
			 r > 0 ? why : strerror(-r));
		return -1;
	}
	return 0;
}

/*
 * Journals path with the host's original (for a setting, another run's
 * journal of it wins over cur: an overlapping run holds the true original;
 * a mount's cur is always right) and registers the restore.
 */
static struct hs_entry *journal_entry(const char *path, const char *cur, bool mount, char *err,
				      size_t errlen)
{
	struct others_ctx o = { 0 };
	struct hs_entry *e = NULL;
	char key[HS_PATH], me[64], orig[HS_VALUE], *journal_text;
	int r;

	for (int i = 0; i < HS_MAX && !e; i++)
		if (!entries[i].active)
			e = &entries[i];
	if (!e) {
		snprintf(err, errlen, "too many host settings changed (at most %d)", HS_MAX);
		return NULL;
	}
	if (strlen(path) >= sizeof(e->path)) {
		snprintf(err, errlen, "path too long: %s", path);
		return NULL;
	}
	snprintf(orig, sizeof(orig), "%s", cur);
	lab_owner_name(me, sizeof(me));
	path_key(path, key, sizeof(key));
	o.key = key;
	o.skip = me;
	o.orig = orig;
	o.orig_len = sizeof(orig);
	if (!mount)
		state_dir_foreach(others_walk, &o);

	if (owner_pid != getpid()) {
		owner_pid = getpid();
		if (path_join(owner_dir, sizeof(owner_dir), hoststate_dir(), me)) {
			snprintf(err, errlen, "state directory path too long: %s", hoststate_dir());
			return NULL;
		}
	}
	r = journal_dir_make(err, errlen);
	if (r)
		return NULL;
	memset(e, 0, sizeof(*e));
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->orig, sizeof(e->orig), "%s", orig);
	e->mount = mount;
	if (path_join(e->journal, sizeof(e->journal), owner_dir, key)) {
		snprintf(err, errlen, "journal path too long for %s", path);
		return NULL;
	}
	journal_text = xasprintf("%s\n%s\n", e->path, e->orig);
	/* A signal between the journal and its undo step would leave both. */
	cleanup_hold();
	r = write_file_atomic(e->journal, journal_text, strlen(journal_text));
	free(journal_text);
	if (r) {
		cleanup_release();
		snprintf(err, errlen, "cannot write the host-state journal %s: %s", e->journal, strerror(-r));
		return NULL;
	}
	e->active = true;
	e->handle = cleanup_push(restore_entry, e, mount ? "mount" : "host setting");
	{
		struct mount_key m;

		/* "mount:<ns>:<target>" is named by its target. */
		cleanup_name(e->handle, mount && parse_mount(e->path, e->orig, &m) ? m.target : e->path);
	}
	cleanup_release();
	return e;
}

int hoststate_set(const char *path, const char *value, char *err, size_t errlen)
{
	struct hs_entry *e = find_entry(path);
	char cur[HS_VALUE];
	ssize_t n;
	int r;

	if (!e) {
		n = read_buf(path, cur, sizeof(cur));
		if (n < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(-n));
			return -1;
		}
		chomp(cur);
		e = journal_entry(path, cur, false, err, errlen);
		if (!e)
			return -1;
	}
	r = write_text(path, value);
	if (r) {
		snprintf(err, errlen, "cannot set %s to '%s': %s", path, value, strerror(-r));
		cleanup_pop(e->handle, true);
		return -1;
	}
	return 0;
}

static int mount_locked(const char *fstype, const char *target, const char *path, char *err,
			size_t errlen);

int hoststate_mount(const char *fstype, const char *target, char *err, size_t errlen)
{
	char path[HS_PATH];
	int lock = -1, r;

	if (!fs_magic(fstype)) {
		snprintf(err, errlen, "cannot mount %s: not a file system the lab mounts", fstype);
		return -1;
	}
	snprintf(path, sizeof(path), MOUNT_PREFIX "%llu:%s", mount_ns(), target);
	if (find_entry(path))
		return 1;
	if (mkdir_p(hoststate_dir(), 0700) == 0)
		lock = mounts_lock();
	r = mount_locked(fstype, target, path, err, errlen);
	mounts_unlock(lock);
	return r;
}

static int mount_locked(const char *fstype, const char *target, const char *path, char *err,
			size_t errlen)
{
	char orig[64];
	unsigned long long id;

	id = mounted_at(target, fstype);
	if (id) {
		/* Mounted: by an overlapping lab run (share its journal, so
		 * that it stays mounted until the last of us ends), or by
		 * someone else (theirs: never touched). */
		struct others_ctx o = { 0 };
		char key[HS_PATH];

		snprintf(orig, sizeof(orig), "%s %llu", fstype, id);
		path_key(path, key, sizeof(key));
		o.key = key;
		o.want_orig = orig;
		state_dir_foreach(others_walk, &o);
		if (!o.found)
			return 0;
		return journal_entry(path, orig, true, err, errlen) ? 1 : -1;
	}
	/* Other signals wait until the mount has its undo step. */
	cleanup_hold();
	if (mount(fstype, target, fstype, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		snprintf(err, errlen, "cannot mount %s at %s: %s", fstype, target, strerror(errno));
		cleanup_release();
		return -1;
	}
	/* Between the mount and the journal a SIGKILL would leave the mount
	 * unjournaled: a window of two syscalls, no better order exists (the
	 * mount id is known only once mounted). */
	snprintf(orig, sizeof(orig), "%s %llu", fstype, mounted_at(target, fstype));
	if (!journal_entry(path, orig, true, err, errlen)) {
		umount2(target, UMOUNT_NOFOLLOW);
		cleanup_release();
		return -1;
	}
	cleanup_release();
	return 1;
}

/* ---- stale journals ----------------------------------------------------- */

struct stale_ctx {
	FILE *out;
	bool force, dry_run;
	const char *owner;	/* the owner directory being walked */
	const char *owner_dir;	/* its path, for messages */
	int owner_fd;		/* ... open and checked */
	bool owner_alive;
	pid_t pid;
	int restored, failed, kept;
};

static int find_holder(const char *dir, const char *name, bool is_dir, void *arg)
{
	unsigned long long *ns = arg;
	char p[HS_PATH];
	struct stat st;

	(void)dir;
	if (!is_dir || name[0] < '0' || name[0] > '9')
		return 0;
	snprintf(p, sizeof(p), "/proc/%s/ns/mnt", name);
	if (stat(p, &st) || (unsigned long long)st.st_ino != *ns)
		return 0;
	return atoi(name);
}

/* Undoes a mount of another mount namespace from a child that joins it
 * through a process still in it; as undo_mount().  The mount's path is
 * taken from that process's root: setns() makes ours the namespace's root,
 * which in a chroot is not where the path starts. */
static int undo_mount_in(pid_t holder, const struct mount_key *m)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char p[64];
		int fd, root, r;

		snprintf(p, sizeof(p), "/proc/%d/root", (int)holder);
		root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)holder);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || root < 0 || setns(fd, CLONE_NEWNS) || fchdir(root) || chroot("."))
			_exit(2 + errno);
		r = undo_mount(m);
		_exit(r >= 0 ? r : 2 - r);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -ECHILD;
	return WEXITSTATUS(st) < 2 ? WEXITSTATUS(st) : -(WEXITSTATUS(st) - 2);
}

/* A journaled mount whose owner is gone; file is its entry's name. */
static void stale_mount(struct stale_ctx *s, const char *file, const struct mount_key *m, const char *why)
{
	char where[96] = "";
	int r = 0;

	if (m->ns != mount_ns()) {
		unsigned long long ns = m->ns;
		int holder = rawdir_foreach("/proc", find_holder, &ns);

		if (holder <= 0) {
			if (!s->dry_run)
				unlinkat(s->owner_fd, file, 0);
			fprintf(s->out, "%s journal of the %s mount at %s (owner pid %d %s): its mount "
				"namespace mnt:[%llu] is gone, and the mount with it\n",
				s->dry_run ? "would drop" : "dropped", m->fstype, m->target, (int)s->pid, why, m->ns);
			return;
		}
		snprintf(where, sizeof(where), " in mount namespace mnt:[%llu] (of pid %d)", m->ns, holder);
		if (!s->dry_run)
			r = undo_mount_in(holder, m);
	} else if (!s->dry_run) {
		r = undo_mount(m);
	}
	if (s->dry_run) {
		fprintf(s->out, "would unmount %s at %s%s (owner pid %d %s)\n", m->fstype, m->target, where,
			(int)s->pid, why);
		s->restored++;
		return;
	}
	if (r < 0) {
		fprintf(s->out, "could not unmount %s at %s%s: %s\n", m->fstype, m->target, where, strerror(-r));
		s->failed++;
		return;
	}
	unlinkat(s->owner_fd, file, 0);
	if (r == 1) {
		fprintf(s->out, "dropped journal of the %s mount at %s%s (owner pid %d %s): "
			"it is not mounted any more\n", m->fstype, m->target, where, (int)s->pid, why);
		return;
	}
	fprintf(s->out, "unmounted %s at %s%s (owner pid %d %s)\n", m->fstype, m->target, where, (int)s->pid, why);
	s->restored++;
}

static int stale_entry(int dirfd, const char *name, bool is_dir, void *arg)
{
	struct stale_ctx *s = arg;
	char file[HS_PATH], path[HS_PATH], orig[HS_VALUE], key[HS_PATH];
	struct others_ctx o = { 0 };
	const char *why = s->owner_alive ? "still running, --force" : "gone";
	char what[HS_PATH + 32];
	struct mount_key m;
	bool is_mount;
	int r, lock;

	if (is_dir || strstr(name, ".tmp."))	/* write_file_atomic()'s temp files */
		return 0;
	if (path_join(file, sizeof(file), s->owner_dir, name))
		return 0;
	r = read_journal(dirfd, name, path, sizeof(path), orig, sizeof(orig));
	if (r) {
		fprintf(s->out, "skipped %s host-state journal %s\n",
			r == -EPERM ? "a link, or another user's file, for a" : "unreadable", file);
		return 0;
	}
	is_mount = parse_mount(path, orig, &m);
	lock = is_mount ? mounts_lock() : -1;
	path_key(path, key, sizeof(key));
	o.key = key;
	o.skip = s->owner;
	state_dir_foreach(others_walk, &o);
	if (o.live && !s->force) {
		/* A live run still changes it and restores it itself. */
		if (!s->dry_run)
			unlinkat(dirfd, name, 0);
		fprintf(s->out, "%s journal of %s (owner pid %d gone): a running lab run restores it\n",
			s->dry_run ? "would drop" : "dropped", describe(path, orig, what, sizeof(what)),
			(int)s->pid);
		mounts_unlock(lock);
		return 0;
	}
	if (is_mount) {
		stale_mount(s, name, &m, why);
		mounts_unlock(lock);
		return 0;
	}
	if (s->dry_run) {
		fprintf(s->out, "would restore %s to '%s' (owner pid %d %s)\n", path, orig, (int)s->pid,
			s->owner_alive ? "still running" : "gone");
		s->restored++;
		return 0;
	}
	r = write_text(path, orig);
	if (r) {
		fprintf(s->out, "could not restore %s to '%s': %s\n", path, orig, strerror(-r));
		s->failed++;
		return 0;
	}
	unlinkat(dirfd, name, 0);
	fprintf(s->out, "restored %s to '%s' (owner pid %d %s)\n", path, orig, (int)s->pid, why);
	s->restored++;
	return 0;
}

static int stale_owner(int statefd, const char *name, bool is_dir, void *arg)
{
	struct stale_ctx *s = arg;
	char odir[HS_PATH], me[64], why[160];
	unsigned long long start;

	(void)is_dir;	/* a link of an owner's name is named, not skipped */
	if (!lab_owner_parse(name, &s->pid, &start))
		return 0;
	/* Our own (cleanup mounts tracefs to look): undone at our exit. */
	lab_owner_name(me, sizeof(me));
	if (!strcmp(name, me))
		return 0;
	s->owner_alive = lab_owner_alive(name);
	if (s->owner_alive && !s->force)
		return 0;
	if (path_join(odir, sizeof(odir), hoststate_dir(), name))
		return 0;
	s->owner_fd = owner_dir_open(statefd, name, why, sizeof(why));
	if (s->owner_fd < 0) {
		fprintf(s->out, "not restoring the host settings journaled in %s: %s\n", odir, why);
		s->kept++;
		return 0;
	}
	s->owner = name;
	s->owner_dir = odir;
	rawdir_foreach_fd(s->owner_fd, stale_entry, s);
	close(s->owner_fd);
	s->owner_fd = -1;
	if (!s->dry_run)
		unlinkat(statefd, name, AT_REMOVEDIR);
	return 0;
}

int hoststate_restore_stale(FILE *out, bool force, bool dry_run, int *kept)
{
	struct stale_ctx s = { .out = out, .force = force, .dry_run = dry_run, .owner_fd = -1 };
	char why[160];
	int fd = state_dir_open(why, sizeof(why)), r;

	if (fd == -ENOENT) {
		fflush(out);
		return 0;	/* no run ever changed anything here */
	}
	if (fd == -1) {
		fprintf(out, "not restoring the host settings journaled in %s: %s\n", hoststate_dir(), why);
		fflush(out);
		if (kept)
			(*kept)++;
		return 0;
	}
	r = fd < 0 ? fd : rawdir_foreach_fd(fd, stale_owner, &s);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		fprintf(out, "could not look for journaled host settings in %s: %s\n", hoststate_dir(),
			strerror(-r));
	fflush(out);
	if (kept)
		*kept += s.kept;
	if (r < 0)
		return r;
	return s.failed ? -EIO : s.restored;
}
