/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The report's sections on the profiler itself: its cost per phase, and for live sessions how
 * the target was attached, what ended the run, muxbpf's CPU and memory, the maps' occupancy. */
#ifndef MUXBPF_OUT_TEXT_LIVE_H
#define MUXBPF_OUT_TEXT_LIVE_H

#include <stdio.h>
#include "report/report.h"

void report_print_live(FILE *f, const struct report *r);
/* A phase's "profiler cost" line: BPF run time and muxbpf's CPU in the window. */
void report_print_cost_line(FILE *f, const struct report_phase *p);
/* That line, then the bystanders' and the estimate corrected for muxbpf's own time. */
void report_print_cost(FILE *f, const struct report_phase *p);
/* The phase's on-CPU, syscalls and per-syscall CPU corrected for muxbpf's own time (an
 * estimate: the report's corrected figures, report_figures); nothing without the ledger or a
 * calibration. */
void report_print_corrected(FILE *f, const struct report_phase *p);

#endif /* MUXBPF_OUT_TEXT_LIVE_H */
