// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * How long compiling the CFI tables of the usual system libraries takes (the work done before
 * the unwinder's maps are loaded): rows and wall ms per round, best of ROUNDS.  The goal is
 * under 500 ms for all six libraries; it is measured here, not asserted in tests/test_cfi.c,
 * because a shared machine makes any fixed wall-clock bound a flake.
 *
 *   build/bench/cfi_build [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "symbols/cfi.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	static const char *const libs[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",	"/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/lib/x86_64-linux-gnu/libm.so.6",	"/lib/x86_64-linux-gnu/libgcc_s.so.1",
		"/lib64/ld-linux-x86-64.so.2",		"/lib/x86_64-linux-gnu/libcrypt.so.1",
	};
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	double best = 0;
	size_t rows = 0;

	printf("round  libraries   rows     ms\n");
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ms(), ms;
		int built = 0;

		rows = 0;
		for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
			struct cfi_table t;

			if (cfi_table__build_file(libs[i], &t))
				continue;
			rows += t.n;
			built++;
			cfi_table__free(&t);
		}
		ms = now_ms() - t0;
		if (!r || ms < best)
			best = ms;
		printf("%5d  %9d  %6zu  %6.1f\n", r + 1, built, rows, ms);
	}
	printf("best %.1f ms for %zu rows (goal: under 500 ms)\n", best, rows);
	return 0;
}
