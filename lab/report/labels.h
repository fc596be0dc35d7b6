/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each side of a comparison is called in compare's header, the
 * plots' legends and report --mail: the user's --label A=TEXT, else its
 * kernel release (with a lab kernel's patches), else -- where two sides
 * have the same release, as a rebuilt patched kernel usually has -- its
 * results directory's name.
 */
#ifndef LAB_REPORT_LABELS_H
#define LAB_REPORT_LABELS_H

#include <stddef.h>
#include <json-c/json.h>
#include "util/options.h"

#define LABELS_MAX 26
#define LABEL_LEN 128

struct labels {
	const char *given[LABELS_MAX];	/* --label, by side; NULL where none */
};

/*
 * The --label arguments of cmd ("A=base", "B=patched") for ndirs sides
 * into l; a bad one (no "X=", a side past the last directory, an empty
 * or over-long text, a control character, a side given twice) is one
 * line naming it, exit 2.
 */
void labels_parse(struct labels *l, const char *cmd, const struct option_list *args, int ndirs);
/* The label of each of dirs[0..ndirs) into out (LABEL_LEN each); a
 * directory whose meta.json cannot be read goes by its name. */
void labels_of(const struct labels *l, const char *const *dirs, int ndirs, char (*out)[LABEL_LEN]);
/* A lab kernel's patches from meta.json's vm.kernel_package: " +a +b", or
 * " unpatched"; "" for any other kernel. */
void labels_lab_patches(json_object *meta, char *buf, size_t n);

#endif
