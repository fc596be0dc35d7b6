// SPDX-License-Identifier: GPL-2.0
/*
 * A lab command inside a real kernel under qemu (experiment/guest.h).
 *
 * This machine (and many CI hosts) has one kernel, often without cgroup v2
 * memory, kprobes or the kernel a user asks about.  The guest boots Debian's
 * kernels (or the lab's own, `make lab-kernel`) from an initramfs holding
 * this very binary, runs the command there on cgroup v2, and brings its
 * output and results directories back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "plot/index.h"
#include "report/report.h"
#include "c2c/lines_out.h"
#include "experiment/guest.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/fileio.h"
#include "util/owned.h"
#include "util/results.h"
#include "util/untar.h"

static const char *json_str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* vm.env lines ("key=value") into meta.json's "vm" object. */
static json_object *vm_env_json(const char *path)
{
	json_object *o = json_object_new_object();
	char *text = read_text(path, NULL), *save = NULL;

	if (!text)
		return o;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		char *end;
		long long v;

		if (!eq)
			continue;
		*eq = '\0';
		v = strtoll(eq + 1, &end, 10);
		if (eq[1] && !*end && strcmp(line, "kernel_spec"))
			json_object_object_add(o, line, json_object_new_int64(v));
		else if (!strcmp(line, "qemu_seconds") || !strncmp(line, "guest_uptime", 12))
			json_object_object_add(o, line, json_object_new_double(strtod(eq + 1, NULL)));
		else
			json_object_object_add(o, line, json_object_new_string(eq + 1));
	}
	free(text);
	return o;
}

/* Runs the engine; with out != NULL its stdout (one line) lands there. */
static int run_script(char **argv, char *out, size_t outlen)
{
	int fds[2] = { -1, -1 }, st;
	pid_t pid, parent = getpid();

	if (out && pipe2(fds, O_CLOEXEC) < 0)
		die("vm: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("vm: fork: %s", strerror(errno));
	if (pid == 0) {
		/* A SIGKILLed lab stops the script too (its trap stops qemu
		 * and removes its temporary directory). */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(EXIT_LAB_ERR);
		if (out)
			dup2(fds[1], STDOUT_FILENO);
		execv(argv[0], argv);
		fprintf(stderr, "%s: vm: cannot run %s: %s\n", lab_progname, argv[0], strerror(errno));
		_exit(EXIT_LAB_ERR);
	}
	if (out) {
		size_t n = 0;
		ssize_t r;

		close(fds[1]);
		while (n + 1 < outlen && ((r = read(fds[0], out + n, outlen - n - 1)) > 0 ||
					  (r < 0 && errno == EINTR)))
			n += r > 0 ? (size_t)r : 0;
		out[n] = '\0';
		out[strcspn(out, "\n")] = '\0';
		close(fds[0]);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("vm: waitpid: %s", strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	bool found = false;

	if (!path)
		return false;
	copy = xstrdup(path);
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", d, prog);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

/*
 * Marks a guest's results directory as made inside qemu: its meta.json gets
 * the "vm" facts (accelerator, kernel package, vCPUs and, under TCG, the
 * warning that throughput means nothing), so that compare and report of
 * that directory alone can tell.
 */
static void guest_results_mark(const char *meta_path, json_object *vm)
{
	json_object *meta = json_object_from_file(meta_path), *mark;
	static const char *const keys[] = { "accel", "kernel_spec", "kernel_package", "cpus", "nodes", "sockets",
					     "threads_per_core", "mem_mb", "icount", "kmod", "note" };

	if (!meta) {
		warnx_lab("vm: %s: not JSON, left as it came back", meta_path);
		return;
	}
	mark = json_object_new_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *v;

		if (json_object_object_get_ex(vm, keys[i], &v))
			json_object_object_add(mark, keys[i], json_object_get(v));
	}
	json_object_object_add(meta, "vm", mark);
	if (json_write_file(meta_path, meta) < 0)
		warnx_lab("vm: %s: cannot rewrite", meta_path);
	json_object_put(meta);
}

/* Names the guest's own results directories (what compare and report take)
 * and marks each as made inside qemu. */
static void guest_results_note(const char *dir, json_object *vm)
{
	char *sub = xasprintf("%s/results", dir);
	struct dirent **names;
	int n = scandir(sub, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char *meta = xasprintf("%s/%s/meta.json", sub, names[i]->d_name);

		if (names[i]->d_name[0] != '.' && path_exists(meta)) {
			char *guest = xasprintf("%s/%s", sub, names[i]->d_name);

			guest_results_mark(meta, vm);
			/* The report.txt, verdicts.tsv and plots/index.html written in
			 * the guest did not know it ran under TCG. */
			report_rewrite(guest);
			{
				char *plots = xasprintf("%s/plots", guest), *idx = xasprintf("%s/" PLOT_INDEX_TXT, plots);
				const char *one[] = { guest };

				if (path_exists(idx))
					plot_index_html(plots, one, 1);
				free(idx);
				free(plots);
			}
			free(guest);
			note("vm: the guest's results: %s/%s", sub, names[i]->d_name);
		}
		free(meta);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	free(sub);
}

static bool passed(const struct guest_config *c, const char *option)
{
	for (int i = 0; i < c->npass; i++)
		if (!strcmp(c->pass[i], option))
			return true;
	return false;
}

/*
 * What the guest sent back (dir/payload.tgz, its checksum checked by
 * vm.sh) into dir: every member checked before any is extracted
 * (util/untar.h: one line per refusal, and then nothing is); then the
 * facts of guest.txt into vm.env and, unless --console showed the
 * console, output.txt on stdout.  0 (also when vm.sh got no payload), or
 * -1 when the payload was refused.
 */
static int guest_unpack(const struct guest_config *c, const char *dir)
{
	char *tgz = xasprintf("%s/payload.tgz", dir), *what, *path, *text;
	int n;

	if (!path_exists(tgz)) {
		free(tgz);
		return 0;
	}
	what = xasprintf("%s: vm: %s", lab_progname, tgz);
	n = untar_safe(tgz, what, dir, stderr);
	free(what);
	if (n) {
		/* Kept as it came: the evidence. */
		free(tgz);
		return -1;
	}
	unlink(tgz);
	free(tgz);

	path = xasprintf("%s/guest.txt", dir);
	text = read_text(path, NULL);
	free(path);
	if (text) {
		static const char *const keys[] = { "kernel", "uptime_at_start", "uptime_at_end", "var_tmp" };
		char *env = xasprintf("%s/vm.env", dir), *save = NULL;
		FILE *f = fopen(env, "a");

		for (char *line = strtok_r(text, "\n", &save); f && line; line = strtok_r(NULL, "\n", &save))
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				size_t len = strlen(keys[i]);

				if (strncmp(line, keys[i], len) || strncmp(line + len, ": ", 2))
					continue;
				fprintf(f, "guest_%s=%s\n", keys[i], line + len + 2);
				if (!strcmp(keys[i], "var_tmp") && !strncmp(line + len + 2, "none: ", 6))
					note("the guest's /var/tmp was not on a disk (%s): experiments with file "
					     "allocators refuse there", line + len + 8);
			}
		if (f)
			fclose(f);
		free(env);
		free(text);
	}
	if (!passed(c, "--console")) {
		path = xasprintf("%s/output.txt", dir);
		text = read_text(path, NULL);
		if (text)
			fputs(text, stdout);
		fflush(stdout);
		free(text);
		free(path);
	}
	return 0;
}

/*
 * --lines: the plugin's file (vm.sh had it written beside the payload's
 * lines/) moved into lines/, which the guest's lab may have sent; never
 * over a file the guest sent, never through a link.  0, or -1 with err.
 */
static int lines_move_in(const char *dir, char *err, size_t errlen)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), lfd = -1, rc = -1;

	if (dfd < 0)
		return set_err(err, errlen, "%s: %s", dir, strerror(errno));
	if (faccessat(dfd, "plugin-lines.tsv", F_OK, AT_SYMLINK_NOFOLLOW)) {
		set_err(err, errlen, "%s/lines/lines.tsv: the lines plugin wrote nothing (qemu did not run it to its end: "
			"see qemu.log)", dir);
		goto out;
	}
	if (mkdirat(dfd, "lines", 0755) && errno != EEXIST) {
		set_err(err, errlen, "%s/lines: %s", dir, strerror(errno));
		goto out;
	}
	lfd = openat(dfd, "lines", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lfd < 0 || renameat2(dfd, "plugin-lines.tsv", lfd, "lines.tsv", RENAME_NOREPLACE)) {
		set_err(err, errlen, "%s/lines/lines.tsv: %s%s", dir, strerror(errno),
			errno == EEXIST ? " (the guest sent one: refused)" : "");
		goto out;
	}
	/* The access trace (--trace), as lines.tsv. */
	if (!faccessat(dfd, "plugin-lines.tsv.trace", F_OK, AT_SYMLINK_NOFOLLOW) &&
	    renameat2(dfd, "plugin-lines.tsv.trace", lfd, "trace.bin", RENAME_NOREPLACE)) {
		set_err(err, errlen, "%s/lines/trace.bin: %s%s", dir, strerror(errno),
			errno == EEXIST ? " (the guest sent one: refused)" : "");
		goto out;
	}
	/* The kernel's BTF vm.sh took from the vmlinux it booted; a guest
	 * that sent its own (a vmlinux without .BTF) is the one kept. */
	if (!faccessat(dfd, "plugin-vmlinux.btf", F_OK, AT_SYMLINK_NOFOLLOW) &&
	    renameat2(dfd, "plugin-vmlinux.btf", lfd, "vmlinux.btf", RENAME_NOREPLACE)) {
		if (errno != EEXIST) {
			set_err(err, errlen, "%s/lines/vmlinux.btf: %s", dir, strerror(errno));
			goto out;
		}
		unlinkat(dfd, "plugin-vmlinux.btf", 0);
	}
	rc = 0;
out:
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	return rc;
}

/* A results-directory name part from the kernel spec ("lab", "6.12", a file's basename). */
static char *spec_name(const char *spec)
{
	const char *base = strrchr(spec, '/') ? strrchr(spec, '/') + 1 : spec;
	char *s = xasprintf("vm-%s", base);

	for (char *p = s; *p; p++)
		if (!(*p == '.' || *p == '-' || *p == '_' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			*p = '_';
	return s;
}

/*
 * Checks a shape before anything starts, each fault in one line: qemu
 * would refuse some (cores that do not divide), and accept others that
 * make a machine no box has (a node straddling two packages).
 */
void guest_shape_check(struct guest_shape *g)
{
	int per_node;

	/* No shape asked for: plain -smp N, qemu's own layout (as before). */
	if (!g->sockets && g->nodes)
		g->sockets = g->nodes;
	if (!g->sockets && g->threads > 1)
		g->sockets = 1;
	if (g->nodes && (g->nodes > g->cpus || g->cpus % g->nodes))
		die("vm: --cpus %d does not split into %d NUMA nodes of equal size", g->cpus, g->nodes);
	if (g->sockets && g->cpus % (g->sockets * g->threads))
		die("vm: --cpus %d does not split into %d socket(s) of cores with %d threads each",
		    g->cpus, g->sockets, g->threads);
	if (!g->nodes)
		return;
	per_node = g->cpus / g->nodes;
	if (per_node % g->threads)
		die("vm: a node of %d vCPUs does not hold whole cores of %d threads", per_node, g->threads);
	if (g->nodes % g->sockets && g->sockets % g->nodes)
		die("vm: %d NUMA nodes do not fit %d sockets (a node holds part of one socket or whole sockets)",
		    g->nodes, g->sockets);
	if (g->mem / g->nodes < 64)
		die("vm: --mem %d MiB gives each of %d nodes less than 64 MiB", g->mem, g->nodes);
}

void guest_pass_on(struct guest_config *c, const char *option, const char *value)
{
	c->pass = xrealloc(c->pass, (c->npass + 2) * sizeof(*c->pass));
	c->pass[c->npass++] = xasprintf("--%s", option);
	if (value)
		c->pass[c->npass++] = xstrdup(value);
}

void guest_config_free(struct guest_config *c)
{
	for (int i = 0; i < c->npass; i++)
		free(c->pass[i]);
	free(c->pass);
	free(c->engine);
}

char *guest_engine(void)
{
	char *script = xasprintf("%s/lab/scripts/vm.sh", lab_root_dir());

	if (access(script, X_OK))
		die("vm: %s: %s (the vm engine ships with the lab's source tree)", script, strerror(errno));
	if (setenv("MEMCG_LAB_VM_LINES", VM_KERNEL_LINES, 1))
		die("vm: setenv: %s", strerror(errno));
	return script;
}

int guest_list(const struct guest_config *c)
{
	char *largv[] = { c->engine, "list", NULL };

	fflush(NULL);
	return run_script(largv, NULL, 0);
}

/* The script's command line for the run itself, from the config. */
static char **run_argv(const struct guest_config *c, const char *out, const char *tmp, const char *self,
		       const char *kdir, const char *kmod, char num[6][16])
{
	const struct guest_shape *g = &c->shape;
	char **sargv = xcalloc(c->npass + c->ncommand + 40, sizeof(char *));
	int sargc = 0;

	sargv[sargc++] = c->engine;
	sargv[sargc++] = "run";
	for (int i = 0; i < c->npass; i++)
		sargv[sargc++] = c->pass[i];
	snprintf(num[0], sizeof(num[0]), "%d", g->cpus);
	snprintf(num[1], sizeof(num[1]), "%d", g->mem);
	snprintf(num[2], sizeof(num[2]), "%d", c->timeout);
	snprintf(num[3], sizeof(num[3]), "%d", g->nodes);
	snprintf(num[4], sizeof(num[4]), "%d", g->sockets);
	snprintf(num[5], sizeof(num[5]), "%d", g->threads);
	sargv[sargc++] = "--out"; sargv[sargc++] = (char *)out;
	sargv[sargc++] = "--tmp"; sargv[sargc++] = (char *)tmp;
	sargv[sargc++] = "--binary"; sargv[sargc++] = (char *)self;
	sargv[sargc++] = "--kernel"; sargv[sargc++] = (char *)c->kernel;
	sargv[sargc++] = "--kernel-dir"; sargv[sargc++] = (char *)kdir;
	sargv[sargc++] = "--cpus"; sargv[sargc++] = num[0];
	sargv[sargc++] = "--mem"; sargv[sargc++] = num[1];
	sargv[sargc++] = "--timeout"; sargv[sargc++] = num[2];
	sargv[sargc++] = "--nodes"; sargv[sargc++] = num[3];
	sargv[sargc++] = "--sockets"; sargv[sargc++] = num[4];
	sargv[sargc++] = "--threads-per-core"; sargv[sargc++] = num[5];
	sargv[sargc++] = "--accel"; sargv[sargc++] = (char *)c->accel;
	if (kmod) {
		sargv[sargc++] = "--kmod"; sargv[sargc++] = (char *)kmod;
	}
	if (c->icount)
		sargv[sargc++] = "--icount";
	if (c->shell) {
		sargv[sargc++] = "--shell"; sargv[sargc++] = (char *)c->shell;
	} else {
		sargv[sargc++] = "--";
		for (int i = 0; i < c->ncommand; i++)
			sargv[sargc++] = c->command[i];
	}
	sargv[sargc] = NULL;
	return sargv;
}

/*
 * --lines before anything starts: the plugin built (else the one line of
 * why not, that make left in build/lines-plugin.missing), and TCG.
 */
static void guest_lines_check(const struct guest_config *c)
{
	char *so = xasprintf("%s/build/lines-plugin.so", lab_root_dir());
	char *missing = xasprintf("%s/build/lines-plugin.missing", lab_root_dir());

	if (!path_exists(so)) {
		char *why = read_text(missing, NULL);

		if (why)
			why[strcspn(why, "\n")] = '\0';
		die("vm: --lines: %s is not built: %s", so, why && *why ? why : "run make");
	}
	if (!strcmp(c->accel, "kvm"))
		die("vm: --lines: the plugin needs TCG (qemu under KVM runs no access through it): --accel tcg or mttcg");
	free(so);
	free(missing);
}

/*
 * `vm ... -- run X.exp`: the experiment's [collect] lines_trace (with
 * --lines: --trace) and insns (without --lines: --insns) set the plugin
 * up on the host, before the guest runs it.  A file that does not parse
 * is left to the runner in the guest to refuse.
 */
void guest_exp_collect(struct guest_config *c)
{
	struct expfile x;
	char err[512];
	bool trace = false, insns = false;

	if (c->shell || c->ncommand < 2 || strcmp(c->command[0], "run"))
		return;
	for (int i = 1; i < c->ncommand; i++) {
		size_t n = strlen(c->command[i]);

		if (n < 5 || strcmp(c->command[i] + n - 4, ".exp") || expfile_parse(c->command[i], &x, err, sizeof(err)))
			continue;
		trace = !strcmp(expfile_value(&x, "collect", "lines_trace", "no"), "yes");
		insns = !strcmp(expfile_value(&x, "collect", "insns", "no"), "yes");
		expfile_free(&x);
		break;
	}
	if (trace && c->lines) {
		guest_pass_on(c, "trace", NULL);
		note("vm: %s: [collect] lines_trace: the access trace too (--trace)", c->command[1]);
	}
	if (insns && !c->lines) {
		c->lines = true;
		guest_pass_on(c, "insns", NULL);
		note("vm: %s: [collect] insns: the guest instructions per operation (--insns)", c->command[1]);
	}
}

int guest_run(const struct guest_config *c, int argc, char **argv)
{
	const struct guest_shape *g = &c->shape;
	char self[4096], kdir[4096], kmod[4096] = "";
	ssize_t n;
	int rc;

	if (!c->fetch && !in_path("qemu-system-x86_64"))
		die("vm: qemu-system-x86_64 not found: apt-get install --no-install-recommends qemu-system-x86 (or make deps)");
	if (!c->fetch && c->lines)
		guest_lines_check(c);

	/* The kernel first: a bad name or no apt access ends here, before a
	 * results directory exists. */
	{
		char *fargv[] = { c->engine, "kernel", "--suite", (char *)(c->suite ? c->suite : ""),
				  (char *)c->kernel, NULL };

		rc = run_script(fargv, kdir, sizeof(kdir));
		if (rc)
			return rc;
	}
	/* --kmod: the module built for that kernel (lab/scripts/kmod.sh, cached
	 * with it); a package missing or a build that fails ends here too,
	 * in one line, with nothing cached and no results directory. */
	if (c->kmod) {
		char *kscript = xasprintf("%s/lab/scripts/kmod.sh", lab_root_dir());
		char *kargv[] = { kscript, "--kernel-dir", kdir, NULL };

		rc = run_script(kargv, kmod, sizeof(kmod));
		free(kscript);
		if (rc)
			return rc;
	}
	if (c->fetch) {
		printf("%s\n", kdir);
		if (kmod[0])
			printf("%s\n", kmod);
		return 0;
	}
	/* The same for the perf runtime (fetched once into the cache). */
	if (c->perf) {
		char pout[4096], *pscript = xasprintf("%s/lab/scripts/perf-runtime.sh", lab_root_dir());
		char *pargv[] = { pscript, (char *)c->perf, NULL };

		rc = run_script(pargv, pout, sizeof(pout));
		free(pscript);
		if (rc)
			return rc;
	}

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die("vm: cannot find this binary (/proc/self/exe): %s", strerror(errno));
	self[n] = '\0';

	{
		char *name = spec_name(c->kernel), tmp[4096], err[4600];
		struct results *r = results_create(name, NULL, argc + 1, argv - 1);
		char num[6][16];
		char **sargv;
		char *env_path;
		bool refused, lines_failed = false;
		char lerr[1024] = "";
		const char *guest_accel, *status;
		json_object *vm;

		if (g->nodes)
			results_log(r, "vm: booting kernel %s with %d vCPUs (%d sockets, %d NUMA nodes, %d threads per core)",
				    c->kernel, g->cpus, g->sockets, g->nodes, g->threads);
		else
			results_log(r, "vm: booting kernel %s with %d vCPUs", c->kernel, g->cpus);
		/* The guest's images: a private directory the lab made and
		 * marked (util/owned.h), which vm.sh removes when it ends, and
		 * cleanup after a SIGKILL of both. */
		if (lab_tmpdir_create(tmp, sizeof(tmp), err, sizeof(err)))
			die("vm: %s", err);
		sargv = run_argv(c, r->dir, tmp, self, kdir, kmod[0] ? kmod : NULL, num);
		fflush(NULL);
		rc = run_script(sargv, NULL, 0);
		/* vm.sh SIGKILLed: its directory is still there. */
		{
			int e = lab_rmtree_at(AT_FDCWD, tmp);

			if (e)
				warnx_lab("vm: could not remove the temporary directory %s: %s", tmp, strerror(-e));
		}
		refused = guest_unpack(c, r->dir) < 0;
		/* --lines: the plugin's counts, named (c2c/lines_out.h); any
		 * fault is the run's, in one line. */
		if (c->lines && !refused && rc != EXIT_LAB_ERR) {
			if (lines_move_in(r->dir, lerr, sizeof(lerr)) || lines_out_dir(r->dir, lerr, sizeof(lerr))) {
				fprintf(stderr, "%s: vm: --lines: %s\n", lab_progname, lerr);
				results_log(r, "vm: --lines: %s", lerr);
				lines_failed = true;
				rc = EXIT_LAB_ERR;
			}
		}

		env_path = xasprintf("%s/vm.env", r->dir);
		vm = vm_env_json(env_path);
		if (lines_failed)
			json_object_object_add(vm, "lines_error", json_object_new_string(lerr));
		if (refused) {
			json_object_object_add(vm, "guest_status", json_object_new_string("payload-refused"));
			rc = EXIT_LAB_ERR;
		}
		guest_accel = json_str(vm, "accel");
		status = json_str(vm, "guest_status");
		if (guest_accel && strstr(guest_accel, "tcg") && c->icount)
			json_object_object_add(vm, "note", json_object_new_string(
				"qemu TCG with -icount shift=0: the guest's clock counts its instructions (1 ns = 1 instruction), "
				"so its times and rates are instruction counts, not time"));
		else if (guest_accel && strstr(guest_accel, "tcg"))
			json_object_object_add(vm, "note", json_object_new_string(
				"qemu TCG (software emulation): throughput and latency mean nothing here; counts and code paths are the guest kernel's"));
		guest_results_note(r->dir, vm);
		results_meta_set(r, "vm", vm);
		results_log(r, "vm: finished with exit status %d (guest: %s)", rc, status ? status : "never ran");
		/* The guest command's failure is its own result; a guest that
		 * never reported (panic, hang, no qemu) leaves the run failed. */
		results_finish(r, status && !strcmp(status, "exited") && !lines_failed ? "complete" : "failed");
		note("vm: results in %s", r->dir);
		free(env_path);
		results_free(r);
		free(name);
		free(sargv);
	}
	return rc;
}
