// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ground-truth target for the sampler tests.  Reads one command byte at a time from stdin and
 * answers "k\n" on stdout when the work is done, so the test switches phases while it sleeps:
 *   'a'  burn CPU_MS (argv[1], default 1000) of CPU: 70% in hot_a, 30% in hot_b, in blocks of
 *        a fixed length (~0.5 ms) in a fixed order (A A B A A B A A B A, again and again):
 *        periodic work, on which a periodic sampler can lock step.  The order does not depend
 *        on the clock: a target that picks its next block by its own CPU clock reacts to the
 *        sampler, whose interrupts that clock counts (it read 71.5% hot_a on average with a
 *        random period, against 70.1% for this order).  Answers like 'j'.
 *   'j'  the same split in blocks whose lengths vary at random (~0.25-0.75 ms), picked by the
 *        clock (the 70/30 split of the clock): no period for a sampler to lock step with, so
 *        any sampler's shares must match the split; answers
 *        "k <hot_b % of code> <hot_b % of clock>": the share of the code it ran (its units
 *        times the median thread CPU time of one unit in its blocks) and of the thread CPU
 *        clock (30).  The two agree on a machine whose clock runs only while the code does; in
 *        a TCG guest a stalled vCPU's clock runs on (milliseconds, charged to the block it
 *        hit) while a cpu-clock sampler takes one sample or a few for the whole stall, so its
 *        share lies between the two.
 *   'c'  burn CPU_MS/2 of CPU in hot_c
 *   'f'  burn CPU_MS/2 of CPU in hot_c in blocks of random length (~0.25-0.75 ms), each
 *        followed by a round trip through a pipe to a child process forked at the first 'f'
 *        (an inherited perf context, as netmux's stubslave has)
 *   'g'  the same blocks without the child; both answer "k <ms of thread CPU in the blocks>"
 *   'q'  exit
 * 'j' enforces the 70/30 split on measured thread CPU time, not on iteration counts: identical
 * loops at different addresses can run at different speeds ('a' reports how far that took it).  hot_a/b/c are noipa so the
 * compiler can neither merge nor inline them.
 */
#include <stdbool.h>
#include <stdio.h>
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

#define MAX_BLOCKS 65536

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of n per-unit times (sorted in place): the blocks no stall hit. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? v[n / 2] : 0;
}

/* Returns the share (%) of hot_b's code in the phase, *clock that of its CPU clock ('j'). */
__attribute__((noipa)) static double phase_one(double ms, int jitter, double *clock)
{
	static double per_a[MAX_BLOCKS], per_b[MAX_BLOCKS];
	unsigned long state = 42, ua = 0, ub = 0;
	size_t na = 0, nb = 0;
	double a = 0, b = 0, t, fa, fb;

	/* 'a': blocks 0, 1, 3, 4, 6, 7, 9 of every ten are hot_a's */
	for (unsigned long k = 0; a + b < ms; k++) {
		unsigned long units = jitter ? jitter_units(&state) : 20;
		bool is_a = jitter ? a * 3 <= b * 7 : k % 10 % 3 != 2;

		if (is_a) {
			a += t = timed(hot_a, units);
			ua += units;
			if (na < MAX_BLOCKS)
				per_a[na++] = t / units;
		} else {
			b += t = timed(hot_b, units);
			ub += units;
			if (nb < MAX_BLOCKS)
				per_b[nb++] = t / units;
		}
	}
	fa = median(per_a, na);
	fb = median(per_b, nb);
	*clock = 100 * b / (a + b);
	return ua * fa + ub * fb > 0 ? 100 * ub * fb / (ua * fa + ub * fb) : 0;
}

__attribute__((noipa)) static void phase_two(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		hot_c(10);
}

/* The child's side of 'f': echo every byte back until the pipe closes. */
static void echo_child(int in, int out)
{
	char b;

	while (read(in, &b, 1) == 1)
		if (write(out, &b, 1) != 1)
			break;
	_exit(0);
}

/*
 * 'f' and 'g': hot_c in blocks of random length; with child, a round trip to the child after
 * each block (the child is forked at the first 'f').  Returns the blocks' thread CPU time, ms.
 */
__attribute__((noipa)) static double phase_blocks(double ms, bool child)
{
	static int to_child = -1, from_child = -1;
	unsigned long state = 7;
	double spent = 0;
	char b = 'x';

	if (child && to_child < 0) {
		int a[2], r[2];

		if (pipe(a) || pipe(r))
			exit(1);
		if (fork() == 0) {
			close(a[1]);
			close(r[0]);
			echo_child(a[0], r[1]);
		}
		close(a[0]);
		close(r[1]);
		to_child = a[1];
		from_child = r[0];
	}
	while (spent < ms) {
		/* random lengths: a fixed period must not lock step with the blocks */
		spent += timed(hot_c, jitter_units(&state));
		if (child && (write(to_child, &b, 1) != 1 || read(from_child, &b, 1) != 1))
			exit(1);
	}
	return spent;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1000;
	char c, line[64];

	while (read(0, &c, 1) == 1) {
		if (c == 'j' || c == 'a') {
			double clock, b = phase_one(ms, c == 'j', &clock);
			int n = snprintf(line, sizeof(line), "k %.2f %.2f\n", b, clock);

			if (write(1, line, n) != n)
				return 1;
			continue;
		}
		if (c == 'f' || c == 'g') {
			int n = snprintf(line, sizeof(line), "k %.2f\n", phase_blocks(ms / 2, c == 'f'));

			if (write(1, line, n) != n)
				return 1;
			continue;
		}
		if (c == 'c')
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
