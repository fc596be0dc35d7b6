/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock contention from a perf.data recorded by `perf lock record` (or
 * `memcg-lab lock record --perf`): lock:contention_begin/end samples fed to
 * lock/lockcon.h in perf's delivery order, plus the thread names perf
 * lock contention -t would print (the last COMM record of each thread,
 * "swapper" for tid 0, ":<tid>" for threads without one: perf lock does not
 * follow forks).  In the caller view of a perf 7.x file, the MMAP/MMAP2
 * records too, for the inline frames of user addresses.
 */
#ifndef LAB_LOCK_LOCKCON_PERFDATA_H
#define LAB_LOCK_LOCKCON_PERFDATA_H

#include <stddef.h>
#include "lock/lockcon.h"
#include "perf/perfdata.h"
#include "perf/tp_field.h"
#include "perf/user_inlines.h"

struct lockcon_file {
	struct perf_file pf;
	struct u64map comms;	/* tid -> char * */
	uint64_t nbegin, nend;	/* lock samples seen */
	const struct perfdata_evsel *begin, *end;
	struct tp_field b_addr, b_flags, e_addr;
	/* User mappings for perf 7.x's inline frames (NULL: not needed). */
	struct user_inlines *uinl;
};

/*
 * Whether perf of that version (HEADER_VERSION) puts the inline frames of
 * user addresses into lock contention call chains: checked here on 7.2.13
 * and 7.3.4 (yes), 6.12.117 and 6.1.187 (no); 7.0 and later is assumed.
 */
bool lockcon_perf_adds_inlines(const char *version);

/*
 * Opens path and runs every lock sample through lc (already set up with
 * its view and symbols).  0, or -1 with one line in err: unreadable or
 * unsupported file, or no lock:contention_begin/end events in it.
 */
int lockcon_read_perfdata(struct lockcon_file *f, const char *path, struct lockcon *lc,
			  char *err, size_t errlen);
/* The same in two steps, so that a caller can load symbols meanwhile. */
int lockcon_open_perfdata(struct lockcon_file *f, const char *path, char *err, size_t errlen);
int lockcon_walk_perfdata(struct lockcon_file *f, struct lockcon *lc, char *err, size_t errlen);
/*
 * perf lock contention's default --stack-skip for a perf of that version
 * (HEADER_VERSION, "6.1.187", "7.3.4", "6.2.rc3.g1234"): 3 before 6.2,
 * 4 from 6.2 on (commit "perf lock contention: Increase default stack skip
 * to 4", Oct 2022); -1 when version is NULL or not "MAJOR.MINOR...".
 */
int lockcon_stack_skip_of(const char *version);
/* perf's thread name for tid (":tid" when it never had a COMM). */
const char *lockcon_comm(const struct lockcon_file *f, uint32_t tid, char *buf, size_t n);
void lockcon_file_close(struct lockcon_file *f);

#endif
