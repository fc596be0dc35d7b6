/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest's lab left beside the plugin's counts (c2c/lines_session.h
 * writes it; formats in lab/c2c/README), read back on the host: the
 * windows and their labels, per window the run's kernel objects (named
 * from the guest kernel's BTF) and the lab's own memory ranges, and the
 * guest kernel's kallsyms and build ID.  lines_guest_name() names a guest
 * virtual address in a window: struct and field.
 *
 * The objects' structs come from the guest kernel's BTF (vmlinux.btf), or
 * from objects.btf where a program in the guest named objects of its own
 * (a user program's structs, its BTF made by pahole from its DWARF:
 * lab/tests/tools/lines-truth.c -b): it then names every object of the run.
 */
#ifndef LAB_C2C_LINES_GUEST_H
#define LAB_C2C_LINES_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "c2c/c2c_attr.h"
#include "kernel/btf.h"

#define LINES_OBJECTS_BTF "objects.btf"

struct lines_gwindow {
	int64_t index;		/* the plugin's window number */
	char *label, *who;
	int repeat;
	int64_t ops;		/* the measured process's operations in it (window-ops.tsv); -1: not counted */
	char *unit;		/* theirs ("charges", "reads"); NULL when not counted */
};

struct lines_gfield {
	char *name;
	uint64_t off, size;
};

struct lines_grange {
	int64_t window;
	char *name;
	uint64_t addr, size, stride;
	struct lines_gfield *fields;
	size_t nfields;
};

struct lines_gobject {
	int64_t window;
	struct c2c_object o;	/* type_id from the guest's BTF */
};

struct lines_guest {
	struct lines_gwindow *win;
	size_t nwin;
	struct lines_gobject *obj;
	size_t nobj;
	struct lines_grange *rng;
	size_t nrng;
	struct kbtf btf;
	bool have_btf;
	uint64_t text;		/* _text in the guest's kallsyms (0: none) */
	uint8_t build_id[20];
	unsigned build_id_len;	/* 0: no notes, or no GNU build ID in them */
	char *kallsyms;		/* its path, NULL when the guest sent none */
	char *release;		/* the guest kernel's release (guest.txt), or NULL */
	/* The guest's memory controller (guest.txt's memory_cgroup): names
	 * union members, mem_cgroup's swap (v2) or memsw (v1) */
	enum field_cgroup cgroup;
};

/*
 * Reads DIR/lines/ (and DIR/guest.txt: the release, the cgroup version).  Files the guest did not send are
 * absent (a --shell run); a file that is there must be whole: 0, or -1 with
 * one line naming the file, line and field.  Objects need the guest's BTF
 * to hold their struct: a kernel whose BTF lacks one is refused, naming it.
 */
int lines_guest_load(struct lines_guest *g, const char *dir, char *err, size_t errlen);
void lines_guest_free(struct lines_guest *g);

/* The label of window index (NULL: unlabelled). */
const char *lines_guest_label(const struct lines_guest *g, int64_t index);

/* What an address is in a window. */
struct lines_gname {
	const char *st;		/* struct name ("mem_cgroup", "hslot"), NULL: nothing known */
	char field[256];	/* "memory.usage" */
	uint64_t off, size;	/* the field's, within its struct */
	uint64_t base;		/* the object's (element's) first byte */
	const void *object;	/* the object (or range) it is in */
};

/* Names vaddr in window w (-1: the windows add up, any window's objects);
 * false when no object or range holds it. */
bool lines_guest_name(const struct lines_guest *g, int64_t w, uint64_t vaddr, struct lines_gname *out);

#endif
