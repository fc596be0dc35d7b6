// SPDX-License-Identifier: GPL-2.0
/*
 * Recovery of stale host-state journals (util/hoststate_stale.h): what a
 * lab run that is gone left journaled, put back by `memcg-lab cleanup`.
 * Only a journal the lab made counts (util/hoststate_journal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/hoststate_journal.h"
#include "util/hoststate_stale.h"
#include "util/owner.h"
#include "util/rawdir.h"

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
static int undo_mount_in(pid_t holder, const struct hs_mount *m)
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
		r = hs_undo_mount(m);
		_exit(r >= 0 ? r : 2 - r);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -ECHILD;
	return WEXITSTATUS(st) < 2 ? WEXITSTATUS(st) : -(WEXITSTATUS(st) - 2);
}

/* A journaled mount whose owner is gone; file is its entry's name. */
static void stale_mount(struct stale_ctx *s, const char *file, const struct hs_mount *m, const char *why)
{
	char where[96] = "";
	int r = 0;

	if (m->ns != hs_mount_ns()) {
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
		r = hs_undo_mount(m);
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
	struct hs_others o = { 0 };
	const char *why = s->owner_alive ? "still running, --force" : "gone";
	char what[HS_PATH + 32];
	struct hs_mount m;
	bool is_mount;
	int r, lock;

	if (is_dir || strstr(name, ".tmp."))	/* write_file_atomic()'s temp files */
		return 0;
	if (path_join(file, sizeof(file), s->owner_dir, name))
		return 0;
	r = hs_read_journal(dirfd, name, path, sizeof(path), orig, sizeof(orig));
	if (r) {
		fprintf(s->out, "skipped %s host-state journal %s\n",
			r == -EPERM ? "a link, or another user's file, for a" : "unreadable", file);
		return 0;
	}
	is_mount = hs_parse_mount(path, orig, &m);
	lock = is_mount ? hs_mounts_lock() : -1;
	hs_path_key(path, key, sizeof(key));
	o.key = key;
	o.skip = s->owner;
	hs_others_find(&o);
	if (o.live && !s->force) {
		/* A live run still changes it and restores it itself. */
		if (!s->dry_run)
			unlinkat(dirfd, name, 0);
		fprintf(s->out, "%s journal of %s (owner pid %d gone): a running lab run restores it\n",
			s->dry_run ? "would drop" : "dropped", hs_describe(path, orig, what, sizeof(what)),
			(int)s->pid);
		hs_mounts_unlock(lock);
		return 0;
	}
	if (is_mount) {
		stale_mount(s, name, &m, why);
		hs_mounts_unlock(lock);
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
	s->owner_fd = hs_owner_dir_open(statefd, name, why, sizeof(why));
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
	int fd = hs_state_dir_open(why, sizeof(why)), r;

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
