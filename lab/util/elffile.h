/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF files through libelf: the one open (with the lab's messages) and the
 * one walk over sections by header and name, for kernel/btf.c (.BTF,
 * .debug_info, the banner in .rodata), kernel/kallsyms.c (a vmlinux's
 * symbol table) and perf/user_inlines.c (a DSO's .text).
 */
#ifndef LAB_UTIL_ELFFILE_H
#define LAB_UTIL_ELFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <gelf.h>
#include <libelf.h>

struct elf_file {
	int fd;
	Elf *elf;
};

/* Opens path as an ELF file with a section name table (read through a
 * map), naming it as name in messages: 0, or -1 with err ("NAME: cannot
 * open: ...", "NAME: not a readable ELF file: <libelf's reason>"). */
int elf_file_open(struct elf_file *f, const char *path, const char *name, char *err, size_t errlen);
void elf_file_close(struct elf_file *f);

struct elf_section {
	Elf_Scn *scn;		/* NULL before the first */
	GElf_Shdr sh;
	const char *name;	/* "" where the section name table has none */
};

/* The section after s in elf (s zeroed: the first one): true with s
 * filled; false at the end, or where elf has no section name table.
 * Sections whose header cannot be read are passed over. */
bool elf_section_next(Elf *elf, struct elf_section *s);
/* The section of index idx (a symbol's st_shndx): true with s filled. */
bool elf_section_at(Elf *elf, size_t idx, struct elf_section *s);

#endif
