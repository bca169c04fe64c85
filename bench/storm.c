// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The syscall storm: ns per syscall(SYS_geteuid) of the target and of a bystander process (not
 * the target) under each configuration, interleaved in rounds so that host noise hits them
 * alike.  The floor first: empty programs and programs that only compare the tgid, on the same
 * two tracepoints (raw_tp and tp_btf), show what the tracepoints cost before any ledger work.
 *
 *   build/bench/storm [ROUNDS [CALLS [icount]]]     (default 5 rounds of 2,000,000 calls)
 *
 * Prints per configuration the best and median CPU ns per call (the looper's own runtime, so
 * that time preempted by other work on a shared machine is left out) over the rounds, the
 * median's ratio to bare and the ns added per call.  Needs root (or CAP_BPF + CAP_PERFMON).
 * The fentry rows (a tgid filter as fentry/fexit on x64_sys_call, and the default ledger, whose
 * hook is auto: fentry there) need a kernel that traces x64_sys_call (Debian's 6.1 and 6.12);
 * elsewhere the filter's row says n/a and the default runs on the tracepoints.  The hooks a
 * 6.15+ kernel leaves (its dispatcher is not traceable): the tgid filter as fentry/fexit on
 * __x64_sys_geteuid, the storm's own syscall function, and as kprobe.multi + return on every
 * __x64_sys_* function; n/a where the kernel refuses them.  Before the rounds, what it costs to
 * hook every __x64_sys_* function each way ("attach:" lines).
 *
 * Each batch of calls sits between the markers of bench/qemu/icount_mark.h (no-ops on
 * hardware), so that in a guest under the icount_window QEMU plugin every batch is one window
 * of counted instructions.  "icount" (bench/guest_icount.sh) samples at 1 Hz instead of 997,
 * so that the sampler, which fires on emulated time, stays out of the counts, idles a second
 * before each counted batch (settle()), and prints which window each measured batch was
 * ("icount window N: CONFIGURATION|PROCESS|CALLS|CPU NS PER CALL") and each ledger's hook.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "loader/calib.h"
#include "loader/profiler.h"
#include "loader/syscall_hook.h"
#include "model/ledger.h"
#include "loader/collect_live.h"
#include "base/clock.h"
#include "base/log.h"
#include "floor.h"
#include "sysfn.h"
#include "qemu/icount_mark.h"

enum {
	BARE,
	EMPTY_RAW,   /* raw_tp sys_enter + sys_exit: r0 = 0; exit */
	EMPTY_BTF,   /* the same as tp_btf */
	FILTER_BTF,  /* tp_btf: compare the tgid, exit (the bystander's whole path) */
	SAMPLER,     /* muxbpf attach --no-syscalls */
	NOSTATS,     /* the ledger without BPF run-time statistics, no calibration */
	STATS,       /* statistics all through (--bpf-stats, the default before 2026-12-01) */
	DEFAULT,     /* the defaults: statistics for the calibration window only (hook: auto) */
	FILTER_FENTRY, /* fentry + fexit on x64_sys_call: compare the tgid, exit (n/a: refused) */
	DEFAULT_TP,  /* the defaults with --syscall-hook tracepoint */
	NOSITES,     /* the defaults without call-site walks (--site-every 0; hook: auto) */
	FILTER_SYSFN, /* fentry + fexit on geteuid's own function only: compare the tgid, exit */
	FILTER_KMULTI, /* kprobe.multi + return on every __x64_sys_*: compare the tgid, exit */
	NCONF
};
static const char *const conf_name[NCONF] = {
	"bare", "empty raw_tp", "empty tp_btf", "tgid filter tp_btf", "sampler only",
	"--no-bpf-stats", "--bpf-stats", "default (auto hook)", "tgid filter fentry",
	"default, tracepoint", "default, no call sites", "tgid filter fentry sysfn",
	"tgid filter kprobe.multi",
};

/* The looper's own CPU time (the kernel's runtime): time it sits preempted on this shared
 * machine is not in it. */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A process that waits for a count, makes that many geteuid calls, reports ns per call. */
static pid_t spawn_looper(int *cmd_fd, int *res_fd)
{
	int cmd[2], res[2];
	pid_t pid;

	if (pipe(cmd) || pipe(res))
		return -1;
	pid = fork();
	if (pid == 0) {
		long n;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (read(cmd[0], &n, sizeof(n)) == sizeof(n) && n > 0) {
			double t0 = cpu_ns(), per;

			ICOUNT_OPEN_MARK();
			for (long i = 0; i < n; i++)
				syscall(SYS_geteuid);
			ICOUNT_CLOSE_MARK();
			per = (cpu_ns() - t0) / n;
			if (write(res[1], &per, sizeof(per)) != sizeof(per))
				break;
		}
		_exit(0);
	}
	close(cmd[0]);
	close(res[1]);
	*cmd_fd = cmd[1];
	*res_fd = res[0];
	return pid;
}

static int windows; /* batches run so far: the icount plugin's window numbers */

static double run_calls(int cmd_fd, int res_fd, long n)
{
	double per = -1;

	windows++;
	if (write(cmd_fd, &n, sizeof(n)) != sizeof(n) || read(res_fd, &per, sizeof(per)) != sizeof(per))
		return -1;
	return per;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The per-syscall functions and their addresses (bench/sysfn.h), for the 6.15+ hooks' rows */
struct sysfns {
	struct sysfn *v;
	unsigned long *addrs;
	int n;
};

/* The floor pair of configuration C (FILTER_FENTRY, _SYSFN, _KMULTI) into LINKS; both -1
 * where the kernel refuses either. */
static void hook_pair(int c, pid_t target, const struct sysfns *sf, int links[2])
{
	const struct sysfn *own = sysfn_find(sf->v, sf->n, "geteuid");
	const char *fn = own && own->btf[0] ? own->btf : SYSFN_PREFIX "geteuid";

	for (int ret = 0; ret < 2; ret++) {
		links[ret] = c == FILTER_FENTRY ? load_fentry_floor(ret, "x64_sys_call", target)
			     : c == FILTER_SYSFN ? load_fentry_floor(ret, fn, target)
			     : sf->n > 0	 ? load_kmulti_floor(ret, sf->addrs, sf->n, target)
						 : -1;
		if (links[ret] < 0)
			break;
	}
	if (links[0] >= 0 && links[1] < 0) {
		close(links[0]);
		links[0] = -1;
	}
}

/*
 * What hooking every per-syscall function costs to set up and take down: fentry + fexit on
 * each that BTF names (two programs loaded and attached per function), and kprobe.multi +
 * return over all of them (two programs, two links).  Printed, not counted in the storm.
 */
static void attach_cost(const struct sysfns *sf, pid_t tgid, bool emulated)
{
	const char *clock = emulated ? " (guest clock, emulated)" : "";
	int *fds = calloc(2 * (size_t)sf->n + 2, sizeof(*fds)), got = 0, named = 0;
	char refused[256] = "";
	double t0, t1, t2;

	if (!fds)
		return;
	t0 = mono_ms();
	for (int i = 0; i < sf->n; i++) {
		if (!sf->v[i].btf[0])
			continue;
		named++;
		for (int ret = 0; ret < 2; ret++) {
			size_t len = strlen(refused);

			if ((fds[got] = load_fentry_floor(ret, sf->v[i].btf, tgid)) >= 0)
				got++;
			else if (len + 80 < sizeof(refused))
				snprintf(refused + len, sizeof(refused) - len, "%s %s %s",
					 len ? "," : "; refused:", ret ? "fexit" : "fentry",
					 sf->v[i].btf);
		}
	}
	t1 = mono_ms();
	for (int i = 0; i < got; i++)
		close(fds[i]);
	t2 = mono_ms();
	printf("attach: fentry + fexit on the %d of %d " SYSFN_PREFIX "* functions BTF names: "
	       "%d of %d links, %.1f ms to load and attach, %.1f ms to close%s%s\n", named, sf->n,
	       got, 2 * named, t1 - t0, t2 - t1, clock, refused);
	t0 = mono_ms();
	fds[0] = load_kmulti_floor(false, sf->addrs, sf->n, tgid);
	fds[1] = fds[0] < 0 ? -1 : load_kmulti_floor(true, sf->addrs, sf->n, tgid);
	t1 = mono_ms();
	if (fds[1] < 0)
		printf("attach: kprobe.multi on %d " SYSFN_PREFIX "* functions: refused (%s)\n",
		       sf->n, strerror(errno));
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	t2 = mono_ms();
	if (fds[1] >= 0)
		printf("attach: kprobe.multi + return on %d " SYSFN_PREFIX "* functions: 2 links, "
		       "%.1f ms to load and attach, %.1f ms to close%s\n", sf->n, t1 - t0, t2 - t1,
		       clock);
	free(fds);
}

/* The per-syscall functions into SF, and what hooking them all costs; an empty SF where they
 * cannot be listed. */
static void sysfns_load(struct sysfns *sf, pid_t tgid, bool emulated)
{
	sf->n = sysfn_list(&sf->v);
	if (sf->n <= 0) {
		printf("attach: no " SYSFN_PREFIX "* function listed (tracefs's "
		       "available_filter_functions: %s): not measured\n",
		       sf->n < 0 ? strerror(errno) : "none");
		sf->n = 0;
		return;
	}
	sf->addrs = calloc(sf->n, sizeof(*sf->addrs));
	if (!sf->addrs) {
		sf->n = 0;
		return;
	}
	for (int i = 0; i < sf->n; i++)
		sf->addrs[i] = sf->v[i].addr;
	attach_cost(sf, tgid, emulated);
}

/*
 * Before a counted batch: a second idle, so that the work the kernel defers from loading and
 * freeing programs (RCU callbacks, trampoline images, map frees) runs outside the window; and
 * with a profiler, the hook it chose.
 */
static void settle(struct profiler *p, const char *conf)
{
	struct syscall_hook_info h;

	if (p && profiler__has_ledger(p)) {
		profiler__syscall_hook(p, &h);
		printf("icount hook: %s: %s (%s)\n", conf, syscall_hook_name(h.hook), h.why);
	}
	fflush(stdout);
	sleep(1);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	long calls = argc > 2 ? atol(argv[2]) : 2000000;
	double v[2][NCONF][64], prog_ns[2][64], est_ns[2][64] = {}, truth_ns[64] = {};
	const char *const progs[2] = { "mb_sys_enter", "mb_sys_exit" };
	int tcmd, tres, ocmd, ores;
	pid_t target, bystander;
	FILE *f;
	int stats = -1;
	bool icount = argc > 3 && !strcmp(argv[3], "icount");
	struct sysfns sf = {};

	if (rounds < 1 || rounds > 64 || calls < 1 || (argc > 3 && !icount) || argc > 4) {
		fprintf(stderr, "usage: storm [ROUNDS 1-64] [CALLS] [icount]\n");
		return 2;
	}
	target = spawn_looper(&tcmd, &tres);
	bystander = spawn_looper(&ocmd, &ores);
	if (target < 0 || bystander < 0)
		return 1;
	sysfns_load(&sf, target, icount);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < NCONF; k++) {
			int c = (k + r) % NCONF; /* rotate the order */
			struct profiler_opts o = { .pid = target, .freq = icount ? 1 : 997,
						 .running = true,
						 .no_ledger = c == SAMPLER, .no_stats = c == NOSTATS,
						 .bpf_stats = c == STATS,
						 .site_every = c == NOSITES ? -1 : 0,
						 .syscall_hook = c == DEFAULT_TP
									 ? SYSCALL_HOOK_TRACEPOINT
									 : SYSCALL_HOOK_AUTO };
			struct profiler *p = NULL;
			int links[2] = { -1, -1 };

			if (c >= SAMPLER && c <= NOSITES && c != FILTER_FENTRY &&
			    !(p = profiler__new(&o)))
				return 1;
			if (c == FILTER_FENTRY || c == FILTER_SYSFN || c == FILTER_KMULTI) {
				hook_pair(c, target, &sf, links);
				if (links[1] < 0) {
					/* this kernel refuses it: the row says n/a */
					v[0][c][r] = v[1][c][r] = -1;
					continue;
				}
			}
			if (c == EMPTY_RAW || c == EMPTY_BTF || c == FILTER_BTF) {
				links[0] = load_floor(c != EMPTY_RAW, c == FILTER_BTF, "sys_enter", target);
				links[1] = load_floor(c != EMPTY_RAW, c == FILTER_BTF, "sys_exit", target);
				if (links[0] < 0 || links[1] < 0) {
					fprintf(stderr, "storm: cannot load the floor programs: %s\n",
						strerror(errno));
					return 1;
				}
			}
			struct mb_cost_reading c0, c1;
			struct mb_cost cost;

			/* the calibration window ends before the measured calls (10 batches at most) */
			for (int w = 0; p && profiler__calib(p) && w < 10; w++) {
				struct mb_calib cal;

				run_calls(tcmd, tres, calls / 10 + 1);
				calib__get(profiler__calib(p), &cal);
				if (cal.valid)
					break;
			}
			if (icount)
				settle(p, conf_name[c]);
			cost_read(p, &c0);
			v[0][c][r] = run_calls(tcmd, tres, calls);
			if (icount)
				printf("icount window %d: %s|target|%ld|%.1f\n", windows, conf_name[c],
				       calls, v[0][c][r]);
			cost_read(p, &c1);
			if (p && (c == STATS || c == DEFAULT)) {
				cost_delta(&c0, &c1, NULL, &cost);
				est_ns[c == STATS][r] = cost.est.ledger_ns / calls;
				truth_ns[r] = c == STATS && cost.stats ? (double)cost.ledger_ns / calls
								       : truth_ns[r];
			}
			for (int k2 = 0; c == STATS && k2 < 2; k2++) {
				prog_ns[k2][r] = 0;
				for (int i = 0; i < c1.nprogs && i < c0.nprogs; i++)
					if (ledger_prog_slot(c1.progs[i].name) == k2 &&
					    c1.progs[i].runs > c0.progs[i].runs)
						prog_ns[k2][r] =
							(double)(c1.progs[i].run_ns - c0.progs[i].run_ns) /
							(c1.progs[i].runs - c0.progs[i].runs);
			}
			if (icount)
				settle(NULL, NULL);
			v[1][c][r] = run_calls(ocmd, ores, calls);
			if (icount)
				printf("icount window %d: %s|bystander|%ld|%.1f\n", windows,
				       conf_name[c], calls, v[1][c][r]);
			for (int i = 0; i < 2; i++)
				if (links[i] >= 0)
					close(links[i]);
			profiler__free(p);
		}
	}
	f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	if (f) {
		if (fscanf(f, "%d", &stats) != 1)
			stats = -1;
		fclose(f);
	}
	printf("ns per syscall(SYS_geteuid), %d rounds of %ld calls, interleaved (order rotated); "
	       "machine-wide BPF stats at the end: %d\n", rounds, calls, stats);
	printf("%-26s %-10s %8s %8s %8s %8s %9s\n", "configuration", "process", "best", "median",
	       "max", "ratio", "+ns/call");
	for (int who = 0; who < 2; who++) {
		double med0 = 0;

		for (int c = 0; c < NCONF; c++) {
			double *x = v[who][c];

			qsort(x, rounds, sizeof(*x), cmp_double);
			if (c == BARE)
				med0 = x[rounds / 2];
			if (x[0] < 0) {
				printf("%-26s %-10s %8s (this kernel refuses it)\n", conf_name[c],
				       who ? "bystander" : "target", "n/a");
				continue;
			}
			printf("%-26s %-10s %8.1f %8.1f %8.1f %7.3fx %+9.1f\n", conf_name[c],
			       who ? "bystander" : "target", x[0], x[rounds / 2], x[rounds - 1],
			       x[rounds / 2] / med0, x[rounds / 2] - med0);
		}
	}
	for (int k = 0; k < 2; k++) {
		qsort(prog_ns[k], rounds, sizeof(prog_ns[k][0]), cmp_double);
		printf("--bpf-stats: %s %.1f ns per run (BPF run-time statistics, best %.1f)\n",
		       progs[k], prog_ns[k][rounds / 2], prog_ns[k][0]);
	}
	printf("ledger BPF ns per target call, estimated from the run counts (cost_estimate()) "
	       "and, with --bpf-stats, the statistics' own figure of the same calls:\n");
	for (int r = 0; r < rounds; r++)
		printf("  round %d: default est %.1f; --bpf-stats est %.1f, statistics %.1f "
		       "(est/stats %.3f)\n", r + 1, est_ns[0][r], est_ns[1][r], truth_ns[r],
		       truth_ns[r] > 0 ? est_ns[1][r] / truth_ns[r] : 0);
	free(sf.v);
	free(sf.addrs);
	kill(target, SIGKILL);
	kill(bystander, SIGKILL);
	waitpid(target, NULL, 0);
	waitpid(bystander, NULL, 0);
	return 0;
}
