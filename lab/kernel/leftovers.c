// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernel/cgroup.h"
#include "kernel/leftovers.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/owner.h"
#include "util/rawdir.h"

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
			if (!strcmp(mnt, "/sys/kernel/tracing"))
				break;
		}
	}
	free(text);
}

struct tr_ctx {
	FILE *out;
	bool force, dry_run;
	int removed, failed;
};

static int tr_walk(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct tr_ctx *t = arg;
	unsigned long long start;
	char path[1024];
	bool alive;
	pid_t pid;

	/* Instances other tools made never match the owner pattern. */
	if (!is_dir || !lab_owner_parse(name, &pid, &start))
		return 0;
	alive = lab_owner_alive(name);
	if ((alive && !t->force) || path_join(path, sizeof(path), dir, name))
		return 0;
	if (t->dry_run) {
		fprintf(t->out, "would remove tracefs instance %s (owner pid %d %s)\n", path, (int)pid,
			alive ? "still running" : "gone");
		t->removed++;
		return 0;
	}
	if (rmdir(path) < 0 && errno != ENOENT) {
		fprintf(t->out, "could not remove tracefs instance %s: %s\n", path, strerror(errno));
		t->failed++;
		return 0;
	}
	fprintf(t->out, "removed tracefs instance %s (owner pid %d %s)\n", path, (int)pid,
		alive ? "still running, --force" : "gone");
	t->removed++;
	return 0;
}

int tracefs_cleanup_stale(FILE *out, const char *tracefs_dir, bool force, bool dry_run)
{
	struct tr_ctx t = { .out = out, .force = force, .dry_run = dry_run };
	char mnt[256], inst[512];
	int r;

	if (!tracefs_dir) {
		tracefs_mount_point(mnt, sizeof(mnt));
		if (!mnt[0])
			return 0;	/* not mounted: no instance can exist */
		tracefs_dir = mnt;
	}
	if (path_join(inst, sizeof(inst), tracefs_dir, "instances"))
		return -ENAMETOOLONG;
	r = rawdir_foreach(inst, tr_walk, &t);
	if (r < 0 && r != -ENOENT)
		fprintf(out, "could not look for lab tracefs instances in %s: %s\n", inst, strerror(-r));
	fflush(out);
	if (r < 0 && r != -ENOENT)
		return r;
	return t.failed ? -EBUSY : t.removed;
}

/* A count, or a failure (already reported on out by the pass itself);
 * a dry run by a user who may not look somewhere is not a failure. */
static void tally(int r, int *count, struct leftovers *n, bool dry_run)
{
	if (r >= 0)
		*count = r;
	else if (dry_run && r == -EACCES)
		n->unreadable++;
	else
		n->failed++;
}

int leftovers_cleanup(FILE *out, bool force, bool dry_run, struct leftovers *n)
{
	memset(n, 0, sizeof(*n));
	tally(cg_cleanup_stale_to(out, force, dry_run), &n->cgroups, n, dry_run);
	tally(tracefs_cleanup_stale(out, NULL, force, dry_run), &n->instances, n, dry_run);
	tally(hoststate_restore_stale(out, force, dry_run), &n->settings, n, dry_run);
	return n->failed ? -1 : 0;
}

void leftovers_cleanup_dead(void)
{
	struct leftovers n;
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *mem;

	if (geteuid() != 0)
		return;
	mem = open_memstream(&text, &len);
	if (!mem)
		return;
	leftovers_cleanup(mem, false, false, &n);
	fclose(mem);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		note("left by an earlier run: %s", line);
	free(text);
}
