/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* muxbpf ab A B: the subcommand and its session (the result: report/ab_result.h). */
#ifndef MUXBPF_AB_H
#define MUXBPF_AB_H

#include <sys/types.h>
#include "report/ab_result.h"

/* Parse `muxbpf ab ...` (argv[0] is "ab").  0, 1 (--help printed), or -EINVAL (usage printed). */
int ab_parse(int argc, char **argv, struct ab_opts *o);
/* --phase's list into o (ab's phases, in ab's order).  0 or -EINVAL (error printed). */
int ab_parse_phase_list(struct ab_opts *o, const char *list);
/* --metric's value into o (instructions, isrc).  0 or -EINVAL (error printed). */
int ab_parse_metric(const char *v, struct ab_opts *o);
/* Run the session, fill r and, with o->out_dir, write the artifacts of both builds there (their
 * folded stacks, flame graphs and profile.pb.gz) and the differential flame graphs.  0 or -errno
 * (error printed). */
int ab_run(const struct ab_opts *o, struct ab_result *r);
void ab_result_free(struct ab_result *r);

struct profiler;
struct reading;
/*
 * The reading at one edge of a block, once pid's netmux sleeps (up to 2 s; a build still busy is
 * read anyway, with a warning naming who): the block's begin switches the profiler to the
 * block's slot, its end to no phase.
 */
int ab_block_reading(struct profiler *p, pid_t pid, const char *who, struct reading *rd,
		     unsigned int phase);

/* The subcommand: argv[0] is "ab".  Exit status: 0 (every phase same), 1 (a phase differs),
 * 2 (usage, or the run failed). */
int ab_main(int argc, char **argv);

#endif /* MUXBPF_AB_H */
