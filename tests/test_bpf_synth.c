// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sampler and runtime accounting against a target whose time split is known
 * (tests/targets/synth.c): phase 1 spends 70% of its user CPU in hot_a and 30% in hot_b,
 * phase 2 only in hot_c.  The test switches phases while the target sleeps between commands,
 * exactly as the loader does around netmux's phases, and compares with the kernel's counters.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "attach.h"
#include "collect.h"
#include "maps.h"
#include "procstat.h"
#include "profile.h"
#include "symbolize.h"
#include "testutil.h"

#define PHASE_ONE 1
#define PHASE_TWO 2

struct target {
	pid_t pid;
	int go_fd;  /* write a byte: exec the target */
	int cmd_fd; /* target's stdin */
	int ack_fd; /* target's stdout */
};

static void target_path(char *buf, size_t size)
{
	char exe[PATH_MAX - 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(buf, size, "%s/targets/synth", exe);
}

/* Fork the target paused: the child waits for a byte on a pipe before it execs. */
static void target_spawn(struct target *t, const char *cpu_ms)
{
	int go[2], cmd[2], ack[2];
	char path[PATH_MAX];
	char c;

	target_path(path, sizeof(path));
	assert_int_equal(access(path, X_OK), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	assert_int_equal(pipe2(cmd, O_CLOEXEC), 0);
	assert_int_equal(pipe2(ack, O_CLOEXEC), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(cmd[0], 0);
		dup2(ack[1], 1);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execl(path, path, cpu_ms, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(cmd[0]);
	close(ack[1]);
	t->go_fd = go[1];
	t->cmd_fd = cmd[1];
	t->ack_fd = ack[0];
}

static void target_command(struct target *t, char cmd)
{
	char c = 0;

	assert_int_equal(write(t->cmd_fd, &cmd, 1), 1);
	assert_int_equal(read(t->ack_fd, &c, 1), 1);
	assert_int_equal(c, 'k');
}

struct reading {
	struct rt_snapshot rt;
	struct proc_times proc;
};

static void take_reading(struct profiler *p, pid_t pid, struct reading *r)
{
	assert_int_equal(procstat_wait_sleeping(pid, 1000), 0);
	assert_int_equal(collect_runtime(p, &r->rt), 0);
	assert_int_equal(procstat_read(pid, &r->proc), 0);
}

/* Run one phase between two readings taken while the target sleeps. */
static void run_phase(struct profiler *p, struct target *t, unsigned int phase, char cmd,
		      struct reading *before, struct reading *after)
{
	take_reading(p, t->pid, before);
	profiler__set_phase(p, phase);
	target_command(t, cmd);
	take_reading(p, t->pid, after);
	profiler__set_phase(p, 0);
}

struct shares {
	uint64_t total, a, b, c, main_seen;
};

/* Self (leaf) counts of hot_a/b/c per phase, through the real symbolizer. */
static void count_shares(const struct mb_profile *prof, const struct mb_maps *maps,
			 unsigned int phase, struct shares *sh)
{
	struct symbolizer *sym = symbolizer__new();
	struct mb_sym out;

	assert_non_null(sym);
	memset(sh, 0, sizeof(*sh));
	for (size_t i = 0; i < prof->n; i++) {
		const struct mb_sample *s = &prof->samples[i];

		if (s->phase != phase || s->nr == 0)
			continue;
		sh->total += s->count;
		assert_int_equal(symbolizer__lookup(sym, maps, s->ips[0], &out), 0);
		if (!out.name)
			continue;
		if (!strcmp(out.name, "hot_a"))
			sh->a += s->count;
		else if (!strcmp(out.name, "hot_b"))
			sh->b += s->count;
		else if (!strcmp(out.name, "hot_c"))
			sh->c += s->count;
		for (uint32_t f = 1; f < s->nr; f++)
			if (symbolizer__lookup(sym, maps, s->ips[f], &out) == 0 && out.name &&
			    !strcmp(out.name, "main"))
				sh->main_seen += s->count;
	}
	symbolizer__free(sym);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * part / total : 0;
}

/* BPF runtime delta against /proc schedstat delta, both read while the target sleeps. */
static void check_oncpu(const char *what, pid_t pid, const struct reading *a,
			const struct reading *b)
{
	uint64_t bpf = rt_delta(&a->rt, &b->rt, pid);
	uint64_t proc = b->proc.schedstat_ns - a->proc.schedstat_ns;
	double diff = proc ? 100.0 * ((double)bpf - (double)proc) / (double)proc : 100;

	print_message("%s: on-CPU bpf %.3f ms, schedstat %.3f ms (%+.3f%%)\n", what, bpf / 1e6,
		      proc / 1e6, diff);
	if (diff > 2 || diff < -2)
		fail_msg("%s: on-CPU from BPF %.3f ms differs from schedstat %.3f ms by %.2f%%",
			 what, bpf / 1e6, proc / 1e6, diff);
}

static void test_phases_split_and_oncpu(void **state)
{
	struct reading r[4] = {};
	struct mb_profile prof = {};
	struct shares one, two;
	struct mb_maps maps = {};
	struct attach_opts opts = { .freq = 997, .enable_on_exec = true };
	struct profiler *p;
	struct target t;
	int status;

	(void)state;
	skip_unless_bpf();
	target_spawn(&t, "1000");
	opts.pid = t.pid;
	p = profiler__new(&opts);
	assert_non_null(p);
	assert_int_equal(write(t.go_fd, "g", 1), 1);

	run_phase(p, &t, PHASE_ONE, 'a', &r[0], &r[1]);
	run_phase(p, &t, PHASE_TWO, 'c', &r[2], &r[3]);
	assert_int_equal(maps__read(t.pid, &maps), 0);
	assert_int_equal(collect_profile(p, &prof), 0);
	assert_int_equal(write(t.cmd_fd, "q", 1), 1);
	assert_int_equal(waitpid(t.pid, &status, 0), t.pid);
	profiler__free(p);

	check_oncpu("phase 1", t.pid, &r[0], &r[1]);
	check_oncpu("phase 2", t.pid, &r[2], &r[3]);

	count_shares(&prof, &maps, PHASE_ONE, &one);
	count_shares(&prof, &maps, PHASE_TWO, &two);
	print_message("phase 1: %lu samples, hot_a %.1f%%, hot_b %.1f%%, hot_c %.1f%%\n",
		      one.total, pct(one.a, one.total), pct(one.b, one.total),
		      pct(one.c, one.total));
	print_message("phase 2: %lu samples, hot_c %.1f%%, hot_a+hot_b %.2f%%\n", two.total,
		      pct(two.c, two.total), pct(two.a + two.b, two.total));
	/* ~1 s of CPU at 997 Hz: about 1000 samples; the ±5 point bound is ~3 sigma. */
	assert_true(one.total > 500);
	assert_true(two.total > 250);
	if (pct(one.a, one.total) < 65 || pct(one.a, one.total) > 75)
		fail_msg("hot_a has %.1f%% of phase 1, expected 70 +- 5", pct(one.a, one.total));
	if (pct(one.b, one.total) < 25 || pct(one.b, one.total) > 35)
		fail_msg("hot_b has %.1f%% of phase 1, expected 30 +- 5", pct(one.b, one.total));
	if (pct(two.a + two.b, two.total) >= 1)
		fail_msg("phase 1 functions leak into phase 2: %.2f%%", pct(two.a + two.b, two.total));
	if (pct(two.c, two.total) < 95)
		fail_msg("hot_c has only %.1f%% of phase 2", pct(two.c, two.total));
	/* Samples outside both phases: the target was only asleep or exiting there. */
	assert_true(prof.stats[0].recorded < 20);
	for (int i = 0; i < 4; i++)
		rt_snapshot__free(&r[i].rt);
	maps__free(&maps);
	profile__free(&prof);
}

/* Every sample the program ran for is recorded or counted as dropped. */
static void test_accounting_closes(void **state)
{
	struct attach_opts opts = { .freq = 997, .enable_on_exec = true };
	struct mb_profile prof = {};
	struct profiler *p;
	struct target t;
	uint64_t sum = 0;
	int status;

	(void)state;
	skip_unless_bpf();
	target_spawn(&t, "200");
	opts.pid = t.pid;
	p = profiler__new(&opts);
	assert_non_null(p);
	assert_int_equal(write(t.go_fd, "g", 1), 1);
	profiler__set_phase(p, PHASE_ONE);
	target_command(&t, 'a');
	profiler__set_phase(p, 0);
	assert_int_equal(collect_profile(p, &prof), 0);
	assert_int_equal(write(t.cmd_fd, "q", 1), 1);
	assert_int_equal(waitpid(t.pid, &status, 0), t.pid);
	profiler__free(p);
	for (size_t i = 0; i < prof.n; i++)
		if (prof.samples[i].phase == PHASE_ONE)
			sum += prof.samples[i].count;
	assert_true(prof.stats[PHASE_ONE].taken > 100);
	assert_int_equal(prof.stats[PHASE_ONE].taken,
			 prof.stats[PHASE_ONE].recorded +
				 prof.stats[PHASE_ONE].dropped[MUXBPF_DROP_COUNTS_FULL]);
	assert_int_equal(sum, prof.stats[PHASE_ONE].recorded);
	profile__free(&prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases_split_and_oncpu),
		cmocka_unit_test(test_accounting_closes),
	};

	return cmocka_run_group_tests_name("bpf_synth", tests, NULL, NULL);
}
