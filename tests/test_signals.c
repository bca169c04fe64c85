// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* signals.c without a signal: names and exit codes. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "base/signals.h"

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(signal_name(SIGINT), "SIGINT");
	assert_string_equal(signal_name(SIGKILL), "SIGKILL");
	assert_int_equal(signals_exit_code(SIGTERM), 143);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("signals", tests, NULL, NULL);
}
