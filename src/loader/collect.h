/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Read the BPF maps into plain data (profile.h); with collect_ledger.c and collect_live.c, the
 * only readers of the skeleton besides profiler.c. */
#ifndef MUXBPF_COLLECT_H
#define MUXBPF_COLLECT_H

#include "loader/profiler.h"
#include "model/profile.h"

/* Runtime of every thread of the target now (task iterator) plus exited threads.  0 or -errno. */
int collect_runtime(struct profiler *p, struct rt_snapshot *out);
/* Every sample counter with its stack, and the per-phase accounting.  0 or -errno. */
int collect_profile(struct profiler *p, struct mb_profile *out);

#endif /* MUXBPF_COLLECT_H */
