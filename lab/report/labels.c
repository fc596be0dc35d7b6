// SPDX-License-Identifier: GPL-2.0
/* What each side of a comparison is called (report/labels.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "report/labels.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/json_path.h"

void labels_parse(struct labels *l, const char *cmd, const struct option_list *args, int ndirs)
{
	memset(l, 0, sizeof(*l));
	for (int i = 0; i < args->n; i++) {
		const char *a = args->v[i];
		int side = a[0] - 'A';

		if (!(a[0] >= 'A' && a[0] <= 'Z') || a[1] != '=')
			die("%s: --label '%s': want SIDE=TEXT, SIDE a letter A..%c (e.g. --label B=patched)", cmd, a,
			    'A' + (ndirs > 1 && ndirs <= LABELS_MAX ? ndirs - 1 : 1));
		if (side >= ndirs)
			die("%s: --label '%s': there is no side %c (%d director%s given)", cmd, a, a[0], ndirs,
			    ndirs == 1 ? "y" : "ies");
		if (!a[2] || strlen(a + 2) >= LABEL_LEN - 4)
			die("%s: --label '%s': the text must be 1..%d characters", cmd, a, LABEL_LEN - 5);
		for (const char *p = a + 2; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				die("%s: --label '%c=...': a control character (0x%02x) in the text", cmd, a[0],
				    (unsigned char)*p);
		if (l->given[side])
			die("%s: --label %c given twice ('%s', '%s')", cmd, a[0], l->given[side], a + 2);
		l->given[side] = a + 2;
	}
}

void labels_lab_patches(json_object *meta, char *buf, size_t n)
{
	const char *p = json_path_str(meta, "vm.kernel_package"), *end;
	size_t len = 0;

	buf[0] = '\0';
	if (!p || strncmp(p, "lab kernel:", 11))
		return;
	if (strstr(p, ", unpatched")) {
		snprintf(buf, n, " unpatched");
		return;
	}
	p = strstr(p, ", patches: ");
	if (!p)
		return;
	p += strlen(", patches: ");
	end = strstr(p, " + ");
	while (p < (end ? end : p + strlen(p)) && len + 2 < n) {
		size_t w = strcspn(p, " ");
		const char *name = p, *dot = memmem(p, w, ".patch", 6);

		/* "0001-" off the front, ".patch" off the end. */
		if (w > 5 && name[4] == '-' && strspn(name, "0123456789") == 4)
			name += 5;
		len += snprintf(buf + len, n - len, " +%.*s", (int)((dot ? dot : p + w) - name), name);
		p += w;
		while (*p == ' ')
			p++;
	}
}

/* The directory's own name: its last component ("results/x/" -> "x";
 * "." -> the current directory's). */
static void dir_name(const char *given, char *buf, size_t n)
{
	char *real = realpath(given, NULL), *name = path_last_name(real ? real : given);

	snprintf(buf, n, "%s", name);
	free(name);
	free(real);
}

void labels_of(const struct labels *l, const char *const *dirs, int ndirs, char (*out)[LABEL_LEN])
{
	char kernel[LABELS_MAX][LABEL_LEN], name[LABELS_MAX][LABEL_LEN];

	for (int i = 0; i < ndirs && i < LABELS_MAX; i++) {
		char *mp = xasprintf("%s/meta.json", dirs[i]), patches[96];
		json_object *meta = json_object_from_file(mp);

		free(mp);
		dir_name(dirs[i], name[i], sizeof(name[i]));
		labels_lab_patches(meta, patches, sizeof(patches));
		/* A driver's own run has no probe: the host's kernel. */
		snprintf(kernel[i], sizeof(kernel[i]), "%s%s",
			 json_path_or(meta, "probe.kernel", json_path_or(meta, "uname", "kernel ?")), patches);
		json_object_put(meta);
	}
	for (int i = 0; i < ndirs && i < LABELS_MAX; i++) {
		bool same = false, same_name = false;

		for (int j = 0; j < ndirs && j < LABELS_MAX; j++) {
			same |= j != i && !strcmp(kernel[i], kernel[j]);
			same_name |= j != i && !strcmp(name[i], name[j]);
		}
		if (l && l->given[i])
			snprintf(out[i], LABEL_LEN, "%s", l->given[i]);
		else if (!same)
			snprintf(out[i], LABEL_LEN, "%.*s", LABEL_LEN - 1, kernel[i]);
		else if (!same_name)
			snprintf(out[i], LABEL_LEN, "%.*s", LABEL_LEN - 1, name[i]);
		else
			/* The same name in two places (two guests' runs): the path. */
			snprintf(out[i], LABEL_LEN, "%.*s", LABEL_LEN - 1, dirs[i]);
	}
}
