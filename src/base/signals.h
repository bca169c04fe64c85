/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Interruption.  SIGINT, SIGTERM and SIGHUP are caught: the first one is recorded and makes
 * signals_fd() readable, so that whatever waits (the driver's epoll loop, the boot wait) stops at
 * once; the run then detaches, shuts netmux down, writes the report of what it measured and
 * exits 128 + the signal.  A second one exits at once from the handler: it kills netmux's process
 * group (async-signal-safe), and everything else goes with the process (BPF links are file
 * descriptors; the game directory is removed by the game's watchdog, see game.h).
 */
#ifndef MUXBPF_SIGNALS_H
#define MUXBPF_SIGNALS_H

#include <sys/types.h>

/* Install the handlers (and ignore SIGPIPE).  Returns 0 or -errno. */
int signals_install(void);
/* The first signal received, or 0. */
int signals_pending(void);
/* Readable once a signal has arrived (a pipe; never read, so it stays readable), or -1. */
int signals_fd(void);
/* The process group a second signal kills (netmux's), 0 for none. */
void signals_set_target(pid_t pgid);
/* What the second signal's message says is being lost ("symbolization", ...), a literal. */
void signals_set_stage(const char *stage);
/* Exit code for a signal: 128 + sig. */
int signals_exit_code(int sig);
/* "SIGINT", "SIGKILL", ...; "signal N" for others (static storage). */
const char *signal_name(int sig);

#endif /* MUXBPF_SIGNALS_H */
