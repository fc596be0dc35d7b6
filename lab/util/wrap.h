/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text wrapped to a width: help texts, and the reports a user pastes into
 * a mail (layout --check and --against: 80 columns).
 */
#ifndef LAB_UTIL_WRAP_H
#define LAB_UTIL_WRAP_H

#include <stdio.h>

/*
 * Prints the words of text (split at spaces; a '\n' starts a new line) on
 * f, the first one at column col (the caller has printed col columns of the
 * line, its separator included), wrapping before a word that would pass
 * width columns; every later line starts with indent spaces.  A word wider
 * than the room left is printed whole; WRAP_NBSP joins words.  width <= 0: one line, never
 * wrapped.  Returns the column after the last word.
 */
int wrap_words(FILE *f, const char *text, int col, int indent, int width);

/* A space that does not break a line (it prints as a space): a C type
 * name ("struct mem_cgroup *[7]") stays on one line. */
#define WRAP_NBSP '\x1f'
/* Turns the spaces of s into WRAP_NBSP. */
void wrap_nobreak(char *s);

/* The same for a formatted text (at most 4 KiB). */
int wrap_printf(FILE *f, int col, int indent, int width, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
