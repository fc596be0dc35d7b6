// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "drivers/charge/loops.h"

static const struct hloop *const all[] = { &loop_anon, &loop_file, &loop_kmem, &loop_sock, &loop_stock,
					   &loop_objstock };

const char loop_names[] = "anon, file, kmem, sock, stock, objstock";

const struct hloop *loop_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}
