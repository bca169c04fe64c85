// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ledger.c without root: one window's ledger from hand-made map contents and boundary readings
 * (two threads of the target, one born inside the window, one that exited before it, a thread
 * of another process; a call in flight at each boundary; wakers grouped by name).  Every number
 * is worked out by hand from the inputs below.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "model/ledger.h"

#define MS 1000000ull
#define T0 (1000 * MS)
#define T1 (T0 + 100 * MS)
#define PH 2
#define PID 100

static void test_window(void **state)
{
	struct muxbpf_task_rt rt0[] = {
		{ .pid = PID, .tid = 101, .runtime_ns = 10 * MS, .run_delay_ns = 1 * MS,
		  .nvcsw = 5, .nivcsw = 1, .min_flt = 10 },
		{ .pid = PID, .tid = 103, .runtime_ns = 7 * MS, .exit_ns = T0 - 1 * MS },
		{ .pid = 200, .tid = 201, .runtime_ns = 1 * MS },
	};
	struct muxbpf_task_rt rt1[] = {
		{ .pid = PID, .tid = 101, .runtime_ns = 40 * MS, .run_delay_ns = 3 * MS,
		  .nvcsw = 15, .nivcsw = 3, .min_flt = 12 },
		{ .pid = PID, .tid = 102, .runtime_ns = 5 * MS, .run_delay_ns = MS / 2, .nvcsw = 4,
		  .start_ns = T0 + 50 * MS },
		{ .pid = PID, .tid = 103, .runtime_ns = 7 * MS, .exit_ns = T0 - 1 * MS },
		{ .pid = 200, .tid = 201, .runtime_ns = 90 * MS },
	};
	struct rt_snapshot s0 = { rt0, 3 }, s1 = { rt1, 4 };
	/* 101 sat in select (23) from T0 - 20 ms, off CPU, and returned in the window; 102 is in
	 * poll (7) at T1 since T1 - 10 ms */
	typeof(*((struct mb_inflight *)0)->v) in0[] = {
		{ .k = 101, .v = { .nr = 23, .enter_ns = T0 - 20 * MS, .cpu_ns = 4000, .off = 1 } },
	};
	typeof(*((struct mb_inflight *)0)->v) in1[] = {
		{ .k = 102,
		  .v = { .nr = 7, .enter_ns = T1 - 10 * MS, .cpu_ns = 2000, .off = 1, .stolen_in = 500 } },
		{ .k = 101, .v = { .nr = -1 } }, /* in user mode: not in flight */
	};
	struct mb_inflight f0 = { in0, 1 }, f1 = { in1, 2 };
	struct mb_boundary from = { T0, &s0, &f0 }, to = { T1, &s1, &f1 };
	typeof(*((struct mb_ledger_data *)0)->sys) sys[] = {
		{ { PH, 101, 1, 0 }, { 10, 8 * MS, 30 * MS, 1, 2 * MS } },
		{ { PH, 102, 0, 0 }, { 2, 1 * MS, 2 * MS, 0, 0 } },
		{ { PH, 101, 23, 0 }, { 1, 10000, 25 * MS, 0, 0 } },
		{ { PH + 1, 101, 1, 0 }, { 99, 99 * MS, 99 * MS, 0, 9 * MS } },
	};
	typeof(*((struct mb_ledger_data *)0)->sites) sites[] = {
		{ { PH, 1, 7, PID }, { 1, MS / 2, 1 * MS, (MS / 2 >> 4) * (MS / 2 >> 4), 3000 } },
	};
	typeof(*((struct mb_ledger_data *)0)->wakes) wakes[] = {
		{ { PH, MUXBPF_WAKER_TIMER, 0, 0 }, { 50, "" } },
		{ { PH, MUXBPF_WAKER_TASK, 300, 0 }, { 3, "slave" } },
		{ { PH, MUXBPF_WAKER_TASK, 301, 0 }, { 2, "slave" } },
		{ { PH, MUXBPF_WAKER_SELF, PID, 0 }, { 1, "" } },
		{ { PH + 1, MUXBPF_WAKER_TIMER, 0, 0 }, { 1000, "" } },
	};
	typeof(*((struct mb_ledger_data *)0)->threads) threads[] = {
		{ { PH, 101 }, { .preempt_user_ns = 4 * MS, .switch_path_ns = 1 * MS } },
		{ { PH, 102 }, { .stolen_ns = 3 * MS, .rt_before_in_ns = 2 * MS } },
		{ { PH + 1, 101 }, { .preempt_user_ns = 50 * MS, .stolen_ns = 7 * MS } },
	};
	static struct mb_ledger_data d;
	struct phase_ledger l;

	(void)state;
	d.sys = sys;
	d.nsys = 4;
	d.sites = sites;
	d.nsites = 1;
	d.wakes = wakes;
	d.nwakes = 5;
	d.threads = threads;
	d.nthreads = 3;
	d.lost[PH] = 3;
	d.lost_by[PH][MUXBPF_LMAP_SITES] = 3;
	assert_int_equal(ledger_build(&d, PH, PID, &from, &to, &l), 0);

	assert_int_equal(l.wall_ns, 100 * MS);
	assert_int_equal(l.threads, 2); /* 103 exited before the window, 201 is another process */
	assert_int_equal(l.thread_wall_ns, 150 * MS); /* 101: all of it, 102: from its birth */
	assert_int_equal(l.oncpu_ns, 35 * MS);
	assert_int_equal(l.run_delay_ns, 2 * MS + MS / 2);
	assert_int_equal(l.nvcsw, 14);
	assert_int_equal(l.nivcsw, 2);
	assert_int_equal(l.min_flt, 2);

	/* select loses its 20 ms (and 4 µs of CPU) before T0; poll gains its 10 ms in flight */
	assert_int_equal(l.nsys, 4);
	assert_int_equal(l.sys[0].nr, 1);
	assert_int_equal(l.sys[0].count, 10);
	assert_int_equal(l.sys[0].cpu_ns, 8 * MS);
	assert_int_equal(l.sys[0].inexact, 1);
	assert_int_equal(l.sys[1].nr, 0);
	assert_int_equal(l.sys[2].nr, 23);
	assert_int_equal(l.sys[2].wall_ns, 5 * MS);
	assert_int_equal(l.sys[2].cpu_ns, 6000);
	assert_int_equal(l.sys[3].nr, 7);
	assert_int_equal(l.sys[3].count, 0);
	assert_int_equal(l.sys[3].wall_ns, 10 * MS);
	/* of its 2 µs on a CPU so far, 0.5 were stolen */
	assert_int_equal(l.sys[3].cpu_ns, 1500);
	assert_int_equal(l.sys[3].stolen_ns, 500);
	assert_int_equal(l.sys[0].stolen_ns, 2 * MS);
	assert_int_equal(l.sys_count, 13);
	assert_int_equal(l.sys_inexact, 1);
	assert_int_equal(l.sys_cpu_ns, 9 * MS + 7500);
	assert_int_equal(l.sys_stolen_ns, 2 * MS + 500);
	assert_int_equal(l.sys_wall_ns, 47 * MS);
	/* a call's wall less its CPU and its stolen time */
	assert_int_equal(l.sys_off_ns, 47 * MS - 9 * MS - 7500 - 2 * MS - 500);
	/* the call-site walk's 3 µs are on-CPU, but neither the call's nor user time */
	assert_int_equal(l.user_ns, 35 * MS - 9 * MS - 7500 - 3000);

	assert_int_equal(l.nsites, 1);
	assert_int_equal(l.sites[0].stack_id, 7);
	assert_int_equal(l.site_cpu_ns, MS / 2);
	assert_int_equal(l.site_walk_ns, 3000);
	assert_int_equal(l.sites[0].cpu_sq, (MS / 2 >> 4) * (MS / 2 >> 4));

	/*
	 * the balance: thread wall = on-CPU + off-CPU in syscalls + preempted + switch path +
	 * stolen - runtime before switch-in + L, the threads summed (the other phase's stolen
	 * time is not this one's); no term below zero
	 */
	assert_int_equal(l.preempt_user_ns, 4 * MS);
	assert_int_equal(l.switch_path_ns, 1 * MS);
	assert_int_equal(l.stolen_ns, 3 * MS);
	assert_int_equal(l.rt_before_in_ns, 2 * MS);
	assert_int_equal(l.leftover_ns, (int64_t)(150 * MS - 35 * MS - (36 * MS - 8000) - 4 * MS -
						  1 * MS - 3 * MS + 2 * MS));

	/* two slave processes are one row; sorted by count */
	assert_int_equal(l.wakeups, 56);
	assert_int_equal(l.nwakes, 3);
	assert_int_equal(l.wakes[0].kind, MUXBPF_WAKER_TIMER);
	assert_int_equal(l.wakes[0].count, 50);
	assert_int_equal(l.wakes[1].kind, MUXBPF_WAKER_TASK);
	assert_string_equal(l.wakes[1].comm, "slave");
	assert_int_equal(l.wakes[1].count, 5);
	assert_int_equal(l.wakes[1].pids, 2);
	assert_int_equal(l.wakes[2].kind, MUXBPF_WAKER_SELF);

	assert_int_equal(l.lost, 3);
	assert_int_equal(l.lost_by[MUXBPF_LMAP_SITES], 3);
	phase_ledger__free(&l);
}

/* A call in flight at both boundaries gets exactly the window's wall and the CPU between. */
static void test_call_spanning_the_window(void **state)
{
	struct muxbpf_task_rt rt0[] = { { .pid = PID, .tid = 101, .runtime_ns = 1 * MS } };
	struct muxbpf_task_rt rt1[] = { { .pid = PID, .tid = 101, .runtime_ns = 2 * MS } };
	struct rt_snapshot s0 = { rt0, 1 }, s1 = { rt1, 1 };
	typeof(*((struct mb_inflight *)0)->v) in0[] = {
		{ .k = 101, .v = { .nr = 23, .enter_ns = T0 - 5 * MS, .cpu_ns = 3000, .off = 1 } },
	};
	typeof(*((struct mb_inflight *)0)->v) in1[] = {
		{ .k = 101, .v = { .nr = 23, .enter_ns = T0 - 5 * MS, .cpu_ns = 7000, .off = 1 } },
	};
	struct mb_inflight f0 = { in0, 1 }, f1 = { in1, 1 };
	struct mb_boundary from = { T0, &s0, &f0 }, to = { T1, &s1, &f1 };
	static struct mb_ledger_data d;
	struct phase_ledger l;

	(void)state;
	assert_int_equal(ledger_build(&d, PH, PID, &from, &to, &l), 0);
	assert_int_equal(l.nsys, 1);
	assert_int_equal(l.sys[0].nr, 23);
	assert_int_equal(l.sys[0].count, 0);
	assert_int_equal(l.sys[0].wall_ns, 100 * MS);
	assert_int_equal(l.sys[0].cpu_ns, 4000);
	assert_int_equal(l.oncpu_ns, 1 * MS);
	phase_ledger__free(&l);
}

/* A thread that exited in the window: its exit() in flight at T1 ends at the thread's exit. */
static void test_exit_in_flight(void **state)
{
	struct muxbpf_task_rt rt0[] = { { .pid = PID, .tid = 101, .runtime_ns = 1 * MS } };
	struct muxbpf_task_rt rt1[] = {
		{ .pid = PID, .tid = 101, .runtime_ns = 3 * MS, .exit_ns = T0 + 60 * MS },
	};
	struct rt_snapshot s0 = { rt0, 1 }, s1 = { rt1, 1 };
	typeof(*((struct mb_inflight *)0)->v) in1[] = {
		{ .k = 101, .v = { .nr = 60, .enter_ns = T0 + 59 * MS, .cpu_ns = 500000, .off = 1 } },
	};
	struct mb_inflight f0 = { NULL, 0 }, f1 = { in1, 1 };
	struct mb_boundary from = { T0, &s0, &f0 }, to = { T1, &s1, &f1 };
	static struct mb_ledger_data d;
	struct phase_ledger l;

	(void)state;
	assert_int_equal(ledger_build(&d, PH, PID, &from, &to, &l), 0);
	assert_int_equal(l.thread_wall_ns, 60 * MS);
	assert_int_equal(l.nsys, 1);
	assert_int_equal(l.sys[0].nr, 60);
	assert_int_equal(l.sys[0].wall_ns, 1 * MS);
	assert_int_equal(l.sys[0].cpu_ns, 500000);
	assert_int_equal(l.leftover_ns, (int64_t)(60 * MS - 2 * MS - MS / 2));
	phase_ledger__free(&l);
}

static void test_names(void **state)
{
	(void)state;
	/* the numbers of the C library's <sys/syscall.h>, the names of the kernel's UAPI table */
	assert_string_equal(syscall_name(SYS_read), "read");
	assert_string_equal(syscall_name(SYS_write), "write");
	assert_string_equal(syscall_name(SYS_getppid), "getppid");
	assert_string_equal(softirq_name(3), "net_rx");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_call_spanning_the_window),
		cmocka_unit_test(test_exit_in_flight),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("ledger", tests, NULL, NULL);
}
