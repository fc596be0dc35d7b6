// SPDX-License-Identifier: GPL-2.0
/*
 * One `memcg-lab layout`: capture, check and diff the cacheline layouts of
 * struct mem_cgroup, page_counter, memcg_stock_pcp, obj_stock_pcp and
 * memcg_vmstats_percpu of one kernel.  Offsets come from BTF
 * (kernel/btf.h); pahole only supplies the text captures people are used
 * to reading (layout/layout_pahole.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "layout/layout_rules.h"
#include "layout/layout.h"
#include "layout/layout_check.h"
#include "layout/layout_pahole.h"
#include "layout/layout_run.h"
#include "kernel/btf.h"
#include "util/err.h"
#include "util/nearest.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/wrap.h"

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

	if (stat(what, &st)) {
		int e = errno;
		char near[1024];

		if (e == ENOENT && !nearest_names(what, near, sizeof(near)))
			die("layout: --against %s: %s (nearest: %s)", what, strerror(e), near);
		die("layout: --against %s: %s", what, strerror(e));
	}
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

int layout_run(const struct layout_request *rq)
{
	char *layouts_dir, *default_rules, *out_dir = NULL, err[1024];
	struct rules rs;
	struct layout lay;
	struct kbtf k;
	const char *btf = rq->btf, *vmlinux = rq->vmlinux, *out = rq->out, *against = rq->against;
	bool check = rq->check;
	int status = 0;

	layouts_dir = xasprintf("%s/layouts", lab_root_dir());
	default_rules = xasprintf("%s/rules.conf", layouts_dir);
	if (rules_parse(&rs, rq->rules ? rq->rules : default_rules, err, sizeof(err)))
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
		layout_write_pahole(&k, &lay, out_dir);
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

	if ((check || against) && layout_check_against_known(&rs, &lay, layouts_dir, err, sizeof(err)))
		die("layout: %s", err);
	if (check)
		status = layout_check_print(&rs, &lay, rq->width);
	if (against) {
		struct layout old;
		int gained = 0;

		load_against(&old, against);
		if (check)
			putchar('\n');
		if (!layout_diff(stdout, &old, &lay, &rs, rq->width, &gained))
			printf("\nno layout differences\n");
		/* The gate after a rebase: a hot-written field with a sharer no
		 * rule allows fails as a hard rule does. */
		if (gained) {
			printf("\n");
			wrap_printf(stdout, 0, 2, rq->width, "%d hot-written field%s gained a cacheline sharer no rule "
				    "allows (the ! new sharing lines above)", gained, gained == 1 ? "" : "s");
			putchar('\n');
			status = 1;
		}
		layout_free(&old);
	}
	layout_free(&lay);
	rules_free(&rs);
	free(out_dir);
	free(layouts_dir);
	free(default_rules);
	return status;
}
