// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The symbolized, run-independent profile the artifact writers read. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/grow.h"
#include "symbols/elfread.h"
#include "fold/fold.h"
#include "model/ledger.h"
#include "symbols/resolve.h"
#include "fold/sprof.h"
#include "base/stats.h"

void sprof_init(struct sprof *sp, int freq)
{
	memset(sp, 0, sizeof(*sp));
	sp->freq = freq > 0 ? freq : 1;
}

double sprof_period_ns(const struct sprof *sp)
{
	return 1e9 / sp->freq;
}

/* fold.c's row label (the function view): the artifacts and the report name frames alike. */
void sprof_frame_label(const struct mb_sym *f, char *buf, size_t size)
{
	fold_frame_label(FOLD_BY_FUNCTION, f, buf, size);
}

/* Index of the mapping record for path, created (with build-id and size) when new; the
 * symbolizer's build-id when it has one, else read here. */
static int32_t map_get(struct sprof *sp, const char *path, const char *build_id)
{
	struct sp_map *m;
	struct stat st;

	if (!path)
		return -1;
	for (size_t i = 0; i < sp->nmaps; i++)
		if (!strcmp(sp->maps[i].path, path))
			return (int32_t)i;
	m = realloc(sp->maps, (sp->nmaps + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	sp->maps = m;
	m = &sp->maps[sp->nmaps];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	if (build_id && *build_id)
		snprintf(m->build_id, sizeof(m->build_id), "%s", build_id);
	if (path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		m->size = st.st_size;
		if (!m->build_id[0])
			mb_elf_build_id_path(path, m->build_id, sizeof(m->build_id));
	}
	return (int32_t)sp->nmaps++;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	while (s && *s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static uint64_t frame_hash(const struct sp_frame *f)
{
	uint64_t h = mix(mix(mix(14695981039346656037ull, (uint64_t)(int64_t)f->map), f->offset),
			 f->kernel * 2 + f->why);

	return hash_str(h, f->name);
}

static bool frame_eq(const struct sp_frame *a, const struct sp_frame *b)
{
	if (a->map != b->map || a->offset != b->offset || a->kernel != b->kernel ||
	    a->why != b->why)
		return false;
	if (!a->name || !b->name)
		return a->name == b->name;
	return !strcmp(a->name, b->name);
}

static int frame_index_grow(struct sprof *sp)
{
	size_t size = sp->frame_index_size ? sp->frame_index_size * 2 : 1024;
	size_t *slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < sp->nframes; i++) {
		size_t h = frame_hash(&sp->frames[i]) & (size - 1);

		while (slots[h])
			h = (h + 1) & (size - 1);
		slots[h] = i + 1;
	}
	free(sp->frame_index);
	sp->frame_index = slots;
	sp->frame_index_size = size;
	return 0;
}

/* Intern a frame (key fields of f; the strings are copied when new).  Index or -ENOMEM. */
static long frame_get(struct sprof *sp, const struct sp_frame *f)
{
	struct sp_frame *nf;
	size_t h;

	if ((sp->nframes + 1) * 2 > sp->frame_index_size && frame_index_grow(sp))
		return -ENOMEM;
	for (h = frame_hash(f) & (sp->frame_index_size - 1); sp->frame_index[h];
	     h = (h + 1) & (sp->frame_index_size - 1))
		if (frame_eq(&sp->frames[sp->frame_index[h] - 1], f))
			return (long)sp->frame_index[h] - 1;
	if (mb_grow((void **)&sp->frames, &sp->frames_cap, sp->nframes + 1, sizeof(*sp->frames),
		    256))
		return -ENOMEM;
	nf = &sp->frames[sp->nframes];
	*nf = *f;
	nf->name = f->name ? strdup(f->name) : NULL;
	nf->label = strdup(f->label);
	nf->file = f->file ? strdup(f->file) : NULL;
	if ((f->name && !nf->name) || !nf->label || (f->file && !nf->file)) {
		free(nf->name);
		free(nf->label);
		free(nf->file);
		return -ENOMEM;
	}
	sp->frame_index[h] = sp->nframes + 1;
	return (long)sp->nframes++;
}

static long user_frame(struct sprof *sp, const struct mb_sym *s)
{
	char label[FOLD_LABEL_MAX];
	struct sp_frame f = { .name = (char *)s->name, .why = s->why, .offset = s->offset,
			      .sym_off = s->sym_off, .label = label, .file = (char *)s->file,
			      .line = s->line, .inline_depth = s->inline_depth };
	int32_t map = map_get(sp, s->dso, s->build_id);

	if (map < -1)
		return map;
	f.map = map;
	sprof_frame_label(s, label, sizeof(label));
	return frame_get(sp, &f);
}

struct sp_phase *sprof_phase(struct sprof *sp, unsigned int id)
{
	if (id >= MUXBPF_MAX_PHASES)
		return NULL;
	if (!sp->has[id]) {
		sp->has[id] = true;
		sp->phases[id].id = id;
		sp->order[sp->nphases++] = id;
	}
	return &sp->phases[id];
}

static uint64_t stack_hash(const uint32_t *fr, uint32_t nr)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t i = 0; i < nr; i++)
		h = mix(h, fr[i]);
	return mix(h, nr);
}

static int stack_index_grow(struct sp_phase *p)
{
	size_t size = p->index_size ? p->index_size * 2 : 256;
	size_t *slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->nstacks; i++) {
		size_t h = stack_hash(p->stacks[i].frames, p->stacks[i].nr) & (size - 1);

		while (slots[h])
			h = (h + 1) & (size - 1);
		slots[h] = i + 1;
	}
	free(p->index);
	p->index = slots;
	p->index_size = size;
	return 0;
}

static int stack_add(struct sp_phase *p, const uint32_t *fr, uint32_t nr, uint64_t count)
{
	struct sp_stack *s;
	size_t h;

	if ((p->nstacks + 1) * 2 > p->index_size && stack_index_grow(p))
		return -ENOMEM;
	for (h = stack_hash(fr, nr) & (p->index_size - 1); p->index[h];
	     h = (h + 1) & (p->index_size - 1)) {
		s = &p->stacks[p->index[h] - 1];
		if (s->nr == nr && !memcmp(s->frames, fr, nr * sizeof(*fr))) {
			s->count += count;
			p->samples += count;
			return 0;
		}
	}
	if (mb_grow((void **)&p->stacks, &p->cap, p->nstacks + 1, sizeof(*p->stacks), 64))
		return -ENOMEM;
	s = &p->stacks[p->nstacks];
	s->frames = malloc((nr ? nr : 1) * sizeof(*fr));
	if (!s->frames)
		return -ENOMEM;
	memcpy(s->frames, fr, nr * sizeof(*fr));
	s->nr = nr;
	s->count = count;
	p->index[h] = ++p->nstacks;
	p->samples += count;
	return 0;
}

/* Intern nr symbolized frames into out[]; a stack without frames gets one "[no stack]". */
static int intern_frames(struct sprof *sp, const struct mb_sym *frames, uint32_t nr,
			 uint32_t *out, uint32_t *nout)
{
	*nout = 0;
	for (uint32_t i = 0; i < nr && i < MUXBPF_MAX_STACK_DEPTH; i++) {
		long f = user_frame(sp, &frames[i]);

		if (f < 0)
			return (int)f;
		out[(*nout)++] = (uint32_t)f;
	}
	return 0;
}

int sprof_add_sample(struct sprof *sp, unsigned int phase, const struct mb_sym *frames,
		     uint32_t nr, uint64_t count)
{
	struct sp_phase *p = sprof_phase(sp, phase);
	uint32_t fr[MUXBPF_MAX_STACK_DEPTH + 1], n;
	int err;

	if (!p)
		return -EINVAL;
	err = intern_frames(sp, frames, nr, fr, &n);
	if (err)
		return err;
	if (!n) {
		/* fold.c counts these as unnamed without a row: keep them visible, apart */
		struct sp_frame f = { .map = -1, .why = MB_UNNAMED_NO_MAPPING,
				      .label = "[no stack]" };
		long k = frame_get(sp, &f);

		if (k < 0)
			return (int)k;
		fr[n++] = (uint32_t)k;
	}
	return stack_add(p, fr, n, count);
}

int sprof_add_site(struct sprof *sp, unsigned int phase, const char *syscall,
		   const struct mb_sym *frames, uint32_t nr, uint64_t calls, uint64_t cpu_ns,
		   uint64_t wall_ns, double cpu_var)
{
	struct sp_phase *p = sprof_phase(sp, phase);
	uint32_t fr[MUXBPF_MAX_STACK_DEPTH], n;
	char label[128];
	struct sp_frame kf = { .name = (char *)syscall, .map = -1, .kernel = true,
			       .label = label };
	struct sp_site *s;
	long k;
	int err;

	if (!p)
		return -EINVAL;
	snprintf(label, sizeof(label), "[sys] %s", syscall);
	k = frame_get(sp, &kf);
	if (k < 0)
		return (int)k;
	err = intern_frames(sp, frames, nr, fr, &n);
	if (err)
		return err;
	for (size_t i = 0; i < p->nsites; i++) {
		s = &p->sites[i];
		if (s->frame == (uint32_t)k && s->nr == n &&
		    !memcmp(s->frames, fr, n * sizeof(*fr)))
			goto add;
	}
	s = realloc(p->sites, (p->nsites + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	p->sites = s;
	s = &p->sites[p->nsites];
	memset(s, 0, sizeof(*s));
	s->frames = malloc((n ? n : 1) * sizeof(*fr));
	if (!s->frames)
		return -ENOMEM;
	memcpy(s->frames, fr, n * sizeof(*fr));
	s->nr = n;
	s->frame = (uint32_t)k;
	p->nsites++;
add:
	s->calls += calls;
	s->cpu_ns += cpu_ns;
	s->wall_ns += wall_ns;
	s->cpu_var += cpu_var;
	p->sys_cpu_ns += cpu_ns;
	return 0;
}

/*
 * The kernel time of one phase's syscalls by call site.  The ledger's per-syscall on-CPU time is
 * exact; call sites are taken for 1 call in N (--site-every), so each syscall's exact time is
 * apportioned to its sampled sites by their share of it, and a syscall without a sampled site
 * keeps its time on "[no user stack]".  The kernel frames of a phase thus add up to its exact
 * syscall on-CPU time.  A site's part is the exact time times a sampled share: its variance is
 * the share's (stats_share_sampled_var()) times the time squared.
 */
static int add_sites(struct sprof *sp, unsigned int id, const struct phase_ledger *l,
		     const struct mb_rstack *sites, unsigned int site_every)
{
	double p = site_every ? 1.0 / site_every : 0;

	for (size_t k = 0; k < l->nsys; k++) {
		const struct ledger_sys_row *y = &l->sys[k];
		double site_cpu, site_sq;
		int err;

		ledger_site_sums(l, y->nr, &site_cpu, &site_sq);
		if (!site_cpu) {
			err = sprof_add_site(sp, id, syscall_name(y->nr), NULL, 0, y->count,
					     y->cpu_ns, y->wall_ns, 0);
			if (err)
				return err;
			continue;
		}
		for (size_t i = 0; i < l->nsites; i++) {
			const struct ledger_site_row *t = &l->sites[i];
			double share, var;

			if (t->nr != y->nr || !t->cpu_ns)
				continue;
			share = (double)t->cpu_ns / site_cpu;
			var = stats_share_sampled_var((double)t->cpu_ns, ledger_site_cpu_sq(t),
						      site_cpu, site_sq, p);
			err = sprof_add_site(sp, id, syscall_name(y->nr), sites[i].frames, sites[i].n,
					     (uint64_t)(y->count * share + 0.5),
					     (uint64_t)(y->cpu_ns * share + 0.5),
					     (uint64_t)(y->wall_ns * share + 0.5),
					     var * (double)y->cpu_ns * (double)y->cpu_ns);
			if (err)
				return err;
		}
	}
	return 0;
}

int sprof_add_run(struct sprof *sp, const struct sprof_run *run)
{
	const struct mb_profile *prof = run->prof;
	const struct mb_resolved *res = run->res;
	bool softcode = run->softcode && run->add_softcode;
	int err;

	/* phases in the report's order, also those without samples */
	for (int i = 0; i < run->nphases; i++)
		if (!sprof_phase(sp, run->ids[i]))
			return -EINVAL;
	for (size_t i = 0; i < prof->n && i < res->n; i++) {
		const struct mb_sample *s = &prof->samples[i];

		if (s->pid != run->pid || s->phase >= MUXBPF_MAX_PHASES || !sp->has[s->phase])
			continue;
		/* --by softcode: the command thread's stacks come with their softcode frames */
		if (softcode && s->tid == run->pid)
			continue;
		err = sprof_add_sample(sp, s->phase, res->stacks[i].frames, res->stacks[i].n,
				       s->count);
		if (err)
			return err;
	}
	if (softcode && (err = run->add_softcode(sp, run)))
		return err;
	for (int i = 0; i < run->nphases; i++) {
		if (!run->ledgers[i])
			continue;
		err = add_sites(sp, run->ids[i], run->ledgers[i], run->sites[i], run->site_every);
		if (err)
			return err;
	}
	sp->nruns++;
	return 0;
}

void sprof_free(struct sprof *sp)
{
	for (size_t i = 0; i < sp->nframes; i++) {
		free(sp->frames[i].name);
		free(sp->frames[i].label);
		free(sp->frames[i].file);
	}
	free(sp->frames);
	free(sp->frame_index);
	for (size_t i = 0; i < sp->nmaps; i++)
		free(sp->maps[i].path);
	free(sp->maps);
	for (int i = 0; i < MUXBPF_MAX_PHASES; i++) {
		struct sp_phase *p = &sp->phases[i];

		for (size_t j = 0; j < p->nstacks; j++)
			free(p->stacks[j].frames);
		free(p->stacks);
		free(p->index);
		for (size_t j = 0; j < p->nsites; j++)
			free(p->sites[j].frames);
		free(p->sites);
	}
	memset(sp, 0, sizeof(*sp));
}
