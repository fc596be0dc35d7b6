// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kernel/tracefs_dir.h"
#include "util/fileio.h"
#include "util/hoststate.h"

void tracefs_mount_point(char *buf, size_t n)
{
	char *text = read_text("/proc/self/mounts", NULL), *line, *save = NULL;

	buf[0] = '\0';
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[256], type[64];

		if (sscanf(line, "%255s %255s %63s", dev, mnt, type) == 3 && !strcmp(type, "tracefs")) {
			snprintf(buf, n, "%s", mnt);
			/* The canonical mount wins over debugfs's automount. */
			if (!strcmp(mnt, TRACEFS_STD_DIR))
				break;
		}
	}
	free(text);
}

/* How long a busy instance is waited for. */
#define INSTANCE_BUSY_WAIT_MS 5000
#define INSTANCE_BUSY_POLL_MS 50

int tracefs_instance_remove(const char *path)
{
	for (int waited = 0;; waited += INSTANCE_BUSY_POLL_MS) {
		struct timespec ts = { 0, INSTANCE_BUSY_POLL_MS * 1000000L };

		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || waited >= INSTANCE_BUSY_WAIT_MS)
			return -errno;
		nanosleep(&ts, NULL);
	}
}

static const char mount_hint[] = "mount it with 'mount -t tracefs nodev " TRACEFS_STD_DIR "'";

int lab_tracefs_find(char *dir, size_t n, char *err, size_t errlen)
{
	tracefs_mount_point(dir, n);
	if (dir[0])
		return 0;
	if (geteuid() != 0) {
		snprintf(err, errlen, "tracefs is not mounted: %s (as root the lab mounts it itself)",
			 mount_hint);
		return -1;
	}
	if (hoststate_mount("tracefs", TRACEFS_STD_DIR, err, errlen) < 0)
		return -1;
	snprintf(dir, n, "%s", TRACEFS_STD_DIR);
	return 0;
}

static bool kernel_has_tracefs(void)
{
	char *text = read_text("/proc/filesystems", NULL);
	bool yes = text && strstr(text, "\ttracefs\n");

	free(text);
	return yes;
}

/* Mounts tracefs in a child's own mount namespace, which goes with it:
 * 0, or the errno of the refusal. */
static int trial_mount(void)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tracefs", TRACEFS_STD_DIR, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
			_exit(errno & 0xff);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return ECHILD;
	return WEXITSTATUS(st);
}

enum lab_tracefs_state lab_tracefs_state(char *dir, size_t n, char *why, size_t whylen)
{
	int r;

	tracefs_mount_point(dir, n);
	if (dir[0]) {
		snprintf(why, whylen, "mounted at %s", dir);
		return LAB_TRACEFS_MOUNTED;
	}
	if (!kernel_has_tracefs()) {
		snprintf(why, whylen, "the kernel has no tracefs (not in /proc/filesystems: CONFIG_TRACING off)");
		return LAB_TRACEFS_UNAVAILABLE;
	}
	if (!path_exists(TRACEFS_STD_DIR)) {
		snprintf(why, whylen, "not mounted, and there is no %s to mount it on", TRACEFS_STD_DIR);
		return LAB_TRACEFS_UNAVAILABLE;
	}
	if (geteuid() != 0) {
		snprintf(why, whylen, "not mounted; runs as root mount it at %s themselves (or %s)",
			 TRACEFS_STD_DIR, mount_hint);
		return LAB_TRACEFS_MOUNTABLE;
	}
	r = trial_mount();
	if (r) {
		snprintf(why, whylen, "not mounted, and mounting it at %s is refused: %s", TRACEFS_STD_DIR,
			 strerror(r));
		return LAB_TRACEFS_UNAVAILABLE;
	}
	snprintf(why, whylen, "not mounted; a run mounts it at %s and unmounts it at its end",
		 TRACEFS_STD_DIR);
	return LAB_TRACEFS_MOUNTABLE;
}

const char *lab_tracefs_state_name(enum lab_tracefs_state s)
{
	switch (s) {
	case LAB_TRACEFS_MOUNTED: return "mounted";
	case LAB_TRACEFS_MOUNTABLE: return "mountable";
	case LAB_TRACEFS_UNAVAILABLE: break;
	}
	return "unavailable";
}
