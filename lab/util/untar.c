// SPDX-License-Identifier: GPL-2.0
/*
 * A guest's tar.gz checked whole, then extracted as checked (util/untar.h).
 * libarchive reads the tar headers (ustar, GNU long names, pax, and the
 * rest of what tar writes); the lab decides from what it read: every member
 * is checked before anything is written, and the extraction does only what
 * the checks allowed, through directory fds.  The gzip stream is zlib's,
 * read here, so that a refusal names the byte of the tar.
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
#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>
#include "util/err.h"
#include "util/owned.h"
#include "util/untar.h"

#define MAX_NAME 4000		/* a whole name, after long-name headers */
/* libarchive's ARCHIVE_ERRNO_FILE_FORMAT on Linux (archive_platform.h; not
 * in its public header): the errno of its "can't be converted" warnings. */
#define LA_ERRNO_FILE_FORMAT EILSEQ
#define MAX_MEMBERS 1000000
#define MAX_LINES 50		/* refusal lines before "... and N more" */

/* ---- the archive's bytes: a gzip file or (uncompressed) memory --------- */

struct src {
	gzFile gz;
	const unsigned char *mem;
	size_t len, pos;
	unsigned long long off;	/* bytes of tar handed to libarchive so far */
	bool eof;		/* the last of them handed over */
	bool bad;		/* the gzip stream is damaged at off */
	unsigned char buf[64 * 1024];
};

/* libarchive's read callback: the next piece of tar, 0 at the end, -1
 * where the gzip stream is damaged. */
static la_ssize_t src_read(struct archive *a, void *arg, const void **out)
{
	struct src *s = arg;
	ssize_t r;

	if (s->gz) {
		int got = gzread(s->gz, s->buf, sizeof(s->buf));

		if (got < 0) {
			s->bad = true;
			archive_set_error(a, EIO, "the gzip stream is damaged");
			return -1;
		}
		r = got;
		*out = s->buf;
	} else {
		r = (ssize_t)(s->len - s->pos);
		*out = s->mem + s->pos;
		s->pos = s->len;
	}
	s->off += (unsigned long long)r;
	s->eof = r == 0;
	return r;
}

/* ---- reporting ------------------------------------------------------------ */

struct ctx {
	const char *what;	/* the archive, as messages name it */
	FILE *err;
	int lines;		/* refusals so far */
	int destfd;		/* -1: only check */
	struct src src;
	struct archive *ar;	/* the pass's reader */
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

/* ---- headers, through libarchive ------------------------------------------ */

struct hdr {
	char *name, *link;	/* as the archive has them (malloc) */
	char type;		/* '0' file, '5' directory, '2' symlink, '1' hard link;
				 * '3', '4', '6' devices and FIFOs, 'S' sparse, '?' other */
	unsigned mode;
	unsigned long long size, at;	/* data size; the header's byte */
};

static void hdr_free(struct hdr *h)
{
	free(h->name);
	free(h->link);
	memset(h, 0, sizeof(*h));
}

/* A reader of the tar in c->src, as tar (no guessing of the format: a
 * damaged first header is named as damaged). */
static int pass_open(struct ctx *c)
{
	c->ar = archive_read_new();
	/* archive_read_set_format registers the tar reader itself: after an
	 * archive_read_support_format_tar, libarchive 3.8 answers ARCHIVE_WARN
	 * (registered twice) and leaves the format unset, so a damaged first
	 * header became "Unrecognized archive format" (3.6 and 3.7 set it). */
	if (!c->ar || archive_read_set_format(c->ar, ARCHIVE_FORMAT_TAR) != ARCHIVE_OK ||
	    archive_read_open(c->ar, &c->src, NULL, src_read, NULL) != ARCHIVE_OK) {
		say_line(c, "cannot read it: %s", c->ar && archive_error_string(c->ar) ?
			 archive_error_string(c->ar) : "libarchive is out of memory");
		return -1;
	}
	return 0;
}

static void pass_close(struct ctx *c)
{
	if (c->ar)
		archive_read_free(c->ar);
	c->ar = NULL;
}

/* Why libarchive stopped at the header at byte at (said). */
static void header_failed(struct ctx *c, int r, unsigned long long at)
{
	const char *why = archive_error_string(c->ar);

	if (c->src.bad)
		say_line(c, "the gzip stream is damaged at byte %llu of the tar", c->src.off);
	else if (c->src.eof && c->src.off == at)
		say_line(c, "cut short: no end-of-archive block after byte %llu", at);
	else if (c->src.eof && c->src.off - at < 512)
		say_line(c, "cut short in the header at byte %llu", at);
	else if (r == ARCHIVE_RETRY)
		say_line(c, "a damaged tar header at byte %llu (its checksum is wrong)", at);
	else
		say_line(c, "a damaged tar header at byte %llu: %s", at, why ? why : "unreadable");
}

/* The kind of an entry libarchive read. */
static char entry_type(struct archive_entry *e)
{
	if (archive_entry_hardlink(e))
		return '1';
	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return archive_entry_sparse_count(e) ? 'S' : '0';
	case AE_IFDIR:
		return '5';
	case AE_IFLNK:
		return '2';
	case AE_IFCHR:
		return '3';
	case AE_IFBLK:
		return '4';
	case AE_IFIFO:
		return '6';
	default:
		return '?';
	}
}

/* Whether libarchive's warning is about a name's charset: its errno
 * (ARCHIVE_ERRNO_FILE_FORMAT, EILSEQ on Linux, up to 3.7; 3.8 gives
 * another), or its words ("Pathname can't be converted from UTF-8 to
 * current locale", and the same of a Linkname). */
static bool charset_warning(struct archive *a)
{
	const char *why = archive_error_string(a);

	return archive_errno(a) == LA_ERRNO_FILE_FORMAT ||
	       (why && (!strncmp(why, "Pathname can't be converted", 27) ||
			!strncmp(why, "Linkname can't be converted", 27)));
}

/*
 * The next member's header, long-name and pax headers folded in by
 * libarchive: 1 (a member in h), 0 (the end-of-archive block), -1
 * (damaged: said).  The member's data is next.
 */
static int next_header(struct ctx *c, struct hdr *h)
{
	unsigned long long at = (unsigned long long)archive_filter_bytes(c->ar, 0);
	struct archive_entry *e;
	const char *name, *link;
	int r;

	memset(h, 0, sizeof(*h));
	r = archive_read_next_header(c->ar, &e);
	/* A name or link that is not in this locale's charset (a pax header's
	 * UTF-8 under the lab's C locale) is a warning whose entry holds the
	 * archive's bytes: the name as the archive has it, as tar keeps it.
	 * Any other warning is a damaged header (a pax record, a size). */
	if (r == ARCHIVE_WARN && charset_warning(c->ar))
		r = ARCHIVE_OK;
	if (r == ARCHIVE_EOF) {
		/* libarchive takes the end of the input for the end; the lab
		 * wants the end-of-archive block a whole archive has. */
		if ((unsigned long long)archive_filter_bytes(c->ar, 0) == at) {
			say_line(c, "cut short: no end-of-archive block after byte %llu", at);
			return -1;
		}
		return 0;
	}
	if (r != ARCHIVE_OK) {
		header_failed(c, r, at);
		return -1;
	}
	name = archive_entry_pathname(e);
	link = archive_entry_hardlink(e) ? archive_entry_hardlink(e) : archive_entry_symlink(e);
	if (!name) {
		say_line(c, "a member at byte %llu without a name", at);
		return -1;
	}
	if (strlen(name) > MAX_NAME || (link && strlen(link) > MAX_NAME)) {
		say_line(c, "a member at byte %llu with a name longer than %d bytes", at, MAX_NAME);
		return -1;
	}
	h->at = at;
	h->type = entry_type(e);
	h->mode = (unsigned)archive_entry_perm(e);
	h->size = archive_entry_size_is_set(e) && archive_entry_size(e) > 0 ?
		  (unsigned long long)archive_entry_size(e) : 0;
	h->name = xstrdup(name);
	h->link = xstrdup(link ? link : "");
	return 1;
}

/* Skips a member's data: 0, or -1 (cut short, or a damaged gzip stream: said). */
static int skip_data(struct ctx *c, const struct hdr *h)
{
	if (archive_read_data_skip(c->ar) == ARCHIVE_OK)
		return 0;
	if (c->src.bad)
		say_line(c, "the gzip stream is damaged at byte %llu of the tar", c->src.off);
	else
		say_line(c, "member '%s': cut short in its data (%llu bytes from byte %llu)",
			 shown(h->name, 0), h->size, h->at);
	return -1;
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
			say_line(c, "member '%s': not a file, directory or link", shown(h.name, 0));
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

static int write_data(struct ctx *c, int fd)
{
	char buf[16 * 512];
	la_ssize_t n;

	while ((n = archive_read_data(c->ar, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off < (size_t)n) {
			ssize_t r = write(fd, buf + off, (size_t)n - off);

			if (r < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			off += (size_t)r;
		}
	}
	return n < 0 ? -EIO : 0;
}

static int extract_one(struct ctx *c, const struct member *m)
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
		e = write_data(c, fd);
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
			e = extract_one(c, &l->m[i]);
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
	struct ctx *c = xcalloc(1, sizeof(*c));
	struct list l = { 0 };
	int n;

	c->what = what;
	c->err = err;
	c->destfd = -1;
	c->src.mem = buf;
	c->src.len = len;
	if (!pass_open(c))
		check_all(c, &l);
	pass_close(c);
	list_free(&l);
	n = finish(c);
	free(c);
	return n;
}

int untar_safe(const char *tgz, const char *what, const char *dest, FILE *err)
{
	struct ctx *c = xcalloc(1, sizeof(*c));
	struct list l = { 0 };
	int n;

	c->what = what;
	c->err = err;
	c->destfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->destfd < 0) {
		say_line(c, "%s: %s", dest, strerror(errno));
		goto out;
	}
	c->src.gz = gzopen(tgz, "rb");
	if (!c->src.gz) {
		say_line(c, "cannot open: %s", strerror(errno ? errno : ENOMEM));
		goto out;
	}
	if (gzdirect(c->src.gz)) {
		say_line(c, "not a gzip stream");
	} else if (!pass_open(c) && check_all(c, &l) == 0) {
		/* Pass two reads the same stream again, from its start. */
		pass_close(c);
		if (gzrewind(c->src.gz)) {
			say_line(c, "cannot read it again: %s", strerror(errno));
		} else {
			c->src.off = 0;
			c->src.eof = false;
			if (!pass_open(c))
				extract_all(c, &l);
		}
	}
	pass_close(c);
out:
	list_free(&l);
	if (c->src.gz)
		gzclose(c->src.gz);
	if (c->destfd >= 0)
		close(c->destfd);
	n = finish(c);
	free(c);
	return n;
}
