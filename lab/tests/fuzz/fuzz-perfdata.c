// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a perf.data file (header, attributes, feature sections,
 * tracing data, records) read as `memcg-lab lock report -i` reads it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lock/lockcon_perfdata.h"

/*
 * libtraceevent 1.7 leaks a few bytes on some malformed event formats,
 * inside tep_parse_event(); that is the library's, not the reader's.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-perfdata", 0);
	char path[64], err[512];
	struct lockcon_file f;
	struct lockcon lc;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (int by = LOCKCON_BY_CALLER; by <= LOCKCON_BY_LOCK; by++) {
		lockcon_init(&lc, by, NULL);
		if (!lockcon_read_perfdata(&f, path, &lc, err, sizeof(err)))
			lockcon_file_close(&f);
		lockcon_free(&lc);
	}
	close(fd);
	return 0;
}
