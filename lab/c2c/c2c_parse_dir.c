// SPDX-License-Identifier: GPL-2.0
/*
 * A parsed perf c2c report written out: its TSVs (stats, cachelines,
 * offsets in TSV order under the key names below, warnings) and its
 * warnings on stderr; c2c_parse_to_dir() parses one report into a
 * directory of them, offsets streamed (`c2c parse`, `c2c report --out`,
 * c2c_parse_dir.h).  The parsing itself is c2c_parse.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "c2c/c2c_parse_dir.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/tsv.h"

const char *const c2c_cl_key_names[CL_NKEYS] = {
	"index", "address", "node", "pa_cnt", "share_of", "share_pct",
	"hitm_total", "hitm_lcl", "hitm_rmt",
	"peer_total", "peer_lcl", "peer_rmt",
	"records", "loads", "stores", "st_l1hit", "st_l1miss", "st_na",
	"ld_fb", "ld_l1", "ld_l2", "ld_lclhit", "ld_lclhitm",
	"ld_rmthit", "ld_rmthitm", "dram_lcl", "dram_rmt", "llc_ld_miss",
	"extra",
};

const char *const c2c_off_key_names[OFF_NKEYS] = {
	"cacheline", "cacheline_address", "offset", "data_address",
	"node", "pa_cnt", "pid", "tid", "comm", "code_address",
	"hitm_rmt_pct", "hitm_lcl_pct", "peer_rmt_pct", "peer_lcl_pct",
	"peer_pct", "st_l1hit_pct", "st_l1miss_pct", "st_na_pct",
	"cycles_rmt", "cycles_lcl", "cycles_load", "cycles_peer",
	"records", "cpu_cnt", "symbol_type", "symbol", "object",
	"source", "node_info", "extra",
};

/* A row of cells (NULL: an empty one), through util/tsv.h's writer. */
static void put_row(FILE *f, const char *const *v, int n)
{
	tsv_write_cells(f, v, n);
}

void c2c_write_stats_tsv(const struct c2c_report *r, FILE *f)
{
	tsv_write_header(f, (const char *const[]){ "section", "key", "value", "unit", NULL });
	for (size_t i = 0; i < r->nstats; i++) {
		const struct c2c_stat *s = &r->stats[i];
		const char *v[] = { s->section, s->key, s->value, s->unit };

		put_row(f, v, 4);
	}
}

void c2c_write_cachelines_tsv(const struct c2c_report *r, FILE *f)
{
	put_row(f, c2c_cl_key_names, CL_NKEYS);
	for (size_t i = 0; i < r->ncls; i++)
		put_row(f, r->cls[i].v, CL_NKEYS);
}

void c2c_write_offsets_header(FILE *f)
{
	put_row(f, c2c_off_key_names, OFF_NKEYS);
}

void c2c_write_offset_row(const struct c2c_offset *o, FILE *f)
{
	put_row(f, o->v, OFF_NKEYS);
}

void c2c_write_warnings_tsv(const struct c2c_report *r, FILE *f)
{
	tsv_write_header(f, (const char *const[]){ "line", "warning", NULL });
	for (size_t i = 0; i < r->nwarns; i++)
		tsv_write_row(f, "%d\t%s\n", r->warns[i].line, r->warns[i].msg);
}

void c2c_print_warnings(const struct c2c_report *r)
{
	for (size_t i = 0; i < r->nwarns; i++)
		warnx_lab("%s:%d: %s", r->name, r->warns[i].line, r->warns[i].msg);
}

/* Checked (util/outfile.h): a file that cannot be opened fails at close_in. */
static FILE *open_in(const char *dir, const char *file, char *err, size_t errlen)
{
	char path[4096];

	(void)err;
	(void)errlen;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return outfile_open(path, "w");
}

static int close_in(FILE *f, const char *dir, const char *file, char *err, size_t errlen)
{
	if (outfile_close(f)) {
		snprintf(err, errlen, "%s/%s: cannot write: %s", dir, file, strerror(errno));
		return -1;
	}
	return 0;
}

static void offset_to_tsv(const struct c2c_offset *o, void *arg)
{
	c2c_write_offset_row(o, arg);
}

/* What a failed parse wrote goes: offsets.tsv, and the directory if it made it. */
static void undo_dir(const char *dir, bool made)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/offsets.tsv", dir);
	unlink(path);
	if (made)
		rmdir(dir);
}

int c2c_parse_to_dir(const char *path, const char *dir, struct c2c_report *r, char *err, size_t errlen)
{
	static const char *const names[] = { "stats.tsv", "cachelines.tsv", "warnings.tsv" };
	FILE *in = strcmp(path, "-") ? fopen(path, "re") : stdin, *f;
	struct stat st;
	bool made;
	int e;

	memset(r, 0, sizeof(*r));
	/* The input first: a missing report leaves no empty outputs behind. */
	if (!in) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (!fstat(fileno(in), &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: a directory, not a perf c2c report", path);
		goto fail_in;
	}
	made = !path_exists(dir);
	e = mkdir_p(dir, 0755);
	if (e < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-e));
		goto fail_in;
	}
	f = open_in(dir, "offsets.tsv", err, errlen);
	if (!f)
		goto fail_in;
	c2c_write_offsets_header(f);
	if (c2c_parse_file(r, in, path, offset_to_tsv, f) < 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		outfile_close(f);
		undo_dir(dir, made);
		goto fail_in;
	}
	if (in != stdin)
		fclose(in);
	if (close_in(f, dir, "offsets.tsv", err, errlen) < 0)
		return -1;
	/* Not a report: nothing of it stays (no offsets.tsv with a header only). */
	if (c2c_report_is_empty(r)) {
		snprintf(err, errlen, "%s: no perf c2c report found (expected the output of "
			 "`perf c2c report --stdio`)", path);
		undo_dir(dir, made);
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		f = open_in(dir, names[i], err, errlen);
		if (!f)
			return -1;
		if (i == 0)
			c2c_write_stats_tsv(r, f);
		else if (i == 1)
			c2c_write_cachelines_tsv(r, f);
		else
			c2c_write_warnings_tsv(r, f);
		if (close_in(f, dir, names[i], err, errlen) < 0)
			return -1;
	}
	return 0;
fail_in:
	if (in != stdin)
		fclose(in);
	return -1;
}

void c2c_parse_dir_or_die(const char *path, const char *dir, bool quiet, struct c2c_report *r)
{
	char err[512];

	if (c2c_parse_to_dir(path, dir, r, err, sizeof(err)) < 0)
		outfile_die(err);
	if (!quiet)
		c2c_print_warnings(r);
}
