// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One uprobe hit's cost on this machine (probe_cost.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "loader/probe_cost.h"

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

/* prog as a uprobe at address addr of this process (uprobes are placed by file offset). */
/* A uprobe at addr in this process (ret: a uretprobe on the function at addr). */
static int attach_ret(struct bpf_program *prog, uintptr_t addr, bool ret, struct bpf_link **l)
{
	char path[4097];
	long off;
	int err = probe_cost_file_offset(addr, path, sizeof(path), &off);

	if (err)
		return err;
	*l = bpf_program__attach_uprobe(prog, ret, 0, path, off);
	return *l ? 0 : -errno;
}

static int attach_at(struct bpf_program *prog, uintptr_t addr, struct bpf_link **l)
{
	return attach_ret(prog, addr, false, l);
}

double probe_cost_measure(struct bpf_program *prog)
{
	double bare[PROBE_COST_ROUNDS], probed[PROBE_COST_ROUNDS];
	uintptr_t site = probe_cost_call_site(with_call, leaf);
	struct bpf_link *l;
	int err;

	if (!site)
		return -ENOENT;
	/* one attach for all rounds: attaching and detaching cost ~80 ms each time here */
	err = attach_at(prog, site, &l);
	if (err)
		return err;
	for (int r = 0; r < PROBE_COST_ROUNDS; r++) {
		bare[r] = per_call(bare_call, BARE_CALLS);
		probed[r] = per_call(with_call, PROBED_CALLS);
	}
	bpf_link__destroy(l);
	return probe_cost_from(bare, probed, PROBE_COST_ROUNDS);
}

/* --- the exact mode's pair of probes ------------------------------------------------------ */

#if defined(__x86_64__)
/*
 * A stand-in for process_command and its caller, in assembly so that the probed instructions
 * are the kinds the exact mode probes in netmux: the entry's `push %rbp` (netmux built with
 * or without frame pointers starts with a push), and the `call` right after the call returns.
 * The caller leaves the argument registers alone: the entry program reads the executor (edi),
 * the enactor (edx) and the command text (r9) as in netmux.  The bare twin is never probed.
 */
__asm__(".macro muxbpf_pc_fn name\n"
	".p2align 4\n"
	".globl \\name\n.hidden \\name\n.type \\name, @function\n"
	"\\name:\n"
	".endm\n"
	/* the entry and its caller; the bare twin is the same code under other names */
	".macro muxbpf_pc_pair entry, cmd\n"
	"muxbpf_pc_fn \\entry\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size \\entry, .-\\entry\n"
	"muxbpf_pc_fn \\cmd\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call \\entry\n"
	"	call muxbpf_pc_leaf\n"
	"	pop %rbp\n"
	"	ret\n"
	".size \\cmd, .-\\cmd\n"
	".endm\n"
	".text\n"
	"muxbpf_pc_fn muxbpf_pc_leaf\n"
	"	ret\n"
	".size muxbpf_pc_leaf, .-muxbpf_pc_leaf\n"
	"muxbpf_pc_pair muxbpf_pc_entry, muxbpf_pc_cmd\n"
	"muxbpf_pc_pair muxbpf_pc_entry_bare, muxbpf_pc_cmd_bare\n");

void muxbpf_pc_leaf(void);
void muxbpf_pc_entry(void);
void muxbpf_pc_cmd(long di, long si, long dx, long cx, long r8, const char *r9);
void muxbpf_pc_cmd_bare(long di, long si, long dx, long cx, long r8, const char *r9);

/* What the entry program reads as the command's text: a short one, as in the test games. */
static const char pc_text[] = "probe cost";

/* The stand-in and its twin as plain calls, with the registers netmux's caller would set. */
static void cmd_probed(void)
{
	muxbpf_pc_cmd(0, 0, 0, 0, 0, pc_text);
}

static void cmd_bare(void)
{
	muxbpf_pc_cmd_bare(0, 0, 0, 0, 0, pc_text);
}

int probe_cost_ends(struct bpf_program *entry, struct bpf_program *after, bool ret,
		    const struct probe_ends_ops *ops, struct probe_ends *out)
{
	double bare[PROBE_COST_ROUNDS], probed[PROBE_COST_ROUNDS];
	double inside[PROBE_COST_ROUNDS], own[PROBE_COST_ROUNDS];
	uintptr_t site = probe_cost_call_site((void (*)(void))muxbpf_pc_cmd, muxbpf_pc_leaf);
	struct bpf_link *le = NULL, *la = NULL;
	int err = site ? 0 : -ENOENT;

	if (!err)
		err = attach_at(entry, (uintptr_t)muxbpf_pc_entry, &le);
	if (!err && ret)
		err = attach_ret(after, (uintptr_t)muxbpf_pc_entry, true, &la);
	else if (!err)
		err = attach_at(after, site, &la);
	for (int r = 0; !err && r < PROBE_COST_ROUNDS; r++) {
		bare[r] = per_call(cmd_bare, BARE_CALLS);
		ops->reset(ops->ctx);
		probed[r] = per_call(cmd_probed, PROBED_CALLS);
		err = ops->read(ops->ctx, &inside[r], &own[r]);
	}
	bpf_link__destroy(la);
	bpf_link__destroy(le);
	if (err)
		return err;
	qsort(inside, PROBE_COST_ROUNDS, sizeof(double), cmp);
	qsort(own, PROBE_COST_ROUNDS, sizeof(double), cmp);
	probe_ends_from(probe_cost_from(bare, probed, PROBE_COST_ROUNDS),
			inside[PROBE_COST_ROUNDS / 2], own[PROBE_COST_ROUNDS / 2], out);
	return 0;
}
#else
int probe_cost_ends(struct bpf_program *entry, struct bpf_program *after, bool ret,
		    const struct probe_ends_ops *ops, struct probe_ends *out)
{
	(void)entry, (void)after, (void)ret, (void)ops, (void)out;
	return -EOPNOTSUPP;
}
#endif

static double clamp(double x, double hi)
{
	return x > 0 ? (x < hi ? x : hi) : 0;
}

void probe_ends_from(double pair_ns, double inside_ns, double own_ns, struct probe_ends *out)
{
	out->pair_ns = pair_ns > 0 ? pair_ns : 0;
	out->inside_ns = clamp(inside_ns, out->pair_ns);
	out->own_ns = clamp(own_ns, out->pair_ns - out->inside_ns);
}

double probe_ends_outside(const struct probe_ends *e)
{
	return e->pair_ns - e->inside_ns - e->own_ns;
}

double probe_cost_lower(double a, double b)
{
	if (a < 0)
		return b;
	return b < 0 || a < b ? a : b;
}

void probe_ends_lower(const struct probe_ends *a, const struct probe_ends *b,
		      struct probe_ends *out)
{
	if (a->pair_ns < 0 || b->pair_ns < 0) {
		*out = a->pair_ns < 0 ? *b : *a;
		return;
	}
	probe_ends_from(probe_cost_lower(a->pair_ns, b->pair_ns),
			probe_cost_lower(a->inside_ns, b->inside_ns),
			probe_cost_lower(a->own_ns, b->own_ns), out);
}
