// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a phase cost: the delta between two cost readings, by program group.  Pure. */
#include <string.h>
#include "cost.h"
#include "ledger.h"

static bool is_ledger_prog(const char *name)
{
	for (size_t i = 0; i < LEDGER_NPROGS; i++)
		if (!strcmp(name, ledger_progs[i]))
			return true;
	return false;
}

void cost_delta(const struct mb_cost_reading *from, const struct mb_cost_reading *to,
		struct mb_cost *out)
{
	memset(out, 0, sizeof(*out));
	if (!from->valid || !to->valid)
		return;
	out->valid = true;
	out->self_cpu_ns = to->self_cpu_ns - from->self_cpu_ns;
	out->wall_ns = to->t_ns - from->t_ns;
	for (int i = 0; i < to->nprogs; i++) {
		const struct mb_prog_cost *b = &to->progs[i], *a = NULL;
		uint64_t runs, ns;

		for (int j = 0; j < from->nprogs && !a; j++)
			if (!strcmp(from->progs[j].name, b->name))
				a = &from->progs[j];
		runs = b->runs - (a ? a->runs : 0);
		ns = b->run_ns - (a ? a->run_ns : 0);
		if (b->run_ns)
			out->stats = true;
		out->bpf_runs += runs;
		out->bpf_ns += ns;
		if (!strcmp(b->name, "mb_sample")) {
			out->sampler_runs += runs;
			out->sampler_ns += ns;
		} else if (is_ledger_prog(b->name)) {
			out->ledger_runs += runs;
			out->ledger_ns += ns;
		}
	}
}
