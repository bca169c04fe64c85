/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The terminal report (report.txt): header, one row per phase, then each phase's tables. */
#ifndef MUXBPF_OUT_TEXT_H
#define MUXBPF_OUT_TEXT_H

#include <stdio.h>
#include "report/report.h"

void report_print(FILE *f, const struct report *r);

#endif /* MUXBPF_OUT_TEXT_H */
