/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel under test's types, from BTF through libbpf.
 *
 * Four inputs: the running kernel (/sys/kernel/btf/vmlinux), a raw BTF blob,
 * an ELF vmlinux with a .BTF section, and a DWARF-only vmlinux, which is
 * converted with `pahole --btf_encode_detached` into a temporary file.
 * Each file may be xz, gzip or zstd compressed (told by its magic bytes,
 * util/decompress.h): it is decompressed into an unnamed file of the lab's
 * own, at most 1 GiB.
 * Offsets and sizes always come from BTF, never from pahole's text.
 */
#ifndef LAB_KERNEL_BTF_H
#define LAB_KERNEL_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

enum kbtf_source {
	KBTF_RUNNING,	/* /sys/kernel/btf/vmlinux */
	KBTF_RAW,	/* a raw BTF file (--btf) */
	KBTF_ELF,	/* an ELF vmlinux with .BTF (--vmlinux) */
	KBTF_DWARF,	/* a DWARF-only vmlinux converted by pahole (--vmlinux) */
};

struct kbtf {
	struct btf *btf;
	enum kbtf_source source;
	char *path;		/* the file the types came from (as given) */
	char *release;		/* kernel release, or NULL when unknown */
	char *release_evidence;	/* where the release came from */
	char *tmp_btf;		/* pahole's detached BTF (removed on close) */
	const char *compression;	/* "xz", "gzip", "zstd" for a compressed file, else NULL */
	int zfd;		/* its decompressed copy (an unnamed file), -1 when none */
	char *read_path;	/* /proc/self/fd/N of that copy, or NULL */
};

/*
 * Opens BTF: btf_file (raw BTF, or ELF with .BTF), vmlinux (ELF: .BTF, else
 * DWARF through pahole), or the running kernel when both are NULL.  Returns
 * 0, or -1 with a one-line reason naming the file in err.
 */
int kbtf_open(struct kbtf *k, const char *btf_file, const char *vmlinux, char *err, size_t errlen);
void kbtf_close(struct kbtf *k);
/* The file whose bytes are the BTF (or the ELF) to hand to a tool such as
 * pahole: pahole's detached BTF, the decompressed copy, or the path. */
const char *kbtf_file(const struct kbtf *k);
const char *kbtf_source_name(enum kbtf_source s);

/* Type ids (>0), or -1 when absent. */
int kbtf_find_struct(const struct kbtf *k, const char *name);
int kbtf_find_union(const struct kbtf *k, const char *name);
bool kbtf_has_typedef(const struct kbtf *k, const char *name);
/* Parameter count of a FUNC's prototype, or -1 when no FUNC of that name. */
int kbtf_func_nparams(const struct kbtf *k, const char *name);
/* Offset of a VAR in a DATASEC (e.g. ".data..percpu"); 0 or -1 when absent. */
int kbtf_datasec_var_offset(const struct kbtf *k, const char *sec, const char *var, uint64_t *off);
bool kbtf_has_datasec_var(const struct kbtf *k, const char *sec, const char *var);
/* The type behind typedefs and const/volatile/restrict/type tags. */
int kbtf_resolve(const struct kbtf *k, int type_id);
bool kbtf_has_datasec(const struct kbtf *k, const char *sec);
/*
 * The first VAR in a DATASEC whose type (after typedefs and qualifiers) is
 * type_id, e.g. the per-cpu `memcg_stock` of struct memcg_stock_pcp: its
 * name into var (n bytes) and its offset; 0, or -1 when there is none.
 */
int kbtf_datasec_var_of_type(const struct kbtf *k, const char *sec, int type_id,
			     char *var, size_t n, uint64_t *off);
/* Size in bytes of a type id, or -1. */
long kbtf_type_size(const struct kbtf *k, int type_id);
/* Printable type name ("unsigned long", "struct page_counter", "uint8_t[7]"). */
void kbtf_type_name(const struct kbtf *k, int type_id, char *buf, size_t n);

/* One member of a struct, flattened with its nested name. */
struct kbtf_field {
	char name[256];		/* "memory.usage", "cached" (anonymous levels omitted) */
	uint64_t offset;	/* bytes from the start of the outer struct */
	uint64_t size;		/* bytes (0 for zero-size members such as _pad1_) */
	uint32_t bit_offset;	/* bit offset within the byte, for bitfields */
	uint32_t bit_size;	/* bitfield width, 0 if not a bitfield */
	int type_id;		/* member type as declared */
	int resolved_id;	/* after typedefs and qualifiers */
	uint32_t nelems;	/* array length, 0 if not an array */
	int elem_id;		/* array element type (resolved), 0 if not an array */
	int depth;		/* 0 for direct members */
	bool aggregate;		/* a struct/union (its members follow when expanded) */
};

typedef int (*kbtf_field_cb)(const struct kbtf_field *f, void *arg);

/*
 * Walks the members of a struct/union, expanding nested structs and unions
 * up to max_depth levels (0: direct members only; anonymous members are
 * always expanded and do not count as a level).  Aggregates are reported
 * before their members.  A callback returning non-zero stops the walk.
 */
int kbtf_walk_fields(const struct kbtf *k, int type_id, int max_depth, kbtf_field_cb cb, void *arg);
/* Finds a member by its nested name ("memory.usage"); 0 or -1. */
int kbtf_member(const struct kbtf *k, int type_id, const char *name, struct kbtf_field *out);

#endif
