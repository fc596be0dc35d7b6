// SPDX-License-Identifier: GPL-2.0
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "drivers/charge/evidence.h"
#include "util/err.h"
#include "util/tsv.h"

struct mode_keys {
	const char *mode;
	struct ev_key v1[EV_MAX_KEYS], v2[EV_MAX_KEYS];
};

/* v1 memory.stat has no slab or sock lines: kmem and tcp have their own files. */
static const struct mode_keys table[] = {
	{ "anon", { { "memory.stat", "pgpgin", true, "pages" }, { "memory.max_usage_in_bytes", NULL, false, "bytes" } },
		  { { "memory.stat", "pgfault", true, "faults" }, { "memory.peak", NULL, false, "bytes" } } },
	{ "stock", { { "memory.stat", "pgpgin", true, "pages" }, { "memory.max_usage_in_bytes", NULL, false, "bytes" } },
		   { { "memory.stat", "pgfault", true, "faults" }, { "memory.peak", NULL, false, "bytes" } } },
	{ "file", { { "memory.stat", "pgpgin", true, "pages" }, { "memory.max_usage_in_bytes", NULL, false, "bytes" } },
		  { { "memory.stat", "shmem", false, "bytes" }, { "memory.peak", NULL, false, "bytes" } } },
	{ "kmem", { { "memory.kmem.usage_in_bytes", NULL, false, "bytes" },
		    { "memory.kmem.max_usage_in_bytes", NULL, false, "bytes" } },
		  { { "memory.stat", "slab_unreclaimable", false, "bytes" }, { "memory.peak", NULL, false, "bytes" } } },
	{ "sock", { { "memory.kmem.tcp.usage_in_bytes", NULL, false, "bytes" },
		    { "memory.kmem.tcp.max_usage_in_bytes", NULL, false, "bytes" } },
		  { { "memory.stat", "sock", false, "bytes" }, { "memory.peak", NULL, false, "bytes" } } },
};

long long oom_kills(const struct cg_env *env, const char *cg)
{
	long long v;

	if (cg_read_key_ll(cg, env->memory_v2 ? "memory.events" : "memory.oom_control", "oom_kill", &v) < 0)
		return -1;
	return v;
}

void evidence_init(struct evidence *e, const struct cg_env *env, const char *mode, int ncg,
		   char *const *cg, char *const *label)
{
	memset(e, 0, sizeof(*e));
	e->env = env;
	e->ncg = ncg < EV_MAX_CGROUPS ? ncg : EV_MAX_CGROUPS;
	e->cg = cg;
	e->label = label;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct ev_key *k = env->memory_v2 ? table[i].v2 : table[i].v1;

		if (strcmp(table[i].mode, mode))
			continue;
		for (int j = 0; j < EV_MAX_KEYS && k[j].file; j++)
			e->keys[e->nkeys++] = k[j];
	}
	e->before = xcalloc((size_t)e->ncg * EV_MAX_KEYS, sizeof(long long));
	e->after = xcalloc((size_t)e->ncg * EV_MAX_KEYS, sizeof(long long));
	e->oom0 = xcalloc(e->ncg ? e->ncg : 1, sizeof(long long));
	for (int c = 0; c < e->ncg; c++)
		e->oom0[c] = oom_kills(env, cg[c]);
}

void evidence_free(struct evidence *e)
{
	free(e->before);
	free(e->after);
	free(e->oom0);
	memset(e, 0, sizeof(*e));
}

static void snapshot(struct evidence *e, long long *out)
{
	for (int c = 0; c < e->ncg; c++)
		for (int k = 0; k < e->nkeys; k++) {
			const struct ev_key *key = &e->keys[k];
			long long v;
			int r = key->key ? cg_read_key_ll(e->cg[c], key->file, key->key, &v) :
					   cg_read_ll(e->cg[c], key->file, &v);

			out[c * EV_MAX_KEYS + k] = r < 0 ? -1 : v;
		}
}

void evidence_before(struct evidence *e)
{
	snapshot(e, e->before);
}

void evidence_after(struct evidence *e)
{
	snapshot(e, e->after);
}

long long evidence_value(const struct evidence *e, int cg, int key)
{
	long long a = e->after[cg * EV_MAX_KEYS + key], b = e->before[cg * EV_MAX_KEYS + key];

	if (a < 0 || (e->keys[key].cumulative && b < 0))
		return -1;
	return e->keys[key].cumulative ? a - b : a;
}

bool evidence_death_cause(void *arg, int idx, int wstatus, char *buf, size_t n)
{
	struct evidence *e = arg;
	long long now;

	if (idx < 0 || idx >= e->ncg || !WIFSIGNALED(wstatus) || WTERMSIG(wstatus) != SIGKILL)
		return false;
	now = oom_kills(e->env, e->cg[idx]);
	if (now < 0 || e->oom0[idx] < 0 || now <= e->oom0[idx])
		return false;
	snprintf(buf, n, "killed by the OOM killer in cgroup %s (oom_kill %lld -> %lld)", e->label[idx],
		 e->oom0[idx], now);
	/* The next death in this cgroup needs a kill of its own. */
	e->oom0[idx] = now;
	return true;
}

void evidence_write_tsv(const struct evidence *e, const unsigned long long *driver_ops, FILE *f,
			const char *prefix_hdr, const char *prefix)
{
	/* The prefixes are the caller's cells, each with its tab. */
	if (prefix_hdr) {
		fputs(prefix_hdr, f);
		tsv_write_header(f, (const char *const[]){ "cgroup", "file", "key", "kind", "before", "after", "value",
							   "unit", "driver_ops", NULL });
	}
	for (int c = 0; c < e->ncg; c++)
		for (int k = 0; k < e->nkeys; k++) {
			const struct ev_key *key = &e->keys[k];

			fputs(prefix ? prefix : "", f);
			tsv_write_row(f, "%s\t%s\t%s\t%s\t%lld\t%lld\t%lld\t%s\t%llu\n", e->label[c], key->file,
				      key->key ? key->key : "-", key->cumulative ? "change" : "value",
				      e->before[c * EV_MAX_KEYS + k], e->after[c * EV_MAX_KEYS + k],
				      evidence_value(e, c, k), key->unit, driver_ops ? driver_ops[c] : 0ULL);
		}
}
