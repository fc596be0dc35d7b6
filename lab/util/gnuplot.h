/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rendering a gnuplot template (plots/<name>.gp) three ways: PNG and SVG
 * for pages and slides, and gnuplot's dumb terminal (72 columns, 24 rows
 * unless asked for more) to paste into a mail.  Templates never set a terminal or an output; the
 * caller's variables (gnuplot statements) are defined before the template.
 */
#ifndef LAB_UTIL_GNUPLOT_H
#define LAB_UTIL_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

/* false, with why, when gnuplot cannot be run. */
bool gnuplot_available(char *why, size_t n);
/* Mail's line: an ASCII plot fits it. */
#define GNUPLOT_TEXT_COLS 72

/*
 * Writes <out_base>.png, .svg (width x height pixels) and .txt (72
 * columns, text_rows rows: a map has two per cacheline; 0: 24; text and
 * newlines only: the dumb terminal's form feed is taken out), and
 * <out_base>.gp, the script that drew them (one gnuplot run).
 * 0, or -1 with gnuplot's first error line in err, or with the output it
 * left cut short (a full disk; reported as util/outfile.h does).
 */
int gnuplot_render(const char *template_name, const char *vars, const char *out_base, int width, int height,
		   int text_rows, char *err, size_t errlen);
/* A string quoted for gnuplot (single quotes doubled, control characters
 * made spaces: one line, one string). malloc'd. */
char *gnuplot_quote(const char *s);
/* Appends "name='value'\n" (value quoted) or "name=N\n" to a malloc'd
 * variable block (*vars may start as NULL). */
void gnuplot_var(char **vars, const char *name, const char *value);
void gnuplot_var_int(char **vars, const char *name, long value);

#endif
