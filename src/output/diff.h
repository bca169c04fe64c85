/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * muxbpf diff OLD NEW: two report.json files (or the --out directories holding them), per
 * phase the change in server CPU, usr, sys and cmd/s, judged against the run-to-run spread the
 * inputs carry (--runs), and the functions whose share of samples moved most, judged against
 * sampling noise.  With --out, a differential flame graph per phase from the PHASE.folded files
 * next to the reports, diff.json (the same comparison) and report.html (its page).
 */
#ifndef MUXBPF_DIFF_H
#define MUXBPF_DIFF_H

#include <stdio.h>
#include "base/json.h"

struct diff_opts {
	int top;             /* functions per phase (default 10) */
	const char *out_dir; /* NULL: no files */
	bool quiet;
	struct jw *json;     /* not NULL: the comparison as JSON too (diff.json, report.html) */
};

/* The comparison of two parsed reports as text; returns the number of changes beyond noise,
 * or -EINVAL after an error line (not a muxbpf report, schema too new). */
int diff_reports(FILE *f, const struct jv *old, const struct jv *new, const struct diff_opts *o);
/* The subcommand: argv[0] is "diff".  Exit status: 0 (no change beyond noise), 1 (changes),
 * 2 (usage or input error). */
int diff_main(int argc, char **argv);

#endif /* MUXBPF_DIFF_H */
