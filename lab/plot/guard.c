// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "plot/guard.h"
#include "util/err.h"
#include "util/outfile.h"

/*
 * The results directory whose own plots/ this plot rewrites (NULL when the
 * runner started it, --status: the runner owns meta.json, or --out is
 * elsewhere), and its meta.json.
 */
static const char *plots_of_run;
static json_object *run_meta;

static int run_meta_write(void)
{
	const char *s = json_object_to_json_string_ext(run_meta, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	char *mp = xasprintf("%s/meta.json", plots_of_run), *text = xasprintf("%s\n", s);
	int r = outfile_write(mp, text, strlen(text));

	free(mp);
	free(text);
	return r;
}

void plot_guard_begin(const char *dir)
{
	char *mp = xasprintf("%s/meta.json", dir);
	json_object *st, *before;

	plots_of_run = dir;
	run_meta = json_object_from_file(mp);
	if (!run_meta)
		die("%s: cannot read or parse (not a results directory?)", mp);
	free(mp);
	if (!json_object_object_get_ex(run_meta, "status_before_plot", &before)) {
		if (!json_object_object_get_ex(run_meta, "status", &st))
			return;		/* a directory without a status: nothing to guard */
		json_object_object_add(run_meta, "status_before_plot", json_object_get(st));
	}
	json_object_object_add(run_meta, "status", json_object_new_string("incomplete"));
	if (run_meta_write())
		exit(EXIT_LAB_ERR);	/* nothing is rewritten yet; the line is printed */
}

void plot_guard_end(void)
{
	json_object *before;

	if (run_meta && json_object_object_get_ex(run_meta, "status_before_plot", &before)) {
		/* A run that was complete: what an earlier plot left unwritten is
		 * written now. */
		if (!strcmp(json_object_get_string(before), "complete"))
			json_object_object_del(run_meta, "unwritten");
		json_object_object_add(run_meta, "status", json_object_get(before));
		json_object_object_del(run_meta, "status_before_plot");
		run_meta_write();	/* if this fails, the run stays "incomplete" */
	}
	json_object_put(run_meta);
	run_meta = NULL;
}

void plot_guard_unwritten(const char *partial)
{
	if (partial)
		unlink(partial);
	if (run_meta) {
		json_object_object_add(run_meta, "unwritten", json_object_new_string(outfile_first_failure()));
		run_meta_write();	/* best effort: the status on disk says incomplete already */
	}
	exit(EXIT_LAB_ERR);
}

void plot_guard_render_failed(const char *err)
{
	if (outfile_failed())
		plot_guard_unwritten(NULL);
	die("plot: %s", err);
}
