/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Instructions retired by netmux in a block of commands (muxbpf ab --metric instructions and
 * the gate): the noise-free measure CPU time is not on a shared machine.  Two sources, chosen
 * once at start:
 *
 * - pmu: a hardware counter (PERF_COUNT_HW_INSTRUCTIONS, user mode only, inherited by
 *   netmux's threads and children) opened on the paused child before its exec and read at the
 *   block boundaries.  Native speed; no per-function counts (the sampler stays on cpu-clock).
 * - callgrind: netmux runs under valgrind --tool=callgrind; callgrind_control (as the user
 *   netmux runs as: valgrind's control pipes are per user) zeroes the counts before a block
 *   and dumps them after it, and the dump (callgrind.h) gives the total and each function's
 *   self and inclusive instructions.  About 40 times slower than native; the BPF sampler then
 *   sees valgrind's translated code, not netmux's, so function deltas come from the dumps.
 *
 * Kernel time is in neither: the exact time ledger stays beside them.
 */
#ifndef MUXBPF_ICOUNT_H
#define MUXBPF_ICOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "model/callgrind.h"

enum icount_source { ICOUNT_AUTO = 0, ICOUNT_PMU, ICOUNT_CALLGRIND };

const char *icount_source_name(enum icount_source s);
/* "auto", "pmu", "callgrind" -> the source; -EINVAL otherwise. */
int icount_source_parse(const char *s, enum icount_source *out);

/*
 * The choice, pure: forced (ICOUNT_AUTO: none) against what the machine offers: pmu_err = 0
 * when a user-mode instructions counter opened, else the errno of perf_event_open; callgrind
 * = valgrind and callgrind_control found.  The source into *out and why into why.  0, or
 * -ENOTSUP (neither; why says what is missing).
 */
int icount_choose(enum icount_source forced, int pmu_err, bool callgrind,
		  enum icount_source *out, char *why, size_t whysz);
/* Probe this machine and choose (a counter on ourselves; valgrind in PATH).  As above. */
int icount_probe(enum icount_source forced, enum icount_source *out, char *why, size_t whysz);

/*
 * A counter's value scaled for multiplexing: raw x enabled / running (the kernel time-shares
 * counters when there are more events than registers); raw when running is 0 or equal.
 */
double icount_scale(uint64_t raw, uint64_t enabled, uint64_t running);

/* What netmux runs under for callgrind (NULL-terminated argv; static storage), NULL when
 * valgrind is not found. */
const char *const *icount_callgrind_wrap(void);

/* One game's counter. */
struct icount;

/*
 * pmu: open the counter on pid (a paused child: counting starts at its exec).  callgrind: pid
 * runs under icount_callgrind_wrap() in game_dir as user (NULL: as we are).  NULL with errno
 * set (error printed).
 */
struct icount *icount__new(enum icount_source src, pid_t pid, const char *game_dir,
			   const char *user);
/* A block begins: pmu reads the counter, callgrind zeroes the counts.  0 or -errno. */
int icount__begin(struct icount *c);
/*
 * The block ended: its instructions into *instructions and, for callgrind (fns not NULL), the
 * functions of the dump into *fns (cg_profile_free it).  0 or -errno (error printed).
 */
int icount__end(struct icount *c, double *instructions, struct cg_profile *fns);
void icount__free(struct icount *c);

#endif /* MUXBPF_ICOUNT_H */
