/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time axes in ns, µs, ms or s, whichever the data's largest value reads
 * best in (1 to 999 of the unit): a latency axis says "12 ms", not
 * "1.2e+07" ns.
 */
#ifndef LAB_PLOT_TIME_AXIS_H
#define LAB_PLOT_TIME_AXIS_H

#include <stdbool.h>

struct time_axis {
	const char *unit;	/* "ns", "µs", "ms" or "s" */
	double scale;		/* multiply a value in the data's unit by this */
};

/* false if unit ("ns", "us", "µs", "ms", "s") is not a time; else the axis
 * for data in unit whose largest magnitude is max. */
bool time_axis_for(const char *unit, double max, struct time_axis *ax);
/*
 * The axis of a metric in unit: where its name says the unit as a word
 * ("stock.cpu_ns_per_charge" in ns: words split at '.' and '_'), in that
 * unit, since the name read in µs would contradict it (true: the name
 * says the unit, no "[unit]" needed); else as time_axis_for() (false).
 */
bool time_axis_for_metric(const char *metric, const char *unit, double max, struct time_axis *ax);
/*
 * A log axis of nanoseconds from lo to hi: its tics, one per decade, each
 * in its own unit ('"1 µs" 1000, "10 µs" 10000, ..., "1 ms" 1000000'), for
 * gnuplot's "set xtics (...)".  malloc'd.
 */
char *time_axis_log_tics(double lo_ns, double hi_ns);

#endif
