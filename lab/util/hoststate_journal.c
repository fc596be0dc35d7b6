// SPDX-License-Identifier: GPL-2.0
/*
 * The host-state journal on disk (util/hoststate_journal.h): its place,
 * its entries, its directories, the mounts it records, and the other runs
 * that journal the same setting.  Used by util/hoststate.c and
 * util/hoststate_stale.c; may run from a signal handler (no malloc).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include "util/hoststate.h"
#include "util/hoststate_journal.h"
#include "util/owned.h"
#include "util/owner.h"
#include "util/rawdir.h"

static char state_dir[256];

const char *hoststate_dir(void)
{
	if (!state_dir[0]) {
		const char *e = getenv("MEMCG_LAB_STATE_DIR");

		snprintf(state_dir, sizeof(state_dir), "%s", e && *e ? e : "/run/memcg-lab");
	}
	return state_dir;
}

void hs_path_key(const char *path, char *key, size_t n)
{
	size_t i;

	for (i = 0; path[i] && i + 1 < n; i++)
		key[i] = path[i] == '/' ? '%' : path[i];
	key[i] = '\0';
}

void hs_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

int hs_read_journal(int dirfd, const char *name, char *path, size_t pn, char *orig, size_t on)
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
	hs_chomp(orig);
	return 0;
}

/* ---- the journal's directories -------------------------------------------
 *
 * The journal says what root writes back, so only what the lab made counts
 * (util/owned.h): the state directory owned by the lab's euid, mode 0700;
 * each owner's directory the same, and marked with its owner's name; each
 * entry a regular file of the lab's euid, read without following a link.
 */

int hs_state_dir_open(char *why, size_t n)
{
	return lab_open_owned_at(AT_FDCWD, hoststate_dir(), NULL, false, why, n);
}

int hs_owner_dir_open(int statefd, const char *owner, char *why, size_t n)
{
	return lab_open_owned_at(statefd, owner, owner, true, why, n);
}

/* rawdir_foreach_fd over the state directory, when it is the lab's. */
static int state_dir_foreach(rawdir_fd_fn fn, void *arg)
{
	char why[160];
	int fd = hs_state_dir_open(why, sizeof(why)), r;

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
 */

static unsigned long long parse_ull(const char *s, const char **end)
{
	unsigned long long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned long long)(*s++ - '0');
	*end = s;
	return v;
}

bool hs_parse_mount(const char *path, const char *orig, struct hs_mount *m)
{
	const char *p, *sp;
	size_t n;

	if (strncmp(path, HS_MOUNT_PREFIX, strlen(HS_MOUNT_PREFIX)))
		return false;
	m->ns = parse_ull(path + strlen(HS_MOUNT_PREFIX), &p);
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

unsigned long long hs_mount_ns(void)
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

long hs_fs_magic(const char *fstype)
{
	if (!strcmp(fstype, "tracefs"))
		return TRACEFS_MAGIC;
	if (!strcmp(fstype, "debugfs"))
		return DEBUGFS_MAGIC;
	return 0;
}

unsigned long long hs_mounted_at(const char *target, const char *fstype)
{
	char parent[HS_PATH];
	unsigned long long id = mount_id_of(target);
	struct statfs sfs;

	if (!id || statfs(target, &sfs) || sfs.f_type != hs_fs_magic(fstype))
		return 0;
	/* debugfs's tracing/ automount is tracefs inside debugfs: still a
	 * mount of its own; a plain directory shares its parent's id. */
	if (path_join(parent, sizeof(parent), target, ".."))
		return 0;
	return mount_id_of(parent) == id ? 0 : id;
}

int hs_undo_mount(const struct hs_mount *m)
{
	if (hs_mounted_at(m->target, m->fstype) != m->mnt_id)
		return 1;
	if (umount2(m->target, UMOUNT_NOFOLLOW) == 0)
		return 0;
	/* A child (perf) may still hold a file open: detach it now, the
	 * kernel drops it when the last user goes. */
	if (errno == EBUSY && umount2(m->target, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		return 0;
	return -errno;
}

const char *hs_describe(const char *path, const char *orig, char *buf, size_t n)
{
	struct hs_mount m;

	if (!hs_parse_mount(path, orig, &m))
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
int hs_mounts_lock(void)
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

void hs_mounts_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* ---- other owners of a setting ------------------------------------------ */

static int others_walk(int statefd, const char *name, bool is_dir, void *arg)
{
	struct hs_others *o = arg;
	char path[HS_PATH], orig[HS_VALUE], why[160];
	unsigned long long start;
	pid_t pid;
	int fd, r;

	if (!is_dir || !lab_owner_parse(name, &pid, &start) || (o->skip && !strcmp(name, o->skip)))
		return 0;
	/* Not the lab's: its "original" is nothing to restore. */
	fd = hs_owner_dir_open(statefd, name, why, sizeof(why));
	if (fd < 0)
		return 0;
	r = hs_read_journal(fd, o->key, path, sizeof(path), orig, sizeof(orig));
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

void hs_others_find(struct hs_others *o)
{
	state_dir_foreach(others_walk, o);
}
