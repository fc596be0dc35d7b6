/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols: /proc/kallsyms of the running kernel, or the symbol table
 * of an ELF vmlinux (offline).  Name -> address and address -> symbol+offset
 * (for lock addresses and caller symbols).
 *
 * Without root, /proc/kallsyms shows zero addresses: ksyms_load() then keeps
 * the names (so presence checks still work) and ksyms_have_addrs() is false.
 */
#ifndef LAB_KERNEL_KALLSYMS_H
#define LAB_KERNEL_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	char type;		/* nm-style: T/t text, D/d data, B/b bss, ... */
	char *name;
	char *module;		/* NULL for vmlinux symbols */
};

struct ksyms {
	struct ksym *by_addr;	/* sorted by address */
	size_t n;
	size_t *by_name;	/* indexes into by_addr, sorted by name */
	bool have_addrs;
	char *source;		/* "/proc/kallsyms" or the vmlinux path */
	char *strtab;		/* names and modules of parsed text; NULL: each malloc'd */
};

/* Parses kallsyms text (the format of /proc/kallsyms). 0, or -1 with err. */
int ksyms_parse(struct ksyms *s, const char *text, const char *source, char *err, size_t errlen);
/* Loads /proc/kallsyms (path NULL) or a kallsyms-format file. */
int ksyms_load(struct ksyms *s, const char *path, char *err, size_t errlen);
/* Loads the symbol table of an ELF vmlinux. */
int ksyms_load_vmlinux(struct ksyms *s, const char *vmlinux, char *err, size_t errlen);
void ksyms_free(struct ksyms *s);

const struct ksym *ksyms_find(const struct ksyms *s, const char *name);
/* The symbol containing addr (the last one at or below it), or NULL. */
const struct ksym *ksyms_lookup(const struct ksyms *s, uint64_t addr, uint64_t *offset);
/* "sym+0x1f" (or "0xffff..." when unknown) into buf. */
void ksyms_format(const struct ksyms *s, uint64_t addr, char *buf, size_t n);

#endif
