// SPDX-License-Identifier: GPL-2.0
/*
 * The contention state machine and perf's caller rules on hand-made event
 * sequences, with a small kallsyms table: the cases where perf's semantics
 * are not the obvious ones (nested begins, ends without begins, waits
 * credited to the end's call chain, 32-bit chain hashing, duplicate symbol
 * choice, lock functions skipped).
 */
#include <stdlib.h>
#include <string.h>
#include "lock/lockcon.h"
#include "lock/lockcon_perfdata.h"
#include "perf/perf_symbols.h"
#include "tests/tap.h"
#include "util/err.h"

#define K ((uint64_t)-128)	/* PERF_CONTEXT_KERNEL */
#define U ((uint64_t)-512)	/* PERF_CONTEXT_USER */

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T caller_a\n"
	"ffffffff81002000 t caller_b\n"
	"ffffffff81002000 T __pfx_caller_b_alias\n"	/* same address: the last one wins */
	"ffffffff81003000 T __pfx_schedule\n"
	"ffffffff81003000 T __sched_text_start\n"	/* survives: it comes last */
	"ffffffff81003010 T schedule\n"
	"ffffffff81003800 T __sched_text_end\n"
	"ffffffff81004000 T __pfx__raw_spin_lock\n"
	"ffffffff81004000 T __lock_text_start\n"
	"ffffffff81004010 T _raw_spin_lock\n"
	"ffffffff81004800 T __lock_text_end\n"
	"ffffffff81005000 T slowpath\n"
	"ffffffff81006000 T helper\n"
	"ffffffff81007000 r rodata_sym\n"		/* not a perf symbol type */
	"ffffffff81008000 D jiffies_lock\n";

/* perf 7.x's inline frames: 0x7f0000001000 is two cursor nodes. */
static int two_nodes_at_1000(void *arg, uint32_t pid, uint64_t ip)
{
	(void)arg, (void)pid;
	return ip == 0x7f0000001000 ? 2 : 1;
}

static struct lockcon_entry *entry(struct lockcon *lc, uint64_t key)
{
	return u64map_get(&lc->entries, key);
}

/* kallsyms above as perf reads it (main() parses it). */
static struct psyms ps;

/* slowpath, _raw_spin_lock, helper are skipped (3), schedule is a lock
 * function, caller_a is the caller. */
static uint64_t chain1[] = { K, 0xffffffff81005010, 0xffffffff81004020, 0xffffffff81006010,
			     0xffffffff81003020, 0xffffffff81001040, U, 0x7f0000001000 };
static uint64_t chain1_end[] = { K, 0xffffffff81005020, 0xffffffff81004020, 0xffffffff81006010,
				 0xffffffff81003020, 0xffffffff81001040, U, 0x7f0000001000 };
/* The same kernel part, a user address differing only above bit 32. */
static uint64_t chain2[] = { K, 0xffffffff81005010, 0xffffffff81004020, 0xffffffff81006010,
			     0xffffffff81003020, 0xffffffff81001040, U, 0x7f1100001000 };
static uint64_t chain3[] = { K, 0xffffffff81005010, 0xffffffff81004020, 0xffffffff81006010,
			     0xffffffff81002010 };

TEST(perf_symbol_rules)
{
	char name[128];

	ok(ps.have_lock_ranges, "lock text ranges from the section markers");
	ok(perf_symbols_format(&ps, 0xffffffff81002010, name, sizeof(name)) && !strcmp(name, "__pfx_caller_b_alias+0x10"),
	   "of two symbols at one address the later one names it (perf's fixup order)");
	ok(!perf_symbols_lookup(&ps, 0xffffffff81007010) || strcmp(perf_symbols_lookup(&ps, 0xffffffff81007010)->name, "rodata_sym"),
	   "rodata symbols are not perf symbols");
	ok(perf_symbols_is_lock_function(&ps, 0xffffffff81003020) && perf_symbols_is_lock_function(&ps, 0xffffffff81004020) &&
	   !perf_symbols_is_lock_function(&ps, 0xffffffff81005010), "sched and lock text are lock functions");
}

TEST(caller_and_chain_keys)
{
	struct lockcon lc;
	char name[128];
	uint64_t id1, id2;

	lockcon_init(&lc, LOCKCON_BY_CALLER, &ps);
	ok(lockcon_caller(&lc, chain1, 8, name, sizeof(name)) && !strcmp(name, "caller_a+0x40"),
	   "caller: 3 frames skipped, then the lock function, then caller_a+0x40");
	id1 = lockcon_chain_id(&lc, chain1, 8);
	id2 = lockcon_chain_id(&lc, chain2, 8);
	ok(id1 == id2, "chains differing above bit 32 of a frame share a key (perf hashes to u32)");
	ok(id1 == lockcon_chain_id(&lc, chain1_end, 8), "the end's chain differs only in skipped frames: same key");
	ok(lockcon_chain_id(&lc, chain3, 5) != id1, "a different caller: another key");
	lockcon_free(&lc);
}

TEST(inline_user_frames_in_key)
{
	/* chain1 with one more user frame after the inlined address. */
	uint64_t longer[] = { K, 0xffffffff81005010, 0xffffffff81004020, 0xffffffff81006010,
			      0xffffffff81003020, 0xffffffff81001040, U, 0x7f0000001000, 0x7f0000002000 };
	uint64_t no_user[] = { K, 0xffffffff81005010, 0xffffffff81004020, 0xffffffff81006010,
			       0xffffffff81003020, 0xffffffff81001040 };
	struct lockcon lc;
	uint64_t plain, id1;

	lockcon_init(&lc, LOCKCON_BY_CALLER, &ps);
	id1 = lockcon_chain_id(&lc, chain1, 8);
	plain = lockcon_chain_id(&lc, longer, 9);
	lc.user_nodes = two_nodes_at_1000;
	ok(lockcon_chain_id(&lc, chain1, 8) == lockcon_chain_id(&lc, no_user, 6) &&
	   lockcon_chain_id(&lc, chain1, 8) != id1,
	   "an address that is two nodes (one inlined level) drops out of the key (hashed twice)");
	lc.max_stack = 7;
	ok(lockcon_chain_id(&lc, longer, 9) != lockcon_chain_id(&lc, no_user, 6),
	   "--max-stack counts addresses, not nodes: the 7th address stays in the key");
	lc.user_nodes = NULL;
	ok(lockcon_chain_id(&lc, longer, 9) == plain && plain != lockcon_chain_id(&lc, no_user, 6),
	   "without inline frames the user addresses count once each");
	lockcon_free(&lc);
}

/* The caller view's state machine: nested begins, ends without begins,
 * waits credited to the end's call chain. */
TEST(caller_view_begins_and_ends)
{
	struct lockcon lc;
	uint64_t id1;

	lockcon_init(&lc, LOCKCON_BY_CALLER, &ps);
	id1 = lockcon_chain_id(&lc, chain1, 8);
	/* begin, nested begin, end: one contention, the first begin's time. */
	lockcon_begin(&lc, 10, 1000, 0xaaaa, 1, chain1, 8);
	lockcon_begin(&lc, 10, 1500, 0xaaaa, 1, chain1, 8);
	lockcon_end(&lc, 10, 3000, 0xaaaa, chain1_end, 8);
	ok(entry(&lc, id1) && entry(&lc, id1)->contended == 1 && entry(&lc, id1)->wait_total == 2000 &&
	   lc.nested == 1, "a nested begin is ignored: 1 contention of 2000 ns");
	/* An end after an end: the entry becomes "broken" (perf's bad count). */
	lockcon_end(&lc, 10, 3100, 0xaaaa, chain1_end, 8);
	ok(entry(&lc, id1)->broken && lockcon_bad_total(&lc) == 1, "an end without a begin counts as bad");
	/* A wait is credited to the end's key. */
	lockcon_begin(&lc, 11, 5000, 0xbbbb, 1, chain3, 5);
	lockcon_end(&lc, 11, 5600, 0xbbbb, chain1, 8);
	ok(entry(&lc, lockcon_chain_id(&lc, chain3, 5))->contended == 1 &&
	   entry(&lc, lockcon_chain_id(&lc, chain3, 5))->wait_total == 0 &&
	   entry(&lc, id1)->wait_total == 2600 && entry(&lc, id1)->acquired == 2,
	   "the wait goes to the end's chain, the contention to the begin's");
	ok(lockcon_avg(entry(&lc, id1)) == 1300, "avg wait = total / acquisitions (2600 / 2)");
	{
		size_t n;
		struct lockcon_entry **v = lockcon_sorted(&lc, false, &n);

		ok(n == 1 && v[0]->key == id1, "only entries that waited are listed (as perf prints)");
		free(v);
	}
	lockcon_free(&lc);
}

TEST(thread_view_waits)
{
	struct lockcon lc;

	lockcon_init(&lc, LOCKCON_BY_THREAD, &ps);
	lockcon_begin(&lc, 7, 100, 0x1, 32, NULL, 0);
	lockcon_begin(&lc, 8, 100, 0x1, 32, NULL, 0);
	lockcon_end(&lc, 8, 400, 0x1, NULL, 0);
	lockcon_end(&lc, 7, 700, 0x1, NULL, 0);
	ok(entry(&lc, 7)->wait_total == 600 && entry(&lc, 8)->wait_total == 300, "thread view: per tid");
	ok(entry(&lc, 7)->hist && entry(&lc, 7)->hist->count == 1, "waits also go into a histogram");
	/* A probe inside the wait (a stack capture) moves its start. */
	lockcon_begin(&lc, 9, 1000, 0x2, 32, NULL, 0);
	lockcon_rebase(&lc, 9, 0x2, 1400);
	lockcon_rebase(&lc, 9, 0x3, 1400);
	lockcon_end(&lc, 9, 1500, 0x2, NULL, 0);
	ok(entry(&lc, 9)->wait_total == 100, "a rebased wait counts from the new start (100 ns, not 500)");
	/* A spinlock begun twice by one task lost an end: restart, not add. */
	lc.restart_spin = true;
	lockcon_begin(&lc, 12, 1000, 0x4, 1, NULL, 0);
	lockcon_begin(&lc, 12, 9000, 0x4, 1, NULL, 0);
	lockcon_end(&lc, 12, 9100, 0x4, NULL, 0);
	ok(entry(&lc, 12)->wait_total == 100 && lc.restarted == 1, "restart_spin: a lost end does not make a long wait");
	lockcon_begin(&lc, 13, 1000, 0x5, 32, NULL, 0);
	lockcon_begin(&lc, 13, 1500, 0x5, 32, NULL, 0);
	lockcon_end(&lc, 13, 2000, 0x5, NULL, 0);
	ok(entry(&lc, 13)->wait_total == 1000, "but a mutex's spin-then-sleep begins are one wait");
	lockcon_free(&lc);
}

TEST(lock_view_static_symbols)
{
	struct lockcon lc;

	lockcon_init(&lc, LOCKCON_BY_LOCK, &ps);
	lockcon_begin(&lc, 7, 100, 0xffffffff81008000, 1, NULL, 0);
	lockcon_end(&lc, 7, 200, 0xffffffff81008000, NULL, 0);
	ok(!strcmp(entry(&lc, 0xffffffff81008000)->name, "jiffies_lock"), "lock view: static locks by symbol");
	lockcon_free(&lc);
}

/* Bounded state: a live tracer drops finished pairs. */
TEST(live_tracer_drops_finished_pairs)
{
	struct lockcon lc;
	size_t pairs = 0, i = 0;
	void *v;

	lockcon_init(&lc, LOCKCON_BY_LOCK, &ps);
	lc.keep_acquired = false;
	for (int k = 0; k < 1000; k++) {
		lockcon_begin(&lc, 100 + k, 1000, 0x5000 + k, 1, NULL, 0);
		lockcon_end(&lc, 100 + k, 1010, 0x5000 + k, NULL, 0);
	}
	while (u64map_next(&lc.threads, &i, NULL, &v))
		pairs += *(uint32_t *)v;
	is_int(pairs, 0, "without keep_acquired no finished pair stays in memory");
	lockcon_free(&lc);
}

/* A marker that loses to a later symbol at its address disables the
 * lock-function test, as in perf. */
TEST(shadowed_sched_marker)
{
	struct psyms ps2;
	char err[256];

	if (!perf_symbols_parse(&ps2, xstrdup("ffffffff81003000 T __sched_text_start\n"
				       "ffffffff81003000 T schedule\n"
				       "ffffffff81003800 T __sched_text_end\n"), "k2", err, sizeof(err)))
		ok(!ps2.have_lock_ranges, "a shadowed __sched_text_start turns the lock-function test off");
	perf_symbols_free(&ps2);
}

/* Thread names as perf lock contention -t prints them. */
TEST(thread_names)
{
	struct lockcon_file f;
	char buf[32];

	memset(&f, 0, sizeof(f));
	u64map_init(&f.comms);
	ok(!strcmp(lockcon_comm(&f, 0, buf, sizeof(buf)), "swapper") &&
	   !strcmp(lockcon_comm(&f, (uint32_t)-1, buf, sizeof(buf)), "Unknown") &&
	   !strcmp(lockcon_comm(&f, 4242, buf, sizeof(buf)), ":4242"),
	   "thread names: tid 0 swapper, tid -1 Unknown (a sample without a task), else :tid");
	u64map_free(&f.comms);
}

/* perf's default --stack-skip by the version in the file's header. */
TEST(stack_skip_by_perf_version)
{
	ok(lockcon_stack_skip_of("6.1.187") == 3 && lockcon_stack_skip_of("5.19.0") == 3 &&
	   lockcon_stack_skip_of("6.1.rc4.gabcdef") == 3, "perf before 6.2 skips 3 frames");
	ok(lockcon_stack_skip_of("6.2.0") == 4 && lockcon_stack_skip_of("6.12.48") == 4 &&
	   lockcon_stack_skip_of("7.3.4") == 4 && lockcon_stack_skip_of("6.2.rc3.g1234") == 4,
	   "perf 6.2 and later skip 4 (6.12 is not before 6.2)");
	ok(lockcon_stack_skip_of(NULL) == -1 && lockcon_stack_skip_of("") == -1 &&
	   lockcon_stack_skip_of("perf") == -1 && lockcon_stack_skip_of("7") == -1,
	   "no version, or not MAJOR.MINOR: unknown");
}

int main(int argc, char **argv)
{
	char err[256];
	int rc;

	if (perf_symbols_parse(&ps, xstrdup(kallsyms), "test-kallsyms", err, sizeof(err)))
		tap_skip_all(err);
	rc = tap_main(argc, argv);
	perf_symbols_free(&ps);
	return rc;
}
