/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The softcode views (--by command, --by softcode): where netmux's time goes in the game's own
 * commands and u() functions.  Find netmux's state in its DWARF (softcode__find), attach the
 * reads and probes once netmux runs (softcode__attach), read the maps at the end
 * (softcode__collect), then name them (softcode_name.h).  The rows per phase and the softcode
 * frames of the artifacts are the report's (report/softcode_rows.h, report/softcode_stacks.h).
 */
#ifndef MUXBPF_SOFTCODE_H
#define MUXBPF_SOFTCODE_H

#include <stdbool.h>
#include <sys/types.h>
#include "loader/softcode_data.h"

/* Find netmux's state in exe's DWARF (or its separate debuginfo under dirs, then
 * /usr/lib/debug).  Never fails: t->ok says whether the views can work, t->why why not. */
void softcode__find(const char *exe, const char *const *dirs, int ndirs, struct sc_target *t);
/*
 * The same in whichever object of the running pid holds mudstate: netmux (exe) first, then each
 * file it has mapped (a shared library, a module dlopened at start such as 2.14's engine.so).
 * t->object names the one found; t->why, when none, says where it looked.
 */
void softcode__locate(pid_t pid, const char *exe, const char *const *dirs, int ndirs,
		      struct sc_target *t);

struct profiler;
struct softcode;

/*
 * Point the BPF side at the running netmux pid (its main thread runs commands) and attach the
 * u() probes in t->object, and the probes that follow its loads (mb_sc_load: a module dlopened
 * again, netmux exec'd again); exact: also the process_command probes and the task clock they
 * read.  NULL with errno set (the reason printed once).
 */
struct softcode *softcode__attach(struct profiler *p, pid_t pid, const char *exe,
				  const struct sc_target *t, bool exact);
void softcode__free(struct softcode *sc);

/* Read the maps (the profiler still attached).  0 or -errno. */
int softcode__collect(struct softcode *sc, struct sc_data *d);
/*
 * A batch's mark: phase's sample counts and (exact mode) times as they are now, cumulative,
 * into snap (counts and times only; free with sc_data__free).  0 or -errno.
 */
int softcode__snapshot(struct softcode *sc, unsigned int phase, struct sc_data *snap);
void sc_data__free(struct sc_data *d);

/* What a session asks of the softcode views (from --by, --exact-commands, --debug-dir). */
struct softcode_opts {
	bool on;                       /* --by command or softcode */
	bool exact;                    /* --exact-commands */
	const char *const *debug_dirs; /* searched before /usr/lib/debug */
	int ndebug_dirs;
};

/*
 * The session's hooks.  start: with the views on, find netmux's state in exe and attach
 * (netmux runs already); NULL when the views are off or unavailable (d->why says why).
 * finish: collect and name while netmux still runs (login: the wizard login or NULL), then
 * detach.
 */
struct softcode *softcode__start(const struct softcode_opts *o, struct profiler *p, pid_t pid,
				 const char *exe, struct sc_target *t, struct sc_data *d);
void softcode__finish(struct softcode *sc, const struct sc_target *t, pid_t pid, int port,
		      const char *login, struct sc_data *d);

#endif /* MUXBPF_SOFTCODE_H */
