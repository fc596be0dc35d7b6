// SPDX-License-Identifier: GPL-2.0
/*
 * util/labcost: nothing recorded gives no "cost"; the parts add up into
 * setup_s and teardown_s; the parent's share is CPU over wall, and its
 * median second is the median of a window's per-second shares, the
 * largest of several windows (one second of a busy host's stolen time
 * must not decide it).
 */
#include <math.h>
#include "tests/tap.h"
#include "util/labcost.h"

static double num(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : NAN;
}

TEST(nothing_recorded_no_cost)
{
	tap_ok(labcost_json() == NULL, "nothing recorded: no cost object");
}

TEST(parts_add_up_and_median_second)
{
	const double calm[] = { 0.001, 0.0012, 0.5, 0.0011 }, odd[] = { 0.002, 0.004, 0.003 };
	json_object *o;

	labcost_add(LABCOST_CGROUP_SETUP, 0.25);
	labcost_add(LABCOST_SPAWN, 0.5);
	labcost_add(LABCOST_REAP, 0.125);
	labcost_add(LABCOST_CGROUP_TEARDOWN, 1);
	labcost_add_sampling(4, 0.04, calm, 4, 8);
	o = labcost_json();
	tap_ok(o != NULL, "a cost object once something was recorded");
	tap_ok(num(o, "setup_s") == 0.75 && num(o, "cgroup_setup_s") == 0.25 && num(o, "spawn_s") == 0.5,
	       "setup_s is the tree's setup plus the spawn (%g)", num(o, "setup_s"));
	tap_ok(num(o, "teardown_s") == 1.125, "teardown_s is the reap plus the tree's removal (%g)",
	       num(o, "teardown_s"));
	tap_ok(num(o, "parent_cpu_share") == 0.01, "parent_cpu_share = CPU / wall (%g)", num(o, "parent_cpu_share"));
	tap_ok(fabs(num(o, "parent_cpu_share_median") - 0.00115) < 1e-9,
	       "the median second of an even window, the 0.5 burst left out (%g)", num(o, "parent_cpu_share_median"));
	json_object_put(o);
	labcost_add_sampling(3, 0.009, odd, 3, 16);
	o = labcost_json();
	tap_ok(num(o, "parent_cpu_share_median") == 0.003, "two windows: the larger median (%g)",
	       num(o, "parent_cpu_share_median"));
	tap_ok(num(o, "sampling_s") == 7 && fabs(num(o, "parent_cpu_s") - 0.049) < 1e-9,
	       "the windows' wall and CPU add up (%g s, %g s)", num(o, "sampling_s"), num(o, "parent_cpu_s"));
	tap_ok(num(o, "workers_max") == 16, "workers_max is the largest window's (%g)", num(o, "workers_max"));
	tap_ok(num(o, "peak_rss_kb") > 0, "peak_rss_kb from getrusage (%g)", num(o, "peak_rss_kb"));
	json_object_put(o);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
