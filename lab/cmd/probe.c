// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab probe: what the kernel under test has, each answer with the
 * evidence that decided it.  Types from BTF (running kernel, raw BTF, ELF
 * vmlinux, or DWARF converted by pahole), symbols from kallsyms or the
 * vmlinux symbol table; for the running machine also tracefs, BPF, kprobes,
 * topology and kernel config.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/builtin.h"
#include "experiment/probe_report.h"
#include "util/err.h"
#include "util/options.h"
#include "util/outfile.h"
#include "util/results.h"

static const struct options_cmd probe_cmd = {
	.name = "probe",
	.usage =
	"usage: memcg-lab probe [--btf FILE | --vmlinux FILE] [--runtime [--rounds N]] [--json]\n"
	"                       [--results NAME]\n"
	"\n"
	"What the kernel under test has, each answer with its evidence.\n"
	"\n",
	.footer =
	"\n"
	"Without --btf/--vmlinux the running kernel is probed: /sys/kernel/btf/vmlinux,\n"
	"/proc/kallsyms, tracefs, BPF/kprobe/fentry attachability, lock_stat, topology\n"
	"(hwloc) and the kernel config.  Exit status 2 on unreadable or unknown input.\n",
};

int cmd_probe(int argc, char **argv)
{
	const char *btf_file = NULL, *vmlinux = NULL, *results_name = NULL;
	bool json = false, runtime = false;
	int rounds = 5;
	const struct lab_option opts[] = {
		OPT_STRING(0, "btf", &btf_file, "FILE", NULL, "a raw BTF blob (or an ELF file with .BTF) instead of "
			   "the running kernel"),
		OPT_STRING(0, "vmlinux", &vmlinux, "FILE", NULL, "an ELF vmlinux: .BTF if present, else DWARF converted "
			   "with pahole; its symbol table answers the symbol questions"),
		OPT_FLAG(0, "runtime", &runtime, "also measure what BTF cannot say (running kernel, root): the charge "
			 "batch, the per-CPU stock slots and the obj stock's objcg slots (kmem: v1 kmem usage, v2 "
			 "memory.stat after its flush), over several rounds"),
		OPT_INT(0, "rounds", &rounds, "N", "5", "rounds of the runtime probes", 1, RP_MAX_ROUNDS),
		OPT_FLAG(0, "json", &json, "JSON with stable keys: kernel, types, features.*, tracepoints, machine and "
			 "runtime.* (running kernel only)"),
		OPT_STRING(0, "results", &results_name, "NAME", NULL, "also write a results directory "
			   "results/<date>-NAME/"),
		OPT_END(),
	};
	int arg = options_parse(&probe_cmd, opts, argc, argv);
	struct probe_report p;
	json_object *o;

	if (arg < argc)
		die("probe: unexpected argument '%s'", argv[arg]);
	if (btf_file && vmlinux)
		die("probe: --btf and --vmlinux are exclusive");

	probe_collect(&p, btf_file, vmlinux);
	if (runtime)
		probe_runtime(&p, rounds);
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

		int e = json_write_file(path, o);

		if (e)
			outfile_failure(path, "cannot write", -e);
		probe_print(txt, &p);
		outfile_close(txt);
		results_meta_set(r, "probe", json_object_get(o));
		if (p.have_runtime) {
			results_meta_set(r, "runtime", probe_runtime_json(&p));
			probe_runtime_metrics_write(r->dir, &p);
		}
		results_finish(r, "complete");
		fprintf(json ? stderr : stdout, "results: %s\n", r->dir);
		free(path);
		results_free(r);
	}
	json_object_put(o);
	probe_release(&p);
	return 0;
}
