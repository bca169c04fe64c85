/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The symbolized profile behind the artifacts (folded, flame graphs, pprof, speedscope): frames
 * interned by (file, file offset, name), so stacks from several runs (different address-space
 * layouts) merge; per phase the user stacks with their sample counts, and the kernel time of the
 * ledger's call sites as a syscall frame on top of the call site's user stack.  Built from the
 * symbolized run (sprof_add_run) or from plain frames (tests); the writers only read it.
 */
#ifndef MUXBPF_SPROF_H
#define MUXBPF_SPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "muxbpf.h"
#include "symbols/symbolize.h"

#define SP_BUILD_ID_MAX 64 /* hex digits */

struct sp_map {
	char *path;                           /* as in /proc/PID/maps ("[vdso]", "[anon]", ...) */
	char build_id[SP_BUILD_ID_MAX + 1];   /* hex, "" when unknown */
	uint64_t size;                        /* file size, 0 when not a readable file */
};

struct sp_frame {
	char *name;      /* function, NULL when unnamed (user) or the syscall (kernel) */
	int32_t map;     /* index in sprof.maps, -1 for none (and for kernel frames) */
	uint32_t why;    /* enum mb_unnamed */
	uint64_t offset; /* file offset of the address (return addresses: of the call) */
	uint64_t sym_off;
	bool kernel;     /* "[sys] NAME": kernel time of a syscall, from the ledger */
	char *file;      /* source file (DWARF), or NULL */
	uint32_t line;   /* 0 when unknown */
	uint16_t inline_depth; /* 0: a physical function; k: inlined k levels into it, at the
				* same address as the frames after it down to depth 0 */
	char *label;     /* display label: the report's function name for this frame */
};

struct sp_stack {
	uint32_t *frames; /* leaf first */
	uint32_t nr;
	uint64_t count;   /* user samples */
};

/* Kernel time of one syscall at one user call site, summed over runs. */
struct sp_site {
	uint32_t frame;   /* the "[sys] NAME" frame */
	/* calls, cpu_ns, wall_ns: the syscall's exact totals apportioned by the sampled sites */
	uint32_t *frames; /* the call site's user stack, leaf first (may be empty) */
	uint32_t nr;
	uint64_t calls, cpu_ns, wall_ns;
	double cpu_var; /* cpu_ns's variance (ns^2): the sites' split is a sample, 1 call in N */
};

struct sp_phase {
	unsigned int id;
	struct sp_stack *stacks;
	size_t nstacks, cap;
	size_t *index;    /* open addressing over stacks: index + 1 */
	size_t index_size;
	struct sp_site *sites;
	size_t nsites;
	uint64_t samples; /* sum of stacks' counts */
	uint64_t sys_cpu_ns; /* sum of sites' cpu_ns */
};

struct sprof {
	struct sp_frame *frames;
	size_t nframes, frames_cap;
	size_t *frame_index;
	size_t frame_index_size;
	struct sp_map *maps;
	size_t nmaps;
	struct sp_phase phases[MUXBPF_MAX_PHASES]; /* by phase id */
	bool has[MUXBPF_MAX_PHASES];
	unsigned int order[MUXBPF_MAX_PHASES];    /* ids in the order first seen */
	int nphases;
	int freq;  /* sampling frequency: a user sample stands for 1e9 / freq ns */
	int nruns;
};

void sprof_init(struct sprof *sp, int freq);
void sprof_free(struct sprof *sp);
/* The phase record for id (created empty when new); NULL on ENOMEM or a bad id. */
struct sp_phase *sprof_phase(struct sprof *sp, unsigned int id);
/* Add count samples of a stack of nr symbolized frames (leaf first).  0 or -ENOMEM. */
int sprof_add_sample(struct sprof *sp, unsigned int phase, const struct mb_sym *frames,
		     uint32_t nr, uint64_t count);
/*
 * Add a syscall's kernel time at a call site with this user stack (nr may be 0); cpu_var: the
 * variance of cpu_ns (0 when exact).  Sites with the same stack add up, variances too.
 */
int sprof_add_site(struct sprof *sp, unsigned int phase, const char *syscall,
		   const struct mb_sym *frames, uint32_t nr, uint64_t calls, uint64_t cpu_ns,
		   uint64_t wall_ns, double cpu_var);
/* The label a frame gets in the report's tables: its name or "[unnamed: DSO, REASON]". */
void sprof_frame_label(const struct mb_sym *f, char *buf, size_t size);
/* Nanoseconds one user sample stands for. */
double sprof_period_ns(const struct sprof *sp);

struct mb_profile;
struct mb_resolved;
struct mb_rstack;
struct phase_ledger;
struct sample_index;
struct sc_data;

/* One run as assemble.c resolved it, for sprof_add_run. */
struct sprof_run {
	const struct mb_profile *prof;  /* the samples (phase, pid, count) */
	const struct mb_resolved *res;  /* their frames, as resolve_profile() gives them */
	uint32_t pid;                   /* the target: other processes' samples are left out */
	int nphases;
	const unsigned int *ids;        /* the report's phases, in its order */
	const struct phase_ledger *const *ledgers; /* per phase, NULL without a ledger */
	const struct mb_rstack *const *sites; /* per phase, the frames of ledgers[i]->sites[j] */
	const struct sc_data *softcode; /* --by softcode: the command thread's softcode frames */
	const struct sample_index *ix;  /* with softcode: its samples by (phase, stack) */
	/* with softcode: adds the command thread's samples with their softcode frames, after the
	 * other samples (report/sprof_softcode.h's sprof_add_softcode) */
	int (*add_softcode)(struct sprof *sp, const struct sprof_run *run);
	unsigned int site_every;        /* the ledger walked 1 call in site_every (0: none) */
};
/* Add one run: its samples and the kernel time of its ledgers by call site. */
int sprof_add_run(struct sprof *sp, const struct sprof_run *run);

#endif /* MUXBPF_SPROF_H */
