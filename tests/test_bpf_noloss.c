// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * No silent loss.  As root: the synthetic target sampled into maps far too small (1 stack
 * per depth bucket, then 1 sample counter), so that each fills; every sample the program ran
 * for must still be accounted: taken = recorded + lost (counts map full), and the recorded ones
 * without their stack are exactly those counted as dropped for a full stack map.  The report's
 * check turns the drops into an error with --max-drop-pct and only a warning without.
 * (The pure pieces are in test_report, test_game, test_preflight and test_signals.)
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
#include <bpf/bpf.h>
#include "loader/profiler.h"
#include "loader/collect.h"
#include "proc/game.h"
#include "loader/preflight.h"
#include "model/profile.h"
#include "report/report.h"
#include "base/signals.h"
#include "testutil.h"
#include "bpftarget.h"

#define PHASE_ONE 1

/* Sample the synthetic target's phase one (from its exec) into maps of the given sizes, and
 * check that every sample the program ran for is accounted for. */
static void run_tiny(uint32_t max_samples, uint32_t max_stacks, struct muxbpf_phase_stats *out)
{
	struct profiler_opts opts = { .freq = 9999, .enable_on_exec = true,
				    .max_samples = max_samples, .max_stacks = max_stacks,
				    .unwind = MUXBPF_UNWIND_AUTO };
	struct mb_profile prof = {};
	const struct muxbpf_phase_stats *st;
	uint64_t sum = 0, leaf_only = 0;
	struct profiler *p;
	struct target t;
	char ack[8];
	int stats_fd;

	target_spawn(&t, "synth_nofp", "300");
	opts.pid = t.pid;
	assert_int_equal(test_syscall_hook(&opts), 0);
	p = profiler__new(&opts);
	assert_non_null(p);
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	profiler__set_phase(p, PHASE_ONE);
	target_release(&t);
	if (stats_fd >= 0)
		target_command_until(&t, 'a', p, 600, 8);
	else
		target_command(&t, 'a', ack, sizeof(ack));
	profiler__set_phase(p, 0);
	if (stats_fd >= 0)
		close(stats_fd);
	assert_int_equal(collect_profile(p, &prof), 0);
	target_quit(&t);
	profiler__free(p);

	st = &prof.stats[PHASE_ONE];
	for (size_t i = 0; i < prof.n; i++) {
		if (prof.samples[i].phase != PHASE_ONE)
			continue;
		sum += prof.samples[i].count;
		if (prof.samples[i].stack_err < 0)
			leaf_only += prof.samples[i].count;
	}
	*out = *st;
	profile__free(&prof);
	print_message("%u counters, %u stacks per bucket: taken %llu, recorded %llu, counts map "
		      "full %llu, stack map full %llu, walk failed %llu\n", max_samples, max_stacks,
		      (unsigned long long)out->taken, (unsigned long long)out->recorded,
		      (unsigned long long)out->dropped[MUXBPF_DROP_COUNTS_FULL],
		      (unsigned long long)out->dropped[MUXBPF_DROP_STACK_FULL],
		      (unsigned long long)out->dropped[MUXBPF_DROP_STACK_FAILED]);
	assert_true(out->taken > 500);
	/* nothing vanished: lost ones are counted, recorded ones are in the map */
	assert_int_equal(out->taken, out->recorded + out->dropped[MUXBPF_DROP_COUNTS_FULL]);
	assert_int_equal(sum, out->recorded);
	/* the recorded ones without their stack are exactly those dropped for it */
	assert_int_equal(leaf_only, out->dropped[MUXBPF_DROP_STACK_FULL] +
					    out->dropped[MUXBPF_DROP_STACK_FAILED]);
	assert_true(report_dropped(out) <= out->taken);
}

static void test_full_maps_accounted(void **state)
{
	struct muxbpf_phase_stats st;
	static struct report r;

	(void)state;
	skip_unless_bpf();
	/*
	 * The stack maps fill: samples kept as their leaf.  One stack per depth bucket: hot_a's
	 * and hot_b's stacks have the same depth and both get hundreds of samples, so the second
	 * one cannot be stored on any machine (16 entries filled only when enough distinct leaf
	 * addresses happened to be sampled).
	 */
	run_tiny(65536, 1, &st);
	assert_true(st.dropped[MUXBPF_DROP_STACK_FULL] > 0);
	/* the counts map fills: one counter, and at least two keys (hot_a's and hot_b's leaves) */
	run_tiny(1, 1, &st);
	assert_true(st.dropped[MUXBPF_DROP_COUNTS_FULL] > 0);

	/* The report's verdict: a warning without --max-drop-pct, an error with it. */
	r.profiled = true;
	r.freq = 9999;
	r.nphases = 1;
	r.phases[0].id = PHASE_ONE;
	r.phases[0].measured = true;
	r.phases[0].ok = true;
	r.phases[0].stats = st;
	r.phases[0].usr_ns = 1;
	r.max_drop_pct = -1;
	assert_int_equal(report_check(&r), 0);
	r.max_drop_pct = 0.5;
	assert_int_equal(report_check(&r), 1);
	r.max_drop_pct = 100;
	assert_int_equal(report_check(&r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_maps_accounted),
	};

	return cmocka_run_group_tests_name("bpf_noloss", tests, NULL, NULL);
}
