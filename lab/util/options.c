// SPDX-License-Identifier: GPL-2.0
/* Options from one table (util/options.h): getopt_long underneath. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "util/err.h"
#include "util/options.h"
#include "util/usage.h"

#define HELP_WIDTH 80
/* Help lines start here at most; a longer option puts its help below. */
#define HELP_COLUMN_MAX 30

/* The --help row every command has. */
static const struct lab_option help_row = {
	LAB_OPTION_FLAG, 'h', "help", NULL, NULL, "this text", NULL, NULL,
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
	const char *p = text;

	while (*p) {
		size_t word = strcspn(p, " \n");

		if (col > indent && col + 1 + (int)word > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)word, p);
		col += word;
		p += word;
		if (*p == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			p++;
		}
		while (*p == ' ')
			p++;
	}
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
