/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The softcode views (--by command, softcode) in the text report and report.json. */
#ifndef MUXBPF_OUT_SOFTCODE_H
#define MUXBPF_OUT_SOFTCODE_H

#include <stdio.h>
#include "report/report.h"
#include "report/softcode_rows.h"

struct jw;

/* One line: how the views were measured, what they cost, or why they are unavailable. */
void report_print_softcode_header(FILE *f, const struct report *r);
/* The phase's command and softcode tables. */
void report_print_softcode(FILE *f, const struct report *r, const struct report_phase *p);
/* "softcode": {...} in report.json (nothing when the views were not asked for). */
void json_write_softcode(struct jw *w, const struct report *r);

#endif /* MUXBPF_OUT_SOFTCODE_H */
