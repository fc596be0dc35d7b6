// SPDX-License-Identifier: GPL-2.0
/* Options from one table (util/options.h): getopt_long underneath. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "util/err.h"
#include "util/expfile.h"
#include "util/options.h"
#include "util/usage.h"
#include "util/wrap.h"

#define HELP_WIDTH 80
/* Help lines start here at most; a longer option puts its help below. */
#define HELP_COLUMN_MAX 30

/* The --help row every command has. */
static const struct lab_option help_row = {
	LAB_OPTION_FLAG, 'h', "help", NULL, NULL, "this text", NULL, NULL, 0, 0,
};

static bool is_option(const struct lab_option *o)
{
	return o->kind != LAB_OPTION_END && o->kind != LAB_OPTION_GROUP;
}

static size_t count_rows(const struct lab_option *opts)
{
	size_t n = 0;

	while (opts[n].kind != LAB_OPTION_END)
		n++;
	return n;
}

/* "  -o, --out DIR" */
static int print_left(FILE *f, const struct lab_option *o)
{
	int n = fprintf(f, "  ");

	if (o->short_name)
		n += fprintf(f, "-%c, ", o->short_name);
	n += fprintf(f, "--%s", o->long_name);
	if (o->arg)
		n += fprintf(f, " %s", o->arg);
	return n;
}

static int left_width(const struct lab_option *o)
{
	return 2 + (o->short_name ? 4 : 0) + 2 + (int)strlen(o->long_name) + (o->arg ? 1 + (int)strlen(o->arg) : 0);
}

void options_print_wrapped(FILE *f, const char *text, int col, int indent)
{
	wrap_words(f, text, col, indent, HELP_WIDTH);
}

static void print_row(FILE *f, const struct lab_option *o, int column)
{
	int n = print_left(f, o);
	char *text;

	if (n + 2 > column) {
		fprintf(f, "\n%*s", column, "");
	} else {
		fprintf(f, "%*s", column - n, "");
	}
	text = o->deflt ? xasprintf("%s (default %s)", o->help, o->deflt) : xstrdup(o->help);
	options_print_wrapped(f, text, column, column);
	fputc('\n', f);
	free(text);
}

void options_help(FILE *f, const struct options_cmd *cmd, const struct lab_option *opts)
{
	int column = left_width(&help_row) + 2;

	for (const struct lab_option *o = opts; o->kind != LAB_OPTION_END; o++)
		if (is_option(o) && left_width(o) + 2 > column && left_width(o) + 2 <= HELP_COLUMN_MAX)
			column = left_width(o) + 2;
	fputs(cmd->usage, f);
	for (const struct lab_option *o = opts; o->kind != LAB_OPTION_END; o++) {
		if (o->kind == LAB_OPTION_GROUP)
			fprintf(f, "\n%s\n", o->help);
		else
			print_row(f, o, column);
	}
	print_row(f, &help_row, column);
	if (cmd->footer)
		fputs(cmd->footer, f);
}

void option_bad(const struct lab_option *o, const char *arg, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	die("%s: --%s '%s': %s", usage_command(), o->long_name, arg, why);
}

/* strtod, under the parsers of util/expfile.h, also takes "inf", "nan" and
 * hex floats: only plain decimals here. */
static bool plain_number(const char *s)
{
	if (*s == '.')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	return !strpbrk(s, "xXpP") || strpbrk(s, "xXpP") > s + strspn(s, "0123456789.eE+-");
}

long long option_int(const struct lab_option *o, const char *arg, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end || errno || v < min || v > max || (*arg < '0' && *arg != '-'))
		option_bad(o, arg, "want a whole number from %lld to %lld", min, max);
	return v;
}

static int64_t duration_ns(const struct lab_option *o, const char *arg, const char *want)
{
	unsigned long long ns;

	if (!plain_number(arg) || parse_duration_ns(arg, &ns) || ns > (unsigned long long)INT64_MAX / 2)
		option_bad(o, arg, "%s", want);
	return (int64_t)ns;
}

/* "2.5 s", "100 ms", "3 min": a bound as the user would write it. */
static const char *say_ns(int64_t ns, char *buf, size_t size)
{
	if (ns % 60000000000LL == 0 && ns >= 60000000000LL)
		snprintf(buf, size, "%lld min", (long long)(ns / 60000000000LL));
	else if (ns >= 1000000000LL)
		snprintf(buf, size, "%g s", ns / 1e9);
	else if (ns >= 1000000LL)
		snprintf(buf, size, "%g ms", ns / 1e6);
	else
		snprintf(buf, size, "%lld ns", (long long)ns);
	return buf;
}

int64_t option_duration_ns(const struct lab_option *o, const char *arg, int64_t min, int64_t max)
{
	int64_t ns = duration_ns(o, arg, "want a duration such as 100ms, 1s or 2m (a bare number is seconds)");
	char lo[32], hi[32];

	if (ns < min || ns > max)
		option_bad(o, arg, "want a duration from %s to %s", say_ns(min, lo, sizeof(lo)),
			   say_ns(max, hi, sizeof(hi)));
	return ns;
}

double option_seconds(const struct lab_option *o, const char *arg, double max)
{
	int64_t ns = duration_ns(o, arg, "want seconds above 0 (5, 2.5, 100ms, 2m)");

	if (ns <= 0 || ns / 1e9 > max)
		option_bad(o, arg, "want seconds above 0 and at most %g", max);
	return ns / 1e9;
}

int option_whole_seconds(const struct lab_option *o, const char *arg, int min, int max)
{
	int64_t ns = duration_ns(o, arg, "want whole seconds (5, 5s, 2m)");

	if (ns % 1000000000LL)
		option_bad(o, arg, "want whole seconds (5, 5s, 2m)");
	if (ns / 1000000000LL < min || ns / 1000000000LL > max)
		option_bad(o, arg, "want whole seconds from %d to %d", min, max);
	return (int)(ns / 1000000000LL);
}

/* A bound in the largest unit that divides it: "16M", "1024T", "4096". */
static const char *say_bytes(int64_t b, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && b && b % 1024 == 0) {
		b /= 1024;
		u++;
	}
	snprintf(buf, size, u < 0 ? "%lld" : "%lld%c", (long long)b, u < 0 ? 0 : units[u]);
	return buf;
}

int64_t option_size(const struct lab_option *o, const char *arg, int64_t min, int64_t max)
{
	unsigned long long b;

	if (!plain_number(arg) || parse_bytes(arg, &b) || b > (unsigned long long)max || (int64_t)b < min) {
		char lo[32], hi[32];

		option_bad(o, arg, "want a size such as 4096, 64K, 1M or 2G, from %s to %s", say_bytes(min, lo, sizeof(lo)),
			   say_bytes(max, hi, sizeof(hi)));
	}
	return (int64_t)b;
}

static void take(const struct lab_option *o, const char *arg)
{
	struct option_list *l;

	switch (o->kind) {
	case LAB_OPTION_FLAG:
		*(bool *)o->value = true;
		break;
	case LAB_OPTION_CLEAR:
		*(bool *)o->value = false;
		break;
	case LAB_OPTION_STRING:
		*(const char **)o->value = arg;
		break;
	case LAB_OPTION_LIST:
		l = o->value;
		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = arg;
		break;
	case LAB_OPTION_CALLBACK:
		o->fn(o, arg);
		break;
	case LAB_OPTION_INT:
		*(int *)o->value = (int)option_int(o, arg, o->min, o->max);
		break;
	case LAB_OPTION_SECONDS:
		*(double *)o->value = option_seconds(o, arg, (double)o->max);
		break;
	case LAB_OPTION_DURATION:
		*(int64_t *)o->value = option_duration_ns(o, arg, o->min, o->max);
		break;
	case LAB_OPTION_SIZE:
		*(int64_t *)o->value = option_size(o, arg, o->min, o->max);
		break;
	case LAB_OPTION_GROUP:
	case LAB_OPTION_END:
		break;
	}
}

/* Long options are told apart by their row: val = LONG_ONLY + index. */
#define LONG_ONLY 256

int options_scan(const struct options_cmd *cmd, const struct lab_option *opts, int argc, char **argv, int *first)
{
	size_t nrows = count_rows(opts), nlong = 0, nshort = 0;
	struct option *longopts = xcalloc(nrows + 2, sizeof(*longopts));
	char *shortopts = xcalloc(2 * nrows + 4, 1);
	int c, ret = 0;

	if (cmd->stop_at_arg)
		shortopts[nshort++] = '+';
	for (size_t i = 0; i < nrows; i++) {
		const struct lab_option *o = &opts[i];

		if (!is_option(o))
			continue;
		longopts[nlong++] = (struct option){ o->long_name, o->arg ? required_argument : no_argument, NULL,
						     o->short_name ? o->short_name : LONG_ONLY + (int)i };
		if (o->short_name) {
			shortopts[nshort++] = o->short_name;
			if (o->arg)
				shortopts[nshort++] = ':';
		}
	}
	longopts[nlong] = (struct option){ "help", no_argument, NULL, 'h' };
	shortopts[nshort] = 'h';

	usage_context(cmd->name, argc, argv);
	opterr = 0;
	/* 0, not 1: glibc reads a leading '+' only when it starts afresh. */
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct lab_option *o = NULL;

		if (c == 'h') {
			ret = 1;
			break;
		}
		if (c >= LONG_ONLY)
			o = &opts[c - LONG_ONLY];
		for (size_t i = 0; !o && c != '?' && i < nrows; i++)
			if (is_option(&opts[i]) && opts[i].short_name == c)
				o = &opts[i];
		if (!o) {
			ret = -1;
			break;
		}
		take(o, optarg);
	}
	free(longopts);
	free(shortopts);
	*first = optind;
	return ret;
}

int options_parse(const struct options_cmd *cmd, const struct lab_option *opts, int argc, char **argv)
{
	int first, r = options_scan(cmd, opts, argc, argv, &first);

	if (r > 0) {
		options_help(stdout, cmd, opts);
		exit(0);
	}
	if (r < 0)
		options_usage_error();
	return first;
}

void options_usage_error(void)
{
	usage_exit(NULL, EXIT_LAB_ERR);
}

int subcommand_run(const char *parent, const char *usage, const struct subcommand *subs, int argc, char **argv)
{
	static char name[128];	/* the running command's, for its errors */
	char want[256] = "";
	size_t n = 0;

	while (subs[n].name)
		n++;
	for (size_t i = 0; i < n; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
			 subs[i].name);
	if (argc < 2)
		die("%s: which one: %s? (see 'memcg-lab %s --help')", parent, want, parent);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		usage_exit(usage, 0);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(argv[1], subs[i].name)) {
			snprintf(name, sizeof(name), "%s %s", parent, subs[i].name);
			usage_context(name, argc - 1, argv + 1);
			return subs[i].fn(argc - 1, argv + 1);
		}
	}
	die("%s: unknown subcommand '%s' (want %s; see 'memcg-lab %s --help')", parent, argv[1], want, parent);
}
