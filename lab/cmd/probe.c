// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab probe: what the kernel under test has, each answer with the
 * evidence that decided it.  Types from BTF (running kernel, raw BTF, ELF
 * vmlinux, or DWARF converted by pahole), symbols from kallsyms or the
 * vmlinux symbol table; for the running machine also tracefs, BPF, kprobes,
 * topology and kernel config.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/builtin.h"
#include "cmd/probe.h"
#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "kernel/sysinfo.h"
#include "util/err.h"
#include "util/results.h"

static const char usage_text[] =
"usage: memcg-lab probe [--btf FILE | --vmlinux FILE] [--json] [--results NAME]\n"
"\n"
"What the kernel under test has, each answer with its evidence.\n"
"\n"
"  --btf FILE       a raw BTF blob (or an ELF file with .BTF) instead of the running kernel\n"
"  --vmlinux FILE   an ELF vmlinux: .BTF if present, else DWARF converted with pahole;\n"
"                   its symbol table answers the symbol questions\n"
"  --json           JSON with stable keys: kernel, types, features.*, tracepoints,\n"
"                   machine (running kernel only)\n"
"  --results NAME   also write a results directory results/<date>-NAME/\n"
"  -h, --help       this text\n"
"\n"
"Without --btf/--vmlinux the running kernel is probed: /sys/kernel/btf/vmlinux,\n"
"/proc/kallsyms, tracefs, BPF/kprobe/fentry attachability, lock_stat, topology\n"
"(hwloc) and the kernel config.  Exit status 2 on unreadable or unknown input.\n";

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
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
	if (p->running)
		json_object_object_add(o, "machine", lab_sysinfo_json(&p->sys));
	return o;
}

static void print_cap(FILE *f, const char *name, const struct lab_capability *c)
{
	fprintf(f, "  %-18s %-4s %s\n", name, yes_no(c->ok), c->evidence);
}

void probe_print(FILE *f, const struct probe_report *p)
{
	const struct kfeatures *ft = &p->feat;

	fprintf(f, "kernel               %s   (%s)\n", p->kbtf.release ? p->kbtf.release : "unknown",
		p->kbtf.release_evidence);
	fprintf(f, "types                %s: %s\n", kbtf_source_name(p->kbtf.source), p->kbtf.path);
	fprintf(f, "symbols              %s\n", p->have_syms ? p->syms.source : p->syms_note);
	fprintf(f, "\nfeatures\n");
	fprintf(f, "  %-18s %-4d %s\n", "cacheline_size", ft->cacheline_size, ft->cacheline_size_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "cacheline_split", yes_no(ft->cacheline_split), ft->cacheline_split_evidence);
	fprintf(f, "  %-18s %-4d %s\n", "stock_slots", ft->stock_slots, ft->stock_slots_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "user_flush_mutex", yes_no(ft->user_flush_mutex), ft->user_flush_mutex_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "obj_stock_split", yes_no(ft->obj_stock_split), ft->obj_stock_split_evidence);
	fprintf(f, "  %-18s %-4s %s\n", "lock_debug", yes_no(ft->lock_debug), ft->lock_debug_evidence);
	fprintf(f, "  %-18s %s\n  %-18s      (%s)\n", "flush_scheme", ft->flush_scheme, "", ft->flush_evidence);
	fprintf(f, "\ntracepoints                               btf  tracefs\n");
	for (int i = 0; i < ft->ntracepoints; i++) {
		const struct kf_tracepoint *tp = &ft->tracepoints[i];

		fprintf(f, "  %-40s %-4s %s\n", tp->name, yes_no(tp->in_btf),
			tp->in_tracefs < 0 ? (p->running ? "not mounted" : "offline") : yes_no(tp->in_tracefs));
	}
	if (!p->running)
		return;
	fprintf(f, "\nmachine\n");
	fprintf(f, "  %-18s %d (cores %d, SMT %d, LLC groups %d of %d CPUs, NUMA nodes %d; %s)\n", "cpus",
		p->sys.topo.cpus, p->sys.topo.cores, p->sys.topo.smt, p->sys.topo.llcs, p->sys.topo.cpus_per_llc,
		p->sys.topo.nodes, p->sys.topo.evidence);
	fprintf(f, "  %-18s %s\n", "tracefs", p->sys.tracefs[0] ? p->sys.tracefs : "not mounted");
	print_cap(f, "bpf_tracepoint", &p->sys.bpf_tracepoint);
	print_cap(f, "kprobes", &p->sys.kprobes);
	print_cap(f, "fentry", &p->sys.fentry);
	print_cap(f, "lock_stat", &p->sys.lock_stat);
	fprintf(f, "  %-18s %s\n", "perf", p->sys.perf_version[0] ? p->sys.perf_version : "absent");
	fprintf(f, "  %-18s %s", "kconfig", p->sys.kconfig_source[0] ? p->sys.kconfig_source : "not found "
		"(/proc/config.gz, /boot/config-*)");
	if (p->sys.kconfig) {
		int n = 0;

		json_object_object_foreach(p->sys.kconfig, key, val) {
			fprintf(f, "%s%s=%s", n++ % 4 ? "  " : "\n      ", key, json_object_get_string(val));
		}
	}
	fputc('\n', f);
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "btf", required_argument, NULL, 'b' },
		{ "vmlinux", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "results", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *btf_file = NULL, *vmlinux = NULL, *results_name = NULL;
	struct probe_report p;
	bool json = false;
	json_object *o;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': btf_file = optarg; break;
		case 'v': vmlinux = optarg; break;
		case 'j': json = true; break;
		case 'r': results_name = optarg; break;
		case 'h': usage_exit(usage_text, 0);
		default: usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	if (optind < argc)
		die("probe: unexpected argument '%s'", argv[optind]);
	if (btf_file && vmlinux)
		die("probe: --btf and --vmlinux are exclusive");

	probe_collect(&p, btf_file, vmlinux);
	o = probe_json(&p);
	if (json)
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		probe_print(stdout, &p);
	if (results_name) {
		struct results *r = results_create(results_name, NULL, argc + 1, argv - 1);
		char *path = results_path(r, "data/probe.json");
		FILE *txt = results_open_data(r, "probe.txt");

		if (json_write_file(path, o))
			die("%s: cannot write", path);
		probe_print(txt, &p);
		fclose(txt);
		results_meta_set(r, "probe", json_object_get(o));
		results_finish(r, "complete");
		fprintf(json ? stderr : stdout, "results: %s\n", r->dir);
		free(path);
		results_free(r);
	}
	json_object_put(o);
	probe_release(&p);
	return 0;
}
