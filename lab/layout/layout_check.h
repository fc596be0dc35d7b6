/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_LAYOUT_LAYOUT_CHECK_H
#define LAB_LAYOUT_LAYOUT_CHECK_H

#include <stddef.h>

struct layout;
struct rules;

/*
 * rules_validate() over the known layouts: lay and every capture under
 * layouts_dir, so a typo in a rule is an error, never a silent n/a.  0, or
 * -1 with err (a capture that cannot be read is one line and exit 2).
 */
int layout_check_against_known(const struct rules *rs, const struct layout *lay, const char *layouts_dir,
				char *err, size_t errlen);

/*
 * Prints the check of every rule on stdout, wrapped at width columns (0:
 * one line per rule and detail); 1 when a hard rule failed, else 0.
 */
int layout_check_print(const struct rules *rs, const struct layout *lay, int width);

#endif
