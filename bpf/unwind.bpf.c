// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user stack walker and the content-addressed stack maps.
 *
 * mb_user_stack() walks the interrupted user stack from the perf_event registers, one frame per
 * bpf_loop() iteration: find the mapping of pc in the process's record, its CFI row, compute the
 * CFA, read the return address (and, when a later frame needs it, the saved rbp).  Mappings
 * without CFI fall back to a frame-pointer step in auto mode.  The frames go into a per-CPU
 * scratch array and are interned in one of four hash maps whose key is the whole zero-padded
 * frame array, so two different stacks can never share an id (no hash-only keys).  Ids are
 * per-CPU counters tagged with the CPU number: unique on hosts up to 1024 CPUs and 2M new stacks
 * per CPU.
 *
 * Cost (measured on the project's VM).  The sampler runs from a timer interrupt after the target
 * has had the CPU for a millisecond, so what it touches is cold: a second walk of the same stack
 * in the same run costs a sixth of the first (bench/reports/2026-12-06-sampler-cost-3.md), and a
 * bpf_probe_read_user() costs ~100 ns hot whatever its size up to a page (8 bytes ~100 ns, 4 KiB
 * ~185 ns).  So: the stack is read 1 KiB at a time into a two-span per-CPU cache (a walk reads a
 * few spans, not one or two words per frame; 1 KiB spans measured 3-7% cheaper per sample than
 * whole pages, about the paired method's A/A spread); a per-CPU rule cache keyed by pc answers
 * most frames with one cache line (the same return addresses come back sample after sample)
 * where the tables cost the mapping, a page index entry, one or two lines of rows and the rule;
 * the last mapping is kept; a saved rbp is read only when a later frame uses it; the frame array
 * is cleared only where the last walk left frames.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "muxbpf.h"
#include "common.bpf.h"

/* Set by the loader between open and load. */
const volatile __u32 unwind_mode = MUXBPF_UNWIND_AUTO;

/* Rows, rules and the rows' page index: sized and filled (mmapped) by src/unwind.c. */
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

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct muxbpf_unwind_page);
	__uint(max_entries, 1);
} unwind_index SEC(".maps");

/*
 * tgid -> {slot in unwind_procs, the record's generation}; the loader writes a spare slot and
 * then flips this entry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
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
/* The stack's copies: aligned spans of SPAN bytes, a power of two that divides a page. */
#define SPAN 1024
#define SPAN_WORDS (SPAN / 8)
#define SPAN_NONE 1 /* a tag no span has: nothing cached */
/* Rows between two page index entries: at most 2^SHIFT + 1, found in SHIFT + 1 halvings. */
#define ROW_STEPS (MUXBPF_UNW_IDX_SHIFT + 1)
/*
 * Entries of 32 bytes, 512 (16 KiB) per element of the per-CPU array: 2048 exceed a per-CPU
 * value.  Four elements: netmux's busy phases return through more than 512 call sites (dispatch,
 * 3 s: 0.88 misses per walk of 13 frames with one element, 0.67 with four; most of the rest are
 * first sightings on a CPU).  Two ways per set, side by side: a lookup reads 64 bytes, one or
 * two cache lines.
 */
#define RULE_CACHE_BITS 9
#define RULE_SET_BITS (RULE_CACHE_BITS - 1)
#define RULE_ELEM_BITS 2

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

/*
 * The end of user space, and what a return address read from the stack keeps.  AArch64 (48-bit
 * user addresses, as Debian's kernels): a return address signed with pointer authentication
 * carries its code in the bits above, which are stripped before lookup.
 */
#if defined(__TARGET_ARCH_arm64)
#define USER_MAX 0x0001000000000000ull
#define STRIP_PAC(a) ((a) & (USER_MAX - 1))
#else
#define USER_MAX 0x00007ffffffff000ull
#define STRIP_PAC(a) (a)
#endif

enum {
	W_BP_OK = 1,      /* bp (or the slot at bp_addr) is the frame's rbp */
	W_IP_EXACT = 2,   /* ip is an interrupted pc, not a return address */
	W_BP_PENDING = 4, /* the frame's rbp is still in its stack slot at bp_addr */
	W_SP_LOW = 8,     /* AArch64, after a frame-pointer step: sp is only a lower bound */
};
/*
 * What a step to the caller clears.  On AArch64 a frame record sits at the bottom of its frame,
 * so a frame-pointer step knows the caller's sp only as x29 + 16: an sp-based CFI rule cannot
 * use it and the walk goes on by frame pointer (auto mode) until a CFI step finds the CFA again.
 */
#if defined(__TARGET_ARCH_arm64)
#define W_CALLER_CLEARS (W_IP_EXACT | W_SP_LOW)
#define W_FP_STEP_SETS W_SP_LOW
#else
#define W_CALLER_CLEARS W_IP_EXACT
#define W_FP_STEP_SETS 0
#endif
/* cfi_step() results besides 0 (caller found) and 1 (stop, w->end set). */
#define STEP_CONTINUE 0
#define STEP_STOP 1
#define STEP_NO_CFI 2

struct walk {
	__u64 ip, sp, bp;
#if defined(__TARGET_ARCH_arm64)
	__u64 lr; /* x30 of the interrupted frame (mb_user_lr()), its return address in a leaf */
#endif
	__u32 gen; /* the process record's generation, 0 when there is none */
	__u32 __pad;
	__u64 bp_addr; /* W_BP_PENDING: where the caller saved rbp */
	__u64 fp_frames;
	/* The mapping of the last frame looked up ([m_start, m_end) empty: none). */
	__u64 m_start, m_end, m_base;
	__u32 m_row_first, m_row_count, m_idx_first, m_idx_count;
	__u32 slot; /* unwind_procs slot, or NO_SLOT */
	__u32 n;    /* frames recorded */
	__u32 end;  /* enum muxbpf_walk_end, when stopped */
	__u32 flags;
	__u32 no_cfi_end; /* the reason a CFI step could not be taken, for dwarf mode */
	__u32 missed;     /* a pc fell in no known mapping: ask for a reload */
};

#define NO_SLOT 0xffffffffu

/*
 * Per-CPU: the frames, two cached stack spans (direct-mapped by span parity, so the two spans
 * around a frame that straddles a boundary stay in) and the walk's state.  The state lives here,
 * not on the stack, so that the verifier sees unknown values in the bpf_loop callback and
 * verifies it once instead of once per constant frame count.  ips[dirty..] are zero: a walk
 * clears only what the previous one left beyond its own frames.
 */
struct scratch {
	__u64 ips[SCRATCH_DEPTH];
	__u64 span[2][SPAN_WORDS];
	__u64 span_addr[2];
	struct walk w;
	__u32 next_id; /* this CPU's stack id counter */
	__u32 dirty;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct scratch);
	__uint(max_entries, 1);
} unwind_scratch SEC(".maps");

/*
 * Per-CPU, two-way set-associative: the rule found for a pc under one process record
 * (generation).  The same return addresses come back sample after sample; a hit costs one cache
 * line where the search costs the mapping, the page index, one or two lines of rows and the
 * rule.  A new rule goes into way 0 and pushes way 0's into way 1, so two hot return addresses
 * whose hashes meet no longer evict each other on every walk.
 */
struct rule_ent {
	__u64 pc;
	__u32 gen;
	__u32 __pad;
	struct muxbpf_unwind_info info;
};

struct rule_cache {
	struct rule_ent e[1 << RULE_CACHE_BITS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rule_cache);
	__uint(max_entries, 1 << RULE_ELEM_BITS);
} unwind_rule_cache SEC(".maps");

static __always_inline int read_word(__u64 addr, __u64 *out)
{
	return bpf_probe_read_user(out, sizeof(*out), (const void *)addr);
}

/*
 * The stack word at addr, through the span cache.  A span lies within a page, so its copy fails
 * only where an 8-byte read of the same page would (an unmapped or absent page); then, and for an
 * unaligned address, the word is read alone.
 */
static __always_inline int stack_word(struct scratch *s, __u64 addr, __u64 *out)
{
	__u64 span = addr & ~(__u64)(SPAN - 1);
	__u32 i = (addr / SPAN) & 1;

	if (addr & 7)
		return read_word(addr, out);
	if (s->span_addr[i] != span) {
		if (bpf_probe_read_user(s->span[i], SPAN, (const void *)span)) {
			s->span_addr[i] = SPAN_NONE;
			return read_word(addr, out);
		}
		s->span_addr[i] = span;
	}
	*out = s->span[i][(addr / 8) & (SPAN_WORDS - 1)];
	return 0;
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

/* Make the mapping holding pc the walk's current one.  0, or -1 when none holds it. */
static __noinline int load_map(struct walk *w, __u64 pc)
{
	struct muxbpf_unwind_proc *proc;
	struct muxbpf_unwind_map *m;
	__u32 slot = w->slot;
	__u64 base = 0, n, half;

	proc = bpf_map_lookup_elem(&unwind_procs, &slot);
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
	m = &proc->maps[base & (MUXBPF_UNW_MAX_MAPS - 1)];
	if (m->start > pc || pc >= m->end)
		return -1;
	w->m_start = m->start;
	w->m_end = m->end;
	w->m_base = m->base;
	w->m_row_first = m->row_first;
	w->m_row_count = m->row_count;
	w->m_idx_first = m->idx_first;
	w->m_idx_count = m->idx_count;
	return 0;
}

/* The rule id of the current mapping's last row with row.pc <= pc, or -1. */
static __noinline __s64 find_rule(const struct walk *w, __u32 pc)
{
	struct muxbpf_unwind_page *page;
	struct muxbpf_unwind_row *row;
	__u32 key, lo, hi;
	__u64 base, n, half;

	key = pc >> MUXBPF_UNW_IDX_SHIFT;
	if (key >= w->m_idx_count)
		return -1;
	key += w->m_idx_first;
	page = bpf_map_lookup_elem(&unwind_index, &key);
	if (!page)
		return -1;
	lo = page->first;
	hi = page->last;
	if (hi < lo || hi - lo > (1u << MUXBPF_UNW_IDX_SHIFT) || hi >= w->m_row_count)
		return -1;
	base = w->m_row_first + lo;
	n = hi - lo + 1;
	for (int i = 0; i < ROW_STEPS; i++) {
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
	key = base;
	row = bpf_map_lookup_elem(&unwind_rows, &key);
	if (n > 1 || !row || row->pc > pc)
		return -1;
	return row->info;
}

static __always_inline long stop(struct walk *w, __u32 end)
{
	w->end = end;
	return STEP_STOP;
}

/* The frame's rbp, read from its slot if a callee saved it there.  0 or the walk's end. */
static __always_inline __u32 frame_bp(struct scratch *s, struct walk *w)
{
	if (!(w->flags & W_BP_OK))
		return MUXBPF_WALK_BAD_FRAME;
	if (w->flags & W_BP_PENDING) {
		if (stack_word(s, w->bp_addr, &w->bp))
			return MUXBPF_WALK_READ_FAULT;
		w->flags &= ~W_BP_PENDING;
	}
	return 0;
}

/* The caller by frame pointer: [rbp] is the caller's rbp, [rbp + 8] the return address. */
static __noinline long fp_step(struct scratch *s)
{
	struct walk *w = &s->w;
	__u64 ra, nbp;
	__u32 e;

	w->fp_frames++;
	e = frame_bp(s, w);
	if (e)
		return stop(w, e);
	if (w->bp == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	if (w->bp < w->sp || (w->bp & 7) || w->bp >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	if (stack_word(s, w->bp + 8, &ra) || stack_word(s, w->bp, &nbp))
		return stop(w, MUXBPF_WALK_READ_FAULT);
	ra = STRIP_PAC(ra);
	if (ra == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	/* Frames chain towards higher addresses; anything else is not a frame record. */
	if (ra < 4096 || ra >= USER_MAX || (nbp && nbp <= w->bp))
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	w->sp = w->bp + 16;
	w->bp = nbp;
	w->ip = ra;
	w->flags = (w->flags & ~W_CALLER_CLEARS) | W_FP_STEP_SETS;
	return STEP_CONTINUE;
}

static __always_inline long no_cfi(struct walk *w, __u32 end)
{
	w->no_cfi_end = end;
	return STEP_NO_CFI;
}

/* The signal trampoline's rules: the interrupted rip, rsp, rbp are in the ucontext at sp. */
static __always_inline long signal_step(struct scratch *s, const struct muxbpf_unwind_info *info)
{
	struct walk *w = &s->w;
	__u64 ip, sp, bp;

	if (stack_word(s, w->sp + info->ra_off, &ip) || stack_word(s, w->sp + info->cfa_off, &sp) ||
	    stack_word(s, w->sp + info->rbp_off, &bp))
		return stop(w, MUXBPF_WALK_READ_FAULT);
	if (ip == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	if (ip < 4096 || ip >= USER_MAX || sp >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	w->ip = ip;
	w->sp = sp;
	w->bp = bp;
	/* The interrupted pc is exact, not a return address. */
	w->flags = (w->flags & ~W_BP_PENDING) | W_BP_OK | W_IP_EXACT;
	return STEP_CONTINUE;
}

/* The rule at pc from the tables, into the cache entry e.  0 or the reason there is none. */
static __noinline __u32 lookup_rule(struct walk *w, __u64 pc, struct rule_ent *e)
{
	struct muxbpf_unwind_info *info;
	__u64 rel;
	__u32 key;
	__s64 rule;

	if (pc - w->m_start >= w->m_end - w->m_start && load_map(w, pc)) {
		w->missed = 1;
		return MUXBPF_WALK_NO_TABLE;
	}
	rel = pc - w->m_base;
	if (rel > 0xffffffffull)
		return MUXBPF_WALK_NO_ROW;
	rule = find_rule(w, (__u32)rel);
	if (rule < 0)
		return MUXBPF_WALK_NO_ROW;
	key = (__u32)rule;
	info = bpf_map_lookup_elem(&unwind_infos, &key);
	if (!info)
		return MUXBPF_WALK_NO_ROW;
	e->info = *info;
	e->pc = pc;
	e->gen = w->gen;
	return 0;
}

/* The caller by CFI. */
static __noinline long cfi_step(struct scratch *s)
{
	struct walk *w = &s->w;
	struct muxbpf_unwind_info *info;
	struct rule_cache *rc;
	struct rule_ent *ent, *old;
	__u64 pc, cfa, ra, set, hash;
	__u32 elem, e;

	if (w->slot == NO_SLOT)
		return no_cfi(w, MUXBPF_WALK_NO_PROC);
	/* A return address points after the call, maybe past the caller's last byte. */
	pc = (w->flags & W_IP_EXACT) ? w->ip : w->ip - 1;
	hash = pc * 0x9e3779b97f4a7c15ull;
	elem = hash >> (64 - RULE_ELEM_BITS);
	rc = bpf_map_lookup_elem(&unwind_rule_cache, &elem);
	if (!rc)
		return no_cfi(w, MUXBPF_WALK_NO_PROC);
	set = ((hash << RULE_ELEM_BITS) >> (64 - RULE_SET_BITS)) * 2;
	ent = &rc->e[set & ((1 << RULE_CACHE_BITS) - 2)];
	if (ent->pc != pc || ent->gen != w->gen) {
		old = &rc->e[(set + 1) & ((1 << RULE_CACHE_BITS) - 1)];
		if (old->pc == pc && old->gen == w->gen) {
			ent = old;
		} else {
			*old = *ent;
			e = lookup_rule(w, pc, ent);
			if (e)
				return no_cfi(w, e);
		}
	}
	info = &ent->info;

	switch (info->cfa) {
	case MUXBPF_CFA_RSP:
#if defined(__TARGET_ARCH_arm64)
		if (w->flags & W_SP_LOW)
			return no_cfi(w, MUXBPF_WALK_UNSUPPORTED);
#endif
		cfa = w->sp + info->cfa_off;
		break;
	case MUXBPF_CFA_RBP:
		e = frame_bp(s, w);
		if (e)
			return stop(w, e);
		cfa = w->bp + info->cfa_off;
		break;
	case MUXBPF_CFA_PLT:
		cfa = w->sp + info->cfa_off + ((w->ip & 15) >= info->plt_thresh ? 8 : 0);
		break;
	case MUXBPF_CFA_SIGNAL:
		return signal_step(s, info);
	case MUXBPF_CFA_END:
		return stop(w, MUXBPF_WALK_OUTERMOST);
	case MUXBPF_CFA_UNSUPPORTED:
		return no_cfi(w, MUXBPF_WALK_UNSUPPORTED);
	default:
		return no_cfi(w, MUXBPF_WALK_NO_ROW);
	}
#if defined(__TARGET_ARCH_arm64)
	/*
	 * The return address still in x30 (a leaf, a prologue): the interrupted frame's only, and
	 * there the CFA may be sp itself.
	 */
	if (info->ra == MUXBPF_RA_LR) {
		if (!(w->flags & W_IP_EXACT) || cfa < w->sp || cfa >= USER_MAX)
			return stop(w, MUXBPF_WALK_BAD_FRAME);
		ra = w->lr;
	} else if (cfa <= w->sp || cfa >= USER_MAX) {
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	} else if (stack_word(s, cfa + info->ra_off, &ra)) {
		return stop(w, MUXBPF_WALK_READ_FAULT);
	}
	ra = STRIP_PAC(ra);
#else
	/* The caller's frame lies above ours: a CFA at or below sp is a broken rule. */
	if (cfa <= w->sp || cfa >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	if (stack_word(s, cfa + info->ra_off, &ra))
		return stop(w, MUXBPF_WALK_READ_FAULT);
#endif
	/* The saved rbp is read only if a caller's rule or a frame-pointer step uses it. */
	if (info->rbp == MUXBPF_RBP_AT) {
		w->bp_addr = cfa + info->rbp_off;
		w->flags |= W_BP_OK | W_BP_PENDING;
	} else if (info->rbp == MUXBPF_RBP_LOST) {
		w->flags &= ~(W_BP_OK | W_BP_PENDING);
	}
	if (ra == 0)
		return stop(w, MUXBPF_WALK_ZERO_END);
	if (ra < 4096 || ra >= USER_MAX)
		return stop(w, MUXBPF_WALK_BAD_FRAME);
	w->ip = ra;
	w->sp = cfa;
	w->flags &= ~W_CALLER_CLEARS;
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
		return fp_step(s);
	r = cfi_step(s);
	if (r != STEP_NO_CFI)
		return r;
	if (unwind_mode == MUXBPF_UNWIND_AUTO)
		return fp_step(s);
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
static __always_inline long intern(void *map, struct scratch *s, __u32 end, __u32 *fresh)
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
	if (bpf_map_update_elem(map, s->ips, &val, BPF_NOEXIST) == 0) {
		*fresh = 1;
		return val.id;
	}
	/* Another CPU stored the same stack first, or the map is full. */
	old = bpf_map_lookup_elem(map, s->ips);
	return old ? old->id : MUXBPF_STACK_FULL;
}

#if defined(__TARGET_ARCH_arm64)
/*
 * AArch64: the interrupted frame's x30, for the mb_user_stack() call that follows on this CPU
 * (mb_user_stack takes the five arguments a BPF function can have).  0 or -22.
 */
__hidden int mb_user_lr(__u64 lr)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&unwind_scratch, &zero);

	if (!s)
		return -22;
	s->w.lr = lr;
	return 0;
}
#endif

/*
 * Walk the user stack of the current task from its interrupted registers and return the stack's
 * id (>= 0) or a negative error.  st (the phase's stats) gets the walk's outcome.
 */
__hidden int mb_user_stack(__u64 ip, __u64 sp, __u64 bp, struct muxbpf_phase_stats *st,
			   __u32 *fresh)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0, n, end, dirty;
	__u64 *slot, rec;
	struct scratch *s;
	struct walk *w;
	long id;

	if (!st || !fresh)
		return -22;
	*fresh = 0;
	s = bpf_map_lookup_elem(&unwind_scratch, &zero);
	if (!s)
		return -22;
	w = &s->w;
	w->fp_frames = 0;
	w->n = 0;
	w->no_cfi_end = 0;
	w->missed = 0;
	w->ip = ip;
	w->sp = sp;
	w->bp = bp;
	w->flags = W_BP_OK | W_IP_EXACT;
	/* The cache holds the last walk's spans, maybe of another process. */
	s->span_addr[0] = s->span_addr[1] = SPAN_NONE;
	slot = bpf_map_lookup_elem(&unwind_pids, &tgid);
	rec = slot ? *slot : (__u64)NO_SLOT;
	/*
	 * The last walk's mapping holds while the record does (a slot is rewritten only under a new
	 * generation): a walk's first rule cache miss then skips the mapping search.
	 */
	if ((__u32)rec != w->slot || rec >> 32 != w->gen)
		w->m_start = w->m_end = 0;
	w->slot = (__u32)rec;
	w->gen = rec >> 32;
	if (unwind_mode != MUXBPF_UNWIND_FP && !slot)
		w->missed = 1;
	w->end = MUXBPF_WALK_DEPTH;
	if (MUXBPF_BENCH_STAGE == MUXBPF_STAGE_SETUP)
		return -22;
	bpf_loop(MUXBPF_MAX_STACK_DEPTH + 1, walk_step, NULL, 0);
	if (w->missed)
		request_reload(tgid, w->ip);

	if (MUXBPF_BENCH_STAGE == MUXBPF_STAGE_WALK)
		return -22;
	n = w->n;
	end = w->end;
	/* The key is the frames zero-padded to the bucket's depth: clear the last walk's tail. */
	dirty = s->dirty;
	for (int i = 0; i < MUXBPF_MAX_STACK_DEPTH; i++) {
		if (n + i >= dirty)
			break;
		s->ips[(n + i) & (SCRATCH_DEPTH - 1)] = 0;
	}
	s->dirty = n;
	st->walks++;
	st->frames += n;
	st->fp_frames += w->fp_frames;
	if (end < MUXBPF_WALK_END__COUNT)
		st->walk_end[end]++;
	if (n <= 16)
		id = intern(&ustacks_16, s, end, fresh);
	else if (n <= 32)
		id = intern(&ustacks_32, s, end, fresh);
	else if (n <= 64)
		id = intern(&ustacks_64, s, end, fresh);
	else
		id = intern(&ustacks_127, s, end, fresh);
	return id;
}
