// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c caps: can perf c2c record on this machine? One line. */
#include <stdio.h>
#include "cmd/builtin.h"
#include "c2c/c2c.h"
#include "util/options.h"

static const struct options_cmd caps_cmd = {
	.name = "c2c caps",
	.usage =
	"usage: memcg-lab c2c caps [--require]\n"
	"\n"
	"Prints one line: whether memory-access sampling works here and how\n"
	"(Intel load latency, AMD IBS on Zen 4+, Arm SPE peer snoops), from\n"
	"`perf c2c record -e list` and the PMUs in sysfs; or why not.\n"
	"Exit status 0 either way; with --require, 1 when c2c cannot record.\n"
	"\n",
};

int cmd_c2c_caps(int argc, char **argv)
{
	bool require = false;
	const struct lab_option opts[] = {
		OPT_FLAG(0, "require", &require, "exit 1 when c2c cannot record"),
		OPT_END(),
	};
	struct c2c_caps c;

	if (options_parse(&caps_cmd, opts, argc, argv) != argc)
		options_usage_error();
	c2c_caps_detect(&c);
	puts(c.line);
	return require && !c.supported ? 1 : 0;
}
