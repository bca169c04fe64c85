// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sampler and runtime accounting against a target whose time split is known
 * (tests/targets/synth.c): phase 1 spends 70% of its user CPU in hot_a and 30% in hot_b,
 * phase 2 only in hot_c.  Phase 1 runs the target's jittered blocks ('j'): the shares are then
 * binomial whatever the sampler's period, and the bound follows from the sample count; the
 * target reports the shares of the code it ran (70/30 except where a TCG guest's vCPU stalls).  The test switches phases while the target sleeps between commands,
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
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <math.h>
#include <linux/perf_event.h>
#include "loader/profiler.h"
#include "loader/collect.h"
#include "proc/maps.h"
#include "proc/procstat.h"
#include "model/profile.h"
#include "symbols/symbolize.h"
#include "testutil.h"
#include "bpftarget.h"

#define PHASE_ONE 1
#define PHASE_TWO 2

struct shares {
	uint64_t total, a, b, c, main_seen;
};

/* Self (leaf) counts of hot_a/b/c per phase, through the real symbolizer. */
static void count_shares(const struct mb_profile *prof, const struct mb_maps *maps,
			 unsigned int phase, struct shares *sh)
{
	struct symbolizer *sym = symbolizer__new();
	struct mb_sym out;
	int rc;

	assert_non_null(sym);
	memset(sh, 0, sizeof(*sh));
	for (size_t i = 0; i < prof->n; i++) {
		const struct mb_sample *s = &prof->samples[i];

		if (s->phase != phase || s->nr == 0)
			continue;
		sh->total += s->count;
		/* outside the phases (0), the start-up after exec may lie outside the mappings
		 * read at the end */
		rc = symbolizer__lookup(sym, maps, s->ips[0], &out);
		if (phase)
			assert_int_equal(rc, 0);
		if (rc || !out.name)
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

/* Four binomial standard errors, in points, of a share p (%) estimated from n samples. */
static double bound4(double p, uint64_t n)
{
	return n ? 4 * sqrt(p * (100 - p) / n) : 100;
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
	struct shares one, two, none;
	struct mb_maps maps = {};
	struct profiler_opts opts = { .freq = 997, .enable_on_exec = true };
	struct profiler *p;
	struct target t;
	double code = 0, clock = 0, lo, hi, b;
	uint64_t hot;
	char ack[64];

	(void)state;
	skip_unless_bpf();
	target_spawn(&t, "synth", "2000");
	opts.pid = t.pid;
	assert_int_equal(test_syscall_hook(&opts), 0);
	p = profiler__new(&opts);
	assert_non_null(p);
	target_release(&t);

	run_phase(p, &t, PHASE_ONE, 'j', &r[0], &r[1], ack, sizeof(ack));
	assert_int_equal(sscanf(ack, "k %lf %lf", &code, &clock), 2);
	run_phase(p, &t, PHASE_TWO, 'c', &r[2], &r[3], ack, sizeof(ack));
	assert_int_equal(maps__read(t.pid, &maps), 0);
	assert_int_equal(collect_profile(p, &prof), 0);
	target_quit(&t);
	profiler__free(p);

	check_oncpu("phase 1", t.pid, &r[0], &r[1]);
	check_oncpu("phase 2", t.pid, &r[2], &r[3]);

	count_shares(&prof, &maps, PHASE_ONE, &one);
	count_shares(&prof, &maps, PHASE_TWO, &two);
	print_message("phase 1: %lu samples, hot_a %.1f%%, hot_b %.1f%%, hot_c %.1f%%; the "
		      "target's: hot_b %.1f%% of its code, %.1f%% of its CPU clock\n", one.total,
		      pct(one.a, one.total), pct(one.b, one.total), pct(one.c, one.total), code,
		      clock);
	print_message("phase 2: %lu samples, hot_c %.1f%%, hot_a+hot_b %.2f%%\n", two.total,
		      pct(two.c, two.total), pct(two.a + two.b, two.total));
	/*
	 * ~2 s of CPU at 997 Hz: about 2000 samples, ±4.2 points at four standard errors.  The
	 * jittered blocks make the samples independent of which function runs, so the binomial
	 * error is the whole error.
	 */
	/*
	 * The share checks scale with the sample count (bound4); the floors only keep them
	 * meaningful (four standard errors under 13 points) on a slow machine, such as a TCG
	 * guest, whose timer delivers fewer samples per CPU second than the host's.
	 */
	assert_true(one.total >= 200);
	assert_true(two.total >= 100);
	/*
	 * Among the samples in hot_a and hot_b (the clock reads between the blocks take a few %
	 * of the samples in a guest), hot_b's share lies between its share of the code the
	 * target ran and of its CPU clock: 30% both, except where a guest's vCPU stalls
	 * (tests/targets/synth.c).
	 */
	hot = one.a + one.b;
	b = pct(one.b, hot);
	lo = (code < clock ? code : clock) - bound4(code < clock ? code : clock, hot);
	hi = (code > clock ? code : clock) + bound4(code > clock ? code : clock, hot);
	if (b < lo || b > hi)
		fail_msg("hot_b has %.1f%% of phase 1's %lu samples in hot_a and hot_b, expected "
			 "%.1f-%.1f", b, hot, lo, hi);
	if (pct(two.a + two.b, two.total) >= 1)
		fail_msg("phase 1 functions leak into phase 2: %.2f%%", pct(two.a + two.b, two.total));
	if (pct(two.c, two.total) < 95)
		fail_msg("hot_c has only %.1f%% of phase 2", pct(two.c, two.total));
	/*
	 * Samples outside both phases: the target only started (tens of ms in a TCG guest),
	 * slept or exited there, so none may be in the phases' code.
	 */
	count_shares(&prof, &maps, 0, &none);
	print_message("outside the phases: %lu samples, %lu in hot_a, hot_b or hot_c\n",
		      none.total, none.a + none.b + none.c);
	assert_int_equal(none.a + none.b + none.c, 0);
	for (int i = 0; i < 4; i++)
		reading_free(&r[i]);
	maps__free(&maps);
	profile__free(&prof);
}

/* Every sample the program ran for is recorded or counted as dropped. */
static void test_accounting_closes(void **state)
{
	struct profiler_opts opts = { .freq = 997, .enable_on_exec = true };
	struct mb_profile prof = {};
	struct profiler *p;
	struct target t;
	uint64_t sum = 0;
	char ack[8];

	(void)state;
	skip_unless_bpf();
	target_spawn(&t, "synth", "200");
	opts.pid = t.pid;
	assert_int_equal(test_syscall_hook(&opts), 0);
	p = profiler__new(&opts);
	assert_non_null(p);
	target_release(&t);
	profiler__set_phase(p, PHASE_ONE);
	target_command(&t, 'a', ack, sizeof(ack));
	profiler__set_phase(p, 0);
	assert_int_equal(collect_profile(p, &prof), 0);
	target_quit(&t);
	profiler__free(p);
	for (size_t i = 0; i < prof.n; i++)
		if (prof.samples[i].phase == PHASE_ONE)
			sum += prof.samples[i].count;
	assert_true(prof.stats[PHASE_ONE].taken > 0);
	assert_int_equal(prof.stats[PHASE_ONE].taken,
			 prof.stats[PHASE_ONE].recorded +
				 prof.stats[PHASE_ONE].dropped[MUXBPF_DROP_COUNTS_FULL]);
	assert_int_equal(sum, prof.stats[PHASE_ONE].recorded);
	profile__free(&prof);
}

/* The samples of one process in a phase. */
static uint64_t phase_samples(const struct mb_profile *prof, unsigned int phase, pid_t pid)
{
	uint64_t n = 0;

	for (size_t i = 0; i < prof->n; i++)
		if (prof->samples[i].phase == phase && prof->samples[i].pid == (uint32_t)pid)
			n += prof->samples[i].count;
	return n;
}

/*
 * Run synth's command cmd twice under a fixed period of 997 Hz, the second time after setting
 * the sampler event's period to a quarter (PERF_EVENT_IOC_PERIOD on our fd, as src/jitter.c
 * does).  Each phase's rate (samples per s of the blocks' thread CPU time, the target's own
 * clock) must be its period's (997 and 3988 Hz) within RATE_TOLERANCE: a ratio alone would
 * pass if the period reached neither target.  Returns the second rate over the first.
 */
#define SYNTH_HZ 997
/*
 * A rate's allowance: the samples of the command's handling outside the blocks (its clock
 * leaves them out) and timers delivered late on a busy machine.  On the 2-vCPU VM under load:
 * 976 and 3898 Hz without the child, 996 and 3981 Hz with it (2026-12-04, one run); a period
 * that reached neither target would give ~997 Hz after the change, 75% under its expectation.
 */
#define RATE_TOLERANCE 0.15

static void check_rate(char cmd, const char *what, uint64_t n, double ms, double hz)
{
	double rate = n / (ms / 1e3), se = sqrt((double)n) / (ms / 1e3);

	if (fabs(rate - hz) > RATE_TOLERANCE * hz + 4 * se)
		fail_msg("'%c' %s: %lu samples in %.1f ms of its blocks' CPU, %.0f Hz where the "
			 "period gives %.0f (allowed: %.0f%% and 4 standard errors, %.0f Hz)", cmd,
			 what, n, ms, rate, hz, RATE_TOLERANCE * 100, 4 * se);
}

static double period_ratio(char cmd, uint64_t *s1, uint64_t *s2)
{
	struct profiler_opts opts = { .freq = SYNTH_HZ, .enable_on_exec = true,
				      .fixed_period = true };
	uint64_t period = 1000000000ull / SYNTH_HZ / 4;
	struct mb_profile prof = {};
	double ms1 = 0, ms2 = 0;
	struct profiler *p;
	struct target t;
	char ack[64];

	target_spawn(&t, "synth", "2000");
	opts.pid = t.pid;
	assert_int_equal(test_syscall_hook(&opts), 0);
	p = profiler__new(&opts);
	assert_non_null(p);
	target_release(&t);
	/* once outside the phases: the first run's page faults (and fork, for 'f') are not timed */
	target_command(&t, cmd, ack, sizeof(ack));
	for (unsigned int ph = PHASE_ONE; ph <= PHASE_TWO; ph++) {
		if (ph == PHASE_TWO)
			assert_int_equal(ioctl(profiler__sampler_fd(p), PERF_EVENT_IOC_PERIOD,
					       &period), 0);
		profiler__set_phase(p, ph);
		target_command(&t, cmd, ack, sizeof(ack));
		profiler__set_phase(p, 0);
		assert_int_equal(sscanf(ack, "k %lf", ph == PHASE_ONE ? &ms1 : &ms2), 1);
	}
	assert_int_equal(collect_profile(p, &prof), 0);
	target_quit(&t);
	profiler__free(p);
	*s1 = phase_samples(&prof, PHASE_ONE, t.pid);
	*s2 = phase_samples(&prof, PHASE_TWO, t.pid);
	profile__free(&prof);
	print_message("'%c': %lu samples in %.1f ms of its blocks (%.0f Hz), then %lu in %.1f ms "
		      "at a quarter of the period (%.0f Hz): %.2f times the rate\n", cmd, *s1, ms1,
		      ms1 > 0 ? *s1 / (ms1 / 1e3) : 0, *s2, ms2, ms2 > 0 ? *s2 / (ms2 / 1e3) : 0,
		      *s1 && ms2 > 0 ? (*s2 / ms2) / (*s1 / ms1) : 0);
	assert_true(*s1 >= 100 && ms1 > 0 && ms2 > 0);
	check_rate(cmd, "at the first period", *s1, ms1, SYNTH_HZ);
	check_rate(cmd, "at a quarter of it", *s2, ms2, 4.0 * SYNTH_HZ);
	return (*s2 / ms2) / (*s1 / ms1);
}

/*
 * A period set on our sampler event reaches the target after it forked a child it talks to.
 * Without src/profiler.c's open_noclone() the kernel swaps the two tasks' cloned perf contexts
 * at their context switches, our event then samples the child, and the target keeps an
 * inherited copy at the old period (1.0-2.4 times the rate here, where 4 is set): the random
 * period missed netmux, whose stubslave is such a child.  Each target's rates are checked
 * against their periods (period_ratio), and the ratio with the child against the same change on
 * the same blocks without a child ('g'; the rate the kernel delivers on this machine), within
 * four standard errors of the two ratios' difference.  The blocks' lengths are random: a fixed
 * period locked step with fixed blocks and the round trips (4.36-4.74 against 3.90-3.93).
 * Not in the kernel matrix's TCG guests, where the emulated vCPUs take turns on one host
 * thread: a stalled vCPU's clock runs on while its timer delivers one sample for the stall, more
 * of them at 4 kHz, and the round trips to the child on the other vCPU stall it more than the
 * control's blocks (6.12 guest, with open_noclone(): 2.24 times with the child, 3.39 without).
 * There the test could not tell the emulation from the bug.
 */
static void test_period_reaches_forked_target(void **state)
{
	uint64_t c1, c2, f1, f2;
	double control, forked, se;

	(void)state;
	skip_unless_bpf();
	skip_in_tcg_guest("the vCPU's stalls, not the period, set the rates");
	control = period_ratio('g', &c1, &c2);
	forked = period_ratio('f', &f1, &f2);
	se = sqrt(control * control * (1.0 / c1 + 1.0 / c2) +
		  forked * forked * (1.0 / f1 + 1.0 / f2));
	if (fabs(forked - control) > 4 * se)
		fail_msg("a quarter of the period gave %.2f times the rate on the target with a "
			 "child, %.2f without one (4 standard errors: %.2f)", forked, control,
			 4 * se);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phases_split_and_oncpu),
		cmocka_unit_test(test_accounting_closes),
		cmocka_unit_test(test_period_reaches_forked_target),
	};

	return cmocka_run_group_tests_name("bpf_synth", tests, NULL, NULL);
}
