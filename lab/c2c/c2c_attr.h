/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which struct field each hot c2c offset belongs to, and the false-sharing
 * map (HITMs or peer snoops per field and per offset, split into the
 * functions that read and the functions that write) for the plot step.
 *
 * Objects are known kernel objects of one run: a struct type (from BTF) at a
 * base address, e.g. the run's own struct mem_cgroup instances and each
 * CPU's memcg_stock / obj_stock.  An offset row whose data address lies in
 * no known object is attributed by its code symbol alone, and says so.
 *
 * Counts per row are derived from the Pareto percentages and the line's
 * totals (perf prints no per-row counts): hitm = rmt% x RmtHitm + lcl% x
 * LclHitm of the cacheline; stores likewise from the Store Refs columns.
 * They are rounded to 0.1 and empty when the report lacks a total.
 */
#ifndef LAB_C2C_C2C_ATTR_H
#define LAB_C2C_C2C_ATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "c2c/c2c_parse.h"
#include "c2c/field_at.h"
#include "kernel/btf.h"

struct c2c_object {
	char *label;		/* "memcg memcg-lab-1-2/g0", "memcg_stock cpu3" */
	char *type;		/* BTF struct name: "mem_cgroup" */
	int type_id;
	uint64_t base, size;
	char *source;		/* how the address was found ("bpf task css", "--base") */
};

struct c2c_objects {
	struct c2c_object *v;
	size_t n, cap;
	/* The cgroup version the objects' run had (its memory controller's):
	 * names union members (c2c/field_at.h); unknown names them all. */
	enum field_cgroup cgroup;
};

/* Adds an object of BTF struct `type` at base; -1 with err when the type is unknown. */
int c2c_objects_add(struct c2c_objects *o, const struct kbtf *k, const char *type, uint64_t base,
		    const char *label, const char *source, char *err, size_t errlen);
/* Reads "label type address source [cgroup]" TSV (header row first), as
 * written below; a cgroup cell (v1, v2 or empty) sets o->cgroup, and
 * objects of two versions in one file are refused. */
int c2c_objects_read_tsv(struct c2c_objects *o, const struct kbtf *k, const char *path,
			 char *err, size_t errlen);
void c2c_objects_write_tsv(const struct c2c_objects *o, FILE *f);
/* The object containing addr, or NULL. */
const struct c2c_object *c2c_objects_find(const struct c2c_objects *o, uint64_t addr);
void c2c_objects_free(struct c2c_objects *o);

struct c2c_attr_row {
	const struct c2c_offset *o;
	const struct c2c_object *obj;	/* NULL: outside every known object */
	struct field_hit field;		/* valid when obj != NULL */
	uint64_t obj_offset;		/* data address - obj->base */
	double hitm, peer, stores;	/* NAN: not derivable from this report */
	/* hitm and peer by side: what Lcl and Rmt are depends on the PMU
	 * (c2c/c2c_legend.h: on AMD, Rmt is another CCX, not another socket) */
	double hitm_lcl, hitm_rmt, peer_lcl, peer_rmt;
};

/* One row per offset row of r (kept in memory: parse with cb == NULL). */
struct c2c_attr_row *c2c_attribute(const struct c2c_report *r, const struct kbtf *k,
				   const struct c2c_objects *objs, size_t *n);

/* Per offset row: cacheline, offset, object, field, counts, function, then
 * the counts by side (hitm_lcl, hitm_rmt, peer_lcl, peer_rmt; pmu.tsv of
 * c2c_write_pmu_tsv() says what they are on the recording PMU). */
void c2c_write_fields_tsv(const struct c2c_attr_row *rows, size_t n, FILE *f);
/* Per struct type, for the plot step (one file per struct):
 *   fieldmap:  field, field offset/size, line, function, access, hitm, peer, stores
 *   offsetmap: byte offset in the struct, line, field, function, access, counts */
void c2c_write_fieldmap_tsv(const struct c2c_attr_row *rows, size_t n, const char *type, FILE *f);
void c2c_write_offsetmap_tsv(const struct c2c_attr_row *rows, size_t n, const char *type, FILE *f);
/* Per code symbol and access (works without any object address). */
void c2c_write_symbols_tsv(const struct c2c_attr_row *rows, size_t n, FILE *f);
/*
 * Writes fields.tsv, symbols.tsv, objects.tsv and, per struct type among the
 * objects, fieldmap-<struct>.tsv and offsetmap-<struct>.tsv into dir.
 * 0, or -1 with a one-line reason in err.
 */
int c2c_write_attribution_dir(const char *dir, const struct c2c_attr_row *rows, size_t n,
			      const struct c2c_objects *objs, char *err, size_t errlen);
/*
 * The human-readable table: per cacheline, each offset's field, counts by
 * side and function.  It opens with what Lcl and Rmt are on the report's
 * PMU (r->vendor) and, where the report cannot show sharing there
 * (c2c_report_limit()), that line before anything else.
 */
void c2c_print_attribution(const struct c2c_report *r, const struct c2c_attr_row *rows, size_t n,
			   const struct c2c_objects *objs, FILE *f);

#endif
