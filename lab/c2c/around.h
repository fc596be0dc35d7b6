/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collectors `memcg-lab run` puts around one driver run (one step and
 * repeat): started before the driver, ticked while it runs, finished after
 * it.  Each one either records into the run's data/ or says once, in the
 * results (results_skip), why it cannot on this machine.
 *
 *  - perf c2c: one window in the steady state (c2c/c2c.h); the run's own
 *    memcgs are found by walking the driver's cgroup tree once it is there,
 *    halfway to the window and never inside it, so that HITM offsets can be
 *    named by struct field; each window's row (samples, lost, throttled,
 *    size, status) goes to data/c2c/windows.tsv and data/c2c-windows.txt,
 *    with what the PMU's data cannot show at the top.
 *  - the lines plugin's window, in a guest under vm --lines: the same
 *    steady-state window, labelled with the step (c2c/lines_session.h).
 */
#ifndef LAB_C2C_AROUND_H
#define LAB_C2C_AROUND_H

#include <stdbool.h>
#include <sys/types.h>
#include "c2c/c2c.h"
#include "util/results.h"

/* [collect] c2c: auto records where perf samples memory and says why not
 * elsewhere; yes is the same, asked for; no is off. */
enum c2c_mode { C2C_MODE_OFF, C2C_MODE_AUTO, C2C_MODE_ON };

struct around_cfg {
	enum c2c_mode c2c;
	struct c2c_opts c2c_opts;
};

struct around;
struct around_env;

/* Once per run: detects what the collectors need; skips are recorded. */
struct around_env *around_env_open(const struct around_cfg *cfg, struct results *r);
void around_env_close(struct around_env *e);

/* One driver run of about driver_s seconds, its files tagged with step/repeat. */
struct around *around_start(struct around_env *e, const char *step, int repeat, double driver_s);
/* While the driver (pid) runs, every ~100 ms, elapsed seconds since start. */
void around_tick(struct around *a, pid_t driver, double elapsed_s);
/* After the driver ended. */
void around_finish(struct around *a);
/* A c2c window lost its data to a bound (disk, size cap, report time):
 * the run is not complete.  Also says so in one line on stderr. */
bool around_env_bound_failed(const struct around_env *e);

#endif
