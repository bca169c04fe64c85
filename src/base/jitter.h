/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Sampling that cannot lock step with periodic work.  The kernel's cpu-clock event fires on a
 * fixed period of on-CPU time, so on work that repeats with a period near a multiple of it
 * (netmux answering identical commands, ~1.2 ms per chunk) the samples keep landing at the same
 * points of the cycle and shares are off by many times their binomial error.  A thread re-draws
 * each sampler event's period at random every 8-24 samples with PERF_EVENT_IOC_PERIOD; see
 * jitter.c for what the kernel does with it.  --fixed-period turns it off.
 */
#ifndef MUXBPF_JITTER_H
#define MUXBPF_JITTER_H

#include <stdint.h>
#include <sys/types.h>

/* The sampler program's record of its last sample (bpf/sample.bpf.c, in the mmapped .bss). */
struct jitter_sample {
	const volatile uint32_t *tid;
	const volatile uint64_t *ns; /* bpf_ktime_get_ns() */
};

struct jitter_opts {
	const int *fds;    /* cpu-clock sampler events, one per thread */
	const pid_t *tids; /* the thread of each */
	int nfds;
	int freq;          /* their mean rate, Hz */
	struct jitter_sample last;
};

struct jitter_stats {
	uint64_t redraws; /* periods the kernel took */
	uint64_t failed;  /* PERF_EVENT_IOC_PERIOD refused: the period in force stayed */
	int err;          /* the last refusal's errno */
	double lost_ns; /* time from a sample to the redraw after it, on average (made up for) */
};

struct jitter;

/* Start re-drawing the periods of the events around their mean rate.  NULL with errno set. */
struct jitter *jitter__new(const struct jitter_opts *opts);
/* Stop the thread (safe on NULL); the events keep their last period. */
void jitter__free(struct jitter *j);
void jitter__stats(const struct jitter *j, struct jitter_stats *st);

/*
 * Pure, for the unit tests: the period in ns for a draw u in [0, 1) that keeps the mean rate
 * at freq Hz when a redraw throws away lost_ns and comes every n periods.
 */
uint64_t jitter_period_ns(int freq, double u, double lost_ns, int n);

#endif /* MUXBPF_JITTER_H */
