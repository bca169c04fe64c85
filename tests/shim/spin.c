// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test-only LD_PRELOAD shim: a known slowdown for muxbpf ab's tests.  Every call netmux makes
 * (through its PLT) to MUXBPF_SHIM_FN — write (default: the replies it sends, once per command
 * in dispatch and softcode_arith, and in every command phase) or modf (once per command in
 * softcode_arith, 49 times in softcode_list, never in create, attrwrite, attrread, dispatch) —
 * first spins MUXBPF_SHIM_SPIN_US microseconds (default 5) in user mode in shim_spin(), on a
 * cycle counter, then calls the real function.  The calls and the CPU the spins took are
 * appended to MUXBPF_SHIM_OUT at exit: the truth the test compares muxbpf's numbers with.
 * Each spin's CPU is read on the thread's clock around that spin, not taken from a calibration:
 * a spin ends by the counter, so one preempted on a busy machine costs less CPU than one that is
 * not (200 spins calibrated at start once gave 82 us for a 100 us spin whose calls in the
 * phase took 97).  The clock reads are syscalls: the part of them inside a reading is counted
 * as injected, which it is.
 * Processes other than netmux (its slaves) are left alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static double (*real_modf)(double, double *);
static unsigned long long calls, cycles_per_us, spin_len;
static unsigned long long spin_cpu_ns; /* the spins' CPU on the thread's clock, summed */
static int on_write, on_modf;

void shim_spin(void);

static unsigned long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * A cycle counter read in user mode (x86-64's TSC, AArch64's virtual counter) and a spin hint.
 * Macros, not inline functions: the spin's every instruction is shim_spin's own line, so a
 * sample in it names shim_spin, not an inlined helper (DWARF names inlined frames).  Both
 * TICKS are expressions (shim_spin's for clauses): AArch64's asm in a statement expression.
 */
#if defined(__aarch64__)
#define TICKS(v) ({ __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v)); })
#define RELAX() __asm__ volatile("yield")
#else
#define TICKS(v) ((v) = __builtin_ia32_rdtsc())
#define RELAX() __asm__ volatile("pause")
#endif

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *us = getenv("MUXBPF_SHIM_SPIN_US"), *fn = getenv("MUXBPF_SHIM_FN");
	int on;
	unsigned long long t0, c0, c1, t1;

	real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_modf = (double (*)(double, double *))dlsym(RTLD_NEXT, "modf");
	on = strcmp(program_invocation_short_name, "netmux") == 0;
	on_modf = on && fn && !strcmp(fn, "modf");
	on_write = on && !on_modf;
	/* the counter's rate against the monotonic clock, over 20 ms */
	t0 = mono_ns();
	TICKS(c0);
	while ((t1 = mono_ns()) - t0 < 20000000)
		;
	TICKS(c1);
	cycles_per_us = (c1 - c0) * 1000 / (t1 - t0);
	spin_len = cycles_per_us * (us ? strtoul(us, NULL, 10) : 5);
}

__attribute__((noinline)) void shim_spin(void)
{
	unsigned long long t0, t;

	TICKS(t0);
	for (TICKS(t); t - t0 < spin_len; TICKS(t))
		RELAX();
}

static void spin_counted(void)
{
	unsigned long long t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	shim_spin();
	spin_cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	calls++;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (on_write)
		spin_counted();
	return real_write(fd, buf, n);
}

double modf(double x, double *ip)
{
	if (on_modf)
		spin_counted();
	return real_modf(x, ip);
}

__attribute__((destructor)) static void shim_fini(void)
{
	const char *path = getenv("MUXBPF_SHIM_OUT");
	FILE *f;

	if (!(on_write || on_modf) || !path || !(f = fopen(path, "ae")))
		return;
	fprintf(f, "pid %d calls %llu spin_ns %llu\n", getpid(), calls, spin_cpu_ns);
	fclose(f);
}
