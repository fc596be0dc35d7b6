// SPDX-License-Identifier: GPL-2.0
/*
 * memsamples: writes a perf.data holding memory samples chosen by the test,
 * as `perf c2c record` would have recorded them on an Intel box (or an AMD
 * Zen 4 one with IBS, or an Arm one with SPE: --arch), so that the real
 * `perf c2c report` can be run on known samples where no PMU is.
 *
 *   memsamples -o FILE [--arch intel|amd|arm] [--cpuid ID] [--cpus N] [--loss LOSS]... SAMPLE...
 *   SAMPLE: KIND,ADDR,COUNT[,cpu=N][,ip=ADDR][,pid=N][,weight=N]
 *   KIND:   intel: lcl-hitm | rmt-hitm | llc-hit | l1-hit | store | store-miss
 *           amd:   ccx-hitm | near-ccx-hitm | far-ccx-hitm | l3-hit | dram |
 *                  l1-hit | store | store-miss
 *           arm:   l1 | l2 | peer-core | local-cluster | sys-cache |
 *                  peer-cluster | remote | dram | store
 *   --cpuid: the CPUID header (Arm: the MIDR, "0x00000000410fd4f0")
 *   LOSS:   lost=N | lost-samples=N | bpf-dropped=N | throttle | unthrottle
 *           | aux=FLAGS: a PERF_RECORD_LOST of N, LOST_SAMPLES of N (with
 *           PERF_RECORD_MISC_LOST_SAMPLES_BPF for bpf-dropped), THROTTLE,
 *           UNTHROTTLE, AUX with those flags; after the samples, in order
 *
 * The file itself is the lab's perf.data writer's (perf/perfdata_write.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata_write.h"

struct sample {
	struct perfdata_mem_sample s;
	uint32_t count;
};

#define SAMPLE_SYNTAX "KIND,ADDR,COUNT[,cpu=N][,ip=ADDR][,pid=N][,weight=N]"
#define LOSS_SYNTAX "lost=N | lost-samples=N | bpf-dropped=N | throttle | unthrottle | aux=FLAGS"

static void usage(const char *why, const char *arg)
{
	fprintf(stderr, "memsamples: %s%s%s\nusage: memsamples -o FILE [--arch A] [--cpuid ID] [--cpus N] [--loss LOSS]... "
		SAMPLE_SYNTAX "...\n"
		"  --arch intel (default) | amd | arm;  --cpuid ID: perf's CPUID header (Arm: the MIDR)\n"
		"  KIND: intel: lcl-hitm | rmt-hitm | llc-hit | l1-hit | store | store-miss\n"
		"        amd: ccx-hitm | near-ccx-hitm | far-ccx-hitm | l3-hit | dram | l1-hit | store | store-miss\n"
		"        arm: l1 | l2 | peer-core | local-cluster | sys-cache | peer-cluster | remote | dram | store\n"
		"  LOSS: " LOSS_SYNTAX "\n",
		arg ? arg : "", arg ? ": " : "", why);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

static int parse_sample(char *spec, enum perfdata_arch arch, struct sample *out)
{
	char *save = NULL, *kind = strtok_r(spec, ",", &save), *addr = strtok_r(NULL, ",", &save);
	char *count = strtok_r(NULL, ",", &save), *kv;
	struct perfdata_mem_sample *s = &out->s;
	uint64_t v;
	int k;

	memset(out, 0, sizeof(*out));
	s->ip = 0xffffffff81000000ULL;
	s->pid = s->tid = 1000;
	s->weight = 200;
	if (!kind || !addr || !count || (k = perfdata_mem_kind_parse_arch(arch, kind)) < 0 || parse_u64(addr, &s->addr) < 0 ||
	    parse_u64(count, &v) < 0 || !v || v > 1000000)
		return -1;
	s->kind = k;
	out->count = (uint32_t)v;
	while ((kv = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(kv, '=');

		if (!eq || parse_u64(eq + 1, &v) < 0)
			return -1;
		*eq = '\0';
		if (!strcmp(kv, "cpu"))
			s->cpu = (uint32_t)v;
		else if (!strcmp(kv, "ip"))
			s->ip = v;
		else if (!strcmp(kv, "pid"))
			s->pid = s->tid = (uint32_t)v;
		else if (!strcmp(kv, "weight"))
			s->weight = v;
		else
			return -1;
	}
	return 0;
}

/* Writes one --loss record; -1 when spec is none. */
static int write_loss(struct perfdata_writer *w, const char *spec)
{
	const char *eq = strchr(spec, '=');
	uint64_t v = 0;

	if (!strcmp(spec, "throttle") || !strcmp(spec, "unthrottle")) {
		perfdata_writer_throttle(w, spec[0] == 'u');
		return 0;
	}
	if (!eq || parse_u64(eq + 1, &v) < 0)
		return -1;
	if (!strncmp(spec, "lost=", 5))
		perfdata_writer_lost(w, v);
	else if (!strncmp(spec, "lost-samples=", 13))
		perfdata_writer_lost_samples(w, v, false);
	else if (!strncmp(spec, "bpf-dropped=", 12))
		perfdata_writer_lost_samples(w, v, true);
	else if (!strncmp(spec, "aux=", 4))
		perfdata_writer_aux(w, 0, 4096, v);
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sample *samples = calloc(argc, sizeof(*samples));
	struct perfdata_write_info info = { .ncpus = 2 };
	struct perfdata_writer *w;
	const char *path = NULL, **losses = calloc(argc, sizeof(*losses));
	uint32_t nsamples = 0, nlosses = 0;
	char cmdline[4096] = "", err[512];
	int ret = 2;

	if (!samples || !losses) {
		perror("memsamples");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			path = argv[++i];
		} else if (!strcmp(argv[i], "--loss") && i + 1 < argc) {
			losses[nlosses++] = argv[++i];
		} else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
			int a = perfdata_arch_parse(argv[++i]);

			if (a < 0 || nsamples) {
				usage(a < 0 ? "expected intel, amd or arm" : "give --arch before the samples", "--arch");
				goto out;
			}
			info.pmu = a;
		} else if (!strcmp(argv[i], "--cpuid") && i + 1 < argc) {
			info.cpuid = argv[++i];
		} else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
			uint64_t v;

			if (parse_u64(argv[++i], &v) < 0 || !v || v > 4096) {
				usage("expected 1..4096", "--cpus");
				goto out;
			}
			info.ncpus = (uint32_t)v;
		} else {
			char *spec = strdup(argv[i]);
			int r = spec ? parse_sample(spec, info.pmu, &samples[nsamples]) : -1;

			free(spec);
			if (r < 0) {
				usage("expected " SAMPLE_SYNTAX " with a KIND of --arch", argv[i]);
				goto out;
			}
			if (samples[nsamples].s.cpu >= info.ncpus) {
				usage("its cpu is not below --cpus (give --cpus first)", argv[i]);
				goto out;
			}
			nsamples++;
		}
	}
	if (!path || !nsamples) {
		usage("give -o FILE and at least one sample", NULL);
		goto out;
	}
	for (int i = 0; i < argc; i++) {
		size_t used = strlen(cmdline);

		snprintf(cmdline + used, sizeof(cmdline) - used, "%s%s", i ? " " : "", argv[i]);
	}
	info.cmdline = cmdline;
	w = perfdata_writer_new(&info);
	/* The samples interleaved, one of each kind in turn while counts last. */
	for (uint32_t left = 1; left;) {
		left = 0;
		for (uint32_t i = 0; i < nsamples; i++) {
			if (!samples[i].count)
				continue;
			perfdata_writer_sample(w, &samples[i].s);
			left += --samples[i].count;
		}
	}
	for (uint32_t i = 0; i < nlosses; i++)
		if (write_loss(w, losses[i]) < 0) {
			usage("expected " LOSS_SYNTAX, losses[i]);
			perfdata_writer_free(w);
			goto out;
		}
	if (perfdata_writer_save(w, path, err, sizeof(err)) == 0)
		ret = 0;
	else
		fprintf(stderr, "memsamples: %s\n", err);
	perfdata_writer_free(w);
out:
	free(samples);
	free(losses);
	return ret;
}
