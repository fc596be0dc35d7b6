/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options from one table, the way perf's parse-options does
 * (tools/lib/subcmd/parse-options.h): each row names the option (long,
 * short letter), its argument, the default it shows and its help line, and
 * where its value goes.  getopt_long's struct option[] and short string,
 * the --help text and the parsing all come from that one row.
 *
 *	const char *out = ".";
 *	bool quiet = false;
 *	const struct lab_option opts[] = {
 *		OPT_STRING('o', "out", &out, "DIR", ".", "output directory"),
 *		OPT_FLAG('q', "quiet", &quiet, "no warnings on stderr"),
 *		OPT_END(),
 *	};
 *	int first_arg = options_parse(&parse_cmd, opts, argc, argv);
 *
 * -h/--help is every command's: it prints the help and exits 0.  A bad
 * option or a missing value is the one line of util/usage.h and exit 2.
 */
#ifndef LAB_UTIL_OPTIONS_H
#define LAB_UTIL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum lab_option_kind {
	LAB_OPTION_END,
	LAB_OPTION_GROUP,	/* a heading in the help text, no option */
	LAB_OPTION_FLAG,	/* bool *: set true */
	LAB_OPTION_CLEAR,	/* bool *: set false (--no-X) */
	LAB_OPTION_STRING,	/* const char **: the argument */
	LAB_OPTION_LIST,	/* struct option_list *: each argument appended */
	LAB_OPTION_CALLBACK,	/* fn(row, argument): converts and checks */
	LAB_OPTION_INT,		/* int *: a whole number in [min, max] */
	LAB_OPTION_SECONDS,	/* double *: seconds above 0, at most max (5, 2.5, 100ms, 2m) */
	LAB_OPTION_DURATION,	/* int64_t *: nanoseconds in [min, max] (100ms, 1s, 2m; bare: s) */
	LAB_OPTION_SIZE,	/* int64_t *: bytes in [min, max] (4096, 64K, 1M, 2G) */
};

/* A repeatable option's arguments, in order (free v). */
struct option_list {
	const char **v;
	int n;
};

struct lab_option {
	enum lab_option_kind kind;
	char short_name;	/* 0: long only */
	const char *long_name;
	const char *arg;	/* the argument's name in the help; NULL: takes none */
	const char *deflt;	/* shown as "(default X)"; NULL: none shown */
	const char *help;	/* wrapped to 80 columns; '\n' starts a new line */
	void *value;
	/* Converts arg into opt->value; dies with one line on a bad value. */
	void (*fn)(const struct lab_option *opt, const char *arg);
	long long min, max;	/* the typed kinds' range */
};

/* Compile-time check that value points to what the kind writes. */
#define OPT_VALUE_(type, v) ((void *)(1 ? (v) : (type *)0))

#define OPT_FLAG(s, l, v, h) \
	{ LAB_OPTION_FLAG, s, l, NULL, NULL, h, OPT_VALUE_(bool, v), NULL, 0, 0 }
#define OPT_CLEAR(s, l, v, h) \
	{ LAB_OPTION_CLEAR, s, l, NULL, NULL, h, OPT_VALUE_(bool, v), NULL, 0, 0 }
#define OPT_STRING(s, l, v, a, d, h) \
	{ LAB_OPTION_STRING, s, l, a, d, h, OPT_VALUE_(const char *, v), NULL, 0, 0 }
#define OPT_LIST(s, l, v, a, h) \
	{ LAB_OPTION_LIST, s, l, a, NULL, h, OPT_VALUE_(struct option_list, v), NULL, 0, 0 }
#define OPT_CALLBACK(s, l, v, a, d, h, f) \
	{ LAB_OPTION_CALLBACK, s, l, a, d, h, v, f, 0, 0 }
/* Typed values, checked against [min, max] by the value parsers below. */
#define OPT_INT(s, l, v, a, d, h, min, max) \
	{ LAB_OPTION_INT, s, l, a, d, h, OPT_VALUE_(int, v), NULL, min, max }
#define OPT_SECONDS(s, l, v, a, d, h, max) \
	{ LAB_OPTION_SECONDS, s, l, a, d, h, OPT_VALUE_(double, v), NULL, 0, max }
#define OPT_DURATION(s, l, v, a, d, h, min, max) \
	{ LAB_OPTION_DURATION, s, l, a, d, h, OPT_VALUE_(int64_t, v), NULL, min, max }
#define OPT_SIZE(s, l, v, a, d, h, min, max) \
	{ LAB_OPTION_SIZE, s, l, a, d, h, OPT_VALUE_(int64_t, v), NULL, min, max }
#define OPT_GROUP(title) \
	{ LAB_OPTION_GROUP, 0, NULL, NULL, NULL, title, NULL, NULL, 0, 0 }
#define OPT_END() \
	{ LAB_OPTION_END, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0 }

/*
 * The value parsers, once for every command: the typed rows above use them,
 * and a callback that sets more than one field calls them itself.  A bad
 * value is one line, "<command>: --<option> '<value>': want <what>", and
 * exit 2 (option_bad() says the same for a callback's own checks).
 */
long long option_int(const struct lab_option *o, const char *arg, long long min, long long max);
/* Seconds as a double: 5, 2.5, 5s, 100ms, 2m; above 0 and at most max. */
double option_seconds(const struct lab_option *o, const char *arg, double max);
/* Whole seconds (5, 5s, 2m) in [min, max]. */
int option_whole_seconds(const struct lab_option *o, const char *arg, int min, int max);
/* Nanoseconds from 100ms, 1s, 2m, 1h or bare seconds, in [min, max]. */
int64_t option_duration_ns(const struct lab_option *o, const char *arg, int64_t min, int64_t max);
/* Bytes from 4096, 64K, 1M, 2G, in [min, max]. */
int64_t option_size(const struct lab_option *o, const char *arg, int64_t min, int64_t max);
void option_bad(const struct lab_option *o, const char *arg, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/* What a command says around its option table. */
struct options_cmd {
	const char *name;	/* "c2c parse": the one-line errors name it */
	const char *usage;	/* printed before the options: usage lines, what it does */
	const char *footer;	/* printed after them, or NULL */
	bool stop_at_arg;	/* options end at the first argument (a COMMAND follows) */
};

/*
 * Parses argv[1..] by the table; returns the index of the first argument
 * that is not an option (getopt's optind).  Exits on --help (0) and on a
 * bad option (2, one line).
 */
int options_parse(const struct options_cmd *cmd, const struct lab_option *opts, int argc, char **argv);

/*
 * options_parse for a parser that others call too (the experiment plan reads
 * a driver's command line): 0 with *first set, 1 for --help, -1 for a bad
 * option (nothing printed; options_usage_error() prints its line).
 */
int options_scan(const struct options_cmd *cmd, const struct lab_option *opts, int argc, char **argv, int *first);

/* Words of text from column col on, wrapped at 80 columns, later lines at indent. */
void options_print_wrapped(FILE *f, const char *text, int col, int indent);

/* The --help text: usage, the table's rows, footer. */
void options_help(FILE *f, const struct options_cmd *cmd, const struct lab_option *opts);

/* Wrong arguments after the options: the same one line, exit 2. */
void options_usage_error(void) __attribute__((noreturn));

/* One of a parent's commands ("c2c parse", "lock record"). */
struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/*
 * Runs argv[1] of the parent's commands with argv[1..]; `help`, --help and
 * -h print the parent's usage.  Without a command, or with an unknown one,
 * one line naming them ("want a, b or c") and exit 2.
 */
int subcommand_run(const char *parent, const char *usage, const struct subcommand *subs, int argc,
		   char **argv);

#endif
