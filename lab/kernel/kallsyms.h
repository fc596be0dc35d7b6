/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols: /proc/kallsyms of the running kernel, or the symbol table
 * of an ELF vmlinux (offline).  Name -> address and address -> symbol+offset
 * (for lock addresses and caller symbols).
 *
 * Every symbol has an extent, [addr, end): its size where the ELF symbol
 * table gives one; from kallsyms, which has no sizes, up to the next
 * symbol of the kernel image or of the same module's memory of that kind
 * (perf's rule), a page at most past the last symbol of a module or of the
 * BPF programs, and no extent at all for the image's end markers (_end,
 * _etext, __end_rodata, __stop_* ...); a BPF program of the running
 * kernel has its JIT length (BPF_OBJ_GET_INFO_BY_FD, as root).  An address
 * outside every extent has no symbol: it prints as a bare address, never
 * as "_end+0x1e0a7ff6".
 *
 * /proc/kallsyms also lists BPF programs (bpf_prog_<tag>_<name> [bpf]),
 * BPF trampolines (bpf_trampoline_<key> [bpf]) and module symbols
 * ([module]); those loaded after it was read are found by
 * ksyms_lookup_fresh(), and ksyms_frame() names a trampoline frame by the
 * function it was attached to (the key holds that function's BTF id).
 *
 * Without root, /proc/kallsyms shows zero addresses: ksyms_load() then keeps
 * the names (so presence checks still work) and ksyms_have_addrs() is false.
 */
#ifndef LAB_KERNEL_KALLSYMS_H
#define LAB_KERNEL_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;
struct ksyms_fresh;

struct ksym {
	uint64_t addr;
	uint64_t end;		/* the extent's end (exclusive); end == addr: none */
	char type;		/* nm-style: T/t text, D/d data, B/b bss, ... */
	char *name;
	char *module;		/* NULL for vmlinux symbols; "bpf" for BPF programs */
};

struct ksyms {
	struct ksym *by_addr;	/* sorted by address */
	size_t n;
	size_t *by_name;	/* indexes into by_addr, sorted by name */
	bool have_addrs;
	char *source;		/* "/proc/kallsyms" or the vmlinux path */
	char *strtab;		/* names and modules of parsed text; NULL: each malloc'd */
	struct ksyms_fresh *fresh;	/* ksyms_lookup_fresh()'s state (mutable behind const) */
};

/* Parses kallsyms text (the format of /proc/kallsyms; a name over 255
 * bytes is cut there). 0, or -1 with err. */
int ksyms_parse(struct ksyms *s, const char *text, const char *source, char *err, size_t errlen);

/* The longest name the line parser keeps: the kernel's KSYM_NAME_LEN (512
 * since 6.1) less its NUL. */
#define KSYM_NAME_MAX 511
/*
 * The one kallsyms line parser: every line of text into s->by_addr in file
 * order, names cut at max_name bytes (at most KSYM_NAME_MAX), with no
 * extents, no name index and no fresh state.  ksyms_parse() is this and
 * then the table's own order and extents; perf/perf_symbols.c builds
 * perf's view on it.  0, or -1 with err naming source and line.
 */
int ksyms_parse_lines(struct ksyms *s, const char *text, const char *source, size_t max_name, char *err,
		      size_t errlen);
/* Loads /proc/kallsyms (path NULL) or a kallsyms-format file. */
int ksyms_load(struct ksyms *s, const char *path, char *err, size_t errlen);
/* Loads the symbol table of an ELF vmlinux. */
int ksyms_load_vmlinux(struct ksyms *s, const char *vmlinux, char *err, size_t errlen);
void ksyms_free(struct ksyms *s);

const struct ksym *ksyms_find(const struct ksyms *s, const char *name);
/* The symbol whose extent holds addr, or NULL. */
const struct ksym *ksyms_lookup(const struct ksyms *s, uint64_t addr, uint64_t *offset);
/* "sym+0x1f" (or "0xffff..." when no extent holds it) into buf. */
void ksyms_format(const struct ksyms *s, uint64_t addr, char *buf, size_t n);

/*
 * ksyms_lookup(), and where no symbol of s holds addr, the module and BPF
 * symbols of a fresh read of s's kallsyms (those loaded since s was read:
 * the lab's own fexit programs and their trampolines attach after the
 * collector read it).  Read again at most once a second and 16 times in
 * all; only for s read from /proc/kallsyms, or a file ksyms_refresh_from()
 * named.  A symbol from the fresh read is valid until the next call; the
 * fresh state is s's own: one thread at a time (the tracer's reader).
 */
const struct ksym *ksyms_lookup_fresh(const struct ksyms *s, uint64_t addr, uint64_t *offset);
/* Where ksyms_lookup_fresh() reads the fresh symbols (tests: a later recording). */
void ksyms_refresh_from(struct ksyms *s, const char *path);

/*
 * A BPF trampoline's symbol (bpf_trampoline_<key> [bpf]): the BTF object
 * and type id of the function it is attached to, from the key the kernel
 * builds in bpf_trampoline_compute_key(): obj_id << 32 | btf_id, where
 * obj_id is a BTF object's id (vmlinux's is 1), or the id of a BPF program
 * an fentry/freplace program attaches to; 7.3 sets bit 31 for the former.
 * False for other symbols and for trampolines on BPF programs (bit 31
 * clear and obj_id not 1: older kernels set no bit, and their vmlinux
 * trampolines have obj_id 1).
 */
bool ksyms_bpf_trampoline(const struct ksym *k, uint32_t *btf_obj_id, uint32_t *btf_id);
/* The vmlinux BTF that names trampolines (borrowed; tests).  Without one,
 * s read from /proc/kallsyms loads the running kernel's when needed. */
void ksyms_set_btf(struct ksyms *s, const struct btf *vmlinux_btf);

/*
 * A stack frame for a caller column, into buf: "sym+0x1f" (fresh symbols
 * included); a BPF trampoline frame as the function the trampoline stands
 * for (an fentry/fexit program on mem_cgroup_user_flush_stats puts the
 * trampoline between that function and its callee's caller: the frame is
 * the traced function's own), as "mem_cgroup_user_flush_stats"; an
 * address no extent holds as "0xffff...".
 */
void ksyms_frame(const struct ksyms *s, uint64_t addr, char *buf, size_t n);

/*
 * The caller of a lock in a kernel stack taken while a task waits for it
 * (innermost frame first, as the stacktrace trigger gives it): the index
 * of the first frame that is none of
 *  - the tracing machinery's own, at the top (trace_event_raw_event_*,
 *    __traceiter_*, the trigger's functions);
 *  - lock functions: the .sched.text and .lock.text sections (perf's
 *    machine__is_lock_function());
 *  - a BPF trampoline attached to a lock function (the lab's fentry/fexit
 *    on mutex_lock): it stands for that function;
 *  - the instrumentation's own code: ftrace's trampolines, what BPF
 *    trampolines call around their programs, kprobes' slots, and the int3
 *    handler of live code patching;
 *  - a BPF program, or an address no symbol holds: what a stack-guessing
 *    unwinder (CONFIG_UNWINDER_GUESS, the lab kernel's) finds on the stack
 *    besides the return addresses, such as an fentry program's stale
 *    frame, or a trampoline freed since;
 * or -1.  No fixed number of frames is skipped: how many the trigger's
 * stack holds above the caller depends on the unwinder and on what BPF
 * has attached (perf 6.1 skips 3 and names a BPF program here, perf 7.3
 * skips 4).  Uses ksyms_lookup_fresh(): one thread at a time.
 */
int ksyms_lock_caller(const struct ksyms *s, const uint64_t *f, int n);

#endif
