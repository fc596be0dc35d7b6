/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf.data reader (file mode, as `perf record -o FILE` writes it): the
 * header, the event attributes with their sample ids, the feature sections
 * the lab needs (tracing-data event formats, hostname, os release, perf
 * version, command line, kernel build id) and the records.
 *
 * Records come in perf's own delivery order.  perf's report tools queue
 * timed records and, at each PERF_RECORD_FINISHED_ROUND, deliver those at or
 * below the highest time seen at the previous round's end, stable by file
 * position (tools/perf/util/ordered-events.c).  State machines such as the
 * lock contention pairing depend on that order, so perfdata_for_each() reproduces
 * it; memory is bounded by two rounds of record offsets.
 *
 * Tracepoint payloads are decoded with libtraceevent from the formats that
 * perf stored in the file (pf->tep), not from the running kernel.
 *
 * Unsupported inputs get one line in err naming the file and what to do:
 * pipe-mode files, Zstd-compressed records (perf record -z), big-endian
 * files, perf.data directories (perf record --threads).
 */
#ifndef LAB_PERF_PERFDATA_H
#define LAB_PERF_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "util/u64map.h"

struct tep_handle;
struct tep_event;

/* The on-disk header (tools/perf/util/header.h). */
struct perfdata_section {
	uint64_t offset, size;
};

struct perfdata_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct perfdata_section attrs, data, event_types;
	uint64_t adds_features[4];
};

#define PF_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" little-endian */
#define PF_MAGIC2_SW	0x50455246494c4532ULL	/* the same written big-endian */
#define PF_MAGIC1	0x454c494652455050ULL	/* "PERFFILE", the 2009 format */
#define PF_PIPE_HDR	16			/* a pipe-mode header: magic and size */

/* perf's own record types (tools/lib/perf/include/perf/event.h). */
#define PF_RECORD_HEADER_ATTR		64
#define PF_RECORD_HEADER_TRACING_DATA	66
#define PF_RECORD_FINISHED_ROUND	68
#define PF_RECORD_AUXTRACE		71
#define PF_RECORD_COMPRESSED		81
#define PF_RECORD_FINISHED_INIT		82

/* perf_event_header.misc bit of COMM records written by exec(). */
#ifndef PERF_RECORD_MISC_COMM_EXEC
#define PERF_RECORD_MISC_COMM_EXEC (1 << 13)
#endif

/* Callchain context markers are the top 4095 values of u64. */
#define PF_CONTEXT_MAX ((uint64_t)-4095)

struct perfdata_evsel {
	struct perf_event_attr attr;
	uint64_t *ids;
	uint32_t nids;
	char name[128];			/* "lock:contention_begin", or "type/config" */
	struct tep_event *tp;		/* format of a tracepoint event, else NULL */
};

struct perfdata_sample {
	const struct perfdata_evsel *evsel;
	uint64_t ip, time, id, addr, period;
	uint32_t pid, tid, cpu;
	uint64_t nr;			/* callchain entries, markers included */
	const uint64_t *ips;
	uint32_t raw_size;
	const uint8_t *raw;
};

struct perfdata_stats {
	uint64_t records;		/* all records in the data section */
	uint64_t samples;
	uint64_t lost;			/* PERF_RECORD_LOST: samples the kernel dropped */
	uint64_t lost_samples;		/* PERF_RECORD_LOST_SAMPLES */
	uint64_t rounds;
	uint64_t out_of_order;		/* timed records older than a delivered round */
};

struct perf_file {
	char *path;
	int fd;
	const uint8_t *map;
	size_t size;
	uint64_t data_off, data_size;
	uint64_t feat[4];		/* adds_features bitmap */
	struct perfdata_evsel *evsel;
	int nevsel;
	int sample_id_all;		/* non-sample records carry sample ids */
	struct tep_handle *tep;		/* from HEADER_TRACING_DATA, or NULL */
	char *hostname, *osrelease, *version, *arch, *cmdline;
	char kernel_build_id[41];	/* hex, "" when absent */
	/* "" or where the header features are cut short (e.g. "PATH:
	 * truncated: header feature 1 ends at byte N but the file has M"):
	 * perf reads such a file as far as it can, and so does the lab, but a
	 * reader that misses a feature says why. */
	char cut[320];
	struct perfdata_stats stats;
	struct u64map id_map;		/* sample id -> evsel */
};

/* Feature bits (tools/perf/util/header.h). */
enum {
	PF_FEAT_TRACING_DATA = 1, PF_FEAT_BUILD_ID = 2, PF_FEAT_HOSTNAME = 3,
	PF_FEAT_OSRELEASE = 4, PF_FEAT_VERSION = 5, PF_FEAT_ARCH = 6,
	PF_FEAT_CMDLINE = 11, PF_FEAT_EVENT_DESC = 12, PF_FEAT_DIR_FORMAT = 24,
	PF_FEAT_COMPRESSED = 27,
};

/* Opens and checks the file; 0, or -1 with one line in err. */
int perfdata_open(struct perf_file *pf, const char *path, char *err, size_t errlen);
void perfdata_close(struct perf_file *pf);
bool perfdata_has_feat(const struct perf_file *pf, int bit);

/* The evsel named "sys:name", or NULL. */
const struct perfdata_evsel *perfdata_find_evsel(const struct perf_file *pf, const char *name);

/*
 * Parses a PERF_RECORD_SAMPLE; 0, or -1 when the record is shorter than its
 * sample_type says (the error names the file offset).
 */
int perfdata_parse_sample(const struct perf_file *pf, const struct perf_event_header *ev,
		    struct perfdata_sample *s, char *err, size_t errlen);

/*
 * Calls fn for every record in delivery order (see above); a non-zero
 * return stops the walk and is returned.  Returns -1 with err set on a
 * truncated or corrupt data section, or an unsupported record.
 */
typedef int (*perfdata_record_fn)(struct perf_file *pf, const struct perf_event_header *ev,
			    uint64_t offset, void *arg);
int perfdata_for_each(struct perf_file *pf, perfdata_record_fn fn, void *arg, char *err, size_t errlen);

/* A tracepoint field, looked up once and read from each payload. */
struct perfdata_field {
	int offset, size;
	bool is_signed;
};
/* 0, or -1 when the event has no such integer field. */
int perfdata_field_lookup(const struct perfdata_evsel *e, const char *name, struct perfdata_field *f);
/* The field's value (sign-extended when signed); 0 if the payload is short. */
uint64_t perfdata_field_u64(const struct perfdata_sample *s, const struct perfdata_field *f);

#endif
