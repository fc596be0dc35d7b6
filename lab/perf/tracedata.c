// SPDX-License-Identifier: GPL-2.0
#include <endian.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "perf/tracedata.h"
#include "util/err.h"

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

/* A "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line as tracefs
 * writes it, brackets balanced and printable: libtraceevent 1.7 reads
 * malformed ones through a NULL pointer (found by fuzz-tracedata). */
static bool field_line_ok(const char *l, size_t n)
{
	const char *semi, *p = l + 7, *end = l + n;
	int depth = 0;
	unsigned off, size;
	int sign, used = 0;
	char tail[96];

	if (n < 8 || strncmp(l, "\tfield:", 7))
		return false;
	semi = memchr(p, ';', end - p);
	if (!semi || semi == p)
		return false;
	for (const char *c = p; c < semi; c++) {
		if ((unsigned char)*c < ' ' || (unsigned char)*c > '~')
			return false;
		depth += *c == '[' ? 1 : *c == ']' ? -1 : 0;
		if (depth < 0 || depth > 1)
			return false;
	}
	if (depth || (size_t)(end - semi) >= sizeof(tail))
		return false;
	memcpy(tail, semi + 1, end - semi - 1);
	tail[end - semi - 1] = '\0';
	if (sscanf(tail, "\toffset:%u;\tsize:%u;\tsigned:%d;%n", &off, &size, &sign, &used) != 3)
		return false;
	return tail[used] == '\0';
}

/*
 * The part of an event format the lab reads (name, ID, fields), with
 * every line that is not what tracefs writes dropped, so that only
 * well-formed text reaches libtraceevent.  Returns the length written.
 */
static size_t clean_format(const char *in, size_t n, char *out)
{
	const char *end = in + n, *l = in;
	size_t k = 0;

	while (l < end) {
		const char *nl = memchr(l, '\n', end - l);
		size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);
		bool keep = (len > 6 && !strncmp(l, "name: ", 6)) || (len > 4 && !strncmp(l, "ID: ", 4)) ||
			    (len == 7 && !strncmp(l, "format:", 7)) || len == 0 || field_line_ok(l, len);

		if (len >= 10 && !strncmp(l, "print fmt:", 10))
			break;
		for (size_t i = 0; keep && i < len; i++)
			if ((unsigned char)l[i] < ' ' && l[i] != '\t')
				keep = false;
		if (keep) {
			memcpy(out + k, l, len);
			k += len;
			out[k++] = '\n';
		}
		l = nl ? nl + 1 : end;
	}
	return k;
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
		 * Only the fields are needed, never the print format: it is cut
		 * off, with every line tracefs would not write (libtraceevent
		 * 1.7 crashes on malformed print formats and field lines, found
		 * by fuzz-perfdata and fuzz-tracedata).  A format the library
		 * still cannot parse is skipped, as perf does; users of that
		 * event then find no format and say so.
		 */
		{
			char *clean = xmalloc(size + 2);
			size_t k = clean_format((const char *)text, size, clean);

			tep_parse_event(tep, clean, k, sys);
			free(clean);
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
