/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What our uprobes cost the probed thread on this machine, measured at start and at the end.
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

#include <stdbool.h>
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

/*
 * The exact mode's pair: a probe on process_command's entry and one on the call after it
 * returns.  A command's time runs from the entry program's second task clock read (after its
 * own work, which is in no command and which BPF measures exactly) to the return program's
 * read: it holds the entry trap's tail and the return trap's head, the time between commands
 * the rest.  That part inside is measured here, on a stand-in with the same instructions (a
 * push at the entry, a call after the call) running the exact mode's own programs on this
 * thread: one number for all commands (the lower of two, at start and at the end).  netmux's
 * traps run at other moments, after other work: fitted to the samples of tests/e2e/softcode.sh's
 * game (bench/softcode_fit.sh), netmux's part inside was x0.90 to x1.24 of one measurement at
 * start over seven sets of runs, so the exact times keep or lose up to ~1.5 us a command of our
 * probes.
 * Cooling the caches before each call here (a walk over 1 MiB) did not make it closer and
 * made the measurement itself vary by 2x beside other work: it is not done.
 */
struct probe_ends {
	double pair_ns;   /* both hits' whole cost to the thread: thread CPU per call, probed - bare */
	double inside_ns; /* the part between the two programs' clock reads */
	double own_ns;    /* the entry program's own work between its two reads */
};

/* The caller's side: the programs write their segments into maps this code does not know. */
struct probe_ends_ops {
	void (*reset)(void *ctx); /* before a round's probed calls: clear the segments */
	/* after them: ns per segment inside, and the entry program's own ns; 0 or -errno */
	int (*read)(void *ctx, double *inside_ns, double *own_ns);
	void *ctx;
};

/*
 * Attach entry and after to the stand-in (ret: after as a uretprobe on the entry's function,
 * where netmux's exact mode uses one), run PROBE_COST_ROUNDS rounds of bare and probed
 * calls, and give the medians' difference and the medians of ops->read (probe_ends_from).  The
 * programs must take this thread for netmux's command thread while it runs.  0, or a negative
 * errno (not x86-64, the attach failed, ops->read failed).
 */
int probe_cost_ends(struct bpf_program *entry, struct bpf_program *after, bool ret,
		    const struct probe_ends_ops *ops, struct probe_ends *out);
/* out from the measured parts, each kept within what the pair leaves (noise). Pure. */
void probe_ends_from(double pair_ns, double inside_ns, double own_ns, struct probe_ends *out);
/* The pair's part between commands: neither inside nor the entry program's own work. Pure. */
double probe_ends_outside(const struct probe_ends *e);

/*
 * Two measurements, at start and at the end of a session: the lower.  A burst of other work on
 * the machine inflates a measurement (it made 3 of 24 runs of the softcode test game miss), and
 * the two are minutes apart.  A negative one (not measured) does not count.  Pure.
 */
double probe_cost_lower(double a, double b);
/* The same for the pair, part by part (then kept within what the pair leaves). Pure. */
void probe_ends_lower(const struct probe_ends *a, const struct probe_ends *b,
		      struct probe_ends *out);

#endif
