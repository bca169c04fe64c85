// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "proc/procstat.h"

static int read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	return n ? 0 : -EIO;
}

/* /proc/PID/task/TID/name into buf: read_small's result. */
static int read_task_file(pid_t pid, const char *tid, const char *name, char *buf, size_t size)
{
	char path[320];

	snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", pid, tid, name);
	return read_small(path, buf, size);
}

int procstat_parse_stat(const char *text, char *state, uint64_t *utime, uint64_t *stime)
{
	/* comm may hold spaces and parentheses: fields restart after the last ')'. */
	const char *p = strrchr(text, ')');
	unsigned long long ut, st;
	char c;

	if (!p)
		return -EINVAL;
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &c, &ut, &st) != 3)
		return -EINVAL;
	if (state)
		*state = c;
	if (utime)
		*utime = ut;
	if (stime)
		*stime = st;
	return 0;
}

static uint64_t ticks_to_ns(uint64_t ticks)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	return ticks * (1000000000ull / (uint64_t)hz);
}

/* Call fn for every thread of pid; stops at the first nonzero return. */
static int for_each_task(pid_t pid, int (*fn)(pid_t pid, const char *tid, void *ctx), void *ctx)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d)))
		if (de->d_name[0] != '.')
			err = fn(pid, de->d_name, ctx);
	closedir(d);
	return err;
}

static int add_schedstat(pid_t pid, const char *tid, void *ctx)
{
	struct proc_times *t = ctx;
	char buf[128];
	unsigned long long ns;

	/* A thread may exit between readdir and open: skip it. */
	if (read_task_file(pid, tid, "schedstat", buf, sizeof(buf)) || sscanf(buf, "%llu", &ns) != 1)
		return 0;
	t->schedstat_ns += ns;
	t->threads++;
	return 0;
}

int procstat_read(pid_t pid, struct proc_times *out)
{
	char path[64], buf[1024];
	uint64_t ut, st;
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	err = procstat_parse_stat(buf, NULL, &ut, &st);
	if (err)
		return err;
	out->utime_ns = ticks_to_ns(ut);
	out->stime_ns = ticks_to_ns(st);
	return for_each_task(pid, add_schedstat, out);
}

/*
 * 1 while the thread may still be on a CPU.  Its state leaves R before it leaves the CPU: it sets
 * S, then schedules, and its runtime grows until the switch.  Where a vCPU stalls (a TCG guest
 * runs its vCPUs in turn) that gap lasts milliseconds, and a reading taken in it misses them.
 * Reading /proc/.../syscall waits in the kernel until the thread is off its CPU and off the run
 * queue (task_current_syscall, wait_task_inactive), and says "running" if it woke meanwhile;
 * after another answer the runtime stays put until the thread wakes.  In a 6.12 TCG guest beside
 * two host hogs the runtime grew after the state left R in 0-3 of 3000 replies, by up to 4.35 ms
 * (a tick), and never after that answer.  Without the right to read that file (another user's
 * process) the state alone decides.
 */
static int check_running(pid_t pid, const char *tid, void *ctx)
{
	char buf[1024], state;

	(void)ctx;
	if (read_task_file(pid, tid, "stat", buf, sizeof(buf)) ||
	    procstat_parse_stat(buf, &state, NULL, NULL))
		return 0;
	if (state == 'R')
		return 1;
	if (state == 'Z' || state == 'X')
		return 0;
	if (read_task_file(pid, tid, "syscall", buf, sizeof(buf)))
		return 0;
	return strncmp(buf, "running", 7) ? 0 : 1;
}

int procstat_wait_sleeping(pid_t pid, int timeout_ms)
{
	struct timespec ts = { 0, 200000 };
	int loops = timeout_ms * 5; /* 200 µs per poll */
	int r;

	for (int i = 0; i <= loops; i++) {
		r = for_each_task(pid, check_running, NULL);
		if (r <= 0)
			return r;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

/* The value after "key" in a /proc status text, or -1. */
static long long status_field(const char *text, const char *key)
{
	const char *at = strstr(text, key);
	long long v;

	return at && sscanf(at + strlen(key), "%lld", &v) == 1 ? v : -1;
}

struct threads_ctx {
	struct proc_thread *out;
	int n, max;
};

static int add_thread(pid_t pid, const char *tid, void *ctx)
{
	struct threads_ctx *c = ctx;
	struct proc_thread *t = &c->out[c->n];
	char buf[2048];
	long long sys = -1, v1, v2;
	unsigned long long rt = 0;

	if (c->n >= c->max)
		return 1;
	/* "running" or "-1 ..." (blocked outside a syscall) do not parse as a number >= 0 */
	if (!read_task_file(pid, tid, "syscall", buf, sizeof(buf)) && sscanf(buf, "%lld", &sys) != 1)
		sys = -1;
	if (read_task_file(pid, tid, "status", buf, sizeof(buf)))
		return 0;
	v1 = status_field(buf, "\nvoluntary_ctxt_switches:");
	v2 = status_field(buf, "nonvoluntary_ctxt_switches:");
	if (v1 < 0 || v2 < 0)
		return 0;
	if (!read_task_file(pid, tid, "schedstat", buf, sizeof(buf)))
		sscanf(buf, "%llu", &rt);
	t->tid = strtoul(tid, NULL, 10);
	t->syscall = sys;
	t->csw = v1 + v2;
	t->runtime_ns = rt;
	c->n++;
	return 0;
}

int procstat_threads(pid_t pid, struct proc_thread *out, int max)
{
	struct threads_ctx c = { .out = out, .max = max };
	int err = for_each_task(pid, add_thread, &c);

	return err < 0 ? err : c.n;
}
