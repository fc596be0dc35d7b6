// SPDX-License-Identifier: GPL-2.0
/*
 * The checked output path: a lost write or close is reported once, names the
 * file and the error, and leaves the process marked; a good write is exact.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/fileio.h"
#include "util/outfile.h"

/* What was written to fd since offset 0 (a memfd). */
static char *fd_text(int fd)
{
	static char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Made by main(): a temporary directory, a memfd for the cases' stderr
 * and one standing for the runner's fd, and 20000 bytes to write. */
static char dir[] = "/tmp/unit-outfile.XXXXXX", big[20000];
static int errfd, runner, saved;	/* saved: the test's own stderr */

/* The case's stderr from here on: errfd, emptied; false if it cannot be.
 * Each case puts its stderr back at its end (a sanitizer's report). */
static bool stderr_to_errfd(void)
{
	if (ftruncate(errfd, 0) || lseek(errfd, 0, SEEK_SET)) {
		tap_skip("the case", "cannot empty the memfd");
		return false;
	}
	dup2(errfd, 2);
	return true;
}

/* A child started by the runner sends its failure line to the runner's fd. */
TEST(child_tells_runner)
{
	FILE *f;
	pid_t pid;
	int st;

	if (!stderr_to_errfd())
		return;
	pid = fork();
	if (!pid) {
		char env[16];

		snprintf(env, sizeof(env), "%d", runner);
		setenv(OUTFILE_ENV_FD, env, 1);
		f = outfile_open("/dev/full", "w");
		fputs("row\n", f);
		_exit(outfile_close(f) == 0 ? 0 : 3);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 3, "a child: the close of a full file fails");
	ok(!strcmp(fd_text(runner), "/dev/full: cannot write: No space left on device\n"),
	   "a child tells the runner the file and the error (got %zu bytes)", strlen(fd_text(runner)));
	dup2(saved, 2);
}

/* A regular file cut short (here by RLIMIT_FSIZE: EFBIG, as ENOSPC on a
 * full disk): written "w" it is removed, appended to it goes back to
 * what it held before. */
TEST(file_cut_short)
{
	char path[256];
	FILE *f;
	pid_t pid;
	int st;

	if (!stderr_to_errfd())
		return;
	pid = fork();
	if (!pid) {
		struct rlimit lim = { 4096, 4096 };
		char p[300];
		int st2 = 0;

		signal(SIGXFSZ, SIG_IGN);
		snprintf(p, sizeof(p), "%s/appended.tsv", dir);
		f = outfile_open(p, "a");
		fputs("first row\n", f);
		st2 |= outfile_close(f) ? 1 : 0;
		if (setrlimit(RLIMIT_FSIZE, &lim))
			_exit(99);
		f = outfile_open(p, "a");
		fwrite(big, 1, sizeof(big), f);
		st2 |= outfile_close(f) ? 0 : 2;
		snprintf(p, sizeof(p), "%s/cut.tsv", dir);
		f = outfile_open(p, "w");
		fwrite(big, 1, sizeof(big), f);
		st2 |= outfile_close(f) ? 0 : 4;
		/* A table made by this append (metrics.tsv's first writer). */
		snprintf(p, sizeof(p), "%s/new-appended.tsv", dir);
		f = outfile_open(p, "a");
		fwrite(big, 1, sizeof(big), f);
		st2 |= outfile_close(f) ? 0 : 8;
		_exit(st2);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a file cut short fails its close, append or not (status %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	snprintf(path, sizeof(path), "%s/cut.tsv", dir);
	ok(!path_exists(path), "a file written \"w\" and cut short is removed");
	snprintf(path, sizeof(path), "%s/new-appended.tsv", dir);
	ok(!path_exists(path), "a file its append made and cut short is removed, not left empty");
	snprintf(path, sizeof(path), "%s/appended.tsv", dir);
	{
		char *t = read_text(path, NULL);

		ok(t && !strcmp(t, "first row\n"),
		   "a file appended to keeps what it had, and only that (not the part of a row it was cut at)");
		free(t);
	}
	unlink(path);
	ok(strstr(fd_text(errfd), "appended.tsv: cannot write: File too large"), "... and its failure is named (%d lines)",
	   count_lines(fd_text(errfd)));
	dup2(saved, 2);
}

TEST(good_files_exact)
{
	char path[256];
	FILE *f;

	if (!stderr_to_errfd())
		return;
	snprintf(path, sizeof(path), "%s/good.tsv", dir);
	f = outfile_open(path, "w");
	fprintf(f, "a\t1\n");
	fwrite(big, 1, sizeof(big), f);
	ok(outfile_close(f) == 0, "a good file closes with 0");
	f = outfile_open(path, "a");
	fputs("tail\n", f);
	ok(outfile_close(f) == 0, "append mode closes with 0");
	{
		size_t len = 0;
		char *t = read_text(path, &len);

		ok(t && len == 4 + sizeof(big) + 5 && !strncmp(t, "a\t1\n", 4) && !strcmp(t + len - 5, "tail\n"),
		   "what was written is there in full, appended after (%zu bytes)", len);
		free(t);
	}
	ok(!outfile_failed() && !outfile_first_failure()[0], "no failure recorded for good files");
	unlink(path);
	dup2(saved, 2);
}

/* Lost writes in this process: each counted, the first named, one line
 * said; then nothing left in the temporary directory (the last case). */
TEST(lost_writes_counted_first_named)
{
	char path[256];
	FILE *f;

	if (!stderr_to_errfd())
		return;
	/* Buffered: the loss shows only when stdio flushes at fclose. */
	f = outfile_open("/dev/full", "w");
	fputs("row\n", f);
	ok(outfile_close(f) == -1, "a full disk: the close reports the lost write");
	ok(outfile_failed(), "the process is marked failed");
	ok(!strcmp(outfile_first_failure(), "/dev/full: cannot write: No space left on device"),
	   "the failure names the file and strerror (got '%s')", outfile_first_failure());

	/* Unbuffered-sized writes fail in fwrite already; a plain fclose still reports. */
	f = outfile_open("/dev/full", "w");
	fwrite(big, 1, sizeof(big), f);
	fprintf(f, "more after the failure\n");
	ok(fclose(f) != 0, "a plain fclose of a failed stream returns an error too");

	snprintf(path, sizeof(path), "%s/no/such/dir/x.tsv", dir);
	f = outfile_open(path, "w");
	ok(f != NULL, "a file that cannot be opened still gives a stream");
	fputs("discarded\n", f);
	ok(outfile_close(f) == -1, "... whose close fails");

	snprintf(path, sizeof(path), "%s/no/such/meta.json", dir);
	ok(outfile_write(path, "{}\n", 3) == -1, "an atomic write into a missing directory fails");
	snprintf(path, sizeof(path), "%s/whole.txt", dir);
	ok(outfile_write(path, "whole\n", 6) == 0, "an atomic write that can succeed does");

	/* What another program printed (perf, which exits 0 on a full disk). */
	{
		int cap = outfile_capture("unit-outfile");
		char *t = NULL;

		ok(cap >= 0 && write(cap, "perf said\n", 10) == 10, "a capture takes what is written to it");
		snprintf(path, sizeof(path), "%s/perf.txt", dir);
		ok(outfile_save_capture(cap, path) == 0 && (t = read_text(path, NULL)) && !strcmp(t, "perf said\n"),
		   "... and saves it whole");
		free(t);
		unlink(path);
		cap = outfile_capture("unit-outfile");
		ok(cap >= 0 && write(cap, "perf said\n", 10) == 10 && outfile_save_capture(cap, "/dev/full") == -1,
		   "a capture saved to a full disk fails");
	}

	outfile_failure("/r/x/data/c2c-fields.txt", "cannot read", ENOENT);
	is_int(outfile_nfailures(), 6, "every failure is counted");
	ok(!strcmp(outfile_first_failure(), "/dev/full: cannot write: No space left on device"),
	   "the first failure stays the one reported");
	ok(count_lines(fd_text(errfd)) == 1 && strstr(fd_text(errfd), ": /dev/full: cannot write: No space left"),
	   "one line on stderr for all of them (%d lines)", count_lines(fd_text(errfd)));

	ok(access("/dev/full", F_OK) == 0, "a device that failed its writes is never removed");
	snprintf(path, sizeof(path), "%s/whole.txt", dir);
	unlink(path);
	ok(rmdir(dir) == 0, "nothing else left in the temporary directory (no temp files): %s",
	   strerror(errno));
	dup2(saved, 2);
}

int main(int argc, char **argv)
{
	int rc;

	errfd = memfd_create("unit-outfile-stderr", 0);
	runner = memfd_create("unit-outfile-runner", 0);
	saved = dup(2);
	if (!mkdtemp(dir) || errfd < 0 || runner < 0)
		tap_skip_all("cannot create a temporary directory or memfd");
	memset(big, 'x', sizeof(big));
	rc = tap_main(argc, argv);
	/* Also when a check above failed: the test leaves nothing behind. */
	if (tap_rm_rf(dir))
		tap_diag("rm -rf %s failed", dir);
	return rc;
}
