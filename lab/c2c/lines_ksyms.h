/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest kernel's code symbols on their way to the host (vm --lines):
 * /proc/kallsyms's t, T, w, W lines but the functions' padding (__pfx_*),
 * each address written as its difference from the line before, in hex
 * ("-" before a negative one), so that the payload, which crawls through a
 * serial port, is 45% smaller gzipped (638 K against 1149 K for 7.3's
 * 154 K code symbols, 60 K of them __pfx_).
 * Decoding gives back the lines kept as /proc/kallsyms printed them.
 *
 *   # memcg-lab kallsyms-delta 1
 *   ffffffff81000000 T _stext
 *   0 T _text
 *   1a0 t foo	[ext4]
 */
#ifndef LAB_C2C_LINES_KSYMS_H
#define LAB_C2C_LINES_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LINES_KSYMS_DELTA_HEADER "# memcg-lab kallsyms-delta 1\n"

/* One /proc/kallsyms line: false when it is not a code symbol, or a
 * function's padding (kept out), or not "ADDR TYPE NAME"; else written to
 * out, *prev its address. */
bool lines_ksyms_encode_line(const char *line, uint64_t *prev, FILE *out);

/* A delta text back into kallsyms text (malloc'd, NUL-terminated, its
 * length in *outlen), or NULL with "name:LINE: what" in err. */
char *lines_ksyms_decode(const char *name, const char *text, size_t *outlen, char *err, size_t errlen);

#endif
