// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perf_symbols.h"
#include "util/err.h"
#include "util/fileio.h"

struct raw {
	struct psym s;
	size_t order;
	size_t full_len;	/* of the line's "name\t[module]": perf compares those */
};

static int cmp_start(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	if (x->s.start != y->s.start)
		return x->s.start < y->s.start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static uint64_t roundup_page(uint64_t x)
{
	return (x + 4095) / 4096 * 4096;
}

static int underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true to keep a, false to keep b.  perf
 * compares the whole name of the line, module part included: its leading
 * underscores are the name's. */
static bool keep_first(const struct raw *a, const struct raw *b)
{
	uint64_t la = a->s.end - a->s.start, lb = b->s.end - b->s.start;
	bool wa = toupper(a->s.type) == 'W', wb = toupper(b->s.type) == 'W';
	bool ga = isupper(a->s.type) && !wa, gb = isupper(b->s.type) && !wb;

	if (!lb && la)
		return true;
	if (!la && lb)
		return false;
	if (wb && !wa)
		return true;
	if (wa && !wb)
		return false;
	if (ga && !gb)
		return true;
	if (gb && !ga)
		return false;
	if (underscores(b->s.name) > underscores(a->s.name))
		return true;
	if (underscores(a->s.name) > underscores(b->s.name))
		return false;
	return a->full_len >= b->full_len;
}

#define MEMO_SLOTS 1024	/* perf_symbols_lookup's memo */

int perf_symbols_parse(struct psyms *p, char *text, const char *source, char *err, size_t errlen)
{
	struct raw *r;
	size_t n = 0, out = 0;
	const struct psym *s;
	int e;

	memset(p, 0, sizeof(*p));
	e = ksyms_parse_lines(&p->tab, text, source, KSYM_NAME_MAX, err, errlen);
	free(text);
	if (e)
		return -1;
	r = xmalloc((p->tab.n ? p->tab.n : 1) * sizeof(*r));
	for (size_t i = 0; i < p->tab.n; i++) {
		const struct ksym *k = &p->tab.by_addr[i];

		if (!strchr("TtWwDdBb", k->type) || k->name[0] == '$')
			continue;
		r[n] = (struct raw){ .s = { .start = k->addr, .end = k->addr, .name = k->name,
					    .module = k->module ? k->module : "", .type = k->type },
				     .order = n,
				     .full_len = strlen(k->name) + (k->module ? strlen(k->module) + 3 : 0) };
		n++;
	}
	qsort(r, n, sizeof(*r), cmp_start);
	/* symbols__fixup_end(is_kallsyms = true) */
	for (size_t i = 0; i + 1 < n; i++) {
		if (r[i].s.end != r[i].s.start)
			continue;
		if (!*r[i].s.module != !*r[i + 1].s.module)
			r[i].s.end = roundup_page(r[i].s.end + 4096);
		else
			r[i].s.end = r[i + 1].s.start;
	}
	if (n && r[n - 1].s.end == r[n - 1].s.start)
		r[n - 1].s.end = roundup_page(r[n - 1].s.start) + 4096;
	/* symbols__fixup_duplicate() */
	for (size_t i = 0; i < n; i++) {
		if (out && r[out - 1].s.start == r[i].s.start) {
			if (!keep_first(&r[out - 1], &r[i]))
				r[out - 1] = r[i];
			continue;
		}
		r[out++] = r[i];
	}
	p->sym = xmalloc((out ? out : 1) * sizeof(*p->sym));
	p->memo = xcalloc(MEMO_SLOTS, sizeof(*p->memo));
	for (size_t i = 0; i < out; i++)
		p->sym[i] = r[i].s;
	p->n = out;
	free(r);

	/* machine__is_lock_function(): a missing marker disables the test. */
	{
		const struct psym *m[4] = { NULL };
		static const char *const names[4] = { "__sched_text_start", "__sched_text_end",
						      "__lock_text_start", "__lock_text_end" };

		for (size_t i = 0; i < p->n; i++)
			if (p->sym[i].name[0] == '_' && p->sym[i].name[1] == '_')
				for (int k = 0; k < 4; k++)
					if (!m[k] && !strcmp(p->sym[i].name, names[k]))
						m[k] = &p->sym[i];
		s = m[0];
		if (s) {
			p->sched_start = s->start;
			p->sched_end = m[1] ? m[1]->start : 0;
			p->lock_start = m[2] ? m[2]->start : 0;
			p->lock_end = m[3] ? m[3]->start : 0;
			p->have_lock_ranges = true;
		}
	}
	return 0;
}

int perf_symbols_load(struct psyms *p, const char *path, char *err, size_t errlen)
{
	char *text;

	if (!path)
		path = "/proc/kallsyms";
	text = read_text(path, NULL);
	if (!text) {
		memset(p, 0, sizeof(*p));
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	return perf_symbols_parse(p, text, path, err, errlen);
}

void perf_symbols_free(struct psyms *p)
{
	free(p->memo);
	free(p->sym);
	ksyms_free(&p->tab);
	memset(p, 0, sizeof(*p));
}

static const struct psym *lookup(const struct psyms *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->sym[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* perf's symbols__find(): start <= addr < end. */
	return addr < p->sym[lo - 1].end ? &p->sym[lo - 1] : NULL;
}

const struct psym *perf_symbols_lookup(const struct psyms *p, uint64_t addr)
{
	struct psym_memo *m;

	if (!p->memo)
		return lookup(p, addr);
	m = &p->memo[(addr ^ (addr >> 10)) & (MEMO_SLOTS - 1)];
	if (!m->used || m->addr != addr) {
		m->addr = addr;
		m->sym = lookup(p, addr);
		m->used = true;
	}
	return m->sym;
}

bool perf_symbols_is_lock_function(const struct psyms *p, uint64_t addr)
{
	if (!p->have_lock_ranges)
		return false;
	return (p->sched_start <= addr && addr < p->sched_end) ||
	       (p->lock_start <= addr && addr < p->lock_end);
}

bool perf_symbols_format(const struct psyms *p, uint64_t addr, char *buf, size_t n)
{
	const struct psym *s = perf_symbols_lookup(p, addr);

	if (!s) {
		buf[0] = '\0';
		return false;
	}
	if (addr - s->start)
		snprintf(buf, n, "%s+%#" PRIx64, s->name, addr - s->start);
	else
		snprintf(buf, n, "%s", s->name);
	return true;
}
