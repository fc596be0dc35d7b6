/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_LAYOUT_LAYOUT_PAHOLE_H
#define LAB_LAYOUT_LAYOUT_PAHOLE_H

struct kbtf;
struct layout;

/*
 * Writes dir/<struct>.txt, pahole -F btf's text of each struct present in
 * lay; without pahole, or when it fails, one warning says which files are
 * missing and the capture goes on.
 */
void layout_write_pahole(const struct kbtf *k, const struct layout *lay, const char *dir);

#endif
