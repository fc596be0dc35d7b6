// SPDX-License-Identifier: GPL-2.0
/* An ELF symbol file of a kernel from its kallsyms (perf/symfile.h). */
#include <elf.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/kallsyms.h"
#include "perf/symfile.h"
#include "util/err.h"
#include "util/outfile.h"

struct buf {
	char *p;
	size_t len, cap;
};

static size_t put(struct buf *b, const void *d, size_t n)
{
	size_t at = b->len;

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
	return at;
}

static void align(struct buf *b, size_t a)
{
	static const char zeros[16];

	while (b->len % a)
		put(b, zeros, 1);
}

/* The kernel image's text symbols of the kallsyms lines in t, _text among
 * them, in file order. */
static size_t text_symbols(const struct ksyms *t, const struct ksym ***out, uint64_t *stext, uint64_t *etext)
{
	size_t n = 0;

	*out = xmalloc((t->n ? t->n : 1) * sizeof(**out));
	*stext = *etext = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct ksym *k = &t->by_addr[i];
		bool text = !strcmp(k->name, "_text");

		if (k->module)
			continue;
		if (text)
			*stext = k->addr;
		if (!strcmp(k->name, "_etext"))
			*etext = k->addr;
		if (strchr("tTwW", k->type) || text)
			(*out)[n++] = k;
	}
	return n;
}

int perf_symfile_write(const char *path, const char *kallsyms, const uint8_t *build_id, unsigned build_id_len,
		       char *err, size_t errlen)
{
	enum { S_NULL, S_TEXT, S_NOTE, S_SYMTAB, S_STRTAB, S_SHSTRTAB, S_N };
	static const char shstr[] = "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
	static const unsigned shname[S_N] = { 0, 1, 7, 26, 34, 42 };
	/* Where .text says it lies in the file (NOBITS: nothing there). */
	const uint64_t text_off = 0x1000;
	struct buf out = { 0 }, strtab = { 0 };
	const struct ksym **syms;
	struct ksyms tab;
	uint64_t stext, etext, last = 0;
	size_t n, nsyms = 1;
	Elf64_Ehdr eh;
	Elf64_Shdr sh[S_N];
	size_t note_off, note_len, sym_off, str_off, shstr_off, shdr_off;
	char why[256];

	if (ksyms_parse_lines(&tab, kallsyms, "its kallsyms", KSYM_NAME_MAX, why, sizeof(why)))
		return set_err(err, errlen, "%s: %s", path, why);
	n = text_symbols(&tab, &syms, &stext, &etext);
	if (!stext || !n) {
		free(syms);
		ksyms_free(&tab);
		return set_err(err, errlen, "%s: the kallsyms has no _text or no text symbols (read without root?)",
			       path);
	}
	memset(&eh, 0, sizeof(eh));
	memset(sh, 0, sizeof(sh));
	put(&out, &eh, sizeof(eh));	/* filled in last */
	/* The build-ID note. */
	note_off = out.len;
	{
		uint32_t nh[3] = { 4, build_id_len, NT_GNU_BUILD_ID };

		put(&out, nh, sizeof(nh));
		put(&out, "GNU", 4);
		put(&out, build_id, build_id_len);
		align(&out, 4);
	}
	note_len = out.len - note_off;
	/* The symbols: a null one, then the image's text symbols. */
	put(&strtab, "", 1);
	align(&out, 8);
	sym_off = out.len;
	{
		Elf64_Sym null;

		memset(&null, 0, sizeof(null));
		put(&out, &null, sizeof(null));
	}
	for (size_t i = 0; i < n; i++) {
		const struct ksym *k = syms[i];
		Elf64_Sym s;

		if (k->addr < stext || (etext && k->addr > etext))
			continue;
		memset(&s, 0, sizeof(s));
		s.st_name = (Elf64_Word)put(&strtab, k->name, strlen(k->name) + 1);
		s.st_info = ELF64_ST_INFO(k->type == 'T' || k->type == 'W' ? (k->type == 'W' ? STB_WEAK : STB_GLOBAL)
							: STB_LOCAL, strchr("tTwW", k->type) ? STT_FUNC : STT_NOTYPE);
		s.st_shndx = S_TEXT;
		s.st_value = k->addr;
		put(&out, &s, sizeof(s));
		nsyms++;
		last = k->addr > last ? k->addr : last;
	}
	free(syms);
	ksyms_free(&tab);
	str_off = put(&out, strtab.p, strtab.len);
	shstr_off = put(&out, shstr, sizeof(shstr));
	align(&out, 8);
	shdr_off = out.len;
	/* .text: the image's text, from _text to _etext (or past the last symbol). */
	sh[S_TEXT] = (Elf64_Shdr){ .sh_name = shname[S_TEXT], .sh_type = SHT_NOBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				   .sh_addr = stext, .sh_offset = text_off,
				   .sh_size = (etext > stext ? etext : last + 4096) - stext, .sh_addralign = 4096 };
	sh[S_NOTE] = (Elf64_Shdr){ .sh_name = shname[S_NOTE], .sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC,
				   .sh_offset = note_off, .sh_size = note_len, .sh_addralign = 4 };
	sh[S_SYMTAB] = (Elf64_Shdr){ .sh_name = shname[S_SYMTAB], .sh_type = SHT_SYMTAB, .sh_offset = sym_off,
				     .sh_size = nsyms * sizeof(Elf64_Sym), .sh_link = S_STRTAB, .sh_info = 1,
				     .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	sh[S_STRTAB] = (Elf64_Shdr){ .sh_name = shname[S_STRTAB], .sh_type = SHT_STRTAB, .sh_offset = str_off,
				     .sh_size = strtab.len, .sh_addralign = 1 };
	sh[S_SHSTRTAB] = (Elf64_Shdr){ .sh_name = shname[S_SHSTRTAB], .sh_type = SHT_STRTAB, .sh_offset = shstr_off,
				       .sh_size = sizeof(shstr), .sh_addralign = 1 };
	put(&out, sh, sizeof(sh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_entry = stext;
	eh.e_shoff = shdr_off;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = S_N;
	eh.e_shstrndx = S_SHSTRTAB;
	memcpy(out.p, &eh, sizeof(eh));
	free(strtab.p);
	if (outfile_write(path, out.p, out.len) < 0) {
		free(out.p);
		return set_err(err, errlen, "%s: cannot write: %s", path, strerror(errno));
	}
	free(out.p);
	return 0;
}
