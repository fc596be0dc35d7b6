// SPDX-License-Identifier: GPL-2.0
/*
 * The layout capture's pahole text, <struct>.txt: the view people are used
 * to reading.  Offsets come from BTF (kernel/btf.h), never from this text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout/layout.h"
#include "layout/layout_pahole.h"
#include "kernel/btf.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/run.h"
#include "util/strfmt.h"

/* pahole -C A,B,C prints the structs in its own order: split at "struct X {". */
void layout_write_pahole(const struct kbtf *k, const struct layout *lay, const char *dir)
{
	const char *btf = kbtf_file(k);
	char names[256] = "", *file, *text, *p;
	struct run_result r;

	for (int i = 0; i < LAYOUT_NSTRUCTS; i++)
		if (lay->s[i].present)
			str_appendf(names, sizeof(names), "%s%s",
				 names[0] ? "," : "", lay->s[i].name);
	if (!names[0])
		return;
	if (!program_on_path("pahole")) {
		warnx_lab("layout: pahole not found (apt-get install dwarves): %s/<struct>.txt not written; "
			  "the cacheline map and TSV files are", dir);
		return;
	}
	/* pahole 1.24 warns about BTF kinds it does not know (decl/type tags):
	 * harmless, so its stderr only makes the failure's line. */
	file = path_arg(btf);
	text = run_capture_argv((const char *const[]){ "pahole", "-F", "btf", "-C", names, file, NULL },
				RUN_STDERR_KEEP, &r);
	free(file);
	if (r.status != 0) {
		r.err[strcspn(r.err, "\n")] = '\0';
		warnx_lab("layout: pahole -F btf %s failed (status %d%s%s): %s/<struct>.txt not written", btf, r.status,
			  r.err[0] ? ": " : "", r.err, dir);
		free(r.err);
		free(text);
		return;
	}
	free(r.err);
	for (p = text; p && *p;) {
		char name[128], *end, *path;
		FILE *f;

		if (sscanf(p, "struct %127[A-Za-z0-9_] {", name) != 1) {
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
			continue;
		}
		/* The struct ends at the first line that starts with '}'. */
		end = strstr(p, "\n}");
		end = end ? strchr(end + 1, '\n') : NULL;
		end = end ? end + 1 : p + strlen(p);
		path = xasprintf("%s/%s.txt", dir, name);
		f = outfile_open(path, "w");
		fwrite(p, 1, end - p, f);
		if (outfile_close(f))
			exit(EXIT_LAB_ERR);	/* its one line is printed */
		free(path);
		p = end;
	}
	free(text);
}
