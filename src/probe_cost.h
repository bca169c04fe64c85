/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What one hit of our uprobes costs the probed thread on this machine, measured at start.
 *
 * netmux's task clock counts the kernel's trap for each hit, and the user-mode samples do not,
 * so the exact mode removes its hits' cost from each command (src/softcode_rows.c).  A hit
 * costs ~1 us on bare metal and 5-12 us in the project's VMs, where every trap leaves the
 * guest's kernel: no constant serves both.  The cost is measured on muxbpf's own thread, with
 * the same program on the same kind of instruction (a `call`, which the kernel emulates) as
 * the u() probes in netmux: thread CPU time per call, probed and bare, in alternating rounds.
 */
#ifndef MUXBPF_PROBE_COST_H
#define MUXBPF_PROBE_COST_H

#include <stddef.h>
#include <stdint.h>

struct bpf_program;

/* Rounds of probed and bare calls; the estimate is the difference of their medians. */
#define PROBE_COST_ROUNDS 7

/*
 * ns per hit from per-call times of n rounds each (sorted in place): median probed - median
 * bare, and 0 when that is negative (noise on a machine where a hit is nearly free).  Pure.
 */
double probe_cost_from(double *bare_ns, double *probed_ns, int n);
/* The address of fn's first `call callee` (within its first 64 bytes), or 0. */
uintptr_t probe_cost_call_site(void (*fn)(void), void (*callee)(void));
/* The mapped file holding address addr of this process, and addr's offset in it (uprobes are
 * placed by file offset).  0 or -ENOENT. */
int probe_cost_file_offset(uintptr_t addr, char *path, size_t size, long *off);
/*
 * Measure prog's cost per hit on a `call` in this executable (prog must return at once on
 * this thread).  ns per hit, or a negative errno (no call site, the attach failed).
 */
double probe_cost_measure(struct bpf_program *prog);

#endif
