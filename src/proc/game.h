/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A throwaway netmux game: a mkdtemp directory built from a template, a generated netmux.conf on
 * a free loopback port, and a netmux child that starts paused so the profiler can attach to its
 * pid before its first instruction.
 */
#ifndef MUXBPF_GAME_H
#define MUXBPF_GAME_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct game_opts {
	const char *netmux;   /* netmux binary; its directory holds libmux.so, stubslave, slave */
	const char *template; /* game template: alias.conf, compat.conf, data/netmux.db, text/ */
	const char *tmpdir;   /* parent of the game directory (default $TMPDIR or /tmp) */
	bool keep;            /* keep the game directory (its path is printed) */
	const char *user;     /* run netmux as this user (name or uid; needs root), NULL: as we
			       * are; the game directory (0700) is handed to it */
	int port;             /* loopback port (0: the kernel picks a free one) */
	const char *const *env; /* VAR=VALUE entries for netmux's environment (muxbpf ab's
				 * --env-a/--env-b), in place of ours of the same names */
	int nenv;
	const char *const *wrap; /* a command netmux runs under (NULL-terminated argv, its first
				  * entry an absolute path), e.g. valgrind --tool=callgrind; NULL:
				  * none */
};

/* What goes into netmux.conf; pure data so the generator is testable. */
struct game_config {
	int port;
	const char *mud_name;
	const char *input_db;  /* relative to the game directory, e.g. "data/netmux.db" */
	bool sqlite;           /* 2.13+: data/netmux.sqlite present in the template */
};

/* Write netmux.conf text for cfg.  Returns 0 or -errno. */
int game_config_write(FILE *f, const struct game_config *cfg);

/*
 * Which /proc/net/tcp{,6} listeners on port are not bound to a loopback address.  Pure.  Returns
 * their count (the first one's hex address in bad), 0 when every listener is loopback, -ENOENT
 * when there is none.
 */
int game_listen_check(const char *text, int port, char *bad, size_t bad_size);

/* Build the game directory and config.  NULL with errno set (one error line printed). */
struct game *game__new(const struct game_opts *opts);
/*
 * Fork the child: it sets up (own process group, the netmux user, cwd, LD_LIBRARY_PATH, log file,
 * parent-death signal), reports the set-up's outcome, and waits on a pipe without exec'ing.
 * Also forks the watchdog: a process that, should muxbpf die without cleaning up (SIGKILL),
 * kills netmux's process group and removes the game directory.  Returns 0 or -errno (one error
 * line printed).
 */
int game__spawn_paused(struct game *g);
/* Let the paused child exec netmux.  Returns 0 or -errno. */
int game__release(struct game *g);
/* Wait until the port accepts a TCP connection.  Fails (with the log tail printed) if netmux
 * exits first or timeout_ms passes, or with -EINTR (nothing printed) once a signal arrived
 * (signals.h).  Returns 0 or -errno. */
int game__wait_ready(struct game *g, int timeout_ms);
/* Has netmux exited?  Non-blocking; reaps it and records the status.  */
bool game__exited(struct game *g);
/* Wait up to timeout_ms for netmux to exit (after @shutdown), then SIGTERM, then SIGKILL the
 * whole process group; always reaps.  Returns 0 if it exited cleanly with status 0. */
int game__stop(struct game *g, int timeout_ms);
/* Stop if still running, remove the directory unless keep (then print its path), free. */
void game__free(struct game *g);

pid_t game__pid(const struct game *g);
int game__port(const struct game *g);
const char *game__dir(const struct game *g);
/* Exit status as from waitpid, or -1 while running. */
int game__status(const struct game *g);
/* "exited with status 1", "was killed by SIGKILL", ... into buf; returns buf. */
const char *game__describe_exit(const struct game *g, char *buf, size_t size);
/* netmux's pidfd (readable once it exits), or -1 when the kernel has no pidfd_open. */
int game__pidfd(const struct game *g);
/* Refuse (-EADDRNOTAVAIL, error printed) when netmux listens on its port anywhere but
 * loopback; the config asks for 127.0.0.1, this checks that the binary obeyed. */
int game__check_loopback(const struct game *g);
/* Print the last lines of netmux's log to stderr (for failures). */
void game__print_log_tail(const struct game *g, int lines);

#endif /* MUXBPF_GAME_H */
