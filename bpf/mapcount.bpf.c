// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Map occupancy for long runs: a bpf_map iterator that writes {id, max_entries, elements} for
 * every map on the system (the loader keeps its own by id).  The element count is the kernel's
 * own per-CPU counter (bpf_map_sum_elem_count, Linux 6.6+), so one read costs a few
 * microseconds whatever the maps hold; walking a full 65,536-key hash with get_next_key costs
 * tens of milliseconds.  This object is not linked into muxbpf's skeleton but has one of its own
 * (mapcount.skel.h), loaded only where vmlinux has the kfunc: libbpf resolves every kfunc extern
 * of an object it loads, and where vmlinux lacks one (6.1) it walks the module BTFs, which needs
 * CAP_SYS_ADMIN there, so the extern alone would break the main load.  Without it the loader
 * counts by walking the keys.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "muxbpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

extern __s64 bpf_map_sum_elem_count(const struct bpf_map *map) __ksym;

SEC("iter/bpf_map")
int mb_map_count(struct bpf_iter__bpf_map *ctx)
{
	struct muxbpf_map_count rec = {};
	struct bpf_map *map = ctx->map;

	if (!map)
		return 0;
	rec.id = map->id;
	rec.max_entries = map->max_entries;
	rec.elements = bpf_map_sum_elem_count(map);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
