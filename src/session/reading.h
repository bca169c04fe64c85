/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What run.c and live.c share about the data of a session (session.h): the BPF side of a
 * boundary reading (ab.c's blocks take theirs the same way), the maps snapshot at a phase's end, the collection at the end of a run,
 * and freeing it all.  How long to wait for the target to sleep, and what stands in once it is
 * gone, stay with the callers.
 */
#ifndef MUXBPF_READING_H
#define MUXBPF_READING_H

#include "loader/profiler.h"
#include "session/opts.h"
#include "session/session.h"

/*
 * The one reading protocol at a boundary, for run, live and ab alike: the time
 * (CLOCK_MONOTONIC), the switch to phase, then the runtime per thread and the calls in flight
 * (nothing when p is NULL: --no-profile).  The calls in flight are read as of the last switch,
 * so switching first reads them at this boundary however long the reading takes.  rd's arrays
 * are replaced.  0 or -errno (rd then holds no arrays).
 */
int reading_collect(struct profiler *p, struct reading *rd, unsigned int phase);
/* A deep copy: one reading closes a window and opens the next, with no gap.  0 or -ENOMEM. */
int reading_copy(struct reading *to, const struct reading *from);
void reading_free(struct reading *rd);

/* The files r->pid maps now, as the snapshot of phase id and as r->last_maps; they are held
 * open from here on.  0 or -errno from reading /proc/PID/maps (nothing printed). */
int session_snapshot_maps(struct run *r, unsigned int id);
/*
 * The samples of phase so far, folded into views as the report will fold them (pid's samples,
 * symbolized with sym against r's maps snapshots): what a round's end reads.  0 or -errno.
 */
int session_fold_phase(struct profiler *p, struct symbolizer *sym, const struct run *r,
		       unsigned int phase, unsigned int views, struct fold_table *out);
/* The views the report folds: --by, and with --out all of them (report.html shows them). */
unsigned int session_views(const struct opts *o);
/* A symbolizer with --debug-dir before the standard directory, reading the files the run
 * pinned (they may be unmapped or gone by now).  NULL with errno set. */
struct symbolizer *session_symbolizer(const struct opts *o, const struct run *run);
/* The softcode views' options from the command line's. */
struct softcode_opts session_softcode_opts(const struct opts *o);

/* The profile and the ledger from the maps, at the end of a run.  0 or -errno. */
int session_collect(struct profiler *p, struct run *r);

void run__free(struct run *r);

#endif /* MUXBPF_READING_H */
