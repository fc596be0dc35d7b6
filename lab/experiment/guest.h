/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One lab command inside a real kernel under qemu, without vm's options:
 * lab/scripts/vm.sh does the heavy lifting (apt, caching, the initramfs,
 * qemu, the serial-port transfer); this builds its command line, runs it,
 * and gives the run a results directory whose meta.json says what was
 * booted and how it ended.  Every error is one line and exit 2.
 */
#ifndef LAB_EXPERIMENT_GUEST_H
#define LAB_EXPERIMENT_GUEST_H

#include <stdbool.h>

/*
 * The kernel lines vm boots by alias (LINE, and LINE-rt for its PREEMPT_RT
 * build), oldest first: the one list, which `memcg-lab help`, vm --help and
 * lab/scripts/vm.sh (vm --list, its messages; given it in the environment as
 * MEMCG_LAB_VM_LINES by guest_engine()) all print.
 */
#define VM_KERNEL_LINES "5.10 6.1 6.12 6.16 6.17 6.18 6.19 7.0 7.1 7.2 7.3"

/* The guest's shape: qemu's -smp and -numa follow from it (lab/scripts/vm.sh). */
struct guest_shape {
	int cpus, nodes, sockets, threads, mem;
};

struct guest_config {
	const char *kernel, *suite, *shell, *perf, *accel;
	struct guest_shape shape;
	int timeout;
	bool fetch;		/* only fetch and cache the kernel, print its directory */
	bool lines;		/* --lines: qemu loads build/lines-plugin.so (c2c/README) */
	bool kmod;		/* --kmod: lab/kmod's module built for the kernel, into the guest */
	bool icount;		/* --icount: qemu -icount shift=0 (the guest's clock counts instructions) */
	char *engine;		/* lab/scripts/vm.sh: guest_engine() */
	char **command;		/* memcg-lab COMMAND ARGS..., unless shell */
	int ncommand;
	/* vm.sh's own options as they came (--add, --perf, --env, --append,
	 * --console, --lines), in command-line order: guest_pass_on() */
	char **pass;
	int npass;
};

/* Appends --option (and its value unless NULL) to c->pass. */
void guest_pass_on(struct guest_config *c, const char *option, const char *value);

/* Frees what guest_pass_on() and guest_engine() gave c. */
void guest_config_free(struct guest_config *c);

/*
 * Checks a shape before anything starts, each fault in one line (exit 2),
 * and fills in the sockets a shape implies.
 */
void guest_shape_check(struct guest_shape *g);

/* The path of lab/scripts/vm.sh, for c->engine (and VM_KERNEL_LINES in the
 * environment it runs in); exit 2 when it is missing. */
char *guest_engine(void);

/* vm --list: each kernel line alias, what it resolves to; the script's exit status. */
int guest_list(const struct guest_config *c);

/*
 * The kernel fetched (with c->fetch its directory printed, and done), then
 * c->command (or c->shell) run in the guest into results/<date>-vm-<kernel>/;
 * argv is the command line meta.json records.  The guest command's exit
 * status, or 2 when the guest could not run it.
 */
/* `-- run X.exp`: its [collect] lines_trace and insns as --trace and
 * --insns (before guest_run). */
void guest_exp_collect(struct guest_config *c);
int guest_run(const struct guest_config *c, int argc, char **argv);

#endif
