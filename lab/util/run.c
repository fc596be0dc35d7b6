// SPDX-License-Identifier: GPL-2.0
/* Programs run from an argv, their output read (util/run.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util/err.h"
#include "util/run.h"

extern char **environ;

struct sbuf {
	char *p;
	size_t len, cap;
};

/* Reads what fd has; false at EOF or on an error. */
static bool drain(int fd, struct sbuf *b)
{
	ssize_t n;

	if (b->len + 4096 + 1 > b->cap) {
		b->cap = (b->len + 4096 + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	n = read(fd, b->p + b->len, b->cap - b->len - 1);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	b->len += n;
	return true;
}

static char *finish(struct sbuf *b)
{
	if (!b->p)
		return xstrdup("");
	b->p[b->len] = '\0';
	return b->p;
}

char *run_capture_argv(const char *const argv[], enum run_stderr how, struct run_result *r)
{
	struct sbuf out = { 0 }, err = { 0 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, st, e;
	struct run_result local;
	sigset_t none, defaults;
	pid_t pid;

	if (!r)
		r = &local;
	memset(r, 0, sizeof(*r));
	if (pipe2(po, O_CLOEXEC) || (how == RUN_STDERR_KEEP && pipe2(pe, O_CLOEXEC)))
		die("cannot run %s: pipe: %s", argv[0], strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	if (how == RUN_STDERR_KEEP)
		posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	else if (how == RUN_STDERR_MERGE)
		posix_spawn_file_actions_adddup2(&fa, po[1], 2);
	else
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* The lab handles INT/TERM/HUP and ignores PIPE: a program it runs
	 * gets the defaults, and no signal blocked. */
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGHUP);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &defaults);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	e = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	if (e) {
		close(po[0]);
		if (pe[0] >= 0)
			close(pe[0]);
		r->status = 127;
		r->start_errno = e;
		if (how == RUN_STDERR_KEEP && r != &local)
			r->err = xasprintf("%s: %s", argv[0], e == ENOENT ? "not found" : strerror(e));
		return xstrdup("");
	}
	{
		struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int open = pe[0] >= 0 ? 2 : 1;

		while (open) {
			if (poll(fds, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			for (int i = 0; i < 2; i++) {
				if (fds[i].fd < 0 || !fds[i].revents)
					continue;
				if (!drain(fds[i].fd, i == 0 ? &out : &err)) {
					close(fds[i].fd);
					fds[i].fd = -1;
					open--;
				}
			}
		}
		for (int i = 0; i < 2; i++)
			if (fds[i].fd >= 0)
				close(fds[i].fd);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (how == RUN_STDERR_KEEP && r != &local)
		r->err = finish(&err);
	else
		free(err.p);
	return finish(&out);
}

char *run_first_line(const char *const argv[])
{
	char *out = run_capture_argv(argv, RUN_STDERR_DISCARD, NULL);

	out[strcspn(out, "\n")] = '\0';
	return out;
}

bool program_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL;
	bool found = false;
	struct stat st;

	if (strchr(name, '/'))
		return !stat(name, &st) && S_ISREG(st.st_mode) && !access(name, X_OK);
	dirs = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", name);

		found = !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
		free(p);
	}
	free(dirs);
	return found;
}

char *path_arg(const char *p)
{
	return p[0] == '-' ? xasprintf("./%s", p) : xstrdup(p);
}
