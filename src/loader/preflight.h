/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Before anything is created: can this process load and attach muxbpf's programs here?  Each
 * check that fails prints one line naming what is missing (root or which capability, BTF, BPF in
 * the kernel) and how to get it.  The kernel's own refusals later (perf_event_paranoid, the
 * verifier, locked memory) are explained where they happen (profiler.c, preflight_explain_*).
 */
#ifndef MUXBPF_PREFLIGHT_H
#define MUXBPF_PREFLIGHT_H

#include <stdbool.h>
#include <stdint.h>

/* The capabilities muxbpf needs without root (see README, "Without root"). */
#define PREFLIGHT_CAPS "CAP_BPF, CAP_PERFMON"

/* Which of the needed capabilities the effective set lacks: a bit per entry of the list above
 * (bit 0: CAP_BPF, bit 1: CAP_PERFMON); eff is the effective set as capget returns it. Pure. */
unsigned int preflight_missing_caps(uint64_t eff);
/* The names of the missing bits, comma-separated, into buf.  Returns buf. */
const char *preflight_caps_str(unsigned int missing, char *buf, unsigned long size);

/* BTF, capabilities, the bpf() syscall.  Returns 0 or -errno after one error line. */
int preflight_bpf(void);

/* Can the kernel count map elements for us (bpf_map_sum_elem_count, in vmlinux's BTF)?  Decides
 * whether bpf/mapcount.bpf.c's own skeleton is loaded at all. */
bool mapcount_supported(void);

/* After perf_event_open failed with err: the line that says why (paranoid level, capability). */
void preflight_explain_perf(int err, int pid);
/* After a BPF load failed with err (not a verifier rejection): memlock limits, lockdown. */
void preflight_explain_load(int err, const char *prog);

#endif /* MUXBPF_PREFLIGHT_H */
