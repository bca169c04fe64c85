/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Read the ledger maps into plain data (ledger.h). */
#ifndef MUXBPF_COLLECT_LEDGER_H
#define MUXBPF_COLLECT_LEDGER_H

#include "loader/profiler.h"
#include "model/ledger.h"

/* Every ledger map at the end of a run.  0 or -errno. */
int collect_ledger(struct profiler *p, struct mb_ledger_data *d);
/* The per-thread states now (calls in flight); read while the target sleeps.  0 or -errno. */
int collect_inflight(struct profiler *p, struct mb_inflight *f);

/*
 * The syscalls of phase so far, mid-window (a batch mark while the target sleeps), exact: the
 * map and the threads' tables of returned calls, and the calls in flight now counted to t_ns,
 * cumulative from the window's opening boundary from, as the window's ledger will book them
 * (rt: the runtime read at t_ns).  *rows (*n of them, malloc'd) sorted as ledger_build sorts.
 * 0 or -errno.
 */
int collect_sys_mark(struct profiler *p, unsigned int phase, uint32_t pid,
		     const struct mb_boundary *from, uint64_t t_ns, const struct rt_snapshot *rt,
		     struct ledger_sys_row **rows, size_t *n);

#endif /* MUXBPF_COLLECT_LEDGER_H */
