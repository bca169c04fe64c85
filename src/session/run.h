/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One profiling session against a throwaway netmux: start the game paused, attach, boot, drive
 * the phases with readings at every boundary, collect the maps, shut everything down.  What it
 * returns is plain data; no process or BPF link outlives run_session().
 */
#ifndef MUXBPF_RUN_H
#define MUXBPF_RUN_H

#include "session/opts.h"
#include "session/session.h"

/* Returns 0 when every phase ran and checked; otherwise -errno, with whatever was gathered
 * still in r (phases that completed, the one cut short, the profile if it could be read) and,
 * when a signal or netmux's death stopped it, r->signal / r->target_died and r->stopped. */
int run_session(const struct opts *o, struct run *r);

#endif /* MUXBPF_RUN_H */
