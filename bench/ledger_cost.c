// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the time ledger costs: the syscall and scheduler tracepoints see every process on the
 * machine, and filter to the target in their first instructions.  This benchmark measures
 * ns per write() of a bystander process (not the target) and of the target itself, with the
 * profiler detached, attached with --no-syscalls (sampler only) and attached with the ledger,
 * alternating the three in rounds so host noise hits them alike.
 *
 *   build/bench/ledger_cost [ROUNDS] [WRITES]
 *
 * Prints per configuration the min / median / max of ns per write over the rounds, and the
 * ratios of the medians to "detached".  Needs root (or CAP_BPF + CAP_PERFMON).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "loader/profiler.h"
#include "base/log.h"

enum { DETACHED, SAMPLER, LEDGER, NCONF };
static const char *const conf_name[NCONF] = { "detached", "sampler only", "sampler + ledger" };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A process that waits for a byte, does n write()s to /dev/null, reports ns per write. */
static pid_t spawn_writer(int *cmd_fd, int *res_fd)
{
	int cmd[2], res[2];
	pid_t pid;

	if (pipe(cmd) || pipe(res))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		long n;
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (read(cmd[0], &n, sizeof(n)) == sizeof(n) && n > 0) {
			double t0 = now_ns(), per;

			for (long i = 0; i < n; i++)
				c = write(fd, "x", 1);
			per = (now_ns() - t0) / n;
			if (write(res[1], &per, sizeof(per)) != sizeof(per))
				break;
		}
		(void)c;
		_exit(0);
	}
	close(cmd[0]);
	close(res[1]);
	*cmd_fd = cmd[1];
	*res_fd = res[0];
	return pid;
}

static double run_writes(int cmd_fd, int res_fd, long n)
{
	double per = -1;

	if (write(cmd_fd, &n, sizeof(n)) != sizeof(n) || read(res_fd, &per, sizeof(per)) != sizeof(per))
		return -1;
	return per;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	long writes = argc > 2 ? atol(argv[2]) : 200000;
	double other[NCONF][64], self[NCONF][64];
	int tcmd, tres, ocmd, ores;
	pid_t target, bystander;

	if (rounds < 1 || rounds > 64 || writes < 1) {
		fprintf(stderr, "usage: ledger_cost [ROUNDS 1-64] [WRITES]\n");
		return 2;
	}
	target = spawn_writer(&tcmd, &tres);
	bystander = spawn_writer(&ocmd, &ores);
	if (target < 0 || bystander < 0)
		return 1;
	for (int r = 0; r < rounds; r++) {
		for (int c = 0; c < NCONF; c++) {
			struct profiler_opts o = { .pid = target, .freq = 997,
						 .no_ledger = c != LEDGER };
			struct profiler *p = NULL;

			if (c != DETACHED && !(p = profiler__new(&o)))
				return 1;
			other[c][r] = run_writes(ocmd, ores, writes);
			self[c][r] = run_writes(tcmd, tres, writes);
			profiler__free(p);
		}
	}
	printf("ns per write() of 1 byte to /dev/null, %d rounds of %ld writes, interleaved\n",
	       rounds, writes);
	printf("%-18s %-10s %8s %8s %8s %8s\n", "profiler", "process", "min", "median", "max",
	       "ratio");
	for (int who = 0; who < 2; who++) {
		double med0 = 0;

		for (int c = 0; c < NCONF; c++) {
			double *v = who ? self[c] : other[c];

			qsort(v, rounds, sizeof(*v), cmp_double);
			if (c == DETACHED)
				med0 = v[rounds / 2];
			printf("%-18s %-10s %8.1f %8.1f %8.1f %7.3fx\n", conf_name[c],
			       who ? "target" : "bystander", v[0], v[rounds / 2], v[rounds - 1],
			       v[rounds / 2] / med0);
		}
	}
	kill(target, SIGKILL);
	kill(bystander, SIGKILL);
	waitpid(target, NULL, 0);
	waitpid(bystander, NULL, 0);
	return 0;
}
