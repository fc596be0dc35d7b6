/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results directory of one run: results/<date>-<name>/ with meta.json,
 * reproduce.sh, data/, plots/ and log.
 *
 * meta.json is rewritten atomically on every change and carries
 * "status": "incomplete" until results_finish() marks it complete, so a run
 * that was killed is never mistaken for a finished one.
 */
#ifndef LAB_UTIL_RESULTS_H
#define LAB_UTIL_RESULTS_H

#include <stdio.h>
#include <json-c/json.h>

struct results {
	char *dir;		/* results/<date>-<name> */
	char *meta_path;
	FILE *log;
	json_object *meta;
	int cleanup_handle;
};

/*
 * Creates the directory (below base, default "results" in the lab's root
 * directory, or $MEMCG_LAB_RESULTS) and writes the first meta.json with host
 * facts, tool versions, the command line and the lab's git revision.
 * Exits with a one-line error when the directory cannot be written.
 */
struct results *results_create(const char *name, const char *base, int argc, char **argv);
/* Sets a top-level key of meta.json (takes the reference) and rewrites it. */
void results_meta_set(struct results *r, const char *key, json_object *val);
/* Appends a timestamped line to log (and nothing to the terminal). */
void results_log(struct results *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens data/<file> for writing. */
FILE *results_open_data(struct results *r, const char *file);
/* <dir>/<rel> (malloc'd), e.g. results_path(r, "plots/x.png"). */
char *results_path(struct results *r, const char *rel);
/* Writes end time and status ("complete" only when everything finished). */
void results_finish(struct results *r, const char *status);
void results_free(struct results *r);

/* The lab's root directory (where bin/, layouts/, experiments/ live). */
const char *lab_root_dir(void);
/* ISO-8601 UTC time now. */
void iso_time_now(char *buf, size_t n);
/* Writes a json object to a file atomically; 0 or -errno. */
int json_write_file(const char *path, json_object *obj);

#endif
