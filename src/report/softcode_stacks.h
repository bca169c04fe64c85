/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The softcode views' stack rule (pure): which samples are between commands. */
#ifndef MUXBPF_SOFTCODE_STACKS_H
#define MUXBPF_SOFTCODE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "loader/softcode_data.h"

/*
 * The default mode's stack rule.  netmux leaves mudstate.curr_cmd set after a command returns,
 * so without the exact mode's probes the samples between two commands count under the one
 * before: 1.8-7% of a mixed window's samples (bench/reports/2026-12-03-softcode-lag.md).  A
 * stack walked up to main with no process_command frame on it is between commands whatever
 * curr_cmd says.
 * A stack cut short (a failed walk, a leaf only) says nothing and keeps its command; so does
 * a typed command's preamble inside process_command, before it sets curr_cmd.
 */
struct mb_profile;
struct mb_resolved;
struct mb_rstack;
struct mb_sym;
struct sample_index;
/*
 * The C++ frames the softcode views anchor on, as the symbolizer names them (demangled, with
 * their parameters): a command runs inside process_command, a u() call inside do_ufun.
 */
#define SC_ANCHOR_COMMAND "process_command("
#define SC_ANCHOR_UFUN "do_ufun("
/* Is frame f the function anchor (one of SC_ANCHOR_*)? */
bool sc_frame_is(const struct mb_sym *f, const char *anchor);
/* Is a stack (frames leaf first, resolved) between commands: main on it, process_command not? */
bool sc_stack_between(const struct mb_sym *frames, uint32_t n);
/* The resolved stack of a count's samples (netmux's command thread, ix over its samples), or
 * NULL when no sample has it. */
const struct mb_rstack *sc_count_stack(const struct sc_count *c, const struct mb_profile *prof,
				       const struct mb_resolved *res, const struct sample_index *ix);
/* Every count of a command (cmd != 0) that between() says is between commands moves to cmd 0.
 * Returns the samples moved. */
uint64_t sc_move_between(struct sc_count *v, size_t n,
			 bool (*between)(const struct sc_count *c, void *ctx), void *ctx);

#endif /* MUXBPF_SOFTCODE_STACKS_H */
