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

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define LINES_WINDOW_INSN_SIZE 7
/* The displacements: "LNO1" and "LNO0" as little-endian words. */
#define LINES_WINDOW_OPEN_DISP 0x314f4e4cu
#define LINES_WINDOW_CLOSE_DISP 0x304f4e4cu
/*
 * "LNP1": prepare.  Outside its windows the plugin leaves the guest's code
 * uninstrumented (a memory callback on every access costs the kernel ~2.5x
 * even when it returns at once); this NOP has it instrument everything from
 * now on, which takes a flush of qemu's translations, done when this vCPU
 * leaves its block (the jump after the NOP ends it) and before it runs
 * another instruction (under single-threaded TCG, after the other vCPUs'
 * turns).  So the instructions after lines_window_prepare() run
 * instrumented on every vCPU, and an opening after it counts from its
 * first instruction.  lines_window_open() prepares first; a program that
 * reads counters just before opening (lines_session.c) prepares before
 * reading them, so that no vCPU runs between the read and the opening.
 */
#define LINES_WINDOW_PREPARE_DISP 0x31504e4cu
/*
 * A range of guest memory to follow in detail from the next window on
 * (the plugin's detail=, from inside the guest, for objects whose address
 * is known only at run time: a memcg the lab made, the per-CPU stocks):
 * the marker "LND1" and three NOPs whose displacements carry the range's
 * start (low and high word) and length.  The data must be in instruction
 * bytes (qemu 7.2's plugin API reads no registers nor memory), so the
 * four NOPs are written into a fresh executable page and run there.
 */
#define LINES_DETAIL_DISP 0x31444e4cu
#define LINES_DETAIL_INSNS 4

#if defined(__x86_64__) || defined(__i386__)
/* Each NOP is followed by a jump to the next instruction, which ends qemu's
 * translation block there: the plugin's flush (above) comes before this
 * vCPU runs anything after it. */
static inline void lines_window_prepare(void)
{
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x4c, 0x4e, 0x50, 0x31\n\tjmp 1f\n1:" ::: "memory");
}

static inline void lines_window_open(void)
{
	lines_window_prepare();
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x4c, 0x4e, 0x4f, 0x31\n\tjmp 1f\n1:" ::: "memory");
}

static inline void lines_window_close(void)
{
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x4c, 0x4e, 0x4f, 0x30\n\tjmp 1f\n1:" ::: "memory");
}

static inline void lines_nop_disp(uint8_t *p, uint32_t disp)
{
	p[0] = 0x0f;
	p[1] = 0x1f;
	p[2] = 0x80;
	memcpy(p + 3, &disp, 4);	/* x86: little-endian */
}

/* Announces [lo, lo + len) (len < 4 GiB): 0, or -1 with errno (no page). */
static inline int lines_detail_announce(uint64_t lo, uint64_t len)
{
	uint8_t *code = (uint8_t *)mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	uint8_t *fn;

	if (code == MAP_FAILED)
		return -1;
	/* Not at the page's start: clang's -fsanitize=function (UBSan, in C
	 * from clang 17) reads the 8 bytes before an indirect call's target
	 * for its type signature. */
	fn = code + 64;
	lines_nop_disp(fn, LINES_DETAIL_DISP);
	lines_nop_disp(fn + 7, (uint32_t)lo);
	lines_nop_disp(fn + 14, (uint32_t)(lo >> 32));
	lines_nop_disp(fn + 21, (uint32_t)len);
	fn[28] = 0xc3;	/* ret */
	__builtin___clear_cache((char *)fn, (char *)fn + 29);
	((void (*)(void))(uintptr_t)fn)();
	munmap(code, 4096);
	return 0;
}
#else
static inline void lines_window_prepare(void)
{
}

static inline void lines_window_open(void)
{
}

static inline void lines_window_close(void)
{
}

static inline int lines_detail_announce(uint64_t lo, uint64_t len)
{
	(void)lo;
	(void)len;
	return 0;
}
#endif

#endif
