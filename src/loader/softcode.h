/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The softcode views (--by command, --by softcode): where netmux's time goes in the game's own
 * commands and u() functions.  Find netmux's state in its DWARF (softcode__find), attach the
 * reads and probes once netmux runs (softcode__attach), read the maps at the end
 * (softcode__collect), name dbrefs and $-command attributes through the game and netmux's
 * memory (softcode__name), then the pure stages: rows per phase (sc_rows) and labelled
 * softcode frames for the artifacts.
 */
#ifndef MUXBPF_SOFTCODE_H
#define MUXBPF_SOFTCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "muxbpf.h"
#include "loader/probe_cost.h"
#include "base/stats.h"

/* What DWARF says about one netmux binary. */
struct sc_target {
	bool ok;             /* every address below was found */
	char why[512];       /* when not: the one line the report prints */
	char dwarf_file[4096]; /* the file the DWARF came from (the binary or its debuginfo) */
	uint64_t curr_cmd, curr_executor, curr_enactor; /* ELF virtual addresses */
	uint64_t db;         /* &db (OBJ *), 0 when unknown */
	uint32_t obj_size, obj_name_off; /* sizeof(OBJ), offsetof(OBJ, name); 0 when unknown */
	uint64_t process_command;         /* entry (exact mode) */
	uint64_t cmd_exit[8];             /* the call after each call of process_command */
	int ncmd_exit;
	uint64_t ufun_enter[4], ufun_exit[4]; /* do_ufun's call of mux_exec and the call after */
	int nufun;
};

/* Find netmux's state in exe's DWARF (or its separate debuginfo under dirs, then
 * /usr/lib/debug).  Never fails: t->ok says whether the views can work, t->why why not. */
void softcode__find(const char *exe, const char *const *dirs, int ndirs, struct sc_target *t);

struct profiler;
struct softcode;

/*
 * Point the BPF side at the running netmux pid (its main thread runs commands) and attach the
 * u() probes; exact: also the process_command probe and the task clock it reads.  NULL with
 * errno set (the reason printed once).
 */
struct softcode *softcode__attach(struct profiler *p, pid_t pid, const char *exe,
				  const struct sc_target *t, bool exact);
void softcode__free(struct softcode *sc);

struct sc_cmd {
	uint32_t id;
	int32_t executor, enactor;
	char text[MUXBPF_SC_TEXT + 1];
	char *label;   /* the row: "$slow SoftObj(#12)/CMD_SLOW", "look", "(between commands)" */
	bool primary;  /* counts as a run of its row (a $-command's action, a typed built-in) */
	char *frame;   /* the softcode frame of a $-command ("SoftObj(#12)/CMD_SLOW") or NULL */
	char *obj;     /* its object, "#12" */
};

struct sc_frame {
	uint32_t id;
	int32_t thing, executor;
	char text[MUXBPF_SC_FTEXT + 1];
	char *label; /* "HeavyObj(#13)/FN_HEAVY" */
	char *obj;   /* "#13", the frame's file name in pprof */
};

struct sc_path {
	uint32_t id;
	uint32_t frames[MUXBPF_SC_DEPTH]; /* sc_frame ids, outermost first, 0 pads */
};

struct sc_count {
	struct muxbpf_sc_sample_key key;
	uint64_t count;
};

struct sc_time {
	struct muxbpf_sc_time_key key;
	struct muxbpf_sc_time_val val;
};

/* A dbref's name, and a $-command attribute of an object. */
struct sc_name {
	int32_t dbref;
	char *name;
};

struct sc_attr {
	int32_t obj;
	char *attr;    /* CMD_SLOW */
	char *pattern; /* slow (after the $, before the first unescaped ':') */
	char *action;  /* the action text */
};

struct sc_data {
	bool valid;    /* the views ran (else why says why not) */
	bool exact;    /* process_command was probed */
	/* one uprobe hit's cost on this machine (probe_cost.h); negative: not measured */
	double hit_ns;
	/* exact mode: the command probes' pair and its part inside a command; negative: not measured */
	struct probe_ends ends;
	char why[512];
	const char *names_from; /* "the game", "netmux's memory", or NULL */
	uint64_t bias;          /* netmux's load bias (for reading its memory) */
	struct muxbpf_sc_stats stats;
	/* default mode: samples the stack rule moved between commands (sc_move_between) */
	uint64_t moved;
	struct sc_cmd *cmds;
	size_t ncmds;
	struct sc_frame *frames;
	size_t nframes;
	struct sc_path *paths;
	size_t npaths;
	struct sc_count *counts;
	size_t ncounts;
	struct sc_time *times;
	size_t ntimes;
	struct sc_name *names;
	size_t nnames;
	struct sc_attr *attrs;
	size_t nattrs;
};

/* Read the maps (the profiler still attached).  0 or -errno. */
int softcode__collect(struct softcode *sc, struct sc_data *d);
/*
 * A batch's mark: phase's sample counts and (exact mode) times as they are now, cumulative,
 * into snap (counts and times only; free with sc_data__free).  0 or -errno.
 */
int softcode__snapshot(struct softcode *sc, unsigned int phase, struct sc_data *snap);
/*
 * Name the dbrefs and $-commands the data mentions: through a wizard login on 127.0.0.1:port
 * (port > 0; login is "connect NAME PASSWORD"), else netmux's memory (pid > 0, db from DWARF),
 * else #N.  Then label every command and frame.  Best effort: returns nothing.
 */
void softcode__name(struct sc_data *d, const struct sc_target *t, pid_t pid, int port,
		    const char *login);
void sc_data__free(struct sc_data *d);

struct opts;
/*
 * The session's hooks.  start: with --by command or softcode, find netmux's state in exe and
 * attach (netmux runs already); NULL when the views are off or unavailable (d->why says why).
 * finish: collect and name while netmux still runs (login: the wizard login or NULL), then
 * detach.
 */
struct softcode *softcode__start(const struct opts *o, struct profiler *p, pid_t pid,
				 const char *exe, struct sc_target *t, struct sc_data *d);
void softcode__finish(struct softcode *sc, const struct sc_target *t, pid_t pid, int port,
		      const char *login, struct sc_data *d);

/* --- pure stages ---------------------------------------------------------------------------- */

/* Label commands and frames from d->names and d->attrs (softcode__name calls it). */
void sc_label(struct sc_data *d);
/* The verb of a command text: its first word (up to space, '=' or '/' after a leading @). */
void sc_verb(const char *text, char *buf, size_t size);
/* Does a $-command pattern (with * and ? wildcards, case-insensitive) match the text? */
bool sc_match(const char *pattern, const char *text);

struct sc_row {
	char *label;
	uint64_t samples;
	uint64_t runs;    /* exact mode: commands started */
	uint64_t in_ns;   /* exact mode: task clock inside process_command, less probe_ns */
	uint64_t probe_hits; /* exact mode: our u() probe hits inside (muxbpf_sc_time_val.hits) */
	uint64_t segments;   /* exact mode: its timed segments (muxbpf_sc_time_val.segs) */
	/* their cost, removed from in_ns: probe_hits x hit_ns + segments x ends.inside_ns */
	uint64_t probe_ns;
	uint64_t clock_ns; /* in_ns + its share of the time between commands (by commands started) */
	uint64_t cpu_ns;  /* exact mode: clock_ns scaled to the phase's on-CPU (see sc_rows) */
};

struct sc_rows {
	struct sc_row *v; /* by exact on-CPU (or samples), descending */
	size_t n;
	uint64_t samples; /* all of the phase's command-thread samples */
	/*
	 * The task clock also counts the context-switch path (~12 us per switch in this kind of
	 * VM) that the kernel's runtime accounting leaves out: under preemption the segments add
	 * up to more than the phase's exact on-CPU.  cpu_ns = clock_ns * scale, where scale =
	 * on-CPU / the sum of clock_ns, so that the rows share out the kernel's exact runtime.
	 */
	double scale;
	uint64_t between_ns; /* task clock between commands (shared out into clock_ns) */
};

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

/* Rows of phase by command label; oncpu_ns: the phase's exact on-CPU (0: no scaling).
 * 0 or -ENOMEM. */
int sc_command_rows(const struct sc_data *d, unsigned int phase, uint64_t oncpu_ns,
		    struct sc_rows *out);
/*
 * A row's CPU per command in ns, cpu_ns / runs (exact mode), with an interval from the samples:
 * the samples see the row's CPU as share x the phase's on-CPU, so each side of share's interval
 * times oncpu_ns / runs is moved onto the exact value (lo kept >= 0).  Invalid without runs or
 * a valid share.
 */
void sc_cpu_per_cmd_ci(const struct sc_row *row, const struct stats_ci *share, uint64_t oncpu_ns,
		       struct stats_ci *out);
/*
 * Row label's intervals from the phase's batches, cum[0..nb) its command rows at each batch's
 * end (cumulative; the last the report's own).  share: the wider of Wilson and the t interval
 * of its share between the batches (rounds_share_ci; *from: the batches' was the wider).  us:
 * ns per command, the t interval of its exact CPU over its runs between the batches (the ratio
 * of sums, centred on the report's cpu_ns / runs); invalid without runs in 2 batches.  nb < 2:
 * both invalid.
 */
void sc_row_batches_ci(const struct sc_rows *cum, int nb, const char *label,
		       struct stats_ci *share, bool *from, struct stats_ci *us);
/* Rows of phase by softcode path ("CMD > FN > FN"); samples only.  0 or -ENOMEM. */
int sc_path_rows(const struct sc_data *d, unsigned int phase, struct sc_rows *out);
void sc_rows__free(struct sc_rows *r);

/* The softcode frames of one sample key, outermost first: the command's frame (when it is a
 * $-command: *ncmd = 1, else 0) and its u() frames.  Returns how many were written (<= max). */
int sc_sample_frames(const struct sc_data *d, const struct muxbpf_sc_sample_key *k,
		     const char **labels, const char **objs, int max, int *ncmd);

#endif /* MUXBPF_SOFTCODE_H */
