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
};

struct phase_result {
	unsigned int phase;
	uint64_t commands; /* commands sent in the measured window (sentinels not counted) */
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

/* Commands a phase sends in its window at this scale (0 for idle and non-command phases). */
uint64_t driver_phase_commands(unsigned int phase, double scale);

/*
 * Reply checking, pure (no sockets) so tests can feed it canned transcripts.  The driver
 * registers each chunk it sends (index of its first command, command count, sentinel text) and
 * feeds every byte it reads, split anyhow; the checker drops telnet IAC sequences wherever they
 * are, splits lines, and compares each reply with what command i of the phase must answer.
 * Phase 0 (setup) and phases without fixed replies accept any line that is not an error
 * ("Huh?", "Permission denied.", a failed login, ...), and keep it for reply_check__line().
 */
struct reply_check;

struct reply_check *reply_check__new(void);
/* Check replies as phase's from now on; nobj is the object count attrread's values depend on.
 * Returns 0, or -EBUSY while a chunk is outstanding. */
int reply_check__phase(struct reply_check *rc, unsigned int phase, int nobj);
/* dispatch: the lines one `look` answers (recorded before the window). Returns 0 or -errno. */
int reply_check__set_look(struct reply_check *rc, char *const *lines, int n);
/* A chunk was sent: commands first..first+n-1, then `@pemit me=<sentinel>`.  0 or -errno. */
int reply_check__expect(struct reply_check *rc, uint64_t first, int n, const char *sentinel);
/* Feed bytes as read.  0, or -EBADMSG once a reply was wrong (then see reply_check__error). */
int reply_check__feed(struct reply_check *rc, const void *buf, size_t len);
/* Chunks whose sentinel has not arrived yet. */
int reply_check__pending(const struct reply_check *rc);
/* Replies checked so far in the current phase (sentinels not counted). */
uint64_t reply_check__replies(const struct reply_check *rc);
/* Free-form line i kept since the last chunk was registered with none outstanding, or NULL. */
const char *reply_check__line(const struct reply_check *rc, int i);
const char *reply_check__error(const struct reply_check *rc);
void reply_check__free(struct reply_check *rc);
/* Command i of a phase as the driver sends it (nobj: objects created). */
int driver_phase_command(unsigned int phase, uint64_t i, int nobj, char *buf, size_t size);

#endif /* MUXBPF_DRIVE_H */
