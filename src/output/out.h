/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --out DIR: the artifacts of one run (or of --runs merged):
 *   report.txt       what was printed
 *   report.json      every number of the report (doc/report.schema.json)
 *   PHASE.folded     user stacks, "root;...;leaf COUNT" (the samples the function tables fold)
 *   PHASE.svg        interactive flame graph: user samples plus the ledger's kernel time per
 *                    call site as "[sys] NAME" frames, in sample-equivalents
 *   profile.pb.gz    pprof profile.proto, one sample per (phase, stack) labelled phase=NAME
 *   speedscope.json  one profile per phase (https://www.speedscope.app file format)
 *   report.html      one self-contained page of it all (out_html.h), linking to the others
 */
#ifndef MUXBPF_OUT_H
#define MUXBPF_OUT_H

#include <stddef.h>
#include <stdio.h>
#include "session/opts.h"
#include "output/out_json.h"
#include "output/out_svg.h"
#include "report/report.h"


struct runs_summary;

/* Write every artifact into dir (created if missing): report.txt and report.json always, the
 * stack artifacts where the report has stacks (r->stacks).  text/len: the printed report.
 * 0 or -errno after one error line naming the file. */
int out_write(const char *dir, const struct report *r, const struct runs_summary *rs,
	      const char *text, size_t len);

/* The writers, each on an open stream or file (tests call them on fixtures), have headers of
 * their own: out_json.h, out_svg.h, out_folded.h, out_pprof.h, out_speedscope.h, out_html.h. */

/*
 * Print the report (then, for --runs, the spread table) to stdout, after erasing the progress
 * line, and with o->out_dir write the artifacts, report.txt holding exactly what was printed.
 * 0 or -errno (the artifacts could not be written).
 */
int out_report(const struct opts *o, const struct report *r, const struct runs_summary *rs);

/* Create dir and its parents (mode 0755). 0 or -errno. */
int out_mkdir_p(const char *dir);

#endif /* MUXBPF_OUT_H */
