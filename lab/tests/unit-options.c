// SPDX-License-Identifier: GPL-2.0
/* util/options.h: the help text and the parsing that one table gives. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/err.h"
#include "util/options.h"

struct demo {
	const char *out;
	bool quiet, color;
	struct option_list memcg;
	int level;
};

static void level_opt(const struct lab_option *opt, const char *arg)
{
	*(int *)opt->value = atoi(arg);
}

static struct demo d;

static const struct lab_option demo_opts[] = {
	OPT_STRING('o', "out", &d.out, "DIR", ".", "output directory"),
	OPT_FLAG('q', "quiet", &d.quiet, "no warnings on stderr"),
	OPT_CLEAR(0, "no-color", &d.color, "plain text"),
	OPT_GROUP("Cgroups:"),
	OPT_LIST(0, "memcg", &d.memcg, "DIR", "a memory cgroup to name (repeatable)"),
	OPT_CALLBACK(0, "level", &d.level, "N", "3", "how deep to look; a long help line that the "
		     "table writes once and the help text wraps at eighty columns", level_opt),
	OPT_END(),
};

static const struct options_cmd demo_cmd = {
	.name = "demo",
	.usage = "usage: memcg-lab demo [options] FILE\n\nA command to test the options.\n\n",
	.footer = "\nExit status: 0, or 2.\n",
};

static const struct options_cmd demo_cmd_plus = {
	.name = "demo run",
	.usage = "usage: memcg-lab demo run [options] -- CMD\n",
	.stop_at_arg = true,
};

static const char demo_help[] =
	"usage: memcg-lab demo [options] FILE\n"
	"\n"
	"A command to test the options.\n"
	"\n"
	"  -o, --out DIR  output directory (default .)\n"
	"  -q, --quiet    no warnings on stderr\n"
	"  --no-color     plain text\n"
	"\n"
	"Cgroups:\n"
	"  --memcg DIR    a memory cgroup to name (repeatable)\n"
	"  --level N      how deep to look; a long help line that the table writes once\n"
	"                 and the help text wraps at eighty columns (default 3)\n"
	"  -h, --help     this text\n"
	"\n"
	"Exit status: 0, or 2.\n";

static void reset(void)
{
	free(d.memcg.v);
	d = (struct demo){ .out = ".", .color = true, .level = 3 };
}

/* Runs options_parse on args in a child: its exit status, stdout, stderr. */
struct child {
	int status;
	char out[4096], err[1024];
};

static void read_all(int fd, char *buf, size_t n)
{
	size_t len = 0;
	ssize_t r;

	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) > 0)
		len += r;
	buf[len] = '\0';
	close(fd);
}

/* Runs fn(argc, argv, ctx) in a child: its exit status (fn's return, or the
 * exit it takes), stdout and stderr. */
static void in_child(struct child *c, int (*fn)(int argc, char **argv, const void *ctx), const void *ctx,
		     const char *const *args)
{
	int out[2], err[2], argc = 0, st;
	char *argv[16];
	pid_t pid;

	while (args[argc])
		argv[argc] = (char *)args[argc], argc++;
	argv[argc] = NULL;
	if (pipe(out) || pipe(err))
		exit(1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		st = fn(argc, argv, ctx);
		fflush(stdout);
		_exit(st);
	}
	close(out[1]);
	close(err[1]);
	read_all(out[0], c->out, sizeof(c->out));
	read_all(err[0], c->err, sizeof(c->err));
	waitpid(pid, &st, 0);
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct parse_ctx {
	const struct options_cmd *cmd;
	const struct lab_option *opts;
};

static int parse_in_child(int argc, char **argv, const void *ctx)
{
	const struct parse_ctx *p = ctx;

	options_parse(p->cmd, p->opts, argc, argv);
	return 99;
}

static void run_child_with(struct child *c, const struct options_cmd *cmd, const struct lab_option *opts,
			   const char *const *args)
{
	struct parse_ctx p = { cmd, opts };

	in_child(c, parse_in_child, &p, args);
}

static void run_child(struct child *c, const struct options_cmd *cmd, const char *const *args)
{
	run_child_with(c, cmd, demo_opts, args);
}

/* The typed values: one parser each (counts, seconds, durations, sizes). */
static struct {
	int count;
	double secs;
	int64_t ns, bytes;
	int whole;
} v;

static void whole_opt(const struct lab_option *opt, const char *arg)
{
	*(int *)opt->value = option_whole_seconds(opt, arg, 1, 60);
}

static const struct lab_option typed_opts[] = {
	OPT_INT(0, "count", &v.count, "N", NULL, "a count", 1, 10),
	OPT_SECONDS(0, "secs", &v.secs, "S", NULL, "seconds", 100),
	OPT_DURATION(0, "every", &v.ns, "D", NULL, "a duration", 1000, 3600000000000LL),
	OPT_SIZE(0, "size", &v.bytes, "SIZE", NULL, "a size", 4096, 1LL << 30),
	OPT_CALLBACK(0, "whole", &v.whole, "S", NULL, "whole seconds", whole_opt),
	OPT_END(),
};

static int parse_typed(const char *const *args)
{
	char *argv[16];
	int argc = 0;

	while (args[argc])
		argv[argc] = (char *)args[argc], argc++;
	argv[argc] = NULL;
	memset(&v, 0, sizeof(v));
	return options_parse(&demo_cmd, typed_opts, argc, argv);
}

/* A value the typed row refuses: exit 2 and exactly this line. */
static void refused(const char *opt, const char *val, const char *line)
{
	struct child c;

	run_child_with(&c, &demo_cmd, typed_opts, (const char *const[]){ "demo", opt, val, NULL });
	tap_ok(c.status == EXIT_LAB_ERR && !strcmp(c.err, line), "%s %s: exit 2 and one line naming it", opt, val);
	if (c.status != EXIT_LAB_ERR || strcmp(c.err, line))
		tap_diag("got %d: %s", c.status, c.err);
}

static int parse(const struct options_cmd *cmd, const char *const *args)
{
	char *argv[16];
	int argc = 0;

	while (args[argc])
		argv[argc] = (char *)args[argc], argc++;
	argv[argc] = NULL;
	reset();
	return options_parse(cmd, demo_opts, argc, argv);
}

static int sub_a(int argc, char **argv)
{
	(void)argv;
	return 40 + argc;
}

static int sub_in_child(int argc, char **argv, const void *ctx)
{
	static const struct subcommand subs[] = { { "parse", sub_a }, { "report", sub_a }, { "caps", sub_a }, { NULL, NULL } };

	(void)ctx;
	return subcommand_run("demo", "usage: memcg-lab demo <parse|report|caps>\n", subs, argc, argv);
}

static void run_sub(struct child *c, const char *const *args)
{
	in_child(c, sub_in_child, NULL, args);
}

/* The help text, generated from the table. */
TEST(help_text_from_table)
{
	char *text;
	size_t len;
	FILE *f;

	f = open_memstream(&text, &len);
	options_help(f, &demo_cmd, demo_opts);
	fclose(f);
	tap_ok(!strcmp(text, demo_help), "help text from the table: usage, rows aligned, group, default, wrap at 80, "
	       "-h, footer");
	if (strcmp(text, demo_help))
		tap_diag("got:\n%s", text);
	free(text);
}

/* Parsing into the table's values. */
TEST(parse_into_values)
{
	int i;

	i = parse(&demo_cmd, (const char *const[]){ "demo", "FILE", "-q", "--out", "x", "--memcg", "a", "--memcg=b",
						    "--no-color", "--level", "7", NULL });
	tap_ok(i == 10 && d.quiet && !strcmp(d.out, "x") && !d.color && d.level == 7 && d.memcg.n == 2 &&
	       !strcmp(d.memcg.v[0], "a") && !strcmp(d.memcg.v[1], "b"),
	       "long and short options, =value, lists, callbacks; arguments permuted to the end");
	i = parse(&demo_cmd, (const char *const[]){ "demo", "-oy", "F", NULL });
	tap_ok(i == 2 && !strcmp(d.out, "y") && !d.quiet && d.color && d.level == 3, "-oVALUE; defaults stay");
	i = parse(&demo_cmd, (const char *const[]){ "demo", "--qu", "F", NULL });
	tap_ok(i == 2 && d.quiet, "an unambiguous prefix of a long option");
	i = parse(&demo_cmd_plus, (const char *const[]){ "run", "-q", "cmd", "-o", "z", NULL });
	tap_ok(i == 2 && d.quiet && !strcmp(d.out, "."), "stop_at_arg: options end at the command");
	reset();
}

/* --help and the one-line errors, with the lab's exit codes. */
TEST(help_and_one_line_errors)
{
	struct child c;

	reset();
	run_child(&c, &demo_cmd, (const char *const[]){ "demo", "--out", "x", "--help", NULL });
	tap_ok(c.status == 0 && !strcmp(c.out, demo_help) && !c.err[0], "--help: the help on stdout, exit 0");
	run_child(&c, &demo_cmd, (const char *const[]){ "demo", "-h", NULL });
	tap_ok(c.status == 0 && !strcmp(c.out, demo_help), "-h: the same");
	run_child(&c, &demo_cmd, (const char *const[]){ "demo", "FILE", "--bogus", NULL });
	tap_ok(c.status == EXIT_LAB_ERR && !c.out[0] &&
	       !strcmp(c.err, "memcg-lab: demo: bad option or missing value: '--bogus' (see 'memcg-lab demo --help')\n"),
	       "an unknown long option: one line naming it, exit 2");
	run_child(&c, &demo_cmd, (const char *const[]){ "demo", "-x", NULL });
	tap_ok(c.status == EXIT_LAB_ERR &&
	       !strcmp(c.err, "memcg-lab: demo: bad option or missing value: '-x' (see 'memcg-lab demo --help')\n"),
	       "an unknown short option: one line, exit 2");
	run_child(&c, &demo_cmd, (const char *const[]){ "demo", "F", "--out", NULL });
	tap_ok(c.status == EXIT_LAB_ERR &&
	       !strcmp(c.err, "memcg-lab: demo: bad option or missing value: '--out' (see 'memcg-lab demo --help')\n"),
	       "a long option without its value: one line, exit 2");
	run_child(&c, &demo_cmd, (const char *const[]){ "demo", "F", "-o", NULL });
	tap_ok(c.status == EXIT_LAB_ERR &&
	       !strcmp(c.err, "memcg-lab: demo: bad option or missing value: '-o' (see 'memcg-lab demo --help')\n"),
	       "a short option without its value: one line, exit 2");
	run_child(&c, &demo_cmd_plus, (const char *const[]){ "run", "--nope", NULL });
	tap_ok(c.status == EXIT_LAB_ERR && strstr(c.err, "demo run: bad option or missing value: '--nope' "
					       "(see 'memcg-lab demo run --help')"), "the command's full name in its errors");
}

/* Typed values and their one-line refusals. */
TEST(typed_values_and_refusals)
{
	parse_typed((const char *const[]){ "demo", "--count", "10", "--secs", "2.5", "--every", "100ms", "--size",
					   "64K", "--whole", "1m", NULL });
	tap_ok(v.count == 10 && v.secs == 2.5 && v.ns == 100000000 && v.bytes == 65536 && v.whole == 60,
	       "typed rows: a count, seconds, a duration, a size, whole seconds");
	parse_typed((const char *const[]){ "demo", "--secs", "250ms", "--every", "2", "--size", "1G", NULL });
	tap_ok(v.secs == 0.25 && v.ns == 2000000000LL && v.bytes == 1LL << 30,
	       "seconds with a unit, a bare duration is seconds, a size at its maximum");
	refused("--count", "11", "memcg-lab: demo: --count '11': want a whole number from 1 to 10\n");
	refused("--count", "3x", "memcg-lab: demo: --count '3x': want a whole number from 1 to 10\n");
	refused("--count", "", "memcg-lab: demo: --count '': want a whole number from 1 to 10\n");
	refused("--secs", "0", "memcg-lab: demo: --secs '0': want seconds above 0 and at most 100\n");
	refused("--secs", "inf", "memcg-lab: demo: --secs 'inf': want seconds above 0 (5, 2.5, 100ms, 2m)\n");
	refused("--every", "10x", "memcg-lab: demo: --every '10x': want a duration such as 100ms, 1s or 2m (a bare "
		"number is seconds)\n");
	refused("--every", "2h", "memcg-lab: demo: --every '2h': want a duration from 1000 ns to 60 min\n");
	refused("--size", "1K", "memcg-lab: demo: --size '1K': want a size such as 4096, 64K, 1M or 2G, from 4K to "
		"1G\n");
	refused("--size", "nan", "memcg-lab: demo: --size 'nan': want a size such as 4096, 64K, 1M or 2G, from 4K "
		"to 1G\n");
	refused("--size", "0x1000", "memcg-lab: demo: --size '0x1000': want a size such as 4096, 64K, 1M or 2G, from "
		"4K to 1G\n");
	refused("--whole", "1.5", "memcg-lab: demo: --whole '1.5': want whole seconds (5, 5s, 2m)\n");
	refused("--whole", "61", "memcg-lab: demo: --whole '61': want whole seconds from 1 to 60\n");
}

/* A parent's commands. */
TEST(subcommands)
{
	struct child c;

	run_sub(&c, (const char *const[]){ "demo", "report", "x", NULL });
	tap_ok(c.status == 42, "a command runs with its own argv");
	run_sub(&c, (const char *const[]){ "demo", "help", NULL });
	tap_ok(c.status == 0 && !strcmp(c.out, "usage: memcg-lab demo <parse|report|caps>\n"), "`help` prints the usage");
	run_sub(&c, (const char *const[]){ "demo", NULL });
	tap_ok(c.status == EXIT_LAB_ERR &&
	       !strcmp(c.err, "memcg-lab: demo: which one: parse, report or caps? (see 'memcg-lab demo --help')\n"),
	       "no command: one line listing them, exit 2");
	run_sub(&c, (const char *const[]){ "demo", "nope", NULL });
	tap_ok(c.status == EXIT_LAB_ERR &&
	       !strcmp(c.err, "memcg-lab: demo: unknown subcommand 'nope' (want parse, report or caps; see "
		       "'memcg-lab demo --help')\n"), "an unknown command: one line, exit 2");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
