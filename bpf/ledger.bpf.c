// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The time ledger: exact time inside each syscall of the target, by syscall and by user call
 * site, what wakes the target, and how long it sits preempted outside syscalls.  A call is
 * booked whole to the phase it returns in; the loader reads the calls in flight at each phase
 * boundary (thread_state, while the target sleeps) and moves the parts outside a window.
 *
 * CPU time inside a syscall is its wall time minus the intervals the thread spent switched out,
 * from sched_switch.  This kernel sometimes emits no sched_switch at all, so every call also
 * compares the thread's own context-switch counters (nvcsw + nivcsw) at entry and exit with the
 * switch-outs it saw; a call where they disagree is counted as inexact and its CPU estimated
 * from the kernel's runtime instead.  Phase-level on-CPU never depends on these events (see
 * runtime.bpf.c).
 *
 * A missing switch-in is not in those counters: the thread runs again while its state says it
 * is switched out.  Left alone, the next sys_exit booked the whole sleep as CPU (an idle select
 * of a second became a second of sys time).  It shows as a switch-out, a sys_exit or a sys_enter
 * of a thread marked off; the time since the last switch-out is then repaired from the kernel's
 * own counters, which are fresh at a switch-out: the runtime (CPU inside a syscall) or
 * sched_info.run_delay (the wait of a thread preempted in user mode).
 *
 * Every handler filters on the target's tgid first: other processes pay one compare and one
 * per-CPU increment (bystanders: what they paid, in the report).  No run-time statistics
 * after the calibration window: the programs count their own runs instead.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "muxbpf.h"
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * The phase and the boundary count in one word, stored at once by the loader at each boundary
 * (epoch << 32 | phase): a call returning at the boundary is booked to the phase the same read
 * tells, and its state copied for that boundary.
 */
volatile __u64 phase_epoch;

/*
 * 1 during the calibration window at the start (run-time statistics on): target runs then time
 * their own body, so the loader can split the statistics' ns per run into a target run and an
 * early exit (src/cost.c, calib_from()).  0 the rest of the run: no clock read for counting.
 */
volatile __u32 calibrating;

/* Set between open and load: walk the user call site of 1 syscall in N, at random (0: never). */
const volatile __u32 ledger_site_every = MUXBPF_DEFAULT_SITE_EVERY;
/* MUXBPF_SITE_THRESHOLD(ledger_site_every) (site_drawn()); the loader sets both */
const volatile __u32 ledger_site_threshold = MUXBPF_SITE_THRESHOLD(MUXBPF_DEFAULT_SITE_EVERY);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct muxbpf_thread_state);
	__uint(max_entries, MUXBPF_MAX_THREADS);
} thread_state SEC(".maps");

/* Calls in flight at the last boundary, as they were then (muxbpf_thread_state.epoch). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct muxbpf_thread_state);
	__uint(max_entries, MUXBPF_MAX_THREADS);
} boundary_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_sys_key);
	__type(value, struct muxbpf_sys_val);
	__uint(max_entries, MUXBPF_DEFAULT_SYSCALL_KEYS);
} syscalls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_site_key);
	__type(value, struct muxbpf_site_val);
	__uint(max_entries, MUXBPF_DEFAULT_SITE_KEYS);
} sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_wake_key);
	__type(value, struct muxbpf_wake_val);
	__uint(max_entries, MUXBPF_DEFAULT_WAKE_KEYS);
} wakeups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_thread_key);
	__type(value, struct muxbpf_thread_val);
	__uint(max_entries, MUXBPF_MAX_THREADS);
} threads SEC(".maps");

/*
 * Per CPU: bpf_ktime_get_ns() less the scheduler's clock (rq_clock_task) at the target's last
 * switch-out there, where the kernel has just set the leaving thread's se.exec_start to that
 * clock.  It turns a running thread's exec_start into our clock (missed_in(): the CPU since the
 * kernel last folded it into sum_exec_runtime).  0: none yet.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __s64);
	__uint(max_entries, 1);
} clock_gap SEC(".maps");

/* Stack walks at syscall entry, accounted apart from the sampler's. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct muxbpf_phase_stats);
	__uint(max_entries, MUXBPF_MAX_PHASES);
} site_stats SEC(".maps");

/*
 * A new thread's state, built here: it is larger than the BPF stack.  Only nr, in_ns, epoch,
 * pending, out_rt, in_gap and gap_cpu are ever written (fresh_state() sets them all at every
 * use); the rest stays zero.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct muxbpf_thread_state);
	__uint(max_entries, 1);
} new_state SEC(".maps");

static __always_inline struct muxbpf_thread_state *fresh_state(__u32 ep,
							       __u64 in_ns)
{
	__u32 zero = 0;
	struct muxbpf_thread_state *n = bpf_map_lookup_elem(&new_state, &zero);

	if (n) {
		n->nr = -1;
		n->in_ns = in_ns;
		n->epoch = ep;
		n->pending = 0;
		n->out_rt = 0;
		n->in_gap = 0;
		n->gap_cpu = 0;
	}
	return n;
}

/* Ledger entries that could not be stored because a map was full, per phase and map
 * (key phase * MUXBPF_LMAP__COUNT + enum muxbpf_ledger_map). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, MUXBPF_MAX_PHASES * MUXBPF_LMAP__COUNT);
} ledger_lost SEC(".maps");

/* Per CPU: inside an hrtimer callback, and the softirq vector being served (+1). */
struct irq_ctx {
	__u32 hrtimer;
	__u32 softirq;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct irq_ctx);
	__uint(max_entries, 1);
} irq_ctx SEC(".maps");

static __always_inline __u32 phase_of(__u64 pe)
{
	__u32 ph = (__u32)pe;

	return ph < MUXBPF_MAX_PHASES ? ph : 0;
}

static __always_inline __u32 cur_phase(void)
{
	return phase_of(phase_epoch);
}

/*
 * The programs' own run counts per phase (muxbpf_run_counts): with the statistics off these and
 * the calibrated ns per run give the cost line.  Per CPU and unlocked: a program does not migrate
 * while it runs, and a count a nested run loses only blurs a cost estimate.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct muxbpf_run_counts);
	__uint(max_entries, MUXBPF_MAX_PHASES);
} run_counts SEC(".maps");

static __always_inline struct muxbpf_run_counts *counts(void)
{
	__u32 ph = cur_phase();

	return bpf_map_lookup_elem(&run_counts, &ph);
}

/* Other processes' events, per CPU (muxbpf_exit_line); the loader splits them by phase. */
struct muxbpf_exit_line bystanders[MUXBPF_CPU_SLOTS];

/*
 * An event of another process: one increment in this CPU's line, nothing else (the bystanders'
 * price).  No map lookup and no phase: the CPU number (a helper call on kernels before 6.10,
 * inlined after) indexes the .bss directly.  Plain increment: a program does not migrate while
 * it runs, and the count a nested run could lose only blurs a cost estimate.
 */
static __always_inline int early_exit(int prog)
{
	bystanders[bpf_get_smp_processor_id() & (MUXBPF_CPU_SLOTS - 1)].exits[prog]++;
	return 0;
}

/*
 * No filter on the interrupt programs: every run counts, and it is the target's own time when
 * the interrupt hit one of its threads (without CONFIG_IRQ_TIME_ACCOUNTING the kernel charges
 * interrupt time to the task it interrupted).
 */
static __always_inline bool in_target(void)
{
	return bpf_get_current_pid_tgid() >> 32 == targ_tgid;
}

/* The body's start for calibration, or 0 outside the window. */
static __always_inline __u64 calib_start(void)
{
	return calibrating ? bpf_ktime_get_ns() : 0;
}

/* A target run done: count it, and in the calibration window its body's time and one clock read. */
static __always_inline int count_run(int prog, __u64 t0, bool in_ctx)
{
	struct muxbpf_run_counts *c = counts();
	__u64 t1, t2;

	if (!c)
		return 0;
	c->runs[prog]++;
	if (in_ctx)
		c->in_ctx[prog]++;
	if (t0) {
		t1 = bpf_ktime_get_ns();
		t2 = bpf_ktime_get_ns();
		c->timed[prog]++;
		c->timed_ns[prog] += t1 - t0;
		c->clock_ns[prog] += t2 - t1;
	}
	return 0;
}

/*
 * What the kernel's runtime has left out on task's CPU so far: rq->clock - rq->clock_task (time
 * stolen by the host, interrupt time; 0 where the kernel counts neither apart).  Never falls.
 * Fresh at sched_switch (__schedule() updated the clock just before); at syscall entry and exit
 * it is as of the CPU's last tick or scheduler event.  The runqueue is reached through the
 * task's cfs_rq (CONFIG_FAIR_GROUP_SCHED, set in Debian's kernels and this one): the per-CPU
 * runqueues symbol needs CONFIG_KALLSYMS_ALL, which this machine's kernel lacks.  Direct BTF
 * loads, no helper calls: this runs at every syscall entry and exit.
 */
static __always_inline __u64 rq_gap(struct task_struct *t)
{
	struct cfs_rq *cfs;
	struct rq *rq;

	if (!bpf_core_field_exists(t->se.cfs_rq))
		return 0;
	cfs = t->se.cfs_rq;
	if (!cfs)
		return 0;
	rq = cfs->rq;
	if (!rq)
		return 0;
	return rq->clock - rq->clock_task;
}

/*
 * Stolen between two readings of rq_gap(): from, taken on CPU cpu (+ 1), and gap, taken now.
 * Each runqueue has its own clocks: readings on two CPUs (a switch event the kernel did not
 * report in between, and the thread moved) say nothing, and count 0.
 */
static __always_inline __u64 gap_since(__u64 gap, __u64 from, __u32 cpu)
{
	if (cpu != bpf_get_smp_processor_id() + 1)
		return 0;
	return gap > from ? gap - from : 0;
}

/*
 * Before the first change to a thread's state after a boundary: keep the call in flight as it
 * was at the boundary (the state is unchanged since: no event touched it).  The copy, then its
 * tag, then the state's own epoch, then any other change: a loader that reads the state and then
 * the copy sees either the state as it was, or the tagged copy (muxbpf_thread_state.epoch).
 */
static __always_inline void at_boundary(struct muxbpf_thread_state *s, __u32 tid, __u32 ep)
{
	struct muxbpf_thread_state *b;

	if (s->epoch == ep)
		return;
	if (s->nr >= 0 && !bpf_map_update_elem(&boundary_state, &tid, s, BPF_ANY)) {
		b = bpf_map_lookup_elem(&boundary_state, &tid);
		if (b)
			b->epoch = ep;
	}
	s->epoch = ep;
}

static __always_inline void count_lost(__u32 ph, void *map)
{
	/* map is a constant in every inlined call: the compiler folds this to one index */
	__u32 m = map == (void *)&thread_state ? MUXBPF_LMAP_THREAD_STATE :
		  map == (void *)&syscalls     ? MUXBPF_LMAP_SYSCALLS :
		  map == (void *)&sites        ? MUXBPF_LMAP_SITES :
		  map == (void *)&wakeups      ? MUXBPF_LMAP_WAKEUPS : MUXBPF_LMAP_THREADS;
	__u32 key = ph * MUXBPF_LMAP__COUNT + m;
	__u64 *n = bpf_map_lookup_elem(&ledger_lost, &key);

	if (n)
		(*n)++;
}

/* Find or create the value for key in a hash map of small values. */
static __always_inline void *upsert(void *map, const void *key, const void *zero, __u32 ph)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		count_lost(ph, map);
	return v;
}

static __always_inline void add_sys(__u32 ph, __u32 tid, __u64 nr, __u64 count, __u64 cpu,
				    __u64 wall, __u64 inexact, __u64 stolen)
{
	struct muxbpf_sys_key k = { .phase = ph, .tid = tid, .nr = (__u32)nr };
	struct muxbpf_sys_val zero = {}, *v;

	v = upsert(&syscalls, &k, &zero, ph);
	if (!v)
		return;
	__sync_fetch_and_add(&v->count, count);
	__sync_fetch_and_add(&v->cpu_ns, cpu);
	__sync_fetch_and_add(&v->wall_ns, wall);
	__sync_fetch_and_add(&v->inexact, inexact);
	__sync_fetch_and_add(&v->stolen_ns, stolen);
}

static __always_inline void flush_slot(struct muxbpf_thread_state *s, __u32 tid,
				       struct muxbpf_sys_slot *c)
{
	if (!c->count)
		return;
	add_sys(s->cache_phase, tid, c->nr, c->count, c->cpu_ns, c->wall_ns, c->inexact,
		c->stolen_ns);
	c->count = c->cpu_ns = c->wall_ns = c->stolen_ns = 0;
	c->inexact = 0;
}

/*
 * Book a returned call in the thread's own table, a slot per syscall number (nr mod
 * MUXBPF_SYS_CACHE): no map work on the hot path.  A slot goes to the syscalls map when another
 * number takes it, and the whole table when the first call after a boundary returns (the table
 * holds one phase); the loader adds what is still in the tables at the end.
 */
static __always_inline void book_sys(struct muxbpf_thread_state *s, __u32 tid, __u32 ph,
				     __u32 ep, __u64 cpu, __u64 wall, __u64 inexact, __u64 stolen)
{
	struct muxbpf_sys_slot *c;

	if (s->cache_epoch != ep) {
		for (int i = 0; i < MUXBPF_SYS_CACHE; i++)
			flush_slot(s, tid, &s->cache[i]);
		s->cache_epoch = ep;
	}
	s->cache_phase = ph;
	c = &s->cache[s->nr & (MUXBPF_SYS_CACHE - 1)];
	if (c->nr != (__u32)s->nr)
		flush_slot(s, tid, c);
	c->nr = s->nr;
	c->count++;
	c->cpu_ns += cpu;
	c->wall_ns += wall;
	c->inexact += inexact;
	c->stolen_ns += stolen;
}

/*
 * A walked call under its call site.  cpu_sq: the sum of squared CPU (16 ns units: a call of a
 * second fits 4,000 times), for the share's sampling interval (stats_share_sampled()).
 */
static __always_inline void add_site(__u32 ph, __u32 pid, __u32 nr, __s32 stack_id, __u64 cpu,
				     __u64 wall, __u64 walk)
{
	struct muxbpf_site_key k = { .phase = ph, .nr = nr, .stack_id = stack_id, .pid = pid };
	struct muxbpf_site_val zero = {}, *v;
	__u64 q = cpu >> 4;

	v = upsert(&sites, &k, &zero, ph);
	if (!v)
		return;
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->cpu_ns, cpu);
	__sync_fetch_and_add(&v->wall_ns, wall);
	__sync_fetch_and_add(&v->cpu_sq, q * q);
	__sync_fetch_and_add(&v->walk_ns, walk);
}

static __always_inline struct muxbpf_thread_val *thread_val(__u32 ph, __u32 tid)
{
	struct muxbpf_thread_key k = { .phase = ph, .tid = tid };
	struct muxbpf_thread_val zero = {};

	return upsert(&threads, &k, &zero, ph);
}

static __always_inline __u64 task_csw(struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

/*
 * The thread is running (or just switched out) while its state says switched out: the kernel
 * reported no switch-in since the last switch-out.  Book the time since that switch-out from the
 * kernel's counters: inside a syscall its runtime since then is CPU of the call; in user mode the
 * thread was preempted (user mode cannot block), so its run_delay since then is the wait.  Call
 * with the thread's own task (fresh counters at a switch-out; at most a tick old when running).
 */
/*
 * The CPU a running thread has used since the kernel last folded its time into sum_exec_runtime
 * (at its switch-in or the last tick: up to a tick, and milliseconds in a TCG guest whose ticks
 * stall): now less se.exec_start, through this CPU's clock_gap.  Bounded by since (ours): 0 when
 * the gap is unknown or the figures do not fit.
 */
static __always_inline __u64 unfolded_ns(struct task_struct *task, __u64 now, __u64 since)
{
	__u32 zero = 0;
	__s64 *gap = bpf_map_lookup_elem(&clock_gap, &zero);
	__s64 d;

	if (!gap || !*gap)
		return 0;
	d = (__s64)(now - *gap) - (__s64)task->se.exec_start;
	return d > 0 && (__u64)d <= now - since ? (__u64)d : 0;
}

/* At the target's switch-out: this CPU's clock_gap (see there). */
static __always_inline void note_clock_gap(struct task_struct *prev, __u64 now)
{
	__u32 zero = 0;
	__s64 *gap = bpf_map_lookup_elem(&clock_gap, &zero);

	if (gap)
		*gap = (__s64)now - (__s64)prev->se.exec_start;
}

/* now: the handler's clock when task is the running thread (its counters then lag by the CPU
 * since their last update: unfolded_ns()); 0 at its switch-out, where they are fresh. */
static __always_inline void missed_in(struct muxbpf_thread_state *s, struct task_struct *task,
				      __u32 ph, __u32 tid, __u64 now)
{
	struct muxbpf_thread_val *tv = thread_val(ph, tid);
	__u64 rt, delay;

	if (s->nr >= 0) {
		rt = task->se.sum_exec_runtime;
		if (rt > s->out_rt)
			s->cpu_ns += rt - s->out_rt;
		if (now)
			s->cpu_ns += unfolded_ns(task, now, s->off_ns);
		s->inexact = 1;
	} else if (s->pending) {
		delay = task->sched_info.run_delay;
		if (tv && delay > s->out_delay)
			__sync_fetch_and_add(&tv->preempt_user_ns, delay - s->out_delay);
	}
	s->off = 0;
	if (tv)
		__sync_fetch_and_add(&tv->missed_in, 1);
}

/*
 * Whether this call's site is walked: each call on its own, with chance 1 in N (--site-every;
 * MUXBPF_SITE_THRESHOLD(), set by the loader).  A fixed count locks step with a loop's calls:
 * every 32nd call of a loop of 6 calls lands on the same 3 of them, and the other 3 never get a
 * call site.  Random gaps between walks uniform on 1..2N-1 did not lock step, but gave the call
 * right after a walk 1 chance in 2N-1, not 1 in N: that call pays for the caches the walk took
 * (a TCG guest's getppid cost 15% less walked than on average, its share of the walked CPU fell
 * 20% under the exact one).  An independent draw per call makes the walked calls a Bernoulli
 * (Poisson) sample of all calls, which is what stats_share_sampled()'s interval assumes.
 * The draw is the thread's own counter (a Weyl sequence from a random start) through a 32-bit
 * integer hash (lowbias32), not bpf_get_prandom_u32() on every exit: with that helper call,
 * mb_sys_exit's best ns per run (build/bench/storm) never fell under 124 in 8 runs, against 86
 * in 5 of 9 with the count down; the hash is a few instructions.
 */
static __always_inline bool site_drawn(struct muxbpf_thread_state *s)
{
	__u32 z;

	/*
	 * Seeded at the thread's first draw, not in fresh_state(): the loader also creates states,
	 * for threads already blocked in a syscall when it attaches (seed_ledger() in
	 * src/profiler.c), and a seed in fresh_state() missed those (the test targets, waiting in
	 * read(): their counters started at 0 and every run walked the very same calls).
	 */
	if (!s->site_rng)
		s->site_rng = bpf_get_prandom_u32() | 1;
	z = s->site_rng += 0x9e3779b9;

	z ^= z >> 16;
	z *= 0x7feb352d;
	z ^= z >> 15;
	z *= 0x846ca68b;
	z ^= z >> 16;
	return z <= ledger_site_threshold;
}

/*
 * A call still open at the thread's next entry returned unseen.  With fentry/fexit that is a
 * call in flight when they attached (seed_ledger()): a call already inside x64_sys_call returns
 * past the trampoline.  The tracepoints see every return, so in that mode it does not happen.
 * Book the call as ending at its last switch-in, where a blocked call woke (its kernel tail
 * after that, microseconds, goes to user time), with the CPU of its closed on-CPU intervals,
 * counted inexact; a call never switched in since it was seeded ends now.
 */
static __always_inline void close_unseen(struct muxbpf_thread_state *s, __u32 tid, __u32 ph,
					 __u32 ep, __u64 now)
{
	__u64 end = s->run_ns > s->enter_ns ? s->run_ns : now;
	__u64 wall = end - s->enter_ns, cpu = s->cpu_ns, stolen = s->stolen_in;

	if (cpu > wall)
		cpu = wall;
	if (stolen > cpu)
		stolen = cpu;
	book_sys(s, tid, ph, ep, cpu - stolen, wall, 1, stolen);
}

static __always_inline void sys_enter(long id, __u64 pid_tgid, __u64 now)
{
	struct task_struct *task;
	struct muxbpf_thread_state *s, *init;
	__u32 tid = (__u32)pid_tgid, ph;
	__u64 pe;

	pe = phase_epoch;
	ph = phase_of(pe);
	s = bpf_map_lookup_elem(&thread_state, &tid);
	if (!s) {
		init = fresh_state(pe >> 32, 0);
		if (!init)
			return;
		s = upsert(&thread_state, &tid, init, ph);
	}
	if (!s)
		return;
	at_boundary(s, tid, pe >> 32);
	task = bpf_get_current_task_btf();
	if (s->off)
		missed_in(s, task, ph, tid, now);
	if (s->nr >= 0)
		close_unseen(s, tid, ph, pe >> 32, now);
	s->nr = id;
	s->enter_ns = s->run_ns = now;
	s->cpu_ns = 0;
	s->outs = 0;
	s->off = 0;
	s->inexact = 0;
	s->phase = ph;
	s->csw = task_csw(task);
	s->rt_enter = task->se.sum_exec_runtime;
	s->run_gap = rq_gap(task);
	s->gap_cpu = bpf_get_smp_processor_id() + 1;
	s->stolen_in = 0;
}

/*
 * The syscall hook's entry, in either mode (src/loader/syscall_hook.c picks one at start and
 * leaves the other pair unloaded): other processes leave at the compare against the target's
 * tgid, a constant of .rodata set before load.
 */
static __always_inline int on_sys_enter(long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now;

	if (pid_tgid >> 32 != targ_tgid)
		return early_exit(MUXBPF_PROG_SYS_ENTER);
	/* one clock read: the call's entry, and the calibration's start */
	now = bpf_ktime_get_ns();
	sys_enter(id, pid_tgid, now);
	return count_run(MUXBPF_PROG_SYS_ENTER, calibrating ? now : 0, true);
}

/* Tracepoint mode: registering it puts every thread of the machine on the slow syscall path. */
SEC("tp_btf/sys_enter")
int BPF_PROG(mb_sys_enter, struct pt_regs *regs, long id)
{
	return on_sys_enter(id);
}

/*
 * fentry mode: a trampoline on the 64-bit syscall dispatcher, called for valid 64-bit syscall
 * numbers only (ia32 and x32 calls enter through other functions: not seen).
 */
SEC("fentry/x64_sys_call")
int BPF_PROG(mb_sys_fentry, const struct pt_regs *regs, unsigned int nr)
{
	return on_sys_enter(nr);
}

/*
 * 1 call in N (site_drawn()), after the call is booked: walk the user stack it was made from (the
 * registers saved at entry) and book the call under it.  At the exit, not the entry: the walk
 * (microseconds) and what it leaves in the caches then stay out of the call's own time, in the
 * syscall table and here, and the time it took is booked apart (walk_ns), so the ledger takes it
 * out of the thread's user time.  (rt_sigreturn and execve replace those registers: their site
 * is where they return to.)
 */
static __always_inline void walk_site(struct pt_regs *regs, struct muxbpf_thread_state *s,
				      __u32 ph, __u32 pid, __u64 cpu, __u64 wall, __u64 now)
{
	struct muxbpf_phase_stats *st;
	__u32 fresh = 0; /* only the sampler uses it */
	__s32 stack_id;

	if (!site_drawn(s))
		return;
	st = bpf_map_lookup_elem(&site_stats, &ph);
	MB_USER_LR(PT_REGS_RET_CORE(regs));
	stack_id = mb_user_stack(PT_REGS_IP_CORE(regs), PT_REGS_SP_CORE(regs), PT_REGS_FP_CORE(regs),
				 st, &fresh);
	/* the call still counts, under "[no stack]" */
	if (stack_id < 0 && st)
		st->dropped[stack_id == MUXBPF_STACK_FULL ? MUXBPF_DROP_STACK_FULL
							: MUXBPF_DROP_STACK_FAILED]++;
	add_site(ph, pid, (__u32)s->nr, stack_id, cpu, wall, bpf_ktime_get_ns() - now);
}

static __always_inline void sys_exit(struct pt_regs *regs, __u64 pid_tgid, __u64 now)
{
	__u32 tid = (__u32)pid_tgid, pid = pid_tgid >> 32, ph;
	struct muxbpf_thread_state *s;
	struct task_struct *task;
	__u64 cpu, wall, inexact = 0, switches, pe, stolen;

	s = bpf_map_lookup_elem(&thread_state, &tid);
	if (!s || s->nr < 0)
		return;
	pe = phase_epoch;
	ph = phase_of(pe);
	at_boundary(s, tid, pe >> 32);
	task = bpf_get_current_task_btf();
	if (s->off) {
		missed_in(s, task, ph, tid, now); /* the CPU since the switch-out is in cpu_ns now */
	} else {
		s->cpu_ns += now - s->run_ns;
		s->stolen_in += gap_since(rq_gap(task), s->run_gap, s->gap_cpu);
	}
	cpu = s->cpu_ns;
	stolen = s->stolen_in;
	wall = now - s->enter_ns;
	inexact = s->inexact;
	switches = task_csw(task) - s->csw;
	if (switches != s->outs) {
		/* A switch event went missing: fall back to the kernel's runtime delta. */
		__u64 rt = task->se.sum_exec_runtime - s->rt_enter +
			   unfolded_ns(task, now, s->enter_ns);
		struct muxbpf_thread_val *tv = thread_val(ph, tid);

		cpu = rt < wall ? rt : wall;
		stolen = 0; /* the runtime leaves it out */
		inexact = 1;
		if (tv)
			__sync_fetch_and_add(&tv->missed, 1);
	}
	if (cpu > wall)
		cpu = wall;
	/* what the host stole inside the call is not the call's CPU (the runtime agrees) */
	if (stolen > cpu)
		stolen = cpu;
	cpu -= stolen;
	book_sys(s, tid, ph, pe >> 32, cpu, wall, inexact, stolen);
	if (ledger_site_every)
		walk_site(regs, s, ph, pid, cpu, wall, now);
	s->nr = -1;
	s->off = 0;
}

static __always_inline int on_sys_exit(struct pt_regs *regs)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now;

	if (pid_tgid >> 32 != targ_tgid)
		return early_exit(MUXBPF_PROG_SYS_EXIT);
	now = bpf_ktime_get_ns();
	sys_exit(regs, pid_tgid, now);
	return count_run(MUXBPF_PROG_SYS_EXIT, calibrating ? now : 0, true);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(mb_sys_exit, struct pt_regs *regs, long ret)
{
	return on_sys_exit(regs);
}

/*
 * fentry mode's exit.  exit and exit_group never return here (sched_process_exit books them, as
 * in tracepoint mode); a new thread's first return from clone does not pass here either, and it
 * has no call open.  Attached once per session and never cycled: a trampoline that a call never
 * returns through keeps its image referenced.
 */
SEC("fexit/x64_sys_call")
int BPF_PROG(mb_sys_fexit, const struct pt_regs *regs, unsigned int nr, long ret)
{
	return on_sys_exit((struct pt_regs *)regs);
}

/*
 * One on-CPU interval's wall by our clock beyond the kernel's runtime, less its stolen part: the
 * switch path when positive; when negative, runtime the kernel counted before the switch-in we
 * saw (muxbpf_thread_val.rt_before_in_ns), booked apart so no term goes below zero.
 */
static __always_inline void book_switch_path(struct muxbpf_thread_val *tv, __s64 path)
{
	if (path >= 0)
		__sync_fetch_and_add(&tv->switch_path_ns, path);
	else
		__sync_fetch_and_add(&tv->rt_before_in_ns, -path);
}

/* prev leaves the CPU: close its running interval (in a syscall) or note a user preemption. */
static __always_inline void switch_out(struct task_struct *prev, __u64 now)
{
	__u64 pe = phase_epoch, rt = prev->se.sum_exec_runtime, gap = rq_gap(prev), stolen;
	__s64 excess;
	__u32 tid = prev->pid, ph = phase_of(pe);
	struct muxbpf_thread_state *s, *init;
	struct muxbpf_thread_val *tv;

	s = bpf_map_lookup_elem(&thread_state, &tid);
	if (!s) {
		init = fresh_state(pe >> 32, 0);
		if (!init)
			return;
		s = upsert(&thread_state, &tid, init, ph);
	}
	if (!s)
		return;
	at_boundary(s, tid, pe >> 32);
	note_clock_gap(prev, now);
	if (s->off) {
		missed_in(s, prev, ph, tid, 0); /* marks it on: no switch path for this interval */
	} else if (s->nr >= 0) {
		s->cpu_ns += now - s->run_ns;
		s->stolen_in += gap_since(gap, s->run_gap, s->gap_cpu);
	}
	if (s->nr >= 0)
		s->outs++;
	tv = thread_val(ph, tid);
	if (tv) {
		__sync_fetch_and_add(&tv->switch_out, 1);
		/*
		 * On CPU from the last switch-in to now by our clock, minus the kernel's count: what
		 * the runqueue's clocks say the kernel left out is stolen, the rest the switch path.
		 */
		if (s->pending && !s->off && s->in_ns > s->off_ns && rt >= s->out_rt) {
			/*
			 * At most the interval's wall beyond the runtime, when there is some: with a
			 * switch-out the kernel did not report, the readings bracket time off CPU.
			 */
			excess = (__s64)(now - s->in_ns) - (__s64)(rt - s->out_rt);
			stolen = gap_since(gap, s->in_gap, s->gap_cpu);
			if (excess >= 0 && stolen > (__u64)excess)
				stolen = excess;
			__sync_fetch_and_add(&tv->stolen_ns, stolen);
			book_switch_path(tv, excess - (__s64)stolen);
		}
	}
	s->off = 1;
	s->off_ns = now;
	s->out_rt = rt;
	s->out_delay = prev->sched_info.run_delay;
	s->pending = 1;
}

/*
 * A thread with no state gets the CPU.  Start its state here with its running interval open
 * (its runtime is fresh: it has not run since the kernel updated it at its last switch-out), so
 * the interval's switch path is booked at its switch-out.  Else the first interval's wall beyond
 * its runtime (the switch path, and the time a host stole from the vCPU where the runtime
 * leaves it out) is in no term of the balance: it is left over.  (The loader's seeded states
 * start pending for the same reason: src/profiler.c, seed_ledger().)
 * On its first time on a CPU ever (sched_info.pcount is counted after this tracepoint) the
 * thread waited on a runqueue since its creation: book that as off-CPU outside syscalls, so a
 * thread born inside a phase closes the ledger like the others.  (The call it may be blocked in
 * was not seen: nr stays -1, and its tail counts as user time, as before the state existed.)
 */
static __always_inline void first_in(struct task_struct *next, __u32 tid, __u32 ph, __u64 now)
{
	struct muxbpf_thread_state *init;
	__u64 start = next->start_time;
	struct muxbpf_thread_val *tv;
	bool born = next->sched_info.pcount == 0 && start <= now;

	init = fresh_state(phase_epoch >> 32, now);
	if (!init)
		return;
	init->pending = 1;
	init->out_rt = next->se.sum_exec_runtime;
	init->in_gap = rq_gap(next);
	init->gap_cpu = bpf_get_smp_processor_id() + 1;
	if (bpf_map_update_elem(&thread_state, &tid, init, BPF_NOEXIST))
		return;
	tv = born ? thread_val(ph, tid) : NULL;
	if (tv)
		__sync_fetch_and_add(&tv->preempt_user_ns, now - start);
}

/* next gets the CPU: reopen its running interval, or book a user-mode preemption. */
static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	__u32 tid = next->pid, ph = cur_phase();
	struct muxbpf_thread_state *s = bpf_map_lookup_elem(&thread_state, &tid);
	struct muxbpf_thread_val *tv;

	if (!s) {
		first_in(next, tid, ph, now);
		return;
	}
	if (!s->off)
		return;
	at_boundary(s, tid, phase_epoch >> 32);
	s->off = 0;
	s->in_ns = now;
	s->in_gap = rq_gap(next);
	s->gap_cpu = bpf_get_smp_processor_id() + 1;
	if (s->nr >= 0) {
		s->run_ns = now;
		s->run_gap = s->in_gap;
		return;
	}
	/* Off CPU in user mode: the thread was preempted (user mode cannot block). */
	tv = thread_val(ph, tid);
	if (tv)
		__sync_fetch_and_add(&tv->preempt_user_ns, now - s->off_ns);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(mb_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now;

	if (prev->tgid != targ_tgid && next->tgid != targ_tgid)
		return early_exit(MUXBPF_PROG_SCHED_SWITCH);
	now = bpf_ktime_get_ns();
	if (prev->tgid == targ_tgid)
		switch_out(prev, now);
	if (next->tgid == targ_tgid)
		switch_in(next, now);
	/* it runs in prev's context: the target's own time only when prev is the target */
	return count_run(MUXBPF_PROG_SCHED_SWITCH, calibrating ? now : 0,
			 prev->tgid == targ_tgid);
}

static __always_inline __u32 waker_kind(__u32 *waker_pid, __u32 *detail)
{
	__u32 zero = 0, cur = bpf_get_current_pid_tgid() >> 32;
	struct irq_ctx *c = bpf_map_lookup_elem(&irq_ctx, &zero);

	*waker_pid = 0;
	*detail = 0;
	if (c && c->hrtimer)
		return MUXBPF_WAKER_TIMER;
	if (c && c->softirq) {
		*detail = c->softirq - 1;
		return MUXBPF_WAKER_SOFTIRQ;
	}
	*waker_pid = cur;
	return cur == targ_tgid ? MUXBPF_WAKER_SELF : MUXBPF_WAKER_TASK;
}

/*
 * Interrupt context, tracked per CPU (the kernel's preempt count is not reachable here: percpu
 * ksyms need CONFIG_KALLSYMS_ALL).  These fire a few thousand times a second machine-wide and
 * only flip a per-CPU word.
 */
static __always_inline void set_ctx(int hrtimer, int softirq)
{
	__u32 zero = 0;
	struct irq_ctx *c = bpf_map_lookup_elem(&irq_ctx, &zero);

	if (!c)
		return;
	if (hrtimer >= 0)
		c->hrtimer = hrtimer;
	if (softirq >= 0)
		c->softirq = softirq;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(mb_hrtimer_entry)
{
	__u64 t0 = calib_start();

	set_ctx(1, -1);
	return count_run(MUXBPF_PROG_HRTIMER_ENTRY, t0, in_target());
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(mb_hrtimer_exit)
{
	__u64 t0 = calib_start();

	set_ctx(0, -1);
	return count_run(MUXBPF_PROG_HRTIMER_EXIT, t0, in_target());
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(mb_softirq_entry, unsigned int vec)
{
	__u64 t0 = calib_start();

	set_ctx(-1, vec + 1);
	return count_run(MUXBPF_PROG_SOFTIRQ_ENTRY, t0, in_target());
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(mb_softirq_exit)
{
	__u64 t0 = calib_start();

	set_ctx(-1, 0);
	return count_run(MUXBPF_PROG_SOFTIRQ_EXIT, t0, in_target());
}

/*
 * Who woke netmux: sched_waking runs in try_to_wake_up, in the waker's context.  sched_wakeup
 * does not always: when the wakee's CPU is idle the kernel queues the wakeup to that CPU
 * (TTWU_QUEUE) and sched_wakeup fires there, in the idle task's context.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(mb_sched_waking, struct task_struct *p)
{
	struct muxbpf_wake_key k = {};
	struct muxbpf_wake_val zero = {}, *v;
	__u64 t0;

	if (p->tgid != targ_tgid)
		return early_exit(MUXBPF_PROG_SCHED_WAKING);
	t0 = calib_start();
	k.phase = cur_phase();
	k.kind = waker_kind(&k.waker_pid, &k.detail);
	if (k.kind == MUXBPF_WAKER_TASK)
		bpf_get_current_comm(&zero.comm, sizeof(zero.comm));
	v = upsert(&wakeups, &k, &zero, k.phase);
	if (v)
		__sync_fetch_and_add(&v->count, 1);
	/* the waker's context: the target's own time when it woke its own thread */
	return count_run(MUXBPF_PROG_SCHED_WAKING, t0, k.kind == MUXBPF_WAKER_SELF);
}
