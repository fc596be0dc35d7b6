// SPDX-License-Identifier: GPL-2.0
/*
 * lines-truth: the ground truth of the lines plugin, run inside a guest
 * (static: it needs nothing of the guest).  Two threads, pinned to two
 * vCPUs, for SECONDS each case, each case in its own window of the plugin
 * (c2c/lines_window.h):
 *   false   each thread increments its own field of one 64-byte line
 *           (offsets 0 and 32): false sharing, no true sharing;
 *   padded  the same two fields on two lines of their own: no sharing;
 *   true    both threads add to one counter (lock xadd): true sharing;
 *   pair    each thread increments its own field of struct truth_pair,
 *           whose layout is the build's (TRUTH_GAP, the offset of b):
 *             lines-truth           b at 32: one 64-byte line, false sharing
 *             lines-truth-adjacent  b at 64: adjacent lines of one 128-byte
 *                                   pair: none at 64 bytes, false sharing
 *                                   at 128 (adjacent-line prefetch)
 *             lines-truth-far       b at 128: none at 64 nor at 128
 *           One struct name in every build, so that `lines predict` can
 *           replay one build's trace on another's layout (its BTF,
 *           build/tests/tools/NAME.btf) and set it beside the other
 *           build's measured counts, field by field.
 *
 *   lines-truth [-s SECONDS] [-c CPU_A,CPU_B] [-n] [-b BTF] CASE...
 *           (CASE: false, padded, true, pair)
 *   -n: open no window (a user's own program, which knows nothing of the
 *   plugin: vm --lines-window command opens one around it)
 *   -b BTF: under vm --lines (MEMCG_LAB_LINES_DIR), name the pair case's
 *   object for the host as the lab names the kernel's (lab/c2c/README):
 *   per window a row of windows.tsv, the struct truth_pair in
 *   window-objects.tsv, the increments in window-ops.tsv (unit
 *   "increments"), and BTF (this build's, made by pahole from its DWARF)
 *   copied as objects.btf, which names the objects in place of the
 *   kernel's BTF
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
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "c2c/lines_window.h"

#define LINE 64
/* The offset of truth_pair.b: 32 (one line), 64 (adjacent lines of one
 * 128-byte pair) or 128 (two pairs); the Makefile builds each. */
#ifndef TRUTH_GAP
#define TRUTH_GAP 32
#endif
#if TRUTH_GAP == 32
#define TRUTH_BUILD "lines-truth"
#elif TRUTH_GAP == 64
#define TRUTH_BUILD "lines-truth-adjacent"
#elif TRUTH_GAP == 128
#define TRUTH_BUILD "lines-truth-far"
#else
#error TRUTH_GAP is 32, 64 or 128
#endif

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
/* 128-byte aligned: its 128-byte pair(s) hold nothing else. */
struct truth_pair {
	volatile uint64_t a;
	volatile uint64_t b __attribute__((aligned(TRUTH_GAP)));
} __attribute__((aligned(2 * LINE)));
static struct truth_pair pair;
static volatile int go __attribute__((aligned(LINE)));
static volatile int stop __attribute__((aligned(LINE)));
static volatile int ready[2][LINE / sizeof(int)] __attribute__((aligned(LINE)));

enum kind { FALSE_SHARING, PADDED, TRUE_SHARING, PAIR };

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
	mine = w->kind == FALSE_SHARING ? (w->idx ? &same_line.b : &same_line.a) :
	       w->kind == PAIR		? (w->idx ? &pair.b : &pair.a) :
					  &padded[w->idx].v;
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
static const char *btf_path;

/* MEMCG_LAB_LINES_DIR/NAME, appended to (its header first when new). */
static int append(const char *name, const char *header, const char *row)
{
	const char *dir = getenv("MEMCG_LAB_LINES_DIR");
	char path[4096];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "a");
	if (!f)
		return -1;
	rc = (ftell(f) == 0 && fputs(header, f) == EOF) || fputs(row, f) == EOF;
	return fclose(f) || rc ? -1 : 0;
}

/* The rows of windows.tsv so far: the plugin's number of the next window
 * (the lab's windows.tsv lists every window of the run, in order). */
static int next_window(void)
{
	char path[4096], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/windows.tsv", getenv("MEMCG_LAB_LINES_DIR"));
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && strncmp(line, "index\t", 6))
			n++;
	fclose(f);
	return n;
}

/* BTF as DIR/objects.btf (once). */
static int copy_btf(void)
{
	char path[4096], buf[65536];
	int in, out, rc = 0;
	ssize_t n;

	/* The directory is made by whoever writes there first (vm.sh moves it
	 * back to the host with the payload). */
	if (mkdir(getenv("MEMCG_LAB_LINES_DIR"), 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/objects.btf", getenv("MEMCG_LAB_LINES_DIR"));
	in = open(btf_path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	close(in);
	return close(out) || rc ? -1 : 0;
}

/*
 * The pair case's window as the lab writes its own (c2c/lines_session.c):
 * its row in windows.tsv, its object in window-objects.tsv, before the
 * opening; its increments in window-ops.tsv after the closing.
 */
static int announce(int index, const char *name, bool closed, uint64_t ops)
{
	char row[512];

	if (closed) {
		snprintf(row, sizeof(row), "%d\t%llu\tincrements\n", index, (unsigned long long)ops);
		return append("window-ops.tsv", "window\tops\tunit\n", row);
	}
	snprintf(row, sizeof(row), "%d\t%s\tlines-truth\t0\t%d\t0.000\t0.000\t1\t0\n", index, name, (int)getpid());
	if (append("windows.tsv", "# memcg-lab lines-windows 1\nindex\tlabel\twho\trepeat\tpid\tstart_s\tlen_s\t"
		   "objects\tranges\n", row))
		return -1;
	snprintf(row, sizeof(row), "%d\ttruth\ttruth_pair\t%#lx\t%zu\t" TRUTH_BUILD "\n", index,
		 (unsigned long)&pair, sizeof(pair));
	return append("window-objects.tsv", "window\tlabel\ttype\taddress\tsize\tsource\n", row);
}

static int run_case(enum kind kind, const char *name, const int cpus[2], double seconds)
{
	struct worker w[2];
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };
	const volatile void *a, *b;
	bool named = kind == PAIR && btf_path && !no_window && getenv("MEMCG_LAB_LINES_DIR");
	int index = named ? next_window() : -1;

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
	if (named && announce(index, name, false, 0)) {
		fprintf(stderr, "lines-truth: %s: cannot write the window's rows: %s\n", getenv("MEMCG_LAB_LINES_DIR"),
			strerror(errno));
		return 2;
	}
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
	if (named && announce(index, name, true, w[0].n + w[1].n)) {
		fprintf(stderr, "lines-truth: %s: cannot write window-ops.tsv: %s\n", getenv("MEMCG_LAB_LINES_DIR"),
			strerror(errno));
		return 2;
	}
	a = kind == FALSE_SHARING ? (const volatile void *)&same_line.a :
	    kind == PADDED	  ? (const volatile void *)&padded[0].v :
	    kind == PAIR	  ? (const volatile void *)&pair.a :
				    (const volatile void *)&shared_counter;
	b = kind == FALSE_SHARING ? (const volatile void *)&same_line.b :
	    kind == PADDED	  ? (const volatile void *)&padded[1].v :
	    kind == PAIR	  ? (const volatile void *)&pair.b :
				    (const volatile void *)&shared_counter;
	printf("case=%s a=%p b=%p n_a=%llu n_b=%llu cpus=%d,%d\n", name, (const void *)a, (const void *)b,
	       (unsigned long long)w[0].n, (unsigned long long)w[1].n, cpus[0], cpus[1]);
	fflush(stdout);
	return 0;
}

static int usage(const char *why)
{
	fprintf(stderr, "lines-truth: %s (usage: lines-truth [-s SECONDS] [-c CPU_A,CPU_B] [-n] [-b BTF] "
		"false|padded|true|pair...)\n", why);
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
				  (uintptr_t)(&shared_counter + 1), (uintptr_t)&pair, (uintptr_t)(&pair + 1) };

		for (unsigned k = 0; k < sizeof(p) / sizeof(p[0]); k++) {
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
		} else if (!strcmp(argv[i], "-b") && i + 1 < argc) {
			btf_path = argv[++i];
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
	if (btf_path && getenv("MEMCG_LAB_LINES_DIR") && copy_btf()) {
		fprintf(stderr, "lines-truth: -b %s: cannot copy it into %s as objects.btf: %s\n", btf_path,
			getenv("MEMCG_LAB_LINES_DIR"), strerror(errno));
		return 2;
	}
	for (; i < argc && !rc; i++) {
		if (!strcmp(argv[i], "false"))
			rc = run_case(FALSE_SHARING, "false", cpus, seconds);
		else if (!strcmp(argv[i], "padded"))
			rc = run_case(PADDED, "padded", cpus, seconds);
		else if (!strcmp(argv[i], "true"))
			rc = run_case(TRUE_SHARING, "true", cpus, seconds);
		else if (!strcmp(argv[i], "pair"))
			rc = run_case(PAIR, "pair", cpus, seconds);
		else
			return usage("a case is false, padded, true or pair");
	}
	return rc;
}
