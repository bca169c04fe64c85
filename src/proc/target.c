// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Find a running process by pid, listening port or name; list its threads. */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/grow.h"
#include "base/log.h"
#include "proc/target.h"

#define TCP_LISTEN 0x0A

int target_parse_listeners(const char *text, int port, uint64_t *inodes, int max)
{
	const char *line = text;
	int n = 0;

	/* the first line is the header */
	line = strchr(line, '\n');
	while (line && *++line) {
		unsigned int lport, state;
		unsigned long long inode;
		char local[64];

		/* "  0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000
		 *  0 0 12345 ..." -- sl, local, remote, st, tx:rx, tr:when, retrnsmt, uid, timeout,
		 * inode */
		if (sscanf(line, " %*u: %63[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%*x %*x:%*x %*x "
			   "%*u %*u %llu", local, &lport, &state, &inode) != 4)
			return -EINVAL;
		if ((int)lport == port && state == TCP_LISTEN) {
			if (n < max)
				inodes[n] = inode;
			n++;
		}
		line = strchr(line, '\n');
	}
	return n;
}

static char *read_text(const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return NULL;
	do {
		if (mb_grow((void **)&buf, &cap, len + 4096, 1, 16384)) {
			free(buf);
			close(fd);
			errno = ENOMEM;
			return NULL;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r > 0)
			len += r;
	} while (r > 0);
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Does pid hold one of the socket inodes open? */
static bool holds_socket(const char *pid, const uint64_t *inodes, int n)
{
	char path[300], link[64];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char fdpath[600];
		unsigned long long ino;
		ssize_t len;

		snprintf(fdpath, sizeof(fdpath), "%s/%s", path, e->d_name);
		len = readlink(fdpath, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (sscanf(link, "socket:[%llu]", &ino) != 1)
			continue;
		for (int i = 0; i < n && !found; i++)
			found = inodes[i] == ino;
	}
	closedir(d);
	return found;
}

pid_t target_by_port(int port)
{
	const char *files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	uint64_t inodes[16];
	pid_t found = 0, self = getpid();
	int n = 0, extra = 0;
	struct dirent *e;
	DIR *d;

	for (size_t f = 0; f < 2; f++) {
		char *text = read_text(files[f]);
		int k;

		if (!text)
			continue;
		k = target_parse_listeners(text, port, inodes + n, 16 - n);
		free(text);
		if (k > 0)
			n += k < 16 - n ? k : 16 - n;
	}
	if (!n) {
		pr_err("no process listens on TCP port %d", port);
		return -ENOENT;
	}
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!is_pid(e->d_name) || atoi(e->d_name) == self)
			continue;
		if (!holds_socket(e->d_name, inodes, n))
			continue;
		/* a forked child shares the listener (netmux's dump child): the oldest is the
		 * server, and /proc lists pids in increasing order */
		if (!found)
			found = atoi(e->d_name);
		else
			extra++;
	}
	closedir(d);
	if (!found) {
		pr_err("port %d is listened on, but no process we can see holds the socket "
		       "(another network namespace, or not root?)", port);
		return -ESRCH;
	}
	if (extra)
		pr_warn("%d more processes share the listener on port %d; attaching to the first, "
			"pid %d", extra, port, found);
	return found;
}

const char *target_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	buf[0] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* argv[0]'s base name (comm is cut at 15 characters). */
static void argv0_base(const char *pid, char *buf, size_t size)
{
	char path[300], *text, *slash;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	buf[0] = 0;
	text = read_text(path);
	if (!text)
		return;
	slash = strrchr(text, '/');
	snprintf(buf, size, "%s", slash ? slash + 1 : text);
	free(text);
}

pid_t target_by_name(const char *name)
{
	pid_t found = 0, self = getpid();
	char others[256] = "";
	struct dirent *e;
	int extra = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char comm[64], base[256];
		pid_t pid;

		if (!is_pid(e->d_name) || (pid = atoi(e->d_name)) == self)
			continue;
		target_comm(pid, comm, sizeof(comm));
		if (strcmp(comm, name)) {
			argv0_base(e->d_name, base, sizeof(base));
			if (strcmp(base, name))
				continue;
		}
		if (!found) {
			found = pid;
			continue;
		}
		extra++;
		if (strlen(others) < sizeof(others) - 16)
			snprintf(others + strlen(others), sizeof(others) - strlen(others), " %d",
				 (int)pid);
	}
	closedir(d);
	if (!found) {
		pr_err("no process named '%s'", name);
		return -ESRCH;
	}
	if (extra) {
		pr_err("%d processes are named '%s' (pids %d%s): choose one with --pid", extra + 1,
		       name, (int)found, others);
		return -EEXIST;
	}
	return found;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int target_threads(pid_t pid, pid_t **tids)
{
	char path[64];
	struct dirent *e;
	pid_t *v = NULL;
	size_t cap = 0;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!is_pid(e->d_name))
			continue;
		if (mb_grow((void **)&v, &cap, n + 1, sizeof(*v), 16)) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = atoi(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_pid);
	*tids = v;
	return n;
}
