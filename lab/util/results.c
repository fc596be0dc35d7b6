// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/labcost.h"
#include "util/outfile.h"
#include "util/run.h"
#include "util/results.h"

const char *lab_root_dir(void)
{
	static char root[PATH_MAX];
	char dir[PATH_MAX];
	ssize_t n;

	if (root[0])
		return root;
	if (getenv("MEMCG_LAB_ROOT")) {
		snprintf(root, sizeof(root), "%s", getenv("MEMCG_LAB_ROOT"));
		return root;
	}
	/* Walk up from the binary (bin/memcg-lab, build/tests/x) to the tree
	 * that holds lab/ and the Makefile; the current directory otherwise. */
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	dir[n > 0 ? n : 0] = '\0';
	for (int up = 0; up < 4; up++) {
		char *slash = strrchr(dir, '/');
		char probe[PATH_MAX + 16];

		if (!slash || slash == dir)
			break;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/lab/memcg-lab.c", dir);
		if (path_exists(probe)) {
			snprintf(root, sizeof(root), "%s", dir);
			return root;
		}
	}
	if (!getcwd(root, sizeof(root)))
		snprintf(root, sizeof(root), ".");
	return root;
}

void iso_time_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int json_write_file(const char *path, json_object *obj)
{
	const char *s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	char *buf = xasprintf("%s\n", s);
	int r = write_file_atomic(path, buf, strlen(buf));

	free(buf);
	return r;
}

/* A meta.json that cannot be written stays as it was: "incomplete" until
 * results_finish(), and the failure marks the run (util/outfile.h). */
static void meta_write(struct results *r)
{
	int e = json_write_file(r->meta_path, r->meta);

	if (e < 0)
		outfile_failure(r->meta_path, "cannot write", -e);
}

static json_object *tool_versions(void)
{
	json_object *o = json_object_new_object();
	static const char *const tools[] = { "perf", "pahole", "gnuplot", "cc" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *v = run_first_line((const char *const[]){ tools[i], "--version", NULL });

		json_object_object_add(o, tools[i], json_object_new_string(v[0] ? v : "absent"));
		free(v);
	}
	return o;
}

static void mark_incomplete(void *arg)
{
	struct results *r = arg;

	/* meta.json already says incomplete; leave a line in the log. */
	if (r->log) {
		fputs("run interrupted before it finished: status stays incomplete\n", r->log);
		fflush(r->log);
	}
}

/*
 * reproduce.sh: this run's command line, run by the lab at the revision
 * that ran it.  It clones the lab's repository (sharing its objects; the
 * repository itself is not touched) into a directory of its own, checks
 * out that revision, builds bin/memcg-lab there and runs it from there,
 * the experiment file replaced by the copy this run kept (file_arg >= 1:
 * that argument is "$here/file"), results beside this run's directory.
 * When that cannot be done (the revision is unknown, the tree had
 * uncommitted changes, no git, a repository without the revision) it says
 * so in one line and exits 2.  Every word is quoted for sh.
 */
static void write_reproduce(struct results *r, int argc, char **argv, int file_arg, const char *file)
{
	char *root = shell_quote(lab_root_dir()), *desc = shell_quote(r->lab_described),
	     *commit = shell_quote(r->lab_commit), *cmd = xstrdup(""), *text, *rp;

	for (int i = 1; i < argc; i++) {
		char *q = i == file_arg ? xasprintf("\"$here\"/%s", file) : shell_quote(argv[i]);
		char *n = xasprintf("%s %s", cmd, q);

		free(cmd);
		free(q);
		cmd = n;
	}
	text = xasprintf(
		"#!/bin/sh\n"
		"# Reproduces this run: the lab at the revision that ran it, checked out\n"
		"# and built in a directory of its own, runs the same command line%s.\n"
		"# The new run's results go beside this one's (or to $MEMCG_LAB_RESULTS).\n"
		"set -eu\n"
		"lab=%s\n"
		"commit=%s\n"
		"described=%s\n"
		"here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
		"fail() { echo \"reproduce.sh: $*\" >&2; exit 2; }\n"
		"[ -n \"$commit\" ] || fail \"the lab revision of this run is unknown ($described: git found no "
		"revision in $lab); cannot check out what ran\"\n"
		"case $described in\n"
		"*-dirty) fail \"the run's lab tree had uncommitted changes ($described): revision $commit is not "
		"what ran\" ;;\n"
		"esac\n"
		"command -v git >/dev/null 2>&1 || fail \"git is not installed: cannot check out revision $commit\"\n"
		"git -C \"$lab\" cat-file -e \"$commit^{commit}\" 2>/dev/null || fail \"$lab has no revision $commit "
		"(git fetch it there)\"\n"
		"tmp=$(mktemp -d \"${TMPDIR:-/tmp}/memcg-lab-reproduce.XXXXXX\")\n"
		"trap 'rm -rf \"$tmp\"' EXIT\n"
		"trap 'exit 130' INT TERM HUP\n"
		"git clone -q --shared --no-checkout \"$lab\" \"$tmp/lab\"\n"
		"git -C \"$tmp/lab\" checkout -q --detach \"$commit\"\n"
		"make -C \"$tmp/lab\" -s bin/memcg-lab\n"
		"MEMCG_LAB_RESULTS=${MEMCG_LAB_RESULTS:-$(dirname \"$here\")}\n"
		"export MEMCG_LAB_RESULTS\n"
		"cd \"$tmp/lab\"\n"
		"bin/memcg-lab%s\n",
		file_arg >= 1 ? ",\n# the experiment file being the copy this run kept" : "", root, commit, desc, cmd);
	rp = xasprintf("%s/reproduce.sh", r->dir);
	if (!outfile_write(rp, text, strlen(text)))
		chmod(rp, 0755);
	free(rp);
	free(text);
	free(cmd);
	free(root);
	free(desc);
	free(commit);
}

void results_reproduce_file(struct results *r, int argc, char **argv, int file_arg, const char *file)
{
	write_reproduce(r, argc, argv, file_arg, file);
}

struct results *results_create(const char *name, const char *base, int argc, char **argv)
{
	struct results *r = xcalloc(1, sizeof(*r));
	char stamp[32], when[32], *git, *commit;
	struct utsname u;
	time_t t = time(NULL);
	struct tm tm;
	int e, nthis;
	json_object *cl;

	if (!base)
		base = getenv("MEMCG_LAB_RESULTS");
	if (!base)
		base = xasprintf("%s/results", lab_root_dir());
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	r->dir = xasprintf("%s/%s-%s", base, stamp, name);
	/* Two runs in the same second get distinct directories. */
	for (nthis = 2; path_exists(r->dir); nthis++) {
		free(r->dir);
		r->dir = xasprintf("%s/%s-%s.%d", base, stamp, name, nthis);
	}
	e = mkdir_p(r->dir, 0755);
	if (e < 0)
		die("%s: cannot create results directory: %s", r->dir, strerror(-e));
	for (const char *sub = "data\0plots\0"; *sub; sub += strlen(sub) + 1) {
		char *p = xasprintf("%s/%s", r->dir, sub);

		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			die("%s: cannot create: %s", p, strerror(errno));
		free(p);
	}
	r->meta_path = xasprintf("%s/meta.json", r->dir);
	{
		char *lp = xasprintf("%s/log", r->dir);

		r->log = outfile_open(lp, "a");
		setvbuf(r->log, NULL, _IOLBF, 0);
		free(lp);
	}

	r->meta = json_object_new_object();
	json_object_object_add(r->meta, "name", json_object_new_string(name));
	json_object_object_add(r->meta, "status", json_object_new_string("incomplete"));
	iso_time_now(when, sizeof(when));
	json_object_object_add(r->meta, "start", json_object_new_string(when));
	uname(&u);
	json_object_object_add(r->meta, "host", json_object_new_string(u.nodename));
	json_object_object_add(r->meta, "machine", json_object_new_string(u.machine));
	json_object_object_add(r->meta, "uname", json_object_new_string(u.release));
	cl = json_object_new_array();
	for (int i = 0; i < argc; i++)
		json_object_array_add(cl, json_object_new_string(argv[i]));
	json_object_object_add(r->meta, "command_line", cl);
	git = run_first_line((const char *const[]){ "git", "-C", lab_root_dir(), "describe", "--always", "--dirty",
						    NULL });
	/* git describe prints [0-9a-z-] only, but a line is all a name is. */
	git[strcspn(git, "\r\n")] = '\0';
	commit = git[0] ? run_first_line((const char *const[]){ "git", "-C", lab_root_dir(), "rev-parse", "--verify",
							       "HEAD^{commit}", NULL }) : xstrdup("");
	commit[strcspn(commit, "\r\n")] = '\0';
	if (!git[0] && getenv(RESULTS_ENV_VM_REVISION)) {	/* in a guest: the host's checkout */
		free(git);
		free(commit);
		git = xstrdup(getenv(RESULTS_ENV_VM_REVISION));
		commit = xstrdup(getenv(RESULTS_ENV_VM_COMMIT) ? getenv(RESULTS_ENV_VM_COMMIT) : "");
	}
	snprintf(r->lab_described, sizeof(r->lab_described), "%s", git[0] ? git : "unknown");
	snprintf(r->lab_commit, sizeof(r->lab_commit), "%s", commit);
	json_object_object_add(r->meta, "lab_revision", json_object_new_string(r->lab_described));
	if (commit[0])
		json_object_object_add(r->meta, "lab_commit", json_object_new_string(commit));
	json_object_object_add(r->meta, "tools", tool_versions());
	{
		/* Inside a guest of memcg-lab vm (vm.sh sets these in the guest's
		 * environment): the run knows its accelerator from the start, so
		 * the verdicts it prints as it ends already say what TCG timing
		 * is; the host adds the rest of the "vm" facts when the guest's
		 * results come back. */
		const char *accel = getenv(RESULTS_ENV_VM_ACCEL), *icount = getenv(RESULTS_ENV_VM_ICOUNT);

		if (accel && *accel) {
			json_object *vm = json_object_new_object();

			json_object_object_add(vm, "accel", json_object_new_string(accel));
			if (icount && *icount)
				json_object_object_add(vm, "icount", json_object_new_string(icount));
			json_object_object_add(r->meta, "vm", vm);
		}
	}
	meta_write(r);
	write_reproduce(r, argc, argv, -1, NULL);
	free(git);
	free(commit);
	r->cleanup_handle = cleanup_push(mark_incomplete, r, "results directory");
	results_log(r, "results directory %s created", r->dir);
	/* Nothing is measured yet: a directory that cannot hold its first
	 * files ends the command here, with the one line already printed. */
	if (outfile_failed())
		exit(EXIT_LAB_ERR);
	return r;
}

struct results *results_attach(const char *name, int argc, char **argv)
{
	const char *dir = getenv(RESULTS_ENV_DIR), *step = getenv(RESULTS_ENV_STEP);
	const char *rep = getenv(RESULTS_ENV_REPEAT);
	struct results *r;
	char *lp;

	if (!dir || !dir[0])
		return name ? results_create(name, NULL, argc, argv) : NULL;
	r = xcalloc(1, sizeof(*r));
	r->attached = true;
	r->dir = xstrdup(dir);
	r->meta_path = xasprintf("%s/meta.json", dir);
	r->meta = json_object_from_file(r->meta_path);
	if (!r->meta)
		die("%s: cannot read the runner's meta.json (%s=%s)", r->meta_path, RESULTS_ENV_DIR, dir);
	snprintf(r->step, sizeof(r->step), "%s", step && step[0] ? step : "-");
	r->repeat = rep ? atoi(rep) : 0;
	lp = xasprintf("%s/log", dir);
	r->log = outfile_open(lp, "a");
	setvbuf(r->log, NULL, _IOLBF, 0);
	free(lp);
	r->cleanup_handle = -1;
	return r;
}

void results_meta_set(struct results *r, const char *key, json_object *val)
{
	json_object_object_add(r->meta, key, val);
	meta_write(r);
}

void results_skip(struct results *r, const char *what, const char *why)
{
	json_object *arr, *o = json_object_new_object();

	if (!json_object_object_get_ex(r->meta, "skipped", &arr)) {
		arr = json_object_new_array();
		json_object_object_add(r->meta, "skipped", arr);
	}
	/* Once per reason: repeats of a run skip the same thing the same way. */
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *w, *y;

		if (json_object_object_get_ex(e, "what", &w) && json_object_object_get_ex(e, "why", &y) &&
		    !strcmp(json_object_get_string(w), what) && !strcmp(json_object_get_string(y), why)) {
			json_object_put(o);
			return;
		}
	}
	note("skipping %s: %s", what, why);
	json_object_object_add(o, "what", json_object_new_string(what));
	json_object_object_add(o, "why", json_object_new_string(why));
	json_object_array_add(arr, o);
	meta_write(r);
	results_log(r, "skipped %s: %s", what, why);
}

void results_log(struct results *r, const char *fmt, ...)
{
	char when[32];
	va_list ap;

	if (!r || !r->log)
		return;
	iso_time_now(when, sizeof(when));
	fprintf(r->log, "%s ", when);
	va_start(ap, fmt);
	vfprintf(r->log, fmt, ap);
	va_end(ap);
	fputc('\n', r->log);
}

char *results_path(struct results *r, const char *file)
{
	return xasprintf("%s/%s", r->dir, file);
}

FILE *results_open_data(struct results *r, const char *file)
{
	const char *dot = strrchr(file, '.');
	char *p;

	if (r->attached && strcmp(r->step, "-")) {
		int stem = dot ? (int)(dot - file) : (int)strlen(file);

		p = xasprintf("%s/data/%.*s.%s.r%d%s", r->dir, stem, file, r->step, r->repeat, dot ? dot : "");
	} else if (r->attached) {
		int stem = dot ? (int)(dot - file) : (int)strlen(file);

		p = xasprintf("%s/data/%.*s.r%d%s", r->dir, stem, file, r->repeat, dot ? dot : "");
	} else {
		p = xasprintf("%s/data/%s", r->dir, file);
	}
	FILE *f = outfile_open(p, "w");

	free(p);
	return f;
}

const char *results_final_status(const char *status)
{
	return outfile_failed() ? "incomplete" : status;
}

void results_finish(struct results *r, const char *status)
{
	json_object *cost;
	char when[32];

	status = results_final_status(status);
	cost = labcost_json();
	if (r->attached) {
		/* The runner owns meta.json: this step's cost goes to the log. */
		if (cost)
			results_log(r, "step %s repeat %d cost %s", r->step, r->repeat,
				    json_object_to_json_string_ext(cost, JSON_C_TO_STRING_PLAIN));
		json_object_put(cost);
		results_log(r, "step %s repeat %d %s", r->step, r->repeat, status);
		return;
	}
	if (cost)
		json_object_object_add(r->meta, "cost", cost);
	iso_time_now(when, sizeof(when));
	json_object_object_add(r->meta, "end", json_object_new_string(when));
	if (outfile_failed())
		json_object_object_add(r->meta, "unwritten", json_object_new_string(outfile_first_failure()));
	/* Last, and atomically: a status of "complete" is never on disk
	 * before everything else was written. */
	json_object_object_add(r->meta, "status", json_object_new_string(status));
	meta_write(r);
	results_log(r, "run %s", status);
	cleanup_pop(r->cleanup_handle, false);
}

void results_free(struct results *r)
{
	if (!r)
		return;
	cleanup_pop(r->cleanup_handle, false);
	if (r->log)
		outfile_close(r->log);
	json_object_put(r->meta);
	free(r->dir);
	free(r->meta_path);
	free(r);
}
