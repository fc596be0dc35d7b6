// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/err.h"

const char *lab_progname = "memcg-lab";

/*
 * "<prog>: <prefix><message>" as one line: a newline or another control
 * character in the message can only come from a name the lab was given (a
 * file name may hold one), so it is shown escaped, never as a line break.
 */
static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	fprintf(stderr, "%s: %s", lab_progname, prefix);
	for (const unsigned char *c = (const unsigned char *)msg; *c; c++) {
		if (*c == '\n')
			fputs("\\n", stderr);
		else if ((*c < ' ' && *c != '\t') || *c == 0x7f)
			fprintf(stderr, "\\x%02x", *c);
		else
			fputc(*c, stderr);
	}
	fputc('\n', stderr);
}

void vdie(const char *fmt, va_list ap)
{
	vsay("", fmt, ap);
	exit(EXIT_LAB_ERR);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(fmt, ap);
}

void warnx_lab(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("warning: ", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

int set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", nmemb, n);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		die("out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		die("out of memory");
	return s;
}
