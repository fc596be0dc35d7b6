// SPDX-License-Identifier: GPL-2.0
/*
 * Experiment-file parsing: entries with their lines, overrides, errors as
 * file:line, and the value parsers the drivers share (durations, sizes,
 * booleans, lists), including the inputs fuzzing found.
 */
#include <string.h>
#include <unistd.h>
#include "util/err.h"
#include "util/expfile.h"
#include "tests/tap.h"

static int parse_text(const char *text, struct expfile *x, char *err, size_t n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = expfile_parse_stream(f, "t.exp", x, err, n);

	fclose(f);
	return r;
}

TEST(entries_lines_and_overrides)
{
	struct expfile x;
	char err[512];

	ok(!parse_text("# a comment\n[experiment]\nname = x ; inline\n\n[driver]\nmode = anon\n", &x, err, sizeof(err)),
	   "a small file parses");
	ok(expfile_get(&x, "experiment", "name") && expfile_get(&x, "experiment", "name")->line == 3 &&
	   !strcmp(expfile_value(&x, "experiment", "name", ""), "x"), "entries keep their value and line");
	ok(!expfile_override(&x, "driver.mode=file", err, sizeof(err)) &&
	   !strcmp(expfile_value(&x, "driver", "mode", ""), "file") && expfile_get(&x, "driver", "mode")->line == 0,
	   "-s overrides replace the value and are marked as command line");
	ok(expfile_override(&x, "nodot=1", err, sizeof(err)) == -1 && strstr(err, "section.key=value"),
	   "a malformed override is refused");
	expfile_free(&x);
}

TEST(errors_at_file_line)
{
	struct expfile x;
	char err[512];

	ok(parse_text("[a]\nb = 1\njunk\n", &x, err, sizeof(err)) == -1 && strstr(err, "t.exp:3:"),
	   "a line that is not key = value: file:line (%s)", err);
	expfile_free(&x);
	ok(parse_text("[a]\nb = 1\nb = 2\n", &x, err, sizeof(err)) == -1 && strstr(err, "t.exp:3:") &&
	   strstr(err, "set twice"), "a key set twice: file:line (%s)", err);
	expfile_free(&x);
	ok(parse_text("b = 1\n", &x, err, sizeof(err)) == -1 && strstr(err, "outside any [section]"),
	   "an entry outside any section is refused");
	expfile_free(&x);
	/* A long value on indented lines: one value, the key's line. */
	ok(!parse_text("[claim x]\nnote = one two\n\tthree\n  four\nsource = s\n", &x, err, sizeof(err)) &&
	   !strcmp(expfile_value(&x, "claim x", "note", ""), "one two three four") &&
	   expfile_get(&x, "claim x", "note")->line == 2 && expfile_get(&x, "claim x", "source")->line == 5,
	   "indented lines continue a value (%s)", expfile_value(&x, "claim x", "note", err));
	expfile_free(&x);
	ok(parse_text("[a]\nb = 1\n\n  c\n", &x, err, sizeof(err)) == -1 && strstr(err, "t.exp:4:"),
	   "an indented line after a blank line continues nothing: file:line (%s)", err);
	expfile_free(&x);
	{
		/* libinih reads at most 199 bytes a line: the rest would pass
		 * for a line of its own. */
		char *text = xasprintf("[a]\nb = %0250d\nc = 1\n", 0);

		ok(parse_text(text, &x, err, sizeof(err)) == -1 && strstr(err, "t.exp:2:") &&
		   strstr(err, "longer than"), "a line longer than libinih reads is refused at its line (%s)", err);
		expfile_free(&x);
		free(text);
	}
}

TEST(durations)
{
	unsigned long long u;

	ok(!parse_duration_ns("100ms", &u) && u == 100000000ull, "100ms");
	ok(!parse_duration_ns("2m", &u) && u == 120000000000ull, "2m");
	ok(!parse_duration_ns("1.5", &u) && u == 1500000000ull, "a bare number is seconds");
	ok(parse_duration_ns("5 s", &u) == -1 && parse_duration_ns("-1s", &u) == -1 && parse_duration_ns("s", &u) == -1,
	   "bad durations are refused");
	/* Regressions (fuzz-expfile): huge and NaN values used to overflow the cast. */
	ok(parse_duration_ns("5555555555555555555555555555555555555555555", &u) == -1, "a huge duration is refused");
	ok(parse_duration_ns("nan", &u) == -1 && parse_duration_ns("inf", &u) == -1, "NaN and inf are refused");
}

TEST(sizes)
{
	unsigned long long u;

	ok(parse_bytes("1e30G", &u) == -1, "a huge size is refused");
	ok(!parse_bytes("512M", &u) && u == 512ull << 20, "512M");
	ok(!parse_bytes("64KiB", &u) && u == 64ull << 10, "64KiB");
	ok(parse_bytes("12Q", &u) == -1, "an unknown size suffix is refused");
}

TEST(booleans)
{
	bool b;

	ok(!parse_bool("Yes", &b) && b && !parse_bool("off", &b) && !b && parse_bool("maybe", &b) == -1, "booleans");
}

TEST(int_lists)
{
	long v[64];

	is_int(parse_int_list("6..36:6", v, 64), 6, "6..36:6 is six values");
	ok(v[0] == 6 && v[5] == 36, "first 6, last 36");
	is_int(parse_int_list("1, 2,4", v, 64), 3, "a list with spaces");
	is_int(parse_int_list("5..1", v, 64), -1, "a descending range is refused");
	is_int(parse_int_list("1..100000", v, 64), -1, "too many values are refused");
	is_int(parse_int_list("", v, 64), -1, "an empty list is refused");
	/* Regression (fuzz): a huge step overflowed v += step. */
	is_int(parse_int_list("2..4:99999999999999999999", v, 64), 1, "a step past the end gives the start only");
	is_int(parse_int_list("-3,1", v, 64), -1, "negative values are refused");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
