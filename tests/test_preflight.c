// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* preflight.c without root: which capabilities are missing, and their names. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "loader/preflight.h"

static void test_caps(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(preflight_missing_caps(~0ull), 0);
	assert_int_equal(preflight_missing_caps(0), 3);
	assert_string_equal(preflight_caps_str(3, buf, sizeof(buf)), "CAP_BPF, CAP_PERFMON");
	assert_string_equal(preflight_caps_str(preflight_missing_caps(1ull << 39), buf,
					       sizeof(buf)), "CAP_PERFMON");
	assert_string_equal(preflight_caps_str(preflight_missing_caps(1ull << 38), buf,
					       sizeof(buf)), "CAP_BPF");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
	};

	return cmocka_run_group_tests_name("preflight", tests, NULL, NULL);
}
