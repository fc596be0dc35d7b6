// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's side of vm --lines (c2c/lines_session.h) on the host, in a
 * directory of its own (MEMCG_LAB_LINES_DIR): the window's files it writes
 * through util/tsv.h's writer, read back by c2c/lines_guest.c as the host
 * reads them, a label, a range's name and the counters' unit holding a
 * tab or a newline included (each a space, the row whole); the files one
 * process publishes for another, read by column: counters.PID with a bad
 * row (its file:line:field said, the window not counted) and objects.PID
 * (a bad row said and left out, the others kept).  The window's magic
 * NOPs (c2c/lines_window.h) do nothing outside qemu's plugin.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "c2c/c2c.h"
#include "c2c/lines_guest.h"
#include "c2c/lines_session.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"

static char tmp[] = "/tmp/unit-lines-session.XXXXXX";

/* DIR/lines, the session's directory, made and named in the environment: DIR. */
static char *session(const char *name)
{
	char *dir = xasprintf("%s/%s", tmp, name), *lines = xasprintf("%s/lines", dir);

	mkdir_p(lines, 0755);
	setenv(LINES_ENV_DIR, lines, 1);
	free(lines);
	return dir;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(window_files_round_trip)
{
	static const char want[] = "# memcg-lab lines-windows 1\nindex\tlabel\twho\trepeat\tpid\tstart_s\tlen_s\t"
				   "objects\tranges\n0\ttasks=4 K=3 x\trunner one\t2\t";
	char *dir = session("trip"), err[512] = "", *p, *text;
	static uint64_t slots[2];
	struct lines_counter c = { slots, 2, sizeof(slots[0]) };
	struct lines_range r = { .name = "h\tslot", .addr = (uintptr_t)slots, .size = sizeof(slots),
				 .stride = sizeof(slots[0]), .fields = "count:0:8" };
	struct lines_window_info w = { .label = "tasks=4\tK=3\nx", .who = "runner\tone", .repeat = 2, .start_s = 0.5,
				       .len_s = 1, .ranges = &r, .nranges = 1, .counted = getpid() };
	struct lines_guest g;
	int idx;

	lines_session_counters(&c, 1, "page\tfaults");
	idx = lines_session_open(&w);
	is_int(idx, 0, "the first window opens as window 0");
	slots[0] += 5;
	slots[1] += 2;
	lines_session_close(idx);
	p = xasprintf("%s/lines/windows.tsv", dir);
	text = read_text(p, NULL);
	ok(text && !strncmp(text, want, strlen(want)),
	   "windows.tsv: its format line, header, and a row whose label's tab and newline are spaces");
	free(text);
	free(p);
	ok(lines_guest_load(&g, dir, err, sizeof(err)) == 0, "the host reads the window's files back (%s)", err);
	is_int(g.nwin, 1, "one window");
	ok(g.nwin == 1 && !strcmp(g.win[0].label, "tasks=4 K=3 x") && !strcmp(g.win[0].who, "runner one") &&
	   g.win[0].repeat == 2, "its label, who and repeat, each in its cell");
	ok(g.nwin == 1 && g.win[0].ops == 7 && g.win[0].unit && !strcmp(g.win[0].unit, "page faults"),
	   "window-ops.tsv: the 7 operations counted in it, in a unit whose tab is a space");
	ok(g.nrng == 1 && !strcmp(g.rng[0].name, "h slot") && g.rng[0].nfields == 1 && g.rng[0].stride == 8,
	   "window-ranges.tsv: the range, its name's tab a space, its field");
	lines_guest_free(&g);
	free(dir);
}

TEST(counters_bad_row_named)
{
	char *dir = session("counters"), *p = xasprintf("%s/lines/counters.%d", dir, (int)getpid());
	char *log = xasprintf("%s/stderr", dir), *said, *ops;
	struct lines_window_info w = { .label = "x", .who = "runner", .len_s = 1, .counted = getpid() };
	int saved, idx;

	put_file(p, "# unit\tfaults\naddress\tn\tstride\n0x10\tmany\t8\n");
	saved = tap_stderr_to(log);
	idx = lines_session_open(&w);
	lines_session_close(idx);
	said = tap_stderr_back(saved, log);
	is_int(idx, 0, "the window opens all the same");
	if (!ok(said && strstr(said, "the operations of pid") &&
	   strstr(said, "its counters file has a bad line: ") && strstr(said, "counters.") &&
	   strstr(said, ":3: field n: 'many' is not a number (not counted)"),
	   "a bad counters row: its file, line and column said"))
		tap_diag("stderr: %s", said ? said : "(none)");
	free(p);
	p = xasprintf("%s/lines/window-ops.tsv", dir);
	ops = read_text(p, NULL);
	ok(!ops, "the window not counted: no window-ops.tsv row");
	free(ops);
	free(said);
	free(p);
	free(log);
	free(dir);
}

TEST(counters_without_unit)
{
	char *dir = session("nounit"), *p = xasprintf("%s/lines/counters.%d", dir, (int)getpid());
	char *log = xasprintf("%s/stderr", dir), *said;
	static uint64_t slot;
	struct lines_window_info w = { .label = "x", .who = "runner", .len_s = 1, .counted = getpid() };
	char row[128];
	int saved;

	snprintf(row, sizeof(row), "address\tn\tstride\n%p\t1\t8\n", (void *)&slot);
	put_file(p, row);
	saved = tap_stderr_to(log);
	lines_session_close(lines_session_open(&w));
	said = tap_stderr_back(saved, log);
	ok(said && strstr(said, "its counters file names no unit"), "counters without their unit line: said");
	free(said);
	free(p);
	free(log);
	free(dir);
}

TEST(published_objects_by_column)
{
	char *dir = session("objects"), *p = xasprintf("%s/lines/objects.%d", dir, (int)getppid());
	char *log = xasprintf("%s/stderr", dir), *said;
	const struct c2c_objects *o;
	int saved;

	unsetenv("MEMCG_LAB_LINES_COLLECT");
	put_file(p, "root memcg\tmem_cgroup\t0xffff888000001000\t4096\tbpf\n"
		    "cut\trow\n"
		    "stock cpu0\tmemcg_stock_pcp\tzz\t64\tkallsyms\n"
		    "stock cpu1\tmemcg_stock_pcp\t0xffff888000002000\t64\tkallsyms\n");
	saved = tap_stderr_to(log);
	o = lines_session_objects(getppid());
	said = tap_stderr_back(saved, log);
	is_int(o->n, 2, "the two good rows read");
	ok(o->n == 2 && !strcmp(o->v[0].label, "root memcg") && !strcmp(o->v[0].type, "mem_cgroup") &&
	   o->v[0].base == 0xffff888000001000ull && o->v[0].size == 4096 && !strcmp(o->v[0].source, "bpf") &&
	   !strcmp(o->v[1].label, "stock cpu1") && o->v[1].base == 0xffff888000002000ull,
	   "each by its column: label, type, address, size, source");
	if (!ok(said && strstr(said, ":2: expected 5 tab-separated columns, got 2") &&
	   strstr(said, ":3: field address: 'zz' is not a number"), "the two bad rows said, by line and field"))
		tap_diag("stderr: %s", said ? said : "(none)");
	free(said);
	free(p);
	free(log);
	free(dir);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(tmp)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	rc = tap_main(argc, argv);
	tap_rm_rf(tmp);
	return rc;
}
