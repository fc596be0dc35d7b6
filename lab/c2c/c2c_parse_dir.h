/* SPDX-License-Identifier: GPL-2.0 */
/* `c2c parse` and `c2c report --out`: one perf c2c report into a directory's TSVs. */
#ifndef LAB_C2C_C2C_PARSE_DIR_H
#define LAB_C2C_C2C_PARSE_DIR_H

#include <stdbool.h>
#include "c2c/c2c_parse.h"

/* c2c_parse_to_dir() or its one line and exit 2; then the warnings on
 * stderr unless quiet (they stay in warnings.tsv). */
void c2c_parse_dir_or_die(const char *path, const char *dir, bool quiet, struct c2c_report *r);

#endif
