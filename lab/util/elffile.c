// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files and their sections through libelf (util/elffile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/elffile.h"

int elf_file_open(struct elf_file *f, const char *path, const char *name, char *err, size_t errlen)
{
	size_t shstrndx;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", name, strerror(errno));
		return -1;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || elf_getshdrstrndx(f->elf, &shstrndx)) {
		snprintf(err, errlen, "%s: not a readable ELF file: %s", name, elf_errmsg(-1));
		elf_file_close(f);
		return -1;
	}
	return 0;
}

void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* s's header and name, from its scn. */
static bool fill(Elf *elf, struct elf_section *s)
{
	size_t shstrndx;
	const char *name;

	if (!gelf_getshdr(s->scn, &s->sh) || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	name = elf_strptr(elf, shstrndx, s->sh.sh_name);
	s->name = name ? name : "";
	return true;
}

bool elf_section_next(Elf *elf, struct elf_section *s)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((s->scn = elf_nextscn(elf, s->scn)))
		if (fill(elf, s))
			return true;
	return false;
}

bool elf_section_at(Elf *elf, size_t idx, struct elf_section *s)
{
	s->scn = elf_getscn(elf, idx);
	return s->scn && fill(elf, s);
}
