// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "util/owned.h"
#include "util/owner.h"
#include "util/rawdir.h"
#include "util/stale.h"

struct walk {
	struct stale_pass *p;
	const char *dir;
};

static int stale_walk(int dirfd, const char *name, bool is_dir, void *arg)
{
	struct walk *w = arg;
	struct stale_pass *p = w->p;
	unsigned long long start;
	char path[1024], owner[64], why[160];
	bool alive, as_other;
	pid_t pid;
	int fd, e;

	(void)is_dir;	/* a link or a file of a lab name is named, not skipped */
	if (!lab_owner_split(name, p->suffix_ok, owner, sizeof(owner)) || !lab_owner_parse(owner, &pid, &start))
		return 0;
	alive = lab_owner_alive(owner);
	if ((alive && !p->force) || path_join(path, sizeof(path), w->dir, name))
		return 0;
	/* A dry run by another user: what root's cleanup would take, looked
	 * at through an O_PATH fd (the lab's directories are 0700). */
	as_other = p->dry_run && geteuid() != 0;
	if (as_other) {
		fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		fd = fd < 0 ? -errno : fd;
	} else {
		fd = lab_open_dir_at(dirfd, name);
	}
	if (fd == -ENOENT)
		return 0;
	if (fd < 0 && fd != -ELOOP && fd != -ENOTDIR) {
		fprintf(p->out, "could not look at %s %s: %s\n", p->noun, path, strerror(-fd));
		p->failed++;
		return 0;
	}
	e = fd < 0 ? 1 : lab_owned_by(fd, as_other ? 0 : geteuid(), owner, p->marker && !as_other, why, sizeof(why));
	if (fd < 0)
		snprintf(why, sizeof(why), "%s", lab_open_dir_why(fd));
	if (e) {
		if (e > 0) {
			fprintf(p->out, "not removing %s %s: %s\n", p->noun, path, why);
			p->kept++;
		} else {
			fprintf(p->out, "could not look at %s %s: %s\n", p->noun, path, strerror(-e));
			p->failed++;
		}
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (p->dry_run) {
		fprintf(p->out, "would remove %s %s (owner pid %d %s%s)\n", p->noun, path, (int)pid,
			alive ? "still running" : "gone", as_other && p->marker ? "; its mark is for root to check" : "");
		p->removed++;
		close(fd);
		return 0;
	}
	e = p->remove_fd ? p->remove_fd(dirfd, name, fd) : p->remove(path);
	close(fd);
	if (e) {
		char holder[256] = "";

		if (p->why)
			p->why(path, e, holder, sizeof(holder));
		fprintf(p->out, "could not remove %s %s: %s%s%s\n", p->noun, path, strerror(-e),
			holder[0] ? ": " : "", holder);
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
	struct walk w = { p, dir };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = rawdir_foreach_fd(fd, stale_walk, &w);
	close(fd);
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
