// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What one uprobe hit costs the probed process here, by the kind of instruction it sits on:
 * the softcode views put theirs on `call` instructions and on function entries (`push %rbp`),
 * which the kernel emulates; any other instruction is single-stepped out of line (two traps).
 * Each probe carries mb_sc_ufun_exit (bpf/softcode.bpf.c) with the views off: the program
 * returns after one compare, so the figure is the trap itself.  The probed functions run in a
 * loop in this process; probed and bare loops alternate for several rounds.
 *
 *   build/bench/uprobe_cost [ROUNDS (5)] [CALLS (200000)]
 *
 * Prints ns per call, min / median / max over the rounds, bare and probed, and the median
 * difference: ns per hit.  Needs root (or CAP_BPF + CAP_PERFMON).  It measures; it passes or
 * fails on nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "muxbpf.h"
#include "muxbpf.skel.h"
#include "loader/probe_cost.h"

#define MAX_ROUNDS 32

__attribute__((noinline)) void leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

/* A call instruction (emulated) */
__attribute__((noinline)) void with_call(void)
{
	leaf();
	__asm__ volatile("" ::: "memory");
}

/* push %rbp at the entry (emulated), as netmux's functions start with frame pointers */
int with_push(int x);
__asm__(".text\n"
	".globl with_push\n"
	".type with_push, @function\n"
	"with_push:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 1(%rdi), %eax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size with_push, . - with_push\n");

/* lea at the entry: single-stepped out of line */
__attribute__((noinline)) int with_lea(int x)
{
	return x * 3 + 1;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static volatile int sink;

static double loop(int kind, long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		if (kind == 0)
			with_call();
		else if (kind == 1)
			sink += with_push((int)i);
		else
			sink += with_lea((int)i);
	}
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	static const char *const what[] = { "call (emulated)", "push %rbp (emulated)",
					    "lea (single-stepped)" };
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	long calls = argc > 2 ? atol(argv[2]) : 200000;
	struct muxbpf_bpf *skel;
	uintptr_t where[3];

	if (rounds < 1 || rounds > MAX_ROUNDS || calls < 1000) {
		fprintf(stderr, "usage: uprobe_cost [ROUNDS 1-%d] [CALLS >= 1000]\n", MAX_ROUNDS);
		return 2;
	}
	libbpf_set_print(NULL);
	skel = muxbpf_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "uprobe_cost: failed to load the BPF programs: %s\n", strerror(errno));
		return 1;
	}
	where[0] = probe_cost_call_site(with_call, leaf);
	where[1] = (uintptr_t)with_push;
	where[2] = (uintptr_t)with_lea;
	printf("uprobe cost per hit (program mb_sc_ufun_exit with the views off), %d rounds of "
	       "%ld calls\n%-22s %28s %28s %9s\n", rounds, calls, "probe on", "bare ns/call min/med/max",
	       "probed ns/call min/med/max", "ns/hit");
	for (int k = 0; k < 3; k++) {
		double bare[MAX_ROUNDS], probed[MAX_ROUNDS];
		char path[4097];
		long off = -1;

		if (!where[k] || probe_cost_file_offset(where[k], path, sizeof(path), &off)) {
			printf("%-22s (not found in this build)\n", what[k]);
			continue;
		}
		for (int r = 0; r < rounds; r++) {
			struct bpf_link *l;

			bare[r] = loop(k, calls);
			l = bpf_program__attach_uprobe(skel->progs.mb_sc_ufun_exit, false, 0,
						       path, off);
			if (!l) {
				fprintf(stderr, "uprobe_cost: attach failed: %s\n", strerror(errno));
				muxbpf_bpf__destroy(skel);
				return 1;
			}
			probed[r] = loop(k, calls / 10);
			bpf_link__destroy(l);
		}
		qsort(bare, rounds, sizeof(double), cmp);
		qsort(probed, rounds, sizeof(double), cmp);
		printf("%-22s %8.1f %8.1f %8.1f     %8.1f %8.1f %8.1f     %9.1f\n", what[k], bare[0],
		       bare[rounds / 2], bare[rounds - 1], probed[0], probed[rounds / 2],
		       probed[rounds - 1], probed[rounds / 2] - bare[rounds / 2]);
	}
	printf("machine: %ld CPUs online; shared: other processes may run (compare rounds)\n",
	       sysconf(_SC_NPROCESSORS_ONLN));
	muxbpf_bpf__destroy(skel);
	return 0;
}
