// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lock/perf_lock.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"

/*
 * argv with stdout and stderr into *out, a memfd, stdin from /dev/null:
 * perf exits 0 when it cannot write its output (a full disk), so what it
 * prints is written to its file by save_output(), checked
 * (util/outfile.h).  perf dies with the lab, SIGKILL included
 * (perf_detach_from_parent: SIGINT as the death signal, set before exec
 * and checked against a parent that died first), so a killed run leaves
 * no `perf lock record -a` running, nor perf's temporary files.
 */
static pid_t spawn(char *const argv[], int *out, char *err, size_t errlen)
{
	pid_t parent = getpid(), pid;
	int fds[2], e = 0;

	*out = outfile_capture(argv[0]);
	if (*out < 0) {
		snprintf(err, errlen, "cannot run %s: a memfd for its output: %s", argv[0], strerror(errno));
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot run %s: pipe: %s", argv[0], strerror(errno));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot run %s: fork: %s", argv[0], strerror(errno));
		close(fds[0]);
		close(fds[1]);
		goto fail;
	}
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);

		close(fds[0]);
		if (perf_detach_from_parent(parent) < 0 || in < 0 || dup2(*out, 1) < 0 ||
		    dup2(*out, 2) < 0 || dup2(in, 0) < 0)
			e = errno;
		else
			execvp(argv[0], argv);
		e = e ? e : errno;
		/* The parent reads why exec failed; a full pipe cannot happen. */
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
		close(fds[0]);
		waitpid(pid, NULL, 0);
		snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(e));
		goto fail;
	}
	close(fds[0]);
	return pid;
fail:
	close(*out);
	*out = -1;
	return -1;
}

/* perf's output into its file; 0, or -1 with err (the file is named). */
static int save_output(int *out, const char *path, char *err, size_t errlen)
{
	int fd = *out;

	*out = -1;
	if (fd < 0)
		return 0;
	if (outfile_save_capture(fd, path)) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Undo step (signal-safe): stop perf so that it writes its header. */
static void undo_record(void *arg)
{
	struct perf_lock_rec *r = arg;

	if (r->pid > 0) {
		kill(r->pid, SIGINT);
		waitpid(r->pid, NULL, 0);
		r->pid = 0;
	}
}

int perf_lock_record_start(struct perf_lock_rec *r, const char *path, const char *log,
			   char *err, size_t errlen)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	char *argv[] = { "perf", "lock", "record", "-a", "-o", r->part, NULL };

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	snprintf(r->part, sizeof(r->part), "%s.part", path);
	snprintf(r->log, sizeof(r->log), "%s", log);
	unlink(path);
	unlink(r->part);
	r->pid = spawn(argv, &r->out_fd, err, errlen);
	if (r->pid < 0)
		return -1;
	r->cleanup_handle = cleanup_push(undo_record, r, "perf lock record");
	/* perf writes the file header once its ring buffers are mapped;
	 * events before that would be missed. */
	for (int i = 0; i < 500; i++) {
		struct stat st;
		int status;

		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			char *text;

			r->pid = 0;
			cleanup_pop(r->cleanup_handle, false);
			if (save_output(&r->out_fd, log, err, errlen))
				return -1;
			text = read_text(log, NULL);
			snprintf(err, errlen, "perf lock record exited early: %.300s",
				 text && *text ? text : "(no output)");
			free(text);
			return -1;
		}
		if (stat(r->part, &st) == 0 && st.st_size > 0) {
			nanosleep(&ts, NULL);
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	undo_record(r);
	cleanup_pop(r->cleanup_handle, false);
	if (save_output(&r->out_fd, log, err, errlen))
		return -1;
	snprintf(err, errlen, "perf lock record did not start writing %s within 10 s", path);
	return -1;
}

int perf_lock_record_stop(struct perf_lock_rec *r, char *err, size_t errlen)
{
	int status = 0;

	if (r->pid <= 0)
		return 0;
	kill(r->pid, SIGINT);
	while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
		;
	r->pid = 0;
	cleanup_pop(r->cleanup_handle, false);
	if (save_output(&r->out_fd, r->log, err, errlen))
		return -1;
	/* perf exits with 130 (or 0) after SIGINT once the file is complete. */
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGINT) {
		snprintf(err, errlen, "perf lock record was killed by signal %d (see %s)",
			 WTERMSIG(status), r->log);
		return -1;
	}
	if (r->part[0] && rename(r->part, r->path)) {
		snprintf(err, errlen, "%s: cannot rename to %s: %s", r->part, r->path, strerror(errno));
		return -1;
	}
	return 0;
}

int perf_lock_contention(const struct perf_info *pi, const char *path, bool threads,
			 const char *out_txt, struct lockcon_text_table **t, size_t *nt, char *err, size_t errlen)
{
	char *argv[12];
	int n = 0, status, out;
	pid_t pid;
	char *text;

	argv[n++] = "perf";
	argv[n++] = "lock";
	argv[n++] = "contention";
	argv[n++] = "-i";
	argv[n++] = (char *)path;
	if (threads)
		argv[n++] = "-t";
	if (perf_has_csv(pi)) {
		argv[n++] = "-x";
		argv[n++] = ";";
	}
	argv[n] = NULL;
	pid = spawn(argv, &out, err, errlen);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (save_output(&out, out_txt, err, errlen))
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		text = read_text(out_txt, NULL);
		snprintf(err, errlen, "perf lock contention -i %s failed: %.300s", path, text ? text : "");
		free(text);
		return -1;
	}
	return perf_lock_parse_output(out_txt, t, nt, err, errlen);
}

int perf_lock_live_start(struct perf_lock_rec *r, const struct perf_info *pi, const char *out_txt,
			 char *err, size_t errlen)
{
	char *argv[] = { "perf", "lock", "contention", "-a", "-b", "-x", ";", NULL };
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int status;

	memset(r, 0, sizeof(*r));
	snprintf(r->log, sizeof(r->log), "%s", out_txt);
	if (!perf_has_csv(pi))
		argv[5] = NULL;
	r->pid = spawn(argv, &r->out_fd, err, errlen);
	if (r->pid < 0)
		return -1;
	r->cleanup_handle = cleanup_push(undo_record, r, "perf lock contention -b");
	/* Loading the BPF programs takes a moment; a perf that cannot exits. */
	for (int i = 0; i < 5; i++) {
		nanosleep(&ts, NULL);
		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			char *text;

			r->pid = 0;
			cleanup_pop(r->cleanup_handle, false);
			if (save_output(&r->out_fd, out_txt, err, errlen))
				return -1;
			text = read_text(out_txt, NULL);
			snprintf(err, errlen, "perf lock contention -b exited early: %.300s",
				 text && *text ? text : "(no output)");
			free(text);
			return -1;
		}
	}
	return 0;
}

int perf_lock_parse_output(const char *out_txt, struct lockcon_text_table **t, size_t *nt, char *err,
			   size_t errlen)
{
	char *text = read_text(out_txt, NULL);
	int r;

	if (!text) {
		snprintf(err, errlen, "%s: cannot read perf's output", out_txt);
		return -1;
	}
	r = lockcon_text_parse(text, out_txt, t, nt, err, errlen);
	free(text);
	return r;
}
