/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command line. */
#ifndef MUXBPF_OPTS_H
#define MUXBPF_OPTS_H

#include <stdbool.h>
#include "muxbpf.h"

#define MUXBPF_VERSION "0.1"

struct opts {
	unsigned int phases[MUXBPF_PHASE__COUNT];
	int nphases;
	double scale;
	double idle_seconds;
	int freq;
	int top;
	const char *netmux;
	const char *game;
	bool keep;
	bool no_profile;
	int unwind; /* enum muxbpf_unwind_mode (--unwind; default auto) */
	bool no_syscalls;
	const char *out_dir; /* --out DIR: write the artifacts there (NULL: none) */
	int runs;            /* --runs N: whole runs merged into one report (default 1) */
	bool quiet;          /* --quiet: no progress line, no artifact summary */
	bool full;           /* --full: the whole report on the terminal, not the summary */
	int site_every;      /* --site-every: 0 default, -1 never, N: 1 syscall in N */
	int syscall_hook;    /* --syscall-hook: enum syscall_hook (loader/syscall_hook.h), 0 auto */
	const char *netmux_user; /* --netmux-user; NULL: the default (as root: muxbpf or nobody) */
	int port;            /* --port; 0: a free one */
	double max_drop_pct; /* --max-drop-pct; < 0: dropped samples only warn */
	int max_stacks;      /* --max-stacks: entries per stack map (0: default) */
	int max_samples;     /* --max-samples: sample counter entries (0: default) */
	unsigned int by;     /* --by: FOLD_VIEW() mask of the report's tables (default function) */
	double min_pct;      /* --min-pct: rows below this self% are not listed (default 0) */
	const char *debug_dirs[16]; /* --debug-dir, in the order given, before /usr/lib/debug */
	int ndebug_dirs;
	/* muxbpf attach and phases marked from outside (src/live.c) */
	bool attach;             /* muxbpf attach: a running process (--pid, --port, --name) */
	int attach_pid;          /* --pid */
	const char *attach_name; /* --name */
	const char *control;     /* --control PATH or fifo:CTL[,ACK] */
	double interval;         /* --interval S: consecutive windows (0: none) */
	double duration;         /* --duration S: end the run after S (0: at stop or a signal) */
	bool phase_given;        /* --phase was on the command line */
	bool no_bpf_stats;       /* --no-bpf-stats: no run-time statistics (bpf_enable_stats) */
	bool bpf_stats;          /* --bpf-stats: statistics all through the run, not only calibration */
	bool fixed_period;       /* --fixed-period: the kernel's fixed sampling period */
	double max_phase_seconds; /* --max-phase-seconds: rounds of a phase end by then (0: one) */
	bool max_phase_given;     /* --max-phase-seconds was on the command line */
	/* the softcode views (--by command, softcode: src/softcode.c) */
	bool exact_commands;     /* --exact-commands: on-CPU per command from a uprobe */
	const char *login;       /* --login: the wizard login that names objects */
};

/* Parse argv.  Returns 0 to run, 1 when --help/--version was printed, -EINVAL after one error
 * line for bad input. */
int opts_parse(int argc, char **argv, struct opts *o);

#endif /* MUXBPF_OPTS_H */
