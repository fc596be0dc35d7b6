/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_CMD_REPORT_H
#define LAB_CMD_REPORT_H

#include <stdio.h>

/* Writes the report of a results directory; 0, or -1 with err. */
int report_write(const char *dir, FILE *out, char *err, size_t errlen);

#endif
