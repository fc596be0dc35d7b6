/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whose PMU recorded a c2c report: its counts mean different things on
 * each (c2c/c2c_legend.h says what), and the collector picks its recording
 * rules by it (c2c/c2c.h).
 */
#ifndef LAB_C2C_C2C_VENDOR_H
#define LAB_C2C_C2C_VENDOR_H

enum c2c_vendor { C2C_VENDOR_UNKNOWN, C2C_INTEL, C2C_AMD, C2C_ARM, C2C_POWER };

/* "intel", "amd", "arm", "power", "unknown". */
const char *c2c_vendor_name(enum c2c_vendor v);
/* The vendor of a name above (not "unknown"); -1 when it is none. */
int c2c_vendor_parse(const char *name);
/*
 * The vendor whose memory event perf c2c names in its "Events" line:
 * ibs_op (AMD IBS), arm_spe (Arm SPE), mem-loads,ldlat / mem-stores/P
 * (Intel PEBS; cpu_core/ and cpu_atom/ on hybrids); unknown otherwise
 * (Power's cpu/mem-loads/ is not told from others).
 */
enum c2c_vendor c2c_vendor_of_event(const char *event);

#endif
