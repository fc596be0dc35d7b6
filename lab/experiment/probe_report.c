// SPDX-License-Identifier: GPL-2.0
/*
 * The probe's findings (experiment/probe_report.h): what `memcg-lab probe`
 * prints and what every run records in meta.json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "experiment/probe_report.h"
#include "util/err.h"
#include "util/metrics.h"
#include "util/outfile.h"

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/*
 * The objcg slots BTF implies: obj_stock_pcp's, or before 6.16 the one
 * memcg_stock_pcp.cached_objcg (features report null there: no obj_stock_pcp).
 */
static int btf_objcg_slots(const struct probe_report *p)
{
	struct kbtf_field f;
	int st;

	if (p->feat.obj_stock_slots > 0)
		return p->feat.obj_stock_slots;
	st = kbtf_find_struct(&p->kbtf, "memcg_stock_pcp");
	return st > 0 && !kbtf_member(&p->kbtf, st, "cached_objcg", &f) ? 1 : -1;
}

void probe_collect(struct probe_report *p, const char *btf_file, const char *vmlinux)
{
	char err[512];

	memset(p, 0, sizeof(*p));
	if (kbtf_open(&p->kbtf, btf_file, vmlinux, err, sizeof(err)))
		die("%s", err);
	p->running = !btf_file && !vmlinux;
	if (p->running) {
		if (!ksyms_load(&p->syms, NULL, err, sizeof(err)))
			p->have_syms = true;
		else
			snprintf(p->syms_note, sizeof(p->syms_note), "%s", err);
		lab_sysinfo_read(&p->sys);
		cg_detect(&p->cg, NULL);
		c2c_caps_detect(&p->c2c);
	} else if (vmlinux && p->kbtf.source != KBTF_RAW) {
		if (!ksyms_load_vmlinux(&p->syms, vmlinux, err, sizeof(err)))
			p->have_syms = true;
		else
			snprintf(p->syms_note, sizeof(p->syms_note), "%s", err);
	} else {
		snprintf(p->syms_note, sizeof(p->syms_note), "raw BTF: no symbol table (BTF FUNCs only)");
	}
	kfeatures_detect(&p->feat, &p->kbtf, p->have_syms ? &p->syms : NULL,
			 p->running && p->sys.tracefs[0] ? p->sys.tracefs : NULL);
}

void probe_runtime(struct probe_report *p, int rounds)
{
	char err[512];

	if (!p->running)
		die("probe: --runtime measures the running kernel; it cannot be combined with --btf or --vmlinux");
	if (runtime_probe_run(&p->cg, rounds, &p->rt, err, sizeof(err)))
		die("probe --runtime: %s", err);
	p->have_runtime = true;
	if (p->rt.stock_slots.mode != p->feat.stock_slots)
		warnx_lab("runtime stock slots %d disagree with BTF's %d (%s)", p->rt.stock_slots.mode,
			  p->feat.stock_slots, p->feat.stock_slots_evidence);
	if (p->rt.obj_stock_slots.nsamples && p->rt.obj_stock_slots.mode != btf_objcg_slots(p))
		warnx_lab("runtime obj stock slots %d disagree with BTF's %d (%s)", p->rt.obj_stock_slots.mode,
			  btf_objcg_slots(p), p->feat.obj_stock_slots_evidence);
}

static json_object *stat_json(const struct runtime_probe_stat *s, int rounds)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "mode", json_object_new_int(s->mode));
	json_object_object_add(o, "min", json_object_new_int(s->min));
	json_object_object_add(o, "max", json_object_new_int(s->max));
	json_object_object_add(o, "rounds_ok", json_object_new_int(s->nsamples));
	for (int i = 0; i < rounds; i++)
		json_object_array_add(a, json_object_new_int(s->samples[i]));
	json_object_object_add(o, "samples", a);
	return o;
}

json_object *probe_runtime_json(const struct probe_report *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "charge_batch", json_object_new_int(p->rt.charge_batch.mode));
	json_object_object_add(o, "stock_slots", json_object_new_int(p->rt.stock_slots.mode));
	json_object_object_add(o, "agrees_with_btf", json_object_new_boolean(p->rt.stock_slots.mode ==
									      p->feat.stock_slots));
	json_object_object_add(o, "charge_batch_rounds", stat_json(&p->rt.charge_batch, p->rt.rounds));
	json_object_object_add(o, "stock_slots_rounds", stat_json(&p->rt.stock_slots, p->rt.rounds));
	json_object_object_add(o, "stock_slots_saturated", json_object_new_boolean(p->rt.stock_saturated));
	json_object_object_add(o, "obj_stock_slots", p->rt.obj_stock_slots.nsamples ?
			       json_object_new_int(p->rt.obj_stock_slots.mode) : NULL);
	json_object_object_add(o, "obj_stock_slots_agree_with_btf", json_object_new_boolean(
			       p->rt.obj_stock_slots.nsamples && p->rt.obj_stock_slots.mode == btf_objcg_slots(p)));
	json_object_object_add(o, "obj_stock_slots_rounds", stat_json(&p->rt.obj_stock_slots, p->rt.rounds));
	json_object_object_add(o, "obj_stock_slots_saturated", json_object_new_boolean(p->rt.obj_stock_saturated));
	json_object_object_add(o, "obj_method", json_object_new_string(p->rt.obj_method));
	json_object_object_add(o, "cpu", json_object_new_int(p->rt.cpu));
	json_object_object_add(o, "page_size", json_object_new_int64(p->rt.page_size));
	json_object_object_add(o, "method", json_object_new_string(p->rt.method));
	return o;
}

static json_object *cgroup_json(const struct cg_env *cg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "mode", json_object_new_string(cg_mode_name(cg->mode)));
	json_object_object_add(o, "memory_v2", json_object_new_boolean(cg->memory_v2));
	json_object_object_add(o, "memory_root", cg->memory_root[0] ? json_object_new_string(cg->memory_root) : NULL);
	json_object_object_add(o, "unified_root", cg->unified_root[0] ? json_object_new_string(cg->unified_root) : NULL);
	json_object_object_add(o, "evidence", json_object_new_string(cg->evidence));
	return o;
}

void probe_release(struct probe_report *p)
{
	if (p->have_syms)
		ksyms_free(&p->syms);
	if (p->running)
		lab_sysinfo_free(&p->sys);
	kbtf_close(&p->kbtf);
}

json_object *probe_json(const struct probe_report *p)
{
	json_object *o = json_object_new_object(), *types = json_object_new_object();

	json_object_object_add(o, "kernel", p->kbtf.release ? json_object_new_string(p->kbtf.release) : NULL);
	json_object_object_add(o, "kernel_evidence", json_object_new_string(p->kbtf.release_evidence));
	json_object_object_add(types, "source", json_object_new_string(kbtf_source_name(p->kbtf.source)));
	json_object_object_add(types, "path", json_object_new_string(p->kbtf.path));
	json_object_object_add(types, "symbols", json_object_new_string(p->have_syms ? p->syms.source : p->syms_note));
	json_object_object_add(o, "types", types);
	json_object_object_add(o, "features", kfeatures_json(&p->feat));
	json_object_object_add(o, "tracepoints", kfeatures_tracepoints_json(&p->feat));
	if (p->running) {
		json_object *m = lab_sysinfo_json(&p->sys);

		json_object *c = json_object_new_object();

		json_object_object_add(m, "cgroup", cgroup_json(&p->cg));
		json_object_object_add(c, "usable", json_object_new_boolean(p->c2c.supported));
		json_object_object_add(c, "method", json_object_new_string(p->c2c.method));
		json_object_object_add(c, "evidence", json_object_new_string(p->c2c.line));
		json_object_object_add(m, "perf_c2c", c);
		json_object_object_add(o, "machine", m);
	}
	if (p->have_runtime)
		json_object_object_add(o, "runtime", probe_runtime_json(p));
	return o;
}

static void print_cap(FILE *f, const char *name, const struct lab_capability *c)
{
	fprintf(f, "  %-18s %-4s %s\n", name, yes_no(c->ok), c->evidence);
}

/* "memcg stock (memcg_stock_pcp), 7 slots" or "per-page_counter stock (page_counter.stock)". */
static const char *stock_class_text(const struct kfeatures *ft, char *buf, size_t n)
{
	if (!strcmp(ft->stock_class, "memcg_stock_pcp"))
		snprintf(buf, n, "memcg stock (per-CPU memcg_stock_pcp), %d slot%s", ft->stock_slots,
			 ft->stock_slots == 1 ? "" : "s");
	else if (!strcmp(ft->stock_class, "page_counter"))
		snprintf(buf, n, "per-page_counter stock (page_counter.stock)");
	else
		snprintf(buf, n, "none");
	return buf;
}

void probe_print(FILE *f, const struct probe_report *p)
{
	const struct kfeatures *ft = &p->feat;
	char cls[96];

	fprintf(f, "kernel               %s   (%s)\n", p->kbtf.release ? p->kbtf.release : "unknown",
		p->kbtf.release_evidence);
	fprintf(f, "types                %s: %s\n", kbtf_source_name(p->kbtf.source), p->kbtf.path);
	fprintf(f, "symbols              %s\n", p->have_syms ? p->syms.source : p->syms_note);
	fprintf(f, "\nfeatures\n");
	fprintf(f, "  %-18s %-4d %s\n", "cacheline_size", ft->cacheline_size, ft->cacheline_size_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "cacheline_split", yes_no(ft->cacheline_split), ft->cacheline_split_evidence);
	fprintf(f, "  %-18s %-4d %s\n", "stock_slots", ft->stock_slots, ft->stock_slots_evidence);
	fprintf(f, "  %-18s %s\n  %-18s      (%s)\n", "stock_class", stock_class_text(ft, cls, sizeof(cls)), "",
		ft->stock_class_evidence);
	if (ft->obj_stock_slots < 0)
		fprintf(f, "  %-18s %-4s %s\n", "obj_stock_slots", "none", ft->obj_stock_slots_evidence);
	else
		fprintf(f, "  %-18s %-4d %s\n", "obj_stock_slots", ft->obj_stock_slots, ft->obj_stock_slots_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "user_flush_mutex", yes_no(ft->user_flush_mutex), ft->user_flush_mutex_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "obj_stock_split", yes_no(ft->obj_stock_split), ft->obj_stock_split_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "lock_debug", yes_no(ft->lock_debug), ft->lock_debug_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "lock_rt", yes_no(ft->lock_rt), ft->lock_rt ?
		"the stock's lock is PREEMPT_RT's spinlock_t: stock rules use its real size" : "not a PREEMPT_RT lock");
	fprintf(f, "  %-18s %s\n  %-18s      (%s)\n", "flush_scheme", ft->flush_scheme, "", ft->flush_evidence);
	fprintf(f, "\ntracepoints                               btf  tracefs\n");
	for (int i = 0; i < ft->ntracepoints; i++) {
		const struct kf_tracepoint *tp = &ft->tracepoints[i];

		fprintf(f, "  %-40s %-4s %s\n", tp->name, yes_no(tp->in_btf),
			tp->in_tracefs >= 0 ? yes_no(tp->in_tracefs) : !p->running ? "offline" :
			!strcmp(p->sys.tracefs_state, "mountable") ? "mountable" : "not mounted");
	}
	if (!p->running)
		return;
	fprintf(f, "\nmachine\n");
	fprintf(f, "  %-18s %d (cores %d, SMT %d, LLC groups %d of %d CPUs, NUMA nodes %d; %s)\n", "cpus",
		p->sys.topo.cpus, p->sys.topo.cores, p->sys.topo.smt, p->sys.topo.llcs, p->sys.topo.cpus_per_llc,
		p->sys.topo.nodes, p->sys.topo.evidence);
	fprintf(f, "  %-18s %s: memory %s%s%s\n  %-18s      (%s)\n", "cgroup", cg_mode_name(p->cg.mode),
		p->cg.mode == CG_NONE ? "controller not mounted" : p->cg.memory_v2 ? "on v2 at " : "on v1 at ",
		p->cg.memory_root, p->cg.unified_root[0] && !p->cg.memory_v2 ? "; cgroup2 without memory" : "", "",
		p->cg.evidence);
	fprintf(f, "  %-18s %s\n  %-18s      (%s)\n", "tracefs",
		p->sys.tracefs[0] ? p->sys.tracefs : p->sys.tracefs_state, "", p->sys.tracefs_evidence);
	print_cap(f, "bpf_tracepoint", &p->sys.bpf_tracepoint);
	print_cap(f, "kprobes", &p->sys.kprobes);
	print_cap(f, "fentry", &p->sys.fentry);
	print_cap(f, "lock_stat", &p->sys.lock_stat);
	fprintf(f, "  %-18s %s\n", "perf", p->sys.perf_version[0] ? p->sys.perf_version : "absent");
	fprintf(f, "  %-18s %-4s %s\n", "perf_c2c", yes_no(p->c2c.supported), p->c2c.line);
	fprintf(f, "  %-18s %s", "kconfig", p->sys.kconfig_source[0] ? p->sys.kconfig_source : "not found "
		"(/proc/config.gz, /boot/config-*)");
	if (p->sys.kconfig) {
		int n = 0;

		json_object_object_foreach(p->sys.kconfig, key, val) {
			fprintf(f, "%s%s=%s", n++ % 4 ? "  " : "\n      ", key, json_object_get_string(val));
		}
	}
	fputc('\n', f);
	if (!p->have_runtime)
		return;
	fprintf(f, "\nruntime (%d rounds, charging on CPU %d)\n", p->rt.rounds, p->rt.cpu);
	fprintf(f, "  %-18s %-4d pages (value seen most; min %d, max %d; %d of %d rounds)\n", "charge_batch",
		p->rt.charge_batch.mode, p->rt.charge_batch.min, p->rt.charge_batch.max, p->rt.charge_batch.nsamples,
		p->rt.rounds);
	fprintf(f, "  %-18s %-4d (largest seen: rounds only undercount; min %d, max %d; %d of %d rounds)%s; %s BTF (%d)\n", "stock_slots",
		p->rt.stock_slots.mode, p->rt.stock_slots.min, p->rt.stock_slots.max, p->rt.stock_slots.nsamples,
		p->rt.rounds, p->rt.stock_saturated ? ", saturated: at least this many" : "",
		p->rt.stock_slots.mode == p->feat.stock_slots ? "agrees with" : "DISAGREES with", p->feat.stock_slots);
	if (p->rt.obj_stock_slots.nsamples)
		fprintf(f, "  %-18s %-4d (largest seen: rounds only undercount; min %d, max %d; %d of %d rounds)%s; %s BTF (%d)\n",
			"obj_stock_slots", p->rt.obj_stock_slots.mode, p->rt.obj_stock_slots.min,
			p->rt.obj_stock_slots.max, p->rt.obj_stock_slots.nsamples, p->rt.rounds,
			p->rt.obj_stock_saturated ? ", saturated: at least this many" : "",
			p->rt.obj_stock_slots.mode == btf_objcg_slots(p) ? "agrees with" : "DISAGREES with",
			btf_objcg_slots(p));
	else if (strstr(p->rt.obj_method, "not measured"))
		fprintf(f, "  %-18s none (not measured here: see below)\n", "obj_stock_slots");
	else
		fprintf(f, "  %-18s none (every round disturbed)\n", "obj_stock_slots");
	fprintf(f, "  %-18s %s\n", "method", p->rt.method);
	fprintf(f, "  %-18s %s\n", "", p->rt.obj_method);
}

/* The runtime probe's counts as metrics, so that `compare` of two probe
 * results directories (two kernels, e.g. two qemu guests) shows them. */
void probe_runtime_metrics_write(const char *dir, const struct probe_report *p)
{
	FILE *f = metrics_open(dir);	/* checked: util/outfile.h */

	metrics_emit(f, "-", 0, "runtime.charge_batch", p->rt.charge_batch.mode, "pages", "-");
	metrics_emit(f, "-", 0, "runtime.stock_slots", p->rt.stock_slots.mode, "memcgs", "-");
	if (p->rt.obj_stock_slots.nsamples)
		metrics_emit(f, "-", 0, "runtime.obj_stock_slots", p->rt.obj_stock_slots.mode, "memcgs", "-");
	outfile_close(f);
}

