// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plot/time_axis.h"
#include "util/err.h"

static const struct { const char *name; double ns; } units[] = {
	{ "ns", 1 }, { "µs", 1e3 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

bool time_axis_for(const char *unit, double max, struct time_axis *ax)
{
	static const char *const shown[] = { "ns", "µs", "ms", "s" };
	double ns = 0, max_ns;
	int pick = 0;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name))
			ns = units[i].ns;
	if (!ns)
		return false;
	max_ns = fabs(max) * ns;
	while (pick < 3 && max_ns >= 1000 * pow(1000, pick))
		pick++;
	ax->unit = shown[pick];
	ax->scale = ns / pow(1000, pick);
	return true;
}

bool time_axis_for_metric(const char *metric, const char *unit, double max, struct time_axis *ax)
{
	const char *shown = !strcmp(unit, "us") ? "µs" : unit;

	for (const char *w = metric; *w;) {
		size_t len = strcspn(w, "._");

		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (len && len == strlen(units[i].name) && !strncmp(w, units[i].name, len) &&
			    (!strcmp(units[i].name, unit) || !strcmp(units[i].name, shown) ||
			     (!strcmp(units[i].name, "us") && !strcmp(shown, "µs")))) {
				ax->unit = shown;
				ax->scale = 1;
				return true;
			}
		w += len + (w[len] != '\0');
	}
	ax->unit = unit;
	ax->scale = 1;
	time_axis_for(unit, max, ax);
	return false;
}

char *time_axis_log_tics(double lo_ns, double hi_ns)
{
	static const char *const shown[] = { "ns", "µs", "ms", "s" };
	char *tics = xstrdup("");
	int from = lo_ns >= 1 ? (int)floor(log10(lo_ns)) : 0, to = hi_ns >= 1 ? (int)ceil(log10(hi_ns)) : 0;

	for (int e = from; e <= to; e++) {
		int u = e / 3 < 3 ? e / 3 : 3;
		char *t = xasprintf("%s%s\"%.0f %s\" %.0f", tics, e > from ? ", " : "", pow(10, e - 3 * u),
				    shown[u], pow(10, e));

		free(tics);
		tics = t;
	}
	return tics;
}
