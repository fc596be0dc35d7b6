// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernel/kallsyms.h"
#include "util/err.h"
#include "util/fileio.h"

static const struct ksym *sort_base;

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer global symbols when several share an address. */
	return (x->type >= 'a') - (y->type >= 'a');
}

static int cmp_name_idx(const void *a, const void *b)
{
	return strcmp(sort_base[*(const size_t *)a].name, sort_base[*(const size_t *)b].name);
}

static void index_names(struct ksyms *s)
{
	if (!s->n)
		return;		/* qsort(NULL, 0) is undefined (found by fuzz-kallsyms) */
	qsort(s->by_addr, s->n, sizeof(*s->by_addr), cmp_addr);
	s->by_name = xmalloc(s->n * sizeof(*s->by_name));
	for (size_t i = 0; i < s->n; i++)
		s->by_name[i] = i;
	sort_base = s->by_addr;
	qsort(s->by_name, s->n, sizeof(*s->by_name), cmp_name_idx);
	sort_base = NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The line shape /proc/kallsyms always has, "ADDR T name" or "ADDR t
 * name\t[module]", parsed by hand with the name and module copied into
 * the one string table: sscanf and a malloc per symbol made the parse of
 * 120k+ symbols take most of the collector's set-up.  Returns the bytes
 * of the line, or 0 when the line is anything else (the general parse
 * then takes it).
 */
static size_t parse_plain(const char *p, struct ksym *k, char **tab)
{
	const char *q = p, *name, *mod = NULL;
	size_t nlen, mlen = 0;
	uint64_t addr = 0;
	int d, digits = 0;

	while ((d = hexval(*q)) >= 0 && digits < 16) {
		addr = addr << 4 | (uint64_t)d;
		q++;
		digits++;
	}
	if (!digits || q[0] != ' ' || !q[1] || isspace((unsigned char)q[1]) || q[2] != ' ')
		return 0;
	k->type = q[1];
	name = q + 3;
	for (q = name; *q && !isspace((unsigned char)*q); q++)
		;
	nlen = (size_t)(q - name);
	if (!nlen || nlen > 255)
		return 0;
	if (*q == '\t' && q[1] == '[') {
		mod = q + 2;
		for (q = mod; *q && *q != ']' && *q != '\n'; q++)
			;
		mlen = (size_t)(q - mod);
		if (*q != ']' || !mlen || mlen > 127)
			return 0;
		q++;
	}
	if (*q && *q != '\n')
		return 0;
	k->addr = addr;
	k->name = memcpy(*tab, name, nlen);
	k->name[nlen] = '\0';
	*tab += nlen + 1;
	k->module = NULL;
	if (mod) {
		k->module = memcpy(*tab, mod, mlen);
		k->module[mlen] = '\0';
		*tab += mlen + 1;
	}
	return (size_t)(q - p) + (*q == '\n');
}

int ksyms_parse(struct ksyms *s, const char *text, const char *source, char *err, size_t errlen)
{
	size_t cap = 0, lineno = 0;
	const char *p = text;
	char *tab;

	memset(s, 0, sizeof(*s));
	s->source = xstrdup(source);
	/* Every name and module is a piece of a line plus a NUL, and each
	 * line has at least two bytes more (type and separators). */
	tab = s->strtab = xmalloc(strlen(text) + 1);
	while (*p) {
		const char *nl;
		size_t len;
		char line[512], name[256], mod[128], type;
		unsigned long long addr;
		int n;

		lineno++;
		if (s->n == cap) {
			cap = cap ? cap * 2 : 4096;
			s->by_addr = xrealloc(s->by_addr, cap * sizeof(*s->by_addr));
		}
		if ((len = parse_plain(p, &s->by_addr[s->n], &tab))) {
			if (s->by_addr[s->n++].addr)
				s->have_addrs = true;
			p += len;
			continue;
		}
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl ? nl + 1 : p + strlen(p);
		if (!line[0])
			continue;
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3) {
			snprintf(err, errlen, "%s:%zu: not a kallsyms line (want 'ADDRESS TYPE NAME [MODULE]')",
				 source, lineno);
			ksyms_free(s);
			return -1;
		}
		s->by_addr[s->n] = (struct ksym){ .addr = addr, .type = type, .name = tab };
		tab = stpcpy(tab, name) + 1;
		if (n == 4) {
			s->by_addr[s->n].module = tab;
			tab = stpcpy(tab, mod) + 1;
		}
		s->n++;
		if (addr)
			s->have_addrs = true;
	}
	index_names(s);
	return 0;
}

int ksyms_load(struct ksyms *s, const char *path, char *err, size_t errlen)
{
	char *text;
	int r;

	if (!path)
		path = "/proc/kallsyms";
	text = read_text(path, NULL);
	if (!text) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		memset(s, 0, sizeof(*s));
		return -1;
	}
	r = ksyms_parse(s, text, path, err, errlen);
	free(text);
	return r;
}

static char elf_sym_type(const GElf_Sym *sym, const GElf_Shdr *sec, const char *secname)
{
	char t;

	if (sym->st_shndx == SHN_ABS)
		t = 'a';
	else if (sec && (sec->sh_flags & SHF_EXECINSTR))
		t = 't';
	else if (sec && sec->sh_type == SHT_NOBITS)
		t = 'b';
	else if (secname && !strncmp(secname, ".rodata", 7))
		t = 'r';
	else
		t = 'd';
	if (GELF_ST_BIND(sym->st_info) != STB_LOCAL)
		t -= 'a' - 'A';
	return t;
}

int ksyms_load_vmlinux(struct ksyms *s, const char *vmlinux, char *err, size_t errlen)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t cap = 0, shstrndx;
	int fd;

	memset(s, 0, sizeof(*s));
	s->source = xstrdup(vmlinux);
	elf_version(EV_CURRENT);
	fd = open(vmlinux, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", vmlinux, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "%s: not a readable ELF file", vmlinux);
		goto fail;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr ssh, *psh = NULL;
			const char *name, *secname = NULL;
			int st;

			if (!gelf_getsym(d, i, &sym))
				continue;
			st = GELF_ST_TYPE(sym.st_info);
			if (st != STT_FUNC && st != STT_OBJECT && st != STT_NOTYPE)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !name[0] || sym.st_shndx == SHN_UNDEF)
				continue;
			if (sym.st_shndx < SHN_LORESERVE) {
				Elf_Scn *ss = elf_getscn(elf, sym.st_shndx);

				if (ss && gelf_getshdr(ss, &ssh)) {
					psh = &ssh;
					secname = elf_strptr(elf, shstrndx, ssh.sh_name);
				}
			}
			if (s->n == cap) {
				cap = cap ? cap * 2 : 65536;
				s->by_addr = xrealloc(s->by_addr, cap * sizeof(*s->by_addr));
			}
			s->by_addr[s->n++] = (struct ksym){
				.addr = sym.st_value, .type = elf_sym_type(&sym, psh, secname),
				.name = xstrdup(name),
			};
			if (sym.st_value)
				s->have_addrs = true;
		}
	}
	elf_end(elf);
	close(fd);
	if (!s->n) {
		snprintf(err, errlen, "%s: no symbol table (stripped vmlinux)", vmlinux);
		ksyms_free(s);
		return -1;
	}
	index_names(s);
	return 0;
fail:
	if (elf)
		elf_end(elf);
	close(fd);
	ksyms_free(s);
	return -1;
}

void ksyms_free(struct ksyms *s)
{
	for (size_t i = 0; !s->strtab && i < s->n; i++) {
		free(s->by_addr[i].name);
		free(s->by_addr[i].module);
	}
	free(s->by_addr);
	free(s->by_name);
	free(s->source);
	free(s->strtab);
	memset(s, 0, sizeof(*s));
}

const struct ksym *ksyms_find(const struct ksyms *s, const char *name)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->by_addr[s->by_name[mid]].name, name);

		if (!c)
			return &s->by_addr[s->by_name[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ksym *ksyms_lookup(const struct ksyms *s, uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi = s->n;

	if (!s->have_addrs || !s->n || addr < s->by_addr[0].addr)
		return NULL;
	/* Last symbol with address <= addr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->by_addr[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* Among equal addresses the sort put the global one first. */
	while (lo > 0 && s->by_addr[lo - 1].addr == s->by_addr[lo].addr)
		lo--;
	if (offset)
		*offset = addr - s->by_addr[lo].addr;
	return &s->by_addr[lo];
}

void ksyms_format(const struct ksyms *s, uint64_t addr, char *buf, size_t n)
{
	uint64_t off;
	const struct ksym *k = ksyms_lookup(s, addr, &off);

	if (!k)
		snprintf(buf, n, "0x%" PRIx64, addr);
	else if (off)
		snprintf(buf, n, "%s+0x%" PRIx64, k->name, off);
	else
		snprintf(buf, n, "%s", k->name);
}
