/* SPDX-License-Identifier: GPL-2.0 */
/* meta.json's nested keys by a dotted path ("probe.features.stock_slots"). */
#ifndef LAB_UTIL_JSON_PATH_H
#define LAB_UTIL_JSON_PATH_H

#include <json-c/json.h>

/* The object at path below o, or NULL when a key on the way is missing. */
json_object *json_path(json_object *o, const char *path);
/* Its value as a string ("true", "7" for non-strings), or NULL. */
const char *json_path_str(json_object *o, const char *path);
/* The same, or dflt where there is none. */
const char *json_path_or(json_object *o, const char *path, const char *dflt);

#endif
