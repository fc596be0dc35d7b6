// SPDX-License-Identifier: GPL-2.0
/*
 * util/nearest.h: the edit distance (swaps of neighbours count one), and
 * the names a missing path suggests from the lab's own experiments/ and
 * layouts/ (and a directory made here): the near ones, as the user wrote
 * the directory, the nearest first, at most three; none for a name far
 * from all.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/nearest.h"

TEST(edit_distance)
{
	is_int(edit_distance("stock-slot.exp", "stock-slots.exp"), 1, "one letter missing: 1");
	is_int(edit_distance("stock-sltos.exp", "stock-slots.exp"), 1, "two neighbours swapped: 1");
	is_int(edit_distance("kitten", "sitting"), 3, "kitten -> sitting: 3");
	is_int(edit_distance("", "abc"), 3, "from nothing: the length");
}

/* The lab's own experiments/ and layouts/. */
TEST(names_from_lab_directories)
{
	char buf[1024];

	ok(!nearest_names("experiments/stock-slot.exp", buf, sizeof(buf)) &&
	   !strcmp(buf, "experiments/stock-slots.exp"), "experiments/stock-slot.exp: %s", buf);
	ok(!nearest_names("experiments/stok-netprf.exp", buf, sizeof(buf)) &&
	   !strcmp(buf, "experiments/stock-netperf.exp"), "experiments/stok-netprf.exp: %s", buf);
	ok(!nearest_names("layouts/6.12", buf, sizeof(buf)) && !strcmp(buf, "layouts/6.12.117"),
	   "layouts/6.12 (a prefix): %s", buf);
	ok(!nearest_names("experiments/lines.exp", buf, sizeof(buf)) && strstr(buf, "experiments/lines-charge.exp") &&
	   strstr(buf, "experiments/lines-stock.exp") && strstr(buf, "experiments/lines-flush.exp"),
	   "experiments/lines.exp (a stem): %s", buf);
	ok(nearest_names("experiments/zzzzzzzz.exp", buf, sizeof(buf)) && !buf[0], "a name far from all: none");
	ok(nearest_names("no-such-dir/x.exp", buf, sizeof(buf)) && !buf[0], "a missing directory: none");
}

/* A directory made here: at most three, the nearest first. */
TEST(names_from_temp_dir)
{
	char buf[1024], dir[] = "/tmp/memcg-lab-unit-nearest.XXXXXX", p[256];

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	for (const char *const *f = (const char *const[]){ "abcdxy", "abcd4", "abcd2", "abce", "abcd3", ".abcd",
							   NULL }; *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", dir, *f);
		close(open(p, O_CREAT | O_WRONLY, 0600));
	}
	snprintf(p, sizeof(p), "%s/abcd", dir);
	ok(!nearest_names(p, buf, sizeof(buf)), "a temp dir: %s", buf);
	snprintf(p, sizeof(p), "%s/abcd2, %s/abcd3, %s/abcd4", dir, dir, dir);
	ok(!strcmp(buf, p), "three at most, the nearest (distance 1) by name; abce after them, abcdxy (2) and "
	   ".abcd left out");
	snprintf(p, sizeof(p), "%s/abcdxz", dir);
	ok(!nearest_names(p, buf, sizeof(buf)), "abcdxz: %s", buf);
	snprintf(p, sizeof(p), "%s/abcdxy, %s/abcd2, %s/abcd3", dir, dir, dir);
	ok(!strcmp(buf, p), "abcdxz: abcdxy (distance 1) before abcd2 and abcd3 (2); abce (3) left out");
	tap_rm_rf(dir);
}

/* Among a list (the commands, for `memcg-lab help NAME`). */
TEST(names_from_list)
{
	const char *const cmds[] = { "ab", "c2c", "charge", "cleanup", "compare", "layout", "lines", "lock", NULL };
	char buf[256];

	ok(!nearest_of("chrage", cmds, buf, sizeof(buf)) && !strcmp(buf, "charge"), "chrage: %s", buf);
	ok(!nearest_of("line", cmds, buf, sizeof(buf)) && !strcmp(buf, "lines"), "line (a prefix): %s", buf);
	ok(!nearest_of("lokc", cmds, buf, sizeof(buf)) && !strcmp(buf, "lock"), "lokc (a swap): %s", buf);
	ok(!nearest_of("lo", cmds, buf, sizeof(buf)) && !strcmp(buf, "ab, lock"),
	   "lo: ab and lock (distance 2 both) by name: %s", buf);
	ok(!nearest_of("comp", cmds, buf, sizeof(buf)) && !strcmp(buf, "compare"), "comp (a prefix): %s", buf);
	ok(nearest_of("zzzzzzzz", cmds, buf, sizeof(buf)) && !buf[0], "a name far from all: none");
	ok(nearest_of("charge", cmds, buf, sizeof(buf)) && !buf[0], "the name itself is not its own neighbour");
	ok(nearest_of("", cmds, buf, sizeof(buf)) && !buf[0], "an empty name: none");
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
