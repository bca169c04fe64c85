/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding a running process to attach to: by pid, by the TCP port it listens on
 * (/proc/net/tcp{,6} inode -> /proc/PID/fd), or by name (comm); and listing its threads.
 * Nothing here knows about netmux: any process will do.
 */
#ifndef MUXBPF_TARGET_H
#define MUXBPF_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Socket inodes of the listeners on port in the text of a /proc/net/tcp or tcp6 file.  Pure.
 * Returns how many were found (up to max stored in inodes), or -EINVAL for a malformed file.
 */
int target_parse_listeners(const char *text, int port, uint64_t *inodes, int max);
/* The process that owns a listening socket on port.  pid, or -errno (-ENOENT: no listener,
 * -ESRCH: no process holds it open, -EEXIST: several processes do; a line says which). */
pid_t target_by_port(int port);
/* The one process whose comm (or argv[0]'s base name) is name.  pid, or -errno (-ESRCH: none,
 * -EEXIST: several, listed in one line). */
pid_t target_by_name(const char *name);
/* The thread ids of pid now, sorted.  Count (*tids malloc'ed), or -errno. */
int target_threads(pid_t pid, pid_t **tids);
/* The process's comm into buf ("" when it is gone).  Returns buf. */
const char *target_comm(pid_t pid, char *buf, size_t size);

#endif /* MUXBPF_TARGET_H */
