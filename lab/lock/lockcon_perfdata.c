// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lock/lockcon_perfdata.h"
#include "perf/tp_field.h"
#include "util/err.h"

struct walk {
	struct lockcon_file *f;
	struct lockcon *lc;
	char *err;
	size_t errlen;
};

static int on_record(struct perf_file *pf, const struct perf_event_header *ev, uint64_t off,
		     void *arg)
{
	struct walk *w = arg;
	struct perfdata_sample s;

	(void)off;
	if (ev->type == PERF_RECORD_COMM) {
		/* struct { u32 pid, tid; char comm[]; } + sample_id */
		const char *comm = (const char *)(ev + 1) + 8;
		uint32_t tid;
		size_t max = ev->size - sizeof(*ev) - 8;

		if (ev->size < sizeof(*ev) + 9)
			return 0;
		memcpy(&tid, (const char *)(ev + 1) + 4, 4);
		free(u64map_del(&w->f->comms, tid));
		u64map_put(&w->f->comms, tid, strndup(comm, max));
		return 0;
	}
	/* struct { u32 pid, tid; u64 start, len, pgoff; char filename[]; }, and
	 * in MMAP2 u32 maj, min; u64 ino, ino_generation; u32 prot, flags
	 * before the filename; then the sample_id. */
	if (w->f->uinl && (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2)) {
		size_t name_off = ev->type == PERF_RECORD_MMAP2 ? 64 : 32;
		const uint8_t *p = (const uint8_t *)(ev + 1);
		char name[4096];
		uint32_t pid;
		uint64_t v[3];

		if (ev->size <= sizeof(*ev) + name_off)
			return 0;
		memcpy(&pid, p, 4);
		memcpy(v, p + 8, sizeof(v));
		snprintf(name, sizeof(name), "%.*s", (int)(ev->size - sizeof(*ev) - name_off),
			 (const char *)p + name_off);
		uinl_mmap(w->f->uinl, pid, v[0], v[1], v[2], name);
		return 0;
	}
	if (ev->type != PERF_RECORD_SAMPLE)
		return 0;
	if (perfdata_parse_sample(pf, ev, &s, w->err, w->errlen))
		return -1;
	w->lc->pid = s.pid;
	if (s.evsel == w->f->begin) {
		w->f->nbegin++;
		lockcon_begin(w->lc, s.tid, s.time, tp_field_read(s.raw, s.raw_size, &w->f->b_addr),
			      (unsigned int)tp_field_read(s.raw, s.raw_size, &w->f->b_flags), s.ips, s.nr);
	} else if (s.evsel == w->f->end) {
		w->f->nend++;
		lockcon_end(w->lc, s.tid, s.time, tp_field_read(s.raw, s.raw_size, &w->f->e_addr),
			    s.ips, s.nr);
	}
	return 0;
}

int lockcon_stack_skip_of(const char *version)
{
	int major, minor;

	if (!version || sscanf(version, "%d.%d", &major, &minor) != 2 || major < 0 || minor < 0)
		return -1;
	return major > 6 || (major == 6 && minor >= 2) ? 4 : 3;
}

int lockcon_open_perfdata(struct lockcon_file *f, const char *path, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	u64map_init(&f->comms);
	if (perfdata_open(&f->pf, path, err, errlen))
		return -1;
	f->begin = perfdata_find_evsel(&f->pf, "lock:contention_begin");
	f->end = perfdata_find_evsel(&f->pf, "lock:contention_end");
	if ((!f->begin || !f->end) && f->pf.cut[0]) {
		/* The event formats are in a header feature cut off the end. */
		snprintf(err, errlen, "%s", f->pf.cut);
		lockcon_file_close(f);
		return -1;
	}
	if (!f->begin || !f->end) {
		const char *lockdep = perfdata_find_evsel(&f->pf, "lock:lock_acquire") ?
			" (it has lockdep's lock:lock_* events, which the lab does not read)" : "";

		snprintf(err, errlen, "%s: no lock:contention_begin/end events%s; recorded with '%s'; "
			 "record with 'perf lock record' or 'memcg-lab lock record --perf'", path,
			 lockdep, f->pf.cmdline ? f->pf.cmdline : "?");
		lockcon_file_close(f);
		return -1;
	}
	if (tp_field_lookup(f->begin->tp, "lock_addr", &f->b_addr) ||
	    tp_field_lookup(f->begin->tp, "flags", &f->b_flags) ||
	    tp_field_lookup(f->end->tp, "lock_addr", &f->e_addr)) {
		snprintf(err, errlen, "%s: lock:contention_begin/end formats lack the lock_addr/flags fields",
			 path);
		lockcon_file_close(f);
		return -1;
	}
	return 0;
}

bool lockcon_perf_adds_inlines(const char *version)
{
	int major;

	return version && sscanf(version, "%d.", &major) == 1 && major >= 7;
}

static int user_nodes(void *arg, uint32_t pid, uint64_t ip)
{
	return uinl_nodes(arg, pid, ip);
}

int lockcon_walk_perfdata(struct lockcon_file *f, struct lockcon *lc, char *err, size_t errlen)
{
	struct walk w = { .f = f, .lc = lc, .err = err, .errlen = errlen };

	/* Only the caller view looks at frames. */
	if (lc->by == LOCKCON_BY_CALLER && lockcon_perf_adds_inlines(f->pf.version) && !lc->user_nodes) {
		f->uinl = uinl_new();
		lc->user_nodes = user_nodes;
		lc->user_arg = f->uinl;
	}

	return perfdata_for_each(&f->pf, on_record, &w, err, errlen) ? -1 : 0;
}

int lockcon_read_perfdata(struct lockcon_file *f, const char *path, struct lockcon *lc,
			  char *err, size_t errlen)
{
	if (lockcon_open_perfdata(f, path, err, errlen))
		return -1;
	if (lockcon_walk_perfdata(f, lc, err, errlen)) {
		lockcon_file_close(f);
		return -1;
	}
	return 0;
}

const char *lockcon_comm(const struct lockcon_file *f, uint32_t tid, char *buf, size_t n)
{
	const char *c = u64map_get(&f->comms, tid);

	if (c)
		return c;
	/* perf registers the idle thread as "swapper" (machine__idle_thread). */
	if (tid == 0)
		return "swapper";
	/* A sample without a task (tid -1): print_lock_stat_stdio's "Unknown". */
	if (tid == (uint32_t)-1)
		return "Unknown";
	snprintf(buf, n, ":%u", tid);
	return buf;
}

void lockcon_file_close(struct lockcon_file *f)
{
	size_t i = 0;
	void *v;

	while (u64map_next(&f->comms, &i, NULL, &v))
		free(v);
	u64map_free(&f->comms);
	uinl_free(f->uinl);
	f->uinl = NULL;
	perfdata_close(&f->pf);
}
