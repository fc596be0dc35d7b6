// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a lines access trace (c2c/lines_trace.h) from a text of
 * accesses, for the tests of `memcg-lab lines predict` and `lines suggest`
 * (the plugin writes the real ones in guests):
 *
 *   lines-trace-make OUT [--vcpus N] [--version V] [--status writing|complete|full]
 *                        [--dropped N] [--cut N] < ACCESSES
 *
 * ACCESSES: one per line, "L|S VCPU WINDOW ADDRESS SIZE [PC]" (a load or a
 * store), '#' comments; ADDRESS and PC in hex, ADDRESS may be BASE+OFF or
 * BASE-OFF (hex both: scripts without 64-bit arithmetic name objects so).  --cut N leaves N bytes out of the file's end (a
 * trace cut short); --version and --status write what the header says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_trace.h"

static void usage(void)
{
	fprintf(stderr, "usage: lines-trace-make OUT [--vcpus N] [--version V] [--status S] [--dropped N] [--cut N] "
			"< ACCESSES\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct lines_trace_header h = { .version = LINES_TRACE_VERSION, .record_size = sizeof(struct lines_trace_rec),
					.status = LINES_TRACE_COMPLETE, .vcpus = 4 };
	struct lines_trace_rec *rec = NULL;
	size_t n = 0, cut = 0;
	char line[512];
	FILE *f;

	if (argc < 2)
		usage();
	memcpy(h.magic, LINES_TRACE_MAGIC, 8);
	for (int i = 2; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--vcpus"))
			h.vcpus = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--version"))
			h.version = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--dropped"))
			h.dropped = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cut"))
			cut = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--status")) {
			const char *s = argv[++i];

			h.status = !strcmp(s, "writing") ? LINES_TRACE_WRITING : !strcmp(s, "full") ? LINES_TRACE_FULL :
				   LINES_TRACE_COMPLETE;
		} else
			usage();
	}
	while (fgets(line, sizeof(line), stdin)) {
		char rw;
		unsigned vcpu, window, size;
		unsigned long long addr, pc = 0;
		char a[128], *end;
		int k;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		k = sscanf(line, " %c %u %u %127s %u %llx", &rw, &vcpu, &window, a, &size, &pc);
		addr = strtoull(a, &end, 16);
		if (*end == '+' || *end == '-') {
			unsigned long long off = strtoull(end + 1, NULL, 16);

			addr = *end == '+' ? addr + off : addr - off;
		}
		if (k < 5 || (rw != 'L' && rw != 'S')) {
			fprintf(stderr, "lines-trace-make: bad line: %s", line);
			return 2;
		}
		rec = realloc(rec, (n + 1) * sizeof(*rec));
		if (!rec)
			return 2;
		memset(&rec[n], 0, sizeof(*rec));
		rec[n].vaddr = addr;
		rec[n].pc = pc ? pc : 0xffffffff81000000ULL + (rw == 'S' ? 0x100 : 0);
		rec[n].window = window;
		rec[n].vcpu = (uint8_t)vcpu;
		rec[n].size = (uint8_t)size;
		rec[n].flags = rw == 'S' ? LINES_TRACE_STORE : 0;
		n++;
	}
	h.nrecords = n;
	h.cap = n > LINES_TRACE_DEFAULT_RECORDS ? n : LINES_TRACE_DEFAULT_RECORDS;
	f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "lines-trace-make: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	{
		size_t total = sizeof(h) + n * sizeof(*rec);
		char *buf = malloc(total ? total : 1);

		if (!buf)
			return 2;
		memcpy(buf, &h, sizeof(h));
		if (n)
			memcpy(buf + sizeof(h), rec, n * sizeof(*rec));
		if (fwrite(buf, 1, total > cut ? total - cut : 0, f) != (total > cut ? total - cut : 0) || fclose(f)) {
			fprintf(stderr, "lines-trace-make: %s: cannot write\n", argv[1]);
			return 2;
		}
		free(buf);
	}
	free(rec);
	return 0;
}
