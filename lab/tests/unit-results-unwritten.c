// SPDX-License-Identifier: GPL-2.0
/*
 * A run that lost a data file is not complete, even when meta.json could
 * still be written: the status says incomplete, meta.json names the file,
 * its report says so at the top.  The data file is cut short
 * by RLIMIT_FSIZE (EFBIG, as ENOSPC on a full disk) while the small files
 * still fit, which a full disk cannot show.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/results.h"

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* A value for a test's description: never a NULL to printf. */
static const char *shown(const char *s)
{
	return s ? s : "(none)";
}

static char base[] = "/tmp/unit-results-unwritten.XXXXXX";

TEST(lost_data_file_makes_run_incomplete)
{
	char *argv[] = { "memcg-lab", "test", NULL };
	struct rlimit lim = { 64 * 1024, 64 * 1024 };
	static char big[256 * 1024];
	struct results *r;
	json_object *meta;
	char *mp, *rp, *report;
	FILE *f;

	setenv("MEMCG_LAB_RESULTS", base, 1);
	r = results_create("unwritten", NULL, 2, argv);
	ok(r != NULL && !outfile_failed(), "a results directory is created");
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &lim)) {
		tap_skip("a data file cut short", "cannot set RLIMIT_FSIZE");
		results_free(r);
		return;
	}

	memset(big, 'x', sizeof(big));
	f = results_open_data(r, "big.tsv");
	fwrite(big, 1, sizeof(big), f);
	ok(outfile_close(f) == -1 && errno == EFBIG, "a data file larger than the limit fails its close (%s)",
	   strerror(errno));
	f = results_open_data(r, "small.tsv");
	fputs("a\t1\n", f);
	ok(outfile_close(f) == 0, "a small one after it is written");

	results_finish(r, "complete");
	mp = results_path(r, "meta.json");
	rp = results_path(r, "report.txt");
	/* The report of it, as `memcg-lab report DIR` (and report.txt) says it. */
	{
		struct run_result rr;
		char *text = run_capture_argv((const char *const[]){ "bin/memcg-lab", "report", r->dir, NULL },
					      RUN_STDERR_KEEP, &rr);

		if (rr.status != 0 || write_file_atomic(rp, text, strlen(text)))
			tap_diag("memcg-lab report %s failed: %s", r->dir, rr.err);
		free(text);
		free(rr.err);
	}
	meta = json_object_from_file(mp);
	ok(meta && jstr(meta, "status") && !strcmp(jstr(meta, "status"), "incomplete"),
	   "meta.json says incomplete, not the complete the caller asked for (%s)", shown(jstr(meta, "status")));
	ok(jstr(meta, "unwritten") && strstr(jstr(meta, "unwritten"), "data/big.tsv: cannot write: File too large"),
	   "meta.json names the file and the error (%s)", shown(jstr(meta, "unwritten")));
	report = read_text(rp, NULL);
	ok(report && strstr(report, "** INCOMPLETE RUN (status: incomplete)") &&
	   strstr(report, "** not written in full: ") && strstr(report, "big.tsv: cannot write: File too large"),
	   "report.txt says incomplete at the top and names the file");
	free(report);
	report = results_path(r, "data/big.tsv");
	ok(!path_exists(report), "the data file cut short is not left behind");
	free(report);
	json_object_put(meta);
	free(mp);
	free(rp);
	results_free(r);
	ok(tap_rm_rf(base) == 0, "the temporary directory is removed");
}

int main(int argc, char **argv)
{
	int rc;

	if (access("bin/memcg-lab", X_OK))
		tap_skip_all("bin/memcg-lab not built (run from the lab's root after make)");
	if (!mkdtemp(base))
		tap_skip_all("cannot create a temporary directory");
	rc = tap_main(argc, argv);
	if (tap_rm_rf(base))	/* the case removes it; this when it did not get that far */
		tap_diag("rm -rf %s failed", base);
	return rc;
}
