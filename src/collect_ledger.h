/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Read the ledger maps into plain data (ledger.h). */
#ifndef MUXBPF_COLLECT_LEDGER_H
#define MUXBPF_COLLECT_LEDGER_H

#include "profiler.h"
#include "ledger.h"

/* Every ledger map at the end of a run.  0 or -errno. */
int collect_ledger(struct profiler *p, struct mb_ledger_data *d);
/* The per-thread states now (calls in flight); read while the target sleeps.  0 or -errno. */
int collect_inflight(struct profiler *p, struct mb_inflight *f);

#endif /* MUXBPF_COLLECT_LEDGER_H */
