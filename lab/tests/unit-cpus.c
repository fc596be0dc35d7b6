// SPDX-License-Identifier: GPL-2.0
/* CPU lists and topology steps for pinning, and the counts and rates charge parses and prints. */
#include <string.h>
#include "tests/tap.h"
#include "util/cpus.h"
#include "util/topology.h"
#include "util/expfile.h"
#include "util/humanize.h"

TEST(counts_and_rates)
{
	long l = 0;
	char buf[64];

	ok(!parse_long("12", 1, 100, &l) && l == 12, "a count in range");
	is_int(parse_long("0", 1, 100, &l), -1, "a count below the range is refused");
	is_int(parse_long("3x", 1, 100, &l), -1, "trailing junk is refused");
	is_int(parse_long("", 1, 100, &l), -1, "an empty count is refused");
	format_si(buf, sizeof(buf), 1234567);
	ok(!strcmp(buf, "1.23M"), "SI rates keep three digits (%s)", buf);
	format_si(buf, sizeof(buf), 987);
	ok(!strcmp(buf, "987"), "small rates print as they are (%s)", buf);
}

TEST(cpu_lists)
{
	int cpus[16], n;
	char err[128];
	cpu_set_t set;

	n = cpulist_parse("2,0-1,1", cpus, 16, err, sizeof(err));
	ok(n == 3 && cpus[0] == 2 && cpus[1] == 0 && cpus[2] == 1, "a list keeps its order, without duplicates");
	n = cpulist_parse("3-1", cpus, 16, err, sizeof(err));
	ok(n < 0 && strstr(err, "backwards"), "a backwards range is refused (%s)", err);
	n = cpulist_parse("0,,1", cpus, 16, err, sizeof(err));
	ok(n < 0 && strstr(err, "not a CPU list"), "a malformed list is refused (%s)", err);
	n = cpulist_parse("0-", cpus, 16, err, sizeof(err));
	ok(n < 0, "an open range is refused");
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	CPU_SET(2, &set);
	CPU_SET(8, &set);
	cpulist_format(&set, err, sizeof(err));
	ok(!strcmp(err, "0-2,8"), "a set prints in the kernel's list format (%s)", err);
	ok(cpus_online(&set, NULL) == 0 && CPU_COUNT(&set) >= 1, "the online CPUs are read");
}

TEST(topology_steps)
{
	/* A 2-socket box: 2 nodes x 16 cores x 2 threads, one L3 per 8 cores. */
	struct topo big = { .npu = 64, .smt = 2, .llc = 16, .node = 32, .llc_name = "L3" };
	/* Sub-NUMA clustering: a node smaller than the LLC. */
	struct topo snc = { .npu = 64, .smt = 2, .llc = 32, .node = 16, .llc_name = "L3" };
	/* This kind of VM: no SMT, one LLC, one node. */
	struct topo vm = { .npu = 2, .smt = 1, .llc = 2, .node = 2, .llc_name = "L3" };
	int s[TOPO_MAX_STEPS], n;
	const char *names[TOPO_MAX_STEPS];
	struct topo here;
	char err[128];

	n = topo_steps(&big, s, names);
	ok(n == 5 && s[0] == 1 && s[1] == 2 && s[2] == 16 && s[3] == 32 && s[4] == 64,
	   "steps on a 64-CPU box: 1, SMT set, LLC, node, machine");
	ok(!strcmp(names[2], "L3") && !strcmp(names[4], "machine"), "each step names its level");
	n = topo_steps(&snc, s, names);
	ok(n == 5 && s[2] == 16 && !strcmp(names[2], "node") && s[3] == 32, "steps stay sorted with sub-NUMA nodes");
	n = topo_steps(&vm, s, names);
	ok(n == 2 && s[0] == 1 && s[1] == 2 && !strcmp(names[1], "machine"),
	   "levels of equal size collapse into one step (%d steps)", n);
	if (topo_load(&here, err, sizeof(err)) == 0) {
		bool all = true;

		for (int i = 0; i < here.npu; i++) {
			bool found = false;

			for (int j = 0; j < here.npu; j++)
				found |= here.spread[j] == here.compact[i];
			all &= found;
		}
		ok(here.npu >= 1 && here.smt >= 1 && here.llc >= here.smt && all,
		   "hwloc: %d CPUs, SMT %d, %s %d, node %d; both orders hold every CPU", here.npu, here.smt,
		   here.llc_name, here.llc, here.node);
		topo_free(&here);
	} else {
		ok(0, "hwloc loads the topology: %s", err);
	}
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
