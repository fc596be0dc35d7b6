/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Experiment files (experiments/NAME.exp): INI read with libinih, comments
 * with '#' or ';'.  Every entry keeps its line so that a bad key or value
 * anywhere (here, in the runner's schema, or in the driver's own option
 * check) is reported as file:line.  `-s section.key=value` overrides are
 * recorded as coming from the command line.
 */
#ifndef LAB_UTIL_EXPFILE_H
#define LAB_UTIL_EXPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct exp_entry {
	char *section;
	char *key;
	char *value;
	int line;		/* 0 for a command-line override */
};

struct expfile {
	char *path;
	struct exp_entry *e;
	size_t n;
};

/* 0, or -1 with "file:line: what" in err (x must be freed either way). */
int expfile_parse(const char *path, struct expfile *x, char *err, size_t errlen);
int expfile_parse_stream(FILE *f, const char *path, struct expfile *x, char *err, size_t errlen);
/* Applies "section.key=value" (replacing or adding); 0 or -1 with err. */
int expfile_override(struct expfile *x, const char *assignment, char *err, size_t errlen);
/* The entry, or NULL. */
const struct exp_entry *expfile_get(const struct expfile *x, const char *section, const char *key);
const char *expfile_value(const struct expfile *x, const char *section, const char *key, const char *dflt);
/* "file:line" or "command line (-s)" for messages. */
void expfile_where(const struct expfile *x, const struct exp_entry *e, char *buf, size_t n);
void expfile_free(struct expfile *x);

/* Value parsers shared with the drivers' option parsing: 0 or -1. */
int parse_duration_ns(const char *s, unsigned long long *ns);	/* "10s", "100ms", "2m", "1h" */
int parse_bytes(const char *s, unsigned long long *bytes);	/* "512M", "1G", "4096", "64K" */
int parse_bool(const char *s, bool *b);				/* yes/no/true/false/on/off/1/0 */
int parse_long(const char *s, long min, long max, long *out);	/* a decimal integer in [min, max] */
/* "1,2,4", "1..16", "6..36:6" into values (at most max, none negative);
 * count or -1. */
int parse_int_list(const char *s, long *values, int max);

#endif
