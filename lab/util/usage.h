/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Usage handling shared by every subcommand: `--help` prints the text on
 * stdout and exits 0; a bad option prints one line on stderr naming the
 * offending argument and exits 2 (EXIT_LAB_ERR).  Commands that parse
 * through util/options.h get this without calling it.
 */
#ifndef LAB_UTIL_USAGE_H
#define LAB_UTIL_USAGE_H

/* The command getopt now walks (main sets it; a parent sets it for
 * "lock record", "c2c parse"), so that a bad option is named right. */
void usage_context(const char *name, int argc, char **argv);

/* That command's name, for the one-line errors ("lock record"; "memcg-lab"
 * before any is set). */
const char *usage_command(void);

/* status 0: text on stdout; otherwise the one-line error (text unused). */
void usage_exit(const char *text, int status) __attribute__((noreturn));

#endif
