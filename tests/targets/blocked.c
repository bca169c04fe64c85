// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ground truth for long windows: one thread blocked in a single read() for the whole run, beside
 * threads that switch a thousand times a second, so that every boundary reading and occupancy
 * check falls inside the blocked call and the kernel's rare unreported switches show up.
 *   blocked [WORKERS [SLEEP_US]]  WORKERS (default 2) threads: nanosleep(SLEEP_US, default
 *                      1000), then ~20 us of user work; the main thread blocks in read() on a
 *                      pipe nobody writes; prints "ready TID" (the blocked thread) first
 *   stdin EOF, SIGTERM: exit
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static long sleep_us = 1000;

static void *worker(void *arg)
{
	struct timespec ts = { sleep_us / 1000000, sleep_us % 1000000 * 1000 };

	(void)arg;
	for (;;) {
		nanosleep(&ts, NULL);
		for (int i = 0; i < 20000; i++)
			sink += i;
	}
	return NULL;
}

/* Exit when stdin closes: the test's handle on the target's life. */
static void *watch_stdin(void *arg)
{
	char c;

	(void)arg;
	while (read(0, &c, 1) > 0)
		;
	exit(0);
}

int main(int argc, char **argv)
{
	int workers = argc > 1 ? atoi(argv[1]) : 2, p[2];
	pthread_t t;
	char c;

	if (argc > 2)
		sleep_us = atol(argv[2]);
	if (pipe(p) || pthread_create(&t, NULL, watch_stdin, NULL))
		return 1;
	for (int i = 0; i < workers; i++)
		if (pthread_create(&t, NULL, worker, NULL))
			return 1;
	printf("ready %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	return (int)read(p[0], &c, 1); /* never returns: nobody writes p[1] */
}
