// SPDX-License-Identifier: GPL-2.0
/*
 * lines-truth: the ground truth of the lines plugin, run inside a guest
 * (static: it needs nothing of the guest).  Two threads, pinned to two
 * vCPUs, for SECONDS each case, each case in its own window of the plugin
 * (c2c/lines_window.h):
 *   false   each thread increments its own field of one 64-byte line
 *           (offsets 0 and 32): false sharing, no true sharing;
 *   padded  the same two fields on two lines of their own: no sharing;
 *   true    both threads add to one counter (lock xadd): true sharing.
 *
 *   lines-truth [-s SECONDS] [-c CPU_A,CPU_B] [-n] CASE...   (CASE: false, padded, true)
 *   -n: open no window (a user's own program, which knows nothing of the
 *   plugin: vm --lines-window command opens one around it)
 *   lines-truth --range     the data's addresses, LO-HI: the plugin's detail=
 *                           (linked static, not PIE: the same in every run)
 *
 * For each case one line on stdout, for the host to find the lines in the
 * plugin's output by their virtual addresses:
 *   case=false a=0x4c6040 b=0x4c6060 n_a=123456 n_b=120000
 * The start and stop flags sit on lines of their own, read by the threads
 * and written by the main thread once each: their few transfers are not on
 * the data lines.  Exit 2 with one line on a bad argument or a thread
 * that cannot be pinned.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "c2c/lines_window.h"

#define LINE 64

/* Every object on its own line(s). */
static struct {
	volatile uint64_t a;		/* offset 0 */
	char pad[24];
	volatile uint64_t b;		/* offset 32 */
} __attribute__((aligned(LINE))) same_line;
static struct {
	volatile uint64_t v;
} __attribute__((aligned(LINE))) padded[2];
static volatile uint64_t shared_counter __attribute__((aligned(LINE)));
static volatile int go __attribute__((aligned(LINE)));
static volatile int stop __attribute__((aligned(LINE)));
static volatile int ready[2][LINE / sizeof(int)] __attribute__((aligned(LINE)));

enum kind { FALSE_SHARING, PADDED, TRUE_SHARING };

struct worker {
	int cpu, idx;
	enum kind kind;
	uint64_t n;
	int err;
	pthread_t t;
} __attribute__((aligned(LINE)));

static void *work(void *arg)
{
	struct worker *w = arg;
	volatile uint64_t *mine;
	cpu_set_t set;
	uint64_t n = 0;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->err = sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
	mine = w->kind == FALSE_SHARING ? (w->idx ? &same_line.b : &same_line.a) : &padded[w->idx].v;
	ready[w->idx][0] = 1;
	while (!go)
		;
	if (w->kind == TRUE_SHARING) {
		while (!stop) {
			__atomic_fetch_add(&shared_counter, 1, __ATOMIC_RELAXED);
			n++;
		}
	} else {
		while (!stop) {
			(*mine)++;
			n++;
		}
	}
	w->n = n;
	return NULL;
}

static bool no_window;

static int run_case(enum kind kind, const char *name, const int cpus[2], double seconds)
{
	struct worker w[2];
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	const volatile void *a, *b;

	go = stop = 0;
	ready[0][0] = ready[1][0] = 0;
	for (int i = 0; i < 2; i++) {
		w[i] = (struct worker){ .cpu = cpus[i], .idx = i, .kind = kind };
		if (pthread_create(&w[i].t, NULL, work, &w[i])) {
			fprintf(stderr, "lines-truth: cannot start a thread\n");
			return 2;
		}
	}
	while (!ready[0][0] || !ready[1][0])
		sched_yield();
	if (!no_window)
		lines_window_open();
	go = 1;
	nanosleep(&ts, NULL);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(w[i].t, NULL);
	if (!no_window)
		lines_window_close();
	for (int i = 0; i < 2; i++)
		if (w[i].err) {
			fprintf(stderr, "lines-truth: cannot pin a thread to CPU %d: %s\n", w[i].cpu, strerror(w[i].err));
			return 2;
		}
	a = kind == FALSE_SHARING ? (const volatile void *)&same_line.a :
	    kind == PADDED	  ? (const volatile void *)&padded[0].v :
				    (const volatile void *)&shared_counter;
	b = kind == FALSE_SHARING ? (const volatile void *)&same_line.b :
	    kind == PADDED	  ? (const volatile void *)&padded[1].v :
				    (const volatile void *)&shared_counter;
	printf("case=%s a=%p b=%p n_a=%llu n_b=%llu cpus=%d,%d\n", name, (const void *)a, (const void *)b,
	       (unsigned long long)w[0].n, (unsigned long long)w[1].n, cpus[0], cpus[1]);
	fflush(stdout);
	return 0;
}

static int usage(const char *why)
{
	fprintf(stderr, "lines-truth: %s (usage: lines-truth [-s SECONDS] [-c CPU_A,CPU_B] [-n] false|padded|true...)\n",
		why);
	return 2;
}

int main(int argc, char **argv)
{
	double seconds = 2;
	int cpus[2] = { 1, 2 }, i = 1, rc = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 3)
		cpus[0] = 0, cpus[1] = 1;
	if (argc == 2 && !strcmp(argv[1], "--range")) {
		uintptr_t lo = (uintptr_t)&same_line, hi = (uintptr_t)(&same_line + 1);
		uintptr_t p[] = { (uintptr_t)padded, (uintptr_t)(padded + 2), (uintptr_t)&shared_counter,
				  (uintptr_t)(&shared_counter + 1) };

		for (unsigned k = 0; k < 4; k++) {
			lo = p[k] < lo ? p[k] : lo;
			hi = p[k] > hi ? p[k] : hi;
		}
		printf("%#lx-%#lx\n", (unsigned long)lo, (unsigned long)hi);
		return 0;
	}
	for (; i < argc && argv[i][0] == '-'; i++) {
		char *end;

		if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			seconds = strtod(argv[++i], &end);
			if (*end || seconds <= 0 || seconds > 3600)
				return usage("-s: not a number of seconds from 0 to 3600");
		} else if (!strcmp(argv[i], "-n")) {
			no_window = true;
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			if (sscanf(argv[++i], "%d,%d", &cpus[0], &cpus[1]) != 2 || cpus[0] < 0 || cpus[1] < 0 ||
			    cpus[0] == cpus[1] || cpus[0] >= ncpu || cpus[1] >= ncpu)
				return usage("-c: not two different online CPUs A,B");
		} else {
			return usage("unknown option");
		}
	}
	if (i == argc)
		return usage("no case");
	for (; i < argc && !rc; i++) {
		if (!strcmp(argv[i], "false"))
			rc = run_case(FALSE_SHARING, "false", cpus, seconds);
		else if (!strcmp(argv[i], "padded"))
			rc = run_case(PADDED, "padded", cpus, seconds);
		else if (!strcmp(argv[i], "true"))
			rc = run_case(TRUE_SHARING, "true", cpus, seconds);
		else
			return usage("a case is false, padded or true");
	}
	return rc;
}
