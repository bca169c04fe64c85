/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one ABI shared by the BPF programs (bpf/) and the loader (src/).
 *
 * Rules: fixed-width __u32/__u64 fields, explicit padding, a _Static_assert on every struct size,
 * no bool/long/pointers.  Every enum that both halves use lives here and only here.
 */
#ifndef MUXBPF_H
#define MUXBPF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Deepest user stack the sampler records (bpf_get_stackid's own limit is 127). */
#define MUXBPF_MAX_STACK_DEPTH 127
/*
 * Phase ids are small integers; id 0 means "outside any phase".  The netmux phases take the
 * first ids, phases named from outside (attach, --control, --interval) the rest.
 */
#define MUXBPF_MAX_PHASES 128
/* Default map sizes; the loader may change them between open and load. */
#define MUXBPF_DEFAULT_STACKS 16384
#define MUXBPF_DEFAULT_SAMPLE_KEYS 65536
#define MUXBPF_MAX_THREADS 8192
#define MUXBPF_COMM_LEN 16

/*
 * The netmux phases, in canonical run order.  The names live in src/phases.c.  Other targets
 * (the synthetic test target) use plain ids below MUXBPF_MAX_PHASES.
 */
enum muxbpf_phase {
	MUXBPF_PHASE_NONE = 0,
	MUXBPF_PHASE_BOOT,
	MUXBPF_PHASE_CREATE,
	MUXBPF_PHASE_ATTRWRITE,
	MUXBPF_PHASE_DUMP,
	MUXBPF_PHASE_ATTRREAD,
	MUXBPF_PHASE_IDLE,
	MUXBPF_PHASE_DISPATCH,
	MUXBPF_PHASE_SOFTCODE_ARITH,
	MUXBPF_PHASE_SOFTCODE_LIST,
	MUXBPF_PHASE__COUNT,
};

/*
 * Why a sample the sampler ran for was not kept whole.  Only COUNTS_FULL loses the sample
 * (taken = recorded + dropped[COUNTS_FULL]); the others are recorded degraded, as the leaf
 * alone or under phase 0.
 */
enum muxbpf_drop {
	MUXBPF_DROP_STACK_FAILED = 0, /* the stack walk could not run: recorded as the leaf alone */
	MUXBPF_DROP_COUNTS_FULL,      /* the samples hash is full: the sample is lost */
	MUXBPF_DROP_PHASE_RANGE,      /* phase id out of range: recorded under phase 0 */
	MUXBPF_DROP_STACK_FULL,       /* its stack map is full: recorded as the leaf alone */
	MUXBPF_DROP__COUNT,
};

/*
 * Key of the samples hash: one counter per {phase, process, thread, stack}.  When the stack
 * could not be taken, stack_id holds the negative error and ip the leaf address, so the sample
 * still counts; otherwise ip is 0 (the leaf is the stack's first frame).
 */
struct muxbpf_sample_key {
	__u32 phase;
	__u32 pid; /* tgid */
	__u32 tid;
	__s32 stack_id;
	__u64 ip;
};
_Static_assert(sizeof(struct muxbpf_sample_key) == 24, "muxbpf_sample_key layout");

/* How the user stack is walked (--unwind): frame pointers, CFI only, or CFI with fp fallback. */
enum muxbpf_unwind_mode {
	MUXBPF_UNWIND_FP = 0,
	MUXBPF_UNWIND_DWARF,
	MUXBPF_UNWIND_AUTO,
};

/* How a user stack walk ended: the first two are clean ends, the others truncations. */
enum muxbpf_walk_end {
	MUXBPF_WALK_OUTERMOST = 0, /* CFI row with the return address undefined (_start, clone3) */
	MUXBPF_WALK_ZERO_END,      /* rbp = 0 in a frame-pointer step, or a return address of 0 */
	MUXBPF_WALK_NO_PROC,       /* no unwind tables loaded for the process yet */
	MUXBPF_WALK_NO_TABLE,      /* pc in no mapping with CFI (dwarf mode) */
	MUXBPF_WALK_NO_ROW,        /* pc in a mapping whose CFI does not cover it (dwarf mode) */
	MUXBPF_WALK_UNSUPPORTED,   /* a CFI rule the walker cannot evaluate (dwarf mode) */
	MUXBPF_WALK_READ_FAULT,    /* a stack word could not be read */
	MUXBPF_WALK_BAD_FRAME,     /* CFA not above sp, rbp needed but lost, RA not a user address */
	MUXBPF_WALK_DEPTH,         /* MUXBPF_MAX_STACK_DEPTH frames and more to go */
	MUXBPF_WALK_END__COUNT,
};

/* Per-phase sampler accounting (per-CPU array indexed by phase): taken = recorded + lost. */
struct muxbpf_phase_stats {
	__u64 taken;    /* samples the program ran for */
	__u64 recorded; /* samples counted in the samples hash (with or without a stack) */
	__u64 dropped[MUXBPF_DROP__COUNT];
	/* User stack walks (bpf/unwind.bpf.c): walks = sum of walk_end. */
	__u64 walks;
	__u64 frames;    /* frames recorded */
	__u64 fp_frames; /* callers found by frame pointer (fp mode, or auto's fallback) */
	__u64 walk_end[MUXBPF_WALK_END__COUNT];
};
_Static_assert(sizeof(struct muxbpf_phase_stats) == 144, "muxbpf_phase_stats layout");

/*
 * CFI unwind tables (src/cfi.c compiles them, src/unwind.c loads them, bpf/unwind.bpf.c walks).
 * Rows of every table live in one array, each table a sorted run [row_first, +row_count) of
 * {pc, info}: the rule at pc holds until the next row's pc.  Rules are deduplicated into a
 * second array (a few thousand distinct ones cover a whole process), so a row is 8 bytes.
 */
/*
 * The registers are named for x86-64; on AArch64 "rsp" is sp, "rbp" the frame pointer x29 and
 * "rip" the pc (signal and PLT rules are x86-64's only).
 */
enum muxbpf_cfa {
	MUXBPF_CFA_NONE = 0,    /* no CFI covers this pc (a gap between FDEs) */
	MUXBPF_CFA_RSP,         /* CFA = rsp + cfa_off */
	MUXBPF_CFA_RBP,         /* CFA = rbp + cfa_off */
	MUXBPF_CFA_PLT,         /* CFA = rsp + cfa_off + ((rip & 15) >= plt_thresh ? 8 : 0) */
	MUXBPF_CFA_SIGNAL,      /* signal trampoline: rip, rsp, rbp saved at rsp + ra/cfa/rbp_off */
	MUXBPF_CFA_END,         /* return address undefined: the outermost frame */
	MUXBPF_CFA_UNSUPPORTED, /* a rule the walker cannot evaluate (an unknown expression) */
};

enum muxbpf_rbp {
	MUXBPF_RBP_SAME = 0, /* the caller's rbp is this frame's */
	MUXBPF_RBP_AT,       /* saved at CFA + rbp_off */
	MUXBPF_RBP_LOST,     /* undefined or not expressible: an rbp-based CFA above is unusable */
};

/* Where the return address is (AArch64's leaves keep it in the link register x30). */
enum muxbpf_ra {
	MUXBPF_RA_AT = 0, /* at CFA + ra_off */
	MUXBPF_RA_LR,     /* still in x30, the frame's own (valid in the interrupted frame only) */
};

struct muxbpf_unwind_info {
	__u8 cfa;        /* enum muxbpf_cfa */
	__u8 rbp;        /* enum muxbpf_rbp */
	__u8 plt_thresh; /* MUXBPF_CFA_PLT */
	__u8 ra;         /* enum muxbpf_ra */
	__s32 cfa_off;
	__s32 rbp_off;
	__s32 ra_off; /* MUXBPF_RA_AT: the return address is at CFA + ra_off (-8 on x86-64) */
};
_Static_assert(sizeof(struct muxbpf_unwind_info) == 16, "muxbpf_unwind_info layout");

struct muxbpf_unwind_row {
	__u32 pc;   /* address - muxbpf_unwind_map.base */
	__u32 info; /* index in the infos array */
};
_Static_assert(sizeof(struct muxbpf_unwind_row) == 8, "muxbpf_unwind_row layout");

/* Executable mappings of one process with a table, sorted by start. */
#define MUXBPF_UNW_MAX_MAPS 64
#define MUXBPF_UNW_MAX_PROCS 256

/*
 * Each table has a page index in a third array: entry k holds the rows (relative to row_first)
 * that can cover a pc in [k << MUXBPF_UNW_IDX_SHIFT, (k + 1) << MUXBPF_UNW_IDX_SHIFT): from the
 * last row at or before the page's start to the last row before its end.  At most 2^SHIFT + 1
 * rows: a binary search of SHIFT + 1 steps instead of one over the whole table.
 */
#define MUXBPF_UNW_IDX_SHIFT 8

struct muxbpf_unwind_page {
	__u32 first, last;
};
_Static_assert(sizeof(struct muxbpf_unwind_page) == 8, "muxbpf_unwind_page layout");

struct muxbpf_unwind_map {
	__u64 start, end; /* [start, end) in the process */
	__u64 base;       /* row pc = address - base */
	__u32 row_first;
	__u32 row_count;
	__u32 idx_first; /* the table's page index: [idx_first, idx_first + idx_count) */
	__u32 idx_count;
};
_Static_assert(sizeof(struct muxbpf_unwind_map) == 40, "muxbpf_unwind_map layout");

struct muxbpf_unwind_proc {
	__u32 n;
	__u32 gen; /* unique per record written (never 0): tags the walker's per-CPU rule cache */
	struct muxbpf_unwind_map maps[MUXBPF_UNW_MAX_MAPS];
};
_Static_assert(sizeof(struct muxbpf_unwind_proc) == 8 + 40 * MUXBPF_UNW_MAX_MAPS,
	       "muxbpf_unwind_proc layout");

/* Sent (rate-limited) when a sample's pc lies in no known mapping: reload the process's maps. */
struct muxbpf_unwind_req {
	__u32 pid;
	__u32 __pad;
	__u64 ip;
};
_Static_assert(sizeof(struct muxbpf_unwind_req) == 16, "muxbpf_unwind_req layout");

/*
 * The sampler's record of the spacing of consecutive samples of one thread (bpf/sample.bpf.c):
 * bucket i counts spacings of i to i + 1 twentieths of the mean period, the last one those of
 * two mean periods and more.  A thread that runs between two samples has them a period apart:
 * the random period (src/jitter.c) spreads them over 0.5-1.5 of the mean, a fixed one puts them
 * at the mean and above (a thread that slept in between adds its sleep).
 */
#define MUXBPF_SPACING_BUCKETS 41

/*
 * The content-addressed stack maps: key = the frames, zero-padded to the bucket's depth, value =
 * a sequential id (the sample key's stack_id) and how the walk ended.  Four buckets so that a
 * short stack hashes 128 bytes, not 1016.
 */
#define MUXBPF_STACK_BUCKETS 4
#define MUXBPF_STACK_BUCKET_DEPTHS { 16, 32, 64, MUXBPF_MAX_STACK_DEPTH }
/* The stack id mb_user_stack returns when the bucket of its depth is full (-ENOSPC; the BPF side
 * has no errno.h). */
#define MUXBPF_STACK_FULL (-28)

struct muxbpf_stack_val {
	__u32 id;
	__u32 end; /* enum muxbpf_walk_end of the first walk that stored it */
};
_Static_assert(sizeof(struct muxbpf_stack_val) == 8, "muxbpf_stack_val layout");

/*
 * One thread's counters as the kernel keeps them: runtime (task->se.sum_exec_runtime, ns),
 * runqueue wait (sched_info), context switches and page faults.  The task iterator writes one
 * record per thread of the target; the exit handler keeps the last value of threads that exit,
 * keyed by tid.  All exact, none derived from pairing events.
 */
struct muxbpf_task_rt {
	__u32 pid; /* tgid */
	__u32 tid;
	__u64 runtime_ns;
	char comm[MUXBPF_COMM_LEN];
	__u64 run_delay_ns; /* time runnable but waiting on a runqueue */
	__u64 pcount;       /* times run on a CPU */
	__u64 nvcsw;        /* voluntary context switches */
	__u64 nivcsw;       /* involuntary context switches */
	__u64 min_flt;      /* minor page faults */
	__u64 maj_flt;      /* major page faults */
	__u64 start_ns;     /* task->start_time: creation, CLOCK_MONOTONIC */
	__u64 exit_ns;      /* when it exited (CLOCK_MONOTONIC), 0 while alive */
	__u64 dead_ns;      /* its last switch-out (CLOCK_MONOTONIC): runtime_ns is final; 0 before */
};
_Static_assert(sizeof(struct muxbpf_task_rt) == 104, "muxbpf_task_rt layout");

/*
 * The time ledger (bpf/ledger.bpf.c): exact time inside syscalls, by syscall and by user call
 * site, wakeups by waker, and time preempted outside syscalls.  A call is booked to the phase it
 * returns in; the loader moves the parts of calls in flight at a phase boundary (thread_state,
 * read while the target sleeps) to the right side of the boundary.
 */
#define MUXBPF_DEFAULT_SYSCALL_KEYS 8192

/* The ledger's maps that can fill; an entry that does not fit is counted per phase and map
 * (ledger_lost, key phase * MUXBPF_LMAP__COUNT + map). */
enum muxbpf_ledger_map {
	MUXBPF_LMAP_THREAD_STATE = 0,
	MUXBPF_LMAP_SYSCALLS,
	MUXBPF_LMAP_SITES,
	MUXBPF_LMAP_WAKEUPS,
	MUXBPF_LMAP_THREADS,
	MUXBPF_LMAP__COUNT,
};
#define MUXBPF_DEFAULT_SITE_KEYS 16384

struct muxbpf_sys_key {
	__u32 phase;
	__u32 tid;
	__u32 nr; /* syscall number */
	__u32 __pad;
};
_Static_assert(sizeof(struct muxbpf_sys_key) == 16, "muxbpf_sys_key layout");

struct muxbpf_sys_val {
	__u64 count;   /* calls that returned in the phase */
	__u64 cpu_ns;  /* on-CPU inside the call (wall minus the off-CPU intervals) */
	__u64 wall_ns; /* enter to exit */
	__u64 inexact; /* calls where a missing sched_switch was detected (cpu estimated) */
	/*
	 * Stolen inside the calls (muxbpf_thread_val.stolen_ns), out of cpu_ns: cpu_ns + stolen_ns
	 * is the time on a CPU.  From the runqueue's clocks at entry, exit and switches; at entry
	 * and exit they are as of the CPU's last tick or scheduler event, so stolen time is booked
	 * to the call, or the user code, that runs when the kernel notices it.
	 */
	__u64 stolen_ns;
};
_Static_assert(sizeof(struct muxbpf_sys_val) == 40, "muxbpf_sys_val layout");

/* Kernel time by user call site: the user stack at syscall entry. */
/*
 * Walking the user stack costs microseconds, more than the syscall itself for cheap calls, so
 * the call site is taken for 1 syscall in N (--site-every, default 32), each call drawn on its
 * own (a Bernoulli sample: no loop's calls lock step with it, and a call's chance does not
 * depend on whether the call before it was walked), at the call's exit
 * (outside its time); the syscall table stays exact, the call-site table is a random sample.
 */
#define MUXBPF_DEFAULT_SITE_EVERY 32
/*
 * The ledger walks a call's site when a 32-bit random draw is at most this: floor(2^32 / N) - 1,
 * so the chance is floor(2^32 / N) / 2^32, 1 in N within 2^-32 (N = 1: every call).  N > 0.
 */
#define MUXBPF_SITE_THRESHOLD(n) ((__u32)(0x100000000ULL / (__u64)(n) - 1))

struct muxbpf_site_key {
	__u32 phase;
	__u32 nr;
	__s32 stack_id; /* in the sampler's stack maps; -errno when the walk failed */
	__u32 pid;
};
_Static_assert(sizeof(struct muxbpf_site_key) == 16, "muxbpf_site_key layout");

struct muxbpf_site_val {
	__u64 count;
	__u64 cpu_ns;
	__u64 wall_ns;
	__u64 cpu_sq;  /* sum of (cpu_ns >> 4)^2: the sampling interval of a site's share */
	__u64 walk_ns; /* the stack walks' own time, after the calls' exits (not in cpu_ns) */
};
_Static_assert(sizeof(struct muxbpf_site_val) == 40, "muxbpf_site_val layout");

/*
 * What woke a target thread, as far as the kernel tells at the wakeup: the ledger tracks, per
 * CPU, whether an hrtimer callback or a softirq is running (hrtimer_expire_*, softirq_*).
 */
enum muxbpf_waker {
	MUXBPF_WAKER_TIMER = 0, /* an hrtimer callback: a timeout (select, nanosleep, ...) */
	MUXBPF_WAKER_SOFTIRQ,   /* a softirq; detail = vector (3: network receive, 1: timer wheel) */
	MUXBPF_WAKER_TASK,      /* another process, in task context (its comm is kept) */
	MUXBPF_WAKER_SELF,      /* another thread of the target */
	MUXBPF_WAKER__COUNT,
};

struct muxbpf_wake_key {
	__u32 phase;
	__u32 kind;      /* enum muxbpf_waker */
	__u32 waker_pid; /* tgid for MUXBPF_WAKER_TASK/SELF, else 0 */
	__u32 detail;    /* softirq vector for MUXBPF_WAKER_SOFTIRQ */
};
_Static_assert(sizeof(struct muxbpf_wake_key) == 16, "muxbpf_wake_key layout");

struct muxbpf_wake_val {
	__u64 count;
	char comm[MUXBPF_COMM_LEN]; /* the waker's, for MUXBPF_WAKER_TASK */
};
_Static_assert(sizeof(struct muxbpf_wake_val) == 24, "muxbpf_wake_val layout");
#define MUXBPF_DEFAULT_WAKE_KEYS 4096

/* Per-thread time preempted while in user mode (off CPU outside any syscall), per phase. */
struct muxbpf_thread_key {
	__u32 phase;
	__u32 tid;
};
_Static_assert(sizeof(struct muxbpf_thread_key) == 8, "muxbpf_thread_key layout");

struct muxbpf_thread_val {
	__u64 preempt_user_ns; /* off CPU after a preemption in user mode, until back on */
	__u64 switch_out;      /* switch-outs seen */
	__u64 missed;          /* syscalls whose switch count disagreed with the events seen */
	/*
	 * The context-switch path: time between the tracepoints that the kernel's runtime does
	 * not count as on-CPU (from update_curr at switch-out to the tracepoint, and from pick
	 * to the switch-in tracepoint).  Exact per switch: between two switch-outs, the
	 * tracepoint-measured on-CPU interval minus the runtime's delta, less stolen_ns's part,
	 * summed over the intervals where that is positive (where it is negative, into
	 * rt_before_in_ns).
	 */
	__u64 switch_path_ns;
	/*
	 * Switch-ins this kernel did not report (the thread was found running while its state
	 * said switched out), repaired from the kernel's runtime and run_delay.
	 */
	__u64 missed_in;
	/*
	 * Stolen: in the thread's on-CPU intervals, the time its runqueue's clock advanced and
	 * its task clock did not (rq->clock - rq->clock_task, fresh at every switch).  That is
	 * what the kernel's runtime leaves out while the thread holds the CPU: time the host
	 * stole from the vCPU (CONFIG_PARAVIRT_TIME_ACCOUNTING) and interrupt time
	 * (CONFIG_IRQ_TIME_ACCOUNTING).  0 on a kernel with neither (Debian's 6.1 and 6.12): there
	 * the runtime counts that time as the thread's.
	 */
	__u64 stolen_ns;
	/*
	 * The intervals whose runtime delta exceeds their tracepoint-measured time (less stolen):
	 * the kernel started the thread's runtime before the switch-in we see (a wakeup that
	 * preempts the idle task skips the clock update at the switch, so the runtime starts from
	 * the clock as the wakeup left it).  That time is in the runtime (on-CPU) and, by the
	 * tracepoints, off the CPU: the balance subtracts it.
	 */
	__u64 rt_before_in_ns;
};
_Static_assert(sizeof(struct muxbpf_thread_val) == 56, "muxbpf_thread_val layout");

/*
 * A thread's own table of returned calls, a slot per syscall number mod MUXBPF_SYS_CACHE (a
 * power of two), for one phase: calls are booked here with no map work, and reach the syscalls
 * map when another number takes the slot or at the thread's first return after a boundary.
 */
#define MUXBPF_SYS_CACHE 16

struct muxbpf_sys_slot {
	__u32 nr;
	__u32 inexact;
	__u64 count;
	__u64 cpu_ns;
	__u64 wall_ns;
	__u64 stolen_ns;
};
_Static_assert(sizeof(struct muxbpf_sys_slot) == 40, "muxbpf_sys_slot layout");

/* A thread's state between events (ledger.bpf.c's own; exposed for the in-flight read at the
 * end of a run). */
struct muxbpf_thread_state {
	__u64 enter_ns;    /* syscall entry (CLOCK_MONOTONIC) */
	__u64 run_ns;      /* last switch-in (or enter) while in the syscall */
	__u64 cpu_ns;      /* on-CPU accumulated in the syscall since enter_ns */
	__u64 csw;         /* nvcsw + nivcsw at entry */
	__u64 rt_enter;    /* se.sum_exec_runtime at entry */
	__u64 off_ns;      /* when switched out (user-mode preemption or inside the syscall) */
	__s64 nr;          /* syscall in progress, -1 when in user mode */
	__u32 phase;       /* the phase at syscall entry */
	__u32 outs;        /* switch-outs seen inside the syscall */
	__u32 off;         /* 1 while switched out */
	__u32 __pad3;      /* (was the call site: walked at the exit now, bpf/ledger.bpf.c) */
	__u64 out_rt;      /* se.sum_exec_runtime at the last switch-out (fresh there) */
	__u64 in_ns;       /* the last switch-in */
	__u32 pending;     /* an out -> in -> out interval is open (out_rt, off_ns, in_ns valid) */
	__u32 site_rng;    /* the call-site draws' counter (bpf/ledger.bpf.c, site_drawn()) */
	__u64 out_delay;   /* sched_info.run_delay at the last switch-out (fresh there) */
	__u64 in_gap;      /* rq->clock - rq->clock_task at the last switch-in (stolen_ns) */
	__u64 run_gap;     /* the same at enter_ns or the last switch-in in the call (run_ns) */
	__u64 stolen_in;   /* stolen in the syscall since enter_ns (muxbpf_sys_val.stolen_ns) */
	__u32 inexact;     /* the call in progress missed a switch-in: its CPU is repaired */
	__u32 cache_phase; /* the phase of the calls in cache[] */
	__u32 cache_epoch; /* the boundary cache[] was last flushed at */
	__u32 gap_cpu;     /* the CPU of the last in_gap or run_gap reading, + 1 (0: none) */
	struct muxbpf_sys_slot cache[MUXBPF_SYS_CACHE];
	__u32 __pad2;
	/*
	 * The boundary (phase_epoch >> 32) this state has seen.  The first event after a boundary
	 * copies a call in flight to boundary_state before touching it, so the loader reads every
	 * thread as it was at the boundary however late it reads.  Last: a reader copying the
	 * value in address order sees the rest no newer than this.
	 */
	__u32 epoch;
};
_Static_assert(sizeof(struct muxbpf_thread_state) == 792, "muxbpf_thread_state layout");

/* One map's occupancy, written by bpf/mapcount.bpf.c's bpf_map iterator. */
struct muxbpf_map_count {
	__u32 id;
	__u32 max_entries;
	__s64 elements; /* the kernel's per-CPU element counter, summed */
};
_Static_assert(sizeof(struct muxbpf_map_count) == 16, "muxbpf_map_count layout");

/*
 * The softcode views (bpf/softcode.bpf.c, src/softcode.c): the sampler reads the command netmux
 * is running (mudstate.curr_cmd, curr_executor: addresses from DWARF at attach) from the sampled
 * thread's memory, and u() frames come from two uprobes on do_ufun's call of mux_exec.  Commands
 * and frames are interned by content into small ids; each netmux sample is counted once more
 * under {phase, command, softcode path, stack}.
 */
#define MUXBPF_SC_TEXT 64     /* bytes of command text kept (the verb and some of its arguments) */
#define MUXBPF_SC_FTEXT 48    /* bytes of u()'s first argument kept ("#12/FN_HEAVY") */
#define MUXBPF_SC_DEPTH 8     /* u() frames kept per path (deeper ones count as the 8th) */
#define MUXBPF_SC_CMDS 4096
#define MUXBPF_SC_FRAMES 4096
#define MUXBPF_SC_PATHS 8192
#define MUXBPF_SC_SAMPLE_KEYS 32768

/* A command: who runs it and the first MUXBPF_SC_TEXT bytes of its text (NUL-padded). */
struct muxbpf_sc_cmd_key {
	__s32 executor;
	__s32 enactor;
	char text[MUXBPF_SC_TEXT];
};
_Static_assert(sizeof(struct muxbpf_sc_cmd_key) == 8 + MUXBPF_SC_TEXT, "muxbpf_sc_cmd_key layout");

/* A u() frame: the object whose attribute is evaluated, its caller, and u()'s first argument. */
struct muxbpf_sc_frame_key {
	__s32 thing;
	__s32 executor;
	char text[MUXBPF_SC_FTEXT];
};
_Static_assert(sizeof(struct muxbpf_sc_frame_key) == 8 + MUXBPF_SC_FTEXT,
	       "muxbpf_sc_frame_key layout");

/* The u() frames live at a sample, outermost first (ids + 1; 0 pads). */
struct muxbpf_sc_path_key {
	__u32 frames[MUXBPF_SC_DEPTH];
};
_Static_assert(sizeof(struct muxbpf_sc_path_key) == 4 * MUXBPF_SC_DEPTH, "muxbpf_sc_path_key layout");

/* Ids: 0 = none (no command known, no u() frame); interned ones start at 1. */
struct muxbpf_sc_sample_key {
	__u32 phase;
	__s32 stack_id; /* as in muxbpf_sample_key */
	__u64 ip;       /* the leaf when stack_id < 0 */
	__u32 cmd;
	__u32 path;
};
_Static_assert(sizeof(struct muxbpf_sc_sample_key) == 24, "muxbpf_sc_sample_key layout");

/*
 * Exact mode (uprobes on process_command's entry and after its call sites): on-CPU from a
 * command's start to its return; cmd 0 holds the time between commands (the main loop, output,
 * the queue), shared out over the phase's commands by the loader.
 */
struct muxbpf_sc_time_key {
	__u32 phase;
	__u32 cmd;
};
_Static_assert(sizeof(struct muxbpf_sc_time_key) == 8, "muxbpf_sc_time_key layout");

struct muxbpf_sc_time_val {
	__u64 count;  /* commands started */
	__u64 cpu_ns; /* the task clock from each start to the next start */
	/*
	 * Our own u() probe hits inside that time, whose traps the task clock counts; the loader
	 * removes them (one hit's cost each, src/probe_cost.c).
	 */
	__u64 hits;
	/*
	 * The segments charged.  Each lies between two clock reads of our process_command probes,
	 * so it holds part of two hits: the opening one after its read, the closing one before its
	 * read.  That part is not half of a hit; the loader measures it (probe_cost_ends()).
	 */
	__u64 segs;
	/*
	 * The entry program's own work, between its two clock reads: the previous segment ends at
	 * the first, the command's starts at the second, so it is in no segment.  Exact.
	 */
	__u64 own_ns;
};
_Static_assert(sizeof(struct muxbpf_sc_time_val) == 40, "muxbpf_sc_time_val layout");

/* Where the loader found netmux's state (written into .bss before the first phase). */
struct muxbpf_sc_config {
	__u32 pid;          /* netmux's tgid; 0: the views are off */
	__u32 tid;          /* the thread that runs commands (the main thread) */
	/*
	 * ELF addresses in the object that holds mudstate (netmux itself, or a module such as
	 * 2.14's engine.so): the sampler reads bias + each.
	 */
	__u64 curr_cmd;     /* mudstate.curr_cmd (a const UTF8 *) */
	__u64 curr_executor; /* mudstate.curr_executor (a dbref) */
	__u64 curr_enactor; /* mudstate.curr_enactor */
	/*
	 * The object's load bias, set by the loader from the memory map and again by mb_sc_load
	 * each time the object is loaded (a dlopen, an exec); valid while loaded is 1.
	 */
	__u64 bias;
	/*
	 * Exact mode (process_command probed): a sample counts under the command the probes
	 * opened, or between commands, not under mudstate.curr_cmd (bpf/softcode.bpf.c).
	 */
	__u32 exact;
	__u32 loaded;
};
_Static_assert(sizeof(struct muxbpf_sc_config) == 48, "muxbpf_sc_config layout");

/* mb_sc_load's cookie at the executable's start when mudstate lives in a module: unloaded. */
#define MUXBPF_SC_UNLOADED (~0ull)

/* Probe and intern accounting (bss counters). */
struct muxbpf_sc_stats {
	__u64 samples;    /* samples of netmux's command thread */
	__u64 no_cmd;     /* of which curr_cmd could not be read (not read in exact mode) */
	__u64 ufun_enter, ufun_exit, cmd_starts;
	__u64 lost;       /* a map was full (command, frame, path or sample keys) */
	__u64 deep;       /* u() frames beyond MUXBPF_SC_DEPTH */
	__u64 clock_err;  /* exact mode: the task clock could not be read */
	__u64 cmd_ends;   /* exact mode: returns from process_command */
	__u64 between;    /* exact mode: of which no command was open */
	__u64 loads;      /* the object holding mudstate loaded again while attached */
	__u64 unloads;    /* netmux exec'd again: a module's addresses are gone until it loads */
};
_Static_assert(sizeof(struct muxbpf_sc_stats) == 96, "muxbpf_sc_stats layout");

/*
 * The ledger programs' own run counts (bpf/ledger.bpf.c run_counts, per CPU, key phase), kept
 * with BPF run-time statistics off: a target run is the program's whole work for the target, an
 * early exit an event of another process (one compare).  During the calibration window at the
 * start (calibrating = 1, statistics on) the target runs also time their own body: the loader
 * turns the statistics' ns per run into ns per target run and per early exit (src/cost.c).
 * Slots in src/ledger.c's ledger_progs order.
 */
enum muxbpf_prog_slot {
	MUXBPF_PROG_SYS_ENTER = 0,
	MUXBPF_PROG_SYS_EXIT,
	MUXBPF_PROG_SCHED_SWITCH,
	MUXBPF_PROG_SCHED_WAKING,
	MUXBPF_PROG_HRTIMER_ENTRY,
	MUXBPF_PROG_HRTIMER_EXIT,
	MUXBPF_PROG_SOFTIRQ_ENTRY,
	MUXBPF_PROG_SOFTIRQ_EXIT,
	MUXBPF_PROG__COUNT,
};

struct muxbpf_run_counts {
	__u64 exits[MUXBPF_PROG__COUNT];    /* early exits: not written by the programs, which count
					     * them in muxbpf_exit_line; the loader adds them in by
					     * phase (profiler__run_counts()) */
	__u64 runs[MUXBPF_PROG__COUNT];     /* target runs */
	__u64 in_ctx[MUXBPF_PROG__COUNT];   /* target runs in the target's own context */
	__u64 timed[MUXBPF_PROG__COUNT];    /* calibration: target runs that timed their body */
	__u64 timed_ns[MUXBPF_PROG__COUNT]; /* calibration: their bodies' ns, clock read to clock read */
	__u64 clock_ns[MUXBPF_PROG__COUNT]; /* calibration: one back-to-back clock read each */
};
_Static_assert(sizeof(struct muxbpf_run_counts) == 384, "muxbpf_run_counts layout");

/*
 * Other processes' events, counted per CPU without a map lookup (bpf/ledger.bpf.c bystanders,
 * in the mmapped .bss): one cache line per CPU, slot cpu % MUXBPF_CPU_SLOTS (CPUs beyond share
 * a slot, and may lose an increment when they collide).  No phase: the loader reads the lines at
 * each boundary and books what they gained to the phase that ended.
 */
#define MUXBPF_CPU_SLOTS 1024
struct muxbpf_exit_line {
	__u64 exits[MUXBPF_PROG__COUNT];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct muxbpf_exit_line) == 64, "muxbpf_exit_line layout");

#endif /* MUXBPF_H */
