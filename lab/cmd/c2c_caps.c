// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c caps: can perf c2c record on this machine? One line. */
#include <getopt.h>
#include <stdio.h>
#include "cmd/builtin.h"
#include "cmd/c2c_sub.h"
#include "collect/c2c.h"
#include "util/err.h"

static const char caps_usage[] =
	"usage: memcg-lab c2c caps [--require]\n"
	"\n"
	"Prints one line: whether memory-access sampling works here and how\n"
	"(Intel load latency, AMD IBS on Zen 4+, Arm SPE peer snoops), from\n"
	"`perf c2c record -e list` and the PMUs in sysfs; or why not.\n"
	"Exit status 0 either way; with --require, 1 when c2c cannot record.\n";

int c2c_caps_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "require", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct c2c_caps c;
	bool require = false;
	int o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'r': require = true; break;
		case 'h': usage_exit(caps_usage, 0);
		default: usage_exit(caps_usage, EXIT_LAB_ERR);
		}
	}
	if (optind != argc)
		usage_exit(caps_usage, EXIT_LAB_ERR);
	c2c_caps_detect(&c);
	puts(c.line);
	return require && !c.supported ? 1 : 0;
}
