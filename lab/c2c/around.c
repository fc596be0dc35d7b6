// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "c2c/around.h"
#include "kernel/btf.h"
#include "kernel/cgroup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/owner.h"

struct around_env {
	struct around_cfg cfg;
	struct results *r;
	struct c2c_caps caps;
	bool c2c_ok;
	struct kbtf kbtf;
	bool have_btf;
	struct cg_env cg;
};

struct around {
	struct around_env *e;
	char tag[160];			/* "<step>.r<repeat>" for file names */
	struct c2c_collector *c2c;
	struct c2c_objects objs;
	bool objects_found;
};

struct around_env *around_env_open(const struct around_cfg *cfg, struct results *r)
{
	struct around_env *e = xcalloc(1, sizeof(*e));
	char err[512];

	e->cfg = *cfg;
	e->r = r;
	if (cfg->c2c) {
		c2c_caps_detect(&e->caps);
		e->c2c_ok = e->caps.supported;
		if (!e->c2c_ok)
			results_skip(r, "perf c2c", e->caps.line);
		else if (kbtf_open(&e->kbtf, NULL, NULL, err, sizeof(err)))
			results_skip(r, "c2c field names", err);
		else
			e->have_btf = true;
		cg_detect(&e->cg, NULL);
	}
	return e;
}

void around_env_close(struct around_env *e)
{
	if (!e)
		return;
	if (e->have_btf)
		kbtf_close(&e->kbtf);
	free(e);
}

struct around *around_start(struct around_env *e, const char *step, int repeat, double driver_s)
{
	struct around *a = xcalloc(1, sizeof(*a));

	a->e = e;
	snprintf(a->tag, sizeof(a->tag), "%s.r%d", step, repeat);
	if (e->c2c_ok) {
		char why[700], *dir = xasprintf("%s/data/c2c.%s", e->r->dir, a->tag);

		if (mkdir_p(dir, 0755))
			die("%s: cannot create: %s", dir, strerror(errno));
		a->c2c = c2c_collector_start(&e->caps, &e->cfg.c2c_opts, driver_s, dir, why, sizeof(why));
		if (!a->c2c)
			results_skip(e->r, "perf c2c window", why);
		else
			results_log(e->r, "c2c %s: %s", a->tag, a->c2c->status);
		free(dir);
	}
	return a;
}

static void note_line(const char *line, void *arg)
{
	results_log(arg, "c2c objects: %s", line);
}

/* Every cgroup directory below root (root included), depth first. */
static void collect_dirs(const char *root, char ***dirs, int *n, int *cap)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*dirs = xrealloc(*dirs, *cap * sizeof(**dirs));
	}
	(*dirs)[(*n)++] = xstrdup(root);
	while ((de = readdir(d))) {
		char *sub;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", root, de->d_name);
		collect_dirs(sub, dirs, n, cap);
		free(sub);
	}
	closedir(d);
}

void around_tick(struct around *a, pid_t driver, double elapsed_s)
{
	char name[96], *root;
	char **dirs = NULL;
	int n = 0, cap = 0;
	FILE *f;

	/* The driver's memcgs exist while it runs: name their struct
	 * mem_cgroup addresses once the c2c window has begun. */
	if (!a->c2c || !a->e->have_btf || a->objects_found || elapsed_s < a->c2c->win.start_s)
		return;
	a->objects_found = true;
	snprintf(name, sizeof(name), LAB_OWNER_PREFIX "%d-%llu", (int)driver, proc_start_time(driver));
	root = xasprintf("%s/%s", a->e->cg.memory_root, name);
	collect_dirs(root, &dirs, &n, &cap);
	if (!n)
		results_log(a->e->r, "c2c %s: no cgroup tree %s to name objects in", a->tag, root);
	c2c_find_objects(&a->objs, &a->e->kbtf, (const char *const *)dirs, n, note_line, a->e->r);
	{
		char *p = xasprintf("c2c-objects.%s.tsv", a->tag);

		f = results_open_data(a->e->r, p);
		c2c_objects_write_tsv(&a->objs, f);
		fclose(f);
		free(p);
	}
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	free(root);
}

void around_finish(struct around *a)
{
	if (!a)
		return;
	if (a->c2c) {
		if (c2c_collector_finish(a->c2c, a->e->have_btf ? &a->e->kbtf : NULL, &a->objs) < 0) {
			results_skip(a->e->r, "perf c2c report", a->c2c->status);
		} else {
			/* The field table, where report looks for it. */
			char *src = xasprintf("%s/c2c/attribution.txt", a->c2c->dir), *text = read_text(src, NULL);
			char *name = xasprintf("c2c-fields.%s.txt", a->tag);

			if (text) {
				FILE *f = results_open_data(a->e->r, name);

				fputs(text, f);
				outfile_close(f);
			} else {
				/* The table report shows is missing: the run is not complete. */
				outfile_failure(src, "cannot read", errno);
			}
			results_log(a->e->r, "c2c %s: %s", a->tag, a->c2c->status);
			free(src);
			free(text);
			free(name);
		}
		c2c_collector_free(a->c2c);
	}
	c2c_objects_free(&a->objs);
	free(a);
}
