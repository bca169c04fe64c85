// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The machine's own noise, without netmux: how much the CPU time of a fixed piece of work
 * varies on this VM, and whether work on the other vCPU slows it (vCPUs that share a physical
 * core or its caches on the host: invisible to the guest, and not counted as steal).
 *
 * A thread pinned to CPU 0 repeats a fixed block of work (pointer chasing through 1 MiB plus
 * integer arithmetic: the kind of mix netmux's evaluator does) and measures each block's thread
 * CPU time.  Conditions alternate block by block, in a rotating order:
 *   idle      nothing runs on CPU 1 (beyond what the system runs anyway)
 *   alu       a thread on CPU 1 spins on integer arithmetic
 *   memory    a thread on CPU 1 streams through 64 MiB (cache and memory bandwidth)
 *
 *   build/bench/cpu_noise [ROUNDS (default 15)] [BLOCK_MS (default 40)] [MIB (default 1)]
 *
 * MIB is the pointer-chasing working set: 1 MiB stays in the core's own L2; 16 MiB lives in
 * the L3 that the host shares with other guests, as netmux's 1,500 objects partly do.
 *
 * Prints per condition the min / median / max of the block's CPU time and the noise, with host
 * steal and load.  Needs 2 CPUs; no privileges.  It measures; it passes or fails on nothing.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { IDLE, ALU, MEMORY, NCOND };
static const char *const cond_name[NCOND] = { "idle", "alu", "memory" };
static volatile int mode = IDLE; /* what the CPU 1 thread does */
static volatile int quit;

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *other(void *arg)
{
	size_t n = (64u << 20) / sizeof(uint64_t);
	uint64_t *buf = calloc(n, sizeof(*buf)), x = 1;
	struct timespec nap = { 0, 200000 };

	(void)arg;
	pin(1);
	while (!quit) {
		switch (mode) {
		case ALU:
			for (int i = 0; i < 100000; i++)
				x = x * 6364136223846793005ull + 1442695040888963407ull;
			break;
		case MEMORY:
			for (size_t i = 0; buf && i < n; i += 8)
				buf[i] += x++;
			break;
		default:
			nanosleep(&nap, NULL);
		}
	}
	free(buf);
	return (void *)(uintptr_t)x;
}

static void read_steal(unsigned long long *steal, unsigned long long *total)
{
	unsigned long long v[8] = {};
	FILE *f = fopen("/proc/stat", "re");

	*steal = *total = 0;
	if (f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			&v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
		for (int i = 0; i < 8; i++)
			*total += v[i];
		*steal = v[7];
	}
	if (f)
		fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 15;
	double block_ms = argc > 2 ? atof(argv[2]) : 40;
	int mib = argc > 3 ? atoi(argv[3]) : 1;
	size_t n = ((size_t)(mib > 0 ? mib : 1) << 20) / sizeof(uint32_t);
	uint32_t *next = malloc(n * sizeof(*next)), p = 0;
	double (*v)[NCOND], t0;
	unsigned long long s0, tt0, s1, tt1;
	long iters = 1;
	pthread_t th;
	char load[64] = "";
	FILE *f;

	if (rounds < 1 || rounds > 1000 || block_ms <= 0 || !next || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "usage: cpu_noise [ROUNDS 1-1000] [BLOCK_MS] [MIB] (needs 2 CPUs)\n");
		return 2;
	}
	v = calloc(rounds, sizeof(*v));
	/* a random permutation of the working set: every load depends on the last */
	for (size_t i = 0; i < n; i++)
		next[i] = i;
	srand(1);
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rand() % i;
		uint32_t t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
	pin(0);
	pthread_create(&th, NULL, other, NULL);
	/* size the block: iterations for block_ms of CPU */
	for (;;) {
		t0 = thread_ns();
		for (long i = 0; i < iters; i++)
			p = next[p] ^ (uint32_t)(i * 2654435761u >> 7) % n;
		if (thread_ns() - t0 > block_ms * 1e6 / 4)
			break;
		iters *= 2;
	}
	iters = (long)(iters * block_ms * 1e6 / (thread_ns() - t0 + 1));
	f = fopen("/proc/loadavg", "re");
	if (f) {
		if (!fgets(load, sizeof(load), f))
			load[0] = 0;
		fclose(f);
	}
	read_steal(&s0, &tt0);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < NCOND; k++) {
			int c = (k + r) % NCOND;
			struct timespec settle = { 0, 5000000 };

			mode = c;
			nanosleep(&settle, NULL);
			t0 = thread_ns();
			for (long i = 0; i < iters; i++)
				p = next[p] ^ (uint32_t)(i * 2654435761u >> 7) % n;
			v[r][c] = (thread_ns() - t0) / 1e6;
		}
	}
	quit = 1;
	mode = IDLE;
	pthread_join(th, NULL);
	read_steal(&s1, &tt1);
	printf("fixed work on CPU 0 (%ld steps, pointer chasing in %d MiB + arithmetic), %d rounds\n",
	       iters, mib, rounds);
	printf("  %-8s %9s %9s %9s %8s %9s\n", "CPU 1", "min ms", "median", "max", "noise",
	       "vs idle");
	{
		double idle_med = 0;

		for (int c = 0; c < NCOND; c++) {
			double *x = malloc(rounds * sizeof(*x)), med;

			for (int r = 0; r < rounds; r++)
				x[r] = v[r][c];
			qsort(x, rounds, sizeof(*x), cmp_double);
			med = x[rounds / 2];
			if (c == IDLE)
				idle_med = med;
			printf("  %-8s %9.2f %9.2f %9.2f %7.1f%% %8.3fx\n", cond_name[c], x[0], med,
			       x[rounds - 1], 100 * (x[rounds - 1] - x[0]) / med, med / idle_med);
			free(x);
		}
	}
	printf("host: steal %.2f%% over the run, load average at start %s",
	       tt1 > tt0 ? 100.0 * (s1 - s0) / (tt1 - tt0) : 0, load);
	free(v);
	free(next);
	return p == 0xffffffff; /* keep p alive */
}
