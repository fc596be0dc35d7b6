// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "drivers/statread/lock_statread.h"
#include "util/err.h"

/* Before the warm-up: kernel symbols, the instance, formats, BPF. */
static int hook_prepare(void *ctx, const struct statread_run_info *info)
{
	struct lock_statread *ls = ctx;

	(void)info;
	ls->c = lock_collector_prepare(&ls->opts, ls->err, sizeof(ls->err));
	if (!ls->c) {
		warnx_lab("lock collector: %s", ls->err);
		return -ENOTSUP;
	}
	return 0;
}

/* At the measured phase's start: a few writes. */
static int hook_start(void *ctx, const struct statread_run_info *info)
{
	struct lock_statread *ls = ctx;

	(void)info;
	if (lock_collector_enable(ls->c, ls->err, sizeof(ls->err))) {
		warnx_lab("lock collector: %s", ls->err);
		lock_collector_free(ls->c);
		ls->c = NULL;
		return -ENOTSUP;
	}
	return 0;
}

static void hook_stop(void *ctx, const struct statread_run_info *info)
{
	struct lock_statread *ls = ctx;

	(void)info;
	if (ls->c && lock_collector_stop(ls->c, ls->err, sizeof(ls->err)))
		warnx_lab("lock collector: %s", ls->err);
}

void lock_statread_hook(struct statread_hook *h, struct lock_statread *ls)
{
	memset(ls, 0, sizeof(*ls));
	ls->opts.caller_stacks = -1;
	memset(h, 0, sizeof(*h));
	h->name = "lock collector (rstat lock holds, memcg_flush_stats counts)";
	h->prepare = hook_prepare;
	h->start = hook_start;
	h->stop = hook_stop;
	h->ctx = ls;
}

bool lock_statread_finish(struct lock_statread *ls, const struct statread_result *res,
			  struct results *r, FILE *out)
{
	if (!ls->c)
		return false;
	/* Every reader's read() of memory.stat bounds the flush lock's holds. */
	for (int l = 0; l < SR_NLEVELS; l++)
		if (res->hist[l][SR_STAT].count)
			lock_collector_read_latency(ls->c, &res->hist[l][SR_STAT]);
	if (out) {
		fprintf(out, "\n");
		lock_collector_print(ls->c, out);
	}
	if (r)
		lock_collector_write(ls->c, r);
	lock_collector_free(ls->c);
	ls->c = NULL;
	return true;
}
