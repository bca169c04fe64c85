/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The clocks muxbpf reads.  CLOCK_MONOTONIC is the clock bpf_ktime_get_ns() reads, so the
 * ledger's timestamps compare with mono_ns(); CLOCK_PROCESS_CPUTIME_ID and
 * CLOCK_THREAD_CPUTIME_ID give muxbpf's own CPU.
 */
#ifndef MUXBPF_CLOCK_H
#define MUXBPF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif /* MUXBPF_CLOCK_H */
