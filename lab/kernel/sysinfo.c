// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <hwloc.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kernel/leftovers.h"
#include "kernel/tracefs_dir.h"
#include "kernel/sysinfo.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/run.h"

void lab_topology_read(struct lab_topology *t)
{
	hwloc_topology_t topo;
	int depth;

	memset(t, 0, sizeof(*t));
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
		t->cpus = t->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
		t->smt = t->llcs = t->nodes = 1;
		t->cpus_per_llc = t->cpus;
		snprintf(t->evidence, sizeof(t->evidence), "sysconf (hwloc could not load the topology)");
		return;
	}
	t->cpus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	t->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	t->nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	/* The last-level cache is the deepest-numbered data cache present. */
	t->llcs = 0;
	for (hwloc_obj_type_t ct = HWLOC_OBJ_L3CACHE; ct >= HWLOC_OBJ_L1CACHE && !t->llcs; ct--) {
		depth = hwloc_get_type_depth(topo, ct);
		if (depth >= 0)
			t->llcs = hwloc_get_nbobjs_by_depth(topo, depth);
		if (ct == HWLOC_OBJ_L1CACHE)
			break;
	}
	if (t->cores <= 0)
		t->cores = t->cpus;
	if (t->nodes <= 0)
		t->nodes = 1;
	if (t->llcs <= 0)
		t->llcs = 1;
	t->smt = t->cores ? t->cpus / t->cores : 1;
	if (t->smt < 1)
		t->smt = 1;
	t->cpus_per_llc = t->cpus / t->llcs;
	snprintf(t->evidence, sizeof(t->evidence), "hwloc %s", HWLOC_API_VERSION >= 0x20000 ? "2.x" : "1.x");
	hwloc_topology_destroy(topo);
}

static int silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

/* "return 0": the smallest program the verifier accepts. */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static void probe_bpf(struct lab_sysinfo *s)
{
	struct btf *vmlinux;
	int id, fd, link;

	libbpf_set_print(silent);
	s->bpf_tracepoint.ok = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACEPOINT, NULL) == 1;
	snprintf(s->bpf_tracepoint.evidence, sizeof(s->bpf_tracepoint.evidence), "%s",
		 s->bpf_tracepoint.ok ? "a tracepoint program loads" :
		 "loading a tracepoint program failed (no CONFIG_BPF_EVENTS, not root, or BPF disabled)");

	/* kprobes: BPF attaches through the perf kprobe PMU or kprobe_events. */
	if (path_exists("/sys/bus/event_source/devices/kprobe/type")) {
		s->kprobes.ok = true;
		snprintf(s->kprobes.evidence, sizeof(s->kprobes.evidence), "perf kprobe PMU present");
	} else if (s->tracefs[0]) {
		char p[300];

		snprintf(p, sizeof(p), "%s/kprobe_events", s->tracefs);
		s->kprobes.ok = path_exists(p);
		snprintf(s->kprobes.evidence, sizeof(s->kprobes.evidence), "%s",
			 s->kprobes.ok ? "tracefs kprobe_events present" :
			 "no perf kprobe PMU and no tracefs kprobe_events (CONFIG_KPROBES off)");
	} else {
		snprintf(s->kprobes.evidence, sizeof(s->kprobes.evidence),
			 "no perf kprobe PMU (/sys/bus/event_source/devices/kprobe) and tracefs not mounted");
	}

	/* fentry: load a tracing program on vfs_read and attach it for a moment. */
	vmlinux = btf__load_vmlinux_btf();
	id = vmlinux ? btf__find_by_name_kind(vmlinux, "vfs_read", BTF_KIND_FUNC) : -1;
	btf__free(vmlinux);
	if (id <= 0) {
		snprintf(s->fentry.evidence, sizeof(s->fentry.evidence), "no kernel BTF FUNC vfs_read to attach to");
		return;
	}
	{
		LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY,
			    .attach_btf_id = id);

		fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "lab_fentry_probe", "GPL", ret0, 2, &opts);
	}
	if (fd < 0) {
		snprintf(s->fentry.evidence, sizeof(s->fentry.evidence), "loading an fentry program failed: %s",
			 strerror(errno));
		return;
	}
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0) {
		snprintf(s->fentry.evidence, sizeof(s->fentry.evidence),
			 "an fentry program loads but does not attach: %s", strerror(errno));
	} else {
		s->fentry.ok = true;
		snprintf(s->fentry.evidence, sizeof(s->fentry.evidence), "an fentry program on vfs_read attaches");
		close(link);
	}
	close(fd);
}

static const char *const kconfig_keys[] = {
	"CONFIG_SMP", "CONFIG_NR_CPUS", "CONFIG_NUMA", "CONFIG_MEMCG", "CONFIG_MEMCG_V1",
	"CONFIG_MEMCG_KMEM", "CONFIG_PREEMPT_RT", "CONFIG_DEBUG_LOCK_ALLOC", "CONFIG_PROVE_LOCKING",
	"CONFIG_LOCK_STAT", "CONFIG_KPROBES", "CONFIG_KPROBE_EVENTS", "CONFIG_FUNCTION_TRACER",
	"CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", "CONFIG_BPF_SYSCALL", "CONFIG_BPF_EVENTS",
	"CONFIG_DEBUG_INFO_BTF", "CONFIG_KALLSYMS_ALL", "CONFIG_SLUB", "CONFIG_HZ",
};

static char *read_gz(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *buf;
	int r;

	if (!gz)
		return NULL;
	buf = xmalloc(cap);
	while ((r = gzread(gz, buf + n, cap - n - 1)) > 0) {
		n += r;
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	gzclose(gz);
	buf[n] = '\0';
	return buf;
}

static void read_kconfig(struct lab_sysinfo *s)
{
	struct utsname u;
	char path[300], *text = NULL;

	uname(&u);
	if (path_exists("/proc/config.gz") && (text = read_gz("/proc/config.gz"))) {
		snprintf(s->kconfig_source, sizeof(s->kconfig_source), "/proc/config.gz");
	} else {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		text = read_text(path, NULL);
		if (text)
			snprintf(s->kconfig_source, sizeof(s->kconfig_source), "%s", path);
	}
	if (!text)
		return;
	s->kconfig = json_object_new_object();
	for (size_t i = 0; i < sizeof(kconfig_keys) / sizeof(kconfig_keys[0]); i++) {
		char want[96], *p;
		const char *val = "not set";
		char vbuf[64];

		snprintf(want, sizeof(want), "\n%s=", kconfig_keys[i]);
		p = strstr(text, want);
		if (p) {
			size_t len;

			p += strlen(want);
			len = strcspn(p, "\n");
			snprintf(vbuf, sizeof(vbuf), "%.*s", (int)(len < 63 ? len : 63), p);
			val = vbuf;
		}
		json_object_object_add(s->kconfig, kconfig_keys[i], json_object_new_string(val));
	}
	free(text);
}

void lab_sysinfo_read(struct lab_sysinfo *s)
{
	char *out;

	memset(s, 0, sizeof(*s));
	lab_topology_read(&s->topo);
	s->tracefs_state = lab_tracefs_state_name(lab_tracefs_state(s->tracefs, sizeof(s->tracefs),
								      s->tracefs_evidence,
								      sizeof(s->tracefs_evidence)));
	probe_bpf(s);
	s->lock_stat.ok = path_exists("/proc/lock_stat");
	snprintf(s->lock_stat.evidence, sizeof(s->lock_stat.evidence), "%s",
		 s->lock_stat.ok ? "/proc/lock_stat present (CONFIG_LOCK_STAT)" :
		 "/proc/lock_stat absent (no CONFIG_LOCK_STAT)");
	out = run_first_line((const char *const[]){ "perf", "--version", NULL });
	if (out[0])
		snprintf(s->perf_version, sizeof(s->perf_version), "%s",
			 !strncmp(out, "perf version ", 13) ? out + 13 : out);
	free(out);
	read_kconfig(s);
}

void lab_sysinfo_free(struct lab_sysinfo *s)
{
	json_object_put(s->kconfig);
	s->kconfig = NULL;
}

static json_object *cap_json(const struct lab_capability *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "usable", json_object_new_boolean(c->ok));
	json_object_object_add(o, "evidence", json_object_new_string(c->evidence));
	return o;
}

json_object *lab_sysinfo_json(const struct lab_sysinfo *s)
{
	json_object *o = json_object_new_object(), *t = json_object_new_object();

	json_object_object_add(t, "cpus", json_object_new_int(s->topo.cpus));
	json_object_object_add(t, "cores", json_object_new_int(s->topo.cores));
	json_object_object_add(t, "smt", json_object_new_int(s->topo.smt));
	json_object_object_add(t, "llc_groups", json_object_new_int(s->topo.llcs));
	json_object_object_add(t, "cpus_per_llc", json_object_new_int(s->topo.cpus_per_llc));
	json_object_object_add(t, "numa_nodes", json_object_new_int(s->topo.nodes));
	json_object_object_add(t, "evidence", json_object_new_string(s->topo.evidence));
	json_object_object_add(o, "topology", t);
	json_object_object_add(o, "tracefs", s->tracefs[0] ? json_object_new_string(s->tracefs) : NULL);
	json_object_object_add(o, "tracefs_state", json_object_new_string(s->tracefs_state));
	json_object_object_add(o, "tracefs_evidence", json_object_new_string(s->tracefs_evidence));
	json_object_object_add(o, "bpf_tracepoint", cap_json(&s->bpf_tracepoint));
	json_object_object_add(o, "kprobes", cap_json(&s->kprobes));
	json_object_object_add(o, "fentry", cap_json(&s->fentry));
	json_object_object_add(o, "lock_stat", cap_json(&s->lock_stat));
	json_object_object_add(o, "perf_version", s->perf_version[0] ? json_object_new_string(s->perf_version) : NULL);
	json_object_object_add(o, "kconfig_source",
			       s->kconfig_source[0] ? json_object_new_string(s->kconfig_source) : NULL);
	json_object_object_add(o, "kconfig", s->kconfig ? json_object_get(s->kconfig) : NULL);
	return o;
}
