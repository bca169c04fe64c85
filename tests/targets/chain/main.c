// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ground truth for CFI unwinding across a shared library, built -O2 -fomit-frame-pointer by gcc
 * (chain_gcc + libchain_gcc.so) and by clang (chain_clang + libchain_clang.so).  Reads one
 * command byte at a time on stdin and answers "k\n" on stdout when the work is done:
 *   'a'  argv[1] ms (default 1000) of CPU in chain A, leaf in the library:
 *          lib_leaf <- lib_inner <- lib_outer (.so, through the PLT) <- step_a <- run_a <- main
 *   'b'  the same in chain B, leaf in the executable, called back from the library:
 *          exe_leaf <- lib_call (.so) <- step_b <- run_b <- main
 *   'n'  fixed work: argv[2] blocks (default 2000) of chain A (bench/unwind_cost.c)
 *   'q'  exit
 * Both leaves never touch the stack.  The CPU clock is read between blocks of ~0.2 ms, from
 * run_a/run_b: the few samples there have another leaf (the clock's) and are not chain samples.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "chain.h"

#define BLOCK 200000ul /* iterations, ~0.2 ms */

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

noipa unsigned long exe_leaf(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	return x;
}

noipa unsigned long step_a(unsigned long n, unsigned long x)
{
	return lib_outer(n, x) * 7;
}

noipa unsigned long step_b(unsigned long n, unsigned long x)
{
	return lib_call(n, x, exe_leaf) * 9;
}

noipa void run_a(double ms)
{
	double end = cpu_ms() + ms;
	unsigned long x = sink;

	while (cpu_ms() < end)
		x = step_a(BLOCK, x);
	sink = x;
}

noipa void run_b(double ms)
{
	double end = cpu_ms() + ms;
	unsigned long x = sink;

	while (cpu_ms() < end)
		x = step_b(BLOCK, x);
	sink = x;
}

noipa void run_n(long blocks)
{
	unsigned long x = sink;

	for (long i = 0; i < blocks; i++)
		x = step_a(BLOCK, x);
	sink = x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000;
	long blocks = argc > 2 ? atol(argv[2]) : 2000;
	char c;

	while (read(0, &c, 1) == 1) {
		if (c == 'a')
			run_a(ms);
		else if (c == 'b')
			run_b(ms);
		else if (c == 'n')
			run_n(blocks);
		else if (c == 'q')
			break;
		else
			continue;
		if (write(1, "k\n", 2) != 2)
			return 1;
	}
	return 0;
}
