// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "analyze/tracedata.h"

struct reader {
	const uint8_t *p, *end;
	bool swap;
	const char *what;
	char *err;
	size_t errlen;
	const uint8_t *start;
};

static int fail(struct reader *r, const char *fmt, const char *arg)
{
	char msg[200];

	snprintf(msg, sizeof(msg), fmt, arg);
	snprintf(r->err, r->errlen, "%s: %s (at byte %zu of %zu)", r->what, msg,
		 (size_t)(r->p - r->start), (size_t)(r->end - r->start));
	return -1;
}

static int take(struct reader *r, size_t n, const uint8_t **out, const char *field)
{
	if ((size_t)(r->end - r->p) < n)
		return fail(r, "truncated in %s", field);
	*out = r->p;
	r->p += n;
	return 0;
}

static int read_u32(struct reader *r, uint32_t *v, const char *field)
{
	const uint8_t *b;

	if (take(r, 4, &b, field))
		return -1;
	memcpy(v, b, 4);
	if (r->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

static int read_u64(struct reader *r, uint64_t *v, const char *field)
{
	const uint8_t *b;

	if (take(r, 8, &b, field))
		return -1;
	memcpy(v, b, 8);
	if (r->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

static int read_str(struct reader *r, const char **s, const char *field)
{
	const uint8_t *nul = memchr(r->p, '\0', r->end - r->p);

	if (!nul)
		return fail(r, "unterminated string in %s", field);
	*s = (const char *)r->p;
	r->p = nul + 1;
	return 0;
}

/* One counted list of formats: u64 size + text each. */
static int read_formats(struct reader *r, struct tep_handle *tep, const char *sys)
{
	uint32_t count;

	if (read_u32(r, &count, "format count"))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *text;
		uint64_t size;

		if (read_u64(r, &size, "format size") || size > (uint64_t)(r->end - r->p))
			return fail(r, "bad format size in system %s", sys);
		if (take(r, size, &text, "format"))
			return -1;
		/*
		 * Only the fields are needed, never the print format: cut it
		 * off.  It is the costly part to parse, and libtraceevent 1.7
		 * crashes on some malformed ones (found by fuzz-perfdata).
		 * A format the library cannot parse is skipped, as perf does;
		 * users of that event then find no format and say so.
		 */
		{
			const char *pf = memmem(text, size, "\nprint fmt:", 11);

			tep_parse_event(tep, (const char *)text, pf ? (size_t)(pf - (const char *)text) + 1 : size, sys);
		}
	}
	return 0;
}

struct tep_handle *tracedata_parse(const uint8_t *buf, size_t len, const char *what,
				   char *err, size_t errlen)
{
	static const uint8_t magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct reader r = { buf, buf + len, false, what, err, errlen, buf };
	const uint8_t *b, *hp;
	const char *version, *sys;
	struct tep_handle *tep;
	uint32_t page_size, nsys;
	uint64_t size;
	int file_be, long_size;

	if (len < sizeof(magic) || memcmp(buf, magic, sizeof(magic))) {
		snprintf(err, errlen, "%s: not perf tracing data (bad magic)", what);
		return NULL;
	}
	r.p += sizeof(magic);
	if (read_str(&r, &version, "version") || take(&r, 2, &b, "endianness"))
		return NULL;
	file_be = b[0];
	long_size = b[1];
	r.swap = file_be != (__BYTE_ORDER == __BIG_ENDIAN);
	if (read_u32(&r, &page_size, "page size"))
		return NULL;
	tep = tep_alloc();
	if (!tep) {
		snprintf(err, errlen, "%s: out of memory", what);
		return NULL;
	}
	tep_set_file_bigendian(tep, file_be ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, page_size);

	if (take(&r, 12, &b, "header_page") || memcmp(b, "header_page", 12)) {
		fail(&r, "%s", "no header_page section");
		goto fail;
	}
	if (read_u64(&r, &size, "header_page size") || take(&r, size, &hp, "header_page"))
		goto fail;
	tep_parse_header_page(tep, (char *)hp, size, long_size);
	if (take(&r, 13, &b, "header_event") || memcmp(b, "header_event", 13)) {
		fail(&r, "%s", "no header_event section");
		goto fail;
	}
	if (read_u64(&r, &size, "header_event size") || take(&r, size, &b, "header_event"))
		goto fail;
	if (read_formats(&r, tep, "ftrace"))
		goto fail;
	if (read_u32(&r, &nsys, "system count"))
		goto fail;
	for (uint32_t i = 0; i < nsys; i++) {
		if (read_str(&r, &sys, "system name") || read_formats(&r, tep, sys))
			goto fail;
	}
	/* kallsyms, printk formats and saved cmdlines follow; not needed. */
	(void)version;
	return tep;
fail:
	tep_free(tep);
	return NULL;
}
