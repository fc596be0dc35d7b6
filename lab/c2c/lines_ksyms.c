// SPDX-License-Identifier: GPL-2.0
/* The guest kernel's code symbols, delta-encoded for the payload (c2c/lines_ksyms.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "c2c/lines_ksyms.h"
#include "util/err.h"

bool lines_ksyms_encode_line(const char *line, uint64_t *prev, FILE *out)
{
	const char *sp = strchr(line, ' '), *end;
	unsigned long long a;
	int64_t d;

	/* "ADDR TYPE NAME...": t, T, w, W only (what perf names code by) */
	if (!sp || !sp[1] || !strchr("tTwW", sp[1]) || sp[2] != ' ' || !isxdigit((unsigned char)line[0]))
		return false;
	/* __pfx_NAME: the padding before NAME (6.2 on, CONFIG_FUNCTION_PADDING),
	 * two fifths of the code symbols; no instruction there touches memory,
	 * so no site of the plugin's is in one (c2c.txt the same without). */
	if (!strncmp(sp + 3, "__pfx_", 6))
		return false;
	a = strtoull(line, (char **)&end, 16);
	if (end != sp)
		return false;
	d = (int64_t)(a - *prev);
	*prev = a;
	if (d < 0)
		fprintf(out, "-%llx%s", (unsigned long long)-(uint64_t)d, sp);
	else
		fprintf(out, "%llx%s", (unsigned long long)d, sp);
	return true;
}

char *lines_ksyms_decode(const char *name, const char *text, size_t *outlen, char *err, size_t errlen)
{
	size_t cap = strlen(text) * 2 + 64, n = 0, hl = strlen(LINES_KSYMS_DELTA_HEADER);
	char *out;
	uint64_t prev = 0;
	unsigned lineno = 1;

	if (strncmp(text, LINES_KSYMS_DELTA_HEADER, hl)) {
		set_err(err, errlen, "%s:1: not a memcg-lab kallsyms-delta 1 file", name);
		return NULL;
	}
	out = xmalloc(cap);
	for (const char *l = text + hl; *l; lineno++) {
		const char *nl = strchr(l, '\n'), *sp;
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		bool neg = *l == '-';
		char *end;
		unsigned long long d;

		errno = 0;
		d = strtoull(l + neg, &end, 16);
		sp = end;
		if (!isxdigit((unsigned char)l[neg]) || errno || *sp != ' ' || sp > l + len) {
			set_err(err, errlen, "%s:%u: not 'DELTA TYPE NAME'", name, lineno + 1);
			free(out);
			return NULL;
		}
		prev += neg ? -(uint64_t)d : (uint64_t)d;
		/* 16 hex digits, the rest of the line as it was */
		if (n + 17 + (size_t)(l + len - sp) + 2 > cap) {
			cap = 2 * cap + 17 + len;
			out = xrealloc(out, cap);
		}
		n += (size_t)snprintf(out + n, cap - n, "%016llx", (unsigned long long)prev);
		memcpy(out + n, sp, (size_t)(l + len - sp));
		n += (size_t)(l + len - sp);
		out[n++] = '\n';
		l = nl ? nl + 1 : l + len;
	}
	out[n] = '\0';
	*outlen = n;
	return out;
}
