// SPDX-License-Identifier: GPL-2.0
/* Text wrapped to a width (util/wrap.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include "util/wrap.h"

int wrap_words(FILE *f, const char *text, int col, int indent, int width)
{
	const char *p = text;
	bool line_start = true;	/* no word yet on this line since col */

	while (*p == ' ')
		p++;
	while (*p) {
		int word = (int)strcspn(p, " \n");
		int need = (line_start ? 0 : 1) + word;

		/* The first word too, when the caller's text left it no room. */
		if (width > 0 && col + need > width && col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			need = word;
		} else if (!line_start) {
			fputc(' ', f);
		}
		/* A word's no-break spaces (WRAP_NBSP) print as spaces. */
		for (int i = 0; i < word; i++)
			fputc(p[i] == WRAP_NBSP ? ' ' : p[i], f);
		col += need;
		line_start = false;
		p += word;
		if (*p == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			line_start = true;
			p++;
		}
		while (*p == ' ')
			p++;
	}
	return col;
}

void wrap_nobreak(char *s)
{
	for (; *s; s++)
		if (*s == ' ')
			*s = WRAP_NBSP;
}

int wrap_printf(FILE *f, int col, int indent, int width, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return wrap_words(f, buf, col, indent, width);
}
