// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab layout: capture, check and diff the cacheline layouts of
 * struct mem_cgroup, page_counter, memcg_stock_pcp, obj_stock_pcp and
 * memcg_vmstats_percpu.  Meant for after every rebase and for kernel CI:
 *
 *   memcg-lab layout --vmlinux vmlinux --check     (exit 1 names the rule)
 *
 * Offsets come from BTF (kernel/btf.h); pahole only supplies the text
 * captures people are used to reading.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "analyze/layout-rules.h"
#include "analyze/layout.h"
#include "cmd/builtin.h"
#include "kernel/btf.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/options.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/strfmt.h"

static const struct options_cmd layout_cmd = {
	.name = "layout",
	.usage =
	"usage: memcg-lab layout [--btf FILE | --vmlinux FILE] [--out DIR] [--check] [--rules FILE]\n"
	"                        [--against DIR_OR_BTF]\n"
	"\n"
	"Captures, checks and diffs the cacheline layouts of struct mem_cgroup, page_counter,\n"
	"memcg_stock_pcp, obj_stock_pcp and memcg_vmstats_percpu, from BTF.\n"
	"\n",
	.footer =
	"\n"
	"Exit status: 0 no hard rule failed, 1 a hard rule failed (--check), 2 an error.\n",
};

/* ---- pahole text --------------------------------------------------------- */

/* pahole -C A,B,C prints the structs in its own order: split at "struct X {". */
static void write_pahole(const struct kbtf *k, const struct layout *lay, const char *dir)
{
	const char *btf = k->tmp_btf ? k->tmp_btf : k->path;
	char names[256] = "", *cmd, *text, *p;
	int status;

	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		if (lay->s[i].present)
			str_appendf(names, sizeof(names), "%s%s",
				 names[0] ? "," : "", lay->s[i].name);
	if (!names[0])
		return;
	if (system("command -v pahole >/dev/null 2>&1") != 0) {
		warnx_lab("layout: pahole not found (apt-get install dwarves): %s/<struct>.txt not written; "
			  "the cacheline map and TSV files are", dir);
		return;
	}
	/* pahole 1.24 warns about BTF kinds it does not know (decl/type tags): harmless. */
	cmd = xasprintf("pahole -F btf -C '%s' '%s' 2>/dev/null", names, btf);
	text = run_capture(cmd, &status);
	free(cmd);
	if (!text || status != 0) {
		warnx_lab("layout: pahole -F btf %s failed (status %d): %s/<struct>.txt not written", btf, status, dir);
		free(text);
		return;
	}
	for (p = text; p && *p;) {
		char name[128], *end, *path;
		FILE *f;

		if (sscanf(p, "struct %127[A-Za-z0-9_] {", name) != 1) {
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
			continue;
		}
		/* The struct ends at the first line that starts with '}'. */
		end = strstr(p, "\n}");
		end = end ? strchr(end + 1, '\n') : NULL;
		end = end ? end + 1 : p + strlen(p);
		path = xasprintf("%s/%s.txt", dir, name);
		f = outfile_open(path, "w");
		fwrite(p, 1, end - p, f);
		if (outfile_close(f))
			exit(EXIT_LAB_ERR);	/* its one line is printed */
		free(path);
		p = end;
	}
	free(text);
}

/* ---- the known kernels: this one and the captures under layouts/ -------- */

struct known {
	int n;
	struct layout *v[64];
};

static void load_references(struct known *kn, const char *layouts_dir)
{
	DIR *d = opendir(layouts_dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && kn->n < (int)(sizeof(kn->v) / sizeof(kn->v[0]))) {
		char *dir = xasprintf("%s/%s", layouts_dir, e->d_name), *fields = xasprintf("%s/fields.tsv", dir);
		struct layout *lay = xcalloc(1, sizeof(*lay));
		char err[512];

		if (e->d_name[0] != '.' && path_exists(fields)) {
			if (layout_load_capture(lay, dir, err, sizeof(err)))
				die("%s", err);
			kn->v[kn->n++] = lay;
		} else {
			free(lay);
		}
		free(fields);
		free(dir);
	}
	closedir(d);
}

/* ---- --check ------------------------------------------------------------- */

static void print_class(const struct layout *lay)
{
	const struct lay_struct *pc = layout_struct(lay, "page_counter");
	const struct lay_struct *st = layout_struct(lay, "memcg_stock_pcp");
	const struct lay_struct *ob = layout_struct(lay, "obj_stock_pcp");
	const struct lay_field *cached = st->present ? lay_find(st, "cached") : NULL;
	const struct lay_field *ocached = ob->present ? lay_find(ob, "cached") : NULL;

	printf("class: %s page_counter", !pc->present ? "no" : lay_find(pc, "_pad1_") ? "split" : "pre-split");
	if (cached)
		printf("; %u-slot memcg stock", cached->nelems ? cached->nelems : 1);
	else if (!st->present && pc->present && lay_find(pc, "stock"))
		printf("; per-page_counter stock (page_counter.stock, no memcg_stock_pcp)");
	else
		printf("; %s", st->present ? "memcg stock without cached" : "no memcg_stock_pcp");
	if (ocached && ocached->nelems)
		printf("; separate obj_stock_pcp, %u objcg slots", ocached->nelems);
	else
		printf("; %s", ob->present ? "separate obj_stock_pcp" : "no obj_stock_pcp");
	if (lay->lock_rt)
		printf("; PREEMPT_RT stock lock (%d B)", lay->lock_size);
	putchar('\n');
}

static int run_check(const struct rules *rs, const struct layout *lay)
{
	int count[4] = { 0 };	/* pass, FAIL, warn, n/a */
	int width = 0;

	printf("layout check: %s (%s)\nrules: %s\n", lay->release ? lay->release : "release unknown", lay->origin,
	       rs->path);
	printf("cacheline %d B (%s); lock debugging: %s (%s)\n", lay->cacheline, lay->cacheline_evidence,
	       lay->lock_debug ? "yes" : "no", lay->lock_debug_evidence);
	print_class(lay);
	for (int i = 0; i < rs->n; i++)
		if ((int)strlen(rs->r[i].name) > width)
			width = strlen(rs->r[i].name);
	for (int i = 0; i < rs->n; i++) {
		const struct rule *r = &rs->r[i];
		struct rule_result res;
		char structs[256] = "";
		const char *word;

		rule_eval(r, lay, &rs->tags, &res);
		word = rule_verdict_word(r, &res);
		for (int j = 0; j < r->nstructs; j++)
			str_appendf(structs, sizeof(structs), "%s%s", j ? "," : "",
				 r->structs[j]);
		printf("%-4s  %-*s  %s  %s: %s\n", word, width, r->name, r->sev == RULE_HARD ? "hard" : "soft",
		       structs, res.summary);
		for (int j = 0; j < res.ndetails; j++)
			printf("      %s\n", res.details[j]);
		if (res.v == V_FAIL && r->why)
			printf("      why: %s\n", r->why);
		count[res.v == V_PASS ? 0 : res.v == V_NA ? 3 : r->sev == RULE_HARD ? 1 : 2]++;
	}
	printf("result: %d pass, %d FAIL, %d warn, %d n/a\n", count[0], count[1], count[2], count[3]);
	return count[1] ? 1 : 0;
}

/* ---- main ---------------------------------------------------------------- */

static void open_or_die(struct kbtf *k, const char *btf, const char *vmlinux)
{
	char err[1024];

	if (kbtf_open(k, btf, vmlinux, err, sizeof(err)))
		die("layout: %s", err);
}

static void load_against(struct layout *old, const char *what)
{
	struct stat st;
	char err[1024];

	if (stat(what, &st))
		die("layout: --against %s: %s", what, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (layout_load_capture(old, what, err, sizeof(err)))
			die("layout: --against %s", err);
	} else {
		struct kbtf k;

		open_or_die(&k, what, NULL);
		layout_from_btf(old, &k);
		kbtf_close(&k);
	}
}

int cmd_layout(int argc, char **argv)
{
	const char *btf = NULL, *vmlinux = NULL, *out = NULL, *rules_path = NULL, *against = NULL;
	bool check = false;
	const struct lab_option opts[] = {
		OPT_STRING(0, "btf", &btf, "FILE", NULL, "raw BTF blob (or an ELF with .BTF)"),
		OPT_STRING(0, "vmlinux", &vmlinux, "FILE", NULL, "vmlinux: its .BTF, else its DWARF converted by "
			   "pahole --btf_encode_detached\n(neither: the running kernel's /sys/kernel/btf/vmlinux)"),
		OPT_STRING(0, "out", &out, "DIR", NULL, "write the capture to DIR: pahole's <struct>.txt, "
			   "cachelines.txt (the per-cacheline map), fields.tsv, structs.tsv, meta.tsv.  Without --check "
			   "and --against the capture is written to layouts/<kernel-release>/"),
		OPT_FLAG(0, "check", &check, "check the rules: one line per rule, pass / FAIL / warn (a soft rule) / n/a"),
		OPT_STRING(0, "rules", &rules_path, "FILE", "layouts/rules.conf", "the rules (its header explains the "
			   "syntax)"),
		OPT_STRING(0, "against", &against, "X", NULL, "cacheline-aware diff from X (a capture directory or a "
			   "BTF/vmlinux file) to this kernel"),
		OPT_END(),
	};
	char *layouts_dir, *default_rules, *out_dir = NULL, err[1024];
	struct rules rs;
	struct layout lay;
	struct kbtf k;
	int arg = options_parse(&layout_cmd, opts, argc, argv), status = 0;

	if (arg < argc)
		die("layout: unexpected argument '%s' (see --help)", argv[arg]);
	if (btf && vmlinux)
		die("layout: --btf and --vmlinux are exclusive: give one kernel");

	layouts_dir = xasprintf("%s/layouts", lab_root_dir());
	default_rules = xasprintf("%s/rules.conf", layouts_dir);
	if (rules_parse(&rs, rules_path ? rules_path : default_rules, err, sizeof(err)))
		die("layout: %s", err);

	open_or_die(&k, btf, vmlinux);
	layout_from_btf(&lay, &k);

	if (out || (!check && !against)) {
		if (out)
			out_dir = xstrdup(out);
		else if (lay.release)
			out_dir = xasprintf("%s/%s", layouts_dir, lay.release);
		else
			die("layout: %s: the kernel release is unknown (%s); name the capture directory with --out DIR",
			    k.path, k.release_evidence ? k.release_evidence : "no evidence");
		if (layout_write_capture(&lay, &rs.tags, out_dir, err, sizeof(err)))
			outfile_die(err);
		write_pahole(&k, &lay, out_dir);
		if (!check && !against) {
			printf("layout of %s (%s) captured in %s:\n", lay.release ? lay.release : "release unknown",
			       lay.origin, out_dir);
			for (int i = 0; i < LAYOUT_NSTRUCTS; i++) {
				const struct lay_struct *s = &lay.s[i];

				if (s->present)
					printf("  %-22s %5lu B  %3lu cachelines  %s.txt\n", s->name, (unsigned long)s->size,
					       (unsigned long)lay_ncachelines(s->size, lay.cacheline), s->name);
				else
					printf("  %-22s absent\n", s->name);
			}
			printf("  per-cacheline map: %s/cachelines.txt\n", out_dir);
		}
	}
	kbtf_close(&k);

	if (check || against) {
		struct known kn = { 0 };

		kn.v[kn.n++] = &lay;
		load_references(&kn, layouts_dir);
		if (rules_validate(&rs, (const struct layout *const *)kn.v, kn.n, err, sizeof(err)))
			die("layout: %s", err);
		for (int i = 1; i < kn.n; i++) {
			layout_free(kn.v[i]);
			free(kn.v[i]);
		}
	}
	if (check)
		status = run_check(&rs, &lay);
	if (against) {
		struct layout old;

		load_against(&old, against);
		if (check)
			putchar('\n');
		if (!layout_diff(stdout, &old, &lay, &rs.tags))
			printf("\nno layout differences\n");
		layout_free(&old);
	}
	layout_free(&lay);
	rules_free(&rs);
	free(out_dir);
	free(layouts_dir);
	free(default_rules);
	return status;
}
