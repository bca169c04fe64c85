/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The chain target's library interface (tests/targets/chain/). */
#ifndef CHAIN_H
#define CHAIN_H

/* clang has no noipa; noinline keeps the frames apart there. */
#if defined(__clang__)
#define noipa __attribute__((noinline))
#else
#define noipa __attribute__((noipa))
#endif

typedef unsigned long (*chain_fn)(unsigned long n, unsigned long x);

unsigned long lib_outer(unsigned long n, unsigned long x);
unsigned long lib_call(unsigned long n, unsigned long x, chain_fn fn);

#endif /* CHAIN_H */
