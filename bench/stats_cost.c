// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What BPF run-time statistics cost.  The report's profiler-cost table comes from
 * bpf_enable_stats(BPF_STATS_RUN_TIME), which makes the kernel read the clock twice around every
 * program run.  This benchmark attaches the profiler (sampler + ledger) to a sleeping child and
 * times write() to /dev/null in this process -- a bystander: each call runs the ledger's
 * sys_enter and sys_exit programs, which return after the pid compare -- with the statistics
 * on and off, alternating rounds.  Also prints what the statistics themselves say a run costs.
 *
 *   build/bench/stats_cost [ROUNDS] [WRITES]
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "loader/profiler.h"
#include "loader/collect_live.h"
#include "base/log.h"
#include "loader/unwind.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double per_write(int fd, long n)
{
	char c = 0;
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		if (write(fd, &c, 1) != 1)
			return -1;
	return (now_ns() - t0) / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void enter_exit(struct profiler *p, uint64_t *runs, uint64_t *ns)
{
	struct mb_cost_reading rd;

	cost_read(p, &rd);
	*runs = *ns = 0;
	for (int i = 0; i < rd.nprogs; i++)
		if (!strcmp(rd.progs[i].name, "mb_sys_enter") ||
		    !strcmp(rd.progs[i].name, "mb_sys_exit")) {
			*runs += rd.progs[i].runs;
			*ns += rd.progs[i].run_ns;
		}
}

/* Loaded mb_sys_enter programs: another muxbpf keeps the statistics (a global switch) on. */
static int ledgers_loaded(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "mb_sys_enter"))
			n++;
		close(fd);
	}
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	long writes = argc > 2 ? atol(argv[2]) : 200000;
	struct profiler_opts o = { .freq = 997, .unwind = MUXBPF_UNWIND_FP };
	double bare[64], on[64], off[64];
	uint64_t r0, n0, r1, n1, runs = 0, ns = 0;
	int fd = open("/dev/null", O_WRONLY);
	struct profiler *p;
	pid_t child;

	if (rounds > 64)
		rounds = 64;
	child = fork();
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	o.pid = child;
	o.running = true;
	for (int r = 0; r < rounds; r++)
		bare[r] = per_write(fd, writes);
	p = profiler__new(&o);
	if (!p) {
		fprintf(stderr, "stats_cost: cannot attach (root?)\n");
		kill(child, SIGKILL);
		return 0;
	}
	for (int r = 0; r < rounds; r++) {
		unwinder__enable_stats(profiler__unwinder(p));
		enter_exit(p, &r0, &n0);
		on[r] = per_write(fd, writes);
		enter_exit(p, &r1, &n1);
		runs += r1 - r0;
		ns += n1 - n0;
		unwinder__disable_stats(profiler__unwinder(p));
		off[r] = per_write(fd, writes);
	}
	if (ledgers_loaded() > 1)
		printf("note: %d other muxbpf ledgers are loaded: their statistics keep run-time "
		       "statistics on for all, and their tracepoints add to every call below\n",
		       ledgers_loaded() - 1);
	profiler__free(p);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	qsort(bare, rounds, sizeof(double), cmp);
	qsort(on, rounds, sizeof(double), cmp);
	qsort(off, rounds, sizeof(double), cmp);
	printf("write() to /dev/null by a bystander, ns per call, median of %d rounds of %ld:\n",
	       rounds, writes);
	printf("  no profiler                      %7.1f\n", bare[rounds / 2]);
	printf("  sampler + ledger, stats off      %7.1f  (+%.1f: sys_enter + sys_exit filter)\n",
	       off[rounds / 2], off[rounds / 2] - bare[rounds / 2]);
	printf("  sampler + ledger, stats on       %7.1f  (+%.1f)\n", on[rounds / 2],
	       on[rounds / 2] - bare[rounds / 2]);
	printf("  statistics: +%.1f ns per call = %.1f ns per program run (2 runs per call)\n",
	       on[rounds / 2] - off[rounds / 2], (on[rounds / 2] - off[rounds / 2]) / 2);
	printf("  what the statistics report: %.1f ns per filtered run (%llu runs)\n",
	       runs ? (double)ns / runs : 0, (unsigned long long)runs);
	return 0;
}
