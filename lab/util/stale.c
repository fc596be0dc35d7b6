// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include "util/owner.h"
#include "util/rawdir.h"
#include "util/stale.h"

static int stale_walk(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct stale_pass *p = arg;
	unsigned long long start;
	char path[1024];
	bool alive;
	pid_t pid;
	int e;

	if (!is_dir || !lab_owner_parse(name, &pid, &start))
		return 0;
	alive = lab_owner_alive(name);
	if ((alive && !p->force) || path_join(path, sizeof(path), dir, name))
		return 0;
	if (p->dry_run) {
		fprintf(p->out, "would remove %s %s (owner pid %d %s)\n", p->noun, path, (int)pid,
			alive ? "still running" : "gone");
		p->removed++;
		return 0;
	}
	e = p->remove(path);
	if (e) {
		char why[256] = "";

		if (p->why)
			p->why(path, e, why, sizeof(why));
		fprintf(p->out, "could not remove %s %s: %s%s%s\n", p->noun, path, strerror(-e),
			why[0] ? ": " : "", why);
		p->failed++;
		return 0;
	}
	fprintf(p->out, "removed %s %s (owner pid %d %s)\n", p->noun, path, (int)pid,
		alive ? "still running, --force" : "gone");
	p->removed++;
	return 0;
}

int stale_pass_run(struct stale_pass *p, const char *dir)
{
	int r = rawdir_foreach(dir, stale_walk, p);

	fflush(p->out);
	return r < 0 ? r : 0;
}

int stale_pass_count(struct stale_pass *p, const char *dir, const char *what)
{
	int r = stale_pass_run(p, dir);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		fprintf(p->out, "could not look for lab %s in %s: %s\n", what, dir, strerror(-r));
		return r;
	}
	return p->failed ? -EBUSY : p->removed;
}
