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
	const char *full;	/* name with "\t[module]": perf compares these */
};

static int cmp_start(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	if (x->s.start != y->s.start)
		return x->s.start < y->s.start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const struct psym *sort_base;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(sort_base[*(const size_t *)a].name, sort_base[*(const size_t *)b].name);
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

/* perf's choose_best_symbol(): true to keep a, false to keep b. */
static bool keep_first(const struct raw *a, const struct raw *b)
{
	uint64_t la = a->s.end - a->s.start, lb = b->s.end - b->s.start;
	bool wa = toupper(a->s.type) == 'W', wb = toupper(b->s.type) == 'W';
	bool ga = isupper(a->s.type) && !wa, gb = isupper(b->s.type) && !wb;
	size_t na, nb;

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
	if (underscores(b->full) > underscores(a->full))
		return true;
	if (underscores(a->full) > underscores(b->full))
		return false;
	na = strlen(a->full);
	nb = strlen(b->full);
	return na >= nb;
}

int perf_symbols_parse(struct psyms *p, char *text, const char *source, char *err, size_t errlen)
{
	struct raw *r = NULL;
	size_t n = 0, cap = 0, lineno = 0, out = 0;
	char *line = text, *next;
	const struct psym *s;

	memset(p, 0, sizeof(*p));
	p->text = text;
	p->source = xstrdup(source);
	for (; line && *line; line = next) {
		char *end, *name, *tab;
		unsigned long long addr;
		char type;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		addr = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ') {
			snprintf(err, errlen, "%s:%zu: not a kallsyms line (want 'ADDRESS TYPE NAME [MODULE]')",
				 source, lineno);
			free(r);
			perf_symbols_free(p);
			return -1;
		}
		type = end[1];
		name = end + 3;
		if (!strchr("TtWwDdBb", type) || name[0] == '$')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			r = xrealloc(r, cap * sizeof(*r));
		}
		r[n] = (struct raw){ .s = { .start = addr, .end = addr, .name = name, .module = "",
					    .type = type }, .order = n, .full = name };
		n++;
		/* The module part stays in full (perf compares whole lines)
		 * and is cut from the name after the duplicate pass. */
		(void)tab;
	}
	qsort(r, n, sizeof(*r), cmp_start);
	/* symbols__fixup_end(is_kallsyms = true) */
	for (size_t i = 0; i + 1 < n; i++) {
		if (r[i].s.end != r[i].s.start)
			continue;
		if (!strchr(r[i].full, '[') != !strchr(r[i + 1].full, '['))
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
	for (size_t i = 0; i < out; i++) {
		char *tab = strchr((char *)r[i].full, '\t');

		p->sym[i] = r[i].s;
		if (tab) {
			char *mod = tab + 1, *close;

			*tab = '\0';
			if (*mod == '[')
				mod++;
			close = strchr(mod, ']');
			if (close)
				*close = '\0';
			p->sym[i].module = mod;
		}
	}
	p->n = out;
	free(r);

	/* machine__is_lock_function(): a missing marker disables the test.
	 * A linear pass: the name index is built only when someone asks. */
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

static void index_names(struct psyms *p)
{
	p->by_name = xmalloc((p->n ? p->n : 1) * sizeof(*p->by_name));
	for (size_t i = 0; i < p->n; i++)
		p->by_name[i] = i;
	sort_base = p->sym;
	qsort(p->by_name, p->n, sizeof(*p->by_name), cmp_name);
	sort_base = NULL;
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
	free(p->sym);
	free(p->by_name);
	free(p->text);
	free(p->source);
	memset(p, 0, sizeof(*p));
}

const struct psym *perf_symbols_lookup(const struct psyms *p, uint64_t addr)
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

const struct psym *perf_symbols_find(const struct psyms *p, const char *name)
{
	size_t lo = 0, hi = p->n;

	if (!p->by_name)
		index_names((struct psyms *)p);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->sym[p->by_name[mid]].name, name);

		if (!c)
			return &p->sym[p->by_name[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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
