// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab vm: run one lab command inside a real kernel under qemu
 * (experiment/guest.h).  This gives lab/scripts/vm.sh the lab's option
 * handling; the guest run itself is experiment/guest.c.
 */
#include <stdbool.h>
#include <string.h>
#include "cmd/builtin.h"
#include "experiment/guest.h"
#include "util/err.h"
#include "util/expfile.h"
#include "util/options.h"

/*
 * The defaults of every guest setting, here only: lab/scripts/vm.sh takes
 * each one from this command's arguments and has none of its own.
 */
#define VM_DEFAULT_KERNEL "6.12"
#define VM_DEFAULT_CPUS 2
#define VM_DEFAULT_MEM_MB 1024
#define VM_DEFAULT_TIMEOUT_S 300
#define VM_DEFAULT_ACCEL "auto"
#define VM_DEFAULT_THREADS_PER_CORE 1
/* qemu decides what it can run (bookworm's refuses more than 255 vCPUs
 * under TCG) and vm says its words; this only catches typing errors. */
#define VM_MAX_CPUS 1024
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct options_cmd vm_cmd = {
	.name = "vm",
	.usage =
"usage: memcg-lab vm [options] -- COMMAND [ARGS...]\n"
"       memcg-lab vm [options] --shell 'SHELL COMMAND'\n"
"       memcg-lab vm --fetch [--kernel SPEC] [--suite S]\n"
"       memcg-lab vm --list\n"
"\n"
"Boots a real kernel under qemu with an initramfs holding this binary, runs\n"
"`memcg-lab COMMAND ARGS...` (or a shell command) inside on cgroup v2 with the\n"
"memory controller enabled and /var/tmp on a disk filesystem (ext2 on a RAM disk\n"
"of half the guest's memory), and copies its output and results back.\n"
"\n",
	.footer =
"\n"
"Results: results/<date>-vm-<kernel>/ (or under $MEMCG_LAB_RESULTS): meta.json\n"
"(what was booted, how it ended), console.log, output.txt, dmesg.txt, and the\n"
"guest's own results directories under results/.  Kernels and images are\n"
"cached under $MEMCG_LAB_CACHE (default /var/cache/memcg-lab).\n"
"Under TCG (no usable KVM) throughput means nothing; counts and code paths do.\n"
"\n"
"Exit status: the guest command's; 2 when the guest could not run it (no\n"
"qemu, no apt access, unknown package, a guest that panicked or hung).\n",
	.stop_at_arg = true,
};

/* An option vm.sh takes as it is. */
static void pass_opt(const struct lab_option *opt, const char *arg)
{
	guest_pass_on(opt->value, opt->long_name, arg);
}

static void perf_opt(const struct lab_option *opt, const char *arg)
{
	struct guest_config *c = opt->value;

	c->perf = arg;
	pass_opt(opt, arg);
}

/* A Debian suite name (bookworm, trixie-backports): it names a directory
 * of the cache that vm.sh removes when apt refuses the suite, so nothing
 * but a plain name may pass ('../..' would remove a directory as root). */
static void suite_opt(const struct lab_option *opt, const char *arg)
{
	const char *p = arg;

	if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
		p = NULL;
	for (; p && *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '+'))
			p = NULL;
	if (!p || strlen(arg) > 64)
		die("vm: --suite '%s': not a Debian suite name (lower-case letters, digits, '-', '.', '+')", arg);
	*(const char **)opt->value = arg;
}

static void lines_opt(const struct lab_option *opt, const char *arg)
{
	struct guest_config *c = opt->value;

	c->lines = true;
	pass_opt(opt, arg);
}

static void lines_opts_opt(const struct lab_option *opt, const char *arg)
{
	if (strchr(arg, ' '))
		die("vm: --lines-opts: '%s' has a space: the plugin's options are NAME=VALUE,NAME=VALUE", arg);
	if (!strncmp(arg, "out=", 4) || strstr(arg, ",out="))
		die("vm: --lines-opts: '%s': out= is vm's own (results/.../lines/lines.tsv)", arg);
	lines_opt(opt, arg);
}

/* Who opens the plugin's window: the lab in the guest (its drivers and
 * runner), or vm around the --shell command (c2c window). */
static const char *lines_window = "lab";

static void lines_window_opt(const struct lab_option *opt, const char *arg)
{
	if (strcmp(arg, "lab") && strcmp(arg, "command"))
		die("vm: --lines-window: '%s' is not lab or command", arg);
	lines_window = arg;
	lines_opt(opt, arg);
}

/* A C identifier of [start, end). */
static bool c_ident(const char *p, const char *end)
{
	if (p == end || (*p >= '0' && *p <= '9'))
		return false;
	for (; p < end; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* --trace-struct NAME or NAME@SYMBOL: C identifiers (they reach the
 * guest's environment). */
static void trace_struct_opt(const struct lab_option *opt, const char *arg)
{
	const char *at = strchr(arg, '@'), *end = arg + strlen(arg);

	if (strlen(arg) > 128 || !c_ident(arg, at ? at : end) || (at && !c_ident(at + 1, end)))
		die("vm: --trace-struct '%s': not NAME or NAME@SYMBOL (a struct's name, a global's symbol: C "
		    "identifiers)", arg);
	lines_opt(opt, arg);
}

static void env_opt(const struct lab_option *opt, const char *arg)
{
	if (!strchr(arg, '=') || arg[0] == '=')
		die("vm: --env: '%s' is not KEY=VALUE", arg);
	pass_opt(opt, arg);
}

static void accel_opt(const struct lab_option *opt, const char *arg)
{
	if (strcmp(arg, "auto") && strcmp(arg, "kvm") && strcmp(arg, "tcg") && strcmp(arg, "mttcg"))
		die("vm: --accel: '%s' is not auto, kvm, tcg or mttcg", arg);
	*(const char **)opt->value = arg;
}

int cmd_vm(int argc, char **argv)
{
	struct guest_config c = {
		.kernel = VM_DEFAULT_KERNEL,
		.accel = VM_DEFAULT_ACCEL,
		.timeout = VM_DEFAULT_TIMEOUT_S,
		.shape = { .cpus = VM_DEFAULT_CPUS, .threads = VM_DEFAULT_THREADS_PER_CORE, .mem = VM_DEFAULT_MEM_MB },
	};
	bool list = false;
	const struct lab_option opts[] = {
		OPT_STRING(0, "kernel", &c.kernel, "SPEC", VM_DEFAULT_KERNEL, "a kernel line: " VM_KERNEL_LINES
			   " (the newest Debian package of that line in bullseye, bookworm, trixie, "
			   "trixie-backports, sid or experimental), LINE-rt for its PREEMPT_RT build; a package "
			   "name (linux-image-6.1.0-57-amd64, or a meta package); lab (the kernel `make lab-kernel` "
			   "built); or the path of a vmlinux or bzImage"),
		OPT_CALLBACK(0, "suite", &c.suite, "S", NULL, "Debian suite for a package name (private apt "
			     "configuration when the host's apt has no such suite; /etc/apt untouched)", suite_opt),
		OPT_INT(0, "cpus", &c.shape.cpus, "N", STR(VM_DEFAULT_CPUS), "vCPUs", 1, VM_MAX_CPUS),
		OPT_INT(0, "mem", &c.shape.mem, "MB", STR(VM_DEFAULT_MEM_MB), "guest memory", 1, 1 << 20),
		OPT_INT(0, "nodes", &c.shape.nodes, "M", NULL, "M NUMA nodes, each with N/M vCPUs and 1/M of the "
			"memory", 1, VM_MAX_CPUS),
		OPT_INT(0, "sockets", &c.shape.sockets, "S", "one per node; 1 with only -T", "S packages", 1,
			VM_MAX_CPUS),
		OPT_INT(0, "threads-per-core", &c.shape.threads, "T", NULL, "SMT: T threads in each core "
			"(default " STR(VM_DEFAULT_THREADS_PER_CORE) ")\nN must be a multiple of S*T, and each node "
			"hold whole cores of one package (or whole packages)", 1, 8),
		OPT_INT(0, "timeout", &c.timeout, "S", STR(VM_DEFAULT_TIMEOUT_S), "give up on the guest after S "
			"seconds", 1, 86400),
		OPT_CALLBACK(0, "add", &c, "PATH", NULL, "also copy PATH (file or directory, ELF libraries "
			     "included) into the guest; paths in the lab land under /lab (the guest's lab root and "
			     "working directory)", pass_opt),
		OPT_CALLBACK(0, "perf", &c, "VERSION", NULL, "Debian's perf VERSION (7.3, 7.2) with its own loader "
			     "and libraries, as 'perf' on the guest's PATH: for guest kernels newer than the host's "
			     "perf (lab/scripts/perf-runtime.sh)", perf_opt),
		OPT_CALLBACK(0, "env", &c, "K=V", NULL, "set an environment variable for the command", env_opt),
		OPT_CALLBACK(0, "append", &c, "ARGS", NULL, "extra kernel command line", pass_opt),
		OPT_CALLBACK(0, "accel", &c.accel, "A", VM_DEFAULT_ACCEL, "auto (KVM where usable, else TCG), kvm, "
			     "tcg, or mttcg (TCG with a thread per vCPU; see lab/scripts/vm.sh on its panics)",
			     accel_opt),
		OPT_CALLBACK(0, "console", &c, NULL, NULL, "show the guest's console (instead of only the output)",
			     pass_opt),
		OPT_CALLBACK(0, "lines", &c, NULL, NULL, "load the lab's qemu TCG plugin, which follows every "
			     "cacheline between the vCPUs while the lab's windows are open (the harness's steady "
			     "state, each K, an experiment's c2c window), into lines/: lines.tsv, and per struct "
			     "field fields.tsv, perf.data and the real perf c2c report c2c.txt, per window label in "
			     "lines/LABEL/ (lab/c2c/README; TCG only)", lines_opt),
		OPT_CALLBACK(0, "lines-opts", &c, "OPTS", NULL, "--lines with the plugin's options, NAME=VALUE,... "
			     "(scope=kernel|user|all, pc=LO-HI, detail=LO-HI, window=lab|always, windows=each|sum, "
			     "lines=N, trace=N ...)",
			     lines_opts_opt),
		OPT_CALLBACK(0, "lines-window", &c, "WHO", "lab", "--lines with the window opened by the lab in the "
			     "guest (lab: around its drivers' measured phases) or around the --shell command "
			     "(command: a program of your own that opens none; its own accesses need "
			     "--lines-opts scope=user)", lines_window_opt),
		OPT_FLAG(0, "kmod", &c.kmod, "build the lab's kmem_bench module (lab/kmod, the seed's kmem benchmark) "
			 "against the guest's kernel (a Debian kernel: its linux-headers package with the linux-kbuild "
			 "of its suite, fetched and cached with it; the lab kernel: its object tree) and bring it into "
			 "the guest, where charge --mode kmem runs it instead of its close()/open() stand-in"),
		OPT_FLAG(0, "icount", &c.icount, "qemu TCG with -icount shift=0: the guest's clock counts its "
			 "instructions (1 ns = 1 instruction), so the times and rates the lab measures inside are "
			 "instruction counts (single-threaded TCG, --cpus 1)"),
		OPT_CALLBACK(0, "insns", &c, NULL, NULL, "the plugin counts the guest instructions of each window "
			     "alone (mode=insns: no memory callback, no line followed): lines/ops.tsv and "
			     "insns.tsv give instructions per operation (--lines counts them too, in a slowed "
			     "guest)", lines_opt),
		OPT_CALLBACK(0, "trace", &c, NULL, NULL, "--lines and the access trace: inside the windows, "
			     "every access to the lines of the objects the lab names (each mem_cgroup, every CPU's "
			     "stocks, --trace-struct types) in order, into lines/trace.bin (24 bytes a record, at "
			     "most 16 M records unless --lines-opts trace=N)", lines_opt),
		OPT_CALLBACK(0, "trace-struct", &c, "NAME", NULL, "--lines, and the guest's per-CPU variables "
			     "of type struct NAME (globals too where its BTF has them; NAME@SYMBOL: the global "
			     "SYMBOL) are objects as well: named in fields.tsv, traced with --trace; repeatable",
			     trace_struct_opt),
		OPT_STRING(0, "shell", &c.shell, "CMD", NULL, "run the shell command CMD in the guest instead of "
			   "-- COMMAND"),
		OPT_FLAG(0, "fetch", &c.fetch, "only fetch and cache the kernel; print its directory"),
		OPT_FLAG(0, "list", &list, "each kernel line alias: the package, version and suite it resolves to, "
			 "and whether it is cached"),
		OPT_END(),
	};
	int arg = options_parse(&vm_cmd, opts, argc, argv), rc;

	if (!strcmp(lines_window, "command") && !c.shell)
		die("vm: --lines-window command opens the window around a --shell command (a lab command, "
		    "-- COMMAND, opens its own windows: --lines-window lab)");

	guest_shape_check(&c.shape);
	if (c.icount) {
		/* qemu refuses -icount with a thread per vCPU; KVM has no instruction clock. */
		if (!strcmp(c.accel, "kvm") || !strcmp(c.accel, "mttcg"))
			die("vm: --icount: qemu counts instructions under single-threaded TCG only, not --accel %s",
			    c.accel);
		/* Seen with Debian's qemu 7.2: 5.10 and 6.1 guests hang at "Booting
		 * SMP configuration" with two vCPUs under -icount. */
		if (c.shape.cpus != 1)
			die("vm: --icount: one vCPU only (--cpus 1): under qemu's -icount a guest hangs bringing up "
			    "its second vCPU");
		c.accel = "tcg";
	}
	c.engine = guest_engine();
	c.command = argv + arg;
	c.ncommand = argc - arg;
	if (list) {
		if (c.ncommand)
			die("vm: --list takes no command");
		rc = guest_list(&c);
	} else {
		/* Nothing to run: give -- COMMAND [ARGS] or --shell 'CMD'. */
		if (!c.fetch && !c.shell && !c.ncommand)
			options_usage_error();
		if (c.shell && c.ncommand)
			die("vm: give either --shell or -- COMMAND, not both");
		guest_exp_collect(&c);
		rc = guest_run(&c, argc, argv);
	}
	guest_config_free(&c);
	return rc;
}
