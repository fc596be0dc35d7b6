/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The window of the lines plugin (lab/c2c/plugin/), opened and closed from
 * inside the guest: a program (the lab in the guest, a test) calls
 * lines_window_open() and lines_window_close(); outside the window the
 * plugin counts nothing.
 *
 * Each is one magic instruction: a 7-byte NOP with a memory operand,
 * `nopl DISP32(%rax)` (0f 1f 80 + disp32), whose displacement no compiler
 * emits (NOP padding uses displacements of 0).  It does nothing on any x86
 * CPU, under KVM, or under qemu without the plugin; the plugin recognises
 * the bytes when it translates the instruction (qemu_plugin_insn_data) and
 * gives it a callback that opens or closes the window when it runs.  The
 * bytes are written out (.byte), so that no assembler picks another
 * encoding.  On other architectures the calls do nothing (the plugin is
 * x86 only for now).
 */
#ifndef LAB_C2C_LINES_WINDOW_H
#define LAB_C2C_LINES_WINDOW_H

#define LINES_WINDOW_INSN_SIZE 7
/* The displacements: "LNO1" and "LNO0" as little-endian words. */
#define LINES_WINDOW_OPEN_DISP 0x314f4e4cu
#define LINES_WINDOW_CLOSE_DISP 0x304f4e4cu

#if defined(__x86_64__) || defined(__i386__)
static inline void lines_window_open(void)
{
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x4c, 0x4e, 0x4f, 0x31" ::: "memory");
}

static inline void lines_window_close(void)
{
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x4c, 0x4e, 0x4f, 0x30" ::: "memory");
}
#else
static inline void lines_window_open(void)
{
}

static inline void lines_window_close(void)
{
}
#endif

#endif
