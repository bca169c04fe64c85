/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What long runs need from the BPF side besides the profile: the programs' run-time statistics
 * and muxbpf's own CPU at a boundary (cost readings), and a watch on the maps that can fill
 * (occupancy, checked periodically, with a warning the moment one nears its size or starts
 * dropping).  Includes the skeleton, like collect.c.
 */
#ifndef MUXBPF_COLLECT_LIVE_H
#define MUXBPF_COLLECT_LIVE_H

#include <stdbool.h>
#include "loader/profiler.h"
#include "model/cost.h"

struct muxbpf_bpf;

/* The programs' counters and muxbpf's CPU now.  p may be NULL (only muxbpf's CPU).  Cheap:
 * one bpf_obj_get_info_by_fd per program. */
void cost_read(struct profiler *p, struct mb_cost_reading *out);

struct mapwatch;

/* Start watching p's hash maps.  NULL with errno set. */
struct mapwatch *mapwatch__new(struct profiler *p);
/* Count every watched map and the drop counters now; print a warning the first time a map
 * passes MB_MAP_WARN_PCT and whenever drops grew since the last check.  0 or -errno. */
int mapwatch__check(struct mapwatch *w);
/* The occupancy so far. */
const struct mb_maps_occ *mapwatch__occ(const struct mapwatch *w);
/* "samples 12/65536 (0.0%), ustacks_16 ..." for a status line.  Returns buf. */
const char *mapwatch__line(const struct mapwatch *w, char *buf, size_t size);
void mapwatch__free(struct mapwatch *w);

/* How many of the threads tids have a ledger state (made a syscall since attach). */
int ledger_known_threads(struct profiler *p, const pid_t *tids, int n);

#endif /* MUXBPF_COLLECT_LIVE_H */
