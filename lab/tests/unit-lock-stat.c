// SPDX-License-Identifier: GPL-2.0
/* /proc/lock_stat parsing on a real capture (LKML, lock_stat 0.4). */
#include <stdlib.h>
#include <string.h>
#include "lock/lock_stat.h"
#include "tests/tap.h"
#include "util/fileio.h"

#define CAPTURE TEST_DATA "/lock/lock_stat-01-lkml-urezki-vmap-2023.txt"

/* The capture's text, read in main(). */
static char *text;

TEST(capture_classes)
{
	char err[512];
	const struct lockstat_class *c;
	struct lockstat ls;

	if (!ok(lockstat_parse(text, CAPTURE, &ls, err, sizeof(err)) == 0, "the capture parses")) {
		tap_diag("%s", err);
		return;
	}
	ok(!strcmp(ls.version, "0.4"), "version 0.4");
	is_int(ls.n, 4, "four lock classes (contention points and separators skipped)");
	c = lockstat_find(&ls, "vmap_area_lock");
	if (ok(c != NULL, "vmap_area_lock found (name left of the last colon)")) {
		ok(c->contentions == 2554276 && c->acquisitions == 3005712, "its counts: 2554276 contentions, 3005712 acquisitions");
		ok(c->wait_total == 11719647670ull && c->wait_max == 213610, "waittime-total 11719647.67 us, max 213.61 us, in ns");
		ok(c->hold_total == 3573323370ull && c->hold_max == 67020 && c->hold_avg == 1190 && c->hold_min == 50,
		   "holdtime total/max/avg/min in ns");
	}
	c = lockstat_find(&ls, "purge_vmap_area_lock");
	ok(c && c->hold_avg == 600 && c->con_bounces == 169307, "the last class, purge_vmap_area_lock");
	lockstat_free(&ls);
}

/* A window is a difference of two snapshots. */
TEST(window_is_a_difference)
{
	char err[512];
	const struct lockstat_class *c;
	struct lockstat_class d;
	struct lockstat ls;

	if (lockstat_parse(text, CAPTURE, &ls, err, sizeof(err))) {
		ok(0, "the capture parses: %s", err);
		return;
	}
	c = lockstat_find(&ls, "purge_vmap_area_lock");
	if (c) {
		struct lockstat_class before = *c;

		before.acquisitions -= 1000;
		before.hold_total -= 50000;
		lockstat_delta(&before, c, &d);
		ok(d.acquisitions == 1000 && d.hold_total == 50000 && d.hold_avg == 50,
		   "delta: 1000 acquisitions, 50 us held, 50 ns mean");
	}
	lockstat_free(&ls);
}

TEST(bad_input_one_line)
{
	char err[512];
	struct lockstat ls;

	ok(lockstat_parse("lock_stat version 0.4\nfoo:  1 2 0.1x 3 4 5 6 7 8 9 10 11\n", "ls.txt", &ls, err,
			  sizeof(err)) < 0 && strstr(err, "ls.txt:2") && strstr(err, "waittime-min"),
	   "a malformed time: file:line and the column");
	tap_diag("%s", err);
	ok(lockstat_parse("hello\n", "x", &ls, err, sizeof(err)) < 0 && strstr(err, "not a /proc/lock_stat"),
	   "not a lock_stat file: one line");
}

/* Version 0.3 has no average columns. */
TEST(version_03_averages_derived)
{
	char err[512];
	struct lockstat ls;

	ok(lockstat_parse("lock_stat version 0.3\n  &rq->lock:  10 20 0.10 5.00 100.00 30 40 0.05 2.00 80.00\n",
			  "v03", &ls, err, sizeof(err)) == 0 && ls.n == 1 && ls.c[0].hold_total == 80000 &&
	   ls.c[0].hold_avg == 2000 && ls.c[0].wait_avg == 5000, "version 0.3: ten columns, averages derived");
	lockstat_free(&ls);
}

int main(int argc, char **argv)
{
	int rc;

	text = read_text(CAPTURE, NULL);
	if (!text)
		tap_skip_all("the lock_stat capture is missing");
	rc = tap_main(argc, argv);
	free(text);
	return rc;
}
