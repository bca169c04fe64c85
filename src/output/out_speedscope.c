// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * speedscope.json (https://www.speedscope.app/file-format-schema.json): one "sampled" profile
 * per phase in nanoseconds — a user sample weighs 1e9 / freq ns, a kernel "[sys] NAME" frame the
 * ledger's exact on-CPU time at its call site — over one shared frame table (frames merged by
 * their label, as in the flame graphs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "output/out_speedscope.h"
#include "session/opts.h"
#include "base/phases.h"
#include "fold/sprof.h"

/* Speedscope frame index of every sprof frame: one per distinct label. */
static long *frame_map(const struct sprof *sp, size_t *nout, size_t **first)
{
	size_t size = 1024, n = 0, *slots;
	long *map = malloc((sp->nframes + 1) * sizeof(*map));
	size_t *rep = malloc((sp->nframes + 1) * sizeof(*rep));

	while (size < 2 * (sp->nframes + 1))
		size *= 2;
	slots = calloc(size, sizeof(*slots));
	if (!map || !rep || !slots) {
		free(map);
		free(rep);
		free(slots);
		return NULL;
	}
	for (size_t i = 0; i < sp->nframes; i++) {
		const char *s = sp->frames[i].label;
		uint64_t h = 1469598103934665603ull;

		for (const char *c = s; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
		for (h &= size - 1; slots[h]; h = (h + 1) & (size - 1))
			if (!strcmp(sp->frames[rep[slots[h] - 1]].label, s))
				break;
		if (!slots[h]) {
			rep[n] = i;
			slots[h] = ++n;
		}
		map[i] = (long)slots[h] - 1;
	}
	free(slots);
	*nout = n;
	*first = rep;
	return map;
}

int speedscope_write(FILE *f, const struct report *r)
{
	const struct sprof *sp = r->stacks;
	double period;
	size_t nss, *rep;
	long *map;
	char name[512];
	struct jw w;

	if (!sp)
		return -EINVAL;
	period = sprof_period_ns(sp);
	map = frame_map(sp, &nss, &rep);
	if (!map)
		return -ENOMEM;
	jw_init(&w, f, false);
	jw_obj(&w);
	jw_kstr(&w, "$schema", "https://www.speedscope.app/file-format-schema.json");
	snprintf(name, sizeof(name), "muxbpf: %s", r->version && *r->version ? r->version
								    : "netmux");
	jw_kstr(&w, "name", name);
	jw_kstr(&w, "exporter", "muxbpf " MUXBPF_VERSION);
	jw_ki64(&w, "activeProfileIndex", 0);
	jw_key(&w, "shared");
	jw_obj(&w);
	jw_key(&w, "frames");
	jw_arr(&w);
	for (size_t i = 0; i < nss; i++) {
		const struct sp_frame *fr = &sp->frames[rep[i]];

		fputc('\n', f);
		jw_obj(&w);
		jw_kstr(&w, "name", fr->label);
		if (fr->file)
			jw_kstr(&w, "file", fr->file);
		if (fr->file && fr->line)
			jw_ku64(&w, "line", fr->line);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_key(&w, "profiles");
	jw_arr(&w);
	for (int k = 0; k < sp->nphases; k++) {
		const struct sp_phase *p = &sp->phases[sp->order[k]];
		uint64_t total = 0;

		for (size_t i = 0; i < p->nstacks; i++)
			total += (uint64_t)(p->stacks[i].count * period + 0.5);
		for (size_t i = 0; i < p->nsites; i++)
			total += p->sites[i].cpu_ns;
		fputc('\n', f);
		jw_obj(&w);
		jw_kstr(&w, "type", "sampled");
		jw_kstr(&w, "name", phase_name(p->id));
		jw_kstr(&w, "unit", "nanoseconds");
		jw_ku64(&w, "startValue", 0);
		jw_ku64(&w, "endValue", total);
		jw_key(&w, "samples");
		jw_arr(&w);
		for (size_t i = 0; i < p->nstacks; i++) {
			jw_arr(&w);
			for (uint32_t j = p->stacks[i].nr; j-- > 0;)
				jw_i64(&w, map[p->stacks[i].frames[j]]);
			jw_arr_end(&w);
		}
		for (size_t i = 0; i < p->nsites; i++) {
			if (!p->sites[i].cpu_ns)
				continue;
			jw_arr(&w);
			for (uint32_t j = p->sites[i].nr; j-- > 0;)
				jw_i64(&w, map[p->sites[i].frames[j]]);
			jw_i64(&w, map[p->sites[i].frame]);
			jw_arr_end(&w);
		}
		jw_arr_end(&w);
		jw_key(&w, "weights");
		jw_arr(&w);
		for (size_t i = 0; i < p->nstacks; i++)
			jw_u64(&w, (uint64_t)(p->stacks[i].count * period + 0.5));
		for (size_t i = 0; i < p->nsites; i++)
			if (p->sites[i].cpu_ns)
				jw_u64(&w, p->sites[i].cpu_ns);
		jw_arr_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	fputc('\n', f);
	free(map);
	free(rep);
	return ferror(f) ? -EIO : 0;
}
