// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_bench: Waiman Long's 2021 kmem accounting benchmark as a module
 * (series "mm/memcg: Reduce kmemcache memory accounting overhead", v1
 * <20210409231842.8840-1-longman@redhat.com>): a loop of
 * kmem_cache_alloc() and kmem_cache_free() of one small object, from a
 * cache created with SLAB_ACCOUNT (each object charged to the current
 * task's memcg through the per-CPU obj stock) and from one without.
 *
 * Two ways to run the loop:
 *  - at load, as the seed's module did: `insmod kmem_bench.ko loops=N`
 *    runs N iterations on each cache in insmod's context and prints
 *    "kmem_bench: accounted: N loops of S bytes in T ns" (then
 *    "unaccounted: ...") to the kernel log;
 *  - on demand (the lab's charge driver, lab/drivers/charge/kmod.c): a
 *    write of a decimal count N to /proc/kmem_bench/accounted or
 *    /proc/kmem_bench/unaccounted runs N iterations in the writer's
 *    context, so that the accounted objects are charged to the writer's
 *    memcg; the write returns its length once the loop ran, or -ENOMEM
 *    when an allocation failed, -EINTR on a fatal signal.  A read gives
 *    "LOOPS NS SIZE\n": the iterations every write to that file ran so
 *    far, their nanoseconds (ktime_get_ns() around each write's loop),
 *    and the object size.
 *
 * Parameters: loops (at load, default 0: none), size (bytes per object,
 * default 64, the seed's).  The loop yields the CPU (cond_resched) every
 * 4096 iterations, so that a long loop does not trip the soft-lockup
 * watchdog; between two yields it is the seed's loop.
 *
 * Builds against any kernel from 5.10 on (proc_ops: 5.6; the five-argument
 * kmem_cache_create() still works after 6.12's struct kmem_cache_args).
 */
#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>

/* The /proc entry's data: PDE_DATA() until 5.17, pde_data() since. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define kb_pde_data(inode) PDE_DATA(inode)
#else
#define kb_pde_data(inode) pde_data(inode)
#endif

static unsigned long loops;
module_param(loops, ulong, 0444);
MODULE_PARM_DESC(loops, "alloc/free pairs on each cache at load (0: none; the seed's: 100000000)");

static unsigned int size = 64;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "object size in bytes (8..4096; the seed's: 64)");

#define KB_YIELD_EVERY 4096

struct kb_cache {
	const char *name;	/* the /proc file's */
	const char *slab;	/* the slab cache's (/proc/slabinfo) */
	slab_flags_t flags;
	struct kmem_cache *cache;
	atomic64_t loops, ns;	/* every write's, so far */
};

static struct kb_cache kb_caches[] = {
	{ .name = "accounted", .slab = "kmem_bench_accounted", .flags = SLAB_ACCOUNT },
	{ .name = "unaccounted", .slab = "kmem_bench_unaccounted", .flags = 0 },
};

static struct proc_dir_entry *kb_dir;

/* n alloc/free pairs on c; 0, -ENOMEM, or -EINTR (the count done in *done). */
static int kb_loop(struct kb_cache *c, u64 n, u64 *done, u64 *ns)
{
	u64 t0 = ktime_get_ns(), i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		void *p = kmem_cache_alloc(c->cache, GFP_KERNEL);

		if (!p) {
			ret = -ENOMEM;
			break;
		}
		kmem_cache_free(c->cache, p);
		if ((i & (KB_YIELD_EVERY - 1)) == KB_YIELD_EVERY - 1) {
			if (fatal_signal_pending(current)) {
				i++;
				ret = -EINTR;
				break;
			}
			cond_resched();
		}
	}
	*ns = ktime_get_ns() - t0;
	*done = i;
	atomic64_add(i, &c->loops);
	atomic64_add(*ns, &c->ns);
	return ret;
}

static ssize_t kb_write(struct file *file, const char __user *buf, size_t len, loff_t *pos)
{
	struct kb_cache *c = kb_pde_data(file_inode(file));
	u64 n, done, ns;
	int ret = kstrtou64_from_user(buf, len, 10, &n);

	if (ret)
		return ret;
	ret = kb_loop(c, n, &done, &ns);
	return ret ? ret : (ssize_t)len;
}

static ssize_t kb_read(struct file *file, char __user *buf, size_t len, loff_t *pos)
{
	struct kb_cache *c = kb_pde_data(file_inode(file));
	char line[80];
	int n = scnprintf(line, sizeof(line), "%llu %llu %u\n", (unsigned long long)atomic64_read(&c->loops),
			  (unsigned long long)atomic64_read(&c->ns), size);

	return simple_read_from_buffer(buf, len, pos, line, n);
}

static const struct proc_ops kb_ops = {
	.proc_write = kb_write,
	.proc_read = kb_read,
	.proc_lseek = default_llseek,
};

static void kb_destroy(void)
{
	int i;

	if (kb_dir)
		proc_remove(kb_dir);
	for (i = 0; i < ARRAY_SIZE(kb_caches); i++)
		kmem_cache_destroy(kb_caches[i].cache);
}

static int __init kb_init(void)
{
	int i;

	if (size < 8 || size > 4096) {
		pr_err("kmem_bench: size=%u: want 8..4096 bytes\n", size);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(kb_caches); i++) {
		struct kb_cache *c = &kb_caches[i];

		c->cache = kmem_cache_create(c->slab, size, 0, c->flags, NULL);
		if (!c->cache) {
			kb_destroy();
			return -ENOMEM;
		}
	}
	kb_dir = proc_mkdir("kmem_bench", NULL);
	if (!kb_dir) {
		kb_destroy();
		return -ENOMEM;
	}
	for (i = 0; i < ARRAY_SIZE(kb_caches); i++)
		if (!proc_create_data(kb_caches[i].name, 0600, kb_dir, &kb_ops, &kb_caches[i])) {
			kb_destroy();
			return -ENOMEM;
		}
	for (i = 0; loops && i < ARRAY_SIZE(kb_caches); i++) {
		u64 done, ns;
		int ret = kb_loop(&kb_caches[i], loops, &done, &ns);

		pr_info("kmem_bench: %s: %llu loops of %u bytes in %llu ns\n", kb_caches[i].name,
			(unsigned long long)done, size, (unsigned long long)ns);
		if (ret) {
			kb_destroy();
			return ret;
		}
	}
	return 0;
}

static void __exit kb_exit(void)
{
	kb_destroy();
}

module_init(kb_init);
module_exit(kb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmem_cache_alloc/free loop, accounted (SLAB_ACCOUNT) and not (memcg-lab)");
