/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Driving a ground-truth target (tests/targets/) from a BPF test: start it paused (the child
 * waits on a pipe before exec, so the profiler attaches first, as muxbpf does with netmux), send
 * one-byte commands on its stdin, read its acknowledgement line, and take readings of the
 * kernel's counters at phase boundaries while it sleeps.  Include after <cmocka.h>.
 */
#ifndef MUXBPF_BPFTARGET_H
#define MUXBPF_BPFTARGET_H

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader/profiler.h"
#include "muxbpf.skel.h"
#include "loader/collect.h"
#include "loader/collect_ledger.h"
#include "proc/procstat.h"
#include "model/profile.h"
#include "loader/syscall_hook.h"

/*
 * The ledger's syscall hook the suites run with: MUXBPF_SYSCALL_HOOK (auto, fentry, tracepoint;
 * tests/kernels/guest.sh runs the ledger suites in both modes), else auto.  An unknown value
 * fails the setup rather than testing the wrong mode.
 */
static inline int test_syscall_hook(struct profiler_opts *o)
{
	const char *h = getenv("MUXBPF_SYSCALL_HOOK");

	o->syscall_hook = h && *h ? syscall_hook_parse(h) : SYSCALL_HOOK_AUTO;
	if (o->syscall_hook < 0) {
		fprintf(stderr, "MUXBPF_SYSCALL_HOOK=%s: expected auto, fentry or tracepoint\n", h);
		return -1;
	}
	return 0;
}

struct target {
	pid_t pid;
	int go_fd;  /* write a byte: exec the target */
	int cmd_fd; /* target's stdin */
	int ack_fd; /* target's stdout */
	char path[PATH_MAX]; /* the target's executable */
};

/* build/tests/targets/NAME, next to the running test binary. */
static inline void target_path(const char *name, char *buf, size_t size)
{
	char exe[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	assert_true(snprintf(buf, size, "%s/targets/%s", exe, name) < (int)size);
}

/* Fork the target paused: the child waits for a byte on a pipe before it execs. */
static inline void target_spawn(struct target *t, const char *name, const char *arg)
{
	int go[2], cmd[2], ack[2];
	char *path = t->path;
	char c;

	target_path(name, t->path, sizeof(t->path));
	assert_int_equal(access(path, X_OK), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	assert_int_equal(pipe2(cmd, O_CLOEXEC), 0);
	assert_int_equal(pipe2(ack, O_CLOEXEC), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(cmd[0], 0);
		dup2(ack[1], 1);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(cmd[0]);
	close(ack[1]);
	t->go_fd = go[1];
	t->cmd_fd = cmd[1];
	t->ack_fd = ack[0];
}

static inline void target_release(struct target *t)
{
	assert_int_equal(write(t->go_fd, "g", 1), 1);
}

/*
 * Until the child runs the target's image (its exe link changes at exec) and sleeps waiting for
 * its first command: its libraries are mapped by then, and its start-up (exec, the dynamic
 * loader: tens of ms in a TCG guest) is behind it, outside any phase.  Up to 10 s.
 */
static inline void target_wait_started(const struct target *t)
{
	char path[64], exe[PATH_MAX], stat[512];

	for (int i = 0; i < 200000; i++) {
		ssize_t n;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/exe", t->pid);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = 0;
			snprintf(path, sizeof(path), "/proc/%d/stat", t->pid);
			f = fopen(path, "r");
			if (f && fgets(stat, sizeof(stat), f) && !strcmp(exe, t->path) &&
			    strstr(stat, ") S ")) {
				fclose(f);
				return;
			}
			if (f)
				fclose(f);
		}
		usleep(50);
	}
	fail_msg("pid %d did not start %s", t->pid, t->path);
}

/* Send a command; read the ack line ("k ...") into line. */
static inline void target_command(struct target *t, char cmd, char *line, size_t size)
{
	size_t n = 0;
	char c = 0;

	assert_int_equal(write(t->cmd_fd, &cmd, 1), 1);
	/* the whole line, kept as far as it fits: the next command's answer starts after it */
	while (read(t->ack_fd, &c, 1) == 1) {
		if (n + 1 < size)
			line[n++] = c;
		if (c == '\n')
			break;
	}
	line[n] = 0;
	assert_true(n > 0 && line[0] == 'k');
}

/* The sampler program's runs so far as the kernel counts them (bpf_enable_stats on), or 0. */
static inline unsigned long long sampler_runs(struct profiler *p)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(profiler__skel(p)->progs.mb_sample);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.run_cnt;
}

/*
 * Send cmd again until the sampler has run at least want times, tries times at most (run-time
 * statistics on).  What a burn of fixed CPU yields is not fixed: in a TCG guest on a busy host
 * the guest's clock runs on while its vCPU waits and the sampling timer skips the periods it
 * missed (117 samples from a 1000 ms burn at 997 Hz seen), and the kernel lowers
 * perf_event_max_sample_rate when the sampling interrupt takes long.  Enough samples come from
 * more work, not from a lower bar.
 */
static inline void target_command_until(struct target *t, char cmd, struct profiler *p,
					unsigned long long want, int tries)
{
	char ack[64];

	for (int i = 0; i < tries; i++) {
		target_command(t, cmd, ack, sizeof(ack));
		if (sampler_runs(p) >= want)
			return;
	}
}

static inline void target_quit(struct target *t)
{
	int status;

	assert_int_equal(write(t->cmd_fd, "q", 1), 1);
	assert_int_equal(waitpid(t->pid, &status, 0), t->pid);
	close(t->go_fd);
	close(t->cmd_fd);
	close(t->ack_fd);
}

/* The readings below are the tests' own; a suite that uses session/reading.h's defines
 * BPFTARGET_NO_READING first. */
#ifndef BPFTARGET_NO_READING
struct reading {
	uint64_t t_ns;
	struct rt_snapshot rt;
	struct mb_inflight inflight;
	struct proc_times proc;
};

/* A boundary, as src/run.c takes it: the time, the switch to phase, then the counters. */
static inline void take_reading(struct profiler *p, pid_t pid, struct reading *r,
				unsigned int phase)
{
	struct timespec ts;

	assert_int_equal(procstat_wait_sleeping(pid, 1000), 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->t_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	profiler__set_phase(p, phase);
	assert_int_equal(collect_runtime(p, &r->rt), 0);
	if (profiler__has_ledger(p))
		assert_int_equal(collect_inflight(p, &r->inflight), 0);
	assert_int_equal(procstat_read(pid, &r->proc), 0);
}

static inline void reading_free(struct reading *r)
{
	rt_snapshot__free(&r->rt);
	inflight__free(&r->inflight);
}

/* Run one phase between two readings taken while the target sleeps. */
static inline void run_phase(struct profiler *p, struct target *t, unsigned int phase, char cmd,
			     struct reading *before, struct reading *after, char *line,
			     size_t size)
{
	take_reading(p, t->pid, before, phase);
	target_command(t, cmd, line, size);
	take_reading(p, t->pid, after, 0);
}
#endif /* BPFTARGET_NO_READING */

#endif /* MUXBPF_BPFTARGET_H */
