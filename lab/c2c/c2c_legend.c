// SPDX-License-Identifier: GPL-2.0
/* What a report's counts mean per PMU, and what they cannot show (c2c/c2c_legend.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "c2c/c2c_legend.h"
#include "util/outfile.h"
#include "util/tsv.h"

void c2c_pmu_words(const struct c2c_report *r, struct c2c_pmu_words *w)
{
	bool peer = r->peer_display;

	*w = (struct c2c_pmu_words){ .pmu = "the PMU", .kind = peer ? "peer" : "HITM", .lcl = "lcl", .rmt = "rmt" };
	switch (r->vendor) {
	case C2C_INTEL:
		w->pmu = "Intel PEBS";
		if (!peer)
			w->legend = "Intel PEBS: Lcl HITM = a load found the line modified in another core's cache "
				    "on this socket (an L3 hit, HITM snoop); Rmt HITM = modified in another "
				    "node's (socket's) cache.";
		break;
	case C2C_AMD:
		w->pmu = "AMD IBS (Zen 4)";
		if (!peer) {
			w->lcl = "same-CCX";
			w->rmt = "other-CCX";
			w->legend = "AMD IBS: Lcl HITM = a load found the line modified in another core's cache of "
				    "the same CCX (DataSrc 1); Rmt HITM = modified in another CCX's cache, in the "
				    "same NUMA node (DataSrc 2, near CCX) or another (5, far CCX): another CCX, "
				    "often on the same socket, not a remote socket; perf counts near and far "
				    "alike as Rmt.";
		}
		break;
	case C2C_ARM:
		w->pmu = "Arm SPE";
		if (peer)
			w->legend = "Arm SPE: no HITM (SPE does not say the line was modified); Lcl peer = a load "
				    "served by another core or cluster of this chip (SPE data source 0x9, 0xa, "
				    "0xc); Rmt peer = served by another socket (0xd).";
		break;
	default:
		break;
	}
}

/* A statistic of the report, 0 when it has none. */
static double stat_or_0(const struct c2c_report *r, const char *key, bool *have)
{
	double v = 0;

	if (c2c_stat_num(r, key, &v))
		return v;
	if (have)
		*have = false;
	return 0;
}

const char *c2c_report_limit(const struct c2c_report *r, char *buf, size_t len)
{
	bool have = true;
	double loads = stat_or_0(r, "Load Operations", &have);
	double peer = stat_or_0(r, "Load HIT Local Peer", &have) + stat_or_0(r, "Load HIT Remote Peer", &have);
	double dram = stat_or_0(r, "Load Local DRAM", &have) + stat_or_0(r, "Load Remote DRAM", &have);
	double miss = stat_or_0(r, "Loads - Miss", &have);

	if (r->vendor == C2C_ARM && !r->peer_display && (r->sort_on || r->ncls || r->nstats)) {
		snprintf(buf, len, "Arm SPE records no HITM and this report shows HITM, not peer snoops (a perf "
			 "before 6.0, or -d other than peer): its HITM counts are 0 whatever the sharing, so it "
			 "cannot show which fields bounce; report with perf 6.0 or later without -d");
		return buf;
	}
	if (r->vendor == C2C_ARM && r->peer_display && have && loads > 0 && peer == 0 && dram == 0 && miss > 0) {
		snprintf(buf, len, "perf decoded no SPE data source here: of %.0f loads none came from a peer, "
			 "DRAM or another socket, %.0f only missed L1D/LLC (the events alone), so this perf does "
			 "not know the CPU's data-source encoding (perf 6.1 decodes Neoverse N1, N2, V1; 7.3 also "
			 "V2) and cannot show peer snoops: 0 shared cachelines is not a measurement; report with "
			 "a perf that knows the CPU", loads, miss);
		return buf;
	}
	if ((r->vendor == C2C_AMD || r->vendor == C2C_INTEL) && r->peer_display) {
		snprintf(buf, len, "%s records no peer snoops: this peer display shows none whatever the "
			 "sharing; report with -d tot (HITM)", r->vendor == C2C_AMD ? "AMD IBS" : "Intel PEBS");
		return buf;
	}
	return NULL;
}

int c2c_write_pmu_tsv(const char *dir, const struct c2c_report *r, char *err, size_t errlen)
{
	struct c2c_pmu_words w;
	char path[4096], limit[640];
	const char *lim = c2c_report_limit(r, limit, sizeof(limit));
	FILE *f;

	c2c_pmu_words(r, &w);
	snprintf(path, sizeof(path), "%s/pmu.tsv", dir);
	f = outfile_open(path, "w");
	tsv_write_header(f, (const char *const[]){ "key", "value", NULL });
	tsv_write_row(f, "vendor\t%s\npmu\t%s\ndisplay\t%s\nlcl\t%s\nrmt\t%s\nlegend\t%s\nlimit\t%s\n",
		      c2c_vendor_name(r->vendor), w.pmu, w.kind, w.lcl, w.rmt, w.legend ? w.legend : "", lim ? lim : "");
	if (outfile_close(f)) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
