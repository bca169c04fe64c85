/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * CFI unwind tables for the BPF walker (bpf/unwind.bpf.c): compile each executable mapping's
 * CFI once per build-id (src/cfi.c), write the rows into the mmapped rows/rules arrays, and keep
 * one record of mapping ranges per process.  A thread serves the walker's reload requests (a
 * ring buffer: a sample's pc was in no known mapping, e.g. after exec or dlopen) and rechecks
 * known processes' maps twice a second.  No skeleton here: profiler.c passes map fds.
 *
 * Life: unwinder__new -> unwinder__prepare(exe) (optional: prebuild the exe's and its
 * libraries' tables) -> unwinder__capacity (map sizes for open->load) -> load the skeleton ->
 * unwinder__start(fds) -> ... -> unwinder__free.
 */
#ifndef MUXBPF_UNWIND_H
#define MUXBPF_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "model/profile.h"

struct unwinder;

struct unwinder_maps {
	int rows_fd, infos_fd, index_fd, pids_fd, procs_fd, reqs_fd;
};

/* Entries of the rows, rules and page index arrays. */
struct unwinder_caps {
	uint32_t rows, infos, index;
};

struct unwinder *unwinder__new(int mode);
/* Build the tables of exe, its interpreter and the libraries it needs (DT_NEEDED, searched in
 * exe's directory, its RUNPATH and the system directories).  0 or -errno. */
int unwinder__prepare(struct unwinder *u, const char *exe);
/* Entries for the arrays: what is prepared, doubled, plus room for dlopen. */
void unwinder__capacity(const struct unwinder *u, struct unwinder_caps *cap);
/* mmap the arrays (loaded with the capacities in cap), start serving requests.  0 or -errno. */
int unwinder__start(struct unwinder *u, const struct unwinder_maps *m,
		    const struct unwinder_caps *cap);
/* Load pid's current mappings now (the thread does this on request).  0 or -errno. */
int unwinder__refresh(struct unwinder *u, pid_t pid);
void unwinder__summary(struct unwinder *u, struct mb_unwind_summary *out);
/* Keep BPF run-time statistics on (bpf_enable_stats) for the unwinder's life: the cost per
 * sample goes into the report.  0 or -errno. */
int unwinder__enable_stats(struct unwinder *u);
/* Drop this unwinder's hold on the statistics (bench/stats_cost.c measures what they cost). */
void unwinder__disable_stats(struct unwinder *u);
/*
 * The serving thread's pace: it waits up to poll_ms for requests (also the longest wait in
 * unwinder__free) and rereads every known process's maps each recheck_ms (default 50 / 500).
 * Long runs slow it down: requests still come at once, only the rechecks for mappings
 * replaced in place are rarer.
 */
void unwinder__set_pace(struct unwinder *u, int poll_ms, int recheck_ms);
void unwinder__free(struct unwinder *u);

#endif /* MUXBPF_UNWIND_H */
