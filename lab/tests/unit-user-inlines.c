// SPDX-License-Identifier: GPL-2.0
/*
 * The inline frames of user addresses (perf/user_inlines.h) on this test
 * binary itself (built with -g): an address inside two nested always-inline
 * functions is three cursor nodes, as perf 7.x's append_inlines() makes
 * them; an address of an ordinary function, or outside every mapping, one.
 * The mapping comes from /proc/self/maps, as perf's MMAP2 records give it;
 * mappings are per process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/user_inlines.h"
#include "tests/tap.h"

extern const char inner_marker[], plain_marker[];

static volatile int sink;

static inline __attribute__((always_inline)) void inner(int x)
{
	sink = x;
	__asm__ volatile(".globl inner_marker\ninner_marker:\n\tnop");
	sink = x + 1;
}

static inline __attribute__((always_inline)) void middle(int x)
{
	sink = x * 3;
	inner(x);
	sink = x * 5;
}

__attribute__((noinline)) void outer_fn(int x)
{
	sink = x - 1;
	middle(x);
	sink = x - 2;
}

__attribute__((noinline)) void plain_fn(int x)
{
	sink = x;
	__asm__ volatile(".globl plain_marker\nplain_marker:\n\tnop");
	sink = x + 7;
}

/* The mapping of /proc/self/maps that holds addr; 0 when none. */
static int mapping_of(uint64_t addr, uint64_t *start, uint64_t *end, uint64_t *pgoff, char *path, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char file[512] = "";

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %511s", &s, &e, &off, file) < 3)
			continue;
		if (addr >= s && addr < e && file[0] == '/') {
			*start = s, *end = e, *pgoff = off;
			snprintf(path, n, "%s", file);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The file mapping of this test's code, found by main(). */
static uint64_t start, end, pgoff, in, pl;
static char path[512];

TEST(inline_nodes_of_own_code)
{
	struct user_inlines *u = uinl_new();

	uinl_mmap(u, 100, start, end - start, pgoff, path);
	ok(uinl_nodes(u, 100, in) == 3, "an address inside two nested inlined functions: 3 nodes (got %d)",
	   uinl_nodes(u, 100, in));
	ok(uinl_nodes(u, 100, pl) == 1, "an address of a function without inlining: 1 node (got %d)",
	   uinl_nodes(u, 100, pl));
	ok(uinl_nodes(u, 101, in) == 1, "a process without mappings: 1 node");
	ok(uinl_nodes(u, 100, 16) == 1, "an address outside every mapping: 1 node");
	uinl_free(u);
}

/* Mappings are per process. */
TEST(mappings_per_process)
{
	struct user_inlines *u = uinl_new();

	uinl_mmap(u, 100, start, end - start, pgoff, path);
	uinl_mmap(u, 102, start, end - start, pgoff, path);
	ok(uinl_nodes(u, 102, in) == 3, "another process with the same mapping: 3 nodes");
	/* A new mapping over the middle of the old one: the rest stays. */
	uinl_mmap(u, 100, pl & ~0xfffull, 0x1000, 0, "/nonexistent/lib.so");
	ok(uinl_nodes(u, 100, pl) == 1 && ((in ^ pl) & ~0xfffull ? uinl_nodes(u, 100, in) == 3 : 1),
	   "a mapping over part of another replaces only that part");
	ok(uinl_nodes(u, 102, in) == 3, "... and not the other process's");
	uinl_free(u);
}

int main(int argc, char **argv)
{
	in = (uintptr_t)inner_marker;
	pl = (uintptr_t)plain_marker;
	outer_fn(1);
	plain_fn(2);
	if (!mapping_of(in, &start, &end, &pgoff, path, sizeof(path)))
		tap_skip_all("the test's own code is in no file mapping of /proc/self/maps");
	return tap_main(argc, argv);
}
