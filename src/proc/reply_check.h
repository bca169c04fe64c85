/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the driver sends in each phase and what netmux must answer: pure, no sockets. */
#ifndef MUXBPF_REPLY_CHECK_H
#define MUXBPF_REPLY_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DRIVE_ATTRS_PER_OBJ 12 /* attributes attrwrite stores on each object */
#define DRIVE_MAX_INFLIGHT 16  /* chunks outstanding at most (drive_opts.inflight) */
#define DRIVE_SENTINEL_LEN 32  /* a chunk's sentinel text, with its NUL */
#define DRIVE_MAX_KEPT 64      /* free-form lines kept (reply_check__line) */

/* Commands a phase sends in its window at this scale (0 for idle and non-command phases). */
uint64_t driver_phase_commands(unsigned int phase, double scale);
/*
 * Can the phase's window run its work again, each round the same kind of work as the first?
 * attrread, dispatch and the softcode phases can.  boot (one exec), create (more objects make
 * another database), attrwrite (a second round overwrites instead of adding), dump (a second
 * dump writes a clean database) and idle (its length is --idle-seconds) cannot.
 */
bool driver_phase_repeats(unsigned int phase);

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
/* Reply lines one command of the current phase gets (0: not fixed). */
int reply_check__per_command(const struct reply_check *rc);
/* Replies checked so far in the current phase (sentinels not counted). */
uint64_t reply_check__replies(const struct reply_check *rc);
/* Free-form line i kept since the last chunk was registered with none outstanding, or NULL. */
const char *reply_check__line(const struct reply_check *rc, int i);
const char *reply_check__error(const struct reply_check *rc);
void reply_check__free(struct reply_check *rc);
/* Command i of a phase as the driver sends it (nobj: objects created). */
int driver_phase_command(unsigned int phase, uint64_t i, int nobj, char *buf, size_t size);

#endif /* MUXBPF_REPLY_CHECK_H */
