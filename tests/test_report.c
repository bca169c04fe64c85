// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* report_check.c on hand-made reports: drops against --max-drop-pct, failed and cut phases. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "report/report.h"

static void test_drop_check_pure(void **state)
{
	static struct report r;
	struct muxbpf_phase_stats *st = &r.phases[0].stats;

	(void)state;
	r.profiled = true;
	r.freq = 997;
	r.nphases = 1;
	r.phases[0].id = 2;
	r.phases[0].measured = true;
	r.phases[0].ok = true;
	st->taken = 1000;
	st->recorded = 990;
	st->dropped[MUXBPF_DROP_COUNTS_FULL] = 10;
	st->dropped[MUXBPF_DROP_STACK_FULL] = 5;
	assert_int_equal(report_dropped(st), 15);
	assert_true(report_drop_pct(st) > 1.49 && report_drop_pct(st) < 1.51);
	r.max_drop_pct = 1.5;
	assert_int_equal(report_check(&r), 0); /* not more than 1.5% */
	r.max_drop_pct = 1.4;
	assert_int_equal(report_check(&r), 1);
	/* an interrupted phase is no failure (the exit code says why), a failed one is */
	r.max_drop_pct = -1;
	r.phases[0].ok = false;
	r.phases[0].partial = true;
	assert_int_equal(report_check(&r), 0);
	r.phases[0].partial = false;
	assert_int_equal(report_check(&r), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_check_pure),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
