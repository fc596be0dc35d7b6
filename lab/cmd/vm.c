// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab vm: run one lab command inside a real kernel under qemu.
 *
 * This machine (and many CI hosts) has one kernel, often without cgroup v2
 * memory, kprobes or the kernel a user asks about.  `vm` boots Debian's
 * kernels (or the lab's own, `make lab-kernel`) from an initramfs holding
 * this very binary, runs the command there on cgroup v2, and brings its
 * output and results directories back.  The heavy lifting (apt, caching,
 * the initramfs, qemu, the serial-port transfer) is lab/scripts/vm.sh; this
 * command gives it the lab's option handling and a results directory whose
 * meta.json says what was booted and how it ended.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "analyze/report.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/fileio.h"
#include "util/results.h"

/*
 * The defaults of every guest setting, here only: lab/scripts/vm.sh takes
 * each one from this command's arguments and has none of its own.
 */
#define VM_DEFAULT_KERNEL "6.12"
#define VM_DEFAULT_CPUS 2
#define VM_DEFAULT_MEM_MB 1024
#define VM_DEFAULT_TIMEOUT_S 300
#define VM_DEFAULT_ACCEL "auto"
/* qemu decides what it can run (bookworm's refuses more than 255 vCPUs
 * under TCG) and vm says its words; this only catches typing errors. */
#define VM_MAX_CPUS 1024
#define STR_(x) #x
#define STR(x) STR_(x)

static const char usage_text[] =
"usage: memcg-lab vm [options] -- COMMAND [ARGS...]\n"
"       memcg-lab vm [options] --shell 'SHELL COMMAND'\n"
"       memcg-lab vm --fetch [--kernel SPEC] [--suite S]\n"
"       memcg-lab vm --list\n"
"\n"
"Boots a real kernel under qemu with an initramfs holding this binary, runs\n"
"`memcg-lab COMMAND ARGS...` (or a shell command) inside on cgroup v2 with the\n"
"memory controller enabled, and copies its output and results back.\n"
"\n"
"  --kernel SPEC   a kernel line: 5.10, 6.1, 6.12, 6.16 ... 7.3 (the newest\n"
"                  Debian package of that line in bullseye, bookworm, trixie,\n"
"                  trixie-backports, sid or experimental), LINE-rt for its\n"
"                  PREEMPT_RT build; a package name (linux-image-6.1.0-57-amd64,\n"
"                  or a meta package); lab (the kernel `make lab-kernel`\n"
"                  built); or the path of a vmlinux or bzImage.  Default: " VM_DEFAULT_KERNEL "\n"
"  --suite S       Debian suite for a package name (private apt configuration\n"
"                  when the host's apt has no such suite; /etc/apt untouched)\n"
"  --cpus N        vCPUs (default " STR(VM_DEFAULT_CPUS) ")          --mem MB   guest memory (" STR(VM_DEFAULT_MEM_MB) ")\n"
"  --nodes M       M NUMA nodes, each with N/M vCPUs and 1/M of the memory\n"
"  --sockets S     S packages (default: one per node; 1 with only -T)\n"
"  --threads-per-core T  SMT: T threads in each core (default 1)\n"
"                  N must be a multiple of S*T, and each node hold whole cores\n"
"                  of one package (or whole packages)\n"
"  --timeout S     give up on the guest after S seconds (default " STR(VM_DEFAULT_TIMEOUT_S) ")\n"
"  --add PATH      also copy PATH (file or directory, ELF libraries included)\n"
"                  into the guest; paths in the lab land under /lab (the\n"
"                  guest's lab root and working directory)\n"
"  --perf VERSION  Debian's perf VERSION (7.3, 7.2) with its own loader and\n"
"                  libraries, as 'perf' on the guest's PATH: for guest kernels\n"
"                  newer than the host's perf (lab/scripts/perf-runtime.sh)\n"
"  --env K=V       set an environment variable for the command\n"
"  --append ARGS   extra kernel command line\n"
"  --accel A       auto (KVM where usable, else TCG), kvm, tcg, or mttcg (TCG\n"
"                  with a thread per vCPU; see lab/scripts/vm.sh on its panics)\n"
"                  (default " VM_DEFAULT_ACCEL ")\n"
"  --console       show the guest's console (instead of only the output)\n"
"  --fetch         only fetch and cache the kernel; print its directory\n"
"  --list          each kernel line alias: the package, version and suite it\n"
"                  resolves to, and whether it is cached\n"
"\n"
"Results: results/<date>-vm-<kernel>/ (or under $MEMCG_LAB_RESULTS): meta.json\n"
"(what was booted, how it ended), console.log, output.txt, dmesg.txt, and the\n"
"guest's own results directories under results/.  Kernels and images are\n"
"cached under $MEMCG_LAB_CACHE (default /var/cache/memcg-lab).\n"
"Under TCG (no usable KVM) throughput means nothing; counts and code paths do.\n"
"\n"
"Exit status: the guest command's; 2 when the guest could not run it (no\n"
"qemu, no apt access, unknown package, a guest that panicked or hung).\n";

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
					     "threads_per_core", "mem_mb", "note" };

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
			/* The report.txt written in the guest did not know it ran under TCG. */
			report_rewrite(guest);
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

/* The guest's shape: qemu's -smp and -numa follow from it (lab/scripts/vm.sh). */
struct vm_shape {
	int cpus, nodes, sockets, threads, mem;
};

/*
 * Checks a shape before anything starts, each fault in one line: qemu
 * would refuse some (cores that do not divide), and accept others that
 * make a machine no box has (a node straddling two packages).
 */
static void vm_shape_check(struct vm_shape *g)
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

/* A number option, 1..max, or a one-line error naming it. */
static int int_opt(const char *name, const char *arg, long max, const char *what)
{
	long v;

	if (parse_long(arg, 1, max, &v))
		die("vm: --%s: '%s' is not a %s", name, arg, what);
	return (int)v;
}

int cmd_vm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "suite", required_argument, NULL, 'S' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "sockets", required_argument, NULL, 'o' },
		{ "threads-per-core", required_argument, NULL, 'T' },
		{ "mem", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "add", required_argument, NULL, 'a' },
		{ "perf", required_argument, NULL, 'P' },
		{ "env", required_argument, NULL, 'e' },
		{ "append", required_argument, NULL, 'A' },
		{ "accel", required_argument, NULL, 'x' },
		{ "console", no_argument, NULL, 'C' },
		{ "shell", required_argument, NULL, 's' },
		{ "fetch", no_argument, NULL, 'f' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kernel = VM_DEFAULT_KERNEL, *suite = NULL, *shell = NULL, *perf = NULL;
	const char *accel = VM_DEFAULT_ACCEL;
	char **sargv = xcalloc(2 * argc + 40, sizeof(char *));
	struct vm_shape g = { .cpus = VM_DEFAULT_CPUS, .threads = 1, .mem = VM_DEFAULT_MEM_MB };
	int sargc = 0, timeout = VM_DEFAULT_TIMEOUT_S, fetch = 0, list = 0, c, rc;
	char self[4096], kdir[4096], *script;
	ssize_t n;

	sargv[sargc++] = NULL;	/* the script, below */
	sargv[sargc++] = "run";
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernel = optarg; break;
		case 'S': suite = optarg; break;
		case 'c': g.cpus = int_opt("cpus", optarg, VM_MAX_CPUS, "vCPU count (1-" STR(VM_MAX_CPUS) ")"); break;
		case 'n': g.nodes = int_opt("nodes", optarg, VM_MAX_CPUS, "NUMA node count"); break;
		case 'o': g.sockets = int_opt("sockets", optarg, VM_MAX_CPUS, "socket count"); break;
		case 'T': g.threads = int_opt("threads-per-core", optarg, 8, "thread count (1-8)"); break;
		case 'm': g.mem = int_opt("mem", optarg, 1 << 20, "size in MiB"); break;
		case 't': timeout = int_opt("timeout", optarg, 86400, "number of seconds"); break;
		case 'a': sargv[sargc++] = "--add"; sargv[sargc++] = optarg; break;
		case 'P': perf = optarg; sargv[sargc++] = "--perf"; sargv[sargc++] = optarg; break;
		case 'e':
			if (!strchr(optarg, '=') || optarg[0] == '=')
				die("vm: --env: '%s' is not KEY=VALUE", optarg);
			sargv[sargc++] = "--env"; sargv[sargc++] = optarg; break;
		case 'A': sargv[sargc++] = "--append"; sargv[sargc++] = optarg; break;
		case 'x':
			if (strcmp(optarg, "auto") && strcmp(optarg, "kvm") && strcmp(optarg, "tcg") &&
			    strcmp(optarg, "mttcg"))
				die("vm: --accel: '%s' is not auto, kvm, tcg or mttcg", optarg);
			accel = optarg; break;
		case 'C': sargv[sargc++] = "--console"; break;
		case 's': shell = optarg; break;
		case 'f': fetch = 1; break;
		case 'L': list = 1; break;
		case 'h': usage_exit(usage_text, 0);
		default: usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	vm_shape_check(&g);
	script = xasprintf("%s/lab/scripts/vm.sh", lab_root_dir());
	if (access(script, X_OK))
		die("vm: %s: %s (the vm engine ships with the lab's source tree)", script, strerror(errno));
	sargv[0] = script;
	if (list) {
		char *largv[] = { script, "list", NULL };

		if (optind < argc)
			die("vm: --list takes no command");
		fflush(NULL);
		rc = run_script(largv, NULL, 0);
		free(script);
		free(sargv);
		return rc;
	}
	if (!fetch && !shell && optind >= argc)
		usage_exit("vm: nothing to run: give -- COMMAND [ARGS] or --shell 'CMD'\n", EXIT_LAB_ERR);
	if (shell && optind < argc)
		die("vm: give either --shell or -- COMMAND, not both");
	if (!fetch && !in_path("qemu-system-x86_64"))
		die("vm: qemu-system-x86_64 not found: apt-get install --no-install-recommends qemu-system-x86 (or make deps)");

	/* The kernel first: a bad name or no apt access ends here, before a
	 * results directory exists. */
	{
		char *fargv[] = { script, "kernel", "--suite", (char *)(suite ? suite : ""), (char *)kernel, NULL };

		rc = run_script(fargv, kdir, sizeof(kdir));
		if (rc)
			return rc;
		if (fetch) {
			printf("%s\n", kdir);
			return 0;
		}
	}
	/* The same for the perf runtime (fetched once into the cache). */
	if (perf) {
		char pout[4096], *pscript = xasprintf("%s/lab/scripts/perf-runtime.sh", lab_root_dir());
		char *pargv[] = { pscript, (char *)perf, NULL };

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
		char *name = spec_name(kernel);
		struct results *r = results_create(name, NULL, argc + 1, argv - 1);
		char num[6][16];
		char *env_path;
		const char *guest_accel, *status;
		json_object *vm;

		snprintf(num[0], sizeof(num[0]), "%d", g.cpus);
		snprintf(num[1], sizeof(num[1]), "%d", g.mem);
		snprintf(num[2], sizeof(num[2]), "%d", timeout);
		snprintf(num[3], sizeof(num[3]), "%d", g.nodes);
		snprintf(num[4], sizeof(num[4]), "%d", g.sockets);
		snprintf(num[5], sizeof(num[5]), "%d", g.threads);
		sargv[sargc++] = "--out"; sargv[sargc++] = r->dir;
		sargv[sargc++] = "--binary"; sargv[sargc++] = self;
		sargv[sargc++] = "--kernel"; sargv[sargc++] = (char *)kernel;
		sargv[sargc++] = "--kernel-dir"; sargv[sargc++] = kdir;
		sargv[sargc++] = "--cpus"; sargv[sargc++] = num[0];
		sargv[sargc++] = "--mem"; sargv[sargc++] = num[1];
		sargv[sargc++] = "--timeout"; sargv[sargc++] = num[2];
		sargv[sargc++] = "--nodes"; sargv[sargc++] = num[3];
		sargv[sargc++] = "--sockets"; sargv[sargc++] = num[4];
		sargv[sargc++] = "--threads-per-core"; sargv[sargc++] = num[5];
		sargv[sargc++] = "--accel"; sargv[sargc++] = (char *)accel;
		if (shell) {
			sargv[sargc++] = "--shell"; sargv[sargc++] = (char *)shell;
		} else {
			sargv[sargc++] = "--";
			while (optind < argc)
				sargv[sargc++] = argv[optind++];
		}
		sargv[sargc] = NULL;
		if (g.nodes)
			results_log(r, "vm: booting kernel %s with %d vCPUs (%d sockets, %d NUMA nodes, %d threads per core)",
				    kernel, g.cpus, g.sockets, g.nodes, g.threads);
		else
			results_log(r, "vm: booting kernel %s with %d vCPUs", kernel, g.cpus);
		fflush(NULL);
		rc = run_script(sargv, NULL, 0);

		env_path = xasprintf("%s/vm.env", r->dir);
		vm = vm_env_json(env_path);
		guest_accel = json_str(vm, "accel");
		status = json_str(vm, "guest_status");
		if (guest_accel && strstr(guest_accel, "tcg"))
			json_object_object_add(vm, "note", json_object_new_string(
				"qemu TCG (software emulation): throughput and latency mean nothing here; counts and code paths are the guest kernel's"));
		guest_results_note(r->dir, vm);
		results_meta_set(r, "vm", vm);
		results_log(r, "vm: finished with exit status %d (guest: %s)", rc, status ? status : "never ran");
		/* The guest command's failure is its own result; a guest that
		 * never reported (panic, hang, no qemu) leaves the run failed. */
		results_finish(r, status && !strcmp(status, "exited") ? "complete" : "failed");
		note("vm: results in %s", r->dir);
		free(env_path);
		results_free(r);
		free(name);
	}
	free(script);
	free(sargv);
	return rc;
}
