/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The kernel's own counters from /proc: tick-based utime/stime, schedstat runtime, thread
 * states.  Used for the usr/sys columns and as ground truth beside the BPF runtime. */
#ifndef MUXBPF_PROCSTAT_H
#define MUXBPF_PROCSTAT_H

#include <stdint.h>
#include <sys/types.h>

struct proc_times {
	uint64_t schedstat_ns; /* sum over live threads of /proc/PID/task/TID/schedstat field 1 */
	uint64_t utime_ns;     /* /proc/PID/stat utime (whole process, dead threads included) */
	uint64_t stime_ns;     /* /proc/PID/stat stime */
	int threads;
};

/* Parse the text of a /proc/.../stat file: state letter, utime and stime in ticks.  Pure.
 * Returns 0 or -EINVAL. */
int procstat_parse_stat(const char *text, char *state, uint64_t *utime, uint64_t *stime);
/* Read the counters of process pid.  Returns 0 or -errno. */
int procstat_read(pid_t pid, struct proc_times *out);
/*
 * Wait until no thread of pid is running or runnable (state other than R) and each is off its
 * CPU (the kernel's /proc/.../syscall answer), up to timeout_ms.  Runtime readings are exact only
 * for a thread that is off CPU (the kernel folds the running slice in at ticks and switches).
 * Returns 0, -ETIMEDOUT, or -errno (-ESRCH: gone).
 */
int procstat_wait_sleeping(pid_t pid, int timeout_ms);

/* One thread as /proc shows it (for seeding state about threads that predate the profiler). */
struct proc_thread {
	uint32_t tid;
	int64_t syscall;     /* /proc/PID/task/TID/syscall: the call it is blocked in, or -1 */
	uint64_t csw;        /* voluntary + nonvoluntary context switches */
	uint64_t runtime_ns; /* schedstat field 1 */
};

/* Up to max threads of pid.  Returns the count (threads whose files vanished are left out)
 * or -errno. */
int procstat_threads(pid_t pid, struct proc_thread *out, int max);

#endif /* MUXBPF_PROCSTAT_H */
