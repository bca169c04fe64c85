// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * muxbpf ab's block readings (ab_block_reading, what its driver hooks call at each block's begin
 * and end) against a target that waits in read() on its stdin, as netmux waits in select()
 * between commands: a call begun in one block is in flight at that block's end, across the gap,
 * and returns in the next block.  The ledger books a call whole to the phase it returns in and
 * moves the parts outside a window by the calls in flight at its two boundaries, so each block's
 * read() wall must be the block's own wall: the thread is in read() all the block but the few us
 * it takes to read the byte that starts the next read().  Readings that see the calls in flight
 * as of another boundary (the previous block's) book the gap and the time before the block to it.
 */
#define BPFTARGET_NO_READING
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cli/ab.h"
#include "model/ledger.h"
#include "session/reading.h"
#include "testutil.h"
#include "bpftarget.h"

#define NBLOCKS 3
#define BLOCK_MS 100
#define GAP_MS 150
/* A block's read() wall against the block's: the byte's read and the clock reads around the
 * switch take microseconds; a boundary misread moves a whole gap (150 ms) or more. */
#define SLACK_MS 2.0

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void test_inflight_across_blocks(void **state)
{
	struct profiler_opts opts = { .freq = 997, .enable_on_exec = true };
	struct reading before[NBLOCKS + 1] = {}, after[NBLOCKS + 1] = {};
	struct mb_ledger_data data = {};
	struct profiler *p;
	struct target t;
	int bad = 0;

	(void)state;
	skip_unless_bpf();
	target_spawn(&t, "ledger_synth", NULL);
	opts.pid = t.pid;
	assert_int_equal(test_syscall_hook(&opts), 0);
	p = profiler__new(&opts);
	assert_non_null(p);
	assert_true(profiler__has_ledger(p));
	target_release(&t);
	target_wait_started(&t);
	/* the target's first read() began long before block 1 */
	sleep_ms(300);
	for (int b = 1; b <= NBLOCKS; b++) {
		assert_int_equal(ab_block_reading(p, t.pid, "A", &before[b], b), 0);
		/* a byte the target ignores: its read() returns and the next one begins at once */
		assert_int_equal(write(t.cmd_fd, "n", 1), 1);
		sleep_ms(BLOCK_MS);
		assert_int_equal(ab_block_reading(p, t.pid, "A", &after[b], MUXBPF_PHASE_NONE), 0);
		sleep_ms(GAP_MS);
	}
	assert_int_equal(collect_ledger(p, &data), 0);
	target_quit(&t);
	profiler__free(p);

	for (int b = 1; b <= NBLOCKS; b++) {
		struct mb_boundary from = { before[b].t_ns, &before[b].rt, &before[b].inflight };
		struct mb_boundary to = { after[b].t_ns, &after[b].rt, &after[b].inflight };
		double wall = (after[b].t_ns - before[b].t_ns) / 1e6, in_read = 0;
		struct phase_ledger l = {};

		assert_int_equal(ledger_build(&data, b, t.pid, &from, &to, &l), 0);
		for (size_t i = 0; i < l.nsys; i++)
			if (!strcmp(syscall_name(l.sys[i].nr), "read"))
				in_read += l.sys[i].wall_ns / 1e6;
		print_message("block %d: %.3f ms wall, %.3f ms in read() by the ledger\n", b, wall,
			      in_read);
		if ((in_read > wall + SLACK_MS || in_read < wall - SLACK_MS) && !bad)
			bad = b;
		phase_ledger__free(&l);
	}
	if (bad)
		fail_msg("block %d: its read() wall is not the block's (+-%.1f ms): a call in flight "
			 "at a boundary was read as of another boundary", bad, SLACK_MS);
	for (int b = 1; b <= NBLOCKS; b++) {
		reading_free(&before[b]);
		reading_free(&after[b]);
	}
	ledger_data__free(&data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inflight_across_blocks),
	};

	return cmocka_run_group_tests_name("bpf_ab", tests, NULL, NULL);
}
