// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/err.h"
#include "util/fileio.h"
#include "util/gnuplot.h"
#include "util/results.h"

bool gnuplot_available(char *why, size_t n)
{
	int st;
	char *out = run_capture("gnuplot --version 2>&1", &st);
	bool ok = out && st == 0 && !strncmp(out, "gnuplot ", 8);

	if (!ok)
		snprintf(why, n, "gnuplot is not installed or does not run (apt-get install gnuplot-nox)");
	free(out);
	return ok;
}

char *gnuplot_quote(const char *s)
{
	size_t n = 3;
	char *q, *p;

	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 2 : 1;
	q = p = xmalloc(n);
	*p++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'')
			*p++ = '\'';
		*p++ = *c;
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

void gnuplot_var(char **vars, const char *name, const char *value)
{
	char *q = gnuplot_quote(value), *n = xasprintf("%s%s=%s\n", *vars ? *vars : "", name, q);

	free(q);
	free(*vars);
	*vars = n;
}

void gnuplot_var_int(char **vars, const char *name, long value)
{
	char *n = xasprintf("%s%s=%ld\n", *vars ? *vars : "", name, value);

	free(*vars);
	*vars = n;
}

static int render_one(const char *tmpl, const char *vars, const char *term, const char *out, char *err, size_t n)
{
	char script[] = "/tmp/memcg-lab-gp.XXXXXX";
	char *cmd, *log, *qout = gnuplot_quote(out), *qtmpl = gnuplot_quote(tmpl);
	FILE *f;
	int fd, st;

	fd = mkstemp(script);
	if (fd < 0) {
		snprintf(err, n, "cannot create a gnuplot script: %s", strerror(errno));
		free(qout);
		free(qtmpl);
		return -1;
	}
	f = fdopen(fd, "w");
	fprintf(f, "set terminal %s\nset output %s\n%s\nload %s\nset output\n", term, qout, vars, qtmpl);
	fclose(f);
	free(qout);
	free(qtmpl);
	cmd = xasprintf("gnuplot '%s' 2>&1", script);
	log = run_capture(cmd, &st);
	free(cmd);
	unlink(script);
	if (!log || st != 0 || !path_exists(out)) {
		/* gnuplot's error is on the line after the echoed statement. */
		char *line = log ? strstr(log, "line ") : NULL;

		if (line)
			line[strcspn(line, "\n")] = '\0';
		snprintf(err, n, "gnuplot failed on %s: %s", tmpl, line ? line : (log && log[0] ? log : "no output"));
		free(log);
		return -1;
	}
	free(log);
	return 0;
}

int gnuplot_render(const char *template_name, const char *vars, const char *out_base, int width, int height,
		   char *err, size_t errlen)
{
	char *tmpl = xasprintf("%s/plots/%s.gp", lab_root_dir(), template_name);
	char *png = xasprintf("%s.png", out_base), *svg = xasprintf("%s.svg", out_base);
	char *txt = xasprintf("%s.txt", out_base);
	char *tpng = xasprintf("pngcairo size %d,%d font 'sans,10' noenhanced", width, height);
	char *tsvg = xasprintf("svg size %d,%d font 'sans,10' noenhanced", width, height);
	int r = -1;

	if (!path_exists(tmpl)) {
		snprintf(err, errlen, "%s: plot template missing", tmpl);
		goto out;
	}
	if (render_one(tmpl, vars, tpng, png, err, errlen) ||
	    render_one(tmpl, vars, tsvg, svg, err, errlen) ||
	    render_one(tmpl, vars, "dumb size 79,24 noenhanced", txt, err, errlen))
		goto out;
	r = 0;
out:
	free(tmpl);
	free(png);
	free(svg);
	free(txt);
	free(tpng);
	free(tsvg);
	return r;
}
