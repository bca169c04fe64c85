/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The softcode views' plain data (--by command, --by softcode): what DWARF says about netmux,
 * and what the softcode maps held at the end of a session, with the names given to them.
 */
#ifndef MUXBPF_SOFTCODE_DATA_H
#define MUXBPF_SOFTCODE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "muxbpf.h"
#include "loader/probe_cost.h"

/*
 * What DWARF says about the object that holds mudstate: netmux itself (2.12), or a module it
 * loaded (2.14's engine.so).  Every address is an ELF virtual address of that object.
 */
struct sc_target {
	bool ok;             /* every address below was found */
	char why[512];       /* when not: the one line the report prints */
	char object[4096];   /* the object: the netmux binary or a module's file */
	char dwarf_file[4096]; /* the file the DWARF came from (the object or its debuginfo) */
	uint64_t start;      /* the object's DT_INIT (else its entry): runs at each load */
	uint64_t exe_start;  /* in a module: netmux's own DT_INIT or entry (each exec), else 0 */
	uint64_t curr_cmd, curr_executor, curr_enactor;
	uint64_t db;         /* &db (OBJ *), 0 when unknown */
	uint32_t obj_size, obj_name_off; /* sizeof(OBJ), offsetof(OBJ, name); 0 when unknown */
	uint64_t process_command;         /* entry (exact mode) */
	uint64_t cmd_exit[8];             /* the call after each call of process_command */
	int ncmd_exit;
	/*
	 * A call of process_command with no call after it in its function, or a tail call (2.14's
	 * CGameEngine::ProcessCommand, do_break): the exact mode ends commands at a uretprobe on
	 * process_command instead of cmd_exit.
	 */
	bool cmd_ret;
	uint64_t ufun_enter[4], ufun_exit[4]; /* do_ufun's call of mux_exec and the call after */
	int nufun;
};

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
	uint64_t bias;          /* the object's load bias at the end (for reading its memory) */
	char object[4096];      /* the object that holds mudstate (sc_target's) */
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

#endif /* MUXBPF_SOFTCODE_DATA_H */
