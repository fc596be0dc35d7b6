// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include "util/err.h"
#include "util/expfile.h"
#include "util/nearest.h"

struct parse_ctx {
	struct expfile *x;
	FILE *f;
	int line;		/* lines read so far: the handler's line */
	bool indented;		/* that line starts with a blank: a continuation */
	long last;		/* the entry the previous line set, -1 none */
	int last_line;		/* the line it (or its continuation) was on */
	char err[512];
};

/* fgets with a line count: libinih calls the handler right after reading
 * the line that holds the entry, so the count is that entry's line.  A
 * line libinih would cut (it reads at most num - 1 bytes) ends the parse
 * with an error: its rest would pass for a line of its own. */
static char *counting_reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	char *r = fgets(str, num, c->f);

	if (!r)
		return r;
	c->line++;
	c->indented = str[0] == ' ' || str[0] == '\t';
	if (!strchr(str, '\n') && !feof(c->f)) {
		if (!c->err[0])
			snprintf(c->err, sizeof(c->err), "%s:%d: a line longer than %d characters (continue a long "
				 "value on indented lines)", c->x->path, c->line, num - 2);
		return NULL;
	}
	return r;
}

static void add_entry(struct expfile *x, const char *section, const char *key, const char *value, int line)
{
	for (size_t i = 0; i < x->n; i++) {
		if (!strcmp(x->e[i].section, section) && !strcmp(x->e[i].key, key)) {
			free(x->e[i].value);
			x->e[i].value = xstrdup(value);
			x->e[i].line = line;
			return;
		}
	}
	x->e = xrealloc(x->e, (x->n + 1) * sizeof(*x->e));
	x->e[x->n++] = (struct exp_entry){ xstrdup(section), xstrdup(key), xstrdup(value), line };
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;

	if (!section[0]) {
		if (!c->err[0])
			snprintf(c->err, sizeof(c->err), "%s:%d: '%s' outside any [section]", c->x->path, c->line, key);
		return 0;
	}
	/* An indented line right after an entry continues its value. */
	if (c->indented && c->last >= 0 && !strcmp(c->x->e[c->last].section, section) &&
	    !strcmp(c->x->e[c->last].key, key) && c->last_line == c->line - 1) {
		struct exp_entry *e = &c->x->e[c->last];
		char *v = xasprintf("%s %s", e->value, value);

		free(e->value);
		e->value = v;
		c->last_line = c->line;	/* the next continuation follows this line */
		return 1;
	}
	for (size_t i = 0; i < c->x->n; i++) {
		if (!strcmp(c->x->e[i].section, section) && !strcmp(c->x->e[i].key, key)) {
			if (!c->err[0])
				snprintf(c->err, sizeof(c->err), "%s:%d: [%s] %s is set twice (first on line %d)",
					 c->x->path, c->line, section, key, c->x->e[i].line);
			return 0;
		}
	}
	add_entry(c->x, section, key, value, c->line);
	c->last = (long)c->x->n - 1;
	c->last_line = c->line;
	return 1;
}

int expfile_parse(const char *path, struct expfile *x, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	int r;

	if (!f || (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode))) {
		memset(x, 0, sizeof(*x));
		x->path = xstrdup(path);
		/* fopen() opens a directory, whose read then fails: said here,
		 * not taken for an empty file. */
		int e = errno;
		char near[1024];

		if (f)
			snprintf(err, errlen, "%s: a directory, not an experiment file", path);
		else if (e == ENOENT && !nearest_names(path, near, sizeof(near)))
			snprintf(err, errlen, "%s: cannot open: %s (nearest: %s)", path, strerror(e), near);
		else
			snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		if (f)
			fclose(f);
		return -1;
	}
	r = expfile_parse_stream(f, path, x, err, errlen);
	fclose(f);
	return r;
}

int expfile_parse_stream(FILE *f, const char *path, struct expfile *x, char *err, size_t errlen)
{
	struct parse_ctx c = { .x = x, .f = f, .last = -1 };
	int r;

	memset(x, 0, sizeof(*x));
	x->path = xstrdup(path);
	r = ini_parse_stream(counting_reader, &c, on_entry, &c);
	if (c.err[0]) {
		snprintf(err, errlen, "%s", c.err);
		return -1;
	}
	if (r > 0) {
		snprintf(err, errlen, "%s:%d: not 'key = value', '[section]' or a comment", path, r);
		return -1;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot parse (libinih error %d)", path, r);
		return -1;
	}
	return 0;
}

int expfile_override(struct expfile *x, const char *assignment, char *err, size_t errlen)
{
	const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
	char *section, *key;

	if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1) {
		snprintf(err, errlen, "-s '%s': want section.key=value (e.g. driver.duration=5s)", assignment);
		return -1;
	}
	section = xasprintf("%.*s", (int)(dot - assignment), assignment);
	key = xasprintf("%.*s", (int)(eq - dot - 1), dot + 1);
	add_entry(x, section, key, eq + 1, 0);
	free(section);
	free(key);
	return 0;
}

const struct exp_entry *expfile_get(const struct expfile *x, const char *section, const char *key)
{
	for (size_t i = 0; i < x->n; i++)
		if (!strcmp(x->e[i].section, section) && !strcmp(x->e[i].key, key))
			return &x->e[i];
	return NULL;
}

const char *expfile_value(const struct expfile *x, const char *section, const char *key, const char *dflt)
{
	const struct exp_entry *e = expfile_get(x, section, key);

	return e ? e->value : dflt;
}

void expfile_where(const struct expfile *x, const struct exp_entry *e, char *buf, size_t n)
{
	if (e && e->line)
		snprintf(buf, n, "%s:%d", x->path, e->line);
	else if (e)
		snprintf(buf, n, "command line (-s %s.%s)", e->section, e->key);
	else
		snprintf(buf, n, "%s", x->path);
}

void expfile_free(struct expfile *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->e[i].section);
		free(x->e[i].key);
		free(x->e[i].value);
	}
	free(x->e);
	free(x->path);
	memset(x, 0, sizeof(*x));
}

/* v * mult as an integer, refusing NaN, infinities and values past 2^62
 * (found by fuzz-expfile: the cast of an out-of-range double is undefined). */
static int scaled(double v, double mult, unsigned long long *out)
{
	double x = v * mult;

	if (!isfinite(x) || x < 0 || x > 4.6e18)
		return -1;
	*out = (unsigned long long)x;
	return 0;
}

int parse_duration_ns(const char *s, unsigned long long *ns)
{
	static const struct { const char *suffix; unsigned long long mult; } units[] = {
		{ "ns", 1ull }, { "us", 1000ull }, { "ms", 1000000ull }, { "s", 1000000000ull },
		{ "m", 60000000000ull }, { "h", 3600000000000ull },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	if (!*end)
		return scaled(v, 1e9, ns);	/* bare number: seconds */
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			return scaled(v, (double)units[i].mult, ns);
	return -1;
}

int parse_bytes(const char *s, unsigned long long *bytes)
{
	char *end;
	double v;
	unsigned long long mult = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	case 't': case 'T': mult = 1ull << 40; end++; break;
	default: return -1;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B')
		end++;
	if (*end)
		return -1;
	return scaled(v, (double)mult, bytes);
}

int parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return -1;
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_int_list(const char *s, long *values, int max)
{
	int n = 0;
	const char *p = s;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b, step = 1;

		if (end == p || a < 0)
			return -1;
		p = end;
		if (!strncmp(p, "..", 2)) {
			b = strtol(p + 2, &end, 10);
			if (end == p + 2)
				return -1;
			p = end;
			if (*p == ':') {
				step = strtol(p + 1, &end, 10);
				if (end == p + 1 || step <= 0)
					return -1;
				p = end;
			}
			if (b < a || a < 0)
				return -1;
			/* Stop before v + step could overflow (found by fuzzing). */
			for (long v = a;; v += step) {
				if (n >= max)
					return -1;
				values[n++] = v;
				if (b - v < step)
					break;
			}
		} else {
			if (n >= max)
				return -1;
			values[n++] = a;
		}
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
		while (*p == ' ')
			p++;
	}
	return n ? n : -1;
}
