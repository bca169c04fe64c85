// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One uprobe hit's cost on this machine (probe_cost.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "probe_cost.h"

/* Calls per round: bare calls cost nanoseconds, probed ones microseconds. */
#define BARE_CALLS 20000
#define PROBED_CALLS 1000

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double probe_cost_from(double *bare_ns, double *probed_ns, int n)
{
	double d;

	if (n < 1)
		return 0;
	qsort(bare_ns, n, sizeof(double), cmp);
	qsort(probed_ns, n, sizeof(double), cmp);
	d = probed_ns[n / 2] - bare_ns[n / 2];
	return d > 0 ? d : 0;
}

__attribute__((noinline, used)) static void leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The probed instruction: its `call leaf` (the u() probes in netmux sit on calls too). */
__attribute__((noinline, used)) static void with_call(void)
{
	leaf();
	__asm__ volatile("" ::: "memory");
}

/*
 * The same work, never probed: the bare rounds run it while the probe stays attached.  The nop
 * keeps the compiler from folding the two identical functions into one (-fipa-icf).
 */
__attribute__((noinline, used)) static void bare_call(void)
{
	leaf();
	__asm__ volatile("nop" ::: "memory");
}

uintptr_t probe_cost_call_site(void (*fn)(void), void (*callee)(void))
{
	const unsigned char *p = (const unsigned char *)(uintptr_t)fn;

	for (int i = 0; i < 64; i++) {
		int32_t rel;

		memcpy(&rel, p + i + 1, 4);
		if (p[i] == 0xe8 && (uintptr_t)(p + i + 5 + rel) == (uintptr_t)callee)
			return (uintptr_t)(p + i);
	}
	return 0;
}

int probe_cost_file_offset(uintptr_t addr, char *path, size_t size, long *off)
{
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "re");
	int err = -ENOENT;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, o;
		char file[4097] = "";

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4096s", &lo, &hi, &o, file) == 4 &&
		    addr >= lo && addr < hi && file[0] == '/') {
			snprintf(path, size, "%s", file);
			*off = (long)(addr - lo + o);
			err = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return err;
}

/* Thread CPU time per call: another process's load on the machine does not count. */
static double per_call(void (*fn)(void), long n)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < n; i++)
		fn();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

double probe_cost_measure(struct bpf_program *prog)
{
	double bare[PROBE_COST_ROUNDS], probed[PROBE_COST_ROUNDS];
	uintptr_t site = probe_cost_call_site(with_call, leaf);
	struct bpf_link *l;
	char path[4097];
	long off;
	int err;

	if (!site)
		return -ENOENT;
	err = probe_cost_file_offset(site, path, sizeof(path), &off);
	if (err)
		return err;
	/* one attach for all rounds: attaching and detaching cost ~80 ms each time here */
	l = bpf_program__attach_uprobe(prog, false, 0, path, off);
	if (!l)
		return -errno;
	for (int r = 0; r < PROBE_COST_ROUNDS; r++) {
		bare[r] = per_call(bare_call, BARE_CALLS);
		probed[r] = per_call(with_call, PROBED_CALLS);
	}
	bpf_link__destroy(l);
	return probe_cost_from(bare, probed, PROBE_COST_ROUNDS);
}
