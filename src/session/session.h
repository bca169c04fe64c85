/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a session gathers, as plain data: the kernel's counters at every phase boundary, the
 * windows between them, the maps snapshots, the profile and the ledger.  run.c (a throwaway
 * game) and live.c (phases marked from outside) fill it, reading.c holds what they share,
 * assemble.c turns it into a report.  No functions here.
 */
#ifndef MUXBPF_SESSION_H
#define MUXBPF_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include "model/cost.h"
#include "proc/drive.h"
#include "fold/fold.h"
#include "model/ledger.h"
#include "proc/maps.h"
#include "proc/procstat.h"
#include "model/profile.h"
#include "loader/softcode.h"
#include "loader/syscall_hook.h"

/* The kernel's counters at one moment while the server sleeps. */
struct reading {
	uint64_t t_ns;         /* CLOCK_MONOTONIC when the counters were read */
	struct rt_snapshot rt; /* BPF runtime per thread (empty with --no-profile) */
	struct mb_inflight inflight; /* syscalls in flight (empty without the ledger) */
	struct proc_times proc;
	struct mb_cost_reading cost; /* BPF programs' run time and muxbpf's CPU so far */
};

/*
 * The end of one batch of rounds of a window whose work repeats (src/rounds.h), while netmux
 * sleeps: cumulative from the window's start.  Only the sample counts are read between rounds
 * (the phase id the BPF side keys on stays the phase's): a batch's counts are the difference of
 * two marks, the last batch's the window's total minus the mark before it.
 */
struct round_mark {
	uint64_t t_ns;		/* CLOCK_MONOTONIC */
	unsigned int rounds;	/* rounds answered */
	uint64_t commands;	/* commands answered */
	uint64_t oncpu_ns;	/* netmux's on-CPU time (the kernel's runtime accounting) */
	struct fold_table fold; /* the window's samples folded into the report's views */
	struct ledger_sys_row *sys; /* the ledger's syscalls so far, exact (NULL: no ledger) */
	size_t nsys;
	struct sc_data sc;	/* --by command: the softcode counts and times (softcode__snapshot) */
};

struct window {
	unsigned int phase;
	struct reading before, after;
	struct phase_result result;
	bool partial; /* cut short by a signal (result.ok is false) */
	struct round_mark *marks; /* one per batch of rounds (none for a window of one round) */
	unsigned int nmarks;
	int round_stop; /* enum round_stop: why the window ran the rounds it did */
	bool stop_judged; /* the rule judged a mark's top rows (ROUNDS_MIN batches or more) */
	double stop_half; /* the widest top-row interval it last judged (fraction) */
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
	struct syscall_hook_info hook; /* the ledger's syscall hook, why, what bystanders paid */
	struct mb_ledger_data ledger_data;
	bool final_taken;             /* final holds a reading (else: the last one taken) */
	int signal;                   /* the signal that interrupted the run, or 0 */
	bool target_died;             /* netmux exited on its own during the run */
	char stopped[320];            /* why the run stopped early ("" when it did not) */
	struct mb_live_info live;     /* phases marked from outside: attach, --control, --interval */
	struct mb_calib calib;        /* the calibration window's result (cost.h) */
	struct sc_data softcode;      /* --by command, softcode (src/softcode.c) */
};

#endif /* MUXBPF_SESSION_H */
