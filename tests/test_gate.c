// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The instruction metric's and the gate's pure parts (no root): which source is chosen and
 * why (a hardware counter, else callgrind, else an error naming what is missing), a
 * multiplexed counter's scaling, --metric's parsing, the default thresholds from a baseline's
 * rounds, the comparison (within, slower, faster; the functions that moved, by self cost,
 * including ones only one side has) and the baseline file written and read back, with bad
 * files refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/ab.h"
#include "cli/gate.h"
#include "loader/icount.h"

static void test_choose(void **state)
{
	enum icount_source s = ICOUNT_AUTO;
	char why[256];

	(void)state;
	assert_int_equal(icount_choose(ICOUNT_AUTO, 0, true, &s, why, sizeof(why)), 0);
	assert_int_equal(s, ICOUNT_PMU);
	assert_int_equal(icount_choose(ICOUNT_AUTO, ENOENT, true, &s, why, sizeof(why)), 0);
	assert_int_equal(s, ICOUNT_CALLGRIND);
	assert_non_null(strstr(why, "no hardware instructions counter"));
	assert_int_equal(icount_choose(ICOUNT_AUTO, ENOENT, false, &s, why, sizeof(why)),
			 -ENOTSUP);
	assert_non_null(strstr(why, "valgrind"));
	assert_int_equal(icount_choose(ICOUNT_PMU, EOPNOTSUPP, true, &s, why, sizeof(why)),
			 -ENOTSUP);
	assert_non_null(strstr(why, "perf_event_open"));
	assert_int_equal(icount_choose(ICOUNT_CALLGRIND, 0, true, &s, why, sizeof(why)), 0);
	assert_int_equal(s, ICOUNT_CALLGRIND);
	assert_int_equal(icount_choose(ICOUNT_CALLGRIND, 0, false, &s, why, sizeof(why)),
			 -ENOTSUP);
}

static void test_scale(void **state)
{
	(void)state;
	assert_true(icount_scale(1000, 10, 10) == 1000);
	assert_true(icount_scale(1000, 10, 0) == 1000);
	assert_true(fabs(icount_scale(1000, 10, 5) - 2000) < 1e-9); /* ran half the time */
}

static void test_metric_option(void **state)
{
	struct ab_opts o;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(ab_parse_metric("instructions", &o), 0);
	assert_true(o.instructions);
	assert_int_equal(o.isrc, ICOUNT_AUTO);
	assert_int_equal(ab_parse_metric("instructions:callgrind", &o), 0);
	assert_int_equal(o.isrc, ICOUNT_CALLGRIND);
	assert_int_equal(ab_parse_metric("instructions:pmu", &o), 0);
	assert_int_equal(o.isrc, ICOUNT_PMU);
	assert_int_equal(ab_parse_metric("time", &o), 0);
	assert_false(o.instructions);
	assert_int_equal(ab_parse_metric("instructions:auto", &o), -EINVAL);
	assert_int_equal(ab_parse_metric("cycles", &o), -EINVAL);
	assert_int_equal(ab_parse_metric("time:pmu", &o), -EINVAL);
}

static void test_threshold(void **state)
{
	const double quiet[] = { 39000, 39010, 38990 }, noisy[] = { 100, 130, 90 };
	double noise;

	(void)state;
	/* 0.05% range: the 1% floor */
	assert_true(fabs(gate_default_threshold(quiet, 3, true, &noise) - 0.01) < 1e-12);
	assert_true(fabs(noise - 20.0 / 39000) < 1e-12);
	/* 40% range: 3x that, far above the time floor */
	assert_true(fabs(gate_default_threshold(noisy, 3, false, &noise) - 1.2) < 1e-12);
	assert_true(fabs(gate_default_threshold(quiet, 1, false, &noise) - 0.10) < 1e-12);
}

static struct gate_fn fa[] = { { "process_command", 100, 39000 }, { "eval", 5000, 20000 },
			       { "gone", 50, 50 } };
static struct gate_fn fb[] = { { "process_command", 100, 41000 }, { "eval", 5020, 20020 },
			       { "shim_spin", 1900, 1900 } };

static void test_compare(void **state)
{
	struct gate_phase base = { .name = "dispatch", .per_cmd = 39000, .threshold = 0.01,
				   .fns = fa, .nfns = 3 };
	struct gate_phase now = { .name = "dispatch", .per_cmd = 39200, .fns = fb, .nfns = 3 };
	struct gate_result r;

	(void)state;
	gate_compare(&base, &now, &r);
	assert_false(r.moved); /* +0.51% < 1% */
	now.per_cmd = 41000;
	gate_compare(&base, &now, &r);
	assert_true(r.moved);
	assert_true(fabs(r.change - (41000.0 / 39000 - 1)) < 1e-12);
	assert_string_equal(r.fns[0].name, "shim_spin"); /* only in the new build */
	assert_true(r.fns[0].base_self == 0 && r.fns[0].new_self == 1900);
	assert_string_equal(r.fns[1].name, "gone"); /* only in the baseline: 50 */
	assert_string_equal(r.fns[2].name, "eval");
	now.per_cmd = 30000;
	gate_compare(&base, &now, &r);
	assert_true(r.moved && r.change < 0);
}

static void test_file(void **state)
{
	struct gate_baseline b = { .metric = "instructions", .source = "callgrind",
				   .fn_unit = "instructions", .netmux = "/x/netmux",
				   .version = "MUX 2.12", .created = "2026-12-04T18:00:00Z",
				   .scale = 0.05, .rounds = 3, .nphases = 1 };
	struct gate_baseline r;
	char path[] = "/tmp/muxbpf-gate-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	b.phases[0] = (struct gate_phase){ .name = "dispatch", .commands = 1000,
					   .per_cmd = 38985.5, .rounds = { 38985.5, 39001, 38970 },
					   .nrounds = 3, .noise = 31.0 / 38985.5,
					   .threshold = 0.01, .cpu_us = 300, .fns = fa, .nfns = 3 };
	f = fdopen(fd, "w");
	assert_int_equal(gate_write(f, &b), 0);
	fclose(f);
	assert_int_equal(gate_read(path, &r), 0);
	assert_string_equal(r.metric, "instructions");
	assert_string_equal(r.source, "callgrind");
	assert_int_equal(r.rounds, 3);
	assert_int_equal(r.nphases, 1);
	assert_string_equal(r.phases[0].name, "dispatch");
	assert_true(r.phases[0].per_cmd == 38985.5);
	assert_int_equal(r.phases[0].nrounds, 3);
	assert_true(r.phases[0].threshold == 0.01);
	assert_int_equal(r.phases[0].nfns, 3);
	assert_string_equal(r.phases[0].fns[1].name, "eval");
	assert_true(r.phases[0].fns[1].total == 20000);
	gate_baseline_free(&r);

	/* refused: not a baseline, a bad phase, no threshold */
	f = fopen(path, "w");
	fputs("{\"schema_version\": 1, \"tool\": \"muxbpf ab\"}", f);
	fclose(f);
	assert_int_equal(gate_read(path, &r), -EINVAL);
	f = fopen(path, "w");
	fputs("{\"schema_version\": 1, \"tool\": \"muxbpf gate\", \"metric\": \"instructions\", "
	      "\"scale\": 1, \"rounds\": 3, \"phases\": [{\"name\": \"nosuch\", \"per_cmd\": 1, "
	      "\"threshold\": 0.01}]}",
	      f);
	fclose(f);
	assert_int_equal(gate_read(path, &r), -EINVAL);
	f = fopen(path, "w");
	fputs("{\"schema_version\": 1, \"tool\": \"muxbpf gate\", \"metric\": \"instructions\", "
	      "\"scale\": 1, \"rounds\": 3, \"phases\": [{\"name\": \"dispatch\", \"per_cmd\": 1}]}",
	      f);
	fclose(f);
	assert_int_equal(gate_read(path, &r), -EINVAL);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),	  cmocka_unit_test(test_scale),
		cmocka_unit_test(test_metric_option), cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_compare),	  cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
