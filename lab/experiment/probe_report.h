/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe's findings: what the kernel under test has, each with its
 * evidence.  `memcg-lab probe` prints them; every run records them in its
 * meta.json.
 */
#ifndef LAB_EXPERIMENT_PROBE_REPORT_H
#define LAB_EXPERIMENT_PROBE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "c2c/c2c.h"
#include "kernel/btf.h"
#include "kernel/cgroup.h"
#include "kernel/runtime_probe.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "kernel/sysinfo.h"

struct probe_report {
	struct kbtf kbtf;
	struct ksyms syms;
	bool have_syms;
	char syms_note[512];
	bool running;
	struct lab_sysinfo sys;		/* running kernel only */
	struct cg_env cg;		/* running kernel only */
	struct c2c_caps c2c;		/* running kernel only */
	struct kfeatures feat;
	bool have_runtime;
	struct runtime_probe_result rt;
};

/* Dies with a one-line error when the input cannot be read. */
void probe_collect(struct probe_report *p, const char *btf_file, const char *vmlinux);
/* The runtime probes (root, a memory controller); dies with one line otherwise.
 * Warns on stderr when they disagree with BTF. */
void probe_runtime(struct probe_report *p, int rounds);
json_object *probe_json(const struct probe_report *p);
/* runtime.* (charge_batch, stock_slots, agrees_with_btf, rounds, method). */
json_object *probe_runtime_json(const struct probe_report *p);
void probe_print(FILE *f, const struct probe_report *p);
void probe_release(struct probe_report *p);
/* The runtime probe's counts into dir's data/metrics.tsv, so that `compare`
 * of two probe results directories (two kernels) shows them. */
void probe_runtime_metrics_write(const char *dir, const struct probe_report *p);

#endif
