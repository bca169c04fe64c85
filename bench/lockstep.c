// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Lock step: the share of hot_a in tests/targets/synth's periodic phase ('a': 70% hot_a, 30%
 * hot_b, in fixed blocks of ~0.5 ms in a fixed order) over RUNS runs, with the kernel's fixed
 * period and with muxbpf's re-drawn random period (src/jitter.c), interleaved.  Prints each
 * run's samples, hot_a share, the target's own count of its split (hot_a's share of the code
 * it ran, ~70), their distance and samples per second of the target's CPU, then the spread of
 * the distances, the largest, and the binomial error for comparison.
 *
 *   build/bench/lockstep [RUNS] [CPU_MS] [FREQ] [CMD]   (root; default 10 1000 997 a)
 * CMD j: the target's jittered blocks instead, where neither sampler can lock step.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "loader/profiler.h"
#include "loader/collect.h"
#include "proc/maps.h"
#include "proc/procstat.h"
#include "model/profile.h"
#include "symbols/symbolize.h"

struct child {
	pid_t pid;
	int go, cmd, ack;
};

static int spawn(const char *path, const char *arg, struct child *c)
{
	int go[2], cmd[2], ack[2];
	char b;

	if (pipe2(go, O_CLOEXEC) || pipe2(cmd, O_CLOEXEC) || pipe2(ack, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(cmd[0], 0);
		dup2(ack[1], 1);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(cmd[0]);
	close(ack[1]);
	c->go = go[1];
	c->cmd = cmd[1];
	c->ack = ack[0];
	return 0;
}

/* Send cmd; *truth: hot_a's share of the code the target ran, from its answer "k B% ..." */
static int command(struct child *c, char cmd, double *truth)
{
	char b = 0, line[64];
	size_t n = 0;
	double hot_b;

	if (write(c->cmd, &cmd, 1) != 1)
		return -1;
	while (read(c->ack, &b, 1) == 1 && b != '\n')
		if (n + 1 < sizeof(line))
			line[n++] = b;
	line[n] = 0;
	*truth = sscanf(line, "k %lf", &hot_b) == 1 ? 100 - hot_b : 70;
	return b == '\n' ? 0 : -1;
}

/* One run: samples of phase 1, hot_a's share of them, samples per CPU second. */
static char cmd = 'a';

static int run(const char *path, const char *ms, int freq, bool fixed, double *share,
	       double *truth, uint64_t *n, double *rate)
{
	struct profiler_opts o = { .freq = freq, .enable_on_exec = true, .fixed_period = fixed,
				 .no_ledger = true };
	struct mb_profile prof = {};
	struct mb_maps maps = {};
	struct proc_times t0, t1;
	struct symbolizer *sym;
	struct profiler *p;
	struct child c = { 0 };
	uint64_t a = 0, total = 0;
	int status;

	if (spawn(path, ms, &c))
		return -1;
	o.pid = c.pid;
	p = profiler__new(&o);
	if (!p)
		return -1;
	if (write(c.go, "g", 1) != 1)
		return -1;
	procstat_wait_sleeping(c.pid, 1000);
	procstat_read(c.pid, &t0);
	profiler__set_phase(p, 1);
	if (command(&c, cmd, truth))
		return -1;
	profiler__set_phase(p, 0);
	procstat_wait_sleeping(c.pid, 1000);
	procstat_read(c.pid, &t1);
	if (maps__read(c.pid, &maps) || collect_profile(p, &prof))
		return -1;
	if (write(c.cmd, "q", 1) != 1)
		return -1;
	waitpid(c.pid, &status, 0);
	profiler__free(p);
	sym = symbolizer__new();
	for (size_t i = 0; i < prof.n; i++) {
		const struct mb_sample *s = &prof.samples[i];
		struct mb_sym out;

		if (s->phase != 1 || !s->nr)
			continue;
		total += s->count;
		if (!symbolizer__lookup(sym, &maps, s->ips[0], &out) && out.name &&
		    !strcmp(out.name, "hot_a"))
			a += s->count;
	}
	symbolizer__free(sym);
	maps__free(&maps);
	profile__free(&prof);
	*n = total;
	*share = total ? 100.0 * a / total : 0;
	*rate = total / ((t1.schedstat_ns - t0.schedstat_ns) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 10;
	const char *ms = argc > 2 ? argv[2] : "1000";
	int freq = argc > 3 ? atoi(argv[3]) : 997;

	if (argc > 4)
		cmd = argv[4][0];
	double sum[2] = {}, lo[2] = { 100, 100 }, hi[2] = { -100, -100 }, far[2] = {}, rsum[2] = {};
	uint64_t nsum[2] = {};
	char path[4096], exe[4000];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0)
		return 1;
	exe[len] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/../tests/targets/synth", exe);
	printf("synth '%c', %s ms of CPU per run, %d Hz; truth: hot_a's share of the code the "
	       "target ran (its own count)\n", cmd, ms, freq);
	printf("run  sampler   samples  hot_a%%   truth  distance  samples/CPU-s\n");
	for (int r = 0; r < runs; r++) {
		for (int k = 0; k < 2; k++) {
			double share, truth, rate, d;
			uint64_t n;

			if (run(path, ms, freq, k == 0, &share, &truth, &n, &rate)) {
				fprintf(stderr, "run failed: %s\n", strerror(errno));
				return 1;
			}
			d = share - truth;
			printf("%3d  %-8s  %7llu  %6.2f  %6.2f  %+8.2f  %8.1f\n", r + 1,
			       k ? "random" : "fixed", (unsigned long long)n, share, truth, d, rate);
			fflush(stdout);
			sum[k] += d;
			nsum[k] += n;
			rsum[k] += rate;
			lo[k] = d < lo[k] ? d : lo[k];
			hi[k] = d > hi[k] ? d : hi[k];
			far[k] = fabs(d) > far[k] ? fabs(d) : far[k];
		}
	}
	for (int k = 0; k < 2; k++) {
		double n = (double)nsum[k] / runs;

		printf("%-6s: hot_a minus truth %+.2f to %+.2f points (mean %+.2f), farthest: %.2f "
		       "points; binomial 95%% half-width at %.0f samples: %.2f points; %.1f "
		       "samples/CPU-s\n", k ? "random" : "fixed", lo[k], hi[k], sum[k] / runs,
		       far[k], n, 196 * sqrt(0.21 / n), rsum[k] / runs);
	}
	return 0;
}
