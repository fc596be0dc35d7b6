// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
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
#include "util/hoststate_stale.h"
#include "util/owned.h"
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

int tracefs_cleanup_stale(FILE *out, const char *tracefs_dir, bool force, bool dry_run, int *kept)
{
	/* tracefs keeps no extended attributes: the 0700 the tracer gives
	 * its instance (instances are made 0750) is the marker. */
	struct stale_pass p = { .noun = "tracefs instance", .remove = tracefs_instance_remove, .marker = false,
				.force = force, .dry_run = dry_run, .out = out, .why = instance_holders };
	char mnt[256], inst[512];
	int r;

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
	r = stale_pass_count(&p, inst, "tracefs instances");
	if (kept)
		*kept += p.kept;
	return r;
}

/* A temporary directory (checked, open at fd) and everything in it: by
 * fds, never through a link (util/owned.h). */
static int remove_tmpdir(int dirfd, const char *name, int fd)
{
	int e = lab_rm_contents(fd);

	if (e)
		return e;
	return unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -errno;
}

int tmpdir_cleanup_stale(FILE *out, const char *tmpdir, bool force, bool dry_run, int *kept)
{
	struct stale_pass p = { .noun = "temporary directory", .remove_fd = remove_tmpdir, .marker = true,
				.suffix_ok = true, .force = force, .dry_run = dry_run, .out = out };
	int r;

	if (!tmpdir)
		tmpdir = lab_tmpdir_base();
	r = stale_pass_count(&p, tmpdir, "temporary directories");
	if (kept)
		*kept += p.kept;
	return r;
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
	tally(cg_cleanup_stale_to(out, force, dry_run, &n->kept), &n->cgroups, n, dry_run);
	tally(tracefs_cleanup_stale(out, NULL, force, dry_run, &n->kept), &n->instances, n, dry_run);
	tally(hoststate_restore_stale(out, force, dry_run, &n->kept), &n->settings, n, dry_run);
	tally(tmpdir_cleanup_stale(out, NULL, force, dry_run, &n->kept), &n->tmpdirs, n, dry_run);
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
