/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* From a run (plain data) to a report (plain data): the stage between collect and print. */
#ifndef MUXBPF_ASSEMBLE_H
#define MUXBPF_ASSEMBLE_H

#include "session/opts.h"
#include "report/report.h"
#include "session/session.h"
#include "fold/sprof.h"

/*
 * Fill r from run.  With sp, also add the run's symbolized stacks to it (--out) and point
 * r->stacks at it (sp outlives r; with --runs every run adds to one sp).  0 or -errno;
 * r is valid for report_free() either way.  run is only read: what the report computes from it
 * (rows, intervals, the softcode counts after the stack rule) the report holds; r points into
 * run (names, softcode labels), so run outlives it.
 */
int build_report(struct report *r, const struct opts *o, const struct run *run,
		 struct sprof *sp);
void report_free(struct report *r);

#endif /* MUXBPF_ASSEMBLE_H */
