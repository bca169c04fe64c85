/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The progress line on a terminal: "[run 2/3] phase 4/9 attrwrite  4608/18000 cmds  14.6k cmd/s
 * 1.2 s".  Only when enabled and stdout is a TTY; redrawn in place at most 10 times a second and
 * erased before anything else is printed.  One line per process: a small singleton.
 */
#ifndef MUXBPF_PROGRESS_H
#define MUXBPF_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* enabled: not --quiet; the line is drawn only when stdout is a terminal as well. */
void progress_init(bool enabled, int nphases, int nruns);
/* A run (1-based) starts: phases count from 1 again. */
void progress_run(int run);
/* A measured window opens / closes. */
void progress_phase(unsigned int phase);
void progress_phase_end(void);
/* Commands of the current window answered so far (a driver hook). */
void progress_commands(void *ctx, unsigned int phase, uint64_t done, uint64_t total);
/* Erase the line (before printing the report or an error). */
void progress_clear(void);

#endif /* MUXBPF_PROGRESS_H */
