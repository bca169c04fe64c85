/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The driver: talks to netmux over loopback TCP as the wizard, pipelines each phase's commands
 * in chunks with a sentinel per chunk, checks the replies, and calls hooks exactly around each
 * measured window.  It must never be the bottleneck: non-blocking sockets with epoll,
 * TCP_NODELAY, TCP_QUICKACK re-armed before every read.
 */
#ifndef MUXBPF_DRIVE_H
#define MUXBPF_DRIVE_H

#include <stdbool.h>
#include <stdint.h>
#include "proc/reply_check.h"

struct drive_opts {
	double scale;	     /* scaled(n) = max(1, (int)(n * scale)) */
	double idle_seconds; /* length of the idle window (default 8) */
	int chunk;	     /* commands per chunk (default 256) */
	int timeout_ms;	     /* give up when netmux sends nothing for this long (default 30000) */
	int inflight;	     /* chunks outstanding: 1 = wait for each sentinel (default 2) */
	int stop_fd;	     /* > 0: readable = stop now, -EINTR (signals_fd()) */
	int pidfd;	     /* > 0: netmux's pidfd, readable = it exited, -ECHILD */
};

/* Called right before a measured window opens and right after it closes (server quiescent:
 * the last sentinel has arrived).  A nonzero return aborts the run. */
struct phase_hooks {
	int (*begin)(void *ctx, unsigned int phase);
	int (*end)(void *ctx, unsigned int phase);
	void *ctx;
	/* optional: commands of the window answered so far, after every chunk (progress line) */
	void (*progress)(void *ctx, unsigned int phase, uint64_t done, uint64_t total);
	/*
	 * optional: a round of a phase that repeats (driver_phase_repeats) has been answered
	 * (server quiescent, still inside the window); rounds counts it, commands those of the
	 * window so far.  > 0: run another round
	 * of the same work, 0: close the window, < 0: abort the run.  Without it every window is
	 * one round.
	 */
	int (*round)(void *ctx, unsigned int phase, unsigned int rounds, uint64_t commands);
};

struct phase_result {
	unsigned int phase;
	uint64_t commands; /* commands sent in the measured window (sentinels not counted) */
	unsigned int rounds; /* rounds of the phase's work answered in full (0: cut short in the
			      * first) */
	double wall_s;	   /* from begin() returning to end() being called */
	bool ok;	   /* replies checked and correct */
	char error[256];   /* why not ok */
};

/* Connect to 127.0.0.1:port and log in as the wizard.  NULL with errno set (error printed). */
struct driver *driver__new(int port, const struct drive_opts *opts);
/* netmux's version line from @version ("MUX 2.12.0.10 #1 ..."). */
const char *driver__version(const struct driver *d);
/*
 * Run phases (ids from enum muxbpf_phase, canonical order, boot excluded) with the setup each
 * needs done outside any window (objects for attrread, the 32 idle players, ...).  Fills one
 * result per phase.  Returns 0 when every phase ran and checked, -errno otherwise (the first
 * error is printed once and stops the run; later phases say "not run").  end() is called for
 * every begin(), also when the window failed.
 */
int driver__run(struct driver *d, const unsigned int *phases, int n,
		const struct phase_hooks *hooks, struct phase_result *results);
/* Send @shutdown (netmux dumps and exits 0), also after a failed run.  Returns 0 or -errno. */
int driver__shutdown(struct driver *d);
void driver__free(struct driver *d);

#endif /* MUXBPF_DRIVE_H */
