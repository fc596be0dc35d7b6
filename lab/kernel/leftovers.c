// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernel/cgroup.h"
#include "kernel/leftovers.h"
#include "kernel/tracefs_dir.h"
#include "util/err.h"
#include "util/fdholders.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/rawdir.h"
#include "util/stale.h"

static void instance_holders(const char *path, int err, char *buf, size_t n)
{
	const char *name = strrchr(path, '/');
	char who[200];

	if (err != -EBUSY || !fd_holders(name ? name + 1 : path, who, sizeof(who)))
		return;
	snprintf(buf, n, "held open by %s", who);
}

int tracefs_cleanup_stale(FILE *out, const char *tracefs_dir, bool force, bool dry_run)
{
	struct stale_pass p = { "tracefs instance", tracefs_instance_remove, force, dry_run, out, 0, 0, instance_holders };
	char mnt[256], inst[512];

	if (!tracefs_dir) {
		char err[256];

		/* Instances outlive an unmount (tracefs has one superblock):
		 * to find them, mount it, for this cleanup only. */
		tracefs_mount_point(mnt, sizeof(mnt));
		if (!mnt[0] && !dry_run && lab_tracefs_find(mnt, sizeof(mnt), err, sizeof(err))) {
			/* No run here could have made one either. */
			fprintf(out, "tracefs instances not looked for: %s\n", err);
			return 0;
		}
		if (!mnt[0]) {
			fprintf(out, "tracefs is not mounted: tracefs instances not looked for (a cleanup "
				"without --dry-run mounts it to look)\n");
			return 0;
		}
		tracefs_dir = mnt;
	}
	if (path_join(inst, sizeof(inst), tracefs_dir, "instances"))
		return -ENAMETOOLONG;
	return stale_pass_count(&p, inst, "tracefs instances");
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -errno : 0;
}

/* A temporary directory and everything in it (not following links). */
static int remove_tmpdir(const char *path)
{
	/* nftw: 0, -1 with errno for its own failures, or what the
	 * callback returned (-errno of a remove) to stop the walk. */
	int r = nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

	if (r == -1)
		return errno == ENOENT ? 0 : -errno;
	return r;
}

int tmpdir_cleanup_stale(FILE *out, const char *tmpdir, bool force, bool dry_run)
{
	struct stale_pass p = { "temporary directory", remove_tmpdir, force, dry_run, out, 0, 0, NULL };

	if (!tmpdir)
		tmpdir = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
	return stale_pass_count(&p, tmpdir, "temporary directories");
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
	tally(tmpdir_cleanup_stale(out, NULL, force, dry_run), &n->tmpdirs, n, dry_run);
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
