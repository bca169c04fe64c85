/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The control channel (--control): phases marked from outside while muxbpf runs.  A Unix stream
 * socket (--control PATH, created by muxbpf, any number of clients) or a pair of FIFOs
 * (--control fifo:CTL[,ACK]).  One command per line, one reply line per command, sent once the
 * command has taken effect:
 *
 *   phase NAME   end the current phase, start NAME      ok phase NAME t=SECONDS
 *   end          end the current phase (none runs)      ok end NAME t=SECONDS
 *   stop         end the run (the report follows)       ok stop t=SECONDS
 *   status       what runs now                          ok status phase=NAME ...
 *   ping         liveness                               ok pong
 *   anything else                                       error REASON
 *
 * NAME: 1-48 of [A-Za-z0-9_.:+-].  Parsing is pure (control_parse) for the tests.
 */
#ifndef MUXBPF_CONTROL_H
#define MUXBPF_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include "base/phases.h"

enum control_verb {
	CONTROL_PHASE,
	CONTROL_END,
	CONTROL_STOP,
	CONTROL_STATUS,
	CONTROL_PING,
};

struct control_cmd {
	enum control_verb verb;
	char name[PHASE_NAME_MAX + 1]; /* CONTROL_PHASE */
	int client;                    /* who sent it: control__reply() answers there */
};

/* Longest command line accepted. */
#define CONTROL_LINE_MAX 256

/* Parse one line (without its newline; a trailing \r is ignored).  0, or -EINVAL with the
 * reason in err. */
int control_parse(const char *line, struct control_cmd *cmd, char *err, size_t err_size);
/* Is name a valid phase name? */
bool control_name_ok(const char *name);

struct control;

/* Open the channel: "fifo:CTL[,ACK]" or a socket path.  NULL with errno set (error printed). */
struct control *control__open(const char *spec);
/* Readable when a command may be waiting (an epoll fd over everything the channel holds). */
int control__fd(const struct control *c);
/* Take the next complete command, reading what is there without blocking.  1: *cmd filled,
 * 0: none yet.  Malformed lines are answered ("error ...") here and skipped. */
int control__next(struct control *c, struct control_cmd *cmd);
/* Answer the client of cmd with one line (the newline is added).  Never blocks: a client that
 * does not read its replies loses them (counted). */
void control__reply(struct control *c, const struct control_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Where it listens, for messages. */
const char *control__path(const struct control *c);
/* Close every client, remove the socket (and FIFOs muxbpf created). */
void control__free(struct control *c);

#endif /* MUXBPF_CONTROL_H */
