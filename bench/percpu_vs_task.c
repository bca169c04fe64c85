// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Why attach mode opens one sampler event per thread instead of one per CPU: what each costs
 * while the target sleeps.  Counts local timer interrupts (/proc/interrupts LOC) per second on
 * every CPU with no event, with a user-only cpu-clock event at FREQ on every CPU (pid -1), and
 * with one per-task event on a sleeping process; then the cost of one interrupt, from how much
 * a CPU-bound loop slows down under the per-CPU events.
 *
 *   build/bench/percpu_vs_task [FREQ] [SECONDS]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MAXCPU 64

static int ncpu;

static int open_clock(pid_t pid, int cpu, int freq)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
				     .size = sizeof(a), .freq = 1, .sample_freq = freq,
				     .exclude_kernel = 1, .exclude_hv = 1 };

	return syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* LOC interrupts per CPU now. */
static int loc(unsigned long long *v)
{
	char line[4096];
	FILE *f = fopen("/proc/interrupts", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (strncmp(p, "LOC:", 4))
			continue;
		p += 4;
		for (n = 0; n < ncpu && n < MAXCPU; n++)
			v[n] = strtoull(p, &p, 10);
	}
	fclose(f);
	return n;
}

static void rate(const char *what, double secs)
{
	unsigned long long a[MAXCPU], b[MAXCPU];

	loc(a);
	usleep(secs * 1e6);
	loc(b);
	printf("  %-34s", what);
	for (int c = 0; c < ncpu && c < MAXCPU; c++)
		printf(" cpu%d %6.0f/s", c, (b[c] - a[c]) / secs);
	printf("\n");
}

static double burn(void)
{
	struct timespec t0, t1;
	volatile unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < 300000000; i++)
		x = x * 6364136223846793005ul + 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int freq = argc > 1 ? atoi(argv[1]) : 997;
	double secs = argc > 2 ? atof(argv[2]) : 3;
	int fds[MAXCPU], fd;
	double plain[5], loaded[5];
	pid_t child;

	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	printf("local timer interrupts (LOC) per second, user-only cpu-clock at %d Hz:\n", freq);
	rate("no event", secs);
	for (int c = 0; c < ncpu && c < MAXCPU; c++) {
		fds[c] = open_clock(-1, c, freq);
		if (fds[c] < 0) {
			printf("cannot open a per-CPU event: %s\n", strerror(errno));
			return 0;
		}
	}
	rate("one event per CPU (pid -1)", secs);
	for (int r = 0; r < 5; r++) {
		for (int c = 0; c < ncpu && c < MAXCPU; c++)
			ioctl(fds[c], PERF_EVENT_IOC_DISABLE, 0);
		plain[r] = burn();
		for (int c = 0; c < ncpu && c < MAXCPU; c++)
			ioctl(fds[c], PERF_EVENT_IOC_ENABLE, 0);
		loaded[r] = burn();
	}
	for (int c = 0; c < ncpu && c < MAXCPU; c++)
		close(fds[c]);
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	fd = open_clock(child, -1, freq);
	rate("one event on a sleeping task", secs);
	close(fd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	qsort(plain, 5, sizeof(double), cmp);
	qsort(loaded, 5, sizeof(double), cmp);
	printf("  a CPU-bound loop: %.3f s without, %.3f s under the per-CPU events (medians of "
	       "5): %.1f us per interrupt\n", plain[2], loaded[2],
	       (loaded[2] - plain[2]) / (loaded[2] * freq) * 1e6);
	return 0;
}
