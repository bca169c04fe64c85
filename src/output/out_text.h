/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The terminal report (report.txt): header, one row per phase, then each phase's tables. */
#ifndef MUXBPF_OUT_TEXT_H
#define MUXBPF_OUT_TEXT_H

#include <stdio.h>
#include "report/report.h"

#define SUMMARY_ROWS 10     /* rows of the first view per phase in the summary */
#define SUMMARY_SYSCALLS 5  /* syscalls per phase in the summary */

/* The whole report: report.txt, and the terminal's with --full. */
void report_print(FILE *f, const struct report *r);
/*
 * The terminal's default: the header, the phase and rounds tables, and per phase its top rows,
 * top syscalls, one ledger line and one cost line.
 */
void report_print_summary(FILE *f, const struct report *r);

#endif /* MUXBPF_OUT_TEXT_H */
