/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Live sessions: phases marked from outside a running process.
 *
 * `muxbpf attach` profiles a process that runs already (netmux or any other: nothing here uses
 * netmux's internals): one sampler event per existing thread, the runtime iterator and the
 * ledger scoped to its pid.  Phases come from the control channel (--control), from consecutive
 * windows (--interval), or are one window for the whole run; --duration, a `stop` command,
 * SIGINT or the target's exit end the run, and the report follows as for a throwaway game.
 * `muxbpf run --control` runs the same loop after its driven phases.
 *
 * Nothing grows with time but the BPF maps' distinct keys: the loop sleeps in poll() and wakes
 * for commands, window boundaries, and a map occupancy check once a second (a few µs).
 */
#ifndef MUXBPF_LIVE_H
#define MUXBPF_LIVE_H

#include "session/opts.h"
#include "loader/profiler.h"
#include "session/session.h"

/* How often the maps' occupancy is checked and muxbpf's memory sampled. */
#define LIVE_CHECK_MS 1000
/* Longest wait for the target to sleep before a boundary reading (a busy target is read
 * anyway: its running thread's runtime may then be up to a tick old, and the report says so). */
#define LIVE_QUIESCE_MS 10
/* The unwinder's pace in live sessions (unwinder__set_pace): a request is served at once, a
 * mapping replaced in place is noticed within the recheck; the poll bounds the wait at exit. */
#define LIVE_UNWIND_POLL_MS 1000
#define LIVE_UNWIND_RECHECK_MS 10000
/* Longest wait after attaching for every thread's next syscall, so the ledger sees calls whole. */
#define LIVE_WARMUP_MS 1000

/* muxbpf attach: find the process, attach, run the live phases, collect everything into r.
 * 0 or -errno (r holds what was gathered; r->stopped says why a run ended early). */
int live_session(const struct opts *o, struct run *r);
/* The live phases on a process the caller profiles (prof may be NULL: --no-profile), after the
 * windows r holds already.  pidfd: the target's, readable at its exit (-1: poll for it).
 * 0 or -errno. */
int live_phases(const struct opts *o, struct profiler *prof, struct run *r, int pidfd);
/* "t+0s", "t+60s", "t+1.5s": the name of interval window k. */
void live_interval_name(double interval, unsigned int k, char *buf, size_t size);
/* A name not yet taken by the phases in r: name itself, else name.2, name.3, ... */
void live_unique_name(const struct run *r, const char *name, char *buf, size_t size);

#endif /* MUXBPF_LIVE_H */
