// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Exact on-CPU time from the kernel's own accounting (task->se.sum_exec_runtime), never from
 * pairing sched_switch events (this kernel sometimes emits none).  A task iterator scoped to the
 * target process writes one record per live thread; the exit handler keeps the final runtime of
 * threads that exit, so a thread that dies inside a phase still counts.  A thread keeps running
 * after sched_process_exit (its files, perf events, cgroup and exit_notify: tens of µs, several
 * times that in a slow VM), so its record is brought up to date at its last switch-out.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "muxbpf.h"
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The target process; set by the loader between open and load. */
const volatile __u32 targ_tgid;

/* Thread exits whose final runtime did not fit the exited map (their time is missing). */
__u64 exits_lost;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct muxbpf_task_rt);
	__uint(max_entries, MUXBPF_MAX_THREADS);
} exited SEC(".maps");

static __always_inline void fill_rt(struct muxbpf_task_rt *rt, struct task_struct *task)
{
	rt->pid = BPF_CORE_READ(task, tgid);
	rt->tid = BPF_CORE_READ(task, pid);
	rt->runtime_ns = BPF_CORE_READ(task, se.sum_exec_runtime);
	BPF_CORE_READ_STR_INTO(&rt->comm, task, comm);
	rt->run_delay_ns = BPF_CORE_READ(task, sched_info.run_delay);
	rt->pcount = BPF_CORE_READ(task, sched_info.pcount);
	rt->nvcsw = BPF_CORE_READ(task, nvcsw);
	rt->nivcsw = BPF_CORE_READ(task, nivcsw);
	rt->min_flt = BPF_CORE_READ(task, min_flt);
	rt->maj_flt = BPF_CORE_READ(task, maj_flt);
	rt->start_ns = BPF_CORE_READ(task, start_time);
}

SEC("iter/task")
int mb_task_runtime(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct muxbpf_task_rt rt = {};

	if (!task)
		return 0;
	fill_rt(&rt, task);
	bpf_seq_write(ctx->meta->seq, &rt, sizeof(rt));
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(mb_task_exit, struct task_struct *task)
{
	struct muxbpf_task_rt rt = {};

	if (BPF_CORE_READ(task, tgid) != targ_tgid)
		return 0;
	fill_rt(&rt, task);
	rt.exit_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&exited, &rt.tid, &rt, BPF_ANY))
		__sync_fetch_and_add(&exits_lost, 1);
	return 0;
}

#define PF_EXITING 0x00000004 /* include/linux/sched.h */
#define TASK_DEAD 0x00000080  /* include/linux/sched.h: do_task_dead() sets it for the last switch */

/* task->state was renamed __state in 5.14 */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned long task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

/*
 * An exiting thread leaves the CPU: its runtime so far (the kernel updated it for the switch).
 * It can be switched out more than once on its way (preempted, or blocked in exit_files); the
 * last time, dead, its runtime is final, and dead_ns says so to a reading that waits for it.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(mb_exit_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct muxbpf_task_rt *rt;
	__u32 tid;

	if (prev->tgid != targ_tgid || !(prev->flags & PF_EXITING))
		return 0;
	tid = prev->pid;
	rt = bpf_map_lookup_elem(&exited, &tid);
	if (!rt)
		return 0;
	rt->runtime_ns = prev->se.sum_exec_runtime;
	rt->exit_ns = bpf_ktime_get_ns();
	if (task_state(prev) & TASK_DEAD)
		rt->dead_ns = rt->exit_ns;
	return 0;
}
