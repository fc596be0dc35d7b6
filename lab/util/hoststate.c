// SPDX-License-Identifier: GPL-2.0
/*
 * This run's host settings and mounts (util/hoststate.h): journaled before
 * they change, restored at the end, on a signal, or now.  Restoring may run
 * from a signal handler, so the entries live in a static table and the
 * restore path uses only open/read/write/unlink/rmdir and util/rawdir.h.
 * The journal on disk is util/hoststate_journal.c's; the journals of runs
 * that are gone, util/hoststate_stale.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/hoststate_journal.h"
#include "util/owned.h"
#include "util/owner.h"
#include "util/rawdir.h"

#define HS_MAX 32

struct hs_entry {
	char path[HS_PATH];	/* the setting */
	char orig[HS_VALUE];	/* the host's value before any lab run */
	char journal[HS_PATH];	/* our journal file for it */
	int handle;
	bool active;
	bool mount;		/* a mount the lab made (util/hoststate_journal.h) */
};

static struct hs_entry entries[HS_MAX];
static char owner_dir[HS_PATH];
static pid_t owner_pid;

/* Puts a setting back: writes the value, or unmounts. 0, 1 (a mount that
 * was gone already), -errno; -EXDEV for a mount in another namespace. */
static int restore_value(const char *path, const char *orig)
{
	struct hs_mount m;

	if (!hs_parse_mount(path, orig, &m))
		return write_text(path, orig);
	if (m.ns != hs_mount_ns())
		return -EXDEV;
	return hs_undo_mount(&m);
}

static void restore_entry(void *arg)
{
	struct hs_entry *e = arg;
	struct hs_others o = { 0 };
	char key[HS_PATH], me[64];
	int r, lock;

	if (!e->active || owner_pid != getpid())
		return;
	e->active = false;
	lock = e->mount ? hs_mounts_lock() : -1;
	hs_path_key(e->path, key, sizeof(key));
	lab_owner_name(me, sizeof(me));
	o.key = key;
	o.skip = me;
	hs_others_find(&o);
	/* Another live run still wants its value; it restores the original. */
	if (!o.live) {
		r = restore_value(e->path, e->orig);
		if (r < 0) {
			char msg[HS_PATH + HS_VALUE + 96], what[HS_PATH + 32];
			int n = snprintf(msg, sizeof(msg), "%s: could not restore %s%s%s%s: %s\n",
					 lab_progname, hs_describe(e->path, e->orig, what, sizeof(what)),
					 e->mount ? "" : " to '", e->mount ? "" : e->orig, e->mount ? "" : "'",
					 strerror(-r));

			if (write(STDERR_FILENO, msg, n > 0 && n < (int)sizeof(msg) ? n : 0) < 0)
				n = 0;
			hs_mounts_unlock(lock);
			return;	/* keep the journal: cleanup retries */
		}
	}
	unlink(e->journal);
	hs_mounts_unlock(lock);
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
	statefd = hs_state_dir_open(why, sizeof(why));
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
	struct hs_others o = { 0 };
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
	hs_path_key(path, key, sizeof(key));
	o.key = key;
	o.skip = me;
	o.orig = orig;
	o.orig_len = sizeof(orig);
	if (!mount)
		hs_others_find(&o);

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
		struct hs_mount m;

		/* "mount:<ns>:<target>" is named by its target. */
		cleanup_name(e->handle, mount && hs_parse_mount(e->path, e->orig, &m) ? m.target : e->path);
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
		hs_chomp(cur);
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

	if (!hs_fs_magic(fstype)) {
		snprintf(err, errlen, "cannot mount %s: not a file system the lab mounts", fstype);
		return -1;
	}
	snprintf(path, sizeof(path), HS_MOUNT_PREFIX "%llu:%s", hs_mount_ns(), target);
	if (find_entry(path))
		return 1;
	if (mkdir_p(hoststate_dir(), 0700) == 0)
		lock = hs_mounts_lock();
	r = mount_locked(fstype, target, path, err, errlen);
	hs_mounts_unlock(lock);
	return r;
}

static int mount_locked(const char *fstype, const char *target, const char *path, char *err,
			size_t errlen)
{
	char orig[64];
	unsigned long long id;

	id = hs_mounted_at(target, fstype);
	if (id) {
		/* Mounted: by an overlapping lab run (share its journal, so
		 * that it stays mounted until the last of us ends), or by
		 * someone else (theirs: never touched). */
		struct hs_others o = { 0 };
		char key[HS_PATH];

		snprintf(orig, sizeof(orig), "%s %llu", fstype, id);
		hs_path_key(path, key, sizeof(key));
		o.key = key;
		o.want_orig = orig;
		hs_others_find(&o);
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
	snprintf(orig, sizeof(orig), "%s %llu", fstype, hs_mounted_at(target, fstype));
	if (!journal_entry(path, orig, true, err, errlen)) {
		umount2(target, UMOUNT_NOFOLLOW);
		cleanup_release();
		return -1;
	}
	cleanup_release();
	return 1;
}
