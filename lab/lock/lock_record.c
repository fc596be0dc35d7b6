// SPDX-License-Identifier: GPL-2.0
/*
 * `memcg-lab lock record`: the lock collector around a command, or for a
 * window, into a results directory of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lock/lock_collector.h"
#include "lock/lock_record.h"
#include "lock/lock_tracer.h"
#include "lock/perf_lock.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/results.h"

/* Runs argv, waiting with the window open; returns its exit status. */
static int run_command(char **argv)
{
	pid_t parent = getpid(), pid;
	int status = 0, fds[2], e;

	/* The child says through the pipe why exec failed (closed on exec). */
	if (pipe2(fds, O_CLOEXEC) < 0 || (pid = fork()) < 0)
		die("lock record: cannot run %s: %s", argv[0], strerror(errno));
	if (pid == 0) {
		/* The command dies with the lab, SIGKILL included. */
		close(fds[0]);
		worker_detach_from_parent(parent);
		execvp(argv[0], argv);
		e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		waitpid(pid, NULL, 0);
		die("lock record: cannot run %s: %s", argv[0], strerror(e));
	}
	close(fds[0]);
	cleanup_forward_to(pid, SIGINT);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	cleanup_forward_to(0, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void wait_window(double seconds)
{
	struct timespec end, now;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	end.tv_nsec += (long)((seconds - (time_t)seconds) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (!lab_stop_requested()) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		usleep(20000);
	}
}

int lock_record(struct lock_collector_opts *co, const char *name, const char *base, double duration,
		int argc, char **argv, int cmd)
{
	struct lock_collector *c;
	struct results *r;
	char err[1024], *data;
	int cmd_status = 0;

	if (getuid() != 0)
		die("lock record: needs root (tracefs instances, BPF, perf -a)");
	if (!co->no_tracer) {
		/* A bad --tracefs, or a refused mount, fails before anything is made. */
		struct lock_tracer_opts to = { .tracefs_dir = co->tracefs_dir };

		if (lock_tracer_find_tracefs(&to, err, sizeof(err)))
			die("lock record: %s", err);
	}
	cleanup_set_polling(true);
	if (co->perf) {
		struct perf_info pi;

		/* A perf that cannot do what --perf asks of it: before anything starts. */
		perf_info_probe(&pi);
		if (pi.found && !perf_has_contention(&pi))
			die("lock record --perf: perf %s is too old for 'perf lock contention' "
			    "(perf 5.19 or later; lab/scripts/perf-runtime.sh 7.3 fetches Debian's 7.3)", pi.version);
	}
	r = results_create(name, base, argc, argv);
	data = results_path(r, "data");
	co->perf_dir = data;
	c = lock_collector_start(co, err, sizeof(err));
	if (!c)
		die("lock record: %s", err);
	results_log(r, "lock collector started");
	if (cmd < argc)
		cmd_status = run_command(argv + cmd);
	else
		wait_window(duration);
	if (lock_collector_stop(c, err, sizeof(err)))
		warnx_lab("lock record: %s", err);
	lock_collector_write(c, r);
	lock_collector_print(c, stdout);
	if (cmd_status)
		results_log(r, "the command exited with status %d", cmd_status);
	printf("\nresults: %s\n", r->dir);
	results_finish(r, lab_stop_requested() ? "interrupted" : "complete");
	lock_collector_free(c);
	results_free(r);
	free(data);
	return 0;
}
