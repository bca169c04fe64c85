/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Naming for the softcode views: dbrefs and $-command attributes, then every row's label. */
#ifndef MUXBPF_SOFTCODE_NAME_H
#define MUXBPF_SOFTCODE_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "loader/softcode_data.h"

/*
 * Name the dbrefs and $-commands the data mentions: through a wizard login on 127.0.0.1:port
 * (port > 0; login is "connect NAME PASSWORD"), else netmux's memory (pid > 0, db from DWARF),
 * else #N.  Then label every command and frame.  Best effort: returns nothing.
 */
void softcode__name(struct sc_data *d, const struct sc_target *t, pid_t pid, int port,
		    const char *login);

/* Label commands and frames from d->names and d->attrs (softcode__name calls it). */
void sc_label(struct sc_data *d);
/* The verb of a command text: its first word (up to space, '=' or '/' after a leading @). */
void sc_verb(const char *text, char *buf, size_t size);
/* Does a $-command pattern (with * and ? wildcards, case-insensitive) match the text? */
bool sc_match(const char *pattern, const char *text);

#endif /* MUXBPF_SOFTCODE_NAME_H */
