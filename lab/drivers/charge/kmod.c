// SPDX-License-Identifier: GPL-2.0
/*
 * The kmem mode with the seed's module (kmod.h): finding kmem_bench.ko for
 * this kernel, loading it with finit_module(2) and unloading it, reading
 * its counters, and the worker loop that has it run its alloc/free pairs
 * in the worker's context, so that the accounted cache charges the
 * worker's memcg.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "drivers/charge/kmod.h"
#include "drivers/charge/loops.h"
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/results.h"

int kmod_vermagic_release(const char *path, char *rel, size_t n)
{
	size_t len;
	char *data = read_text(path, &len), *p = NULL;

	if (!data)
		return -1;
	for (size_t off = 0; off + 9 < len; off++)
		if (!memcmp(data + off, "vermagic=", 9) && (off == 0 || data[off - 1] == '\0')) {
			p = data + off + 9;
			break;
		}
	if (!p) {
		free(data);
		return -1;
	}
	snprintf(rel, n, "%.*s", (int)strcspn(p, " \n"), p);
	free(data);
	return 0;
}

int kmod_resolve(const char *opt, char *path, size_t pathlen, char *built, size_t builtlen, char *why,
		 size_t whylen)
{
	struct utsname u;
	char *b, *txt;

	path[0] = built[0] = why[0] = '\0';
	uname(&u);
	if (opt && !strcmp(opt, "none")) {
		snprintf(why, whylen, "--module none");
		return 0;
	}
	if (!opt || !strcmp(opt, "auto")) {
		snprintf(path, pathlen, "%s/build/kmod/%s/" KMOD_FILE, lab_root_dir(), u.release);
		if (access(path, R_OK)) {
			char hdr[300];

			snprintf(hdr, sizeof(hdr), "/lib/modules/%s/build", u.release);
			if (access(hdr, F_OK))
				snprintf(why, whylen, "no " KMOD_NAME " module for kernel %s: no headers (no %s); in a "
					 "guest vm --kmod brings one", u.release, hdr);
			else
				snprintf(why, whylen, "no " KMOD_NAME " module for kernel %s: make kmod builds it against "
					 "%s", u.release, hdr);
			path[0] = '\0';
			return 0;
		}
	} else {
		snprintf(path, pathlen, "%s", opt);
		if (access(path, R_OK)) {
			snprintf(why, whylen, "cannot read it: %s", strerror(errno));
			return -1;
		}
	}
	/* built.txt beside it: what kmod.sh built it against. */
	b = strrchr(path, '/') ? xasprintf("%.*s/built.txt", (int)(strrchr(path, '/') - path), path) :
				 xstrdup("built.txt");
	txt = read_text(b, NULL);
	if (txt) {
		txt[strcspn(txt, "\n")] = '\0';
		snprintf(built, builtlen, "%s", txt);
	}
	free(txt);
	free(b);
	return 1;
}

int kmod_read(const char *cache, struct kmod_counts *c)
{
	char path[128], buf[128];
	unsigned long long loops, ns;
	int fd, n;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), KMOD_PROC "/%s", cache);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %u", &loops, &ns, &c->size) != 3)
		return -EPROTO;
	c->loops = loops;
	c->ns = ns;
	c->ok = true;
	return 0;
}

static int unload_handle = -1;

/* The undo step: no malloc (it may run from a signal handler). */
static void unload_step(void *arg)
{
	(void)arg;
	syscall(SYS_delete_module, KMOD_NAME, O_NONBLOCK);
}

int kmod_load(const char *path, unsigned int size, bool *loaded_here, char *err, size_t errlen)
{
	struct kmod_counts c;
	struct utsname u;
	char params[32], rel[128] = "";
	int fd, e;

	*loaded_here = false;
	uname(&u);
	if (!kmod_read("accounted", &c)) {
		if (c.size != size)
			return snprintf(err, errlen, KMOD_NAME " is loaded already with size=%u, not %u: rmmod "
					KMOD_NAME " first", c.size, size), -1;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
	snprintf(params, sizeof(params), "size=%u", size);
	cleanup_hold();
	e = syscall(SYS_finit_module, fd, params, 0) ? errno : 0;
	if (!e || e == EEXIST) {
		*loaded_here = !e;
		if (!e)
			unload_handle = cleanup_push(unload_step, NULL, "the " KMOD_NAME " module");
	}
	cleanup_release();
	close(fd);
	if (e && e != EEXIST) {
		kmod_vermagic_release(path, rel, sizeof(rel));
		snprintf(err, errlen, "%s: the kernel refused the module: %s (%s%s, this kernel %s%s)", path,
			 strerror(e), rel[0] ? "built for " : "no vermagic in it", rel, u.release,
			 e == EPERM ? "; loading a module needs root and a kernel without lockdown" :
			 e == EKEYREJECTED || e == ENOKEY ? "; the kernel enforces module signatures" : "");
		return -1;
	}
	if (kmod_read("accounted", &c) || kmod_read("unaccounted", &c))
		return snprintf(err, errlen, "%s loaded, but " KMOD_PROC "/accounted and unaccounted are not there: "
				"another module of that name?", path), -1;
	return 0;
}

void kmod_unload(void)
{
	if (unload_handle >= 0)
		cleanup_pop(unload_handle, true);
	unload_handle = -1;
}

struct kmod_worker {
	int fd;
	char batch[24];
	size_t len;
	uint64_t n;
};

static void kmod_teardown(void *state)
{
	struct kmod_worker *k = state;

	close(k->fd);
	free(k);
}

static int kmod_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;
	struct kmod_worker *k = calloc(1, sizeof(*k));
	char path[64];
	int e;

	if (!k)
		return -ENOMEM;
	snprintf(path, sizeof(path), KMOD_PROC "/%s", o->kmod_accounted ? "accounted" : "unaccounted");
	k->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (k->fd < 0) {
		e = errno;
		snprintf(w->err, sizeof(w->err), "%s: %s", path, strerror(e));
		free(k);
		return -e;
	}
	k->n = (uint64_t)o->kmod_batch;
	k->len = (size_t)snprintf(k->batch, sizeof(k->batch), "%" PRIu64, k->n);
	*state = k;
	return 0;
}

static int kmod_loop(void *state, uint64_t *count, const int *stop)
{
	struct kmod_worker *k = state;

	while (!hstop(stop)) {
		if (write(k->fd, k->batch, k->len) != (ssize_t)k->len)
			return -errno;
		hcount_add(count, k->n);
	}
	return 0;
}

const struct hloop loop_kmod = {
	.name = "kmem",
	.what = "kmem_cache_alloc()+kmem_cache_free() of one object in the " KMOD_NAME " module's loop (the seed's), "
		"a batch per write() to " KMOD_PROC "/accounted (SLAB_ACCOUNT: charged to the worker's memcg "
		"through the obj stock) or /unaccounted (a plain cache)",
	.unit = "allocs",
	.rate_unit = "ops/s",
	.rate_scale = 1,
	.setup = kmod_setup,
	.loop = kmod_loop,
	.teardown = kmod_teardown,
};
