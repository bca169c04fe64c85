// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user stack walker and the content-addressed stack maps.
 *
 * mb_user_stack() walks the interrupted user stack from the perf_event registers, one frame per
 * bpf_loop() iteration: find the mapping of pc in the process's record (binary search), its CFI
 * row (binary search in the table's run of the rows array), compute the CFA, read the return
 * address and the saved rbp with 8-byte bpf_probe_read_user()s.  Mappings without CFI fall back
 * to a frame-pointer step in auto mode.  The frames go into a per-CPU scratch array and are
 * interned in one of four hash maps whose key is the whole zero-padded frame array, so two
 * different stacks can never share an id (no hash-only keys).  Ids are per-CPU counters tagged
 * with the CPU number: unique on hosts up to 1024 CPUs and 2M new stacks per CPU.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "muxbpf.h"

/* Set by the loader between open and load. */
const volatile __u32 unwind_mode = MUXBPF_UNWIND_AUTO;

/* Rows and rules: sized and filled (mmapped) by src/unwind.c. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct muxbpf_unwind_row);
	__uint(max_entries, 1);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct muxbpf_unwind_info);
	__uint(max_entries, 1);
} unwind_infos SEC(".maps");

/* tgid -> slot in unwind_procs; the loader writes a spare slot and then flips this entry. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, MUXBPF_UNW_MAX_PROCS);
} unwind_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct muxbpf_unwind_proc);
	__uint(max_entries, 2 * MUXBPF_UNW_MAX_PROCS);
} unwind_procs SEC(".maps");

/* Requests to (re)load a process's mappings, at most one per process per REQ_INTERVAL_NS. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} unwind_reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, MUXBPF_UNW_MAX_PROCS);
} unwind_req_last SEC(".maps");

#define REQ_INTERVAL_NS (5 * 1000 * 1000)
#define SCRATCH_DEPTH 128


#define STACK_MAP(name, depth)                                                                     \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__uint(key_size, (depth) * sizeof(__u64));                                         \
		__uint(value_size, sizeof(struct muxbpf_stack_val));                               \
		__uint(max_entries, MUXBPF_DEFAULT_STACKS);                                        \
	} name SEC(".maps")

STACK_MAP(ustacks_16, 16);
STACK_MAP(ustacks_32, 32);
STACK_MAP(ustacks_64, 64);
STACK_MAP(ustacks_127, MUXBPF_MAX_STACK_DEPTH);

#define USER_MAX 0x00007ffffffff000ull

enum { W_BP_OK = 1, W_IP_EXACT = 2 };
/* cfi_step() results besides 0 (caller found) and 1 (stop, w->end set). */
#define STEP_CONTINUE 0
#define STEP_STOP 1
#define STEP_NO_CFI 2

struct walk {
	__u64 ip, sp, bp;
	__u64 fp_frames;
	__u32 slot; /* unwind_procs slot, or NO_SLOT */
	__u32 n;    /* frames recorded */
	__u32 end;  /* enum muxbpf_walk_end, when stopped */
	__u32 flags;
	__u32 no_cfi_end; /* the reason a CFI step could not be taken, for dwarf mode */
	__u32 missed;     /* a pc fell in no known mapping: ask for a reload */
};

#define NO_SLOT 0xffffffffu

/*
 * Per-CPU: the frames and the walk's state.  The state lives here, not on the stack, so that the
 * verifier sees unknown values in the bpf_loop callback and verifies it once instead of once per
 * constant frame count.
 */
struct scratch {
	__u64 ips[SCRATCH_DEPTH];
	struct walk w;
	__u32 next_id; /* this CPU's stack id counter */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct scratch);
	__uint(max_entries, 1);
} unwind_scratch SEC(".maps");

static __always_inline int read_word(__u64 addr, __u64 *out)
{
	return bpf_probe_read_user(out, sizeof(*out), (const void *)addr);
}

/*
 * 1 when a <= b, without a branch.  The binary searches below are branchless on purpose: a
 * branch per step gives the verifier two states per step that never prune (2^depth paths).
 */
static __always_inline __u64 le_u64(__u64 a, __u64 b)
{
	__u64 lt = (b - a) >> 63; /* a, b < 2^63: 1 when b < a */

	barrier_var(lt);
	return lt ^ 1;
}

/* Index of the mapping holding pc, or -1. */
static __noinline int find_map(__u32 slot, __u64 pc)
{
	struct muxbpf_unwind_proc *proc = bpf_map_lookup_elem(&unwind_procs, &slot);
	__u64 base = 0, n, half;

	if (!proc)
		return -1;
	n = proc->n;
	if (n == 0 || n > MUXBPF_UNW_MAX_MAPS || pc >= (1ull << 63))
		return -1;
	/* Last entry with start <= pc: keep [base, base + n) holding it. */
	for (int i = 0; i < 7; i++) {
		half = n >> 1;
		base += le_u64(proc->maps[(base + half) & (MUXBPF_UNW_MAX_MAPS - 1)].start, pc) *
			half;
		n -= half;
	}
	base &= MUXBPF_UNW_MAX_MAPS - 1;
	if (proc->maps[base].start > pc || pc >= proc->maps[base].end)
		return -1;
	return base;
}

/* Index in unwind_rows of the last row with row.pc <= pc in [first, first + count), or -1. */
static __noinline __s64 find_row(__u32 first, __u32 count, __u32 pc)
{
	struct muxbpf_unwind_row *row;
	__u64 base = first, n = count, half;
	__u32 key;

	if (n == 0)
		return -1;
	for (int i = 0; i < 27; i++) {
		if (n <= 1)
			break;
		half = n >> 1;
		key = base + half;
		row = bpf_map_lookup_elem(&unwind_rows, &key);
		if (!row)
			return -1;
		base += le_u64(row->pc, pc) * half;
		n -= half;
	}
	if (n > 1)
		return -1;
	key = base;
	row = bpf_map_lookup_elem(&unwind_rows, &key);
	if (!row || row->pc > pc)
		return -1;
	return base;
}

static __always_inline long stop(struct walk *w, __u32 end)
{
	w->end = end;
	return STEP_STOP;
}

/* The caller by frame pointer: [rbp] is the caller's rbp, [rbp + 8] the return address. */
static __noinline long fp_step(struct walk *w)
{
	__u64 ra, nbp;

	w->fp_frames++;
	if (!(w->flags & W_BP_OK))
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	if (w->bp == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	if (w->bp < w->sp || (w->bp & 7) || w->bp >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	if (read_word(w->bp + 8, &ra) || read_word(w->bp, &nbp))
		return stop(w, MUXBPF_WALK_READ_FAULT);
	if (ra == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	/* Frames chain towards higher addresses; anything else is not a frame record. */
	if (ra < 4096 || ra >= USER_MAX || (nbp && nbp <= w->bp))
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	w->sp = w->bp + 16;
	w->bp = nbp;
	w->ip = ra;
	w->flags &= ~W_IP_EXACT;
	return STEP_CONTINUE;
}

static __always_inline long no_cfi(struct walk *w, __u32 end)
{
	w->no_cfi_end = end;
	return STEP_NO_CFI;
}

/* The signal trampoline's rules: the interrupted rip, rsp, rbp are in the ucontext at sp. */
static __always_inline long signal_step(struct walk *w, const struct muxbpf_unwind_info *info)
{
	__u64 ip, sp, bp;

	if (read_word(w->sp + info->ra_off, &ip) || read_word(w->sp + info->cfa_off, &sp) ||
	    read_word(w->sp + info->rbp_off, &bp))
		return stop(w, MUXBPF_WALK_READ_FAULT);
	if (ip == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	if (ip < 4096 || ip >= USER_MAX || sp >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	w->ip = ip;
	w->sp = sp;
	w->bp = bp;
	/* The interrupted pc is exact, not a return address. */
	w->flags |= W_BP_OK | W_IP_EXACT;
	return STEP_CONTINUE;
}

/* The caller by CFI. */
static __noinline long cfi_step(struct walk *w)
{
	struct muxbpf_unwind_proc *proc;
	struct muxbpf_unwind_info *info;
	struct muxbpf_unwind_row *row;
	struct muxbpf_unwind_map *m;
	__u64 pc, cfa, ra, bp;
	__u32 slot = w->slot, key;
	__s64 idx;
	int mi;

	if (slot == NO_SLOT)
		return no_cfi(w, MUXBPF_WALK_NO_PROC);
	/* A return address points after the call, maybe past the caller's last byte. */
	pc = (w->flags & W_IP_EXACT) ? w->ip : w->ip - 1;
	mi = find_map(slot, pc);
	if (mi < 0) {
		w->missed = 1;
		return no_cfi(w, MUXBPF_WALK_NO_TABLE);
	}
	proc = bpf_map_lookup_elem(&unwind_procs, &slot);
	if (!proc)
		return no_cfi(w, MUXBPF_WALK_NO_PROC);
	m = &proc->maps[mi & (MUXBPF_UNW_MAX_MAPS - 1)];
	if (pc - m->base > 0xffffffffull)
		return no_cfi(w, MUXBPF_WALK_NO_ROW);
	idx = find_row(m->row_first, m->row_count, (__u32)(pc - m->base));
	if (idx < 0)
		return no_cfi(w, MUXBPF_WALK_NO_ROW);
	key = (__u32)idx;
	row = bpf_map_lookup_elem(&unwind_rows, &key);
	if (!row)
		return no_cfi(w, MUXBPF_WALK_NO_ROW);
	key = row->info;
	info = bpf_map_lookup_elem(&unwind_infos, &key);
	if (!info)
		return no_cfi(w, MUXBPF_WALK_NO_ROW);

	switch (info->cfa) {
	case MUXBPF_CFA_RSP:
		cfa = w->sp + info->cfa_off;
		break;
	case MUXBPF_CFA_RBP:
		if (!(w->flags & W_BP_OK))
			return stop(w, MUXBPF_WALK_BAD_FRAME);
		cfa = w->bp + info->cfa_off;
		break;
	case MUXBPF_CFA_PLT:
		cfa = w->sp + info->cfa_off + ((w->ip & 15) >= info->plt_thresh ? 8 : 0);
		break;
	case MUXBPF_CFA_SIGNAL:
		return signal_step(w, info);
	case MUXBPF_CFA_END:
		return stop(w, MUXBPF_WALK_OUTERMOST);
	case MUXBPF_CFA_UNSUPPORTED:
		return no_cfi(w, MUXBPF_WALK_UNSUPPORTED);
	default:
		return no_cfi(w, MUXBPF_WALK_NO_ROW);
	}
	/* The caller's frame lies above ours: a CFA at or below sp is a broken rule. */
	if (cfa <= w->sp || cfa >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	if (read_word(cfa + info->ra_off, &ra))
		return stop(w, MUXBPF_WALK_READ_FAULT);
	if (info->rbp == MUXBPF_RBP_AT) {
		if (read_word(cfa + info->rbp_off, &bp))
			return stop(w, MUXBPF_WALK_READ_FAULT);
		w->bp = bp;
		w->flags |= W_BP_OK;
	} else if (info->rbp == MUXBPF_RBP_LOST) {
		w->flags &= ~W_BP_OK;
	}
	if (ra == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	if (ra < 4096 || ra >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	w->ip = ra;
	w->sp = cfa;
	w->flags &= ~W_IP_EXACT;
	return STEP_CONTINUE;
}

/* One bpf_loop iteration: record the frame at w->ip, then find its caller. */
static long walk_step(__u64 i, void *arg)
{
	struct scratch *s;
	struct walk *w;
	__u32 zero = 0;
	long r;

	(void)i;
	(void)arg;
	s = bpf_map_lookup_elem(&unwind_scratch, &zero);
	if (!s)
		return STEP_STOP;
	w = &s->w;
	if (w->n >= MUXBPF_MAX_STACK_DEPTH)
		return stop(w, MUXBPF_WALK_DEPTH);
	s->ips[w->n & (SCRATCH_DEPTH - 1)] = w->ip;
	w->n++;
	if (unwind_mode == MUXBPF_UNWIND_FP)
		return fp_step(w);
	r = cfi_step(w);
	if (r != STEP_NO_CFI)
		return r;
	if (unwind_mode == MUXBPF_UNWIND_AUTO)
		return fp_step(w);
	return stop(w, w->no_cfi_end);
}

static __always_inline void request_reload(__u32 tgid, __u64 ip)
{
	__u64 now = bpf_ktime_get_ns(), *last;
	struct muxbpf_unwind_req *req;

	last = bpf_map_lookup_elem(&unwind_req_last, &tgid);
	if (last && now - *last < REQ_INTERVAL_NS)
		return;
	bpf_map_update_elem(&unwind_req_last, &tgid, &now, BPF_ANY);
	req = bpf_ringbuf_reserve(&unwind_reqs, sizeof(*req), 0);
	if (!req)
		return;
	req->pid = tgid;
	req->__pad = 0;
	req->ip = ip;
	bpf_ringbuf_submit(req, 0);
}

/* The scratch frames as a stack id: an existing one, or the next sequential id. */
static __always_inline long intern(void *map, struct scratch *s, __u32 end)
{
	struct muxbpf_stack_val val = {}, *old;

	old = bpf_map_lookup_elem(map, s->ips);
	if (old)
		return old->id;
	/*
	 * Unique without atomics (clang 14's default BPF CPU has no fetch-and-add): this CPU's
	 * counter above 10 bits of CPU number.
	 */
	val.id = (s->next_id++ & 0x1fffff) << 10 | (bpf_get_smp_processor_id() & 1023);
	val.end = end;
	if (bpf_map_update_elem(map, s->ips, &val, BPF_NOEXIST) == 0)
		return val.id;
	/* Another CPU stored the same stack first, or the map is full. */
	old = bpf_map_lookup_elem(map, s->ips);
	return old ? old->id : -28 /* ENOSPC */;
}

/*
 * Walk the user stack of the current task from its interrupted registers and return the stack's
 * id (>= 0) or a negative error.  st (the phase's stats) gets the walk's outcome.
 */
__hidden int mb_user_stack(__u64 ip, __u64 sp, __u64 bp, struct muxbpf_phase_stats *st)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0, *slot, n, end;
	struct scratch *s;
	struct walk *w;
	long id;

	if (!st)
		return -22;
	s = bpf_map_lookup_elem(&unwind_scratch, &zero);
	if (!s)
		return -22;
	__builtin_memset(s->ips, 0, sizeof(s->ips));
	w = &s->w;
	w->fp_frames = 0;
	w->n = 0;
	w->no_cfi_end = 0;
	w->missed = 0;
	w->ip = ip;
	w->sp = sp;
	w->bp = bp;
	w->flags = W_BP_OK | W_IP_EXACT;
	slot = bpf_map_lookup_elem(&unwind_pids, &tgid);
	w->slot = slot ? *slot : NO_SLOT;
	if (unwind_mode != MUXBPF_UNWIND_FP && !slot)
		w->missed = 1;
	w->end = MUXBPF_WALK_DEPTH;
	bpf_loop(MUXBPF_MAX_STACK_DEPTH + 1, walk_step, NULL, 0);
	if (w->missed)
		request_reload(tgid, w->ip);

	n = w->n;
	end = w->end;
	st->walks++;
	st->frames += n;
	st->fp_frames += w->fp_frames;
	if (end < MUXBPF_WALK_END__COUNT)
		st->walk_end[end]++;
	if (n <= 16)
		id = intern(&ustacks_16, s, end);
	else if (n <= 32)
		id = intern(&ustacks_32, s, end);
	else if (n <= 64)
		id = intern(&ustacks_64, s, end);
	else
		id = intern(&ustacks_127, s, end);
	return id;
}
