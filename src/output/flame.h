/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A flame graph's tree: stacks (root first) merged by frame label, each node with its inclusive
 * value, and for a differential graph the value of a second (baseline) profile.  Pure.
 */
#ifndef MUXBPF_FLAME_H
#define MUXBPF_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
};

struct flame {
	struct flame_node *v; /* v[0] is the root ("all") */
	size_t n, cap;
	int max_depth;
	long last;      /* the node flame_add() ended at */
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

struct sprof;
struct sp_phase;
/* The tree of one phase: user stacks by samples; with kernel, each call site's kernel time as a
 * "[sys] NAME" frame on top of its user stack, in sample-equivalents (cpu_ns * freq / 1e9). */
int flame_from_phase(struct flame *t, const struct sprof *sp, const struct sp_phase *p,
		     bool kernel);

#endif /* MUXBPF_FLAME_H */
