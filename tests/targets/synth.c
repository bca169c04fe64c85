// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ground-truth target for the sampler tests.  Reads one command byte at a time from stdin and
 * answers "k\n" on stdout when the work is done, so the test switches phases while it sleeps:
 *   'a'  burn CPU_MS (argv[1], default 1000) of CPU: 70% in hot_a, 30% in hot_b, in blocks of
 *        a fixed length (~0.5 ms): periodic work, on which a periodic sampler can lock step
 *   'j'  the same split in blocks whose lengths vary at random (~0.25-0.75 ms): no period for
 *        a sampler to lock step with, so any sampler's shares must match the split
 *   'c'  burn CPU_MS/2 of CPU in hot_c
 *   'q'  exit
 * The 70/30 split is enforced on measured thread CPU time, not on iteration counts: identical
 * loops at different addresses can run at different speeds.  hot_a/b/c are noipa so the
 * compiler can neither merge nor inline them.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define UNIT_ITERS 20000 /* ~20-40 µs */

static volatile unsigned long sink;

#define HOT(name, k)                                                                               \
	__attribute__((noipa)) void name(unsigned long units)                                      \
	{                                                                                          \
		unsigned long x = sink + (k);                                                      \
		for (unsigned long i = 0; i < units * UNIT_ITERS; i++)                             \
			x = x * 6364136223846793005ul + 1442695040888963407ul;                     \
		sink = x;                                                                          \
	}

HOT(hot_a, 1)
HOT(hot_b, 2)
HOT(hot_c, 3)

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Run a block of fn and return the thread CPU time it took, in ms.  Blocks are ~0.5 ms: the
 * clock read is a real syscall (thread CPU clocks have no vDSO path), and a profiler that
 * traces syscalls adds its cost to every one.
 */
static double timed(void (*fn)(unsigned long), unsigned long units)
{
	double t0 = cpu_ms();

	fn(units);
	return cpu_ms() - t0;
}

/* Block lengths of 10-30 units, from a fixed-seed LCG (the same sequence every run). */
static unsigned long jitter_units(unsigned long *state)
{
	*state = *state * 6364136223846793005ul + 1442695040888963407ul;
	return 10 + (*state >> 33) % 21;
}

__attribute__((noipa)) static void phase_one(double ms, int jitter)
{
	unsigned long state = 42;
	double a = 0, b = 0;

	while (a + b < ms) {
		unsigned long units = jitter ? jitter_units(&state) : 20;

		if (a * 3 <= b * 7)
			a += timed(hot_a, units);
		else
			b += timed(hot_b, units);
	}
}

__attribute__((noipa)) static void phase_two(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		hot_c(10);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000;
	char c;

	while (read(0, &c, 1) == 1) {
		if (c == 'a' || c == 'j')
			phase_one(ms, c == 'j');
		else if (c == 'c')
			phase_two(ms / 2);
		else if (c == 'q')
			break;
		else
			continue;
		if (write(1, "k\n", 2) != 2)
			return 1;
	}
	return 0;
}
