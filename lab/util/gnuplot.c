// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/err.h"
#include "util/fileio.h"
#include "util/gnuplot.h"
#include "util/outfile.h"
#include "util/results.h"
#include "util/run.h"

bool gnuplot_available(char *why, size_t n)
{
	struct run_result r;
	char *out = run_capture_argv((const char *const[]){ "gnuplot", "--version", NULL }, RUN_STDERR_MERGE, &r);
	bool ok = r.status == 0 && !strncmp(out, "gnuplot ", 8);

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
		/* A string ends at its line: a newline in a name would start a
		 * statement of its own (and gnuplot has system()). */
		*p++ = (unsigned char)*c < ' ' || *c == 0x7f ? ' ' : *c;
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

/* One output of the script: terminal, file, the template, then a reset so
 * the next output starts from gnuplot's defaults as a fresh process would. */
static void script_output(FILE *f, const char *term, const char *out, const char *qtmpl)
{
	char *qout = gnuplot_quote(out);

	fprintf(f, "set terminal %s\nset output %s\nload %s\nset output\nreset\n", term, qout, qtmpl);
	free(qout);
}

/*
 * gnuplot exits 0 when it could not write an output (a full disk leaves it
 * empty or cut short): an output is there in full when it ends the way its
 * format ends: PNG's IEND chunk, SVG's closing tag, the dumb terminal's
 * rows.
 */
static bool output_complete(const char *path, int kind, int text_rows)
{
	static const char png_end[] = "IEND\xae\x42\x60\x82";
	size_t len = 0, lines = 0;
	char *t = read_text(path, &len);
	bool ok = false;

	if (!t)
		return false;
	if (kind == 0)
		ok = len >= 8 && !memcmp(t + len - 8, png_end, 8);
	else if (kind == 1)
		ok = len >= 16 && memmem(t + len - 16, 16, "</svg>", 6);
	else {
		for (size_t i = 0; i < len; i++)
			lines += t[i] == '\n';
		ok = lines >= (size_t)text_rows;
	}
	free(t);
	return ok;
}

/*
 * The dumb terminal starts its text with a form feed (gnuplot 5.4 writes
 * it whatever "nofeed" says: that option drops only the last newline):
 * a mail's paste keeps text and newlines alone.  0, or -1 when the file
 * cannot be rewritten.
 */
static int text_clean(const char *path)
{
	size_t len = 0, n = 0;
	char *t = read_text(path, &len);
	int r = 0;

	if (!t)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (t[i] == '\n' || ((unsigned char)t[i] >= ' ' && t[i] != 0x7f))
			t[n++] = t[i];
	if (n != len)
		r = outfile_write(path, t, n);
	free(t);
	return r;
}

int gnuplot_render(const char *template_name, const char *vars, const char *out_base, int width, int height,
		   int text_rows, char *err, size_t errlen)
{
	char *tmpl = xasprintf("%s/plots/%s.gp", lab_root_dir(), template_name);
	char *outs[3] = { xasprintf("%s.png", out_base), xasprintf("%s.svg", out_base), xasprintf("%s.txt", out_base) };
	char *terms[3] = {
		xasprintf("pngcairo size %d,%d font 'sans,10' noenhanced", width, height),
		xasprintf("svg size %d,%d font 'sans,10' noenhanced", width, height),
		NULL,
	};
	char *script = xasprintf("%s.gp", out_base), *qtmpl = gnuplot_quote(tmpl), *log = NULL, *sarg;
	struct run_result rr = { 0 };
	FILE *f;
	int r = -1;

	if (text_rows <= 0)
		text_rows = 24;
	terms[2] = xasprintf("dumb size %d,%d noenhanced", GNUPLOT_TEXT_COLS, text_rows);

	if (!path_exists(tmpl)) {
		snprintf(err, errlen, "%s: plot template missing", tmpl);
		goto out;
	}
	/* The script stays beside the plot, not in /tmp: a killed run leaves
	 * nothing behind outside its results, and a user can edit and rerun
	 * it (gnuplot plots/NAME.gp) for a mail or a slide. */
	f = outfile_open(script, "w");
	/* UTF-8: a "µs" is one column of the ASCII plot, not two. */
	fprintf(f, "# Drawn by memcg-lab from %s; rerun with: gnuplot %s\n# (the .txt memcg-lab wrote has no "
		"form feed: gnuplot's dumb terminal starts with one)\nset encoding utf8\n%s\n", tmpl, script,
		vars ? vars : "");
	for (int i = 0; i < 3; i++)
		script_output(f, terms[i], outs[i], qtmpl);
	if (outfile_close(f)) {
		snprintf(err, errlen, "%s: cannot write: %s", script, strerror(errno));
		goto out;
	}
	sarg = path_arg(script);
	log = run_capture_argv((const char *const[]){ "gnuplot", sarg, NULL }, RUN_STDERR_MERGE, &rr);
	free(sarg);
	if (rr.status != 0 || !path_exists(outs[0]) || !path_exists(outs[1]) || !path_exists(outs[2])) {
		/* gnuplot's error is on the line after the echoed statement. */
		char *line = log ? strstr(log, "line ") : NULL;

		if (line)
			line[strcspn(line, "\n")] = '\0';
		snprintf(err, errlen, "gnuplot failed on %s: %s", tmpl, line ? line : (log && log[0] ? log : "no output"));
		goto out;
	}
	for (int i = 0; i < 3; i++) {
		if (!output_complete(outs[i], i, text_rows)) {
			snprintf(err, errlen, "%s: cannot write: gnuplot left it cut short (disk full?)", outs[i]);
			outfile_failure_line(err);
			/* Nothing half-written stays: not this plot's other renderings
			 * either, which gnuplot wrote to the same full disk. */
			for (int j = 0; j < 3; j++)
				unlink(outs[j]);
			goto out;
		}
	}
	if (text_clean(outs[2]) < 0) {
		snprintf(err, errlen, "%s: cannot write: %s", outs[2], strerror(errno));
		outfile_failure_line(err);
		goto out;
	}
	r = 0;
out:
	for (int i = 0; i < 3; i++) {
		free(outs[i]);
		free(terms[i]);
	}
	free(tmpl);
	free(qtmpl);
	free(script);
	free(log);
	return r;
}
