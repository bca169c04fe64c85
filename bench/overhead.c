// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What profiling costs netmux, measured inside ONE server process.  Bare netmux's CPU for the
 * same phase differs by 15-40% between server processes on these VMs, so separate runs cannot
 * see a few percent of overhead.  This program starts one throwaway game, creates the objects
 * and attributes once, then for every repeatable busy phase runs blocks of the same commands
 * (the real driver, src/drive.c, with its reply checks) under each profiler configuration in
 * turn, in a rotating order, for several rounds:
 *
 *   bare          nothing attached (= muxbpf --no-profile: the same driver, nothing else)
 *   sampler       muxbpf's BPF attached to the running pid, sampler only (--no-syscalls)
 *   default       sampler + time ledger (--unwind auto); BPF run-time statistics on for the
 *                 calibration window at attach only (src/calib.h), the cost from the programs'
 *                 own counts after it
 *   stats         default with the statistics on all through (--bpf-stats, the default before
 *                 2026-12-01): two clock reads around every BPF run
 *   nosites       sampler + time ledger, --site-every 0 (not in the default set)
 *   nostats       default without any statistics, not even the calibration window (not in the
 *                 default set)
 *   dwarf         sampler + time ledger, --unwind dwarf
 *   fp            sampler + time ledger, --unwind fp (not in the default set)
 *   perf-dwarf    perf record -e task-clock:u --call-graph dwarf,16384 -F 997 -p PID
 *   perf-fp       perf record -g -F 997 -p PID
 *   softcode      default + the softcode views (--by command,softcode): the sampler reads
 *                 mudstate per sample, uprobes on do_ufun's u() calls (not in the default set)
 *   exact         softcode + --exact-commands: uprobes on process_command and its returns
 *                 (not in the default set)
 *   floor         sampler + the syscall tracepoints' floor: programs on sys_enter/sys_exit
 *                 that only compare the tgid (bench/floor.h).  What any tracepoint-based
 *                 ledger costs netmux before it does any work (not in the default set)
 *   floor-fentry  sampler + the same compare as fentry/fexit on x64_sys_call: the fentry
 *                 hook's floor, where the kernel allows it (not in the default set)
 *   default-tp    default with the tracepoint hook forced; default's hook is auto, fentry
 *                 where the kernel allows it (not in the default set)
 *
 * --icount: each counted block sits between the markers of bench/qemu/icount_mark.h, for the
 * icount_window QEMU plugin (bench/guest_icount.sh), after a second idle (the kernel's deferred
 * work from attaching), and prints "icount window N: PHASE|CONFIG|COMMANDS|US PER COMMAND".
 *
 * perf starts with its events disabled (-D -1) and a control fifo: the block starts only after
 * perf acknowledged "enable", and perf is stopped with SIGINT after the block (its final write
 * is outside the window).  Per block: netmux's CPU from /proc/PID/task/ * /schedstat (exact:
 * read while netmux sleeps), divided by the commands; the profiler's own process CPU in the
 * window (muxbpf: its unwinder thread here; perf: the perf process); wall per command.  Every
 * block starts with one window that is not counted (muxbpf's calibration window ends in it, or
 * in the next few, before the block), for bare too.
 *
 * For muxbpf's configurations, the same CPU per command corrected for muxbpf's own time as the
 * report estimates it (src/cost.c, cost_correct(): the programs' time in netmux's context from
 * their counts, and the tracepoints' floor per syscall measured at attach), beside bare; and the
 * estimated BPF cost against the statistics' own figure in the same windows (config stats).
 *
 * create and dump are not repeated: create grows the database (a second block would run on a
 * different database), and dump is one command that waits on fsync.  They are measured once per
 * server by the end-to-end runs (bench/stability.sh), not here.
 *
 *   build/bench/overhead [--rounds N] [--scale F] [--block-ms MS] [--phases LIST]
 *                        [--configs LIST] [--freq HZ] [--keep-perf DIR] [--netmux PATH]
 *                        [--game DIR] [--setarch-R] [--icount]
 *
 * Prints, per phase and configuration, µs of netmux CPU per command (min / median / max over
 * the rounds), the best block's ratio to bare, the paired per-round ratio (median [min..max]),
 * and host steal time and load beside every table.  Needs root (or CAP_BPF + CAP_PERFMON).  It
 * measures; it passes or fails on nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader/calib.h"
#include "loader/collect_live.h"
#include "model/cost.h"
#include "loader/profiler.h"
#include "proc/drive.h"
#include "proc/game.h"
#include "base/log.h"
#include "floor.h"
#include "qemu/icount_mark.h"
#include "muxbpf.h"
#include "muxbpf.skel.h"
#include "base/phases.h"
#include "proc/procstat.h"
#include "base/signals.h"
#include "loader/softcode.h"
#include "loader/syscall_hook.h"

#define MAX_ROUNDS 32
#define MAX_REPS 64
#define MAX_PROGS 24

enum conf { BARE, SAMPLER, DEFAULT, STATS, NOSITES, NOSTATS, DWARF, FP, PERF_DWARF, PERF_FP,
	    SOFTCODE, EXACT, FLOOR, FLOOR_FENTRY, DEFAULT_TP, NCONF };
static const char *const conf_name[NCONF] = { "bare",	"sampler", "default", "stats",
					      "nosites", "nostats", "dwarf",	 "fp",
					      "perf-dwarf", "perf-fp", "softcode", "exact",
					      "floor", "floor-fentry", "default-tp" };
static const char *const conf_what[NCONF] = {
	"nothing attached (= muxbpf --no-profile: the same driver)",
	"muxbpf sampler only (--no-syscalls), --unwind auto",
	"muxbpf default: sampler + time ledger, --unwind auto, statistics for calibration only",
	"muxbpf default with BPF run-time statistics all through (--bpf-stats)",
	"muxbpf sampler + ledger without call sites (--site-every 0)",
	"muxbpf default without BPF run-time statistics, no calibration (--no-bpf-stats)",
	"muxbpf sampler + ledger, --unwind dwarf",
	"muxbpf sampler + ledger, --unwind fp",
	"perf record -e task-clock:u --call-graph dwarf,16384 -F HZ -p PID",
	"perf record -g -F HZ -p PID",
	"muxbpf default + --by command,softcode (mudstate read per sample, do_ufun uprobes)",
	"muxbpf default + --by command,softcode --exact-commands (process_command uprobes)",
	"muxbpf sampler + tgid-compare-only programs on sys_enter/sys_exit (the tracepoints' floor)",
	"muxbpf sampler + the same programs as fentry/fexit on x64_sys_call (the fentry floor)",
	"muxbpf default with the tracepoint hook forced (--syscall-hook tracepoint)",
};

static const unsigned int default_phases[] = {
	MUXBPF_PHASE_ATTRWRITE, MUXBPF_PHASE_ATTRREAD, MUXBPF_PHASE_DISPATCH,
	MUXBPF_PHASE_SOFTCODE_ARITH, MUXBPF_PHASE_SOFTCODE_LIST,
};

struct block {
	double cpu_ns;	    /* netmux */
	double prof_ns;	    /* the profiler's process: perf, or our non-main threads */
	double wall_ns;
	double cmds;
	double steal_pct;   /* host steal over the block, % of all CPU time */
	double corr_ns;     /* netmux corrected for muxbpf's own time (cost_correct()), if known */
	double est_ns;      /* the estimated BPF cost (cost_estimate()) */
	double truth_ns;    /* the statistics' BPF cost, when held all through the windows */
	bool corr;          /* every window had the estimate */
	long long perf_bytes; /* perf.data size */
};

struct bench {
	pid_t pid;	 /* netmux */
	pid_t perf_pid;	 /* perf record, while a perf block runs */
	int freq;
	int rounds;
	double scale;
	double block_ms;
	const char *netmux;
	const char *keep_perf;
	char tmpdir[64];
	unsigned int phases[MUXBPF_PHASE__COUNT];
	int nphases;
	bool conf_on[NCONF];
	int reps[MUXBPF_PHASE__COUNT];
	/* readings at a window's begin, accumulated at its end */
	double t0, cpu0, prof0;
	struct mb_cost_reading cost0;
	bool warm; /* a window that is not counted */
	struct block acc;
	struct block res[MUXBPF_PHASE__COUNT][NCONF][MAX_ROUNDS];
	double attach_ms[NCONF], detach_ms[NCONF];
	int nattach[NCONF];
	struct profiler *prof;
	int floor_links[2]; /* floor, floor-fentry: the two programs' links, -1 when none */
	bool icount;        /* --icount: markers around the counted blocks */
	int windows;        /* counted blocks so far: the icount plugin's window numbers */
	struct softcode *sc; /* softcode, exact */
	struct sc_target sct;
	/* BPF run-time statistics per muxbpf configuration and program, summed over blocks */
	char prog_name[MAX_PROGS][32];
	int nprogs;
	double prog_runs[NCONF][MAX_PROGS], prog_ns[NCONF][MAX_PROGS], prog_cmds[NCONF];
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Host steal and total jiffies from /proc/stat's cpu line. */
static void read_steal(unsigned long long *steal, unsigned long long *total)
{
	unsigned long long v[10] = {};
	FILE *f = fopen("/proc/stat", "re");

	*steal = *total = 0;
	if (!f)
		return;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
		for (int i = 0; i < 8; i++) /* guest time is inside user already */
			*total += v[i];
		*steal = v[7];
	}
	fclose(f);
}

static double loadavg1(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "re");

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

/* Sum of schedstat runtime over the threads of pid; skip_tid (if > 0) left out. */
static double task_cpu_ns(pid_t pid, pid_t skip_tid)
{
	char path[64], line[128];
	struct dirent *de;
	double sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		pid_t tid = atoi(de->d_name);
		unsigned long long ns;
		FILE *f;

		if (tid <= 0 || tid == skip_tid)
			continue;
		snprintf(line, sizeof(line), "/proc/%d/task/%d/schedstat", pid, tid);
		f = fopen(line, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* The profiler's own CPU so far: perf's process, or this process's threads but the driver's. */
static double prof_cpu_ns(const struct bench *b)
{
	if (b->perf_pid > 0)
		return task_cpu_ns(b->perf_pid, 0);
	return task_cpu_ns(getpid(), getpid());
}

static unsigned long long steal0, total0;

static int hook_begin(void *ctx, unsigned int phase)
{
	struct bench *b = ctx;

	if (b->prof)
		profiler__set_phase(b->prof, phase);
	if (procstat_wait_sleeping(b->pid, 2000))
		fprintf(stderr, "overhead: netmux did not go to sleep before %s\n",
			phase_name(phase));
	read_steal(&steal0, &total0);
	if (b->prof)
		cost_read(b->prof, &b->cost0);
	b->cpu0 = task_cpu_ns(b->pid, 0);
	b->prof0 = prof_cpu_ns(b);
	b->t0 = now_ns();
	return 0;
}

static int hook_end(void *ctx, unsigned int phase)
{
	struct bench *b = ctx;
	unsigned long long s, t;
	double t1 = now_ns();

	double cpu;

	procstat_wait_sleeping(b->pid, 2000);
	cpu = task_cpu_ns(b->pid, 0) - b->cpu0;
	if (b->prof)
		profiler__set_phase(b->prof, MUXBPF_PHASE_NONE);
	if (b->warm)
		return 0;
	if (b->prof) {
		struct mb_cost_reading c1;
		struct mb_cost cost;
		struct mb_corrected k;

		cost_read(b->prof, &c1);
		cost_delta(&b->cost0, &c1, NULL, &cost);
		cost_correct((uint64_t)cpu, 0, cost.est.calls, &cost, &k);
		if (!k.valid)
			b->acc.corr = false;
		b->acc.corr_ns += k.oncpu_ns;
		b->acc.est_ns += cost.est.bpf_ns;
		b->acc.truth_ns += cost.stats ? cost.bpf_ns : 0;
	}
	b->acc.cpu_ns += cpu;
	b->acc.prof_ns += prof_cpu_ns(b) - b->prof0;
	b->acc.wall_ns += t1 - b->t0;
	read_steal(&s, &t);
	if (t > total0)
		b->acc.steal_pct = fmax(b->acc.steal_pct, 100.0 * (s - steal0) / (t - total0));
	(void)phase;
	return 0;
}

/* perf record on the pid, events disabled until it acknowledges "enable" on its fifo. */
static int perf_start(struct bench *b, enum conf c, const char *data)
{
	char ctl[128], ack[128], freq[16], pid[16], arg[300];
	int cfd = -1, afd = -1, err = -1;
	char buf[8] = "";

	snprintf(ctl, sizeof(ctl), "%.64s/ctl", b->tmpdir);
	snprintf(ack, sizeof(ack), "%.64s/ack", b->tmpdir);
	unlink(ctl);
	unlink(ack);
	if (mkfifo(ctl, 0600) || mkfifo(ack, 0600))
		return -1;
	snprintf(freq, sizeof(freq), "%d", b->freq);
	snprintf(pid, sizeof(pid), "%d", b->pid);
	snprintf(arg, sizeof(arg), "fifo:%s,%s", ctl, ack);
	b->perf_pid = fork();
	if (b->perf_pid == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (c == PERF_DWARF)
			execlp("perf", "perf", "record", "-q", "-e", "task-clock:u", "--call-graph",
			       "dwarf,16384", "-F", freq, "-p", pid, "-o", data, "--control", arg,
			       "-D", "-1", (char *)NULL);
		else
			execlp("perf", "perf", "record", "-q", "-g", "-F", freq, "-p", pid, "-o",
			       data, "--control", arg, "-D", "-1", (char *)NULL);
		_exit(127);
	}
	if (b->perf_pid < 0)
		return -1;
	/* the fifo has a reader once perf set up: open for writing without blocking, retry */
	for (int i = 0; i < 1000 && cfd < 0; i++) {
		cfd = open(ctl, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (cfd < 0) {
			if (waitpid(b->perf_pid, NULL, WNOHANG) == b->perf_pid)
				goto out_dead;
			usleep(10000);
		}
	}
	afd = open(ack, O_RDONLY | O_CLOEXEC);
	if (cfd < 0 || afd < 0 || write(cfd, "enable\n", 7) != 7 || read(afd, buf, 4) < 3 ||
	    strncmp(buf, "ack", 3))
		goto out;
	err = 0;
out:
	if (cfd >= 0)
		close(cfd);
	if (afd >= 0)
		close(afd);
	if (err)
		fprintf(stderr, "overhead: perf record did not start (is perf installed?)\n");
	return err;
out_dead:
	b->perf_pid = 0;
	fprintf(stderr, "overhead: perf record exited at start\n");
	return -1;
}

static void perf_stop(struct bench *b)
{
	if (b->perf_pid <= 0)
		return;
	kill(b->perf_pid, SIGINT);
	waitpid(b->perf_pid, NULL, 0);
	b->perf_pid = 0;
}

/* floor: the tgid-compare programs on both syscall tracepoints, beside the sampler;
 * floor-fentry: the same as fentry/fexit on x64_sys_call. */
static int floor_attach(struct bench *b, bool fentry)
{
	b->floor_links[0] = fentry ? load_fentry_floor(false, "x64_sys_call", (__u32)b->pid)
				   : load_floor(true, true, "sys_enter", (__u32)b->pid);
	b->floor_links[1] = fentry ? load_fentry_floor(true, "x64_sys_call", (__u32)b->pid)
				   : load_floor(true, true, "sys_exit", (__u32)b->pid);
	if (b->floor_links[0] >= 0 && b->floor_links[1] >= 0)
		return 0;
	fprintf(stderr, "overhead: cannot load the floor programs: %s\n", strerror(errno));
	return -1;
}

static void floor_detach(struct bench *b)
{
	for (int i = 0; i < 2; i++) {
		if (b->floor_links[i] >= 0)
			close(b->floor_links[i]);
		b->floor_links[i] = -1;
	}
}

static int conf_attach(struct bench *b, enum conf c, const char *perf_data)
{
	struct profiler_opts o = { .pid = b->pid, .freq = b->freq, .running = true,
				 .unwind = MUXBPF_UNWIND_AUTO, .exe = b->netmux };
	double t0 = now_ns();

	switch (c) {
	case BARE:
		return 0;
	case PERF_DWARF:
	case PERF_FP:
		if (perf_start(b, c, perf_data))
			return -1;
		break;
	default:
		o.no_ledger = c == SAMPLER || c == FLOOR || c == FLOOR_FENTRY;
		o.syscall_hook = c == DEFAULT_TP ? SYSCALL_HOOK_TRACEPOINT : SYSCALL_HOOK_AUTO;
		o.no_stats = c == NOSTATS;
		o.bpf_stats = c == STATS;
		o.site_every = c == NOSITES ? -1 : 0;
		o.unwind = c == DWARF ? MUXBPF_UNWIND_DWARF
			   : c == FP  ? MUXBPF_UNWIND_FP
				      : MUXBPF_UNWIND_AUTO;
		b->prof = profiler__new(&o);
		if (!b->prof)
			return -1;
		if ((c == FLOOR || c == FLOOR_FENTRY) && floor_attach(b, c == FLOOR_FENTRY))
			return -1;
		if (c == SOFTCODE || c == EXACT) {
			if (!b->sct.ok)
				softcode__find(b->netmux, NULL, 0, &b->sct);
			b->sc = b->sct.ok ? softcode__attach(b->prof, b->pid, b->netmux, &b->sct,
							     c == EXACT)
					  : NULL;
			if (!b->sc) {
				fprintf(stderr, "overhead: softcode views unavailable: %s\n",
					b->sct.ok ? strerror(errno) : b->sct.why);
				return -1;
			}
		}
	}
	b->attach_ms[c] += (now_ns() - t0) / 1e6;
	b->nattach[c]++;
	return 0;
}

/* Every program's run count and run time so far (bpf_enable_stats is on for the profiler). */
static void bpf_stats(struct bench *b, enum conf c)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, profiler__skel(b->prof)->obj)
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		const char *name = bpf_program__name(prog);
		int fd = bpf_program__fd(prog), k;

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		for (k = 0; k < b->nprogs && strcmp(b->prog_name[k], name); k++)
			;
		if (k == b->nprogs) {
			if (k == MAX_PROGS)
				continue;
			snprintf(b->prog_name[k], sizeof(b->prog_name[k]), "%s", name);
			b->nprogs++;
		}
		b->prog_runs[c][k] += info.run_cnt;
		b->prog_ns[c][k] += info.run_time_ns;
	}
}

static void conf_detach(struct bench *b, enum conf c)
{
	double t0 = now_ns();

	if (c == BARE)
		return;
	if (b->prof)
		bpf_stats(b, c);
	perf_stop(b);
	floor_detach(b);
	softcode__free(b->sc);
	b->sc = NULL;
	profiler__free(b->prof);
	b->prof = NULL;
	b->detach_ms[c] += (now_ns() - t0) / 1e6;
}

/* One block: reps windows of phase under configuration c. */
static int run_block(struct bench *b, struct driver *d, unsigned int phase, enum conf c,
		     int reps, struct block *out, const char *perf_data)
{
	struct phase_hooks h = { .begin = hook_begin, .end = hook_end, .ctx = b };
	struct phase_result r;
	struct stat st;
	int err;

	memset(&b->acc, 0, sizeof(b->acc));
	b->acc.corr = true;
	if (conf_attach(b, c, perf_data))
		return -1;
	/* one window not counted, more until muxbpf's calibration window is over (8 at most) */
	b->warm = true;
	for (int k = 0; k < 8; k++) {
		struct mb_calib cal;

		err = driver__run(d, &phase, 1, &h, &r);
		if (err)
			break;
		calib__get(b->prof ? profiler__calib(b->prof) : NULL, &cal);
		if (!b->prof || !profiler__calib(b->prof) || cal.valid)
			break;
	}
	b->warm = false;
	if (!err && b->icount)
		sleep(1);
	if (!err && b->icount)
		ICOUNT_OPEN_MARK();
	if (err) {
		conf_detach(b, c);
		fprintf(stderr, "overhead: %s under %s failed: %s\n", phase_name(phase),
			conf_name[c], r.error);
		return err;
	}
	for (int k = 0; k < reps; k++) {
		err = driver__run(d, &phase, 1, &h, &r);
		if (err) {
			conf_detach(b, c);
			fprintf(stderr, "overhead: %s under %s failed: %s\n", phase_name(phase),
				conf_name[c], r.error);
			return err;
		}
		b->acc.cmds += r.commands;
	}
	if (b->icount) {
		ICOUNT_CLOSE_MARK();
		printf("icount window %d: %s|%s|%.0f|%.2f\n", ++b->windows, phase_name(phase),
		       conf_name[c], b->acc.cmds, b->acc.cpu_ns / 1e3 / fmax(b->acc.cmds, 1));
		fflush(stdout);
	}
	conf_detach(b, c);
	b->prog_cmds[c] += b->acc.cmds;
	if (perf_data && !stat(perf_data, &st))
		b->acc.perf_bytes = st.st_size;
	*out = b->acc;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* min, median, max of n values */
static void stats(double *v, int n, double *mn, double *med, double *mx)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*mn = v[0];
	*mx = v[n - 1];
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * netmux's CPU per command less muxbpf's own time as the report estimates it, against bare; and
 * the estimated BPF cost against the statistics' figure of the same windows.
 */
static void print_corrected(struct bench *b)
{
	printf("\ncorrected for muxbpf's own time (estimate: cost_correct(), the programs' time in "
	       "netmux's context and the tracepoint floor per syscall removed), us per command; "
	       "ratios to bare as above; est/stats = estimated BPF cost / the statistics' figure, "
	       "same windows:\n");
	printf("  %-15s %-11s %8s %8s %7s %20s %22s %19s\n", "phase", "config", "min", "median",
	       "best", "paired med [min..max]", "est/stats med [min..max]", "vs sampler paired");
	for (int i = 0; i < b->nphases; i++) {
		unsigned int ph = b->phases[i];
		double bare_v[MAX_ROUNDS], bare_min = 0, x, y, z;

		for (int r = 0; r < b->rounds; r++) {
			bare_v[r] = b->res[ph][BARE][r].cpu_ns / b->res[ph][BARE][r].cmds / 1e3;
			bare_min = r ? fmin(bare_min, bare_v[r]) : bare_v[r];
		}
		for (int c = SAMPLER; c < PERF_DWARF; c++) {
			double v[MAX_ROUNDS], pr[MAX_ROUNDS], et[MAX_ROUNDS], vs[MAX_ROUNDS];
			double mn, med, mx, pmn, pmed, pmx;
			int n = 0, ne = 0, nv = 0;
			char est[40] = "-", sam[40] = "-";

			if (!b->conf_on[c])
				continue;
			for (int r = 0; r < b->rounds; r++) {
				const struct block *k = &b->res[ph][c][r];

				if (!k->corr || !k->cmds)
					continue;
				v[n] = k->corr_ns / k->cmds / 1e3;
				pr[n] = v[n] / bare_v[r];
				n++;
				if (k->truth_ns > 0)
					et[ne++] = k->est_ns / k->truth_ns;
				/* against the sampler alone, measured: what is left of the ledger */
				if (c != SAMPLER && b->conf_on[SAMPLER] && b->res[ph][SAMPLER][r].cmds)
					vs[nv++] = v[n - 1] / (b->res[ph][SAMPLER][r].cpu_ns /
							       b->res[ph][SAMPLER][r].cmds / 1e3);
			}
			if (!n) {
				printf("  %-15s %-11s no estimate (no calibration window)\n",
				       phase_name(ph), conf_name[c]);
				continue;
			}
			stats(v, n, &mn, &med, &mx);
			stats(pr, n, &pmn, &pmed, &pmx);
			if (ne) {
				stats(et, ne, &x, &y, &z);
				snprintf(est, sizeof(est), "%.3f [%.3f..%.3f]", y, x, z);
			}
			if (nv) {
				stats(vs, nv, &x, &y, &z);
				snprintf(sam, sizeof(sam), "%.3fx [%.3f..%.3f]", y, x, z);
			}
			printf("  %-15s %-11s %8.2f %8.2f %6.3fx   %.3fx [%.3f..%.3f] %22s %19s\n",
			       phase_name(ph), conf_name[c], mn, med, mn / bare_min, pmed, pmn, pmx,
			       est, sam);
		}
	}
}

static void print_results(struct bench *b)
{
	printf("\nnetmux CPU per command (us, schedstat, exact), %d rounds; ratios to bare:\n"
	       "  best = best block / best bare block; paired = this round's block / the same "
	       "round's bare block\n",
	       b->rounds);
	for (int i = 0; i < b->nphases; i++) {
		unsigned int ph = b->phases[i];
		double bare_min = 0, bare_v[MAX_ROUNDS];
		double steal_max = 0;

		for (int r = 0; r < b->rounds; r++) {
			bare_v[r] = b->res[ph][BARE][r].cpu_ns / b->res[ph][BARE][r].cmds / 1e3;
			for (int c = 0; c < NCONF; c++)
				if (b->conf_on[c])
					steal_max = fmax(steal_max, b->res[ph][c][r].steal_pct);
		}
		{
			double tmp[MAX_ROUNDS], a, m, z;

			memcpy(tmp, bare_v, sizeof(tmp));
			stats(tmp, b->rounds, &a, &m, &z);
			bare_min = a;
			printf("\n%s: %.0f commands per block (%d window%s), bare noise "
			       "(max-min)/median %.1f%%, max steal in a block %.2f%%\n",
			       phase_name(ph), b->res[ph][BARE][0].cmds, b->reps[ph],
			       b->reps[ph] > 1 ? "s" : "", 100 * (z - a) / m, steal_max);
		}
		printf("  %-11s %8s %8s %8s %7s %20s %9s %9s %11s\n", "config", "min", "median",
		       "max", "best", "paired med [min..max]", "wall/cmd", "prof/cmd", "perf.data");
		for (int c = 0; c < NCONF; c++) {
			double v[MAX_ROUNDS], pr[MAX_ROUNDS], w[MAX_ROUNDS], p[MAX_ROUNDS];
			double mn, med, mx, pmn, pmed, pmx, wmn, wmed, wmx, xmn, xmed, xmx;
			char size[32] = "-";

			if (!b->conf_on[c])
				continue;
			for (int r = 0; r < b->rounds; r++) {
				const struct block *k = &b->res[ph][c][r];

				v[r] = k->cpu_ns / k->cmds / 1e3;
				pr[r] = v[r] / bare_v[r];
				w[r] = k->wall_ns / k->cmds / 1e3;
				p[r] = k->prof_ns / k->cmds / 1e3;
			}
			stats(v, b->rounds, &mn, &med, &mx);
			stats(pr, b->rounds, &pmn, &pmed, &pmx);
			stats(w, b->rounds, &wmn, &wmed, &wmx);
			stats(p, b->rounds, &xmn, &xmed, &xmx);
			if (b->res[ph][c][0].perf_bytes)
				snprintf(size, sizeof(size), "%.0f KB",
					 b->res[ph][c][b->rounds - 1].perf_bytes / 1e3);
			printf("  %-11s %8.2f %8.2f %8.2f %6.3fx   %.3fx [%.3f..%.3f] %9.2f %9.2f "
			       "%11s\n",
			       conf_name[c], mn, med, mx, mn / bare_min, pmed, pmn, pmx, wmed, xmed,
			       size);
		}
	}
	print_corrected(b);
	printf("\nwall/cmd: the driver's wall time per command (median, us); prof/cmd: the "
	       "profiler's own process CPU per command in the window (median, us; muxbpf: its "
	       "unwinder thread; perf: the perf process), on top of netmux's\n");
	printf("\nBPF programs (bpf_enable_stats, every phase and block; runs include other "
	       "processes' syscalls and switches, which return after one compare; default: the "
	       "calibration window only, so its runs/cmd are not the block's):\n");
	printf("  %-11s %-18s %10s %9s %10s\n", "config", "program", "runs/cmd", "ns/run",
	       "ns/cmd");
	for (int c = SAMPLER; c < PERF_DWARF; c++) {
		double tot = 0;

		if (!b->conf_on[c] || !b->prog_cmds[c])
			continue;
		for (int k = 0; k < b->nprogs; k++) {
			if (!b->prog_runs[c][k])
				continue;
			tot += b->prog_ns[c][k] / b->prog_cmds[c];
			printf("  %-11s %-18s %10.3f %9.0f %10.0f\n", conf_name[c], b->prog_name[k],
			       b->prog_runs[c][k] / b->prog_cmds[c],
			       b->prog_ns[c][k] / b->prog_runs[c][k],
			       b->prog_ns[c][k] / b->prog_cmds[c]);
		}
		printf("  %-11s %-18s %10s %9s %10.0f\n", conf_name[c], "all", "", "", tot);
	}
	printf("attach / detach per block (mean ms):");
	for (int c = 1; c < NCONF; c++)
		if (b->conf_on[c] && b->nattach[c])
			printf("  %s %.0f/%.0f", conf_name[c], b->attach_ms[c] / b->nattach[c],
			       b->detach_ms[c] / b->nattach[c]);
	printf("\n");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: overhead [--rounds N (5)] [--scale F (1)] [--block-ms MS (400)]\n"
		"                [--phases LIST] [--configs LIST] [--freq HZ (997)]\n"
		"                [--keep-perf DIR] [--netmux PATH] [--game DIR] [--setarch-R]\n"
		"                [--icount]\n"
		"configs: bare,sampler,default,stats,nosites,nostats,dwarf,fp,perf-dwarf,perf-fp,\n"
		"         softcode,exact,floor,floor-fentry,default-tp (default: all but stats,\n"
		"         nosites, nostats, fp, softcode, exact and the last three; bare is always in)\n");
}

static int parse_configs(struct bench *b, const char *list)
{
	char *s = strdup(list), *save = NULL;

	memset(b->conf_on, 0, sizeof(b->conf_on));
	b->conf_on[BARE] = true;
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int c;

		for (c = 0; c < NCONF && strcmp(t, conf_name[c]); c++)
			;
		if (c == NCONF) {
			fprintf(stderr, "overhead: unknown config %s\n", t);
			free(s);
			return -1;
		}
		b->conf_on[c] = true;
	}
	free(s);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "rounds", required_argument, NULL, 'r' },  { "scale", required_argument, NULL, 's' },
		{ "block-ms", required_argument, NULL, 'b' }, { "phases", required_argument, NULL, 'p' },
		{ "configs", required_argument, NULL, 'c' }, { "freq", required_argument, NULL, 'f' },
		{ "keep-perf", required_argument, NULL, 'k' }, { "netmux", required_argument, NULL, 'n' },
		{ "game", required_argument, NULL, 'g' },    { "setarch-R", no_argument, NULL, 'R' },
		{ "icount", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },	     {},
	};
	static struct bench bench;
	struct bench *b = &bench;
	struct game_opts go = { .netmux = MUXBPF_DEFAULT_NETMUX,
				.template = MUXBPF_DEFAULT_TEMPLATE };
	struct drive_opts dopts = {};
	unsigned long long s0, t0, s1, t1;
	double load0, wall0;
	struct driver *d = NULL;
	struct game *g = NULL;
	int opt, rc = 1;

	b->rounds = 5;
	b->floor_links[0] = b->floor_links[1] = -1;
	b->scale = 1;
	b->block_ms = 400;
	b->freq = 997;
	b->nphases = sizeof(default_phases) / sizeof(default_phases[0]);
	memcpy(b->phases, default_phases, sizeof(default_phases));
	parse_configs(b, "sampler,default,dwarf,perf-dwarf,perf-fp");
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			b->rounds = atoi(optarg);
			break;
		case 's':
			b->scale = atof(optarg);
			break;
		case 'b':
			b->block_ms = atof(optarg);
			break;
		case 'p':
			b->nphases = phases_parse(optarg, b->phases, MUXBPF_PHASE__COUNT);
			if (b->nphases <= 0)
				return 2;
			break;
		case 'c':
			if (parse_configs(b, optarg))
				return 2;
			break;
		case 'f':
			b->freq = atoi(optarg);
			break;
		case 'k':
			b->keep_perf = optarg;
			break;
		case 'n':
			go.netmux = optarg;
			break;
		case 'g':
			go.template = optarg;
			break;
		case 'i':
			b->icount = true;
			break;
		case 'R':
			/* inherited by netmux through fork and exec */
			personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE);
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (b->rounds < 1 || b->rounds > MAX_ROUNDS || b->scale <= 0 || b->freq < 1) {
		usage();
		return 2;
	}
	for (int i = 0; i < b->nphases; i++)
		if (b->phases[i] == MUXBPF_PHASE_CREATE || b->phases[i] == MUXBPF_PHASE_DUMP ||
		    b->phases[i] == MUXBPF_PHASE_IDLE || b->phases[i] == MUXBPF_PHASE_BOOT) {
			fprintf(stderr, "overhead: %s is not a repeatable command phase\n",
				phase_name(b->phases[i]));
			return 2;
		}
	b->netmux = go.netmux;
	snprintf(b->tmpdir, sizeof(b->tmpdir), "/tmp/muxbpf-overhead-XXXXXX");
	if (!mkdtemp(b->tmpdir))
		return 1;
	/* SIGINT/SIGTERM stop the driver at once; the cleanup below still runs */
	if (signals_install())
		signal(SIGPIPE, SIG_IGN);
	load0 = loadavg1();
	read_steal(&s0, &t0);
	wall0 = now_ns();

	g = game__new(&go);
	if (!g || game__spawn_paused(g) || game__release(g) || game__wait_ready(g, 20000))
		goto out;
	b->pid = game__pid(g);
	dopts.scale = b->scale;
	dopts.pidfd = game__pidfd(g);
	dopts.stop_fd = signals_fd();
	d = driver__new(game__port(g), &dopts);
	if (!d)
		goto out;
	for (int i = 0; i < b->nphases; i++) {
		/* objects and attributes once, outside every block, if a phase uses them */
		unsigned int setup[] = { MUXBPF_PHASE_CREATE, MUXBPF_PHASE_ATTRWRITE };
		struct phase_result r[2];

		if (b->phases[i] != MUXBPF_PHASE_ATTRWRITE && b->phases[i] != MUXBPF_PHASE_ATTRREAD)
			continue;
		if (driver__run(d, setup, 2, NULL, r))
			goto out;
		break;
	}
	printf("overhead within one netmux process (pid %d, %s), scale %g, %d Hz, %d rounds\n",
	       b->pid, driver__version(d), b->scale, b->freq, b->rounds);
	for (int c = 0; c < NCONF; c++)
		if (b->conf_on[c])
			printf("  %-11s %s\n", conf_name[c], conf_what[c]);

	/* warm-up: one bare block per phase, which also sizes the blocks to block_ms of CPU */
	for (int i = 0; i < b->nphases; i++) {
		unsigned int ph = b->phases[i];
		struct block w;

		if (run_block(b, d, ph, BARE, 1, &w, NULL))
			goto out;
		b->reps[ph] = (int)ceil(b->block_ms * 1e6 / fmax(w.cpu_ns, 1));
		b->reps[ph] = b->reps[ph] < 1 ? 1 : b->reps[ph] > MAX_REPS ? MAX_REPS : b->reps[ph];
	}
	for (int r = 0; r < b->rounds; r++) {
		for (int i = 0; i < b->nphases; i++) {
			unsigned int ph = b->phases[i];

			for (int k = 0; k < NCONF; k++) {
				enum conf c = (k + r + i) % NCONF;
				char data[512];
				bool perf = c == PERF_DWARF || c == PERF_FP;

				if (!b->conf_on[c])
					continue;
				if (perf && b->keep_perf && r == b->rounds - 1)
					snprintf(data, sizeof(data), "%s/%s.%s.perf.data",
						 b->keep_perf, phase_name(ph), conf_name[c]);
				else
					snprintf(data, sizeof(data), "%.64s/perf.data", b->tmpdir);
				if (run_block(b, d, ph, c, b->reps[ph], &b->res[ph][c][r],
					      perf ? data : NULL))
					goto out;
				if (perf && !(b->keep_perf && r == b->rounds - 1))
					unlink(data);
				if (signals_pending())
					goto out;
			}
		}
		fprintf(stderr, "overhead: round %d/%d done (load %.2f)\n", r + 1, b->rounds,
			loadavg1());
	}
	read_steal(&s1, &t1);
	print_results(b);
	printf("host: steal %.2f%% of CPU time over the run (%.0f s), load average %.2f at start, "
	       "%.2f at end\n",
	       t1 > t0 ? 100.0 * (s1 - s0) / (t1 - t0) : 0, (now_ns() - wall0) / 1e9, load0,
	       loadavg1());
	rc = 0;
out:
	perf_stop(b);
	profiler__free(b->prof);
	if (d) {
		driver__shutdown(d);
		driver__free(d);
	}
	if (g) {
		game__stop(g, 10000);
		game__free(g);
	}
	{
		char p[128];

		snprintf(p, sizeof(p), "%.64s/ctl", b->tmpdir);
		unlink(p);
		snprintf(p, sizeof(p), "%.64s/ack", b->tmpdir);
		unlink(p);
		snprintf(p, sizeof(p), "%.64s/perf.data", b->tmpdir);
		unlink(p);
		rmdir(b->tmpdir);
	}
	return rc;
}
