// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include "util/nofile.h"

static long long nr_open(void)
{
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");
	long long v = NOFILE_NR_OPEN_DEFAULT;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = NOFILE_NR_OPEN_DEFAULT;
		fclose(f);
	}
	return v;
}

/* CAP_SYS_RESOURCE (24) in the effective set: what lets root raise its
 * hard limit (a root shell under setpriv/capsh may lack it). */
static bool may_raise_hard(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];
	bool found = false;

	if (!f)
		return geteuid() == 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &eff) == 1;
	fclose(f);
	return found ? (eff >> 24) & 1 : geteuid() == 0;
}

long long nofile_reachable(void)
{
	struct rlimit rl;
	long long hard;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return NOFILE_NR_OPEN_DEFAULT;
	hard = rl.rlim_max == RLIM_INFINITY ? nr_open() : (long long)rl.rlim_max;
	if (may_raise_hard()) {
		long long n = nr_open();

		if (n > hard)
			hard = n;
	}
	return hard;
}

int nofile_raise(long long need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_max != RLIM_INFINITY && (long long)rl.rlim_max < need) {
		struct rlimit up = rl;

		if (need > nofile_reachable())
			return -EMFILE;
		up.rlim_max = (rlim_t)need;
		up.rlim_cur = up.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &up) < 0)
			return -errno;
		return 0;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			return -errno;
	}
	return rl.rlim_cur == RLIM_INFINITY || (long long)rl.rlim_cur >= need ? 0 : -EMFILE;
}
