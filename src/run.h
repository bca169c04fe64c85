/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One profiling session against a throwaway netmux: start the game paused, attach, boot, drive
 * the phases with readings at every boundary, collect the maps, shut everything down.  What it
 * returns is plain data; no process or BPF link outlives run_session().
 */
#ifndef MUXBPF_RUN_H
#define MUXBPF_RUN_H

#include "cost.h"
#include "drive.h"
#include "ledger.h"
#include "maps.h"
#include "opts.h"
#include "procstat.h"
#include "profile.h"
#include "symbolize.h"

/* The kernel's counters at one moment while the server sleeps. */
struct reading {
	uint64_t t_ns;         /* CLOCK_MONOTONIC when the counters were read */
	struct rt_snapshot rt; /* BPF runtime per thread (empty with --no-profile) */
	struct mb_inflight inflight; /* syscalls in flight (empty without the ledger) */
	struct proc_times proc;
	struct mb_cost_reading cost; /* BPF programs' run time and muxbpf's CPU so far */
};

struct window {
	unsigned int phase;
	struct reading before, after;
	struct phase_result result;
	bool partial; /* cut short by a signal (result.ok is false) */
};

struct run {
	char netmux[4096];
	char version[256];
	int pid, port;
	struct window windows[MUXBPF_MAX_PHASES]; /* driven phases, then phases marked from outside */
	int nwindows;
	struct reading start, final;
	struct mb_maps maps[MUXBPF_MAX_PHASES]; /* snapshot at each phase's end */
	struct mb_maps last_maps;               /* the last snapshot taken */
	struct mb_pins pins; /* the files behind every snapshot's executable mappings, held open */
	struct mb_profile profile;
	bool ledger;                  /* the ledger was on */
	struct mb_ledger_data ledger_data;
	bool final_taken;             /* final holds a reading (else: the last one taken) */
	int signal;                   /* the signal that interrupted the run, or 0 */
	bool target_died;             /* netmux exited on its own during the run */
	char stopped[320];            /* why the run stopped early ("" when it did not) */
	struct mb_live_info live;     /* phases marked from outside: attach, --control, --interval */
};

/* Returns 0 when every phase ran and checked; otherwise -errno, with whatever was gathered
 * still in r (phases that completed, the one cut short, the profile if it could be read) and,
 * when a signal or netmux's death stopped it, r->signal / r->target_died and r->stopped. */
int run_session(const struct opts *o, struct run *r);
void run__free(struct run *r);

#endif /* MUXBPF_RUN_H */
