// SPDX-License-Identifier: GPL-2.0
/* A kernel patch set: files, subject, and whether it applies (kernel/kpatch.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernel/kpatch.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owned.h"
#include "util/run.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void kpatch_subject(const char *text, char *out, size_t n)
{
	const char *p = text, *end;
	size_t o = 0;

	out[0] = '\0';
	/* The mail header only: it ends at the first empty line. */
	while (p && *p && *p != '\n') {
		if (!strncasecmp(p, "Subject:", 8))
			break;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p || strncasecmp(p, "Subject:", 8))
		return;
	p += 8;
	/* The value, with its folded continuation lines joined. */
	for (;;) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		p += strspn(p, " \t");
		while (p < end && o + 1 < n) {
			out[o++] = *p == '\t' ? ' ' : *p;
			p++;
		}
		if (*end != '\n' || (end[1] != ' ' && end[1] != '\t'))
			break;
		if (o + 1 < n)
			out[o++] = ' ';
		p = end + 1;
	}
	out[o] = '\0';
	/* "[PATCH v2 1/3] mm: x" -> "mm: x" */
	if (out[0] == '[' && (end = strchr(out, ']'))) {
		end++;
		end += strspn(end, " ");
		memmove(out, end, strlen(end) + 1);
	}
}

static bool is_unified_diff(const char *text)
{
	const char *m = strstr(text, "\n--- ");

	if (!strncmp(text, "--- ", 4))
		m = text - 1;
	return m && strstr(m, "\n+++ ");
}

/* A directory name from the subject: lower-case words joined by '-'. */
static void name_of(const char *subject, const char *path, char *out, size_t n)
{
	const char *s = subject[0] ? subject : path;
	const char *colon = subject[0] ? strrchr(subject, ':') : NULL;
	size_t o = 0;
	bool dash = false;

	if (!subject[0]) {
		const char *b = strrchr(path, '/');

		s = b && b[1] ? b + 1 : path;
	} else if (colon && colon[1]) {
		s = colon + 1;	/* "mm: page_counter: put ..." -> "put ..." */
	}
	for (; *s && o + 1 < n; s++) {
		if (isalnum((unsigned char)*s)) {
			if (dash && o)
				out[o++] = '-';
			if (o + 1 < n)
				out[o++] = (char)tolower((unsigned char)*s);
			dash = false;
		} else {
			dash = true;
		}
		if (!subject[0] && !strcmp(s, ".patch"))
			break;
	}
	out[o] = '\0';
	if (o > 40) {
		out[40] = '\0';
		while (o > 0 && out[strlen(out) - 1] == '-')
			out[strlen(out) - 1] = '\0';
	}
	if (!out[0])
		snprintf(out, n, "patch");
}

int kpatch_set_read(struct kpatch_set *s, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *text;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;

		if (!d) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		while ((e = readdir(d))) {
			size_t l = strlen(e->d_name);

			if (l > 6 && !strcmp(e->d_name + l - 6, ".patch") && e->d_name[0] != '.') {
				s->files = xrealloc(s->files, (s->n + 1) * sizeof(*s->files));
				s->files[s->n++] = xasprintf("%s/%s", path, e->d_name);
			}
		}
		closedir(d);
		if (!s->n) {
			snprintf(err, errlen, "%s: no *.patch file in this directory", path);
			return -1;
		}
		qsort(s->files, s->n, sizeof(*s->files), by_name);
	} else {
		s->files = xcalloc(1, sizeof(*s->files));
		s->files[s->n++] = xstrdup(path);
	}
	for (int i = 0; i < s->n; i++) {
		text = read_text(s->files[i], NULL);
		if (!text) {
			snprintf(err, errlen, "%s: cannot read: %s", s->files[i], strerror(errno));
			kpatch_set_free(s);
			return -1;
		}
		if (!is_unified_diff(text)) {
			snprintf(err, errlen, "%s: not a patch: no unified diff (---/+++ lines) in it", s->files[i]);
			free(text);
			kpatch_set_free(s);
			return -1;
		}
		if (i == 0)
			kpatch_subject(text, s->subject, sizeof(s->subject));
		free(text);
	}
	name_of(s->subject, s->files[0], s->name, sizeof(s->name));
	return 0;
}

void kpatch_set_free(struct kpatch_set *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->files[i]);
	free(s->files);
	memset(s, 0, sizeof(*s));
}

void kpatch_first_failure(const char *out, char *res, size_t n)
{
	const char *file = NULL, *p = out;
	size_t flen = 0;

	res[0] = '\0';
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int hunk, at;

		if (!strncmp(p, "patching file ", 14) || !strncmp(p, "checking file ", 14)) {
			file = p + 14;
			flen = len - 14;
			if (flen && file[0] == '\'' && file[flen - 1] == '\'')
				file++, flen -= 2;
		} else if (sscanf(p, "Hunk #%d FAILED at %d", &hunk, &at) == 2) {
			snprintf(res, n, "hunk #%d of %.*s FAILED at line %d", hunk, (int)flen, file ? file : "?", at);
			return;
		} else if (memmem(p, len, "can't find file to patch", 24) ||
			   memmem(p, len, "No file to patch", 16) || memmem(p, len, "malformed patch", 15) ||
			   memmem(p, len, "Only garbage", 12) || memmem(p, len, "Reversed (or previously applied)", 32)) {
			snprintf(res, n, "%.*s", (int)len, p);
			return;
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* The paths a patch touches (its "+++ b/PATH" and "--- a/PATH" lines), -p1. */
static void touched(const char *text, char ***paths, int *n)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > 6 && (!strncmp(p, "+++ ", 4) || !strncmp(p, "--- ", 4))) {
			const char *path = p + 4, *slash;
			size_t plen = strcspn(path, "\t\n");

			slash = memchr(path, '/', plen);
			if (slash && strncmp(path, "/dev/null", 9)) {
				char *rel = xasprintf("%.*s", (int)(plen - (slash + 1 - path)), slash + 1);
				bool seen = false;

				for (int i = 0; i < *n && !seen; i++)
					seen = !strcmp((*paths)[i], rel);
				if (seen || strstr(rel, "..")) {
					free(rel);
				} else {
					*paths = xrealloc(*paths, (*n + 1) * sizeof(**paths));
					(*paths)[(*n)++] = rel;
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* Copies src/rel to dst/rel (its directories made); a file src lacks is
 * not copied (patch then says it cannot find it, or creates it). */
static int copy_in(const char *src, const char *dst, const char *rel)
{
	char *from = xasprintf("%s/%s", src, rel), *to = xasprintf("%s/%s", dst, rel), *dir = xstrdup(to);
	size_t len;
	char *text = read_text(from, &len);
	int r = 0;

	*strrchr(dir, '/') = '\0';
	if (text && (mkdir_p(dir, 0700) < 0 || write_file_atomic(to, text, len) < 0))
		r = -1;
	free(text);
	free(from);
	free(to);
	free(dir);
	return r;
}

int kpatch_check(const struct kpatch_set *s, const char *src, char *err, size_t errlen)
{
	char tmp[512], why[300];
	char **paths = NULL;
	int npaths = 0, ret = 0;

	if (lab_tmpdir_create(tmp, sizeof(tmp), err, errlen) < 0)
		return -1;
	for (int i = 0; i < s->n; i++) {
		char *text = read_text(s->files[i], NULL);

		if (text)
			touched(text, &paths, &npaths);
		free(text);
	}
	for (int i = 0; i < npaths && !ret; i++)
		if (copy_in(src, tmp, paths[i]) < 0) {
			snprintf(err, errlen, "%s: cannot copy %s for the check: %s", tmp, paths[i], strerror(errno));
			ret = -1;
		}
	/* Each patch applied for real in the scratch copy, so the next one
	 * meets the files as it will in the tree. */
	for (int i = 0; i < s->n && !ret; i++) {
		struct run_result r;
		/* patch -d changes its directory: the file by its absolute path */
		char *abs = realpath(s->files[i], NULL), *file = path_arg(abs ? abs : s->files[i]);
		const char *argv[] = { "patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-d", tmp,
				       "-i", file, NULL };
		char *out = run_capture_argv(argv, RUN_STDERR_MERGE, &r);

		if (r.status) {
			kpatch_first_failure(out, why, sizeof(why));
			if (r.start_errno)
				snprintf(why, sizeof(why), "patch(1) could not run: %s (Debian package patch)",
					 strerror(r.start_errno));
			snprintf(err, errlen, "%s does not apply to %s: %s", s->files[i], src,
				 why[0] ? why : "patch(1) failed");
			ret = -1;
		}
		free(out);
		free(file);
		free(abs);
	}
	for (int i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	{
		char *base = xstrdup(tmp), *slash = strrchr(base, '/');
		int fd;

		*slash = '\0';
		fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			lab_rmtree_at(fd, slash + 1);
			close(fd);
		}
		free(base);
	}
	return ret;
}
