// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* cost.c's pure stages: the calibration's split, the estimate, the corrected
 * figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "model/cost.h"

#define NEAR(x, want, tol) assert_true((x) > (want) - (tol) && (x) < (want) + (tol))

/*
 * An early exit costs P; a target run P + c + W outside the window for a
 * program that reads the clock itself (sys_enter), P + W for one that does not
 * (hrtimer).  In the window both cost P + W + 3c (the reads the window adds)
 * and time W + c.
 */
static void window(struct mb_calib_reading *b, int prog, uint64_t R, uint64_t E, double P, double W,
		   double c)
{
	double calib_run = P + W + 3 * c;

	b->runs[prog] = R + E;
	b->run_ns[prog] = (uint64_t)(E * P + R * calib_run);
	b->counts.runs[prog] = R;
	b->counts.exits[prog] = E;
	b->counts.timed[prog] = R;
	b->counts.timed_ns[prog] = (uint64_t)(R * (W + c));
	b->counts.clock_ns[prog] = (uint64_t)(R * c);
}

static void test_calib_split(void **state)
{
	struct mb_calib_reading a = {.valid = true, .t_ns = 1000}, b = a;
	struct mb_calib cal;

	(void)state;
	b.t_ns = 1000 + 500000000;
	/* sys_enter: P 60, its own clock read 20 and W 70 after it: 150 per target
	 * run */
	window(&b, MUXBPF_PROG_SYS_ENTER, 10000, 30000, 60, 70, 20);
	/* hrtimer: no filter (no exits), no clock read of its own: P 15 + W 25 */
	window(&b, MUXBPF_PROG_HRTIMER_ENTRY, 5000, 0, 15, 25, 20);
	b.sample_runs = 100;
	b.sample_ns = 250000;
	calib_from(&a, &b, &cal);
	assert_true(cal.valid);
	NEAR(cal.seconds, 0.5, 1e-9);
	NEAR(cal.exit_ns[MUXBPF_PROG_SYS_ENTER], 60, 0.5);
	NEAR(cal.run_ns[MUXBPF_PROG_SYS_ENTER], 60 + 20 + 70, 0.5);
	NEAR(cal.run_ns[MUXBPF_PROG_HRTIMER_ENTRY], 40, 0.5);
	NEAR(cal.sample_ns, 2500, 1e-6);
	assert_int_equal(cal.target_runs, 15000);
	assert_int_equal(cal.target_syscalls, 10000); /* the timed sys_enter runs */
	assert_int_equal(cal.exits, 30000);
	/* a program with no runs in the window stays at 0 */
	assert_true(cal.run_ns[MUXBPF_PROG_SOFTIRQ_EXIT] == 0);
}

static void test_calib_noise_and_none(void **state)
{
	struct mb_calib_reading a = {.valid = true, .t_ns = 1}, b = a;
	struct mb_calib cal;

	(void)state;
	b.t_ns = 2;
	/* the bodies timed slower than the statistics saw in all: no negative exit
	 * cost */
	b.runs[MUXBPF_PROG_SYS_EXIT] = 1100;
	b.run_ns[MUXBPF_PROG_SYS_EXIT] = 1000 * 50;
	b.counts.runs[MUXBPF_PROG_SYS_EXIT] = 1000;
	b.counts.exits[MUXBPF_PROG_SYS_EXIT] = 100;
	b.counts.timed[MUXBPF_PROG_SYS_EXIT] = 1000;
	b.counts.timed_ns[MUXBPF_PROG_SYS_EXIT] = 1000 * 80;
	b.counts.clock_ns[MUXBPF_PROG_SYS_EXIT] = 1000 * 10;
	calib_from(&a, &b, &cal);
	assert_true(cal.valid);
	assert_true(cal.exit_ns[MUXBPF_PROG_SYS_EXIT] == 0);
	NEAR(cal.run_ns[MUXBPF_PROG_SYS_EXIT], 80, 1e-9);
	/* statistics that never moved (refused by the kernel): no calibration */
	memset(&b.run_ns, 0, sizeof(b.run_ns));
	calib_from(&a, &b, &cal);
	assert_false(cal.valid);
	/* a reading that failed */
	b = a;
	b.valid = false;
	calib_from(&a, &b, &cal);
	assert_false(cal.valid);
}

static struct mb_calib test_calib(void)
{
	struct mb_calib cal = {.valid = true, .sample_ns = 3000, .floor_ns = 200};

	cal.run_ns[MUXBPF_PROG_SYS_ENTER] = 150;
	cal.exit_ns[MUXBPF_PROG_SYS_ENTER] = 60;
	cal.run_ns[MUXBPF_PROG_SYS_EXIT] = 120;
	cal.exit_ns[MUXBPF_PROG_SYS_EXIT] = 50;
	cal.run_ns[MUXBPF_PROG_SCHED_SWITCH] = 200;
	cal.exit_ns[MUXBPF_PROG_SCHED_SWITCH] = 70;
	return cal;
}

static void test_estimate(void **state)
{
	struct mb_calib cal = test_calib();
	struct mb_run_delta d = {.valid = true, .samples = 10};
	struct mb_cost_est e;

	(void)state;
	d.c.runs[MUXBPF_PROG_SYS_ENTER] = d.c.in_ctx[MUXBPF_PROG_SYS_ENTER] = 1000;
	d.c.runs[MUXBPF_PROG_SYS_EXIT] = d.c.in_ctx[MUXBPF_PROG_SYS_EXIT] = 1000;
	d.c.exits[MUXBPF_PROG_SYS_ENTER] = d.c.exits[MUXBPF_PROG_SYS_EXIT] = 5000;
	d.c.runs[MUXBPF_PROG_SCHED_SWITCH] = 100;
	d.c.in_ctx[MUXBPF_PROG_SCHED_SWITCH] = 40; /* the rest: switches to netmux from others */
	d.c.exits[MUXBPF_PROG_SCHED_SWITCH] = 2000;
	cost_estimate(&cal, &d, true, &e);
	assert_true(e.valid);
	NEAR(e.ledger_ns, 1000 * 150 + 1000 * 120 + 100 * 200 + 5000 * 60 + 5000 * 50 + 2000 * 70,
	     1e-6);
	NEAR(e.sampler_ns, 30000, 1e-6);
	NEAR(e.bpf_ns, e.ledger_ns + 30000, 1e-6);
	NEAR(e.bystander_ns, 5000 * 60 + 5000 * 50 + 2000 * 70, 1e-6);
	NEAR(e.in_ctx_ns, 1000 * 150 + 1000 * 120 + 40 * 200 + 30000, 1e-6);
	NEAR(e.call_ns, 150 - 60 + 50, 1e-9);
	assert_int_equal(e.calls, 1000);
	assert_int_equal(e.exits, 12000);
	/* 100 of the enters inside the calibration window: two clock reads more each, 20 ns */
	d.c.timed[MUXBPF_PROG_SYS_ENTER] = 100;
	d.c.clock_ns[MUXBPF_PROG_SYS_ENTER] = 100 * 20;
	cost_estimate(&cal, &d, true, &e);
	NEAR(e.ledger_ns,
	     1000 * 150 + 1000 * 120 + 100 * 200 + 5000 * 60 + 5000 * 50 + 2000 * 70 + 100 * 40,
	     1e-6);
	NEAR(e.in_ctx_ns, 1000 * 150 + 1000 * 120 + 40 * 200 + 30000 + 100 * 40, 1e-6);
	d.c.timed[MUXBPF_PROG_SYS_ENTER] = d.c.clock_ns[MUXBPF_PROG_SYS_ENTER] = 0;
	/* statistics off: a run costs less than they read, by an early exit's reading */
	cost_estimate(&cal, &d, false, &e);
	NEAR(e.in_ctx_ns, 1000 * 90 + 1000 * 70 + 40 * 130 + 30000, 1e-6);
	NEAR(e.call_ns, 90, 1e-9);
	/* no calibration: the counts, no figure */
	cal.valid = false;
	cost_estimate(&cal, &d, false, &e);
	assert_false(e.valid);
	assert_int_equal(e.target_runs, 2040); /* in netmux's context: not the 60 other switches */
	assert_true(e.bpf_ns == 0);
}

static void test_correct(void **state)
{
	struct mb_cost c = {.valid = true, .calib = test_calib()};
	struct mb_corrected k;

	(void)state;
	c.est.valid = true;
	c.est.in_ctx_ns = 400000;
	c.est.call_ns = 100;
	/* 10 ms on-CPU, 4 ms in 2000 syscalls */
	cost_correct(10000000, 4000000, 2000, &c, &k);
	assert_true(k.valid);
	NEAR(k.programs_ns, 400000, 1e-6);
	NEAR(k.path_ns, 2000 * 200, 1e-6);
	NEAR(k.oncpu_ns, 10000000 - 400000 - 400000, 1e-6);
	NEAR(k.sys_ns, 4000000 - 200000, 1e-6);
	NEAR(k.usr_ns, k.oncpu_ns - k.sys_ns, 1e-6);
	NEAR(cost_correct_call(&k, 50000, 100), 40000, 1e-6);
	/* never below 0: a row cheaper than the removed part */
	NEAR(cost_correct_call(&k, 5000, 100), 0, 1e-9);
	/* floor not measured: nothing removed for the path */
	c.calib.floor_ns = -1;
	cost_correct(10000000, 4000000, 2000, &c, &k);
	NEAR(k.path_ns, 0, 1e-9);
	assert_true(k.floor_ns < 0);
	/* the in-call part cannot exceed what ran in the target's context */
	c.est.in_ctx_ns = 1000;
	cost_correct(10000000, 4000000, 2000, &c, &k);
	NEAR(k.sys_ns, 4000000 - 1000, 1e-6);
	/* more removed than measured: 0, and syscalls never above on-CPU */
	c.est.in_ctx_ns = 2e7;
	cost_correct(10000000, 4000000, 2000, &c, &k);
	NEAR(k.oncpu_ns, 0, 1e-9);
	assert_true(k.sys_ns <= k.oncpu_ns);
	/* no estimate: no correction, rows unchanged */
	c.est.valid = false;
	cost_correct(10000000, 4000000, 2000, &c, &k);
	assert_false(k.valid);
	NEAR(cost_correct_call(&k, 5000, 100), 5000, 1e-9);
}

static void test_delta_counts(void **state)
{
	static struct mb_cost_reading from, to;
	struct mb_cost out;

	(void)state;
	from.valid = to.valid = true;
	from.counted = to.counted = true;
	from.calib = test_calib();
	to.calib = test_calib();
	/* the window of phase 3 began where phase 3 had run before (a second round)
	 */
	from.phase_new = 3;
	from.new_counts.runs[MUXBPF_PROG_SYS_EXIT] = 500;
	from.new_samples = 7;
	to.phase_old = 3;
	to.old_counts.runs[MUXBPF_PROG_SYS_EXIT] = 800;
	to.old_samples = 10;
	cost_delta(&from, &to, NULL, &out);
	assert_true(out.counts.valid);
	assert_int_equal(out.counts.c.runs[MUXBPF_PROG_SYS_EXIT], 300);
	assert_int_equal(out.counts.samples, 3);
	assert_true(out.est.valid);
	/* statistics held at one end only: not the window's figure */
	from.stats_on = true;
	to.progs[0] = (struct mb_prog_cost){.name = "mb_sys_exit", .runs = 10, .run_ns = 1000};
	to.nprogs = 1;
	cost_delta(&from, &to, NULL, &out);
	assert_false(out.stats);
	/* then the runs are the programs' own counts, the statistics' time none of the window's */
	assert_int_equal(out.sampler_runs, 3);
	assert_int_equal(out.ledger_runs, 300);
	assert_int_equal(out.ledger_ns, 0);
	to.stats_on = true;
	cost_delta(&from, &to, NULL, &out);
	assert_true(out.stats);
	assert_int_equal(out.ledger_ns, 1000);
	/* a different phase at the start: the whole row is the window's */
	from.phase_new = 2;
	cost_delta(&from, &to, NULL, &out);
	assert_int_equal(out.counts.c.runs[MUXBPF_PROG_SYS_EXIT], 800);
	/* not counted at the end: no counts, no estimate */
	to.counted = false;
	cost_delta(&from, &to, NULL, &out);
	assert_false(out.counts.valid);
	assert_false(out.est.valid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calib_split),  cmocka_unit_test(test_calib_noise_and_none),
		cmocka_unit_test(test_estimate),     cmocka_unit_test(test_correct),
		cmocka_unit_test(test_delta_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
