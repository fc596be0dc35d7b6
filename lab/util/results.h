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

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

struct results {
	char *dir;		/* results/<date>-<name> */
	char *meta_path;
	FILE *log;
	json_object *meta;
	int cleanup_handle;
	/* Set when a driver runs under the experiment runner (results_attach). */
	bool attached;
	char step[128];		/* "tasks=4", or "-" */
	int repeat;
	char lab_described[128];	/* git describe --dirty of the lab, or "unknown" */
	char lab_commit[64];		/* the commit it names, or "" */
};

/*
 * The contract between `memcg-lab run` and the driver commands it starts:
 * the runner sets these in the driver's environment; the driver then writes
 * into the runner's directory (results_attach) instead of a new one, tags
 * its data files and metrics rows with the step and repeat, and leaves the
 * status to the runner.
 */
#define RESULTS_ENV_DIR "MEMCG_LAB_RESULTS_DIR"
#define RESULTS_ENV_STEP "MEMCG_LAB_STEP"
#define RESULTS_ENV_REPEAT "MEMCG_LAB_REPEAT"
/* In a guest of memcg-lab vm: qemu's accelerator (tcg, mttcg, kvm) and,
 * under -icount, what the guest's clock counts (lab/scripts/vm.sh). */
#define RESULTS_ENV_VM_ACCEL "MEMCG_LAB_VM_ACCEL"
#define RESULTS_ENV_VM_ICOUNT "MEMCG_LAB_VM_ICOUNT"
/* The host checkout's revision (git describe, rev-parse), for a guest's
 * results: the guest has the lab's tree without its .git. */
#define RESULTS_ENV_VM_REVISION "MEMCG_LAB_VM_REVISION"
#define RESULTS_ENV_VM_COMMIT "MEMCG_LAB_VM_COMMIT"

/*
 * Creates the directory (below base, default "results" in the lab's root
 * directory, or $MEMCG_LAB_RESULTS) and writes the first meta.json with host
 * facts, tool versions, the command line and the lab's git revision, and
 * reproduce.sh: the command line run at that revision in a checkout of
 * its own, or one line saying why it cannot be (exit 2).
 * Exits with a one-line error when the directory cannot be written.
 */
struct results *results_create(const char *name, const char *base, int argc, char **argv);
/*
 * Rewrites reproduce.sh with argv[file_arg] replaced by this run's own copy
 * <dir>/file (the experiment file as it was run), so that it reproduces the
 * run even after the original changed or went.
 */
void results_reproduce_file(struct results *r, int argc, char **argv, int file_arg, const char *file);
/*
 * For driver commands: under the runner (RESULTS_ENV_DIR set) opens that
 * directory; otherwise, when name is not NULL, creates a new one as
 * results_create() does; NULL when neither (the driver prints only).
 */
struct results *results_attach(const char *name, int argc, char **argv);
/* Sets a top-level key of meta.json (takes the reference) and rewrites it. */
void results_meta_set(struct results *r, const char *key, json_object *val);
/*
 * Records that a part of the run was skipped, and why, in meta.json
 * ("skipped": [{"what", "why"}]), the log and one line on stderr.  A skip
 * is never silent; report and compare show it.
 */
void results_skip(struct results *r, const char *what, const char *why);
/* Appends a timestamped line to log (and nothing to the terminal). */
void results_log(struct results *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens data/<file> for writing, checked (util/outfile.h: a failed write or
 * close, even by a plain fclose, is reported and marks the run); when
 * attached, the step and repeat are put before the extension
 * ("x.tsv" -> "x.tasks=4.r0.tsv"). */
FILE *results_open_data(struct results *r, const char *file);
/* <dir>/<rel> (malloc'd), e.g. results_path(r, "plots/x.png"). */
char *results_path(struct results *r, const char *rel);
/* status, or "incomplete" once any file of the run was not written in full. */
const char *results_final_status(const char *status);
/* Writes end time and status ("complete" only when everything finished and
 * every file was written: results_final_status), the status last; when
 * attached only the log line (the runner owns the status). */
void results_finish(struct results *r, const char *status);
void results_free(struct results *r);

/* The lab's root directory (where bin/, layouts/, experiments/ live). */
const char *lab_root_dir(void);
/* ISO-8601 UTC time now. */
void iso_time_now(char *buf, size_t n);
/* Writes a json object to a file atomically; 0 or -errno. */
int json_write_file(const char *path, json_object *obj);

#endif
