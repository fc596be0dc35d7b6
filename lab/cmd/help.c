// SPDX-License-Identifier: GPL-2.0
/*
 * `memcg-lab help NAME`: the manual page of a command or a topic (cmd/help.h).
 * The pages are doc/memcg-lab-NAME.txt (AsciiDoc, as perf's Documentation/),
 * which make builds into build/man/man1/memcg-lab-NAME.1 with asciidoctor.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd/help.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/results.h"
#include "util/run.h"

#define PAGE_PREFIX "memcg-lab-"

/* A page's name is a command's or a topic's: letters, digits, '-' (so no
 * path can be made of it). */
static bool page_name_ok(const char *name)
{
	return *name && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(name) && name[0] != '-';
}

/* doc/memcg-lab-NAME.txt, or doc/memcg-lab.txt for "memcg-lab" itself. */
static char *page_path(const char *dir, const char *name, const char *ext)
{
	if (!strcmp(name, "memcg-lab"))
		return xasprintf("%s/%s/memcg-lab.%s", lab_root_dir(), dir, ext);
	return xasprintf("%s/%s/" PAGE_PREFIX "%s.%s", lab_root_dir(), dir, name, ext);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **help_pages(void)
{
	char *dir = xasprintf("%s/doc", lab_root_dir());
	char **names = xcalloc(1, sizeof(*names));
	size_t n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	free(dir);
	if (!d)
		return names;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, PAGE_PREFIX, strlen(PAGE_PREFIX)) || len < strlen(PAGE_PREFIX) + 5 ||
		    strcmp(e->d_name + len - 4, ".txt"))
			continue;
		names = xrealloc(names, (n + 2) * sizeof(*names));
		names[n] = xasprintf("%.*s", (int)(len - strlen(PAGE_PREFIX) - 4), e->d_name + strlen(PAGE_PREFIX));
		if (!page_name_ok(names[n])) {
			free(names[n]);
			continue;
		}
		names[++n] = NULL;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	return names;
}

int help_page(const char *name)
{
	char *txt, *man, *text;
	size_t len;

	if (!page_name_ok(name) && strcmp(name, "memcg-lab"))
		return -1;
	txt = page_path("doc", name, "txt");
	man = page_path("build/man/man1", name, "1");
	if (!path_exists(txt)) {
		free(txt);
		free(man);
		return -1;
	}
	if (path_exists(man) && program_on_path("man")) {
		const char *argv[] = { "man", "-l", man, NULL };

		if (isatty(STDOUT_FILENO)) {
			/* man's own pager on the terminal; where it cannot be
			 * started, the text below. */
			fflush(NULL);
			execvp(argv[0], (char *const *)argv);
		} else {
			/* Not a terminal: man renders plain text (man-db runs
			 * col -b itself), 80 columns unless MANWIDTH says. */
			struct run_result r;

			text = run_capture_argv(argv, RUN_STDERR_KEEP, &r);
			if (r.status == 0 && *text) {
				fputs(text, stdout);
				free(text);
				free(r.err);
				free(txt);
				free(man);
				return 0;
			}
			free(text);
			free(r.err);
		}
	}
	/* No built page (asciidoctor missing) or no man: the page's source,
	 * which is plain text to read. */
	text = read_text(txt, &len);
	if (!text)
		die("help: %s: cannot read: %s", txt, strerror(errno));
	fwrite(text, 1, len, stdout);
	free(text);
	free(txt);
	free(man);
	return 0;
}
