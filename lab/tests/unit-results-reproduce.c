// SPDX-License-Identifier: GPL-2.0
/*
 * reproduce.sh (util/results.h) runs the recorded command line with the
 * lab at the revision that ran it, or says in one line why it cannot.  The
 * lab here is a git repository made by the test (MEMCG_LAB_ROOT): its
 * Makefile's bin/memcg-lab prints its arguments, its working directory,
 * the experiment file it was given and $MEMCG_LAB_RESULTS, and which
 * revision it was built from; the revision recorded is an older commit
 * than the repository's HEAD when the script runs.  Cases:
 *   - a clean tree: the old revision is built and run, the experiment file
 *     is the run's own copy, every word (quotes, $(...)) comes back as it
 *     was, results go beside the run, the checkout is gone afterwards;
 *   - a tree with uncommitted changes, a lab that is no git tree, no git
 *     on PATH: one line each, exit 2, nothing run.
 * Each results_create() runs in a child: lab_root_dir() is read once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/results.h"

static char top[] = "/tmp/memcg-lab-unit-reproduce.XXXXXX";
static char repo[300], results[300];

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int sh(const char *cmd)
{
	char *full = xasprintf("cd %s && { %s; } >/dev/null 2>&1", repo, cmd);
	int rc = system(full);

	free(full);
	return rc;
}

/* A child makes a results directory for argv with the lab at root; its
 * path into dir (the run's directory). */
static int make_run(const char *root, char **argv, int argc, int file_arg, char *dir, size_t n)
{
	int pfd[2], st;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct results *r;

		close(pfd[0]);
		setenv("MEMCG_LAB_ROOT", root, 1);
		r = results_create("repro", results, argc, argv);
		if (file_arg > 0) {
			char *copy = xasprintf("%s/experiment.exp", r->dir);

			put_file(copy, "[experiment]\nname = repro # the run's own copy\n");
			results_reproduce_file(r, argc, argv, file_arg, "experiment.exp");
		}
		if (write(pfd[1], r->dir, strlen(r->dir)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	memset(dir, 0, n);
	if (read(pfd[0], dir, n - 1) < 0)
		dir[0] = '\0';
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && !WEXITSTATUS(st) && dir[0] ? 0 : -1;
}

/* Runs dir/reproduce.sh with PATH path (NULL: as is); its output and status. */
static char *run_repro(const char *dir, const char *path, int *status)
{
	char *script = xasprintf("%s/reproduce.sh", dir);
	struct run_result r;
	char *out;
	const char *old = getenv("PATH");
	char *saved = old ? xstrdup(old) : NULL;

	if (path)
		setenv("PATH", path, 1);
	out = run_capture_argv((const char *const[]){ "sh", script, NULL }, RUN_STDERR_MERGE, &r);
	if (saved) {
		setenv("PATH", saved, 1);
		free(saved);
	}
	*status = r.status;
	free(script);
	return out;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The run's command line: quotes, $(...) and backquotes that must reach no shell. */
static char *argv5[] = { "memcg-lab", "run", "experiments/x.exp", "-s",
			 "experiment.description=it's \"$(touch PWNED)\" `touch PWNED2` a b", NULL };
/* Whether main() made the stand-in lab's git repository. */
static bool repo_made;

TEST(stand_in_lab_repository)
{
	ok(repo_made, "a git repository for the stand-in lab");
}

/* A clean tree: the revision recorded is this one. */
TEST(clean_tree_runs_recorded_revision)
{
	char dir[512], want[2048], *out;
	int st;

	ok(!make_run(repo, argv5, 5, 2, dir, sizeof(dir)), "a run's results directory (%s)", dir);
	/* The lab moves on after the run. */
	ok(!sh("echo new > rev && git -c user.name=t -c user.email=t@x commit -qam new"), "a later commit");
	out = run_repro(dir, NULL, &st);
	snprintf(want, sizeof(want), "built=old\n");
	ok(st == 0 && strstr(out, want), "reproduce.sh builds the revision that ran, not HEAD (exit %d)", st);
	snprintf(want, sizeof(want), "arg=run\narg=%s/experiment.exp\narg=-s\narg=%s\n", dir, argv5[4]);
	ok(strstr(out, want) != NULL, "the same words, the experiment file the run kept");
	ok(strstr(out, "name = repro # the run's own copy") != NULL, "... which is the copy, read");
	snprintf(want, sizeof(want), "results=%s\n", results);
	ok(strstr(out, want) != NULL, "results beside the run's directory");
	snprintf(want, sizeof(want), "cwd=%s\n", repo);
	ok(strstr(out, "/memcg-lab-reproduce.") && strstr(out, "/lab\n") && !strstr(out, want),
	   "run from a checkout of its own, not the lab's tree");
	{
		char *p = xasprintf("%s/PWNED", repo), *q = xasprintf("%s/PWNED", dir);

		ok(!path_exists(p) && !path_exists(q) && !path_exists("PWNED"), "no word reached a shell");
		free(p);
		free(q);
	}
	if (st)
		tap_diag("%s", out);
	free(out);
	ok(sh("ls -d ${TMPDIR:-/tmp}/memcg-lab-reproduce.* 2>/dev/null | grep -q .") != 0,
	   "the checkout is removed afterwards");
}

/* Uncommitted changes when the run was made. */
TEST(dirty_tree_refused)
{
	char dir[512], *out;
	int st;

	ok(!sh("echo dirty > rev") && !make_run(repo, argv5, 5, 2, dir, sizeof(dir)), "a run from a dirty tree");
	out = run_repro(dir, NULL, &st);
	ok(st == 2 && count_lines(out) == 1 &&
	   strstr(out, "reproduce.sh: the run's lab tree had uncommitted changes (") &&
	   strstr(out, "-dirty): revision ") && !strstr(out, "built="),
	   "dirty: one line, exit 2, nothing built: %s", out);
	free(out);
	sh("git checkout -q rev");
}

/* A lab that is no git tree. */
TEST(lab_without_git_tree_refused)
{
	char dir[512], *out, *nogit = xasprintf("%s/nogit", top);
	int st;

	mkdir(nogit, 0755);
	ok(!make_run(nogit, argv5, 5, 2, dir, sizeof(dir)), "a run of a lab that is no git tree");
	out = run_repro(dir, NULL, &st);
	ok(st == 2 && count_lines(out) == 1 &&
	   strstr(out, "reproduce.sh: the lab revision of this run is unknown (unknown: git found no revision in "),
	   "revision unknown: one line, exit 2: %s", out);
	free(out);
	free(nogit);
}

/* No git where it is run. */
TEST(no_git_on_path_refused)
{
	char dir[512], *out, *bin = xasprintf("%s/bin", top), *cmd;
	int st;

	mkdir(bin, 0755);
	cmd = xasprintf("for t in sh dirname mktemp rm; do ln -s \"$(command -v $t)\" %s/$t; done", bin);
	sh(cmd);
	ok(!make_run(repo, argv5, 5, 2, dir, sizeof(dir)), "a run from a clean tree");
	out = run_repro(dir, bin, &st);
	ok(st == 2 && count_lines(out) == 1 && strstr(out, "reproduce.sh: git is not installed: cannot check "
						      "out revision "), "no git: one line, exit 2: %s", out);
	free(out);
	free(cmd);
	free(bin);
}

int main(int argc, char **argv)
{
	int rc;

	if (!program_on_path("git") || !program_on_path("make"))
		tap_skip_all("needs git and make");
	if (!mkdtemp(top))
		tap_skip_all("mkdtemp failed");
	snprintf(repo, sizeof(repo), "%s/lab", top);
	snprintf(results, sizeof(results), "%s/results", top);
	mkdir(repo, 0755);
	mkdir(results, 0755);
	/* The stand-in lab: make bin/memcg-lab writes a script that says what
	 * it was run with, and from which revision it was built. */
	{
		char *mk = xasprintf("%s/Makefile", repo), *rev = xasprintf("%s/rev", repo);

		put_file(mk, "bin/memcg-lab:\n"
			   "\tmkdir -p bin\n"
			   "\tprintf '#!/bin/sh\\necho built=%s\\necho cwd=$$PWD\\necho results=$$MEMCG_LAB_RESULTS\\n"
			   "for a in \"$$@\"; do echo \"arg=$$a\"; done\\ncat \"$$2\"\\n' "
			   "\"$$(cat rev)\" > $@\n"
			   "\tchmod +x $@\n");
		put_file(rev, "old\n");
		free(mk);
		free(rev);
	}
	repo_made = !sh("git init -q && git -c user.name=t -c user.email=t@x add Makefile rev && "
			"git -c user.name=t -c user.email=t@x commit -qm old");
	rc = tap_main(argc, argv);
	tap_rm_rf(top);
	return rc;
}
