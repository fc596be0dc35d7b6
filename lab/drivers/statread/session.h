/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LAB_DRIVERS_STATREAD_SESSION_H
#define LAB_DRIVERS_STATREAD_SESSION_H

struct statread_cli;
struct statread_config;

/*
 * Plans cfg on this host and, unless cli asks only to validate or describe
 * it, runs it (root only) into cli->results, ended by report_finish() (the
 * report, then meta.json's status).  argc/argv: the whole command line, for
 * meta.json.  Returns 0, 1 when the run failed or measured nothing, 128+N
 * when interrupted by signal N; a bad plan is one line and exit 2.
 */
int statread_session(struct statread_config *cfg, const struct statread_cli *cli, int argc, char **argv);

#endif
