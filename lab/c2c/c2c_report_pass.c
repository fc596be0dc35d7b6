// SPDX-License-Identifier: GPL-2.0
/* One streamed, time-limited `perf c2c report` pass (c2c/c2c_report_pass.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "c2c/c2c_report_pass.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"

char **c2c_report_pass_argv(const struct c2c_report_pass *p)
{
	char **a = xcalloc(32, sizeof(*a));
	int n = 0;

	a[n++] = xstrdup(p->perf ? p->perf : "perf");
	for (int i = 0; p->extra && p->extra[i] && n < 20; i++)
		a[n++] = xstrdup(p->extra[i]);
	a[n++] = xstrdup("c2c");
	a[n++] = xstrdup("report");
	a[n++] = xstrdup("-i");
	a[n++] = xstrdup(p->data);
	a[n++] = xstrdup("--stdio");
	a[n++] = xstrdup("-NN");
	a[n++] = xstrdup("-c");
	a[n++] = xstrdup("pid,tid,iaddr");
	a[n++] = xstrdup("--full-symbols");
	/* builtin-c2c.c: the Source:Line column is the cl_srcline dimension,
	 * filled by addr2line for every offset; --no-source leaves it out
	 * (perf 4.x on). */
	if (!p->source)
		a[n++] = xstrdup("--no-source");
	if (p->double_cl)
		a[n++] = xstrdup("--double-cl");
	if (p->show_all)
		a[n++] = xstrdup("--show-all");
	return a;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The pipe from perf, read with a deadline, copied into the report file. */
struct tee {
	int fd;
	pid_t pid;
	double deadline;	/* 0: none */
	FILE *copy;
	bool timed_out, stopped;
	unsigned long long bytes;
};

static ssize_t tee_read(void *cookie, char *buf, size_t size)
{
	struct tee *t = cookie;
	ssize_t n;

	for (;;) {
		struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
		int ms = -1, r;

		if (t->deadline > 0) {
			double left = t->deadline - mono_s();

			if (left <= 0) {
				t->timed_out = true;
				kill(t->pid, SIGKILL);
				return 0;
			}
			ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
		} else {
			ms = 1000;
		}
		/* A second's poll at most: a stop of the lab is seen. */
		if (lab_stop_requested()) {
			t->stopped = true;
			kill(t->pid, SIGKILL);
			return 0;
		}
		r = poll(&pfd, 1, ms);
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0)
			break;
	}
	do
		n = read(t->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		fwrite(buf, 1, (size_t)n, t->copy);
		t->bytes += (unsigned long long)n;
	}
	return n;
}

void c2c_log_tail(const char *text, char *out, size_t n)
{
	const char *starts[3] = { 0 };
	size_t lens[3] = { 0 }, o = 0;
	int k = 0;

	for (const char *p = text; *p;) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, "\n");
		if (len) {
			memmove(starts, starts + 1, 2 * sizeof(*starts));
			memmove(lens, lens + 1, 2 * sizeof(*lens));
			starts[2] = p;
			lens[2] = len;
			k += k < 3;
		}
		p += len + (p[len] == '\n');
	}
	out[0] = '\0';
	for (int i = 3 - k; i < 3 && o + 1 < n; i++)
		o += snprintf(out + o, n - o, "%s%.*s", i > 3 - k ? " | " : "", (int)lens[i], starts[i]);
}

int c2c_report_pass_run(const struct c2c_report_pass *p, struct c2c_report *r, bool *timed_out, char *err,
			size_t errlen)
{
	cookie_io_functions_t io = { .read = tee_read };
	char **argv = c2c_report_pass_argv(p);
	struct tee t = { .fd = -1 };
	pid_t parent = getpid();
	int pfd[2], st = 0, ret = -1;
	FILE *in;

	memset(r, 0, sizeof(*r));
	*timed_out = false;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "perf c2c report: pipe: %s", strerror(errno));
		for (int i = 0; argv[i]; i++)
			free(argv[i]);
		free(argv);
		return -1;
	}
	t.pid = fork();
	if (t.pid < 0) {
		snprintf(err, errlen, "perf c2c report: fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		for (int i = 0; argv[i]; i++)
			free(argv[i]);
		free(argv);
		return -1;
	}
	if (t.pid == 0) {
		int e = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		perf_detach_from_parent(parent);
		if (e < 0 || dup2(pfd[1], 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	t.fd = pfd[0];
	t.deadline = p->timeout_s > 0 ? mono_s() + p->timeout_s : 0;
	t.copy = outfile_open(p->txt, "w");
	in = fopencookie(&t, "r", io);
	if (!in) {
		snprintf(err, errlen, "perf c2c report: fopencookie: %s", strerror(errno));
		kill(t.pid, SIGKILL);
	} else {
		c2c_parse_file(r, in, p->txt, NULL, NULL);
		fclose(in);
	}
	close(t.fd);
	while (waitpid(t.pid, &st, 0) < 0 && errno == EINTR)
		;
	if (outfile_close(t.copy)) {
		snprintf(err, errlen, "%s: cannot write: %s", p->txt, strerror(errno));
	} else if (!in) {
		/* said above */
	} else if (t.timed_out) {
		*timed_out = true;
		snprintf(err, errlen, "perf c2c report ran past its %.3g s limit (c2c_report_timeout) and was "
			 "stopped after %llu KB of report: no report for this window", p->timeout_s, t.bytes / 1024);
		unlink(p->txt);
	} else if (t.stopped) {
		snprintf(err, errlen, "perf c2c report stopped: the lab is stopping");
		unlink(p->txt);
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char *text = read_text(p->log, NULL), last[400] = "";

		if (text)
			c2c_log_tail(text, last, sizeof(last));
		snprintf(err, errlen, "perf c2c report failed (%s %d)%s%s", WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), last[0] ? ": " : "", last);
		free(text);
	} else if (c2c_report_is_empty(r)) {
		snprintf(err, errlen, "%s: perf c2c report wrote no report (see %s)", p->txt, p->log);
	} else {
		ret = 0;
	}
	for (int i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

int c2c_report_write_dir(const struct c2c_report *r, const char *dir, char *err, size_t errlen)
{
	static const char *const names[] = { "stats.tsv", "cachelines.tsv", "offsets.tsv", "warnings.tsv" };
	int e = mkdir_p(dir, 0755);

	if (e < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-e));
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		FILE *f = outfile_open(path, "w");

		if (i == 0) {
			c2c_write_stats_tsv(r, f);
		} else if (i == 1) {
			c2c_write_cachelines_tsv(r, f);
		} else if (i == 2) {
			c2c_write_offsets_header(f);
			for (size_t k = 0; k < r->noffs; k++)
				c2c_write_offset_row(&r->offs[k], f);
		} else {
			c2c_write_warnings_tsv(r, f);
		}
		if (outfile_close(f)) {
			snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}
