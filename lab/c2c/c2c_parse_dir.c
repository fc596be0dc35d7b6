// SPDX-License-Identifier: GPL-2.0
/* One perf c2c report into a directory's TSVs, for the commands (c2c_parse_dir.h). */
#include "c2c/c2c_parse_dir.h"
#include "util/outfile.h"

void c2c_parse_dir_or_die(const char *path, const char *dir, bool quiet, struct c2c_report *r)
{
	char err[512];

	if (c2c_parse_to_dir(path, dir, r, err, sizeof(err)) < 0)
		outfile_die(err);
	if (!quiet)
		c2c_print_warnings(r);
}
