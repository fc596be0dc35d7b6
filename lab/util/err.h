/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One-line errors and allocation helpers.
 *
 * Every user-facing failure of the lab is one line on stderr that names the
 * file, cgroup or option at fault, followed by exit status 2 (EXIT_LAB_ERR).
 * die() goes through exit(), so the cleanup registry (util/cleanup.h) removes
 * whatever the run created before the process ends.
 */
#ifndef LAB_UTIL_ERR_H
#define LAB_UTIL_ERR_H

#include <stddef.h>
#include <stdarg.h>

#define EXIT_LAB_ERR 2

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void vdie(const char *fmt, va_list ap) __attribute__((noreturn));
void warnx_lab(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For the functions that return their error as one line instead of dying:
 * formats it into err and returns -1. */
int set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Program name used as the prefix of every message ("memcg-lab"). */
extern const char *lab_progname;

#endif
