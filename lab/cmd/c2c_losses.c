// SPDX-License-Identifier: GPL-2.0
/* memcg-lab c2c losses: what a perf.data lost or throttled while recorded, one line or TSV. */
#include <stdio.h>
#include "cmd/builtin.h"
#include "perf/perfdata_loss.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd losses_cmd = {
	.name = "c2c losses",
	.usage =
	"usage: memcg-lab c2c losses PERF.DATA [--tsv]\n"
	"\n"
	"Counts, in one pass over the file's records (perf record's file format,\n"
	"any size), what perf report --stats counts of a recording's losses: the\n"
	"samples, PERF_RECORD_LOST (records the full ring buffer dropped, as the\n"
	"kernel reported them during the run), PERF_RECORD_LOST_SAMPLES (the drops\n"
	"perf record read at its end, per event and CPU), THROTTLE and UNTHROTTLE\n"
	"(times the kernel stopped an event above perf_event_max_sample_rate), and\n"
	"the AUX records that lost data (Arm SPE, Intel PT: TRUNCATED or COLLISION).\n"
	"The two lost counts see the same drops, so the share is the larger of them\n"
	"over samples plus it; perf record's own \"lost N%\" is LOST_SAMPLES'.\n"
	"Prints \"FILE: <one line>\"; with --tsv a header and one row: samples lost\n"
	"lost_records lost_samples throttle unthrottle aux_truncated lost_pct.\n"
	"A file cut short or damaged, compressed records (perf record -z) and\n"
	"pipe-mode files are refused with one line naming the file (and the byte):\n"
	"exit 2.\n"
	"\n",
};

int cmd_c2c_losses(int argc, char **argv)
{
	bool tsv = false;
	const struct lab_option opts[] = {
		OPT_FLAG(0, "tsv", &tsv, "a header row and one row of counts instead of the line"),
		OPT_END(),
	};
	int i = options_parse(&losses_cmd, opts, argc, argv);
	struct perfdata_loss l;
	char err[1024], line[1024];

	if (i != argc - 1)
		options_usage_error();
	if (perfdata_loss_read(argv[i], &l, err, sizeof(err)))
		die("c2c losses: %s", err);
	if (tsv) {
		perfdata_loss_tsv_row(&l, line, sizeof(line));
		printf("%s\n%s\n", perfdata_loss_tsv_header, line);
	} else {
		perfdata_loss_line(&l, line, sizeof(line));
		printf("%s: %s\n", argv[i], line);
	}
	return 0;
}
