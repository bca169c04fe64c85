// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ground-truth target for the time ledger.  Reads one command byte at a time from stdin, does
 * the work, and answers one line on stdout with what it did, so the test can compare the ledger
 * with the target's own counts:
 *   'u'  burn ~300 ms of user CPU in burn()  -> "k 0 <thread CPU ns in burn()>"
 *   'w'  100000 times: write() 1 byte to /dev/null, then getppid(), each between two reads of
 *        the thread CPU clock
 *        -> "k <writes> <write ns> <getppid ns> <write median ns> <getppid median ns>",
 *        ns = thread CPU time between the clock reads around each call, summed: the write
 *        windows hold whole write calls; the medians of one call's window: their difference
 *        is what a write costs beyond a getppid, free of the milliseconds a TCG guest's
 *        stalled vCPU charges to the few windows it hits (the sums' difference carries
 *        those); it is not write's body alone: part of it lies outside the kernel's syscall
 *        tracepoints (the entry and exit paths, the clock read after it), and how much
 *        differs from machine to machine
 *   's'  50 times: sleep 10 ms (clock_nanosleep), then ~50 µs of work
 *        -> "k <wakeups> <work ns> <command ns>", work = thread CPU time from each wakeup to
 *        the next sleep, summed; command = thread CPU time from the command byte's read()
 *        returning to the reply, the loop and its sleeps included (a slow guest can spend a
 *        millisecond outside the loop: the code's first run, a vCPU stalled there)
 *   'p'  a second thread blocks in read() on a pipe, then works ~20 ms; the main thread writes
 *        to it after 200 ms, joins it and waits until the kernel has released it
 *        -> "k 0 <the reader's CPU ns, at least> <its read()'s wall ns by its own clock>
 *        <alive ns> <its CPU ns in burn()> <the reader's CPU ns, at most>", the
 *        CPU its whole life, exit included: the process's CPU clock (which keeps the CPU time
 *        of released threads) less the main thread's, over the phase; alive = CLOCK_MONOTONIC
 *        when the reader was last known not yet released (its function's end, or a later look
 *        that still found it): the kernel released it after that
 *   'b'  a batch: a number of pwrite() of 1 byte to /dev/null that changes from batch to batch
 *        (500 to 3499, from a fixed sequence), each between two reads of CLOCK_MONOTONIC
 *        -> "k <pwrites> <wall ns of the windows around them, summed>"
 *   'q'  exit
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

static volatile unsigned long sink;

static unsigned long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned long long thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Burn user CPU: iters steps of an LCG, no calls, no clock reads (~1 ns a step here). */
__attribute__((noipa)) void burn(unsigned long iters)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < iters; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}

#define WRITES 100000

static int cmp_ull(const void *x, const void *y)
{
	unsigned long long a = *(const unsigned long long *)x, b = *(const unsigned long long *)y;

	return (a > b) - (a < b);
}

static unsigned long long median(unsigned long long *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return v[n / 2];
}

/* med[0], med[1]: the median write and getppid windows */
static long write_loop(unsigned long long *write_ns, unsigned long long *null_ns,
		       unsigned long long med[2])
{
	static unsigned long long w[WRITES], g[WRITES];
	int fd = open("/dev/null", O_WRONLY);
	unsigned long long t0;
	long n = 0;

	if (fd < 0)
		return -1;
	*write_ns = *null_ns = 0;
	for (int i = 0; i < WRITES; i++) {
		t0 = thread_ns();
		n += write(fd, "x", 1) == 1;
		w[i] = thread_ns() - t0;
		t0 = thread_ns();
		getppid();
		g[i] = thread_ns() - t0;
		*write_ns += w[i];
		*null_ns += g[i];
	}
	close(fd);
	med[0] = median(w, WRITES);
	med[1] = median(g, WRITES);
	return n;
}

/* One batch of pwrite() calls; *wall_ns gets the wall of the windows around them. */
static long pwrite_batch(unsigned long long *wall_ns)
{
	static unsigned long seq = 12345;
	int fd = open("/dev/null", O_WRONLY);
	long n = 0, calls;

	if (fd < 0)
		return -1;
	seq = seq * 6364136223846793005ul + 1442695040888963407ul;
	calls = 500 + (long)((seq >> 33) % 3000);
	*wall_ns = 0;
	for (long i = 0; i < calls; i++) {
		unsigned long long t0 = clock_ns(CLOCK_MONOTONIC);

		n += pwrite(fd, "x", 1, 0) == 1;
		*wall_ns += clock_ns(CLOCK_MONOTONIC) - t0;
	}
	close(fd);
	return n;
}

/* Returns the wakeups; *work_ns gets the CPU time of the work done after them. */
static long sleeper(unsigned long long *work_ns)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	unsigned long long t0;
	long n = 0;

	*work_ns = 0;
	for (int i = 0; i < 50; i++) {
		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) == 0)
			n++;
		t0 = thread_ns();
		burn(50 * 1000);  /* ~50 µs */
		*work_ns += thread_ns() - t0;
	}
	return n;
}

static volatile pid_t reader_tid;
static unsigned long long reader_blocked_ns; /* the reader's read() by its own clock */
static unsigned long long reader_end_ns;     /* CLOCK_MONOTONIC as it returns, its exit next */
static unsigned long long reader_burn_ns;    /* its thread CPU time in burn() */

static void *reader(void *arg)
{
	int *fds = arg;
	char c;

	reader_tid = gettid();
	reader_blocked_ns = clock_ns(CLOCK_MONOTONIC);
	if (read(fds[0], &c, 1) != 1)
		return (void *)1;
	reader_blocked_ns = clock_ns(CLOCK_MONOTONIC) - reader_blocked_ns;
	/* ~20 ms of work before exiting: the phase's CPU is then large against the µs by which
	 * two exact counters read a few instructions apart can differ (its 1% check) */
	reader_burn_ns = thread_ns();
	burn(20ul * 1000 * 1000);
	reader_burn_ns = thread_ns() - reader_burn_ns;
	reader_end_ns = clock_ns(CLOCK_MONOTONIC);
	return NULL;
}

/*
 * pthread_join returns when the kernel clears the thread's tid, early in its exit; its CPU time
 * reaches the process's clock when the kernel releases it, after which /proc/self/task/TID is
 * gone.  Wait for that (the main thread's own CPU while waiting cancels out).  *alive: the time
 * before the last look that still found it, if any.  The thread runs a little after its release
 * (to its last switch-out), CPU no clock of this process sees: at most the time since *alive.
 */
static void wait_released(pid_t tid, unsigned long long *alive)
{
	struct timespec ts = { 0, 100 * 1000 };
	unsigned long long t;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	for (int i = 0; i < 100000; i++) {
		t = clock_ns(CLOCK_MONOTONIC);
		if (access(path, F_OK) != 0)
			break;
		*alive = t;
		nanosleep(&ts, NULL);
	}
}

/*
 * cpu[0], cpu[1]: the reader's CPU, at least and at most.  The process clock and the main
 * thread's are read one after the other, so main's CPU between the process clock's two reads
 * lies between thread clock reads inside and outside each (a guest's vCPU can stall for a
 * millisecond inside one of these syscalls).
 */
static int pipe_block(unsigned long long cpu[2], unsigned long long *alive)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	unsigned long long m_out0 = thread_ns(), p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	unsigned long long m_in0 = thread_ns(), m_in1, p1, m_out1;
	pthread_t t;
	int fds[2];
	void *ret;

	if (pipe(fds) || pthread_create(&t, NULL, reader, fds))
		return -1;
	nanosleep(&ts, NULL);
	if (write(fds[1], "x", 1) != 1)
		return -1;
	pthread_join(t, &ret);
	*alive = reader_end_ns;
	wait_released(reader_tid, alive);
	close(fds[0]);
	close(fds[1]);
	m_in1 = thread_ns();
	p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	m_out1 = thread_ns();
	cpu[0] = p1 - p0 > m_out1 - m_out0 ? (p1 - p0) - (m_out1 - m_out0) : 0;
	cpu[1] = (p1 - p0) - (m_in1 - m_in0);
	return ret ? -1 : 0;
}

int main(void)
{
	unsigned long long work = 0, null = 0, loop = 0, alive = 0, med[2] = { 0 };
	unsigned long long reader_cpu[2] = { 0 };
	char c, line[128];
	long r = 0;

	while (read(0, &c, 1) == 1) {
		/* the sleeper's command clock only: the write loop counts its clock reads */
		unsigned long long cmd0 = c == 's' ? thread_ns() : 0;

		work = null = loop = 0;
		switch (c) {
		case 'u':
			work = thread_ns();
			burn(300ul * 1000 * 1000);  /* ~300 ms */
			work = thread_ns() - work;
			r = 0;
			break;
		case 'w':
			r = write_loop(&work, &null, med);
			break;
		case 's':
			r = sleeper(&work);
			loop = thread_ns() - cmd0;
			break;
		case 'p':
			r = pipe_block(reader_cpu, &alive);
			work = reader_cpu[0];
			loop = reader_blocked_ns;
			break;
		case 'b':
			r = pwrite_batch(&work);
			break;
		case 'q':
			return 0;
		default:
			continue;
		}
		if (c == 'w')
			snprintf(line, sizeof(line), "k %ld %llu %llu %llu %llu\n", r, work, null,
				 med[0], med[1]);
		else if (c == 'p')
			snprintf(line, sizeof(line), "k %ld %llu %llu %llu %llu %llu\n", r, work, loop,
				 alive, reader_burn_ns, reader_cpu[1]);
		else
			snprintf(line, sizeof(line), "k %ld %llu %llu\n", r, work, loop);
		if (write(1, line, strlen(line)) != (ssize_t)strlen(line))
			return 1;
	}
	return 0;
}
