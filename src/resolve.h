/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Symbolize every frame of a profile against the maps snapshots of its phases. */
#ifndef MUXBPF_RESOLVE_H
#define MUXBPF_RESOLVE_H

#include "maps.h"
#include "profile.h"
#include "symbolize.h"

/*
 * frames[i] gets prof->samples[i].nr symbolized frames.  A sample of phase p is looked up in
 * by_phase[p] (the snapshot at p's end) first, then in fallback.  Samples of processes other
 * than pid are not symbolized (their frames are left unnamed, why = no mapping).
 * Returns 0 or -errno; free with resolve_free().
 */
int resolve_profile(struct symbolizer *sym, const struct mb_maps *by_phase,
		    const struct mb_maps *fallback, const struct mb_profile *prof, uint32_t pid,
		    struct mb_sym ***frames);
void resolve_free(struct mb_sym **frames, size_t n);
/* Symbolize nr frames (leaf first) of one stack into out[nr].  0 or -errno. */
int resolve_stack(struct symbolizer *sym, const struct mb_maps *first,
		  const struct mb_maps *fallback, const uint64_t *ips, uint32_t nr,
		  struct mb_sym *out);

#endif /* MUXBPF_RESOLVE_H */
