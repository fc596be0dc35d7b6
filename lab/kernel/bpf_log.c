// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <bpf/libbpf.h>
#include "kernel/bpf_log.h"

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void *bpf_log_quiet(void)
{
	return (void *)libbpf_set_print(quiet);
}

void bpf_log_restore(void *token)
{
	libbpf_set_print((libbpf_print_fn_t)token);
}
