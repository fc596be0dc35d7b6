// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lock/lock_types.h"
#include "lock/lockcon_out.h"
#include "lock/lockcon_text.h"
#include "util/tsv.h"

const char *lockcon_by_name(enum lockcon_by by)
{
	return by == LOCKCON_BY_THREAD ? "thread" : by == LOCKCON_BY_LOCK ? "lock" : "caller";
}

int lockcon_by_parse(const char *s)
{
	if (!strcmp(s, "thread"))
		return LOCKCON_BY_THREAD;
	if (!strcmp(s, "caller"))
		return LOCKCON_BY_CALLER;
	if (!strcmp(s, "lock"))
		return LOCKCON_BY_LOCK;
	return -1;
}

static const char *name_thread(lockcon_comm_fn comm, void *arg, uint32_t tid, char *buf, size_t n)
{
	if (comm)
		return comm(arg, tid, buf, n);
	snprintf(buf, n, ":%u", tid);
	return buf;
}

void lockcon_print_text(FILE *f, const struct lockcon *lc, lockcon_comm_fn comm, void *arg)
{
	size_t n;
	struct lockcon_entry **v = lockcon_sorted(lc, false, &n);

	/* builtin-lock.c print_contention_result(), default fields. */
	fprintf(f, "%10s %12s %12s %12s ", "contended", "total wait", "max wait", "avg wait");
	if (lc->by == LOCKCON_BY_THREAD)
		fprintf(f, "  %10s   %s\n\n", "pid", "comm");
	else if (lc->by == LOCKCON_BY_LOCK)
		fprintf(f, "  %16s   %s\n\n", "address", "symbol");
	else
		fprintf(f, "  %10s   %s\n\n", "type", "caller");
	for (size_t i = 0; i < n; i++) {
		const struct lockcon_entry *e = v[i];
		char t1[32], t2[32], t3[32], buf[64];

		lockcon_text_format_time(e->wait_total, t1, sizeof(t1));
		lockcon_text_format_time(e->wait_max, t2, sizeof(t2));
		lockcon_text_format_time(lockcon_avg(e), t3, sizeof(t3));
		fprintf(f, "%10" PRIu64 " %s %s %s ", e->contended, t1, t2, t3);
		if (lc->by == LOCKCON_BY_THREAD)
			fprintf(f, "  %10d   %s\n", (int)e->key,
				name_thread(comm, arg, (uint32_t)e->key, buf, sizeof(buf)));
		else if (lc->by == LOCKCON_BY_LOCK)
			fprintf(f, "  %016" PRIx64 "   %s (%s)\n", e->addr, e->name, lock_type_name(e->flags));
		else
			fprintf(f, "  %10s   %s\n", lock_type_name(e->flags), e->name);
	}
	if (lockcon_bad_total(lc))
		fprintf(f, "\n=== output for debug ===\n\nbad: %" PRIu64 ", total: %zu\n",
			lockcon_bad_total(lc), (size_t)lc->entries.n);
	free(v);
}

static void pctl(FILE *f, const struct hist *h, double q)
{
	if (h && h->count)
		fprintf(f, "\t%" PRIu64, hist_quantile(h, q));
	else
		fprintf(f, "\t-");
}

/* The columns by what the table is keyed by (thread, lock, caller). */
#define WAIT_COLS "key", "contended", "wait_total_ns", "wait_max_ns", "wait_avg_ns", "wait_min_ns", "wait_p50_ns", \
		  "wait_p99_ns"
static const char *const thread_cols[] = { WAIT_COLS, "comm", NULL };
static const char *const lock_cols[] = { WAIT_COLS, "addr", "type", "symbol", NULL };
static const char *const caller_cols[] = { WAIT_COLS, "type", "stack_id", NULL };

void lockcon_print_tsv(FILE *f, const struct lockcon *lc, lockcon_comm_fn comm, void *arg)
{
	size_t n;
	struct lockcon_entry **v = lockcon_sorted(lc, false, &n);

	tsv_write_header(f, lc->by == LOCKCON_BY_THREAD ? thread_cols : lc->by == LOCKCON_BY_LOCK ? lock_cols :
			    caller_cols);
	for (size_t i = 0; i < n; i++) {
		const struct lockcon_entry *e = v[i];
		char buf[64];

		if (lc->by == LOCKCON_BY_THREAD)
			fprintf(f, "%" PRIu64, e->key);
		else if (lc->by == LOCKCON_BY_LOCK)
			tsv_write_row(f, "%s", e->name[0] ? e->name : (snprintf(buf, sizeof(buf), "0x%" PRIx64, e->addr), buf));
		else
			tsv_write_row(f, "%s", e->name);
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64,
			e->contended, e->wait_total, e->wait_max, lockcon_avg(e),
			e->acquired ? e->wait_min : 0);
		pctl(f, e->hist, 0.50);
		pctl(f, e->hist, 0.99);
		if (lc->by == LOCKCON_BY_THREAD)
			tsv_write_row(f, "\t%s\n", name_thread(comm, arg, (uint32_t)e->key, buf, sizeof(buf)));
		else if (lc->by == LOCKCON_BY_LOCK)
			tsv_write_row(f, "\t0x%" PRIx64 "\t%s\t%s\n", e->addr, lock_type_name(e->flags),
				      e->name[0] ? e->name : "-");
		else
			tsv_write_row(f, "\t%s\t%016" PRIx64 "\n", lock_type_name(e->flags), e->key);
	}
	free(v);
}
