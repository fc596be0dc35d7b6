// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata-repeat IN OUT N: writes a perf.data whose data section is the
 * recorded one N times over, each copy's timestamps shifted past the
 * previous copy's, so that a benchmark can feed perf and the lab the same
 * large file of real events without recording for minutes on a shared box.
 * Header, attributes and feature sections are copied (offsets fixed up).
 * Only samples and round markers are repeated; COMM and other records
 * appear once, in the first copy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata.h"

struct section {
	uint64_t offset, size;
};

static void put(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n) {
		perror("perfdata-repeat: write");
		exit(2);
	}
}

/* Byte offset of the time field in a sample of this layout, or -1. */
static int time_offset(uint64_t st)
{
	int off = 8 * !!(st & PERF_SAMPLE_IDENTIFIER) + 8 * !!(st & PERF_SAMPLE_IP) +
		  8 * !!(st & PERF_SAMPLE_TID);

	return (st & PERF_SAMPLE_TIME) ? off : -1;
}

int main(int argc, char **argv)
{
	struct perf_file pf;
	char err[512];
	uint64_t first = UINT64_MAX, last = 0, span, nfeat = 0, data_end, new_size;
	int64_t delta;
	int n;
	FILE *out;
	uint8_t *buf;

	if (argc != 4 || (n = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: perfdata-repeat IN OUT N\n");
		return 2;
	}
	if (perfdata_open(&pf, argv[1], err, sizeof(err))) {
		fprintf(stderr, "perfdata-repeat: %s\n", err);
		return 2;
	}
	/* The time span of the samples, to shift each copy past the last. */
	for (uint64_t off = pf.data_off; off < pf.data_off + pf.data_size;) {
		const struct perf_event_header *h = (const void *)(pf.map + off);
		struct perfdata_sample s;

		if (h->type == PERF_RECORD_SAMPLE && !perfdata_parse_sample(&pf, h, &s, err, sizeof(err))) {
			if (s.time < first)
				first = s.time;
			if (s.time > last)
				last = s.time;
		}
		off += h->size;
	}
	span = last - first + 1000000;
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 2;
	}
	/* Everything before the data section as is; the header is patched
	 * at the end. */
	put(out, pf.map, pf.data_off);
	buf = malloc(65536);
	for (int copy = 0; copy < n; copy++) {
		for (uint64_t off = pf.data_off; off < pf.data_off + pf.data_size;) {
			const struct perf_event_header *h = (const void *)(pf.map + off);
			struct perfdata_sample s;

			off += h->size;
			if (copy && h->type != PERF_RECORD_SAMPLE && h->type != PF_RECORD_FINISHED_ROUND)
				continue;
			memcpy(buf, h, h->size);
			if (copy && h->type == PERF_RECORD_SAMPLE &&
			    !perfdata_parse_sample(&pf, h, &s, err, sizeof(err))) {
				int t = time_offset(s.evsel->attr.sample_type);
				uint64_t v = s.time + copy * span;

				if (t >= 0)
					memcpy(buf + sizeof(*h) + t, &v, 8);
			}
			put(out, buf, h->size);
		}
	}
	data_end = ftell(out);
	/* Feature sections: the table, then the bodies, moved by delta. */
	for (int b = 0; b < 256; b++)
		nfeat += perfdata_has_feat(&pf, b);
	{
		uint64_t old_base = pf.data_off + pf.data_size;
		struct section *sec = malloc(nfeat * sizeof(*sec) + 1);
		uint64_t body_start, body_end = old_base + nfeat * sizeof(*sec);

		memcpy(sec, pf.map + old_base, nfeat * sizeof(*sec));
		body_start = body_end;
		for (uint64_t i = 0; i < nfeat; i++)
			if (sec[i].offset + sec[i].size > body_end)
				body_end = sec[i].offset + sec[i].size;
		delta = (int64_t)data_end - (int64_t)old_base;
		for (uint64_t i = 0; i < nfeat; i++)
			sec[i].offset += delta;
		put(out, sec, nfeat * sizeof(*sec));
		put(out, pf.map + body_start, body_end - body_start);
		free(sec);
	}
	new_size = data_end - pf.data_off;
	/* Header: data.size at byte 48+8 (magic, size, attr_size, attrs{2}, data{offset,size}). */
	fseek(out, 8 * 6, SEEK_SET);
	put(out, &new_size, 8);
	if (fclose(out)) {
		perror(argv[2]);
		return 2;
	}
	printf("%s: %d copies, %" PRIu64 " bytes of records\n", argv[2], n, new_size);
	free(buf);
	perfdata_close(&pf);
	return 0;
}
