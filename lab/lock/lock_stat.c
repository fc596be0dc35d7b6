// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lock/lock_stat.h"
#include "util/err.h"
#include "util/fileio.h"

static const char *const colnames[12] = {
	"con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total",
	"waittime-avg", "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max",
	"holdtime-total", "holdtime-avg",
};

/* Microseconds with decimals, as seq_time() prints them, to ns. */
static int parse_us(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0)
		return -1;
	*ns = (uint64_t)llround(v * 1000.0);
	return 0;
}

static int parse_count(const char *s, uint64_t *v)
{
	char *end;

	*v = strtoull(s, &end, 10);
	return end == s || *end ? -1 : 0;
}

/* "name:   n n n ..." -> a class; 1 when the line is not a class line. */
static int parse_class(char *line, const char *source, int lineno, struct lockstat_class *c,
		       char *err, size_t errlen)
{
	char *colon = strrchr(line, ':'), *tok[16], *save = NULL, *p;
	const char *name = line;
	int n = 0;
	bool v04;

	if (!colon)
		return 1;
	for (p = strtok_r(colon + 1, " \t", &save); p && n < 16; p = strtok_r(NULL, " \t", &save))
		tok[n++] = p;
	if (n != 10 && n != 12)
		return 1;
	if (!isdigit((unsigned char)tok[0][0]))
		return 1;
	v04 = n == 12;
	*colon = '\0';
	while (isspace((unsigned char)*name))
		name++;
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%.159s", name);
	c->line = lineno;
	for (int i = 0, k = 0; i < 12; i++) {
		uint64_t *dst[12] = { &c->con_bounces, &c->contentions, &c->wait_min, &c->wait_max,
				      &c->wait_total, &c->wait_avg, &c->acq_bounces, &c->acquisitions,
				      &c->hold_min, &c->hold_max, &c->hold_total, &c->hold_avg };
		bool is_time = !(i == 0 || i == 1 || i == 6 || i == 7);
		int r;

		if (!v04 && (i == 5 || i == 11))
			continue;	/* 0.3 has no averages */
		r = is_time ? parse_us(tok[k], dst[i]) : parse_count(tok[k], dst[i]);
		if (r) {
			snprintf(err, errlen, "%s:%d: field '%s' of class '%s': expected %s, got '%s'",
				 source, lineno, colnames[i], c->name,
				 is_time ? "microseconds like 12.34" : "an integer", tok[k]);
			return -1;
		}
		k++;
	}
	if (!v04) {
		c->wait_avg = c->contentions ? c->wait_total / c->contentions : 0;
		c->hold_avg = c->acquisitions ? c->hold_total / c->acquisitions : 0;
	}
	return 0;
}

int lockstat_parse(const char *text, const char *source, struct lockstat *ls, char *err, size_t errlen)
{
	const char *p = text;
	int lineno = 0;
	bool header = false;

	memset(ls, 0, sizeof(*ls));
	char line[1024];

	while (text_next_line(&p, line, sizeof(line))) {
		struct lockstat_class c;
		const char *v;
		int r;

		lineno++;
		if ((v = strstr(line, "lock_stat version "))) {
			snprintf(ls->version, sizeof(ls->version), "%s", v + strlen("lock_stat version "));
			header = true;
			continue;
		}
		if (strstr(line, "lock debugging disabled"))
			ls->debug_disabled = true;
		if (!header)
			continue;
		r = parse_class(line, source, lineno, &c, err, errlen);
		if (r < 0) {
			lockstat_free(ls);
			return -1;
		}
		if (r)
			continue;
		ls->c = xrealloc(ls->c, (ls->n + 1) * sizeof(*ls->c));
		ls->c[ls->n++] = c;
	}
	if (!header) {
		snprintf(err, errlen, "%s: not a /proc/lock_stat file (no 'lock_stat version' line)", source);
		return -1;
	}
	return 0;
}

void lockstat_free(struct lockstat *ls)
{
	free(ls->c);
	memset(ls, 0, sizeof(*ls));
}

const struct lockstat_class *lockstat_find(const struct lockstat *ls, const char *name)
{
	for (size_t i = 0; i < ls->n; i++)
		if (!strcmp(ls->c[i].name, name))
			return &ls->c[i];
	return NULL;
}

void lockstat_delta(const struct lockstat_class *before, const struct lockstat_class *after,
		    struct lockstat_class *out)
{
	*out = *after;
	if (!before)
		return;
	out->con_bounces -= before->con_bounces;
	out->contentions -= before->contentions;
	out->acq_bounces -= before->acq_bounces;
	out->acquisitions -= before->acquisitions;
	out->wait_total -= before->wait_total;
	out->hold_total -= before->hold_total;
	out->wait_avg = out->contentions ? out->wait_total / out->contentions : 0;
	out->hold_avg = out->acquisitions ? out->hold_total / out->acquisitions : 0;
}
