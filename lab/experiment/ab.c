// SPDX-License-Identifier: GPL-2.0
/* `memcg-lab ab`: a patch's A/B, from the patch to the verdict (experiment/ab.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "experiment/ab.h"
#include "kernel/kpatch.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/run.h"

#define AB_STAGES 6

static const struct ab_base {
	const char *name, *flavour;
	const char *patches;	/* the base's own patches (a directory of the lab's), NULL: none */
	const char *what;
} ab_bases[] = {
	{ "lab", "7.3", "kernel-patches/7.3", "the lab kernel (Debian's linux-source-7.3 with the user-flush mutex)" },
	{ "7.3", "7.3", NULL, "Debian's linux-source-7.3 as it is" },
	{ "6.1", "6.1", NULL, "Debian's linux-source-6.1 as it is" },
};

const char *ab_base_names(void)
{
	return "lab, 7.3, 6.1";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ab {
	const struct ab_opts *o;
	const struct ab_base *base;
	struct kpatch_set set;
	struct results *r;
	char *dir;			/* the results directory */
	json_object *stages;		/* [{stage, seconds, what}] in meta.json */
	int stage;
	double t0;
	char *vmlinux[2];		/* A's and B's */
	char *label[2];
	bool patched[2];		/* which side has the patch */
	char *script;			/* lab/scripts/lab-kernel.sh of this lab */
};

static void stage_begin(struct ab *a, const char *what)
{
	a->stage++;
	a->t0 = now_s();
	fprintf(stderr, "ab: [%d/%d] %s ...\n", a->stage, AB_STAGES, what);
	results_log(a->r, "ab: stage %d/%d: %s", a->stage, AB_STAGES, what);
}

static void stage_end(struct ab *a, const char *what)
{
	double s = now_s() - a->t0;
	json_object *e = json_object_new_object();

	fprintf(stderr, "ab: [%d/%d] %s (%.1f s)\n", a->stage, AB_STAGES, what, s);
	results_log(a->r, "ab: stage %d/%d done in %.1f s: %s", a->stage, AB_STAGES, s, what);
	json_object_object_add(e, "stage", json_object_new_int(a->stage));
	json_object_object_add(e, "seconds", json_object_new_double(s));
	json_object_object_add(e, "what", json_object_new_string(what));
	json_object_array_add(a->stages, e);
	results_meta_set(a->r, "ab_stages", json_object_get(a->stages));
}

/* A stage that failed: one line, the results stay incomplete. */
static void __attribute__((noreturn)) stage_fail(struct ab *a, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	results_log(a->r, "ab: stage %d/%d failed: %s", a->stage, AB_STAGES, msg);
	die("ab: %s (%s stays incomplete)", msg, a->dir);
}

/*
 * Runs argv (self: this binary) with env ("K=V", NULL-ended) and its
 * output appended to log; a stop of the lab is passed on to it once, and
 * waited for.  Its exit status (128+N: signal N).
 */
static int run_logged(char *const *argv, bool self, const char *const *env, const char *log, const char *errlog)
{
	pid_t parent = getpid(), pid = fork();
	int st;

	if (pid < 0)
		die("ab: fork: %s", strerror(errno));
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		int efd = errlog ? open(errlog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : fd;

		if (worker_detach_from_parent(parent) < 0)
			_exit(EXIT_LAB_ERR);
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		if (fd >= 0)
			dup2(fd, 1);
		if (efd >= 0)
			dup2(efd, 2);
		if (self)
			execv("/proc/self/exe", argv);
		else
			execvp(argv[0], argv);
		fprintf(stderr, "memcg-lab: ab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	cleanup_forward_to(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("ab: waitpid: %s", strerror(errno));
	cleanup_forward_to(0, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void stop_if_asked(struct ab *a)
{
	if (lab_stop_requested())
		stage_fail(a, "stopped by signal %d in stage %d", lab_stop_signal(), a->stage);
}

/* The first (or, last, the last) line of log that holds needle (NULL:
 * any line), for a failure or a stage's summary; "" when none. */
static void log_line(const char *log, const char *needle, bool last, char *out, size_t n)
{
	char *text = read_text(log, NULL), line[512];
	const char *pos = text;

	out[0] = '\0';
	while (pos && text_next_line(&pos, line, sizeof(line)))
		if (line[0] && (!needle || strstr(line, needle))) {
			snprintf(out, n, "%.511s", line);
			if (!last)
				break;
		}
	free(text);
}

/* vm's own error in its log: its last "memcg-lab" line that is not where
 * the results went ("memcg-lab: vm: results in ...", said on every exit). */
static void vm_error_line(const char *log, char *out, size_t n)
{
	char *text = read_text(log, NULL), line[512];
	const char *pos = text;

	out[0] = '\0';
	while (pos && text_next_line(&pos, line, sizeof(line)))
		if (strstr(line, "memcg-lab") && !strstr(line, "memcg-lab: vm: results in ") &&
		    !strstr(line, "memcg-lab: vm: the guest's results: "))
			snprintf(out, n, "%.511s", line);
	free(text);
	/* "...; its last lines:" introduces lines the log holds, not this one */
	if (strlen(out) > strlen("; its last lines:") &&
	    !strcmp(out + strlen(out) - strlen("; its last lines:"), "; its last lines:"))
		out[strlen(out) - strlen("; its last lines:")] = '\0';
}

/* A side's patch directory for lab-kernel.sh: the base's patches, then
 * (patched) the set's, numbered in that order; NULL: no patch at all. */
static char *side_patches(struct ab *a, int side)
{
	char *dir = xasprintf("%s/patches/%c", a->dir, 'A' + side);
	int n = 0;
	struct kpatch_set base = { 0 };
	char err[512];

	if (a->base->patches) {
		char *p = xasprintf("%s/lab/%s", lab_root_dir(), a->base->patches);

		if (kpatch_set_read(&base, p, err, sizeof(err)) < 0)
			stage_fail(a, "the base's patches: %s", err);
		free(p);
	}
	if (!base.n && !a->patched[side]) {
		free(dir);
		return NULL;
	}
	if (mkdir_p(dir, 0755) < 0)
		stage_fail(a, "%s: cannot create: %s", dir, strerror(errno));
	for (int pass = 0; pass < 2; pass++) {
		const struct kpatch_set *s = pass ? &a->set : &base;

		if (pass && !a->patched[side])
			break;
		for (int i = 0; i < s->n; i++) {
			const char *b = strrchr(s->files[i], '/');
			char *to = xasprintf("%s/ab%02d-%s", dir, ++n, b ? b + 1 : s->files[i]);
			size_t len;
			char *text = read_text(s->files[i], &len);
			FILE *f;

			if (!text)
				stage_fail(a, "%s: cannot read: %s", s->files[i], strerror(errno));
			/* lab-kernel.sh takes *.patch */
			if (strlen(to) < 6 || strcmp(to + strlen(to) - 6, ".patch")) {
				char *t = xasprintf("%s.patch", to);

				free(to);
				to = t;
			}
			f = outfile_open(to, "w");
			fwrite(text, 1, len, f);
			if (outfile_close(f))
				stage_fail(a, "%s: cannot write: %s", to, strerror(errno));
			free(text);
			free(to);
		}
	}
	kpatch_set_free(&base);
	return dir;
}

static void lab_kernel_env(struct ab *a, const char *patches, char *env[3])
{
	env[0] = xasprintf("LAB_KERNEL=%s", a->base->flavour);
	env[1] = xasprintf("LAB_KERNEL_PATCHES=%s", patches ? patches : "none");
	env[2] = NULL;
}

static void free_env(char *env[3])
{
	free(env[0]);
	free(env[1]);
}

/* Stage 1: the set applies to the base's tree (the base's own patches on it). */
static void stage_patch(struct ab *a)
{
	char *base_dir = side_patches(a, a->patched[0] ? 1 : 0), *env[3], *log = xasprintf("%s/patch.log", a->dir);
	char *argv[] = { a->script, "--apply", NULL }, line[600], err[700], what[800];
	int st;

	stage_begin(a, "patch: does it apply to the base?");
	lab_kernel_env(a, base_dir, env);
	st = run_logged(argv, false, (const char *const *)env, log, NULL);
	free_env(env);
	stop_if_asked(a);
	if (st) {
		log_line(log, "lab-kernel: ", true, line, sizeof(line));
		stage_fail(a, "the base (%s) could not be prepared: %s", a->base->name, line);
	}
	log_line(log, NULL, true, line, sizeof(line));	/* the tree, lab-kernel.sh --apply's last line */
	if (kpatch_check(&a->set, line, err, sizeof(err)) < 0)
		stage_fail(a, "%s", err);
	snprintf(what, sizeof(what), "patch: %d file%s appl%s to the base %s", a->set.n, a->set.n == 1 ? "" : "s",
		 a->set.n == 1 ? "ies" : "y", a->base->name);
	stage_end(a, what);
	free(base_dir);
	free(log);
}

/* Stage 2 or 3: one side's kernel, built or found in the cache. */
static void stage_build(struct ab *a, int side)
{
	char *patches = side_patches(a, side), *env[3], *log = xasprintf("%s/build-%c.log", a->dir, 'A' + side);
	char *argv[] = { a->script, NULL }, *pargv[] = { a->script, "--print", NULL };
	char line[600], what[800], title[200];
	struct run_result r;
	int st;

	snprintf(title, sizeof(title), "build %c: %s%s", 'A' + side, a->base->name,
		 a->patched[side] ? " + the patch" : "");
	stage_begin(a, title);
	lab_kernel_env(a, patches, env);
	st = run_logged(argv, false, (const char *const *)env, log, NULL);
	stop_if_asked(a);
	if (st) {
		log_line(log, "error:", false, line, sizeof(line));
		if (!line[0])
			log_line(log, "lab-kernel: ", true, line, sizeof(line));
		free_env(env);
		stage_fail(a, "%c (%s%s) does not build: %s (the build's log: %s)", 'A' + side, a->base->name,
			   a->patched[side] ? " + the patch" : "", line, log);
	}
	{
		/* The vmlinux of this side: lab-kernel.sh --print with its env. */
		char *out;

		for (int i = 0; env[i]; i++)
			putenv(env[i]);
		out = run_capture_argv((const char *const *)pargv, RUN_STDERR_DISCARD, &r);
		unsetenv("LAB_KERNEL_PATCHES");
		unsetenv("LAB_KERNEL");
		out[strcspn(out, "\n")] = '\0';
		if (r.status || !out[0])
			stage_fail(a, "%c was built but lab-kernel.sh --print finds no vmlinux", 'A' + side);
		a->vmlinux[side] = out;
	}
	free_env(env);
	log_line(log, "lab-kernel: ", true, line, sizeof(line));
	snprintf(what, sizeof(what), "build %c: %s", 'A' + side, line[0] ? line + strlen("lab-kernel: ") : "done");
	stage_end(a, what);
	free(patches);
	free(log);
}

/* The one directory vm made in staging (results/<date>-vm-...). */
static char *only_dir(const char *staging)
{
	DIR *d = opendir(staging);
	struct dirent *e;
	char *found = NULL;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && e->d_type == DT_DIR) {
			free(found);
			found = xasprintf("%s/%s", staging, e->d_name);
			n++;
		}
	if (d)
		closedir(d);
	if (n != 1) {
		free(found);
		return NULL;
	}
	return found;
}

/* Stage 4 or 5: one side in a guest. */
static int stage_run(struct ab *a, int side)
{
	int n = 0, st, max = 16 + a->o->nvm + a->o->ncommand + 2 * a->o->nsets;
	char **argv = xcalloc(max, sizeof(*argv));
	char *staging = xasprintf("%s/.%c.staging", a->dir, 'A' + side), *env[2];
	char *log = xasprintf("%s/vm-%c.log", a->dir, 'A' + side), *to = xasprintf("%s/%c", a->dir, 'A' + side);
	char line[600], what[800], title[200], *made;

	snprintf(title, sizeof(title), "run %c: %s%s in a guest", 'A' + side, a->base->name,
		 a->patched[side] ? " + the patch" : "");
	stage_begin(a, title);
	if (mkdir_p(staging, 0755) < 0)
		stage_fail(a, "%s: cannot create: %s", staging, strerror(errno));
	argv[n++] = "memcg-lab";
	argv[n++] = "vm";
	argv[n++] = "--kernel";
	argv[n++] = a->vmlinux[side];
	if (a->o->lines || a->o->trace)
		argv[n++] = "--lines";
	if (a->o->trace)
		argv[n++] = "--trace";
	for (int i = 0; i < a->o->nvm; i++)
		argv[n++] = a->o->vm_args[i];
	argv[n++] = "--";
	for (int i = 0; i < a->o->ncommand; i++)
		argv[n++] = a->o->command[i];
	for (int i = 0; i < a->o->nsets; i++) {
		argv[n++] = "-s";
		argv[n++] = a->o->sets[i];
	}
	env[0] = xasprintf("MEMCG_LAB_RESULTS=%s", staging);
	env[1] = NULL;
	st = run_logged(argv, true, (const char *const *)env, log, NULL);
	free(env[0]);
	stop_if_asked(a);
	made = only_dir(staging);
	if (!made)
		stage_fail(a, "the guest of %c left no results (vm exit %d): %s", 'A' + side, st,
			   (vm_error_line(log, line, sizeof(line)), line));
	if (rename(made, to) < 0)
		stage_fail(a, "%s: cannot rename to %s: %s", made, to, strerror(errno));
	rmdir(staging);
	if (st == EXIT_LAB_ERR) {
		vm_error_line(log, line, sizeof(line));
		stage_fail(a, "the guest of %c could not run the command: %s (see %s)", 'A' + side, line, log);
	}
	snprintf(what, sizeof(what), "run %c: exit %d, %s", 'A' + side, st, to);
	stage_end(a, what);
	free(made);
	free(staging);
	free(log);
	free(to);
	free(argv);
	return st;
}

/* The experiment's results directory inside a side's vm directory. */
static char *run_dir(const char *vmdir)
{
	char *res = xasprintf("%s/results", vmdir), *d = only_dir(res);

	free(res);
	return d;
}

/* Stage 6: compare and the mail text. */
static void stage_judge(struct ab *a)
{
	char *ra = run_dir(xasprintf("%s/A", a->dir)), *rb = run_dir(xasprintf("%s/B", a->dir));
	char *la = xasprintf("A=%s", a->label[0]), *lb = xasprintf("B=%s", a->label[1]);
	char *cmp = xasprintf("%s/compare.txt", a->dir), *mail = xasprintf("%s/mail.txt", a->dir);
	char *text, what[800];
	int st;

	stage_begin(a, "judge: compare and the mail text");
	if (!ra || !rb)
		stage_fail(a, "a guest run left no results directory of its command (A %s, B %s): nothing to compare",
			   ra ? "has one" : "none", rb ? "has one" : "none");
	{
		char *argv[] = { "memcg-lab", "compare", "--label", la, "--label", lb, ra, rb, NULL };

		st = run_logged(argv, true, NULL, cmp, NULL);
		stop_if_asked(a);
		if (st)
			stage_fail(a, "compare failed (exit %d): see %s", st, cmp);
	}
	{
		char *plots = xasprintf("%s/plots", a->dir);
		char *argv[] = { "memcg-lab", "report", "--mail", "--label", la, "--label", lb, "--plots", plots, ra, rb,
				 NULL };

		char *err = xasprintf("%s/mail.err", a->dir);

		/* the mail's text alone in mail.txt; what report says to its user
		 * (where the plots went, a skipped plot) in mail.err */
		st = run_logged(argv, true, NULL, mail, err);
		free(plots);
		stop_if_asked(a);
		if (st)
			stage_fail(a, "report --mail failed (exit %d): see %s", st, err);
		free(err);
	}
	text = read_text(cmp, NULL);
	if (text)
		fputs(text, stdout);
	free(text);
	text = read_text(mail, NULL);
	if (text)
		printf("\n%s", text);
	free(text);
	snprintf(what, sizeof(what), "judge: %s, %s", cmp, mail);
	stage_end(a, what);
	free(ra);
	free(rb);
	free(la);
	free(lb);
	free(cmp);
	free(mail);
}

int ab_run(const struct ab_opts *o, int argc, char **argv)
{
	struct ab a = { .o = o };
	char err[512], *name;
	json_object *m;
	int st[2];

	for (size_t i = 0; i < sizeof(ab_bases) / sizeof(ab_bases[0]); i++)
		if (!strcmp(ab_bases[i].name, o->base ? o->base : "lab"))
			a.base = &ab_bases[i];
	if (!a.base)
		die("ab: --base %s: not a base the lab knows (%s)", o->base, ab_base_names());
	if (kpatch_set_read(&a.set, o->patch, err, sizeof(err)) < 0)
		die("ab: %s", err);
	if (!o->ncommand)
		die("ab: give the command each guest runs after --, e.g. -- run experiments/lines-charge.exp");
	if (o->nsets && strcmp(o->command[0], "run"))
		die("ab: -s %s: -s sets an experiment's entries, for `-- run FILE` only", o->sets[0]);
	/* A stop is passed on to the stage's child (run_logged) and waited
	 * for: lab-kernel.sh stops its build, vm its guest; then
	 * stop_if_asked ends the run.  Dying at once would SIGKILL the child
	 * (its parent-death signal) before it stopped what it runs. */
	cleanup_set_polling(true);
	a.script = xasprintf("%s/lab/scripts/lab-kernel.sh", lab_root_dir());
	if (access(a.script, X_OK))
		die("ab: %s: %s", a.script, strerror(errno));
	a.patched[0] = o->reverse;
	a.patched[1] = !o->reverse;
	a.label[o->reverse ? 1 : 0] = xasprintf("base");
	a.label[o->reverse ? 0 : 1] = xstrdup(a.set.subject[0] ? a.set.subject : a.set.name);
	name = xasprintf("ab-%s", a.set.name);
	a.r = results_create(name, NULL, argc, argv);
	a.dir = a.r->dir;
	a.stages = json_object_new_array();
	m = json_object_new_object();
	json_object_object_add(m, "patch", json_object_new_string(o->patch));
	json_object_object_add(m, "subject", json_object_new_string(a.set.subject));
	json_object_object_add(m, "base", json_object_new_string(a.base->name));
	json_object_object_add(m, "base_is", json_object_new_string(a.base->what));
	json_object_object_add(m, "reverse", json_object_new_boolean(o->reverse));
	json_object_object_add(m, "label_A", json_object_new_string(a.label[0]));
	json_object_object_add(m, "label_B", json_object_new_string(a.label[1]));
	results_meta_set(a.r, "ab", m);
	fprintf(stderr, "ab: %s: A = %s, B = %s; results in %s\n", a.set.subject[0] ? a.set.subject : o->patch,
		a.label[0], a.label[1], a.dir);

	stage_patch(&a);
	/* One object tree serves both sides (lab-kernel.sh): the second
	 * build compiles only what the patch touches. */
	stage_build(&a, 0);
	stage_build(&a, 1);
	st[0] = stage_run(&a, 0);
	st[1] = stage_run(&a, 1);
	stage_judge(&a);
	results_finish(a.r, "complete");
	results_free(a.r);
	kpatch_set_free(&a.set);
	free(a.vmlinux[0]);
	free(a.vmlinux[1]);
	free(a.label[0]);
	free(a.label[1]);
	free(name);
	free(a.script);
	json_object_put(a.stages);
	return st[0] ? st[0] : st[1];
}
