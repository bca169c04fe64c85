// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ground truth for attach mode: threads that exist before muxbpf attaches, and a thread created
 * after it by one of them (not by the main thread).  Not netmux: attach mode must not care.
 *   threads [EARLY]   start EARLY (default 2) threads burning in spin_early at half duty
 *                     (1 ms of CPU, 1 ms asleep); print "ready" once they run
 *   SIGUSR1           the first early thread creates one thread burning in spin_late
 *   stdin EOF, SIGTERM: exit
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile sig_atomic_t want_late;

static double thread_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#define SPIN(name, k)                                                                              \
	__attribute__((noipa)) void name(double ms)                                                \
	{                                                                                          \
		double t0 = thread_ms();                                                           \
		unsigned long x = sink + (k);                                                      \
		do {                                                                               \
			for (int i = 0; i < 20000; i++)                                            \
				x = x * 6364136223846793005ul + 1442695040888963407ul;             \
		} while (thread_ms() - t0 < ms);                                                   \
		sink = x;                                                                          \
	}

SPIN(spin_early, 1)
SPIN(spin_late, 2)

static void *late(void *arg)
{
	struct timespec nap = { 0, 1000000 };

	(void)arg;
	for (;;) {
		spin_late(1);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

static void *early(void *arg)
{
	struct timespec nap = { 0, 1000000 };
	long first = (long)arg == 0;
	pthread_t t;

	for (;;) {
		spin_early(1);
		nanosleep(&nap, NULL);
		if (first && want_late) {
			want_late = 0;
			pthread_create(&t, NULL, late, NULL);
		}
	}
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	want_late = 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2;
	pthread_t t;
	char c;

	signal(SIGUSR1, on_usr1);
	for (long i = 0; i < n; i++)
		pthread_create(&t, NULL, early, (void *)i);
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
