// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stack frames named from kallsyms, against the kernel's own names:
 * recordings (lab/tests/data/kallsyms/README.md) of lock:contention_begin
 * stacks (the stacktrace trigger, with sym-offset and sym-addr: the
 * kernel prints "sym+off/size <addr>") and /proc/kallsyms at the same
 * moment, from
 *  - the lab kernel (7.3 with the user-flush mutex, CONFIG_UNWINDER_GUESS)
 *    while `lock record` has its fentry/fexit programs on mutex_lock,
 *    mutex_unlock and mem_cgroup_user_flush_stats: BPF trampolines and
 *    programs in the stacks, [bpf] symbols in kallsyms;
 *  - Debian's 7.3 (ORC unwinder) with its modules loaded (brd, ext4, ...).
 * Every frame the kernel named is named the same, at the same offset,
 * with the kernel's extent for kernel-image frames; the lock's caller is
 * mem_cgroup_user_flush_stats for every stack of the mutex (perf 7.3's
 * answer on the same kernel; the old rule said bpf_trampoline_...+0x76
 * or _end+0x1dca7ff6); an address past the image is never "_end+...".
 * And, as root, the live path: a BPF program loaded here gets its JIT
 * length as its extent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/filter.h>
#include "kernel/kallsyms.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"

#define DATA TEST_DATA "/kallsyms/"
#define MAX_FRAMES 32
#define MAX_STACKS 128

struct frame {
	uint64_t addr;
	char name[160];		/* the kernel's "sym+0xoff", or "" when it printed a bare address */
	uint64_t size;		/* the kernel's symbol size */
};

struct stack {
	struct frame f[MAX_FRAMES];
	int n;
};

/* The trigger's stacks of a trace file: " => sym+0x23/0x40 <ffffffff81301493>". */
static int read_stacks(const char *path, struct stack *st)
{
	char *text = read_text(path, NULL), *save = NULL;
	int n = -1;

	if (!text)
		return 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct frame *f;
		char *lt, *slash;

		if (strstr(l, "<stack trace>")) {
			if (n + 1 >= MAX_STACKS)
				break;
			st[++n].n = 0;
			continue;
		}
		if (n < 0 || strncmp(l, " => ", 4) || st[n].n == MAX_FRAMES || !(lt = strrchr(l, '<')))
			continue;
		f = &st[n].f[st[n].n++];
		f->addr = strtoull(lt + 1, NULL, 16);
		lt[-1] = '\0';
		f->name[0] = '\0';
		f->size = 0;
		if (strncmp(l + 4, "0x", 2)) {
			slash = strrchr(l + 4, '/');
			if (slash) {
				*slash = '\0';
				f->size = strtoull(slash + 1, NULL, 16);
			}
			snprintf(f->name, sizeof(f->name), "%s", l + 4);
		}
	}
	free(text);
	return n + 1;
}

/* A BTF with the lab kernel's function ids (its vmlinux: 57172
 * mem_cgroup_user_flush_stats, 58003 mutex_lock, 58009 mutex_unlock),
 * the rest padding: the trampolines' keys name them. */
static struct btf *lab_btf(void)
{
	static const struct {
		int id;
		const char *name;
	} funcs[] = { { 57172, "mem_cgroup_user_flush_stats" }, { 58003, "mutex_lock" }, { 58009, "mutex_unlock" } };
	struct btf *b = btf__new_empty();
	int proto;

	if (!b)
		return NULL;
	proto = btf__add_func_proto(b, 0);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		while ((int)btf__type_cnt(b) < funcs[i].id)
			btf__add_int(b, "pad", 4, 0);
		if (btf__add_func(b, funcs[i].name, BTF_FUNC_GLOBAL, proto) != funcs[i].id)
			return NULL;
	}
	return b;
}

/* Every frame the kernel named gets its name and offset, and a
 * kernel-image frame the kernel's extent; a frame it could not name
 * (a freed trampoline image) is no kernel-image symbol's. */
static void frames_as_kernel(const struct ksyms *s, const struct stack *st, int nst, const char *what)
{
	int named = 0, bad = 0, bare = 0, badsize = 0;
	char buf[256], first[512] = "";

	for (int i = 0; i < nst; i++)
		for (int j = 0; j < st[i].n; j++) {
			const struct frame *f = &st[i].f[j];
			uint64_t off;
			const struct ksym *k = ksyms_lookup(s, f->addr, &off);

			ksyms_format(s, f->addr, buf, sizeof(buf));
			if (!f->name[0]) {
				bare++;
				if (k && !k->module && !bad++)
					snprintf(first, sizeof(first), "%#lx: %s, the kernel: no symbol",
						 (unsigned long)f->addr, buf);
				continue;
			}
			named++;
			if (strcmp(buf, f->name) && !bad++)
				snprintf(first, sizeof(first), "%s, the kernel: %s", buf, f->name);
			if (k && !k->module && k->end - k->addr != f->size && !badsize++ && !first[0])
				snprintf(first, sizeof(first), "%s: extent %#lx, the kernel's size %#lx", buf,
					 (unsigned long)(k->end - k->addr), (unsigned long)f->size);
		}
	ok(named > 0 && !bad && !badsize, "%s: %d frames named as the kernel names them, kernel-image extents "
	   "its sizes (%d it left bare)%s%s", what, named, bare, first[0] ? ": " : "", first);
}

/* Callers by the kernel's names: the first frame past the tracepoint's
 * and the lock functions' own (their names as the kernel printed them). */
static const char *oracle_caller(const struct stack *st)
{
	static const char *const lock_fns[] = { "trace_event_raw_event_", "__mutex_lock", "mutex_lock",
						"rwsem_down_", "down_write", "down_read", "queued_", "_raw_" };

	for (int j = 0; j < st->n; j++) {
		bool lockish = false;

		for (size_t i = 0; i < sizeof(lock_fns) / sizeof(lock_fns[0]); i++)
			lockish = lockish || !strncmp(st->f[j].name, lock_fns[i], strlen(lock_fns[i]));
		if (!lockish)
			return st->f[j].name;
	}
	return "";
}

/* The lab's caller of a recorded stack, named as its tables name it. */
static void caller_of(const struct ksyms *s, const struct stack *st, char *buf, size_t n)
{
	uint64_t f[MAX_FRAMES];
	int c;

	for (int j = 0; j < st->n; j++)
		f[j] = st->f[j].addr;
	c = ksyms_lock_caller(s, f, st->n);
	if (c >= 0)
		ksyms_frame(s, f[c], buf, n);
	else
		snprintf(buf, n, "none");
}

TEST(lab_kernel_frames)
{
	static struct stack st[MAX_STACKS];
	struct ksyms s, before;
	struct btf *btf = lab_btf();
	char err[256], buf[256], *text, *kept, *out;
	int nst = read_stacks(DATA "lab-7.3-bpf.trace", st), right = 0;
	uint32_t obj = 0, id = 0;
	const struct ksym *k;
	char first[512] = "";

	ok(nst == 64 && btf, "lab kernel: 64 recorded stacks of stats_user_flush_mutex waits");
	if (ksyms_load(&s, DATA "lab-7.3-bpf.kallsyms", err, sizeof(err))) {
		ok(0, "lab kernel: its kallsyms loads (%s)", err);
		return;
	}
	ksyms_set_btf(&s, btf);
	frames_as_kernel(&s, st, nst, "lab kernel, BPF attached");

	/* The caller: past the trampoline on mutex_lock (it stands for that
	 * lock function), a stale fentry program frame, ftrace's trampoline,
	 * exc_int3 and freed trampoline images. */
	for (int i = 0; i < nst; i++) {
		caller_of(&s, &st[i], buf, sizeof(buf));
		if (!strcmp(buf, "mem_cgroup_user_flush_stats+0x23"))
			right++;
		else if (!first[0])
			snprintf(first, sizeof(first), "; stack %d: %s", i, buf);
	}
	is_int(right, nst, "lab kernel: the caller of every wait is mem_cgroup_user_flush_stats+0x23, "
	       "as perf 7.3 says%s", first);

	k = ksyms_find(&s, "bpf_trampoline_6442508947");
	ok(k && ksyms_bpf_trampoline(k, &obj, &id) && obj == 1 && id == 58003,
	   "bpf_trampoline_6442508947: vmlinux BTF (object 1), type 58003");
	ksyms_frame(&s, 0xffffffffa0402280ull + 0x76, buf, sizeof(buf));
	ok(!strcmp(buf, "mem_cgroup_user_flush_stats"), "a frame in the trampoline on "
	   "mem_cgroup_user_flush_stats stands for that function (%s)", buf);
	ksyms_format(&s, 0xffffffffa0402280ull + 0x76, buf, sizeof(buf));
	ok(!strcmp(buf, "bpf_trampoline_6442508116+0x76"), "ksyms_format keeps the symbol (%s)", buf);

	/* Read before the programs were attached: no [bpf] lines.  The
	 * addresses past the image print bare; a fresh read finds them. */
	text = read_text(DATA "lab-7.3-bpf.kallsyms", NULL);
	out = kept = xmalloc(strlen(text) + 1);
	for (char *l = text, *nl; *l; l = nl) {
		nl = strchr(l, '\n');
		nl = nl ? nl + 1 : l + strlen(l);
		if (!memmem(l, (size_t)(nl - l), "[bpf]", 5)) {
			memcpy(out, l, (size_t)(nl - l));
			out += nl - l;
		}
	}
	*out = '\0';
	ok(!ksyms_parse(&before, kept, "before-attach", err, sizeof(err)), "lab kernel: kallsyms without its "
	   "[bpf] lines, as read before the attach");
	ksyms_format(&before, 0xffffffffa0400ff6ull, buf, sizeof(buf));
	ok(!strcmp(buf, "0xffffffffa0400ff6"), "an address past _end prints bare, not _end+0x1e0a7ff6 (%s)", buf);
	ksyms_format(&before, 0xffffffff82359000ull, buf, sizeof(buf));
	ok(!strcmp(buf, "_end") || !strcmp(buf, "__brk_limit") || !strcmp(buf, "__pi__end"),
	   "_end itself is _end (or an alias at its address: %s)", buf);
	ksyms_format(&before, 0xffffffff82359001ull, buf, sizeof(buf));
	ok(!strcmp(buf, "0xffffffff82359001"), "_end has no extent: _end+1 prints bare (%s)", buf);
	ksyms_frame(&before, 0xffffffffa0402280ull + 0x76, buf, sizeof(buf));
	ok(!strcmp(buf, "0xffffffffa04022f6"), "without a fresh source the trampoline stays unknown (%s)", buf);
	ksyms_refresh_from(&before, DATA "lab-7.3-bpf.kallsyms");
	ksyms_set_btf(&before, btf);
	ksyms_frame(&before, 0xffffffffa0402280ull + 0x76, buf, sizeof(buf));
	ok(!strcmp(buf, "mem_cgroup_user_flush_stats"), "a fresh read finds the trampoline attached since (%s)", buf);
	ksyms_frame(&before, 0xffffffffa0400018ull + 0xd8, buf, sizeof(buf));
	ok(!strcmp(buf, "bpf_prog_85ba68da89a43450_func_enter_fe+0xd8"), "and the programs (%s)", buf);
	ksyms_set_btf(&before, NULL);
	ksyms_frame(&before, 0xffffffffa0402280ull + 0x76, buf, sizeof(buf));
	ok(!strcmp(buf, "bpf_trampoline_6442508116+0x76"), "without BTF a trampoline keeps its own name (%s)", buf);
	ksyms_free(&before);
	free(kept);
	free(text);
	ksyms_free(&s);
	btf__free(btf);
}

TEST(debian_kernel_frames)
{
	static struct stack st[MAX_STACKS];
	struct ksyms s;
	char err[256], buf[256], first[512] = "";
	int nst = read_stacks(DATA "debian-7.3-modules.trace", st), right = 0;

	ok(nst == 64, "Debian 7.3: 64 recorded stacks of lock waits (ORC unwinder)");
	if (ksyms_load(&s, DATA "debian-7.3-modules.kallsyms", err, sizeof(err))) {
		ok(0, "Debian 7.3: its kallsyms loads (%s)", err);
		return;
	}
	frames_as_kernel(&s, st, nst, "Debian 7.3");
	for (int i = 0; i < nst; i++) {
		caller_of(&s, &st[i], buf, sizeof(buf));
		if (!strcmp(buf, oracle_caller(&st[i])))
			right++;
		else if (!first[0])
			snprintf(first, sizeof(first), "; stack %d: %s, want %s", i, buf, oracle_caller(&st[i]));
	}
	is_int(right, nst, "Debian 7.3: each caller is the first frame past the lock functions "
	       "(cgroup_bpf_release, filename_rmdir, ...; a fixed skip of 3 said worker_thread)%s", first);

	/* Modules: extents within a module's text, a page at most past its last. */
	ksyms_format(&s, 0xffffffffc04003a0ull + 0x10, buf, sizeof(buf));
	ok(!strcmp(buf, "brd_submit_bio+0x10"), "a module function (%s)", buf);
	ksyms_format(&s, 0xffffffffc0411010ull + 0x20, buf, sizeof(buf));
	ok(!strcmp(buf, "crc16+0x20"), "crc16's only function (%s)", buf);
	ksyms_format(&s, 0xffffffffc0203314ull + 0x2000, buf, sizeof(buf));
	ok(!strcmp(buf, "0xffffffffc0205314"), "2 pages past a module's last rodata symbol: bare (%s)", buf);
	ksyms_format(&s, 0xffffffffc0201200ull + 0x100, buf, sizeof(buf));
	ok(!strcmp(buf, "__this_module+0x100"), "module data up to its next data symbol (%s)", buf);
	ksyms_free(&s);
}

/* The trampolines' keys of other kernels, and names that are no trampoline. */
TEST(bpf_trampoline_keys)
{
	uint32_t obj, id;
	struct ksym k = { .name = "bpf_trampoline_4295025299", .module = "bpf" };

	ok(ksyms_bpf_trampoline(&k, &obj, &id) && obj == 1 && id == 58003,
	   "an older kernel's key (no bit 31, object 1) decodes too");
	k.name = "bpf_trampoline_30064771115";	/* 7 << 32 | 43: a trampoline on BPF program 7 */
	ok(!ksyms_bpf_trampoline(&k, &obj, &id), "a trampoline on a BPF program names no vmlinux function");
	k.name = "bpf_prog_85ba68da89a43450_func_enter_fe";
	ok(!ksyms_bpf_trampoline(&k, &obj, &id), "a BPF program is no trampoline");
}

/* As root: a BPF program loaded here, named with its JIT length. */
TEST(live_bpf_extent)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), flen = 0;
	__u64 addr = 0;
	struct ksyms s;
	const struct ksym *k = NULL;
	char err[256], name[64], buf[256];
	int fd;

	if (geteuid()) {
		tap_skip("live BPF extents", "not root: BPF programs' addresses and lengths are root's");
		return;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "lab_extent", "GPL", prog, 2, &opts);
	if (fd < 0) {
		tap_skip("live BPF extents", "this kernel refused a 2-instruction socket filter");
		return;
	}
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.nr_jited_ksyms) {
		struct bpf_prog_info i2 = { .nr_jited_ksyms = 1, .jited_ksyms = (__u64)(uintptr_t)&addr,
					    .nr_jited_func_lens = 1, .jited_func_lens = (__u64)(uintptr_t)&flen };

		len = sizeof(i2);
		bpf_obj_get_info_by_fd(fd, &i2, &len);
	}
	snprintf(name, sizeof(name), "bpf_prog_%02x%02x%02x%02x%02x%02x%02x%02x_lab_extent", info.tag[0],
		 info.tag[1], info.tag[2], info.tag[3], info.tag[4], info.tag[5], info.tag[6], info.tag[7]);
	if (!addr || ksyms_load(&s, NULL, err, sizeof(err)) || !(k = ksyms_find(&s, name))) {
		tap_skip("live BPF extents", "the program is not in /proc/kallsyms (net.core.bpf_jit_kallsyms 0?)");
		if (addr && k == NULL && s.n)
			ksyms_free(&s);
		close(fd);
		return;
	}
	ok(k->addr == addr && k->end == addr + flen, "a BPF program loaded here: its extent is its JIT length "
	   "(%u bytes)", flen);
	ksyms_format(&s, addr + flen, buf, sizeof(buf));
	ok(!strstr(buf, name), "an address at its end is not the program's (%s)", buf);
	ksyms_free(&s);
	close(fd);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
