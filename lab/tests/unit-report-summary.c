// SPDX-License-Identifier: GPL-2.0
/*
 * report.txt's opening summary, built from made-up results directories:
 * what a run could not have measured comes in its first lines (sockets on
 * cgroup v1, a TCG guest, a [small] shape), then the verdicts, the stock
 * cliff, the ratios, the skips and each phase's headline, computed from
 * meta.json, data/metrics.tsv and data/layout-check.txt, and never more
 * than 20 lines with its title.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/report.h"
#include "report/report_summary.h"
#include "tests/tap.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/metrics.h"

static char base[] = "/tmp/unit-report-summary.XXXXXX";

static void put_file(const char *dir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", dir, rel);

	if (write_file_atomic(p, text, strlen(text)))
		tap_skip_all("cannot write a file below /tmp");
	free(p);
}

/* A results directory named name with meta.json (JSON text) and, when not
 * NULL, data/metrics.tsv rows ("step repeat metric value unit better"). */
static char *make_dir(const char *name, const char *meta, const char *metrics)
{
	char *dir = xasprintf("%s/%s", base, name), *p;

	p = xasprintf("%s/data", dir);
	if (mkdir_p(p, 0755))
		tap_skip_all("cannot create a results directory below /tmp");
	free(p);
	put_file(dir, "meta.json", meta);
	if (metrics) {
		char *text = xasprintf("%s%s", METRICS_HEADER, metrics);

		put_file(dir, METRICS_FILE, text);
		free(text);
	}
	return dir;
}

/* The summary of dir as report.txt prints it (without its title). */
static char *summary_of(const char *dir)
{
	char *p = xasprintf("%s/meta.json", dir), *text = NULL;
	json_object *meta = json_object_from_file(p);
	struct report_summary s;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	report_summary_build(&s, dir, meta);
	report_summary_print(f, &s);
	report_summary_free(&s);
	fclose(f);
	json_object_put(meta);
	free(p);
	return text;
}

/* Line n (from 1) of text, or "" past its end. */
static const char *line_of(const char *text, int n, char *buf, size_t size)
{
	const char *p = text;

	for (int i = 1; i < n && p; i++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || !*p)
		return "";
	snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/* text with each entry on one line: the wrapped lines joined (for what
 * an entry says, wherever it was wrapped). */
static char *flat(const char *text)
{
	char *out = xstrdup(text), *w = out;
	static const char cont[] = "\n                ";

	for (const char *p = text; *p;) {
		if (!strncmp(p, cont, sizeof(cont) - 1)) {
			*w++ = ' ';
			p += sizeof(cont) - 1;
		} else {
			*w++ = *p++;
		}
	}
	*w = 0;
	return out;
}

static char *summary_flat(const char *dir)
{
	char *text = summary_of(dir), *f = flat(text);

	free(text);
	return f;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* The first n lines of text as one string (for "within the first n lines"). */
static char *head(const char *text, int n)
{
	const char *p = text;

	for (int i = 0; i < n && p && *p; i++)
		if ((p = strchr(p, '\n')))
			p++;
	return xasprintf("%.*s", p ? (int)(p - text) : (int)strlen(text), text);
}

static const char *netperf_metrics =
	"tasks=6\t0\tcharge.sock.total\t100\tMbps\thigher\n"
	"tasks=6\t1\tcharge.sock.total\t200\tMbps\thigher\n"
	"tasks=6\t0\tcharge.sock.user_share\t1\t%\tlower\n"
	"tasks=12\t0\tcharge.sock.total\t300\tMbps\thigher\n"
	"tasks=12\t1\tcharge.sock.total\t500\tMbps\thigher\n";

static const struct {
	const char *name, *meta, *first, *what;
} socket_cases[] = {
	{ "netperf-v2", "{\"name\":\"stock-netperf\",\"status\":\"complete\",\"charge\":{\"mode\":\"sock\","
	  "\"socket_counter\":\"memory (v2, per-CPU stock)\"},\"probe\":{\"machine\":{\"cgroup\":{\"memory_v2\":true}}}}",
	  "  measured      charge.sock.total (Mbps)", "v2 sockets at full size: no caveat, the headline only" },
	/* A later phase replaced meta.json's charge: the cgroup version tells. */
	{ "netperf-v1-phases", "{\"name\":\"x\",\"status\":\"complete\",\"charge\":{\"mode\":\"kmem\"},"
	  "\"probe\":{\"machine\":{\"cgroup\":{\"memory_v2\":false}}}}",
	  "  NOT MEASURED  the per-CPU stock: socket memory was charged on cgroup v1, not through the stock",
	  "v1 sockets without charge.socket_counter: said from the cgroup version" },
	{ "netperf-v1-nolimit", "{\"name\":\"x\",\"status\":\"complete\",\"charge\":{\"mode\":\"sock\","
	  "\"socket_counter\":\"none (v1 without a tcp limit)\"}}",
	  "  NOT MEASURED  the per-CPU stock: socket memory was not charged (v1 without a tcp limit), so the Mbps",
	  "v1 without a tcp limit: socket memory not charged" },
};

TEST(sockets)
{
	char *dir, *text, *top, *ft, buf[256];

	/* stock-netperf on cgroup v1 with its tcp limit, on a small box. */
	dir = make_dir("netperf-v1",
		       "{\"name\":\"stock-netperf\",\"status\":\"complete\",\"scaled\":\"2 CPUs < 16\","
		       "\"charge\":{\"mode\":\"sock\",\"socket_counter\":\"memory.kmem.tcp (v1, tcp limit set)\"},"
		       "\"probe\":{\"machine\":{\"cgroup\":{\"memory_v2\":false}}}}", netperf_metrics);
	put_file(dir, "experiment.exp", "[experiment]\nname = stock-netperf\n");
	text = summary_of(dir);
	tap_diag("netperf on v1:\n%s", text);
	line_of(text, 1, buf, sizeof(buf));
	ok(!strncmp(buf, "  NOT MEASURED  the per-CPU stock", 33), "v1 sockets: the first line says the stock was not measured");
	top = head(text, 3);
	ft = flat(top);
	ok(strstr(ft, "memory.kmem.tcp (v1, tcp limit set), not through the stock") &&
	   strstr(ft, "the Mbps below are loopback TCP throughput, not the stock's effect\n"),
	   "within 3 lines it names the counter charged and what the Mbps are not");
	free(ft);
	free(top);
	top = head(text, 5);
	ok(strstr(top, "\n  small shape   the [small] values ran") && strstr(top, "(2 CPUs < 16)"),
	   "the [small] shape follows in the first lines, with meta.json's reason");
	free(top);
	ok(strstr(text, "measured      charge.sock.total (Mbps): tasks=6 150, tasks=12 400\n") != NULL,
	   "the headline: the mean Mbps per step over the repeats");
	free(text);
	free(dir);

	/* The other cases: what meta.json says decides the first line. */
	for (size_t i = 0; i < sizeof(socket_cases) / sizeof(socket_cases[0]); i++) {
		dir = make_dir(socket_cases[i].name, socket_cases[i].meta, netperf_metrics);
		text = summary_flat(dir);
		line_of(text, 1, buf, sizeof(buf));
		ok(strstr(buf, socket_cases[i].first) == buf, "%s (%s)", socket_cases[i].what, buf);
		free(text);
		free(dir);
	}
}

TEST(guest)
{
	char *dir, *text, *ft, *path, buf[256];

	dir = make_dir("tcg", "{\"name\":\"kmem-overhead\",\"status\":\"complete\","
		       "\"vm\":{\"accel\":\"tcg\",\"kernel_spec\":\"6.12\"}}",
		       "-\t0\tcharge.kmem.total\t1000\tops/s\thigher\n");
	text = summary_of(dir);
	tap_diag("TCG guest:\n%s", text);
	line_of(text, 1, buf, sizeof(buf));
	ok(!strncmp(buf, "  NOT MEASURED  throughput and latency: a qemu guest (kernel 6.12)", 66),
	   "a TCG guest: the first line says throughput was not measured (%s)", buf);
	ft = flat(text);
	ok(strstr(ft, "under TCG, software emulation without KVM; counts and code paths are the guest kernel's\n") &&
	   strstr(ft, "measured      charge.kmem.total 1000 ops/s"), "and why; a driver run alone has no phase name");
	free(ft);
	free(text);
	/* Under -icount the guest's clock counts instructions. */
	{
		char *ic = make_dir("icount", "{\"name\":\"kmem-overhead\",\"status\":\"complete\","
				    "\"vm\":{\"accel\":\"tcg\",\"kernel_spec\":\"6.1\",\"icount\":\"shift=0\"}}",
				    "-\t0\tcharge.kmem.total\t1000\tops/s\thigher\n");

		text = summary_of(ic);
		ft = flat(text);
		ok(strstr(ft, "NOT MEASURED  time: a qemu guest (kernel 6.1) under TCG with -icount, whose clock counts "
			  "instructions: its times and rates are guest instruction counts") != NULL,
		   "an -icount guest: its times are instruction counts, not time");
		free(ft);
		free(text);
		free(ic);
	}
	/* The report.txt the guest wrote, before vm marked its meta.json. */
	put_file(dir, "report.txt", "memcg-lab report: (as the guest wrote it)\n");
	ok(report_rewrite(dir) == 0, "report_rewrite of a guest's results");
	path = xasprintf("%s/report.txt", dir);
	text = read_text(path, NULL);
	ok(text && strstr(text, "\nSummary\n-------\n  NOT MEASURED  throughput and latency: a qemu guest"),
	   "its report.txt now says first that throughput was not measured");
	free(text);
	free(path);
	free(dir);

	dir = make_dir("kvm", "{\"name\":\"x\",\"status\":\"complete\",\"vm\":{\"accel\":\"kvm\",\"kernel_spec\":\"lab\"}}",
		       "-\t0\tcharge.kmem.total\t1000\tops/s\thigher\n");
	text = summary_of(dir);
	ok(!strstr(text, "NOT MEASURED") && strstr(text, "measured in   a qemu guest (kernel lab, kvm)"),
	   "a KVM guest: named, no caveat");
	path = xasprintf("%s/report.txt", dir);
	ok(report_rewrite(dir) == 0 && !path_exists(path), "report_rewrite writes no report.txt where the run left none");
	free(path);
	free(text);
	free(dir);
}

/* K = 1..10 of the stock driver: holders min(K, 7), charges 100/s and 10 ns
 * up to the cliff, 50/s and 20 ns beyond (K = 1's rate is left out). */
static char *stock_metrics(int reps, int cliff_last_rep)
{
	char *s = xstrdup("");

	for (int rep = 0; rep < reps; rep++)
		for (int k = 1; k <= 10; k++) {
			int cliff = rep == reps - 1 ? cliff_last_rep : 7, held = k < cliff ? k : cliff;
			char *t = xasprintf("%sK=%d\t%d\tstock.charges_per_s\t%d\tops/s\thigher\n"
					    "K=%d\t%d\tstock.cpu_ns_per_charge\t%d\tns\tlower\n"
					    "K=%d\t%d\tstock.holders\t%d\tmemcgs\t-\n",
					    s, k, rep, k == 1 ? 999 : k <= 7 ? 100 : 50, k, rep, k <= 7 ? 10 : 20, k, rep,
					    held);

			free(s);
			s = t;
		}
	return s;
}

TEST(default_run)
{
	char *dir, *text, *raw, *stock = stock_metrics(2, 7), *metrics, *report = NULL;
	size_t len;
	FILE *f;

	metrics = xasprintf("scaling:tasks=1\t0\tcharge.anon.total\t1000\tops/s\thigher\n"
			    "scaling:tasks=1\t0\tcharge.anon.user_share\t5\t%%\tlower\n"
			    "scaling:tasks=2\t0\tcharge.anon.total\t1500\tops/s\thigher\n"
			    "%s"
			    "accounted\t0\tcharge.kmem.total\t400\tops/s\thigher\n"
			    "accounted\t1\tcharge.kmem.total\t600\tops/s\thigher\n"
			    "statread\t0\tflush.calls\t10\tflushes\t-\n"
			    "statread\t0\tstatread.all.p50\t1000\tns\tlower\n"
			    "statread\t0\tstatread.all.p99\t500000\tns\tlower\n"
			    "-\t0\tkmem_overhead\t1.5\tratio\t-\n"
			    "-\t1\tkmem_overhead\t2.5\tratio\t-\n", stock);
	dir = make_dir("default",
		       "{\"name\":\"default\",\"status\":\"complete\",\"layout_check\":\"FAIL\","
		       "\"probe\":{\"features\":{\"stock_slots\":7,\"obj_stock_slots\":1}},"
		       "\"runtime\":{\"charge_batch\":64,\"stock_slots\":5,\"agrees_with_btf\":false,"
		       "\"obj_stock_slots\":1,\"obj_stock_slots_agree_with_btf\":true},"
		       "\"statread\":[{\"config\":{\"scaled\":\"defaults scaled down for 2 CPUs; --top overrides\"}},"
		       "{\"config\":{\"scaled\":\"defaults scaled down for 2 CPUs; --top overrides\"}}],"
		       "\"skipped\":[{\"what\":\"plots\",\"why\":\"gnuplot not installed\"}]}", metrics);
	put_file(dir, "data/layout-check.txt",
		 "layout check: 6.18 (BTF)\n"
		 "pass  usage-alone                 hard  page_counter: fine\n"
		 "FAIL  limits-after-pad2           hard  page_counter: max@64\n"
		 "      why: the limits share usage's line\n"
		 "warn  size-three-lines            soft  page_counter: 256 B\n"
		 "result: 14 pass, 1 FAIL, 1 warn, 6 n/a\n");
	raw = summary_of(dir);
	tap_diag("default:\n%s", raw);
	text = flat(raw);
	ok(strstr(text, "small shape   statread: defaults scaled down for 2 CPUs\n") &&
	   !strstr(strstr(text, "small shape") + 1, "small shape"),
	   "statread's own scaling, once for its repeats, up to the ';'");
	ok(strstr(text, "layout rules  FAIL: FAIL limits-after-pad2, warn size-three-lines (14 pass, 1 FAIL, 1 warn, "
		  "6 n/a)") != NULL, "the layout verdict names the rules broken, with the counts");
	ok(strstr(text, "stock slots 5 DISAGREES with BTF's 7;") && strstr(text, "obj stock slots 1 agrees with BTF's 1"),
	   "the runtime probes against BTF, a disagreement in capitals");
	ok(strstr(text, "stock cliff   every memcg keeps its slot up to K = 7, at most 7 beyond: "
		  "matches the 7 slots BTF gives (2 repeats) ") != NULL,
	   "the cliff from the holders per K, against BTF");
	ok(strstr(text, "beyond K = 7 (against 2..7): charges/s -50.0%, CPU ns/charge +100.0%") != NULL,
	   "the rates across the cliff, K = 1 left out");
	ok(strstr(text, "ratio         kmem_overhead 2 (sd 35.4%, 2 runs)") != NULL, "the derived ratio: mean, sd, runs");
	ok(strstr(text, "skipped       plots: gnuplot not installed") != NULL, "the skip with its reason");
	ok(strstr(text, "measured      scaling: charge.anon.total (ops/s): tasks=1 1000, tasks=2 1500") &&
	   strstr(text, "measured      accounted: charge.kmem.total 500 ops/s (sd 28.3%, 2 runs)") &&
	   strstr(text, "measured      statread: statread.all.p99 500.0us (sd -, 1 run)"),
	   "each phase's headline: throughput, or the readers' p99 in time units");
	ok(!strstr(text, "stock.charges_per_s") && !strstr(text, "K=3"), "the stock phase is its cliff, not its K table");
	ok(strstr(text, "layout rules") < strstr(text, "stock cliff") && strstr(text, "stock cliff") < strstr(text, "ratio") &&
	   strstr(text, "ratio") < strstr(text, "skipped") && strstr(text, "skipped") < strstr(text, "measured"),
	   "in order: verdicts, cliff, ratio, skipped, headlines");
	ok(count_lines(raw) <= REPORT_SUMMARY_LINES, "%d lines, at most %d", count_lines(raw), REPORT_SUMMARY_LINES);
	free(raw);
	free(text);

	/* The whole report: its first screen is the header and this summary. */
	f = open_memstream(&report, &len);
	ok(report_write(dir, f, (char[256]){ 0 }, 256) == 0, "report_write of it");
	fclose(f);
	ok(strstr(report, "\nSummary\n-------\n  small shape") && strstr(report, "\nSummary\n") < strstr(report, "\nKernel\n") &&
	   strstr(report, "\nKernel\n") < strstr(report, "\nDriver results"),
	   "report.txt opens with the summary; the kernel and the per-step tables follow");
	free(report);
	free(metrics);
	free(stock);
	free(dir);

	/* One repeat's cliff one lower: the range, and no "matches". */
	stock = stock_metrics(2, 6);
	dir = make_dir("cliff-by-repeat", "{\"name\":\"stock-slots\",\"status\":\"complete\","
		       "\"probe\":{\"features\":{\"stock_slots\":7}}}", stock);
	text = summary_flat(dir);
	ok(strstr(text, "up to K = 6..7 (by repeat), at most 7 beyond: against the 7 slots BTF gives") != NULL,
	   "cliffs that differ by repeat are given as a range (%s)", text);
	free(text);
	free(stock);
	free(dir);
}

/* A charge --mode stock run alone: no probe in meta.json, the driver's own
 * slot count; holders that dip below K and recover. */
TEST(stock_alone)
{
	static const int held[] = { 1, 2, 3, 4, 5, 5, 7, 7 };
	char *metrics = xstrdup(""), *t, *dir, *text;

	for (int k = 1; k <= 8; k++) {
		t = xasprintf("%sK=%d\t0\tstock.holders\t%d\tmemcgs\t-\n", metrics, k, held[k - 1]);
		free(metrics);
		metrics = t;
	}
	dir = make_dir("stock-alone", "{\"name\":\"stock\",\"status\":\"complete\",\"stock\":{\"slots_btf\":7}}",
		       metrics);
	text = summary_flat(dir);
	ok(strstr(text, "stock cliff   every memcg keeps its slot up to K = 5, at most 7 beyond: DIFFERS from the 7 "
		  "slots BTF gives: other tasks on the CPU evict (1 repeat)\n") != NULL,
	   "a cliff below a full stock, against the driver's BTF count (%s)", text);
	ok(!strstr(text, "beyond K = 5"), "no rates across it without charges_per_s rows");
	free(text);
	free(dir);
	free(metrics);
}

TEST(cut_and_missing)
{
	char *meta = xstrdup("{\"name\":\"x\",\"status\":\"complete\",\"vm\":{\"accel\":\"tcg\"},\"skipped\":["), *t;
	char *dir, *text, buf[256];

	for (int i = 0; i < 30; i++) {
		t = xasprintf("%s%s{\"what\":\"part %d\",\"why\":\"a reason long enough to be cut at the end of the "
			      "line it is given on, which is the second of the two lines a skip may take in the summary\"}",
			      meta, i ? "," : "", i);
		free(meta);
		meta = t;
	}
	t = xasprintf("%s]}", meta);
	dir = make_dir("many-skips", t, NULL);
	free(t);
	text = summary_of(dir);
	ok(count_lines(text) == REPORT_SUMMARY_LINES, "30 skips: cut to %d lines (%d)", REPORT_SUMMARY_LINES,
	   count_lines(text));
	line_of(text, REPORT_SUMMARY_LINES, buf, sizeof(buf));
	ok(strstr(buf, "more lines: the sections below)") != NULL, "the last says how many more (%s)", buf);
	line_of(text, 1, buf, sizeof(buf));
	ok(!strncmp(buf, "  NOT MEASURED  throughput", 26), "the caveat still leads");
	line_of(text, 4, buf, sizeof(buf));
	ok(!strncmp(buf, "  skipped       part 0: a reason", 32), "the skips follow (%s)", buf);
	line_of(text, 5, buf, sizeof(buf));
	ok(!strncmp(buf, "                ", 16) && strlen(buf) <= 80 && !strcmp(buf + strlen(buf) - 3, "..."),
	   "a long skip is cut to two lines of 80 columns (%s)", buf);
	line_of(text, 6, buf, sizeof(buf));
	ok(!strncmp(buf, "  skipped       part 1: ", 24), "then the next (%s)", buf);
	ok(strstr(text, "measured      ") == NULL, "nothing measured is claimed without data/metrics.tsv");
	free(text);
	free(dir);

	dir = make_dir("nothing", "{\"name\":\"x\",\"status\":\"incomplete\"}", NULL);
	text = summary_flat(dir);
	ok(strstr(text, "measured      nothing: ") && strstr(text, "data/metrics.tsv: cannot read"),
	   "no data/metrics.tsv: the summary says so (%s)", text);
	free(text);
	free(dir);
	free(meta);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(base))
		tap_skip_all("cannot create a temporary directory");
	rc = tap_main(argc, argv);
	if (tap_rm_rf(base))
		tap_diag("rm -rf %s failed", base);
	return rc;
}
