// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sampler: runs on every user-mode cpu-clock sample of the target (a per-task perf event
 * with inherit, exclude_kernel=1) and counts the sample under {phase, pid, tid, user stack};
 * the stack is walked and interned by bpf/unwind.bpf.c.
 * Nothing is streamed to userspace; the loader reads the maps at the end.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "muxbpf.h"
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* The phase the loader is running; written through the skeleton's mmapped .bss. */
volatile __u32 phase;

/* The last sample's thread and time: src/jitter.c re-draws the period right after a sample. */
volatile __u32 last_sample_tid;
volatile __u64 last_sample_ns;
/* The mean sampling period (1e9 / --freq) and the spacing of one thread's samples in it. */
const volatile __u64 sample_mean_ns = 1;
__u64 sample_spacing[MUXBPF_SPACING_BUCKETS];

/* bpf/softcode.bpf.c: count the sample again under netmux's command and u() frames. */
extern int mb_softcode_sample(__u32 ph, __s32 stack_id, __u64 ip, __u64 sp);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct muxbpf_sample_key);
	__type(value, __u64);
	__uint(max_entries, MUXBPF_DEFAULT_SAMPLE_KEYS);
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct muxbpf_phase_stats);
	__uint(max_entries, MUXBPF_MAX_PHASES);
} sample_stats SEC(".maps");

static __always_inline int count_sample(struct muxbpf_sample_key *key, __u32 fresh)
{
	__u64 one = 1, *cnt;

	/*
	 * A stack stored just now has no sample counted under it, so the lookup would miss (were an
	 * id ever reused, the insert fails and the lookup below counts the sample).
	 */
	if (!fresh) {
		cnt = bpf_map_lookup_elem(&samples, key);
		if (cnt) {
			__sync_fetch_and_add(cnt, 1);
			return 0;
		}
	}
	/* BPF_NOEXIST: another CPU may have inserted the key since the lookup. */
	if (bpf_map_update_elem(&samples, key, &one, BPF_NOEXIST) == 0)
		return 0;
	cnt = bpf_map_lookup_elem(&samples, key);
	if (cnt) {
		__sync_fetch_and_add(cnt, 1);
		return 0;
	}
	return -1;
}

SEC("perf_event")
int mb_sample(struct bpf_perf_event_data *ctx)
{
	struct muxbpf_sample_key key = {};
	struct muxbpf_phase_stats *st;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 ph = phase, fresh = 0;
	__u64 now = bpf_ktime_get_ns(), b;
	long sid;

	/* the kernel's spacing of the periods: only where no other thread's sample came between */
	if (last_sample_tid == (__u32)pid_tgid && now > last_sample_ns) {
		b = (now - last_sample_ns) * 20 / sample_mean_ns;
		if (b >= MUXBPF_SPACING_BUCKETS)
			b = MUXBPF_SPACING_BUCKETS - 1;
		__sync_fetch_and_add(&sample_spacing[b], 1);
	}
	last_sample_tid = (__u32)pid_tgid;
	last_sample_ns = now;
	if (ph >= MUXBPF_MAX_PHASES)
		ph = 0;
	st = bpf_map_lookup_elem(&sample_stats, &ph);
	if (!st)
		return 0;
	st->taken++;
	if (MUXBPF_BENCH_STAGE == MUXBPF_STAGE_ENTRY)
		return 0;

	key.phase = ph;
	key.pid = pid_tgid >> 32;
	key.tid = (__u32)pid_tgid;
	/* Content-addressed: two different stacks never share an id (no STACK_TRACE map). */
	MB_USER_LR(PT_REGS_RET(&ctx->regs));
	sid = mb_user_stack(PT_REGS_IP(&ctx->regs), PT_REGS_SP(&ctx->regs), PT_REGS_FP(&ctx->regs),
			    st, &fresh);
	if (MUXBPF_BENCH_STAGE)
		return 0;
	key.stack_id = (__s32)sid;
	if (sid < 0)
		key.ip = PT_REGS_IP(&ctx->regs);
	/*
	 * One reason per sample, so that taken = recorded whole + the sum of dropped: lost (the
	 * counts map is full) before recorded without a stack before recorded under phase 0.
	 */
	if (count_sample(&key, fresh)) {
		st->dropped[MUXBPF_DROP_COUNTS_FULL]++;
		return 0;
	}
	st->recorded++;
	mb_softcode_sample(ph, key.stack_id, key.ip, PT_REGS_SP(&ctx->regs));
	if (sid == MUXBPF_STACK_FULL) /* the stack map of this depth is full */
		st->dropped[MUXBPF_DROP_STACK_FULL]++;
	else if (sid < 0)
		st->dropped[MUXBPF_DROP_STACK_FAILED]++;
	else if (ph != phase)
		st->dropped[MUXBPF_DROP_PHASE_RANGE]++;
	return 0;
}
