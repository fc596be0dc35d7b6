// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kernel/btf.h"
#include "util/decompress.h"
#include "util/elffile.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/nearest.h"
#include "util/run.h"

#define RUNNING_BTF "/sys/kernel/btf/vmlinux"
/*
 * A compressed input is decompressed into a file of the lab's own: an
 * unnamed O_TMPFILE (else a name unlinked at once), nothing left behind
 * even after a SIGKILL.  A kernel's BTF is a few MB, a vmlinux with DWARF
 * some hundreds: past this bound the input is refused in one line.
 */
#define KBTF_DECOMPRESSED_MAX (1ULL << 30)

const char *kbtf_file(const struct kbtf *k)
{
	return k->tmp_btf ? k->tmp_btf : k->read_path ? k->read_path : k->path;
}

const char *kbtf_source_name(enum kbtf_source s)
{
	switch (s) {
	case KBTF_RUNNING: return "running kernel BTF";
	case KBTF_RAW: return "raw BTF file";
	case KBTF_ELF: return "ELF vmlinux with .BTF";
	case KBTF_DWARF: return "DWARF-only vmlinux converted with pahole --btf_encode_detached";
	}
	return "?";
}

/* The BTF kind libbpf last refused ("Unsupported BTF_KIND:%u"), or -1. */
static int unsupported_kind = -1;

/* libbpf stays quiet; the one message worth keeping is the kind it does not know. */
static int silent_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (strstr(fmt, "Unsupported BTF_KIND"))
		unsupported_kind = va_arg(ap, int);
	return 0;
}

/*
 * A newer kernel's BTF may carry a kind this libbpf predates: say which
 * kind and which libbpf, not just "damaged".  False when that was not why.
 */
static bool unknown_kind_reason(const char *path, char *err, size_t errlen)
{
	if (unsupported_kind < 0)
		return false;
	snprintf(err, errlen, "%s: BTF kind %d is unknown to the system libbpf %s: "
		 "a newer libbpf (libbpf-dev) is needed for this kernel's BTF", path, unsupported_kind,
		 libbpf_version_string());
	return true;
}

/* What an ELF file carries: .BTF, .debug_info, and the "Linux version" banner. */
struct elf_facts {
	bool has_btf, has_dwarf;
	char release[128];
};

static void banner_release(const char *data, size_t len, char *out, size_t n)
{
	static const char tag[] = "Linux version ";
	const char *p = data, *end = data + len;

	while (p && p < end) {
		p = memmem(p, end - p, tag, sizeof(tag) - 1);
		if (!p)
			return;
		p += sizeof(tag) - 1;
		/* The banner is "Linux version 6.1.0-57-amd64 (debian-kernel@...)". */
		if (p < end && *p >= '0' && *p <= '9') {
			size_t i = 0;

			while (p + i < end && i + 1 < n && p[i] != ' ' && p[i] != '\0' && p[i] != '\n')
				i++;
			memcpy(out, p, i);
			out[i] = '\0';
			return;
		}
	}
}

/* Reads path; messages name the file as name. */
static int elf_inspect(const char *path, const char *name, struct elf_facts *f, char *err, size_t errlen)
{
	struct elf_section s = { 0 };
	struct elf_file ef;

	memset(f, 0, sizeof(*f));
	if (elf_file_open(&ef, path, name, err, errlen))
		return -1;
	while (elf_section_next(ef.elf, &s)) {
		if (!strcmp(s.name, ".BTF"))
			f->has_btf = true;
		else if (!strcmp(s.name, ".debug_info"))
			f->has_dwarf = true;
		else if (!strcmp(s.name, ".rodata") && s.sh.sh_type == SHT_PROGBITS && !f->release[0]) {
			Elf_Data *d = elf_getdata(s.scn, NULL);

			if (d && d->d_buf)
				banner_release(d->d_buf, d->d_size, f->release, sizeof(f->release));
		}
	}
	elf_file_close(&ef);
	return 0;
}

/* "vmlinux-6.1.192.btf" -> "6.1.192": the only release hint a raw blob has. */
static char *release_from_name(const char *path)
{
	static const char *const zsuffix[] = { ".xz", ".gz", ".zst", ".zstd" };
	char *base = xstrdup(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	regmatch_t m[2];
	regex_t re;
	char *out = NULL;
	size_t bl = strlen(base);

	/* "vmlinux-6.18.44.btf.xz" names the release as "vmlinux-6.18.44.btf" does. */
	for (size_t i = 0; i < sizeof(zsuffix) / sizeof(zsuffix[0]); i++) {
		size_t sl = strlen(zsuffix[i]);

		if (bl > sl && !strcmp(base + bl - sl, zsuffix[i])) {
			base[bl - sl] = '\0';
			break;
		}
	}

	if (regcomp(&re, "([0-9]+\\.[0-9]+(\\.[0-9]+)?[-+a-zA-Z0-9_.~]*?)\\.btf$", REG_EXTENDED)) {
		free(base);
		return NULL;
	}
	if (!regexec(&re, base, 2, m, 0)) {
		int len = m[1].rm_eo - m[1].rm_so;

		out = xasprintf("%.*s", len, base + m[1].rm_so);
		/* A trailing ".btf" may have been matched lazily: trim dots. */
		while (len > 0 && out[len - 1] == '.')
			out[--len] = '\0';
	}
	regfree(&re);
	free(base);
	return out;
}

/* Converts the DWARF of the file path (named vmlinux in messages). */
static int open_dwarf(struct kbtf *k, const char *path, const char *vmlinux, char *err, size_t errlen)
{
	const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *tmpl = xasprintf("%s/memcg-lab-btf.XXXXXX", tmpdir);
	char *out, *encode, *file;
	struct run_result r;
	int fd;

	fd = mkstemp(tmpl);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create a temporary file for pahole: %s", tmpl, strerror(errno));
		free(tmpl);
		return -1;
	}
	close(fd);
	k->tmp_btf = tmpl;
	if (!program_on_path("pahole")) {
		snprintf(err, errlen, "%s: DWARF-only vmlinux needs pahole to convert it (apt-get install dwarves)", vmlinux);
		return -1;
	}
	encode = xasprintf("--btf_encode_detached=%s", tmpl);
	file = path_arg(path);
	out = run_capture_argv((const char *const[]){ "pahole", encode, file, NULL }, RUN_STDERR_MERGE, &r);
	free(encode);
	free(file);
	if (r.status != 0) {
		out[strcspn(out, "\n")] = '\0';
		snprintf(err, errlen, "%s: pahole --btf_encode_detached failed: %s", vmlinux,
			 out[0] ? out : "no output");
		free(out);
		return -1;
	}
	free(out);
	k->btf = btf__parse_raw(tmpl);
	if (!k->btf) {
		snprintf(err, errlen, "%s: pahole produced no readable BTF", vmlinux);
		return -1;
	}
	return 0;
}

/*
 * A compressed --btf or --vmlinux: decompressed into an unnamed file of the
 * lab's own (in $TMPDIR, else /tmp), read by its /proc/self/fd path.  The
 * descriptor is inherited by pahole (a DWARF vmlinux, a capture's text) and
 * closed with the kbtf.
 */
static int open_decompressed(struct kbtf *k, const char *path, enum zkind zk, char *err, size_t errlen)
{
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	uint64_t bytes;
	int fd = anon_tmpfile(tmpdir, false);

	if (fd < 0)
		return set_err(err, errlen, "%s: %s-compressed: cannot create a file in %s for its decompressed copy: "
			       "%s", path, z_name(zk), tmpdir, strerror(-fd));
	k->zfd = fd;
	k->compression = z_name(zk);
	k->read_path = xasprintf("/proc/self/fd/%d", fd);
	if (z_decompress_fd(path, zk, fd, KBTF_DECOMPRESSED_MAX, &bytes, err, errlen))
		return -1;
	if (!bytes)
		return set_err(err, errlen, "%s: %s-compressed, and empty inside", path, z_name(zk));
	return 0;
}

/* The file path (named name in messages), whose first n bytes are magic. */
static int open_file(struct kbtf *k, const char *path, const char *name, const unsigned char *magic, ssize_t n,
		     char *err, size_t errlen)
{
	if (n >= 2 && magic[0] == 0x9f && magic[1] == 0xeb) {
		k->source = KBTF_RAW;
		unsupported_kind = -1;
		k->btf = btf__parse_raw(path);
		if (!k->btf) {
			if (!unknown_kind_reason(name, err, errlen))
				snprintf(err, errlen, "%s: BTF magic but the BTF is damaged or truncated", name);
			return -1;
		}
		k->release = release_from_name(k->path);
		k->release_evidence = xstrdup(k->release ? "file name (raw BTF carries no release)"
							 : "unknown (raw BTF carries no release)");
		return 0;
	}
	if (n >= 4 && !memcmp(magic, "\177ELF", 4)) {
		struct elf_facts f;

		if (elf_inspect(path, name, &f, err, errlen))
			return -1;
		if (f.release[0]) {
			k->release = xstrdup(f.release);
			k->release_evidence = xstrdup("vmlinux .rodata banner (\"Linux version ...\")");
		} else {
			k->release = release_from_name(k->path);
			k->release_evidence = xstrdup(k->release ? "file name" : "unknown (no banner in .rodata)");
		}
		if (f.has_btf) {
			k->source = KBTF_ELF;
			unsupported_kind = -1;
			k->btf = btf__parse_elf(path, NULL);
			if (!k->btf) {
				if (!unknown_kind_reason(name, err, errlen))
					snprintf(err, errlen, "%s: .BTF section is unreadable", name);
				return -1;
			}
			return 0;
		}
		if (f.has_dwarf) {
			k->source = KBTF_DWARF;
			if (!open_dwarf(k, path, name, err, errlen))
				return 0;
			/* Callers die on failure: remove pahole's file now. */
			if (k->tmp_btf)
				unlink(k->tmp_btf);
			return -1;
		}
		snprintf(err, errlen, "%s: ELF file with neither .BTF nor DWARF (.debug_info): "
			 "build with CONFIG_DEBUG_INFO_BTF or CONFIG_DEBUG_INFO", name);
		return -1;
	}
	if (k->compression)
		snprintf(err, errlen, "%s: neither BTF nor ELF inside (first bytes %02x %02x %02x %02x)", name,
			 magic[0], magic[1], magic[2], magic[3]);
	else
		snprintf(err, errlen, "%s: neither BTF nor ELF (first bytes %02x %02x %02x %02x)", name,
			 magic[0], magic[1], magic[2], magic[3]);
	return -1;
}

int kbtf_open(struct kbtf *k, const char *btf_file, const char *vmlinux, char *err, size_t errlen)
{
	unsigned char magic[6] = { 0 };
	const char *path, *name;
	char *namebuf = NULL;
	enum zkind zk;
	ssize_t n;
	int fd, rc = 0;

	memset(k, 0, sizeof(*k));
	k->zfd = -1;
	libbpf_set_print(silent_libbpf);
	if (btf_file && vmlinux) {
		snprintf(err, errlen, "--btf and --vmlinux are exclusive");
		return -1;
	}
	if (!btf_file && !vmlinux) {
		struct utsname u;

		k->source = KBTF_RUNNING;
		k->path = xstrdup(RUNNING_BTF);
		if (!path_exists(RUNNING_BTF)) {
			snprintf(err, errlen, "%s: missing: the running kernel has no BTF (CONFIG_DEBUG_INFO_BTF); "
				 "use --btf FILE or --vmlinux FILE", RUNNING_BTF);
			return -1;
		}
		unsupported_kind = -1;
		k->btf = btf__load_vmlinux_btf();
		if (!k->btf) {
			int e = errno;

			if (!unknown_kind_reason(RUNNING_BTF, err, errlen))
				snprintf(err, errlen, "%s: cannot load: %s", RUNNING_BTF, strerror(e));
			return -1;
		}
		uname(&u);
		k->release = xstrdup(u.release);
		k->release_evidence = xstrdup("uname -r");
		return 0;
	}

	path = btf_file ? btf_file : vmlinux;
	k->path = xstrdup(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		char near[1024];

		if (e == ENOENT && !nearest_names(path, near, sizeof(near)))
			snprintf(err, errlen, "%s: cannot open: %s (nearest: %s)", path, strerror(e), near);
		else
			snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		return -1;
	}
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	name = path;
	zk = z_kind(magic, (size_t)n);
	if (zk != Z_NONE) {
		/* Read from the decompressed copy; named as given, with its compression. */
		rc = open_decompressed(k, path, zk, err, errlen);
		if (!rc) {
			path = k->read_path;
			name = namebuf = xasprintf("%s (%s)", k->path, z_name(zk));
			memset(magic, 0, sizeof(magic));
			n = pread(k->zfd, magic, sizeof(magic), 0);
		}
	}
	if (!rc)
		rc = open_file(k, path, name, magic, n, err, errlen);
	free(namebuf);
	if (rc && k->zfd >= 0) {
		/* A caller that does not close a failed kbtf leaks nothing of it. */
		close(k->zfd);
		k->zfd = -1;
		free(k->read_path);
		k->read_path = NULL;
	}
	return rc;
}

void kbtf_close(struct kbtf *k)
{
	btf__free(k->btf);
	if (k->tmp_btf) {
		unlink(k->tmp_btf);
		free(k->tmp_btf);
	}
	if (k->zfd >= 0)
		close(k->zfd);
	free(k->read_path);
	free(k->path);
	free(k->release);
	free(k->release_evidence);
	memset(k, 0, sizeof(*k));
	k->zfd = -1;
}

/* Strips qualifiers and typedefs. */
static int resolve(const struct btf *btf, int id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

int kbtf_resolve(const struct kbtf *k, int type_id)
{
	return resolve(k->btf, type_id);
}

static int find_kind(const struct kbtf *k, const char *name, int kind)
{
	int id = btf__find_by_name_kind(k->btf, name, kind);

	return id > 0 ? id : -1;
}

int kbtf_find_struct(const struct kbtf *k, const char *name)
{
	return find_kind(k, name, BTF_KIND_STRUCT);
}

int kbtf_find_union(const struct kbtf *k, const char *name)
{
	return find_kind(k, name, BTF_KIND_UNION);
}

bool kbtf_has_typedef(const struct kbtf *k, const char *name)
{
	return find_kind(k, name, BTF_KIND_TYPEDEF) > 0;
}

int kbtf_func_nparams(const struct kbtf *k, const char *name)
{
	int id = find_kind(k, name, BTF_KIND_FUNC);
	const struct btf_type *t;

	if (id < 0)
		return -1;
	t = btf__type_by_id(k->btf, id);
	t = btf__type_by_id(k->btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t);
}

/*
 * The first VAR of a DATASEC that match() accepts (by name or by type):
 * its name and offset; 0, or -1 when the section or such a VAR is absent.
 */
static int datasec_find(const struct kbtf *k, const char *sec,
			bool (*match)(const struct kbtf *k, const struct btf_type *v, const void *arg),
			const void *arg, const char **name, uint64_t *off)
{
	int id = find_kind(k, sec, BTF_KIND_DATASEC);
	const struct btf_type *t;
	const struct btf_var_secinfo *vi;

	if (id < 0)
		return -1;
	t = btf__type_by_id(k->btf, id);
	vi = btf_var_secinfos(t);
	for (int i = 0; i < btf_vlen(t); i++, vi++) {
		const struct btf_type *v = btf__type_by_id(k->btf, vi->type);

		if (!v || !btf_is_var(v) || !match(k, v, arg))
			continue;
		if (name)
			*name = btf__name_by_offset(k->btf, v->name_off);
		if (off)
			*off = vi->offset;
		return 0;
	}
	return -1;
}

static bool var_named(const struct kbtf *k, const struct btf_type *v, const void *name)
{
	return !strcmp(btf__name_by_offset(k->btf, v->name_off), name);
}

static bool var_of_type(const struct kbtf *k, const struct btf_type *v, const void *type_id)
{
	return resolve(k->btf, v->type) == resolve(k->btf, *(const int *)type_id);
}

int kbtf_datasec_var_offset(const struct kbtf *k, const char *sec, const char *var, uint64_t *off)
{
	return datasec_find(k, sec, var_named, var, NULL, off);
}

bool kbtf_has_datasec_var(const struct kbtf *k, const char *sec, const char *var)
{
	return kbtf_datasec_var_offset(k, sec, var, NULL) == 0;
}

bool kbtf_has_datasec(const struct kbtf *k, const char *sec)
{
	return find_kind(k, sec, BTF_KIND_DATASEC) > 0;
}

int kbtf_datasec_var_of_type(const struct kbtf *k, const char *sec, int type_id,
			     char *var, size_t n, uint64_t *off)
{
	const char *name;

	if (datasec_find(k, sec, var_of_type, &type_id, &name, off))
		return -1;
	snprintf(var, n, "%s", name);
	return 0;
}

long kbtf_type_size(const struct kbtf *k, int type_id)
{
	long long s = btf__resolve_size(k->btf, type_id);

	return s < 0 ? -1 : (long)s;
}

void kbtf_type_name(const struct kbtf *k, int type_id, char *buf, size_t n)
{
	const struct btf_type *t = btf__type_by_id(k->btf, type_id);
	const char *name;
	char inner[192];

	if (!t || type_id == 0) {
		snprintf(buf, n, "void");
		return;
	}
	name = btf__name_by_offset(k->btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
		snprintf(buf, n, "struct %s", name[0] ? name : "{...}");
		break;
	case BTF_KIND_UNION:
		snprintf(buf, n, "union %s", name[0] ? name : "{...}");
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		snprintf(buf, n, "enum %s", name[0] ? name : "{...}");
		break;
	case BTF_KIND_PTR:
		kbtf_type_name(k, t->type, inner, sizeof(inner));
		snprintf(buf, n, "%s *", inner);
		break;
	case BTF_KIND_ARRAY:
		kbtf_type_name(k, btf_array(t)->type, inner, sizeof(inner));
		snprintf(buf, n, "%s[%u]", inner, btf_array(t)->nelems);
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		kbtf_type_name(k, t->type, buf, n);
		break;
	case BTF_KIND_FUNC_PROTO:
		snprintf(buf, n, "function");
		break;
	default:
		snprintf(buf, n, "%s", name[0] ? name : "?");
	}
}

struct walk {
	const struct kbtf *k;
	int max_depth;
	kbtf_field_cb cb;
	void *arg;
};

static int walk_members(struct walk *w, int type_id, uint64_t base_bits, const char *prefix, int depth)
{
	const struct btf_type *t = btf__type_by_id(w->k->btf, type_id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t))
		return 0;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mname = btf__name_by_offset(w->k->btf, m->name_off);
		uint64_t bits = base_bits + btf_member_bit_offset(t, i);
		int rid = resolve(w->k->btf, m->type);
		const struct btf_type *rt = btf__type_by_id(w->k->btf, rid);
		struct kbtf_field f;
		long long sz;
		int r;

		if (!mname[0] && rt && btf_is_composite(rt)) {
			/* Anonymous struct/union: its members belong to this level. */
			r = walk_members(w, rid, bits, prefix, depth);
			if (r)
				return r;
			continue;
		}
		memset(&f, 0, sizeof(f));
		if (prefix[0])
			snprintf(f.name, sizeof(f.name), "%s.%s", prefix, mname);
		else
			snprintf(f.name, sizeof(f.name), "%s", mname);
		f.offset = bits / 8;
		f.bit_offset = bits % 8;
		f.bit_size = btf_member_bitfield_size(t, i);
		sz = btf__resolve_size(w->k->btf, m->type);
		f.size = sz < 0 ? 0 : (uint64_t)sz;
		if (f.bit_size)
			f.size = (f.bit_offset + f.bit_size + 7) / 8;
		f.type_id = m->type;
		f.resolved_id = rid;
		f.depth = depth;
		f.aggregate = rt && btf_is_composite(rt);
		if (rt && btf_is_array(rt)) {
			f.nelems = btf_array(rt)->nelems;
			f.elem_id = resolve(w->k->btf, btf_array(rt)->type);
		}
		r = w->cb(&f, w->arg);
		if (r)
			return r;
		if (f.aggregate && depth < w->max_depth) {
			char sub[256];

			snprintf(sub, sizeof(sub), "%s", f.name);
			r = walk_members(w, rid, bits, sub, depth + 1);
			if (r)
				return r;
		}
	}
	return 0;
}

int kbtf_walk_fields(const struct kbtf *k, int type_id, int max_depth, kbtf_field_cb cb, void *arg)
{
	struct walk w = { k, max_depth, cb, arg };

	return walk_members(&w, resolve(k->btf, type_id), 0, "", 0);
}

struct find_member {
	const char *name;
	struct kbtf_field *out;
	bool found;
};

static int match_member(const struct kbtf_field *f, void *arg)
{
	struct find_member *fm = arg;

	if (strcmp(f->name, fm->name))
		return 0;
	*fm->out = *f;
	fm->found = true;
	return 1;
}

int kbtf_member(const struct kbtf *k, int type_id, const char *name, struct kbtf_field *out)
{
	struct find_member fm = { name, out, false };
	int depth = 0;

	for (const char *p = name; *p; p++)
		depth += *p == '.';
	kbtf_walk_fields(k, type_id, depth, match_member, &fm);
	return fm.found ? 0 : -1;
}
