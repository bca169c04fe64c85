// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The markers the icount_window QEMU plugin (bench/qemu/icount_window.c) counts between:
 * `nopl disp32(%rax)` with a displacement no compiler emits.  On hardware they are no-ops.
 * ICOUNT_OPEN_MARK() and ICOUNT_CLOSE_MARK() in a guest program open and close one window.
 */
#ifndef MUXBPF_BENCH_ICOUNT_MARK_H
#define MUXBPF_BENCH_ICOUNT_MARK_H

#define ICOUNT_MARK_LEN 7
#define ICOUNT_OPEN 0x5b /* '[' */
#define ICOUNT_CLOSE 0x5d /* ']' */
/* 0f 1f 80 disp32, the displacement "mbW[" or "mbW]" little-endian */
#define ICOUNT_MARK_BYTES(k) 0x0f, 0x1f, 0x80, 'm', 'b', 'W', k

#define ICOUNT_STR_(x) #x
#define ICOUNT_STR(x) ICOUNT_STR_(x)
#define ICOUNT_ASM(k) \
	__asm__ volatile(".byte 0x0f,0x1f,0x80,0x6d,0x62,0x57," ICOUNT_STR(k) ::: "memory")
#define ICOUNT_OPEN_MARK() ICOUNT_ASM(ICOUNT_OPEN)
#define ICOUNT_CLOSE_MARK() ICOUNT_ASM(ICOUNT_CLOSE)

#endif
