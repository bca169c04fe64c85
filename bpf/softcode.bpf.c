// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The softcode views: which player command and which u() frames netmux is evaluating when a
 * sample lands.  No probe on the command path: the sampler reads mudstate.curr_cmd and
 * mudstate.curr_executor from the sampled thread's memory (addresses found in DWARF by
 * src/loader/softcode.c, in netmux or in the module that holds mudstate, plus that object's load
 * bias, which mb_sc_load follows when the object is loaded again).  u() frames come from two
 * uprobes on do_ufun's call of mux_exec and on the call right after it (both `call`
 * instructions, which uprobes emulate: no single-step).  The exact mode adds uprobes on
 * process_command's entry and after its calls (or a uretprobe on it), and reads netmux's own
 * task clock there.
 * Everything here runs on netmux's command thread only (one CPU at a time, never nested: the
 * sampler is user-mode only, the uprobes run in the kernel), so plain increments are safe.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "muxbpf.h"
#include "regs.bpf.h"

/* Written by the loader before the first phase (pid 0: the views are off). */
struct muxbpf_sc_config sc_config;
struct muxbpf_sc_stats sc_stats;
__u32 sc_next_cmd = 1, sc_next_frame = 1, sc_next_path = 1;

extern volatile __u32 phase; /* bpf/sample.bpf.c */

/*
 * The command thread's live u() frames (netmux evaluates softcode on one thread).  Not static:
 * clang splits a static struct into scalars whose BTF no longer matches, and the kernel then
 * refuses the object's BTF.
 */
struct {
	__u32 n;     /* stored frames */
	__u32 extra; /* frames deeper than MUXBPF_SC_DEPTH */
	__u64 sp[MUXBPF_SC_DEPTH];
	__u32 id[MUXBPF_SC_DEPTH];
} sc_ustack;

/*
 * Exact mode: the open command, its phase, the task clock at its start and at its return, and
 * the u() probe hits since the segment (the command, or the time after it) began.
 */
struct {
	__u32 cmd;
	__u32 phase;
	__u64 start;
	__u64 end;
	__u32 ended;
	__u32 hits;
} sc_seg;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_sc_cmd_key);
	__type(value, __u32);
	__uint(max_entries, MUXBPF_SC_CMDS);
} sc_cmds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_sc_frame_key);
	__type(value, __u32);
	__uint(max_entries, MUXBPF_SC_FRAMES);
} sc_frames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_sc_path_key);
	__type(value, __u32);
	__uint(max_entries, MUXBPF_SC_PATHS);
} sc_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_sc_sample_key);
	__type(value, __u64);
	__uint(max_entries, MUXBPF_SC_SAMPLE_KEYS);
} sc_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_sc_time_key);
	__type(value, struct muxbpf_sc_time_val);
	__uint(max_entries, MUXBPF_SC_CMDS);
} sc_times SEC(".maps");

/* Exact mode: netmux's command thread's task clock (a per-task event without inherit). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} sc_clock SEC(".maps");

/* The id of key in map (interned on first sight from *next), 0 when the map is full. */
static __always_inline __u32 intern(void *map, const void *key, __u32 *next)
{
	__u32 *v = bpf_map_lookup_elem(map, key), id;

	if (v)
		return *v;
	id = (*next)++;
	/* BPF_NOEXIST: another CPU may have interned it since the lookup */
	if (bpf_map_update_elem(map, key, &id, BPF_NOEXIST) == 0)
		return id;
	v = bpf_map_lookup_elem(map, key);
	if (v)
		return *v;
	sc_stats.lost++;
	return 0;
}

static __always_inline bool on_command_thread(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	return sc_config.pid && (__u32)pid_tgid == sc_config.tid;
}

/* The command being run, from mudstate; 0 when it cannot be read. */
static __always_inline __u32 current_cmd(void)
{
	struct muxbpf_sc_cmd_key key = {};
	__u64 text = 0;

	__u64 bias = sc_config.bias;

	if (!sc_config.loaded)
		return 0;
	if (bpf_probe_read_user(&text, sizeof(text), (void *)(bias + sc_config.curr_cmd)) || !text)
		return 0;
	if (bpf_probe_read_user_str(key.text, sizeof(key.text), (void *)text) < 0)
		return 0;
	bpf_probe_read_user(&key.executor, sizeof(key.executor),
			    (void *)(bias + sc_config.curr_executor));
	bpf_probe_read_user(&key.enactor, sizeof(key.enactor),
			    (void *)(bias + sc_config.curr_enactor));
	return intern(&sc_cmds, &key, &sc_next_cmd);
}

/* The u() frames live at stack pointer sp (entered at or above it), outermost first. */
static __always_inline __u32 current_path(__u64 sp)
{
	struct muxbpf_sc_path_key key = {};
	__u32 n = sc_ustack.n, k = 0;

	if (!n)
		return 0;
	for (__u32 i = 0; i < MUXBPF_SC_DEPTH; i++) {
		if (i >= n)
			break;
		/* a frame entered below sp has returned (its exit was missed) */
		if (sc_ustack.sp[i & (MUXBPF_SC_DEPTH - 1)] < sp)
			break;
		key.frames[i & (MUXBPF_SC_DEPTH - 1)] = sc_ustack.id[i & (MUXBPF_SC_DEPTH - 1)];
		k++;
	}
	if (!k)
		return 0;
	return intern(&sc_paths, &key, &sc_next_path);
}

/* Called by the sampler (bpf/sample.bpf.c) for every sample it counted. */
__hidden int mb_softcode_sample(__u32 ph, __s32 stack_id, __u64 ip, __u64 sp)
{
	struct muxbpf_sc_sample_key key = {};
	__u64 one = 1, *cnt;

	if (!on_command_thread())
		return 0;
	key.phase = ph;
	key.stack_id = stack_id;
	key.ip = stack_id < 0 ? ip : 0;
	/*
	 * Exact mode: the command the probes opened, so that the samples and the task clock see
	 * the same windows.  mudstate.curr_cmd lags them: process_command sets it after its
	 * preamble, and netmux leaves it set after a queued command returns.
	 */
	if (sc_config.exact) {
		key.cmd = sc_seg.ended ? 0 : sc_seg.cmd;
		if (!key.cmd)
			sc_stats.between++;
	} else {
		key.cmd = current_cmd();
		if (!key.cmd)
			sc_stats.no_cmd++;
	}
	key.path = current_path(sp);
	sc_stats.samples++;
	cnt = bpf_map_lookup_elem(&sc_samples, &key);
	if (cnt) {
		(*cnt)++;
		return 0;
	}
	if (bpf_map_update_elem(&sc_samples, &key, &one, BPF_NOEXIST) == 0)
		return 0;
	cnt = bpf_map_lookup_elem(&sc_samples, &key);
	if (cnt)
		(*cnt)++;
	else
		sc_stats.lost++;
	return 0;
}

/* How many stored frames stay when the stack pointer is sp: those entered above it. */
static __always_inline __u32 pop_below(__u64 sp)
{
	__u32 n = sc_ustack.n;

	for (int i = 0; i < MUXBPF_SC_DEPTH; i++) {
		if (!n || n > MUXBPF_SC_DEPTH)
			break;
		if (sc_ustack.sp[(n - 1) & (MUXBPF_SC_DEPTH - 1)] > sp)
			break;
		n--;
	}
	return n;
}

/*
 * At do_ufun's call of mux_exec(pStr, nStr, buff, bufc, executor, caller, enactor, eval, cargs,
 * ncargs): argument 5 is the object whose attribute is evaluated (mux_exec's executor), 6 its
 * caller; argument 9, on the stack (x86-64: rsp + 16, arm64: sp + 0), is &fargs[1]: fargs[0],
 * u()'s first argument, sits just before it.
 */
SEC("uprobe")
int mb_sc_ufun_enter(struct pt_regs *ctx)
{
	struct muxbpf_sc_frame_key key = {};
	__u64 sp = PT_REGS_SP(ctx), cargs = 0, farg0 = 0;
	__u32 n, id;

	if (!on_command_thread())
		return 0;
	sc_stats.ufun_enter++;
	sc_seg.hits++;
	key.thing = (__s32)MB_ARG(ctx, 5);
	key.executor = (__s32)MB_ARG(ctx, 6);
	if (!bpf_probe_read_user(&cargs, sizeof(cargs), (void *)(sp + MB_STACK_ARG_OFF(9))) &&
	    cargs &&
	    !bpf_probe_read_user(&farg0, sizeof(farg0), (void *)(cargs - 8)) && farg0)
		bpf_probe_read_user_str(key.text, sizeof(key.text), (void *)farg0);
	id = intern(&sc_frames, &key, &sc_next_frame);
	if (sc_ustack.extra) {
		sc_ustack.extra++;
		return 0;
	}
	/* frames entered at or below this one have returned: their exits were missed */
	n = pop_below(sp);
	if (n >= MUXBPF_SC_DEPTH) {
		sc_ustack.n = MUXBPF_SC_DEPTH;
		sc_ustack.extra = 1;
		sc_stats.deep++;
		return 0;
	}
	barrier_var(n); /* keep the mask: the verifier needs the bound the compiler knows */
	n &= MUXBPF_SC_DEPTH - 1;
	sc_ustack.sp[n] = sp;
	sc_ustack.id[n] = id;
	sc_ustack.n = n + 1;
	return 0;
}

/* At the call after mux_exec returned (sp is back above the entry's): pop the frame. */
SEC("uprobe")
int mb_sc_ufun_exit(struct pt_regs *ctx)
{
	__u64 sp = PT_REGS_SP(ctx);

	if (!on_command_thread())
		return 0;
	sc_stats.ufun_exit++;
	sc_seg.hits++;
	if (sc_ustack.extra) {
		sc_ustack.extra--;
		return 0;
	}
	sc_ustack.n = pop_below(sp);
	return 0;
}

/* A segment's time and the u() probe hits inside it; its two ends are counted as a segment. */
static __always_inline void charge(__u32 ph, __u32 cmd, __u64 ns)
{
	struct muxbpf_sc_time_key tk = { .phase = ph, .cmd = cmd };
	struct muxbpf_sc_time_val *tv, zero = {};

	tv = bpf_map_lookup_elem(&sc_times, &tk);
	if (!tv) {
		bpf_map_update_elem(&sc_times, &tk, &zero, BPF_NOEXIST);
		tv = bpf_map_lookup_elem(&sc_times, &tk);
	}
	if (tv) {
		tv->cpu_ns += ns;
		tv->hits += sc_seg.hits;
		tv->segs++;
	} else {
		sc_stats.lost++;
	}
}

/*
 * Exact mode, at process_command's entry (executor, caller, enactor, eval, interactive,
 * command text: arguments 1, 3 and 6 are read): the time since the last command returned is
 * between commands (cmd 0); a command that did not return (a nested one starts, a missed exit)
 * is charged up to here.  A new command opens at a second read of the clock, after this
 * program's own work (own_ns: in no segment).
 */
SEC("uprobe")
int mb_sc_cmd_start(struct pt_regs *ctx)
{
	struct muxbpf_sc_cmd_key key = {};
	struct bpf_perf_event_value v = {}, v2 = {};
	struct muxbpf_sc_time_key tk = {};
	struct muxbpf_sc_time_val *tv, zero = {};
	__u32 ph = phase;

	if (!on_command_thread())
		return 0;
	sc_stats.cmd_starts++;
	if (bpf_perf_event_read_value(&sc_clock, 0, &v, sizeof(v))) {
		sc_stats.clock_err++;
		sc_seg.cmd = 0;
		sc_seg.hits = 0;
		return 0;
	}
	if (sc_seg.cmd && !sc_seg.ended && v.counter >= sc_seg.start)
		charge(sc_seg.phase, sc_seg.cmd, v.counter - sc_seg.start);
	else if (sc_seg.cmd && sc_seg.ended && v.counter >= sc_seg.end)
		charge(sc_seg.phase, 0, v.counter - sc_seg.end);
	key.executor = (__s32)MB_ARG(ctx, 1);
	key.enactor = (__s32)MB_ARG(ctx, 3);
	if (MB_ARG(ctx, 6))
		bpf_probe_read_user_str(key.text, sizeof(key.text), (void *)MB_ARG(ctx, 6));
	sc_seg.cmd = intern(&sc_cmds, &key, &sc_next_cmd);
	sc_seg.phase = ph < MUXBPF_MAX_PHASES ? ph : 0;
	sc_seg.start = v.counter;
	sc_seg.ended = 0;
	sc_seg.hits = 0;
	if (!sc_seg.cmd)
		return 0;
	tk.phase = sc_seg.phase;
	tk.cmd = sc_seg.cmd;
	tv = bpf_map_lookup_elem(&sc_times, &tk);
	if (!tv) {
		bpf_map_update_elem(&sc_times, &tk, &zero, BPF_NOEXIST);
		tv = bpf_map_lookup_elem(&sc_times, &tk);
	}
	if (!tv) {
		sc_stats.lost++;
		return 0;
	}
	tv->count++;
	/* the command opens after our own work: read again */
	if (!bpf_perf_event_read_value(&sc_clock, 0, &v2, sizeof(v2)) && v2.counter >= v.counter) {
		sc_seg.start = v2.counter;
		tv->own_ns += v2.counter - v.counter;
	}
	return 0;
}

/*
 * Exact mode, at the call after a call of process_command returned, or (where a call of it has
 * no call after it, or is a tail call: 2.14) at a uretprobe on process_command: the command's
 * time ends.
 */
SEC("uprobe")
int mb_sc_cmd_end(struct pt_regs *ctx)
{
	struct bpf_perf_event_value v = {};

	if (!on_command_thread())
		return 0;
	sc_stats.cmd_ends++;
	if (!sc_seg.cmd || sc_seg.ended)
		return 0;
	if (bpf_perf_event_read_value(&sc_clock, 0, &v, sizeof(v))) {
		sc_stats.clock_err++;
		return 0;
	}
	if (v.counter >= sc_seg.start)
		charge(sc_seg.phase, sc_seg.cmd, v.counter - sc_seg.start);
	sc_seg.ended = 1;
	sc_seg.end = v.counter;
	sc_seg.hits = 0;
	return 0;
}

/*
 * At the start of the object that holds mudstate (its DT_INIT: each dlopen of a module, each exec
 * of netmux), cookie = that instruction's ELF address: the object's load bias is this ip less the
 * cookie, whatever base it was mapped at.  Cookie MUXBPF_SC_UNLOADED, at netmux's own start when
 * mudstate is in a module: netmux was exec'd again (@restart), the module is not mapped yet.
 * Either way the u() frames and the open command belong to the old image.
 */
SEC("uprobe")
int mb_sc_load(struct pt_regs *ctx)
{
	__u64 vaddr = bpf_get_attach_cookie(ctx);

	if (!sc_config.pid || bpf_get_current_pid_tgid() >> 32 != sc_config.pid)
		return 0;
	sc_ustack.n = 0;
	sc_ustack.extra = 0;
	sc_seg.cmd = 0;
	sc_seg.hits = 0;
	if (vaddr == MUXBPF_SC_UNLOADED) {
		sc_config.loaded = 0;
		sc_stats.unloads++;
		return 0;
	}
	sc_config.bias = PT_REGS_IP(ctx) - vaddr;
	sc_config.loaded = 1;
	sc_stats.loads++;
	return 0;
}
