/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A flame graph's tree: stacks (root first) merged by frame label, each node with its inclusive
 * value, and for a differential graph the value of a second (baseline) profile; and the figures
 * a graph's hover text prints per node (flame_figures), so that the SVG writer only formats.
 * Pure.
 */
#ifndef MUXBPF_FLAME_H
#define MUXBPF_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "base/stats.h"

enum flame_kind { FLAME_USER = 0, FLAME_KERNEL, FLAME_UNNAMED };

struct flame_node {
	char *name;
	uint8_t kind;   /* enum flame_kind */
	int depth;      /* root = 0 */
	double value;   /* inclusive */
	double base;    /* inclusive value in the baseline (differential graphs) */
	double calls, cpu_ns; /* kernel frames: syscalls and on-CPU ns behind value */
	double cpu_var;       /* kernel frames: cpu_ns's variance (its call sites are a sample) */
	long parent, first, next;
	double x;       /* layout: left edge as a fraction of the root */
	/* figures (flame_figures): the node's own value (flame_self); its self and total shares
	 * of the root's value with their 95% intervals (Wilson, widened by the tree's ci_factor);
	 * kernel frames: the half-width of cpu_ns's 95% interval; a differential graph's: the
	 * half-width of the change in share's 95% interval, in points */
	double self;
	struct stats_ci self_ci, total_ci;
	double cpu_half_ns, diff_half;
};

struct flame {
	struct flame_node *v; /* v[0] is the root ("all") */
	size_t n, cap;
	int max_depth;
	long last;      /* the node flame_add() ended at */
	double ci_factor; /* what flame_figures widened Wilson's intervals by (<= 1: Wilson alone) */
};

int flame_init(struct flame *t, const char *root_name);
void flame_free(struct flame *t);
/* Add value along names[0..n) (root first) under the root; base adds to the baseline instead.
 * kinds may be NULL (all user).  0 or -ENOMEM. */
int flame_add(struct flame *t, const char *const *names, const uint8_t *kinds, size_t n,
	      double value, double base);
/* Lay out: x of every node (children ordered by name, as flamegraph.pl does). */
void flame_layout(struct flame *t);

/* Node i's own value: its value less its children's (never below 0). */
double flame_self(const struct flame *t, size_t i);

/*
 * Every node's figures (struct flame_node), the shares' Wilson intervals widened by factor (a
 * phase's batch design factor, report_design_factor; <= 1: Wilson alone).  After flame_layout,
 * before the tree is written.
 */
void flame_figures(struct flame *t, double factor);

struct sprof;
struct sp_phase;
struct report_phase;
/* The tree of one phase: user stacks by samples; with kernel, each call site's kernel time as a
 * "[sys] NAME" frame on top of its user stack, in sample-equivalents (cpu_ns * freq / 1e9). */
int flame_from_phase(struct flame *t, const struct sprof *sp, const struct sp_phase *p,
		     bool kernel);
/* PHASE.svg's tree: flame_from_phase with kernel frames, its figures with the design factor of
 * rp (the report's phase p; NULL: Wilson alone).  0 or -ENOMEM. */
int flame_report_phase(struct flame *t, const struct sprof *sp, const struct sp_phase *p,
		       const struct report_phase *rp);

struct report;
/*
 * The report's flame graphs, computed once for every writer (PHASE.svg, report.html): each
 * phase of r with stacks in r->stacks gets flame_report_phase's tree in its flame.  Nothing
 * without r->stacks.  0 or -ENOMEM.
 */
int report_flames(struct report *r);
/* Free them (report_free does). */
void report_flames_free(struct report *r);

#endif /* MUXBPF_FLAME_H */
