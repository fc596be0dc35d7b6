// SPDX-License-Identifier: GPL-2.0
/*
 * `memcg-lab lock report`: a perf.data read as perf lock contention would,
 * or a captured perf lock contention output, printed as perf's table or TSV.
 */
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lock/lockcon.h"
#include "lock/lockcon_out.h"
#include "lock/lockcon_perfdata.h"
#include "lock/lockcon_report.h"
#include "lock/lockcon_text.h"
#include "perf/perf_symbols.h"
#include "util/err.h"
#include "util/fileio.h"

static const char *comm_of(void *arg, uint32_t tid, char *buf, size_t n)
{
	return lockcon_comm(arg, tid, buf, n);
}

static void warn_foreign(const struct lockcon_file *f, const char *kallsyms)
{
	char release[256] = "";

	if (kallsyms || !f->pf.osrelease)
		return;
	if (read_buf("/proc/sys/kernel/osrelease", release, sizeof(release)) > 0) {
		release[strcspn(release, "\n")] = '\0';
		if (strcmp(release, f->pf.osrelease))
			warnx_lab("%s was recorded on kernel %s, this is %s: caller names come from this "
				  "kernel's /proc/kallsyms (pass --kallsyms of the recording machine)",
				  f->pf.path, f->pf.osrelease, release);
	}
}

int lockcon_report_perf_text(const char *path, bool tsv, FILE *out)
{
	char err[512], *text = read_text(path, NULL);
	struct lockcon_text_table *t;
	size_t nt;

	if (!text)
		die("%s: cannot read", path);
	if (lockcon_text_parse(text, path, &t, &nt, err, sizeof(err)))
		die("%s", err);
	for (size_t k = 0; k < nt; k++) {
		fprintf(out, "# table %zu (line %d): %s view, %zu rows%s\n", k + 1, t[k].header_line,
			lockcon_text_view_name(t[k].view), t[k].n - t[k].nowners, t[k].csv ? ", CSV" : "");
		if (t[k].nowners)
			fprintf(out, "# and %zu lock owner rows (owner section, line %d), role owner\n",
				t[k].nowners, t[k].owner_line);
		if (tsv) {
			lockcon_text_write_tsv(out, &t[k]);
			continue;
		}
		for (size_t i = 0; i < t[k].n; i++) {
			const struct lockcon_text_row *r = &t[k].rows[i];
			const char *key = t[k].view == LCT_CALLER ? r->caller : t[k].view == LCT_TASK ? r->comm :
					  t[k].view == LCT_ADDR ? r->symbol : r->cgroup;

			fprintf(out, "%10" PRIu64 " %14" PRIu64 " ns  %s%s\n", r->v[LCT_CONTENDED],
				r->v[LCT_WAIT_TOTAL], key, r->owner ? "  (owner)" : "");
		}
	}
	lockcon_text_free(t, nt);
	free(text);
	return 0;
}

struct syms_load {
	struct psyms *syms;
	const char *path;
	bool failed;
	char err[512];
};

static void *load_syms(void *arg)
{
	struct syms_load *l = arg;

	l->failed = perf_symbols_load(l->syms, l->path, l->err, sizeof(l->err)) != 0;
	return NULL;
}

int lockcon_report_perfdata(const struct lockcon_report_opts *o, FILE *out)
{
	const char *input = o->input, *kallsyms = o->kallsyms;
	enum lockcon_by by = o->by;
	int stack_skip = o->stack_skip;
	struct lockcon_file f;
	struct lockcon lc;
	struct psyms syms;
	char err[1024];
	struct syms_load ld;
	bool loaded_inline = false;
	pthread_t loader;

	/* Reading kallsyms costs the kernel as much as reading a million
	 * events costs us: do it while the file is opened and checked.  The
	 * thread view needs no symbols. */
	memset(&syms, 0, sizeof(syms));
	ld = (struct syms_load){ .syms = &syms, .path = kallsyms };
	if (by != LOCKCON_BY_THREAD && pthread_create(&loader, NULL, load_syms, &ld))
		load_syms(&ld), loaded_inline = true;
	if (lockcon_open_perfdata(&f, input, err, sizeof(err)))
		die("%s", err);
	if (by != LOCKCON_BY_THREAD && !loaded_inline)
		pthread_join(loader, NULL);
	if (ld.failed)
		die("%s", ld.err);
	lockcon_init(&lc, by, by == LOCKCON_BY_THREAD ? NULL : &syms);
	lc.max_stack = o->max_stack;
	if (stack_skip < 0) {
		/* perf's own default for the file: that of the perf which wrote it. */
		stack_skip = lockcon_stack_skip_of(f.pf.version);
		if (stack_skip < 0) {
			stack_skip = 4;
			if (by != LOCKCON_BY_THREAD)
				warnx_lab("%s: no perf version in its header (HEADER_VERSION): callers found "
					  "with --stack-skip 4, the default since perf 6.2 (pass --stack-skip "
					  "3 for an older perf)", input);
		}
	}
	lc.stack_skip = stack_skip;
	if (lockcon_walk_perfdata(&f, &lc, err, sizeof(err)))
		die("%s", err);
	warn_foreign(&f, kallsyms);
	if (f.pf.stats.lost || f.pf.stats.lost_samples)
		warnx_lab("%s: the kernel dropped %" PRIu64 " samples while recording (PERF_RECORD_LOST): "
			  "waits are undercounted", input, f.pf.stats.lost + f.pf.stats.lost_samples);
	if (lc.user_callers)
		warnx_lab("%s: %" PRIu64 " caller searches reached user-space frames, which the lab does not "
			  "symbolize (perf may name a user function there)", input, lc.user_callers);
	if (o->tsv)
		lockcon_print_tsv(out, &lc, comm_of, &f);
	else
		lockcon_print_text(out, &lc, comm_of, &f);
	lockcon_free(&lc);
	lockcon_file_close(&f);
	perf_symbols_free(&syms);
	return 0;
}
