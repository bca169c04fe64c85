// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The shared-library half of the chain target (main.c): built without frame pointers into
 * libchain_gcc.so and libchain_clang.so.  lib_outer and lib_call are entered through the
 * executable's PLT; lib_inner and lib_leaf are internal.  lib_leaf and the executable's
 * exe_leaf are leaves that never touch the stack (a register loop), so the CFA is rsp + 8 and
 * the caller is found only through the return address at sp.  Every call is followed by work on
 * its result, so no call becomes a tail call (which would drop a frame from the truth).
 */
#include "chain.h"

static noipa unsigned long lib_leaf(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static noipa unsigned long lib_inner(unsigned long n, unsigned long x)
{
	return lib_leaf(n, x) ^ n;
}

noipa unsigned long lib_outer(unsigned long n, unsigned long x)
{
	return lib_inner(n, x + 1) + 3;
}

noipa unsigned long lib_call(unsigned long n, unsigned long x, chain_fn fn)
{
	return fn(n, x) ^ 5;
}
