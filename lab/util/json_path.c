// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "util/json_path.h"

json_object *json_path(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		if (!o || !json_object_object_get_ex(o, k, &o))
			return NULL;
	return o;
}

const char *json_path_str(json_object *o, const char *path)
{
	o = json_path(o, path);
	return o ? json_object_get_string(o) : NULL;
}

const char *json_path_or(json_object *o, const char *path, const char *dflt)
{
	const char *v = json_path_str(o, path);

	return v ? v : dflt;
}
