// SPDX-License-Identifier: GPL-2.0
/*
 * Naming the struct field behind a c2c address, on the real layouts of
 * Linux 6.18 and 6.1 (BTF in build/btf), with synthetic object addresses:
 * every byte of memcg_stock_pcp, the nested page_counter fields inside
 * mem_cgroup, an address outside every known object, and the whole path
 * from a report's text to the false-sharing map.
 *
 * The expected names below are the pahole layouts of those kernels, written
 * out by hand: the test data, not a table the code uses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/c2c_attr.h"
#include "tests/tap.h"
#include "util/err.h"

struct span {
	unsigned from, to;	/* bytes [from, to] */
	const char *name;
};

/* struct memcg_stock_pcp of 6.18 (multi-memcg stock, 7 slots), 112 bytes. */
static const struct span stock_618[] = {
	{ 0, 0, "lock" },
	{ 1, 1, "nr_pages[0]" }, { 2, 2, "nr_pages[1]" }, { 3, 3, "nr_pages[2]" }, { 4, 4, "nr_pages[3]" },
	{ 5, 5, "nr_pages[4]" }, { 6, 6, "nr_pages[5]" }, { 7, 7, "nr_pages[6]" },
	{ 8, 15, "cached[0]" }, { 16, 23, "cached[1]" }, { 24, 31, "cached[2]" }, { 32, 39, "cached[3]" },
	{ 40, 47, "cached[4]" }, { 48, 55, "cached[5]" }, { 56, 63, "cached[6]" },
	{ 64, 71, "work.data" }, { 72, 79, "work.entry.next" }, { 80, 87, "work.entry.prev" },
	{ 88, 95, "work.func" }, { 96, 103, "flags" }, { 104, 104, "drain_idx" },
	{ 105, 111, "(padding after drain_idx)" },
};

/* struct memcg_stock_pcp of 6.1 (one cached memcg, obj stock inside), 88 bytes. */
static const struct span stock_61[] = {
	{ 0, 7, "cached" }, { 8, 11, "nr_pages" }, { 12, 15, "(hole after nr_pages)" },
	{ 16, 23, "cached_objcg" }, { 24, 31, "cached_pgdat" }, { 32, 35, "nr_bytes" },
	{ 36, 39, "nr_slab_reclaimable_b" }, { 40, 43, "nr_slab_unreclaimable_b" },
	{ 44, 47, "(hole after nr_slab_unreclaimable_b)" }, { 48, 55, "work.data" },
	{ 56, 63, "work.entry.next" }, { 64, 71, "work.entry.prev" }, { 72, 79, "work.func" },
	{ 80, 87, "flags" },
};

/* Inside struct mem_cgroup of 6.18: page_counter memory at 256, swap at 448. */
static const struct span memcg_618[] = {
	{ 0, 7, "css.cgroup" },
	{ 16, 23, "css.refcnt.percpu_count_ptr" },
	{ 208, 211, "id.id" },
	{ 216, 255, "(hole after id)" },
	{ 256, 263, "memory.usage" },
	{ 264, 271, "memory.failcnt" },
	{ 272, 319, "memory.(hole after failcnt)" },
	{ 320, 327, "memory.emin" },
	{ 376, 383, "memory.local_watermark" },
	{ 384, 384, "memory.protection_support" },
	{ 385, 385, "memory.track_failcnt" },
	{ 392, 399, "memory.min" },
	{ 416, 423, "memory.max" },
	{ 424, 431, "memory.parent" },
	{ 432, 447, "memory.(padding after parent)" },
	{ 448, 455, "swap.usage" },
	{ 512, 519, "swap.emin" },
	{ 672, 675, "peaks_lock" },
};

/*
 * The same bytes of 6.18's mem_cgroup on cgroup v1, and where the version
 * is not known: union { struct page_counter swap; struct page_counter
 * memsw; } at 448 is memsw on v1 (mm/memcontrol-v1.h do_memsw_account()),
 * and both, as the layout map's box says, when nobody said which.
 */
static const struct span memcg_618_v1[] = {
	{ 256, 263, "memory.usage" },
	{ 440, 447, "memory.(padding after parent)" },
	{ 448, 455, "memsw.usage" },
	{ 456, 463, "memsw.failcnt" },
	{ 512, 519, "memsw.emin" },
	{ 616, 623, "memsw.parent" },
	{ 672, 675, "peaks_lock" },
};
static const struct span memcg_618_any[] = {
	{ 256, 263, "memory.usage" },
	{ 448, 455, "swap|memsw.usage" },
	{ 512, 519, "swap|memsw.emin" },
	{ 672, 675, "peaks_lock" },
};

static void check_spans(const struct kbtf *k, const char *type, const struct span *s, size_t n, bool whole,
			enum field_cgroup cg, const char *what)
{
	int id = kbtf_find_struct(k, type), bad = 0;
	unsigned bytes = 0;

	for (size_t i = 0; i < n; i++) {
		for (unsigned b = s[i].from; b <= s[i].to; b++) {
			struct field_hit h;

			bytes++;
			if (field_at(k, id, b, cg, &h) < 0 || strcmp(h.name, s[i].name) ||
			    h.offset != (s[i].name[0] == '(' || strstr(s[i].name, ".(") ? h.offset : s[i].from)) {
				if (bad++ < 5)
					tap_diag("%s byte %u: got '%s' (offset %llu), want '%s'", type, b,
						 field_at(k, id, b, cg, &h) < 0 ? "(none)" : h.name,
						 (unsigned long long)h.offset, s[i].name);
			}
		}
	}
	is_int(bad, 0, "%s: %u bytes named %s", what, bytes, whole ? "(every byte of the struct)" : "");
	if (whole) {
		struct field_hit h;

		ok(field_at(k, id, s[n - 1].to + 1, cg, &h) < 0, "%s: the byte after the struct has no field", what);
	}
}

TEST(field_names_618_and_61)
{
	struct kbtf k;
	char err[256];

	if (kbtf_open(&k, TEST_BTF("6.18.44"), NULL, err, sizeof(err)) < 0) {
		tap_skip("6.18 layouts", err);
		return;
	}
	check_spans(&k, "memcg_stock_pcp", stock_618, sizeof(stock_618) / sizeof(stock_618[0]), true,
		    FIELD_CG_UNKNOWN, "6.18 memcg_stock_pcp");
	check_spans(&k, "mem_cgroup", memcg_618, sizeof(memcg_618) / sizeof(memcg_618[0]), false,
		    FIELD_CG_V2, "6.18 mem_cgroup on cgroup v2 (nested page_counter fields; swap is live)");
	check_spans(&k, "mem_cgroup", memcg_618_v1, sizeof(memcg_618_v1) / sizeof(memcg_618_v1[0]), false,
		    FIELD_CG_V1, "6.18 mem_cgroup on cgroup v1 (the same bytes: memsw is live)");
	check_spans(&k, "mem_cgroup", memcg_618_any, sizeof(memcg_618_any) / sizeof(memcg_618_any[0]), false,
		    FIELD_CG_UNKNOWN, "6.18 mem_cgroup, cgroup version unknown (the union's members both named)");
	{
		struct field_hit h;

		ok(field_at(&k, kbtf_find_struct(&k, "mem_cgroup"), 300, FIELD_CG_V2, &h) == 0 && h.hole && h.offset == 272 &&
		   h.size == 48, "the page_counter hole that keeps usage alone on its line: 48 bytes at 272");
	}
	kbtf_close(&k);
	if (kbtf_open(&k, TEST_BTF("6.1.192"), NULL, err, sizeof(err)) < 0) {
		tap_skip("6.1 layout", err);
		return;
	}
	check_spans(&k, "memcg_stock_pcp", stock_61, sizeof(stock_61) / sizeof(stock_61[0]), true,
		    FIELD_CG_V1, "6.1 memcg_stock_pcp (same name, other layout: read from BTF)");
	kbtf_close(&k);
}

/*
 * Every byte of every struct the lab names fields of, in every BTF
 * fixture (5.10 to 7.3): the only overlapping members field_at meets are
 * mem_cgroup's swap and memsw, which the table of live members names by
 * cgroup version, so that nothing is named by the declaration order of a
 * union.  Where the version is unknown they are "swap|memsw.X"; on v1 the
 * very byte that is swap.X on v2 is memsw.X, at the same offset and size.
 */
TEST(union_by_cgroup_version)
{
	static const char *const releases[] = { "5.10.262", "6.1.192", "6.12.117", "6.16.12", "6.18.44",
						"7.1.13", "7.2.12", "7.3.4-rt" };
	static const char *const structs[] = { "mem_cgroup", "page_counter", "memcg_stock_pcp", "obj_stock_pcp" };

	for (size_t r = 0; r < sizeof(releases) / sizeof(releases[0]); r++) {
		char path[128], err[256], other[300] = "";
		struct kbtf k;
		int joined = 0, bad = 0, unresolved = 0;

		snprintf(path, sizeof(path), "build/btf/vmlinux-%s.btf", releases[r]);
		if (kbtf_open(&k, path, NULL, err, sizeof(err)) < 0) {
			tap_skip(releases[r], err);
			continue;
		}
		for (size_t s = 0; s < sizeof(structs) / sizeof(structs[0]); s++) {
			int id = kbtf_find_struct(&k, structs[s]);
			long size = id > 0 ? kbtf_type_size(&k, id) : 0;

			for (long b = 0; b < size; b++) {
				struct field_hit any, v1, v2;

				field_at(&k, id, b, FIELD_CG_UNKNOWN, &any);
				field_at(&k, id, b, FIELD_CG_V1, &v1);
				field_at(&k, id, b, FIELD_CG_V2, &v2);
				unresolved += strchr(v1.name, '|') || strchr(v2.name, '|');
				if (!strchr(any.name, '|'))
					continue;
				if (strcmp(structs[s], "mem_cgroup") || strncmp(any.name, "swap|memsw.", 11)) {
					if (!other[0])
						snprintf(other, sizeof(other), "%s.%s", structs[s], any.name);
					continue;
				}
				joined++;
				bad += strncmp(v1.name, "memsw.", 6) || strncmp(v2.name, "swap.", 5) ||
				       strcmp(v1.name + 6, any.name + 11) || strcmp(v2.name + 5, any.name + 11) ||
				       v1.offset != v2.offset || v1.size != v2.size || any.offset != v2.offset;
			}
		}
		ok(!other[0] && joined > 0 && !bad && !unresolved,
		   "%s: the one union in the lab's four structs is mem_cgroup's swap|memsw (%d bytes); v1 names "
		   "each memsw.X, v2 swap.X%s%s", releases[r], joined, other[0] ? "; also: " : "", other);
		kbtf_close(&k);
	}
}

/*
 * A report in current perf's format whose lines are a memcg's page_counter
 * line and a CPU's memcg_stock: parse, attribute, map.
 */
#define MEMCG 0xffff888104a3c000ull
#define STOCK 0xffff88813bc2e0d0ull	/* per-CPU objects need not be line-aligned */

static char *synthetic_report(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t l0 = MEMCG + 256, l1 = (STOCK & ~63ull), l2 = 0xffffffff82a00000ull;

	fprintf(f,
"=================================================\n"
"           Shared Data Cache Line Table          \n"
"=================================================\n"
"#\n"
"#        ----------- Cacheline ----------      Tot  ------- Load Hitm -------    Total    Total    Total  --------- Stores --------  ----- Core Load Hit -----  - LLC Load Hit --  - RMT Load Hit --  --- Load Dram ----\n"
"# Index             Address  Node  PA cnt     Hitm    Total  LclHitm  RmtHitm  records    Loads   Stores    L1Hit   L1Miss      N/A       FB       L1       L2    LclHit  LclHitm    RmtHit  RmtHitm       Lcl       Rmt\n"
"# .....  ..................  ....  ......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  ........  .......  ........  .......  ........  ........\n"
"#\n"
"      0  %#18llx     0     100   80.00%%      800      600      200     3000     1500     1500     1000      500        0        0        0        0         0      600         0      200         0         0\n"
"      1  %#18llx     0      10   15.00%%      150      150        0      400      300      100      100        0        0        0        0        0         0      150         0        0         0         0\n"
"      2  %#18llx     0      10    5.00%%       50       50        0      100      100        0        0        0        0        0        0        0         0       50         0        0         0         0\n"
"\n"
"=================================================\n"
"      Shared Cache Line Distribution Pareto      \n"
"=================================================\n"
"#\n"
"#        ----- HITM -----  ------- Store Refs ------  --------- Data address ---------                      ---------- cycles ----------    Total       cpu                               Shared                       \n"
"#   Num  RmtHitm  LclHitm   L1 Hit  L1 Miss      N/A              Offset  Node  PA cnt        Code address  rmt hitm  lcl hitm      load  records       cnt                  Symbol          Object  Source:Line  Node\n"
"# .....  .......  .......  .......  .......  .......  ..................  ....  ......  ..................  ........  ........  ........  .......  ........  ......................  ..............  ...........  ....\n"
"#\n"
"  ----------------------------------------------------------------------\n"
"      0      200      600     1000      500        0  %#18llx\n"
"  ----------------------------------------------------------------------\n"
"          75.00%%   50.00%%    0.00%%    0.00%%    0.00%%                 0x0     0       1  0xffffffff8137071c       900       400       300      900        16  [k] page_counter_try_charge  [kernel.kallsyms]  page_counter.c:120  0\n"
"          25.00%%   50.00%%  100.00%%  100.00%%    0.00%%                 0x0     0       1  0xffffffff81370800       800       350       280      700        16  [k] page_counter_cancel       [kernel.kallsyms]  page_counter.c:60   0\n"
"           0.00%%    0.00%%    0.00%%    0.00%%    0.00%%                0x10     0       1  0xffffffff81370900         0         0        90       10         2  [k] mem_cgroup_margin         [kernel.kallsyms]  memcontrol.c:1500   0\n"
"\n"
"  ----------------------------------------------------------------------\n"
"      1        0      150      100        0        0  %#18llx\n"
"  ----------------------------------------------------------------------\n"
"           0.00%%  100.00%%    0.00%%    0.00%%    0.00%%  %#18llx     0       1  0xffffffff81371000         0       300       200      250         8  [k] refill_stock              [kernel.kallsyms]  memcontrol.c:1800   0\n"
"           0.00%%    0.00%%  100.00%%    0.00%%    0.00%%  %#18llx     0       1  0xffffffff81371100         0         0         0      100         8  [k] refill_stock              [kernel.kallsyms]  memcontrol.c:1810   0\n"
"\n"
"  ----------------------------------------------------------------------\n"
"      2        0       50        0        0        0  %#18llx\n"
"  ----------------------------------------------------------------------\n"
"           0.00%%  100.00%%    0.00%%    0.00%%    0.00%%                 0x8     0       1  0xffffffff81100000         0       100        90      100         4  [k] jiffies_reader            [kernel.kallsyms]  time.c:10          0\n",
		(unsigned long long)l0, (unsigned long long)l1, (unsigned long long)l2,
		(unsigned long long)l0,
		(unsigned long long)l1, (unsigned long long)(STOCK - l1 + 8 + 8 * 3),	/* cached[3] */
		(unsigned long long)(STOCK - l1 + 2),					/* nr_pages[1] */
		(unsigned long long)l2);
	fclose(f);
	return buf;
}

static const struct c2c_attr_row *row_at(const struct c2c_attr_row *rows, size_t n, const char *sym, int nth)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].o->v[OFF_SYMBOL] && !strcmp(rows[i].o->v[OFF_SYMBOL], sym) && nth-- == 0)
			return &rows[i];
	return NULL;
}

TEST(report_to_field_map)
{
	struct kbtf k;
	struct c2c_objects objs = { 0 };
	struct c2c_report r;
	struct c2c_attr_row *rows;
	const struct c2c_attr_row *a;
	char err[256], *text = synthetic_report(), *out = NULL;
	size_t n, len = 0;
	FILE *f;

	if (kbtf_open(&k, TEST_BTF("6.18.44"), NULL, err, sizeof(err)) < 0) {
		tap_skip("report to field map", err);
		free(text);
		return;
	}
	ok(c2c_objects_add(&objs, &k, "mem_cgroup", MEMCG, "memcg test/g0", "synthetic", err, sizeof(err)) == 0 &&
	   c2c_objects_add(&objs, &k, "memcg_stock_pcp", STOCK, "memcg_stock cpu3", "synthetic", err,
			   sizeof(err)) == 0, "objects from BTF struct names");
	ok(c2c_objects_add(&objs, &k, "no_such_struct", 0x1000, "x", "synthetic", err, sizeof(err)) < 0 &&
	   strstr(err, "no_such_struct"), "an unknown struct is refused with its name: %s", err);
	ok(!c2c_objects_find(&objs, MEMCG - 1) && !c2c_objects_find(&objs, STOCK + 112) &&
	   c2c_objects_find(&objs, STOCK + 111) == &objs.v[1], "object extents come from the BTF sizes");

	f = fmemopen(text, strlen(text), "r");
	c2c_parse_file(&r, f, "synthetic", NULL, NULL);
	fclose(f);
	is_int(r.noffs, 6, "synthetic report: 6 offset rows");
	is_int(r.nwarns, 0, "synthetic report: no parse warnings");
	rows = c2c_attribute(&r, &k, &objs, &n);

	a = row_at(rows, n, "page_counter_try_charge", 0);
	ok(a && a->obj == &objs.v[0] && !strcmp(a->field.name, "memory.usage") && a->hitm == 450.0,
	   "page_counter_try_charge reads mem_cgroup.memory.usage: 75%% x 200 + 50%% x 600 = 450 HITMs (%g)",
	   a ? a->hitm : -1);
	a = row_at(rows, n, "page_counter_cancel", 0);
	ok(a && !strcmp(a->field.name, "memory.usage") && a->stores == 1500.0,
	   "page_counter_cancel writes it: 100%% of 1000 L1 hit + 500 L1 miss stores = 1500 (%g)",
	   a ? a->stores : -1);
	a = row_at(rows, n, "mem_cgroup_margin", 0);
	ok(a && !strcmp(a->field.name, "memory.(hole after failcnt)") && a->hitm == 0,
	   "offset 0x10 of the usage line is the padding hole");
	a = row_at(rows, n, "refill_stock", 0);
	ok(a && a->obj == &objs.v[1] && !strcmp(a->field.name, "cached[3]") && a->obj_offset == 32,
	   "refill_stock reads memcg_stock_pcp.cached[3] (object offset %llu)",
	   a ? (unsigned long long)a->obj_offset : 0);
	a = row_at(rows, n, "refill_stock", 1);
	ok(a && !strcmp(a->field.name, "nr_pages[1]") && a->stores == 100.0,
	   "and writes memcg_stock_pcp.nr_pages[1] (100 stores)");
	a = row_at(rows, n, "jiffies_reader", 0);
	ok(a && !a->obj && a->hitm == 50.0, "an address outside every known object stays unnamed, with its HITMs");

	f = open_memstream(&out, &len);
	c2c_print_attribution(&r, rows, n, &objs, f);
	fclose(f);
	ok(strstr(out, "mem_cgroup.memory.usage") && strstr(out, "memcg_stock_pcp.cached[3]") &&
	   strstr(out, "? (outside every known object)") && strstr(out, "1 of 6 offset rows lie outside"),
	   "the printed table names the fields and says which rows lie outside");
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	c2c_write_fieldmap_tsv(rows, n, "mem_cgroup", f);
	fclose(f);
	ok(strstr(out, "mem_cgroup\tmem_cgroup.memory.usage\t256\t8\t4\tpage_counter_try_charge\tread\t450.0\t\t\t1\n") &&
	   strstr(out, "mem_cgroup\tmem_cgroup.memory.usage\t256\t8\t4\tpage_counter_cancel\twrite\t\t\t1500.0\t1\n") &&
	   strstr(out, "page_counter_cancel\tread\t350.0"),
	   "fieldmap-mem_cgroup: the usage field's readers and writers, split");
	ok(!strstr(out, "refill_stock"), "fieldmap-mem_cgroup holds mem_cgroup fields only");
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	c2c_write_offsetmap_tsv(rows, n, "memcg_stock_pcp", f);
	fclose(f);
	ok(strstr(out, "memcg_stock_pcp\t2\t0x2\t0\tmemcg_stock_pcp.nr_pages[1]\trefill_stock\twrite") &&
	   strstr(out, "memcg_stock_pcp\t32\t0x20\t0\tmemcg_stock_pcp.cached[3]\trefill_stock\tread\t150.0"),
	   "offsetmap-memcg_stock_pcp: byte offsets in the struct with their field");
	free(out);

	{
		struct c2c_objects none = { 0 };
		size_t m;
		struct c2c_attr_row *bare = c2c_attribute(&r, NULL, &none, &m);

		out = NULL;
		f = open_memstream(&out, &len);
		c2c_print_attribution(&r, bare, m, &none, f);
		fclose(f);
		ok(strstr(out, "No object address is known") && strstr(out, "cannot be named"),
		   "without any object address the report says plainly that fields cannot be named");
		free(out);
		out = NULL;
		f = open_memstream(&out, &len);
		c2c_write_symbols_tsv(bare, m, f);
		fclose(f);
		ok(strstr(out, "page_counter_try_charge\t[kernel.kallsyms]\tread\t450.0"),
		   "and attributes by code symbol (symbols.tsv)");
		free(out);
		free(bare);
	}
	free(rows);
	c2c_report_free(&r);
	c2c_objects_free(&objs);
	kbtf_close(&k);
	free(text);
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	fputs(text, f);
	fclose(f);
	return p;
}

/*
 * The objects TSV carries the run's cgroup version (its fifth column), so
 * that `c2c report --objects` of a run's files names the union as the run
 * would: written and read back, an older four-column file (unknown), a
 * mixed or wrong version refused with file and line.
 */
TEST(objects_tsv_cgroup_version)
{
	char dir[] = "/tmp/memcg-lab-fields-XXXXXX", err[512], *out = NULL, *p;
	struct c2c_objects objs = { 0 }, back = { 0 };
	struct field_hit h;
	struct kbtf k;
	size_t len = 0;
	FILE *f;

	if (!mkdtemp(dir) || kbtf_open(&k, TEST_BTF("6.18.44"), NULL, err, sizeof(err)) < 0) {
		tap_skip("objects TSV with a cgroup version", "no temporary directory or no 6.18 BTF");
		return;
	}
	c2c_objects_add(&objs, &k, "mem_cgroup", MEMCG, "memcg g0", "", err, sizeof(err));
	objs.cgroup = FIELD_CG_V1;
	f = open_memstream(&out, &len);
	c2c_objects_write_tsv(&objs, f);
	fclose(f);
	p = write_tmp(dir, "v1.tsv", out);
	ok(c2c_objects_read_tsv(&back, &k, p, err, sizeof(err)) == 0 && back.cgroup == FIELD_CG_V1 &&
	   back.n == 1 && !strcmp(back.v[0].source, ""),
	   "objects.tsv says cgroup v1 and reads back v1, an empty source in its place");
	ok(field_at(&k, back.v[0].type_id, 448, back.cgroup, &h) == 0 && !strcmp(h.name, "memsw.usage"),
	   "and the objects read back name byte 448 of their mem_cgroup memsw.usage (%s)", h.name);
	free(p);
	free(out);
	c2c_objects_free(&back);
	p = write_tmp(dir, "old.tsv", "label\ttype\taddress\tsource\nmemcg g0\tmem_cgroup\t0x1000\tbpf\n");
	ok(c2c_objects_read_tsv(&back, &k, p, err, sizeof(err)) == 0 && back.cgroup == FIELD_CG_UNKNOWN &&
	   field_at(&k, back.v[0].type_id, 448, back.cgroup, &h) == 0 && !strcmp(h.name, "swap|memsw.usage"),
	   "a file without the column leaves the version unknown: both members named (%s)", h.name);
	free(p);
	c2c_objects_free(&back);
	p = write_tmp(dir, "mixed.tsv", "label\ttype\taddress\tsource\tcgroup\n"
		      "a\tmem_cgroup\t0x1000\tx\tv2\nb\tmem_cgroup\t0x2000\tx\tv1\n");
	ok(c2c_objects_read_tsv(&back, &k, p, err, sizeof(err)) < 0 && strstr(err, "mixed.tsv:3: cgroup 'v1'"),
	   "objects of two versions in one file are refused at the line: %s", err);
	free(p);
	c2c_objects_free(&back);
	p = write_tmp(dir, "bad.tsv", "label\ttype\taddress\tsource\tcgroup\na\tmem_cgroup\t0x1000\tx\tv3\n");
	ok(c2c_objects_read_tsv(&back, &k, p, err, sizeof(err)) < 0 && strstr(err, "bad.tsv:2: cgroup 'v3'"),
	   "an unknown version is refused with file and line: %s", err);
	free(p);
	c2c_objects_free(&back);
	c2c_objects_free(&objs);
	kbtf_close(&k);
	tap_rm_rf(dir);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
