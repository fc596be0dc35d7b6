// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a perf.data's lost and throttled records counted as
 * `memcg-lab c2c losses` counts them (perf/perfdata_loss.h): the header,
 * the data section walked record by record, AUXTRACE payloads skipped, and
 * the summary line and TSV row of whatever it read.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "perf/perfdata_loss.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-perfdata-loss", 0);
	char path[64], err[512], line[1024];
	struct perfdata_loss l;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (perfdata_loss_read(path, &l, err, sizeof(err)) == 0) {
		perfdata_loss_line(&l, line, sizeof(line));
		perfdata_loss_tsv_row(&l, line, sizeof(line));
	} else if (!memchr(err, '\0', sizeof(err)) || strchr(err, '\n')) {
		__builtin_trap();	/* one line, always terminated */
	}
	close(fd);
	return 0;
}
