/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols resolved exactly as perf resolves them from kallsyms, for
 * reports that must print the same caller names as `perf lock contention`.
 *
 * kernel/kallsyms.h is the lab's general symbol table, and its line parser
 * (ksyms_parse_lines()) reads the text for this view too, names up to
 * KSYM_NAME_MAX bytes.  perf differs from the general table in ways that
 * change printed names: it keeps only T/W/D/B symbols (any case), gives
 * each symbol an end (the next symbol's start, a page past the last symbol
 * of a kernel/module run), and among symbols at one address keeps the one
 * with a non-zero length, which is the last of them in file order
 * (symbols__fixup_end() then symbols__fixup_duplicate() in util/symbol.c).
 * Lock functions are those in the .sched.text and .lock.text sections, as in
 * perf's machine__is_lock_function().
 */
#ifndef LAB_PERF_PERF_SYMBOLS_H
#define LAB_PERF_PERF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/kallsyms.h"

struct psym {
	uint64_t start, end;
	const char *name;	/* without the module suffix */
	const char *module;	/* "" for vmlinux */
	char type;
};

struct psyms {
	struct psym *sym;	/* sorted by start, duplicates removed */
	size_t n;
	struct ksyms tab;	/* the lines as read: names and modules point into it */
	uint64_t sched_start, sched_end, lock_start, lock_end;
	bool have_lock_ranges;
	/* perf_symbols_lookup's last answers, direct-mapped by address (a
	 * report looks up the same few lock-function frames millions of
	 * times); allocated with the table. */
	struct psym_memo {
		uint64_t addr;
		const struct psym *sym;
		bool used;
	} *memo;
};

/* Parses kallsyms text (the buffer is taken over); 0 or -1 with err. */
int perf_symbols_parse(struct psyms *p, char *text, const char *source, char *err, size_t errlen);
/* Loads a kallsyms file (NULL: /proc/kallsyms). */
int perf_symbols_load(struct psyms *p, const char *path, char *err, size_t errlen);
void perf_symbols_free(struct psyms *p);

const struct psym *perf_symbols_lookup(const struct psyms *p, uint64_t addr);
bool perf_symbols_is_lock_function(const struct psyms *p, uint64_t addr);
/* perf's "sym+0xoff" (just "sym" at offset 0) into buf; false when unknown. */
bool perf_symbols_format(const struct psyms *p, uint64_t addr, char *buf, size_t n);

#endif
