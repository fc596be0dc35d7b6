// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "util/fileio.h"
#include "util/meminfo.h"

int64_t meminfo_kib(const char *text, const char *key)
{
	const char *p = text;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return strtoll(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

int meminfo_read(struct meminfo *m)
{
	char *text = read_text("/proc/meminfo", NULL);

	memset(m, 0, sizeof(*m));
	if (!text)
		return -1;
	m->total = meminfo_kib(text, "MemTotal") * 1024;
	m->available = meminfo_kib(text, "MemAvailable") * 1024;
	m->swap_total = meminfo_kib(text, "SwapTotal") * 1024;
	m->swap_free = meminfo_kib(text, "SwapFree") * 1024;
	free(text);
	return 0;
}
