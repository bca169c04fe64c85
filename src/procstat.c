// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "procstat.h"

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
	char path[320], buf[128];
	unsigned long long ns;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", pid, tid);
	/* A thread may exit between readdir and open: skip it. */
	if (read_small(path, buf, sizeof(buf)) || sscanf(buf, "%llu", &ns) != 1)
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

static int check_running(pid_t pid, const char *tid, void *ctx)
{
	char path[320], buf[1024], state;

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, tid);
	if (read_small(path, buf, sizeof(buf)) || procstat_parse_stat(buf, &state, NULL, NULL))
		return 0;
	return state == 'R' ? 1 : 0;
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
