// SPDX-License-Identifier: GPL-2.0
/* Whose PMU recorded a c2c report, by name and by perf's event (c2c/c2c_vendor.h). */
#include <string.h>
#include "c2c/c2c_vendor.h"

static const char *const vendor_names[] = {
	[C2C_VENDOR_UNKNOWN] = "unknown", [C2C_INTEL] = "intel", [C2C_AMD] = "amd", [C2C_ARM] = "arm",
	[C2C_POWER] = "power",
};

const char *c2c_vendor_name(enum c2c_vendor v)
{
	return v <= C2C_POWER ? vendor_names[v] : "unknown";
}

int c2c_vendor_parse(const char *name)
{
	for (int v = C2C_INTEL; v <= C2C_POWER; v++)
		if (!strcmp(name, vendor_names[v]))
			return v;
	return -1;
}

enum c2c_vendor c2c_vendor_of_event(const char *event)
{
	if (!event)
		return C2C_VENDOR_UNKNOWN;
	if (strstr(event, "ibs_op"))
		return C2C_AMD;
	if (strstr(event, "arm_spe"))
		return C2C_ARM;
	if (strstr(event, "mem-loads,ldlat") || strstr(event, "mem-loads-aux") || strstr(event, "mem-stores/P") ||
	    strstr(event, "cpu_core/") || strstr(event, "cpu_atom/"))
		return C2C_INTEL;
	return C2C_VENDOR_UNKNOWN;
}

