// SPDX-License-Identifier: GPL-2.0
/*
 * The run's own objects on this machine: the struct mem_cgroup of memcgs
 * the test creates (through the BPF reader, checked by the kernel against
 * the cgroup's inode), and the per-CPU stocks, or the plain reason why not.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "c2c/c2c.h"
#include "kernel/cgroup.h"
#include "kernel/memcg_addr.h"
#include "tests/tap.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owner.h"

static char notes[4096];
static char parent[400];

/* Undo step: the test's memcgs go even when the test is interrupted. */
static void remove_parent(void *arg)
{
	(void)arg;
	cg_destroy(parent);
}

static void keep_note(const char *line, void *arg)
{
	size_t used = strlen(notes);

	(void)arg;
	snprintf(notes + used, sizeof(notes) - used, "%s\n", line);
	tap_diag("note: %s", line);
}

/* The memory controller's mount: v1 "memory" hierarchy or cgroup2 with memory. */
static const char *memory_root(void)
{
	static char root[256];
	char *m = read_text("/proc/self/mounts", NULL), *line, *save = NULL;

	root[0] = '\0';
	for (line = m ? strtok_r(m, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char dev[64], dir[200], type[32], opts[256];

		if (sscanf(line, "%63s %199s %31s %255s", dev, dir, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup") && strstr(opts, "memory")) {
			snprintf(root, sizeof(root), "%s", dir);
			break;
		}
		if (!strcmp(type, "cgroup2")) {
			char ctl[300], *c;

			snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", dir);
			c = read_text(ctl, NULL);
			if (c && strstr(c, "memory"))
				snprintf(root, sizeof(root), "%s", dir);
			free(c);
		}
	}
	free(m);
	return root[0] ? root : NULL;
}

/*
 * What each case needs: root, the running kernel's BTF, a memory
 * controller, the BPF kernel reader, and two new memcgs a and b below a
 * lab tree root, removed by the case's own undo step (cleanup_run_all).
 * Made inside the case, so that -l and a case not asked for make none.
 * False, the case skipped with its reason, when one is missing.
 */
struct fixture {
	struct kbtf k;
	struct kread kr;
	char a[480], b[480];
};

static bool fixture_open(struct fixture *fx, const char *what)
{
	const char *root;
	char err[512], owner[64], *ctl;
	bool made;

	if (geteuid()) {
		tap_skip(what, "needs root (BPF, cgroups)");
		return false;
	}
	if (kbtf_open(&fx->k, NULL, NULL, err, sizeof(err)) < 0) {
		tap_skip(what, "no BTF of the running kernel");
		return false;
	}
	root = memory_root();
	if (!root) {
		kbtf_close(&fx->k);
		tap_skip(what, "no memory controller mounted");
		return false;
	}
	if (kread_open(&fx->kr, err, sizeof(err)) < 0) {
		tap_diag("%s", err);
		kbtf_close(&fx->k);
		tap_skip(what, "the BPF kernel reader cannot load here");
		return false;
	}
	cleanup_init();
	lab_owner_name(owner, sizeof(owner));
	/* A lab tree root by name, so cg_destroy() and `memcg-lab cleanup` know it. */
	snprintf(parent, sizeof(parent), "%s/%s", root, owner);
	snprintf(fx->a, sizeof(fx->a), "%s/a", parent);
	snprintf(fx->b, sizeof(fx->b), "%s/b", parent);
	if (mkdir(parent, 0755) == 0)
		cleanup_push(remove_parent, NULL, "the test's memcgs");
	ctl = xasprintf("%s/cgroup.subtree_control", parent);
	made = path_exists(parent) &&
	       /* cgroup v2: the children get their own memcg only with +memory here */
	       (strstr(root, "memory") || write_text(ctl, "+memory") >= 0) && mkdir(fx->a, 0755) == 0 &&
	       mkdir(fx->b, 0755) == 0;
	free(ctl);
	if (!made) {
		cleanup_run_all();
		kread_close(&fx->kr);
		kbtf_close(&fx->k);
		tap_skip(what, "cannot create test memcgs");
		return false;
	}
	return true;
}

/* Closes what fixture_open() opened, removes the memcgs, and says so. */
static void fixture_close(struct fixture *fx)
{
	kread_close(&fx->kr);
	kbtf_close(&fx->k);
	cleanup_run_all();
	ok(!path_exists(parent), "test memcgs removed");
}

TEST(memcg_address_of_new_memcg)
{
	struct fixture fx;
	char err[512];
	uint64_t addr_a = 0, addr_a2 = 0;

	if (!fixture_open(&fx, "struct mem_cgroup of new memcgs"))
		return;
	err[0] = '\0';
	ok(memcg_addr_of(&fx.kr, &fx.k, fx.a, &addr_a, err, sizeof(err)) == 0,
	   "struct mem_cgroup of a new memcg found and checked against its inode%s%s", err[0] ? ": " : "", err);
	ok(addr_a >= 0xffff800000000000ull && addr_a % 8 == 0, "it is an aligned kernel address (0x%llx)",
	   (unsigned long long)addr_a);
	ok(memcg_addr_of(&fx.kr, &fx.k, fx.a, &addr_a2, err, sizeof(err)) == 0 && addr_a2 == addr_a,
	   "asking again gives the same address");
	{
		char *bogus = xasprintf("%s/no-such-memcg", parent);
		uint64_t x;

		ok(memcg_addr_of(&fx.kr, &fx.k, bogus, &x, err, sizeof(err)) < 0 && strstr(err, "no-such-memcg"),
		   "a missing cgroup fails with a line naming it: %s", err);
		free(bogus);
	}
	fixture_close(&fx);
}

TEST(run_memcgs_and_stocks_become_objects)
{
	struct fixture fx;
	struct c2c_objects objs = { 0 };
	char err[512];
	const char *dirs[2] = { fx.a, fx.b };
	uint64_t addr_a = 0;
	size_t memcgs = 0, stocks = 0;

	if (!fixture_open(&fx, "the run's objects"))
		return;
	err[0] = '\0';
	if (memcg_addr_of(&fx.kr, &fx.k, fx.a, &addr_a, err, sizeof(err)))
		tap_diag("memcg a: %s", err);
	c2c_find_objects(&objs, &fx.k, dirs, 2, keep_note, NULL);
	for (size_t i = 0; i < objs.n; i++) {
		memcgs += !strcmp(objs.v[i].type, "mem_cgroup");
		stocks += !strcmp(objs.v[i].type, "memcg_stock_pcp");
	}
	is_int(memcgs, 2, "both memcgs become objects");
	ok(objs.n >= 2 && objs.v[0].base == addr_a && objs.v[1].base != addr_a,
	   "two memcgs, two different struct mem_cgroup addresses");
	if (stocks) {
		ok(stocks == (size_t)possible_cpus(), "one memcg_stock per possible CPU (%zu)", stocks);
	} else {
		ok(strstr(notes, "memcg_stock") && (strstr(notes, "KALLSYMS_ALL") || strstr(notes, "addresses")),
		   "per-CPU stocks not found, and a line says why");
	}
	c2c_objects_free(&objs);
	fixture_close(&fx);
}

int main(int argc, char **argv)
{
	return tap_main(argc, argv);
}
