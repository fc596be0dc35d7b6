/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_C2C_C2C_ATTR_REPORT_H
#define LAB_C2C_C2C_ATTR_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "c2c/c2c_vendor.h"

/* One object named on the command line: --struct type --base address. */
struct c2c_attr_base {
	const char *type, *base;
};

/* What `c2c report` was asked; NULL: not given. */
struct c2c_attr_request {
	const char *path;		/* the perf c2c report --stdio output */
	const struct c2c_attr_base *bases;
	size_t nbases;
	const char *objects;		/* objects TSV of a lab run */
	const char *btf, *vmlinux;	/* the kernel (neither: the running one) */
	const char *out;		/* also write the TSVs there */
	enum c2c_vendor vendor;		/* the recording PMU's, where the report's Events line
					 * does not say (unknown: none assumed) */
	const char *cgroup;		/* "v1" / "v2": the run's cgroup version (over --objects') */
	bool quiet;			/* no parse warnings on stderr */
};

/*
 * Prints the struct field of every Pareto offset row of rq->path on
 * stdout (and, with rq->out, writes the parse and attribution TSVs and
 * pmu.tsv); 0.  What the report cannot show on its PMU (c2c_report_limit())
 * is its first line, in place of a count of cachelines.  A bad address,
 * struct, file or kernel is one line and exit 2.
 */
int c2c_attr_report(const struct c2c_attr_request *rq);

#endif
