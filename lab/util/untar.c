// SPDX-License-Identifier: GPL-2.0
/*
 * A tar reader of its own (ustar, GNU long names, pax path/linkpath): the
 * archive comes from a guest the host does not trust, so every byte of its
 * headers is checked here, and the extraction does only what the checks
 * allowed, through directory fds (util/untar.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "util/err.h"
#include "util/owned.h"
#include "util/untar.h"

#define BLOCK 512
#define MAX_NAME 4000		/* a whole name, after long-name headers */
#define MAX_EXT (64 * 1024)	/* a GNU long name or pax header's data */
#define MAX_MEMBERS 1000000
#define MAX_LINES 50		/* refusal lines before "... and N more" */

/* ---- the archive's bytes: a gzip file or (uncompressed) memory --------- */

struct src {
	gzFile gz;
	const unsigned char *mem;
	size_t len, pos;
	unsigned long long off;	/* bytes of tar read so far */
};

/* Reads up to n bytes: the count (short at the end), or -1 (a damaged gzip
 * stream: gzerror says why). */
static ssize_t src_read(struct src *s, void *buf, size_t n)
{
	ssize_t r;

	if (s->gz) {
		int got = gzread(s->gz, buf, (unsigned)n);

		if (got < 0)
			return -1;
		r = got;
	} else {
		r = (ssize_t)(s->len - s->pos < n ? s->len - s->pos : n);
		memcpy(buf, s->mem + s->pos, (size_t)r);
		s->pos += (size_t)r;
	}
	s->off += (unsigned long long)r;
	return r;
}

/* ---- reporting ------------------------------------------------------------ */

struct ctx {
	const char *what;	/* the archive, as messages name it */
	FILE *err;
	int lines;		/* refusals so far */
	int destfd;		/* -1: only check */
	struct src src;
};

static void say_line(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say_line(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->lines++;
	if (c->lines > MAX_LINES)
		return;
	fprintf(c->err, "%s: ", c->what);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
}

/* A member name for a message: control bytes and quotes as \xNN, at most
 * 200 bytes (static buffer: one per message argument slot). */
static const char *shown(const char *s, int slot)
{
	static char bufs[2][820];
	char *b = bufs[slot & 1];
	size_t o = 0;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (o >= 800) {
			memcpy(b + o, "...", 3);
			o += 3;
			break;
		}
		if (ch < 0x20 || ch == 0x7f || ch == '\'' || ch == '\\')
			o += (size_t)snprintf(b + o, 5, "\\x%02x", ch);
		else
			b[o++] = (char)ch;
	}
	b[o] = '\0';
	return b;
}

/* ---- headers -------------------------------------------------------------- */

struct hdr {
	char *name, *link;	/* as the archive has them (malloc) */
	char type;
	unsigned mode;
	unsigned long long size, at;	/* data size; the header's byte */
};

static void hdr_free(struct hdr *h)
{
	free(h->name);
	free(h->link);
	memset(h, 0, sizeof(*h));
}

/* An octal field (spaces and NULs around it) or GNU base-256: -1 if bad. */
static long long num_field(const unsigned char *f, size_t n)
{
	unsigned long long v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		if (f[0] != 0x80)	/* negative, or too large */
			return -1;
		for (i = 1; i < n; i++) {
			if (v >> 55)
				return -1;
			v = v << 8 | f[i];
		}
		return (long long)v;
	}
	while (i < n && (f[i] == ' ' || f[i] == '\0'))
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return -1;
		v = v * 8 + (unsigned)(f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return (long long)v;
}

static bool all_zero(const unsigned char *b)
{
	for (int i = 0; i < BLOCK; i++)
		if (b[i])
			return false;
	return true;
}

static bool checksum_ok(const unsigned char *b)
{
	long long want = num_field(b + 148, 8);
	unsigned long u = 0;
	long s = 0;

	for (int i = 0; i < BLOCK; i++) {
		unsigned char ch = i >= 148 && i < 156 ? ' ' : b[i];

		u += ch;
		s += (signed char)ch;
	}
	return want >= 0 && ((unsigned long)want == u || want == s);
}

static char *dupn(const char *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* A NUL-terminated copy of a fixed-size field. */
static char *field_str(const unsigned char *f, size_t n)
{
	size_t len = strnlen((const char *)f, n);
	char *s = xmalloc(len + 1);

	memcpy(s, f, len);
	s[len] = '\0';
	return s;
}

/* Reads a member's data (an extension header's) whole: NULL on a short read. */
static char *read_ext(struct ctx *c, unsigned long long size)
{
	size_t padded = (size_t)((size + BLOCK - 1) / BLOCK * BLOCK);
	char *buf = xmalloc(padded + 1);

	if (src_read(&c->src, buf, padded) != (ssize_t)padded) {
		free(buf);
		return NULL;
	}
	buf[size] = '\0';
	return buf;
}

/* pax "len key=value\n" records: path and linkpath; others are ignored. */
static int parse_pax(const char *p, size_t n, char **name, char **link)
{
	size_t off = 0;

	while (off < n) {
		char *end;
		unsigned long len = strtoul(p + off, &end, 10);
		const char *kv, *eq;

		if (end == p + off || *end != ' ' || len < 5 || len > n - off || p[off + len - 1] != '\n')
			return -1;
		kv = end + 1;
		eq = memchr(kv, '=', (size_t)(p + off + len - 1 - kv));
		if (!eq)
			return -1;
		if ((size_t)(eq - kv) == 4 && !memcmp(kv, "path", 4)) {
			free(*name);
			*name = dupn(eq + 1, (size_t)(p + off + len - 1 - (eq + 1)));
		} else if ((size_t)(eq - kv) == 8 && !memcmp(kv, "linkpath", 8)) {
			free(*link);
			*link = dupn(eq + 1, (size_t)(p + off + len - 1 - (eq + 1)));
		}
		off += len;
	}
	return 0;
}

/*
 * The next member's header, long-name and pax headers folded in: 1 (a
 * member in h), 0 (the end-of-archive block), -1 (damaged: said).
 */
static int next_header(struct ctx *c, struct hdr *h)
{
	char *ext_name = NULL, *ext_link = NULL;
	unsigned char b[BLOCK];

	memset(h, 0, sizeof(*h));
	for (;;) {
		unsigned long long at = c->src.off;
		ssize_t r = src_read(&c->src, b, BLOCK);
		long long size, mode;
		bool posix;

		if (r < 0) {
			say_line(c, "the gzip stream is damaged at byte %llu of the tar", at);
			goto bad;
		}
		if (r == 0) {
			say_line(c, "cut short: no end-of-archive block after byte %llu", at);
			goto bad;
		}
		if (r != BLOCK) {
			say_line(c, "cut short in the header at byte %llu", at);
			goto bad;
		}
		if (all_zero(b)) {
			free(ext_name);
			free(ext_link);
			return 0;
		}
		if (!checksum_ok(b)) {
			say_line(c, "a damaged tar header at byte %llu (its checksum is wrong)", at);
			goto bad;
		}
		posix = !memcmp(b + 257, "ustar\0" "00", 8);
		if (!posix && memcmp(b + 257, "ustar  \0", 8)) {
			say_line(c, "a header at byte %llu that is not ustar", at);
			goto bad;
		}
		size = num_field(b + 124, 12);
		mode = num_field(b + 100, 8);
		if (size < 0 || mode < 0) {
			say_line(c, "a header at byte %llu with a damaged %s field", at, size < 0 ? "size" : "mode");
			goto bad;
		}
		if (b[156] == 'L' || b[156] == 'K' || b[156] == 'x' || b[156] == 'g') {
			char *data;

			if (size > MAX_EXT) {
				say_line(c, "an extended header at byte %llu of %lld bytes (at most %d)", at, size,
					 MAX_EXT);
				goto bad;
			}
			data = read_ext(c, (unsigned long long)size);
			if (!data) {
				say_line(c, "cut short in the extended header at byte %llu", at);
				goto bad;
			}
			if (b[156] == 'L') {
				free(ext_name);
				ext_name = dupn(data, strnlen(data, (size_t)size));
			} else if (b[156] == 'K') {
				free(ext_link);
				ext_link = dupn(data, strnlen(data, (size_t)size));
			} else if (b[156] == 'x' && parse_pax(data, (size_t)size, &ext_name, &ext_link)) {
				free(data);
				say_line(c, "a damaged pax header at byte %llu", at);
				goto bad;
			}
			free(data);
			continue;
		}
		h->at = at;
		h->type = b[156] ? (char)b[156] : '0';
		h->mode = (unsigned)mode;
		h->size = (unsigned long long)size;
		if (ext_name) {
			h->name = ext_name;
		} else if (posix && b[345]) {
			char *prefix = field_str(b + 345, 155), *base = field_str(b, 100);

			h->name = xasprintf("%s/%s", prefix, base);
			free(prefix);
			free(base);
		} else {
			h->name = field_str(b, 100);
		}
		h->link = ext_link ? ext_link : field_str(b + 157, 100);
		if (strlen(h->name) > MAX_NAME || strlen(h->link) > MAX_NAME) {
			say_line(c, "a member at byte %llu with a name longer than %d bytes", at, MAX_NAME);
			hdr_free(h);
			return -1;
		}
		return 1;
	}
bad:
	free(ext_name);
	free(ext_link);
	return -1;
}

/* Skips a member's data and padding: 0, or -1 (cut short: said). */
static int skip_data(struct ctx *c, const struct hdr *h)
{
	unsigned long long left = (h->size + BLOCK - 1) / BLOCK * BLOCK;
	char buf[16 * BLOCK];

	while (left) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);

		if (src_read(&c->src, buf, n) != (ssize_t)n) {
			say_line(c, "member '%s': cut short in its data (%llu bytes from byte %llu)",
				 shown(h->name, 0), h->size, h->at);
			return -1;
		}
		left -= n;
	}
	return 0;
}

/* ---- names ---------------------------------------------------------------- */

/*
 * A member's name made plain ("./a//b/" -> "a/b"): the new string, "" for
 * the directory itself, or NULL with why (an absolute name, '..').
 */
static char *plain_name(const char *raw, const char **why)
{
	char *out = xmalloc(strlen(raw) + 1);
	const char *p = raw;
	size_t o = 0;

	if (raw[0] == '/') {
		*why = "an absolute name";
		free(out);
		return NULL;
	}
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			*why = "a '..' component";
			free(out);
			return NULL;
		}
		if (len > 255) {
			*why = "a component longer than 255 bytes";
			free(out);
			return NULL;
		}
		if (len && !(len == 1 && p[0] == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p += len;
		while (*p == '/')
			p++;
	}
	out[o] = '\0';
	return out;
}

struct member {
	char *raw;		/* as the archive has it (messages name it so) */
	char *name;		/* plain */
	char *link;		/* a symlink's target as it is; a hard link's, plain */
	char type;		/* '0' file, '5' directory, '2' symlink, '1' hard link */
	unsigned mode;
	size_t index;		/* in archive order */
};

struct list {
	struct member *m;	/* archive order */
	size_t n, cap;
	struct member **sorted;	/* by name */
};

static int by_name(const void *a, const void *b)
{
	const struct member *x = *(const struct member *const *)a, *y = *(const struct member *const *)b;
	int d = strcmp(x->name, y->name);

	return d ? d : (x->index < y->index ? -1 : x->index > y->index);
}

/* The first member of that name (NULL if none). */
static const struct member *find(const struct list *l, const char *name, size_t len)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = strncmp(l->sorted[mid]->name, name, len);

		if (!d && l->sorted[mid]->name[len])
			d = 1;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < l->n && !strncmp(l->sorted[lo]->name, name, len) && !l->sorted[lo]->name[len])
		return l->sorted[lo];
	return NULL;
}

static bool is_link(const struct list *l, const char *name, size_t len)
{
	const struct member *m = find(l, name, len);

	return m && m->type == '2';
}

/* A symbolic link's target, resolved from the link's directory without
 * leaving the archive's directory or passing another link: NULL or why. */
static const char *symlink_why(const struct list *l, const struct member *m)
{
	char path[2 * MAX_NAME + 8];
	const char *slash = strrchr(m->name, '/'), *p = m->link;
	size_t o = slash ? (size_t)(slash - m->name) : 0;

	if (!*p)
		return "a symbolic link to nothing";
	if (*p == '/')
		return "a symbolic link to an absolute path";
	memcpy(path, m->name, o);
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (!o)
				return "a symbolic link out of the directory";
			while (o && path[o - 1] != '/')
				o--;
			if (o)
				o--;
		} else if (len && !(len == 1 && p[0] == '.')) {
			if (o + 1 + len >= sizeof(path))
				return "a symbolic link too long to follow";
			if (o)
				path[o++] = '/';
			memcpy(path + o, p, len);
			o += len;
			if (is_link(l, path, o))
				return "a symbolic link through another link of the archive";
		}
		p += len;
		while (*p == '/')
			p++;
	}
	return NULL;
}

/* ---- checking --------------------------------------------------------------- */

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->m[i].raw);
		free(l->m[i].name);
		free(l->m[i].link);
	}
	free(l->m);
	free(l->sorted);
	memset(l, 0, sizeof(*l));
}

static const char *kind_why(char type)
{
	switch (type) {
	case '3': return "a character device";
	case '4': return "a block device";
	case '6': return "a FIFO";
	case '7': return "a contiguous file (a kind this reader does not extract)";
	case 'S': return "a sparse file (a kind this reader does not extract)";
	default: return NULL;
	}
}

/* Pass one: every header read and every member checked.  The refusals
 * said; l holds the members (on success). */
static int check_all(struct ctx *c, struct list *l)
{
	struct hdr h;
	int r;

	while ((r = next_header(c, &h)) == 1) {
		const char *why = NULL, *kind = kind_why(h.type);
		char *name = plain_name(h.name, &why);
		struct member *m;

		if (skip_data(c, &h)) {
			free(name);
			hdr_free(&h);
			return -1;
		}
		if (!name)
			say_line(c, "member '%s': %s", shown(h.name, 0), why);
		else if (kind)
			say_line(c, "member '%s': %s", shown(h.name, 0), kind);
		else if (!strchr("0125", h.type))
			say_line(c, "member '%s': of type '%s', not a file, directory or link", shown(h.name, 0),
				 shown((char[]){ h.type, 0 }, 1));
		else if (!*name && h.type != '5')
			say_line(c, "member '%s': names the directory itself", shown(h.name, 0));
		if (!name || kind || !strchr("0125", h.type) || !*name) {
			/* Refused, or the directory itself ("./"): nothing to make. */
			free(name);
			hdr_free(&h);
			continue;
		}
		if (l->n >= MAX_MEMBERS) {
			say_line(c, "more than %d members", MAX_MEMBERS);
			free(name);
			hdr_free(&h);
			return -1;
		}
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->m = xrealloc(l->m, l->cap * sizeof(*l->m));
		}
		m = &l->m[l->n];
		m->raw = h.name;
		h.name = NULL;
		m->name = name;
		m->type = h.type;
		m->mode = h.mode;
		m->index = l->n;
		m->link = NULL;
		if (h.type == '2') {
			m->link = h.link;
			h.link = NULL;
		} else if (h.type == '1') {
			m->link = plain_name(h.link, &why);
			if (!m->link)
				say_line(c, "member '%s': a hard link to '%s': %s", shown(m->raw, 0), shown(h.link, 1),
					 why);
		}
		l->n++;
		hdr_free(&h);
	}
	if (r < 0)
		return -1;

	l->sorted = xcalloc(l->n ? l->n : 1, sizeof(*l->sorted));
	for (size_t i = 0; i < l->n; i++)
		l->sorted[i] = &l->m[i];
	qsort(l->sorted, l->n, sizeof(*l->sorted), by_name);

	for (size_t i = 0; i < l->n; i++) {
		struct member *m = &l->m[i];
		const struct member *first = find(l, m->name, strlen(m->name));
		const char *why;

		/* Under a link of the archive: extraction would go through it. */
		for (const char *s = strchr(m->name, '/'); s; s = strchr(s + 1, '/'))
			if (is_link(l, m->name, (size_t)(s - m->name))) {
				say_line(c, "member '%s': under the symbolic link '%s' of the archive",
					 shown(m->raw, 0), shown(find(l, m->name, (size_t)(s - m->name))->raw, 1));
				break;
			}
		if (first != m && !(m->type == '5' && first->type == '5'))
			say_line(c, "member '%s': a second member of that name", shown(m->raw, 0));
		if (m->type == '2' && (why = symlink_why(l, m)))
			say_line(c, "member '%s': %s ('%s')", shown(m->raw, 0), why, shown(m->link, 1));
		if (m->type == '1' && m->link) {
			const struct member *t = find(l, m->link, strlen(m->link));

			if (!t || t->type != '0' || t->index >= m->index)
				say_line(c, "member '%s': a hard link to '%s', not a file the archive extracts before it",
					 shown(m->raw, 0), shown(m->link, 1));
		}
	}
	/* The host's own files stay the host's: each top-level name, once. */
	for (size_t i = 0; c->destfd >= 0 && i < l->n; i++) {
		const char *n = l->sorted[i]->name, *prev = i ? l->sorted[i - 1]->name : NULL;
		const char *raw = l->sorted[i]->raw;
		size_t len = strcspn(n, "/");
		char top[256];
		struct stat st;

		if (prev && !strncmp(prev, n, len) && (prev[len] == '/' || !prev[len]))
			continue;
		snprintf(top, sizeof(top), "%.*s", (int)len, n);
		if (!fstatat(c->destfd, top, &st, AT_SYMLINK_NOFOLLOW))
			say_line(c, "member '%s': the directory holds '%s' already", shown(raw, 0), shown(top, 1));
	}
	return c->lines ? -1 : 0;
}

/* ---- extracting ------------------------------------------------------------- */

/* The directory a member goes in, opened (made where missing) component by
 * component from destfd, never through a link: an fd or -errno. */
static int open_parent(int destfd, const char *name, const char **base)
{
	const char *p = name, *slash;
	int fd = dup(destfd);

	if (fd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		char comp[256];
		int next;

		snprintf(comp, sizeof(comp), "%.*s", (int)(slash - p), p);
		next = lab_open_dir_at(fd, comp);
		if (next == -ENOENT) {
			if (mkdirat(fd, comp, 0755) && errno != EEXIST) {
				next = -errno;
			} else {
				next = lab_open_dir_at(fd, comp);
			}
		}
		close(fd);
		if (next < 0)
			return next;
		fd = next;
		p = slash + 1;
	}
	*base = p;
	return fd;
}

static int write_data(struct ctx *c, const struct hdr *h, int fd)
{
	unsigned long long left = (h->size + BLOCK - 1) / BLOCK * BLOCK, data = h->size;
	char buf[16 * BLOCK];

	while (left) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		size_t w = data < n ? (size_t)data : n, off = 0;

		if (src_read(&c->src, buf, n) != (ssize_t)n)
			return -EIO;
		while (off < w) {
			ssize_t r = write(fd, buf + off, w - off);

			if (r < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			off += (size_t)r;
		}
		data -= w;
		left -= n;
	}
	return 0;
}

static int extract_one(struct ctx *c, const struct member *m, const struct hdr *h)
{
	const char *base;
	int dir = open_parent(c->destfd, m->name, &base), e = 0;

	if (dir < 0)
		return dir;
	switch (m->type) {
	case '5':
		if (mkdirat(dir, base, (m->mode & 0755) | 0700)) {
			int fd = errno == EEXIST ? lab_open_dir_at(dir, base) : -errno;

			e = fd < 0 ? fd : 0;
			if (fd >= 0)
				close(fd);
		}
		break;
	case '0': {
		int fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				(m->mode & 0755) | 0600);

		if (fd < 0) {
			e = -errno;
			break;
		}
		e = write_data(c, h, fd);
		if (close(fd) && !e)
			e = -errno;
		break;
	}
	case '2':
		e = symlinkat(m->link, dir, base) ? -errno : 0;
		break;
	case '1': {
		const char *tbase;
		int tdir = open_parent(c->destfd, m->link, &tbase);

		if (tdir < 0) {
			e = tdir;
			break;
		}
		e = linkat(tdir, tbase, dir, base, 0) ? -errno : 0;
		close(tdir);
		break;
	}
	}
	close(dir);
	return e;
}

/* Pass two: the same headers again, each member as pass one allowed. */
static int extract_all(struct ctx *c, const struct list *l)
{
	size_t i = 0;
	struct hdr h;
	int r;

	while ((r = next_header(c, &h)) == 1) {
		const char *why;
		char *name = plain_name(h.name, &why);
		int e = 0;

		if (name && *name && i < l->n && !strcmp(name, l->m[i].name) && l->m[i].type == h.type) {
			e = extract_one(c, &l->m[i], &h);
			i++;
			if (!e && h.type == '0') {
				free(name);
				hdr_free(&h);
				continue;	/* its data is read */
			}
		}
		if (e) {
			say_line(c, "member '%s': cannot extract: %s", shown(h.name, 0),
				 e == -EIO ? "cut short" : strerror(-e));
			free(name);
			hdr_free(&h);
			return -1;
		}
		free(name);
		if (skip_data(c, &h)) {
			hdr_free(&h);
			return -1;
		}
		hdr_free(&h);
	}
	return r < 0 ? -1 : 0;
}

static int finish(struct ctx *c)
{
	if (c->lines > MAX_LINES)
		fprintf(c->err, "%s: ... and %d more refusals\n", c->what, c->lines - MAX_LINES);
	fflush(c->err);
	return c->lines;
}

int untar_check_buf(const void *buf, size_t len, const char *what, FILE *err)
{
	struct ctx c = { .what = what, .err = err, .destfd = -1 };
	struct list l = { 0 };

	c.src.mem = buf;
	c.src.len = len;
	check_all(&c, &l);
	list_free(&l);
	return finish(&c);
}

int untar_safe(const char *tgz, const char *what, const char *dest, FILE *err)
{
	struct ctx c = { .what = what, .err = err };
	struct list l = { 0 };

	c.destfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.destfd < 0) {
		say_line(&c, "%s: %s", dest, strerror(errno));
		return finish(&c);
	}
	c.src.gz = gzopen(tgz, "rb");
	if (!c.src.gz) {
		say_line(&c, "cannot open: %s", strerror(errno ? errno : ENOMEM));
		close(c.destfd);
		return finish(&c);
	}
	if (gzdirect(c.src.gz))
		say_line(&c, "not a gzip stream");
	else if (check_all(&c, &l) == 0) {
		if (gzrewind(c.src.gz)) {
			say_line(&c, "cannot read it again: %s", strerror(errno));
		} else {
			c.src.off = 0;
			extract_all(&c, &l);
		}
	}
	list_free(&l);
	gzclose(c.src.gz);
	close(c.destfd);
	return finish(&c);
}
