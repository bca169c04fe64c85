/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Symbolize every frame of a profile against the maps snapshots of its phases. */
#ifndef MUXBPF_RESOLVE_H
#define MUXBPF_RESOLVE_H

#include "proc/maps.h"
#include "model/profile.h"
#include "symbols/symbolize.h"

/*
 * One sample's stack, symbolized: frames[0..n) leaf first, each address expanded into its
 * inline chain (innermost first, then the physical function with inline_depth 0).  Every frame
 * is a struct mb_sym (symbolize.h): the raw truth (dso, build_id, offset, ip_index,
 * inline_depth) and the names (name, sym_off, file, file_rel, line, column, why, info).
 * Frames with ip_index k came from the sample's ips[k]; n >= the sample's nr.
 */
struct mb_rstack {
	struct mb_sym *frames;
	uint32_t n;
};

struct mb_resolved {
	struct mb_rstack *stacks; /* stacks[i] for prof->samples[i] */
	size_t n;
};

/*
 * Symbolize every sample of pid.  A sample of phase p is looked up in by_phase[p] (the snapshot
 * at p's end) first, then in the snapshots before it, nearest first (a module unloaded during
 * p was mapped at the previous end), then in those after it, then in fallback.  by_phase has
 * MUXBPF_MAX_PHASES entries (empty ones are skipped).  Samples of processes other than pid are
 * not symbolized (one unnamed frame per address, why = no mapping).
 * Returns 0 or -errno; free with resolve_free().
 */
int resolve_profile(struct symbolizer *sym, const struct mb_maps *by_phase,
		    const struct mb_maps *fallback, const struct mb_profile *prof, uint32_t pid,
		    struct mb_resolved *out);
void resolve_free(struct mb_resolved *r);
/* Symbolize nr addresses (leaf first) of one stack into out[nr], one frame per address (the
 * physical function, no inline expansion).  0 or -errno. */
int resolve_stack(struct symbolizer *sym, const struct mb_maps *first,
		  const struct mb_maps *fallback, const uint64_t *ips, uint32_t nr,
		  struct mb_sym *out);

/*
 * One thread's samples by (phase, stack): the join of a table keyed by stack (the softcode
 * counts) with the samples and their resolved stacks (the same index i).  Free with
 * sample_index_free().
 */
struct sample_index {
	size_t *slots; /* sample index + 1, 0: empty */
	size_t size;   /* a power of two */
};

/* The samples of thread tid of process pid.  0 or -ENOMEM. */
int sample_index_build(struct sample_index *ix, const struct mb_profile *prof, uint32_t pid,
		       uint32_t tid);
/* The index in prof->samples of the indexed thread's sample of (phase, ips[0..nr)), or -1. */
long sample_index_find(const struct sample_index *ix, const struct mb_profile *prof,
		       uint32_t phase, const uint64_t *ips, uint32_t nr);
void sample_index_free(struct sample_index *ix);

#endif /* MUXBPF_RESOLVE_H */
