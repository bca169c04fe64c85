/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What main() runs once the command line is parsed and the signals are installed: the sessions,
 * the report built from them, its output and its checks.  Each returns the exit code: 0, 1 (a
 * failed phase or check), or 128 + the signal that interrupted the run.
 */
#ifndef MUXBPF_PIPELINE_H
#define MUXBPF_PIPELINE_H

#include "session/opts.h"

/* One session: a throwaway game (run.c), or a running process (--attach, live.c). */
int pipeline_one(const struct opts *o);
/* --runs N: N whole runs, each on a fresh game, merged into one report with the spread. */
int pipeline_many(const struct opts *o);

#endif /* MUXBPF_PIPELINE_H */
