// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "kernel/kallsyms.h"
#include "util/elffile.h"
#include "util/err.h"
#include "util/fileio.h"

#define PROC_KALLSYMS "/proc/kallsyms"
#define FRESH_READS_MAX 16

/* ksyms_lookup_fresh()'s state: mutable behind the const struct ksyms *
 * every lookup takes. */
struct ksyms_fresh {
	char *path;			/* the fresh symbols' kallsyms; NULL: none */
	struct ksyms late;		/* its module and BPF symbols, last read */
	bool have_late;
	int reads;
	struct timespec last;		/* CLOCK_MONOTONIC of the last read */
	const struct btf *btf;		/* vmlinux BTF naming trampolines */
	struct btf *own_btf;		/* the running kernel's, loaded here */
	bool btf_tried;
};

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

static bool is_text(char type)
{
	return type && strchr("tTwW", type);
}

/* Linker markers of the image's section ends: no extent of their own (the
 * last symbol of the image is _end, and past it is no kernel code). */
static bool end_marker(const struct ksym *k)
{
	static const char *const names[] = { "_end", "_etext", "_edata", "_einittext", "__end_rodata",
					     "__bss_stop", "__brk_limit", "__init_end", "__per_cpu_end",
					     "__end_of_kernel_reserve" };

	const char *name = k->name;

	if (k->module)
		return false;
	/* The early boot code's aliases: __pi__end is _end. */
	if (!strncmp(name, "__pi_", 5))
		name += 5;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	/* __stop___ksymtab and the like; __stop_tty is a function. */
	return !is_text(k->type) && (!strncmp(name, "__stop_", 7) || !strncmp(name, "__end_", 6));
}

/* A module's memory kinds (text, rodata, data and bss), each a separate
 * allocation: 0, 1, 2. */
static int mod_class(char type)
{
	return is_text(type) ? 0 : type == 'r' || type == 'R' ? 1 : 2;
}

/* Whether b continues a's run: the kernel image, or the same module's
 * memory of the same kind. */
static bool same_run(const struct ksym *a, const struct ksym *b)
{
	if (!a->module || !b->module)
		return !a->module && !b->module;
	return !strcmp(a->module, b->module) && mod_class(a->type) == mod_class(b->type);
}

/*
 * The extents of symbols without a size (all of kallsyms, ELF symbols of
 * size 0): up to the next symbol's address within a run, else a page past
 * the start at most (perf's symbols__fixup_end()), and nothing for the
 * image's end markers.  A kernel symbol spans less than 1 GiB: the gap
 * from the per-CPU symbols (at small addresses) to the text is no extent.
 */
static void set_ends(struct ksyms *s)
{
	size_t group = 0;	/* the first symbol at this address */
	bool marker = false;	/* one of those is an end marker (_end, __brk_limit, __pi__end) */

	for (size_t i = 0; i < s->n; i++) {
		struct ksym *k = &s->by_addr[i];
		const struct ksym *next = NULL;
		uint64_t page_end;
		size_t j = i + 1;

		while (j < s->n && s->by_addr[j].addr == k->addr)
			j++;
		if (i == 0 || k->addr != s->by_addr[group].addr) {
			group = i;
			marker = false;
			for (size_t m = i; m < j; m++)
				marker = marker || end_marker(&s->by_addr[m]);
		}
		if (k->end > k->addr)
			continue;
		if (j < s->n)
			next = &s->by_addr[j];
		if (marker) {
			k->end = k->addr;
			continue;
		}
		page_end = k->addr > UINT64_MAX - 8192 ? UINT64_MAX : (k->addr + 4096 + 4095) & ~(uint64_t)4095;
		if (next && same_run(k, next) && next->addr - k->addr <= (1ull << 30))
			k->end = next->addr;
		else
			k->end = next && next->addr < page_end ? next->addr : page_end;
	}
}

static void index_names(struct ksyms *s)
{
	if (!s->n)
		return;		/* qsort(NULL, 0) is undefined (found by fuzz-kallsyms) */
	qsort(s->by_addr, s->n, sizeof(*s->by_addr), cmp_addr);
	set_ends(s);
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
static size_t parse_plain(const char *p, struct ksym *k, char **tab, size_t max_name)
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
	if (!nlen || nlen > max_name)
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
	k->end = 0;
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

/* The symbols at addr get the extent [addr, addr + len). */
static void set_extent(struct ksyms *s, uint64_t addr, uint64_t len)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->by_addr[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->n && s->by_addr[lo].addr == addr; lo++)
		if (s->by_addr[lo].module && !strcmp(s->by_addr[lo].module, "bpf"))
			s->by_addr[lo].end = addr + len;
}

/*
 * The BPF programs' exact extents: kallsyms has no sizes, and programs lie
 * in shared packs where the next symbol may be far (a freed program's
 * space between).  The JIT's own lengths come from BPF_OBJ_GET_INFO_BY_FD
 * (what perf's synthesized ksymbol events carry), where this process may
 * ask (root); elsewhere the next-symbol extents stay.
 */
static void bpf_prog_extents(struct ksyms *s)
{
	__u32 id = 0;
	bool any = false;

	for (size_t i = 0; i < s->n && !any; i++)
		any = s->by_addr[i].module && !strcmp(s->by_addr[i].module, "bpf");
	while (any && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info), n, m;
		__u64 addrs[64];
		__u32 lens[64];
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.nr_jited_ksyms) {
			n = info.nr_jited_ksyms < 64 ? info.nr_jited_ksyms : 64;
			m = info.nr_jited_func_lens < n ? info.nr_jited_func_lens : n;
			memset(&info, 0, sizeof(info));
			info.nr_jited_ksyms = n;
			info.jited_ksyms = (__u64)(uintptr_t)addrs;
			info.nr_jited_func_lens = m;
			info.jited_func_lens = (__u64)(uintptr_t)lens;
			len = sizeof(info);
			if (!bpf_obj_get_info_by_fd(fd, &info, &len))
				for (__u32 i = 0; i < m; i++)
					set_extent(s, addrs[i], lens[i]);
		}
		close(fd);
	}
}

int ksyms_parse_lines(struct ksyms *s, const char *text, const char *source, size_t max_name, char *err,
		      size_t errlen)
{
	size_t cap = 0, lineno = 0;
	const char *p = text;
	char fmt[48], *tab;

	memset(s, 0, sizeof(*s));
	s->source = xstrdup(source);
	if (max_name > KSYM_NAME_MAX)
		max_name = KSYM_NAME_MAX;
	snprintf(fmt, sizeof(fmt), "%%llx %%c %%%zus [%%127[^]]]", max_name);
	/* Every name and module is a piece of a line plus a NUL, and each
	 * line has at least two bytes more (type and separators). */
	tab = s->strtab = xmalloc(strlen(text) + 1);
	while (*p) {
		const char *nl;
		size_t len;
		char line[KSYM_NAME_MAX + 256], name[KSYM_NAME_MAX + 1], mod[128], type;
		unsigned long long addr;
		int n;

		lineno++;
		if (s->n == cap) {
			cap = cap ? cap * 2 : 4096;
			s->by_addr = xrealloc(s->by_addr, cap * sizeof(*s->by_addr));
		}
		if ((len = parse_plain(p, &s->by_addr[s->n], &tab, max_name))) {
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
		n = sscanf(line, fmt, &addr, &type, name, mod);
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
	return 0;
}

int ksyms_parse(struct ksyms *s, const char *text, const char *source, char *err, size_t errlen)
{
	if (ksyms_parse_lines(s, text, source, 255, err, errlen))
		return -1;
	index_names(s);
	s->fresh = xcalloc(1, sizeof(*s->fresh));
	if (!strcmp(source, PROC_KALLSYMS)) {
		s->fresh->path = xstrdup(source);
		if (s->have_addrs)
			bpf_prog_extents(s);
	}
	return 0;
}

int ksyms_load(struct ksyms *s, const char *path, char *err, size_t errlen)
{
	char *text;
	int r;

	if (!path)
		path = PROC_KALLSYMS;
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
	struct elf_section tab = { 0 };
	struct elf_file ef;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	s->source = xstrdup(vmlinux);
	if (elf_file_open(&ef, vmlinux, vmlinux, err, errlen)) {
		ksyms_free(s);
		return -1;
	}
	while (elf_section_next(ef.elf, &tab)) {
		Elf_Data *d;

		if (tab.sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(tab.scn, NULL);
		for (size_t i = 0; d && i < tab.sh.sh_size / tab.sh.sh_entsize; i++) {
			struct elf_section sec;
			const char *name;
			bool in_sec;
			GElf_Sym sym;
			int st;

			if (!gelf_getsym(d, i, &sym))
				continue;
			st = GELF_ST_TYPE(sym.st_info);
			if (st != STT_FUNC && st != STT_OBJECT && st != STT_NOTYPE)
				continue;
			name = elf_strptr(ef.elf, tab.sh.sh_link, sym.st_name);
			if (!name || !name[0] || sym.st_shndx == SHN_UNDEF)
				continue;
			in_sec = sym.st_shndx < SHN_LORESERVE && elf_section_at(ef.elf, sym.st_shndx, &sec);
			if (s->n == cap) {
				cap = cap ? cap * 2 : 65536;
				s->by_addr = xrealloc(s->by_addr, cap * sizeof(*s->by_addr));
			}
			s->by_addr[s->n++] = (struct ksym){
				.addr = sym.st_value,
				.type = elf_sym_type(&sym, in_sec ? &sec.sh : NULL, in_sec ? sec.name : NULL),
				.name = xstrdup(name),
				.end = sym.st_size && sym.st_value <= UINT64_MAX - sym.st_size ?
				       sym.st_value + sym.st_size : 0,
			};
			if (sym.st_value)
				s->have_addrs = true;
		}
	}
	elf_file_close(&ef);
	if (!s->n) {
		snprintf(err, errlen, "%s: no symbol table (stripped vmlinux)", vmlinux);
		ksyms_free(s);
		return -1;
	}
	index_names(s);
	s->fresh = xcalloc(1, sizeof(*s->fresh));
	return 0;
}

void ksyms_free(struct ksyms *s)
{
	for (size_t i = 0; !s->strtab && i < s->n; i++) {
		free(s->by_addr[i].name);
		free(s->by_addr[i].module);
	}
	if (s->fresh) {
		free(s->fresh->path);
		ksyms_free(&s->fresh->late);
		btf__free(s->fresh->own_btf);
		free(s->fresh);
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
	size_t lo = 0, hi = s->n, first;

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
	/* Among equal addresses the sort put the global one first: the first
	 * whose extent holds addr. */
	first = lo;
	while (first > 0 && s->by_addr[first - 1].addr == s->by_addr[lo].addr)
		first--;
	for (size_t i = first; i <= lo; i++) {
		const struct ksym *k = &s->by_addr[i];

		if (addr == k->addr || addr < k->end) {
			if (offset)
				*offset = addr - k->addr;
			return k;
		}
	}
	return NULL;
}

static void format_sym(const struct ksym *k, uint64_t addr, uint64_t off, char *buf, size_t n)
{
	if (!k)
		snprintf(buf, n, "0x%" PRIx64, addr);
	else if (off)
		snprintf(buf, n, "%s+0x%" PRIx64, k->name, off);
	else
		snprintf(buf, n, "%s", k->name);
}

void ksyms_format(const struct ksyms *s, uint64_t addr, char *buf, size_t n)
{
	uint64_t off = 0;
	const struct ksym *k = ksyms_lookup(s, addr, &off);

	format_sym(k, addr, off, buf, n);
}

void ksyms_refresh_from(struct ksyms *s, const char *path)
{
	if (!s->fresh)
		s->fresh = xcalloc(1, sizeof(*s->fresh));
	free(s->fresh->path);
	s->fresh->path = path ? xstrdup(path) : NULL;
	s->fresh->reads = 0;
	s->fresh->last = (struct timespec){ 0 };
}

/* Reads the module and BPF lines (those with a "\t[module]") of the fresh
 * kallsyms into f->late; false when it cannot be read or parsed. */
static bool fresh_read(struct ksyms_fresh *f)
{
	char *text = read_text(f->path, NULL), *kept, *out, err[256];
	const char *p;
	bool ok;

	if (!text)
		return false;
	out = kept = xmalloc(strlen(text) + 1);
	for (p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (memmem(p, len, "\t[", 2)) {
			memcpy(out, p, len);
			out += len;
		}
		p += len;
	}
	*out = '\0';
	free(text);
	ksyms_free(&f->late);
	ok = !ksyms_parse(&f->late, kept, f->path, err, sizeof(err));
	free(kept);
	f->have_late = ok;
	return ok;
}

const struct ksym *ksyms_lookup_fresh(const struct ksyms *s, uint64_t addr, uint64_t *offset)
{
	const struct ksym *k = ksyms_lookup(s, addr, offset);
	struct ksyms_fresh *f = s->fresh;
	struct timespec now;

	if (k || !f || !f->path || !s->have_addrs)
		return k;
	if (f->have_late && (k = ksyms_lookup(&f->late, addr, offset)))
		return k;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (f->reads >= FRESH_READS_MAX || (f->reads && now.tv_sec - f->last.tv_sec < 1))
		return NULL;
	f->reads++;
	f->last = now;
	if (!fresh_read(f))
		return NULL;
	return ksyms_lookup(&f->late, addr, offset);
}

void ksyms_set_btf(struct ksyms *s, const struct btf *vmlinux_btf)
{
	if (!s->fresh)
		s->fresh = xcalloc(1, sizeof(*s->fresh));
	s->fresh->btf = vmlinux_btf;
	s->fresh->btf_tried = true;
}

bool ksyms_bpf_trampoline(const struct ksym *k, uint32_t *btf_obj_id, uint32_t *btf_id)
{
	static const char pfx[] = "bpf_trampoline_";
	unsigned long long key;
	char *end;

	if (!k->module || strcmp(k->module, "bpf") || strncmp(k->name, pfx, sizeof(pfx) - 1) ||
	    !isdigit((unsigned char)k->name[sizeof(pfx) - 1]))
		return false;
	errno = 0;
	key = strtoull(k->name + sizeof(pfx) - 1, &end, 10);
	if (*end || errno)
		return false;
	if (!(key & 0x80000000ull) && key >> 32 != 1)
		return false;
	*btf_obj_id = (uint32_t)(key >> 32);
	*btf_id = (uint32_t)(key & 0x7fffffffull);
	return true;
}

/* The function a trampoline frame stands for, by its BTF id in vmlinux's
 * BTF (object id 1); NULL when that cannot be known. */
static const char *trampoline_target(const struct ksyms *s, const struct ksym *k)
{
	struct ksyms_fresh *f = s->fresh;
	const struct btf_type *t;
	uint32_t obj, id;

	if (!f || !ksyms_bpf_trampoline(k, &obj, &id) || obj != 1)
		return NULL;
	if (!f->btf && !f->btf_tried) {
		f->btf_tried = true;
		if (f->path && !strcmp(f->path, PROC_KALLSYMS))
			f->btf = f->own_btf = btf__load_vmlinux_btf();
	}
	if (!f->btf || !id || id >= btf__type_cnt(f->btf))
		return NULL;
	t = btf__type_by_id(f->btf, id);
	if (!t || !btf_is_func(t))
		return NULL;
	return btf__name_by_offset(f->btf, t->name_off);
}

void ksyms_frame(const struct ksyms *s, uint64_t addr, char *buf, size_t n)
{
	uint64_t off = 0;
	const struct ksym *k = ksyms_lookup_fresh(s, addr, &off);
	const char *fn = k ? trampoline_target(s, k) : NULL;

	if (fn)
		snprintf(buf, n, "%s", fn);
	else
		format_sym(k, addr, off, buf, n);
}

/* The trigger's and the tracepoint's own frames, at the top of its stacks. */
static bool trace_frame(const struct ksyms *s, uint64_t ip)
{
	static const char *const pfx[] = { "trace_event_raw_event_", "perf_trace_", "__traceiter_",
					   "__bpf_trace_", "trace_call_bpf", "event_triggers_call",
					   "stacktrace_trigger", "__trace_stack", "trace_event_buffer" };
	const struct ksym *k = ksyms_lookup(s, ip, NULL);

	if (!k)
		return false;
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(k->name, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

/*
 * The instrumentation's own code between a lock function and its caller:
 * ftrace's trampolines (the asm ones of vmlinux and their copies,
 * [__builtin__ftrace]), what BPF trampolines call around the programs,
 * and kprobes' slots; and the int3 handler of live code patching, which
 * a guessing unwinder finds on the stack after an attach.
 */
static bool instrumentation_frame(const struct ksym *k)
{
	static const char *const names[] = { "ftrace_caller", "ftrace_caller_op_ptr", "ftrace_call",
					     "ftrace_caller_end", "ftrace_regs_caller", "ftrace_regs_caller_op_ptr",
					     "ftrace_regs_call", "ftrace_regs_caller_jmp", "ftrace_regs_caller_ret",
					     "ftrace_regs_caller_end", "ftrace_stub", "ftrace_stub_graph",
					     "ftrace_graph_caller", "return_to_handler", "exc_int3",
					     "poke_int3_handler", "smp_text_poke_int3_handler" };
	static const char *const pfx[] = { "__bpf_prog_enter", "__bpf_prog_exit", "__bpf_tramp_enter",
					   "__bpf_tramp_exit" };

	if (k->module)
		return !strcmp(k->module, "__builtin__ftrace") || !strcmp(k->module, "__builtin__kprobes");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(k->name, names[i]))
			return true;
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(k->name, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

/* .sched.text and .lock.text, from their markers (a missing pair: none). */
struct lock_text {
	uint64_t lo[2], hi[2];
};

static void lock_text(const struct ksyms *s, struct lock_text *lt)
{
	static const char *const names[2][2] = { { "__sched_text_start", "__sched_text_end" },
						 { "__lock_text_start", "__lock_text_end" } };

	for (int i = 0; i < 2; i++) {
		const struct ksym *a = ksyms_find(s, names[i][0]), *b = ksyms_find(s, names[i][1]);

		lt->lo[i] = a && b ? a->addr : 0;
		lt->hi[i] = a && b ? b->addr : 0;
	}
}

static bool in_lock_text(const struct lock_text *lt, uint64_t ip)
{
	return (lt->lo[0] <= ip && ip < lt->hi[0]) || (lt->lo[1] <= ip && ip < lt->hi[1]);
}

int ksyms_lock_caller(const struct ksyms *s, const uint64_t *f, int n)
{
	struct lock_text lt;
	int i = 0;

	lock_text(s, &lt);
	while (i < n && trace_frame(s, f[i]))
		i++;
	for (; i < n; i++) {
		const struct ksym *k;

		if (!f[i] || in_lock_text(&lt, f[i]))
			continue;
		k = ksyms_lookup_fresh(s, f[i], NULL);
		if (!k || instrumentation_frame(k))
			continue;
		if (k->module && !strcmp(k->module, "bpf")) {
			const char *fn = trampoline_target(s, k);
			const struct ksym *target = fn ? ksyms_find(s, fn) : NULL;

			if (!fn || (target && in_lock_text(&lt, target->addr)))
				continue;
		}
		return i;
	}
	return -1;
}
