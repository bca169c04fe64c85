// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What walking user stacks costs a CPU-bound target: the wall time of a fixed amount of work
 * (tests/targets/chain/, gcc -O2 -fomit-frame-pointer, stacks 9 frames deep through a shared
 * library) with no profiler, with the sampler at HZ walking frame pointers (--unwind fp: on
 * this binary the walk stops after a frame or two, so this is the sampler's floor) and walking
 * CFI (--unwind dwarf: complete stacks).  The three run in turn within each round, in a rotating
 * order, so that host noise hits them alike.  Sampler only (no syscall ledger).
 *
 *   build/bench/unwind_cost [ROUNDS] [BLOCKS (default 5000, ~1 s)] [HZ]
 *
 * Prints per configuration the min / median / max seconds over the rounds, the ratio of the
 * medians to no profiler, and the sampler's ns per sample (bpf_enable_stats).  Needs root (or
 * CAP_BPF + CAP_PERFMON).  It measures; it passes or fails on nothing.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader/profiler.h"
#include "muxbpf.h"
#include "muxbpf.skel.h"

enum { NONE, FP, DWARF, NCONF };
static const char *const conf_name[NCONF] = { "no profiler", "--unwind fp", "--unwind dwarf" };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct target {
	pid_t pid;
	int cmd_fd, ack_fd;
};

/* The chain target, exec'd and waiting for a command. */
static int spawn(struct target *t, const char *path, const char *blocks)
{
	int cmd[2], ack[2];

	if (pipe2(cmd, O_CLOEXEC) || pipe2(ack, O_CLOEXEC))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(cmd[0], 0);
		dup2(ack[1], 1);
		execl(path, path, "1000", blocks, (char *)NULL);
		_exit(127);
	}
	close(cmd[0]);
	close(ack[1]);
	t->cmd_fd = cmd[1];
	t->ack_fd = ack[0];
	return 0;
}

/* Send one command, wait for its "k\n". */
static int command(struct target *t, char c)
{
	char buf[2];

	return write(t->cmd_fd, &c, 1) == 1 && read(t->ack_fd, buf, 2) == 2 && buf[0] == 'k' ? 0
											      : -1;
}

static void stop(struct target *t)
{
	if (write(t->cmd_fd, "q", 1) != 1)
		kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0);
	close(t->cmd_fd);
	close(t->ack_fd);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	const char *blocks = argc > 2 ? argv[2] : "5000";
	int hz = argc > 3 ? atoi(argv[3]) : 997;
	double secs[NCONF][64], run_ns[NCONF] = {}, runs[NCONF] = {};
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	int stats_fd;

	if (rounds < 1 || rounds > 64 || atol(blocks) < 1 || hz < 1) {
		fprintf(stderr, "usage: unwind_cost [ROUNDS 1-64] [BLOCKS] [HZ]\n");
		return 2;
	}
	if (n <= 0)
		return 1;
	path[n] = 0;
	/* build/bench/unwind_cost -> build/tests/targets/chain_gcc */
	strcpy(strrchr(path, '/'), "/../tests/targets/chain_gcc");
	if (access(path, X_OK)) {
		fprintf(stderr, "unwind_cost: %s: not built (make tests-build)\n", path);
		return 1;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < NCONF; i++) {
			int c = (r + i) % NCONF;
			struct profiler_opts o = { .freq = hz, .no_ledger = true, .exe = path,
						 .unwind = c == FP ? MUXBPF_UNWIND_FP
								   : MUXBPF_UNWIND_DWARF };
			struct profiler *p = NULL;
			struct target t;
			double t0;

			if (spawn(&t, path, blocks))
				return 1;
			o.pid = t.pid;
			if (c != NONE && !(p = profiler__new(&o))) {
				stop(&t);
				return 1;
			}
			t0 = now_s();
			if (command(&t, 'n')) {
				fprintf(stderr, "unwind_cost: the target did not answer\n");
				return 1;
			}
			secs[c][r] = now_s() - t0;
			if (p) {
				struct bpf_prog_info info = {};
				__u32 len = sizeof(info);
				int fd = bpf_program__fd(profiler__skel(p)->progs.mb_sample);

				if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
					run_ns[c] += info.run_time_ns;
					runs[c] += info.run_cnt;
				}
			}
			stop(&t);
			profiler__free(p);
		}
	}
	printf("seconds for %s blocks of chain A (chain_gcc, no frame pointers), sampler at %d Hz, "
	       "%d rounds, interleaved\n", blocks, hz, rounds);
	printf("%-16s %8s %8s %8s %9s %14s\n", "profiler", "min", "median", "max", "slowdown",
	       "ns/sample");
	for (int c = 0; c < NCONF; c++) {
		double *v = secs[c], med0;

		qsort(v, rounds, sizeof(*v), cmp_double);
		med0 = secs[NONE][rounds / 2];
		printf("%-16s %8.3f %8.3f %8.3f %8.4fx", conf_name[c], v[0], v[rounds / 2],
		       v[rounds - 1], v[rounds / 2] / med0);
		if (c != NONE && runs[c])
			printf(" %14.0f\n", run_ns[c] / runs[c]);
		else
			printf(" %14s\n", "-");
	}
	printf("dwarf vs fp (medians): %.4fx\n", secs[DWARF][rounds / 2] / secs[FP][rounds / 2]);
	if (stats_fd >= 0)
		close(stats_fd);
	return 0;
}
