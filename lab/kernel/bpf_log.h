/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf prints its own diagnostics on stderr; the lab reports failures in
 * one line of its own, so loads and probes run with libbpf quiet.
 */
#ifndef LAB_KERNEL_BPF_LOG_H
#define LAB_KERNEL_BPF_LOG_H

/* Silences libbpf; returns a token for bpf_log_restore(). */
void *bpf_log_quiet(void);
void bpf_log_restore(void *token);

#endif
