/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The calibration window: BPF run-time statistics on for a short window at the
 * start of a run, the ledger programs timing their own bodies
 * (bpf/ledger.bpf.c, calibrating), then the statistics off for the rest of the
 * run.  The window gives ns per target run and per early exit of every program
 * (cost.c, calib_from()); the programs' own counts times those give the cost
 * line of every later phase (README: long runs and the profiler's own cost).
 */
#ifndef MUXBPF_CALIB_H
#define MUXBPF_CALIB_H

#include "model/cost.h"
#include <stdbool.h>

struct calib;

/* What the window needs from the loader (profiler.c): a reading, and the end
 * (the programs stop timing, the statistics are dropped unless keep_stats). */
struct calib_ops {
	void (*read)(void *ctx, struct mb_calib_reading *out);
	void (*end)(void *ctx, bool keep_stats);
	void *ctx;
};

/*
 * The window lasts until it has seen CALIB_MIN_RUNS target syscalls and
 * CALIB_MIN_MS, or CALIB_MAX_MS at most (an idle target); keep_stats leaves the
 * statistics on after it
 * (--bpf-stats).  floor_ns (the tracepoints' cost per syscall outside the
 * programs, < 0: not measured) goes into the result.  Statistics must be on,
 * and the programs timing, already.  NULL with errno set.
 */
#define CALIB_MIN_MS 300
#define CALIB_MAX_MS 3000
#define CALIB_MIN_RUNS 2000
struct calib *calib__start(const struct calib_ops *ops, bool keep_stats, double floor_ns);
/* The result once the window is over (out->valid), else zeroes.  Any thread. */
void calib__get(struct calib *c, struct mb_calib *out);
/* Are the statistics still on (held by this run)?  Any thread. */
bool calib__stats_on(struct calib *c);
/* End the window now if it is still open (a run shorter than the window): its
 * result is then what it saw so far.  Safe on NULL and more than once. */
void calib__finish(struct calib *c);
/* calib__finish(), and free (safe on NULL). */
void calib__free(struct calib *c);

#endif /* MUXBPF_CALIB_H */
