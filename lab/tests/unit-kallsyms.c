// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms: name and address lookups on a recorded excerpt, symbol+offset
 * formatting as perf prints callers, and odd input (empty text, a line that
 * is not a symbol, zeroed addresses as a non-root reader sees them).
 */
#include <string.h>
#include "kernel/kallsyms.h"
#include "tests/tap.h"

static const char text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff814556e0 T css_rstat_flush\n"
	"ffffffff81455900 t css_rstat_flush_locked\n"
	"ffffffff82a0c0e0 d cgroup_mutex\n"
	"ffffffff82a0c120 b stats_user_flush_mutex\n"
	"ffffffffc0100000 t mod_fn\t[some_module]\n";

TEST(excerpt_lookups_and_format)
{
	struct ksyms s;
	const struct ksym *k;
	char err[256], buf[128];
	uint64_t off;

	ok(!ksyms_parse(&s, text, "excerpt", err, sizeof(err)), "a kallsyms excerpt parses");
	is_int(s.n, 6, "six symbols");
	ok(s.have_addrs, "addresses are real (root view)");
	k = ksyms_find(&s, "stats_user_flush_mutex");
	ok(k && k->addr == 0xffffffff82a0c120ull && k->type == 'b', "find a data symbol by name");
	ok(!ksyms_find(&s, "mem_cgroup_user_flush_stats"), "an absent symbol is not found");
	k = ksyms_lookup(&s, 0xffffffff82a0c0e8ull, &off);
	ok(k && !strcmp(k->name, "cgroup_mutex") && off == 8, "an address inside cgroup_mutex resolves to it +8");
	ksyms_format(&s, 0xffffffff81455910ull, buf, sizeof(buf));
	ok(!strcmp(buf, "css_rstat_flush_locked+0x10"), "caller formatted as sym+0xoff (%s)", buf);
	ksyms_format(&s, 0x1000, buf, sizeof(buf));
	ok(!strcmp(buf, "0x1000"), "an address below every symbol prints as hex (%s)", buf);
	k = ksyms_find(&s, "mod_fn");
	ok(k && k->module && !strcmp(k->module, "some_module"), "module symbols keep their module");
	ksyms_free(&s);
}

/* Regression (fuzz-kallsyms): empty input used to call qsort(NULL, 0). */
TEST(empty_text)
{
	struct ksyms s;
	char err[256];

	ok(!ksyms_parse(&s, "", "empty", err, sizeof(err)) && s.n == 0, "empty text: zero symbols");
	ok(!ksyms_find(&s, "x") && !ksyms_lookup(&s, 1, NULL), "lookups on no symbols find nothing");
	ksyms_free(&s);
}

TEST(malformed_line_refused)
{
	struct ksyms s;
	char err[256];

	ok(ksyms_parse(&s, "ffffffff81000000 T ok\nnot a symbol line\n", "bad", err, sizeof(err)) == -1 &&
	   strstr(err, "bad:2:"), "a malformed line is refused with file:line (%s)", err);
}

/* Lines off the usual shape take the general parse and mean the same. */
TEST(odd_but_valid_lines)
{
	struct ksyms s;
	char err[256], odd[700];
	size_t k = (size_t)snprintf(odd, sizeof(odd), "ffffffff81000000 T  spaced\n"
				    "ffffffff81000010 t crlf\r\n"
				    "ffffffff81000020 t modfn\t[mod]\n"
				    "0xffffffff81000030 D prefixed\n"
				    "ffffffff81000040 T ");

	for (int i = 0; i < 300; i++)
		odd[k++] = 'x';
	snprintf(odd + k, sizeof(odd) - k, "\n");
	err[0] = '\0';
	ok(!ksyms_parse(&s, odd, "odd", err, sizeof(err)) && s.n == 5, "odd but valid lines: 5 symbols%s",
	   err);
	ok(ksyms_find(&s, "spaced") && ksyms_find(&s, "crlf") &&
	   ksyms_find(&s, "modfn") && !strcmp(ksyms_find(&s, "modfn")->module, "mod") &&
	   ksyms_find(&s, "prefixed") && ksyms_find(&s, "prefixed")->addr == 0xffffffff81000030ull,
	   "two spaces, CR LF, a module and a 0x address read as sscanf reads them");
	k = ksyms_lookup(&s, 0xffffffff81000040ull, NULL) ?
	    strlen(ksyms_lookup(&s, 0xffffffff81000040ull, NULL)->name) : 0;
	is_int(k, 255, "a name over 255 bytes is cut at 255");
	ksyms_free(&s);
}

TEST(zeroed_addresses_non_root)
{
	struct ksyms s;
	char err[256];

	ok(!ksyms_parse(&s, "0000000000000000 T a\n0000000000000000 T b\n", "nonroot", err, sizeof(err)) &&
	   !s.have_addrs && ksyms_find(&s, "b"), "zeroed addresses (non-root): names kept, no addresses");
	ksyms_free(&s);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
