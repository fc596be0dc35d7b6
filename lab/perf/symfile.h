/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF symbol file of a kernel made from its kallsyms, for perf to name
 * that kernel's code addresses where it has no vmlinux (a guest's kernel,
 * a Debian kernel whose vmlinux is stripped).  perf 6.1 reads a kernel's
 * kallsyms from a build-id cache (DIR/[kernel.kallsyms]/<build id>/kallsyms),
 * but perf 7.x takes the running host's /proc/kallsyms for any kernel whose
 * vmlinux it does not find; both load an ELF vmlinux from the same cache
 * (DIR/.build-id/xx/<rest of build id>/elf) or from -k FILE, when its GNU
 * build-ID note matches the kernel's.
 *
 * The file holds what perf reads of a vmlinux (tools/perf/util/symbol-elf.c):
 * an ELF64 ET_EXEC header, a .text section (NOBITS: no code) at the text's
 * runtime address, the build-ID note, and a .symtab of the kernel image's
 * text symbols (kallsyms types t, T, w, W; no module's), _text among them
 * for perf's relocation.  Addresses are kallsyms', KASLR included: the
 * kernel map perf.data gives (its _text) makes the relocation zero.
 */
#ifndef LAB_PERF_SYMFILE_H
#define LAB_PERF_SYMFILE_H

#include <stddef.h>
#include <stdint.h>

/* Writes path from the kallsyms text (NUL-terminated) and the build ID;
 * 0, or -1 with one line in err. */
int perf_symfile_write(const char *path, const char *kallsyms, const uint8_t *build_id, unsigned build_id_len,
		       char *err, size_t errlen);

#endif
