// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * profile.pb.gz: pprof's profile.proto, encoded with protobuf-c (Debian's libprotobuf-c, the
 * message code generated from proto/profile.proto at build time) and gzip'd with zlib.
 *
 * Two sample types: samples/count (user samples, exactly the report's) and cpu/nanoseconds
 * (a user sample stands for 1e9 / freq ns; kernel frames carry the ledger's exact syscall
 * on-CPU time, apportioned to call sites, with samples = 0).  Every sample has a "phase" label;
 * kernel samples also "syscall" and "calls".  Addresses are file offsets placed in a synthetic,
 * non-overlapping range per file (address - memory_start = file offset), since the samples of
 * several runs (different layouts) are merged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "base/grow.h"
#include "base/log.h"
#include "output/out_pprof.h"
#include "session/opts.h"
#include "base/phases.h"
#include "fold/sprof.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

#define MAP_SPAN (1ull << 40)

struct strtab {
	char **v;
	size_t n, cap;
	size_t *slots;
	size_t size;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t size = t->size ? t->size * 2 : 1024;
	size_t *slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = hash_str(t->v[i]) & (size - 1);

		while (slots[h])
			h = (h + 1) & (size - 1);
		slots[h] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->size = size;
	return 0;
}

/* Index of s in the string table (added when new); -ENOMEM on failure. */
static int64_t str_id(struct strtab *t, const char *s)
{
	size_t h;

	if (!s)
		s = "";
	if ((t->n + 1) * 2 > t->size && strtab_grow(t))
		return -ENOMEM;
	for (h = hash_str(s) & (t->size - 1); t->slots[h]; h = (h + 1) & (t->size - 1))
		if (!strcmp(t->v[t->slots[h] - 1], s))
			return (int64_t)t->slots[h] - 1;
	if (mb_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v), 1024))
		return -ENOMEM;
	t->v[t->n] = strdup(s);
	if (!t->v[t->n])
		return -ENOMEM;
	t->slots[h] = t->n + 1;
	return (int64_t)t->n++;
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slots);
}

/* A location's inline chain: n frame indexes at pb.chain[start], innermost first. */
struct loc_key {
	size_t start;
	uint32_t n;
};

/* Everything the Profile message points to, freed at once. */
struct pb {
	Profile prof;
	struct strtab st;
	ValueType vt[2], period_type;
	ValueType *vtp[2];
	Mapping *maps;
	Mapping **mapp;
	Location *locs;
	Location **locp;
	struct loc_key *lk;  /* per location */
	size_t nlocs, lk_cap;
	uint32_t *chain;     /* the locations' frames, back to back */
	size_t nchain, chain_cap;
	size_t *loc_slots;   /* open addressing over lk: index + 1 */
	size_t loc_size;
	Line *lines;
	Line **linep;
	Function *funcs;
	Function **funcp;
	size_t nfuncs;
	Sample *samples;
	Sample **samplep;
	size_t nsamples;
	Label *labels;     /* 3 per sample */
	Label **labelp;
	uint64_t *locids;  /* all samples' location ids, back to back */
	int64_t *values;   /* 2 per sample */
	int64_t comments[4];
	uint64_t *map_of;  /* sprof map index -> mapping id (0: unused) */
	uint64_t *func_of; /* sprof frame index -> function id */
};

static void pb_free(struct pb *b)
{
	strtab_free(&b->st);
	free(b->maps);
	free(b->mapp);
	free(b->locs);
	free(b->locp);
	free(b->lk);
	free(b->chain);
	free(b->loc_slots);
	free(b->lines);
	free(b->linep);
	free(b->funcs);
	free(b->funcp);
	free(b->samples);
	free(b->samplep);
	free(b->labels);
	free(b->labelp);
	free(b->locids);
	free(b->values);
	free(b->map_of);
	free(b->func_of);
}

/* Functions: one per (label, source file), found through an open-addressing table. */
static int build_functions(struct pb *b, const struct sprof *sp)
{
	size_t size = 1024, *slots;

	while (size < 2 * (sp->nframes + 1))
		size *= 2;
	slots = calloc(size, sizeof(*slots));
	b->funcs = calloc(sp->nframes + 1, sizeof(*b->funcs));
	b->funcp = calloc(sp->nframes + 1, sizeof(*b->funcp));
	b->func_of = calloc(sp->nframes + 1, sizeof(*b->func_of));
	if (!slots || !b->funcs || !b->funcp || !b->func_of) {
		free(slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sp->nframes; i++) {
		const struct sp_frame *f = &sp->frames[i];
		int64_t name = str_id(&b->st, f->label), file = str_id(&b->st, f->file);
		size_t h;

		if (name < 0 || file < 0) {
			free(slots);
			return -ENOMEM;
		}
		h = ((uint64_t)name * 0x9e3779b97f4a7c15ull ^ (uint64_t)file) & (size - 1);
		for (; slots[h]; h = (h + 1) & (size - 1))
			if (b->funcs[slots[h] - 1].name == name &&
			    b->funcs[slots[h] - 1].filename == file)
				break;
		if (!slots[h]) {
			Function *fn = &b->funcs[b->nfuncs];

			perftools__profiles__function__init(fn);
			fn->id = b->nfuncs + 1;
			fn->name = name;
			fn->system_name = name;
			fn->filename = file;
			b->funcp[b->nfuncs] = fn;
			slots[h] = ++b->nfuncs;
		}
		b->func_of[i] = slots[h];
	}
	free(slots);
	return 0;
}

static int build_mappings(struct pb *b, const struct sprof *sp, size_t *nmaps)
{
	uint64_t *limit = calloc(sp->nmaps + 1, sizeof(*limit));
	size_t n = 0;

	b->maps = calloc(sp->nmaps + 1, sizeof(*b->maps));
	b->mapp = calloc(sp->nmaps + 1, sizeof(*b->mapp));
	b->map_of = calloc(sp->nmaps + 1, sizeof(*b->map_of));
	if (!limit || !b->maps || !b->mapp || !b->map_of) {
		free(limit);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sp->nframes; i++)
		if (sp->frames[i].map >= 0 && sp->frames[i].offset + 1 > limit[sp->frames[i].map])
			limit[sp->frames[i].map] = sp->frames[i].offset + 1;
	for (size_t m = 0; m < sp->nmaps; m++) {
		Mapping *mp;
		int64_t fn, bid;

		if (!limit[m])
			continue; /* no frame in it */
		mp = &b->maps[n];
		perftools__profiles__mapping__init(mp);
		fn = str_id(&b->st, sp->maps[m].path);
		bid = str_id(&b->st, sp->maps[m].build_id);
		if (fn < 0 || bid < 0) {
			free(limit);
			return -ENOMEM;
		}
		mp->id = n + 1;
		mp->memory_start = (n + 1) * MAP_SPAN;
		mp->memory_limit = mp->memory_start +
				   (sp->maps[m].size > limit[m] ? sp->maps[m].size : limit[m]);
		mp->file_offset = 0;
		mp->filename = fn;
		mp->build_id = bid;
		for (size_t i = 0; i < sp->nframes; i++) {
			if (sp->frames[i].map != (int32_t)m)
				continue;
			mp->has_functions |= sp->frames[i].name != NULL;
			mp->has_filenames |= sp->frames[i].file != NULL;
			mp->has_line_numbers |= sp->frames[i].line != 0;
		}
		b->mapp[n] = mp;
		b->map_of[m] = ++n;
	}
	free(limit);
	*nmaps = n;
	return 0;
}

/*
 * Locations: one per address, its inline chain in its line list (innermost first, as
 * profile.proto says: the last line is the function the code is physically in), so pprof folds
 * inlined functions into their callers (-noinlines) and lists them (-lines).  A chain is a run of
 * a stack's frames at one address: those with inline_depth > 0, then the physical one.
 */
static uint32_t chain_len(const struct sprof *sp, const uint32_t *fr, uint32_t nr)
{
	uint32_t n = 1;

	while (n < nr) {
		const struct sp_frame *in = &sp->frames[fr[n - 1]], *out = &sp->frames[fr[n]];

		if (!in->inline_depth || in->kernel || out->kernel || in->map != out->map ||
		    in->offset != out->offset)
			break;
		n++;
	}
	return n;
}

static uint64_t chain_hash(const uint32_t *fr, uint32_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ fr[i]) * 1099511628211ull;
	return h;
}

static int loc_index_grow(struct pb *b)
{
	size_t size = b->loc_size ? b->loc_size * 2 : 1024;
	size_t *slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < b->nlocs; i++) {
		size_t h = chain_hash(&b->chain[b->lk[i].start], b->lk[i].n) & (size - 1);

		while (slots[h])
			h = (h + 1) & (size - 1);
		slots[h] = i + 1;
	}
	free(b->loc_slots);
	b->loc_slots = slots;
	b->loc_size = size;
	return 0;
}

/* The location id of a chain of n frames (added when new); 0 on ENOMEM. */
static uint64_t loc_get(struct pb *b, const uint32_t *fr, uint32_t n)
{
	size_t h;

	if ((b->nlocs + 1) * 2 > b->loc_size && loc_index_grow(b))
		return 0;
	for (h = chain_hash(fr, n) & (b->loc_size - 1); b->loc_slots[h];
	     h = (h + 1) & (b->loc_size - 1)) {
		const struct loc_key *k = &b->lk[b->loc_slots[h] - 1];

		if (k->n == n && !memcmp(&b->chain[k->start], fr, n * sizeof(*fr)))
			return b->loc_slots[h];
	}
	if (mb_grow((void **)&b->lk, &b->lk_cap, b->nlocs + 1, sizeof(*b->lk), 256) ||
	    mb_grow((void **)&b->chain, &b->chain_cap, b->nchain + n, sizeof(*b->chain), 1024))
		return 0;
	memcpy(&b->chain[b->nchain], fr, n * sizeof(*fr));
	b->lk[b->nlocs].start = b->nchain;
	b->lk[b->nlocs].n = n;
	b->nchain += n;
	b->loc_slots[h] = ++b->nlocs;
	return b->nlocs;
}

/* A stack's location ids into ids (at most nr); their number, or -ENOMEM. */
static long stack_locations(struct pb *b, const struct sprof *sp, const uint32_t *fr,
			    uint32_t nr, uint64_t *ids)
{
	long n = 0;

	for (uint32_t f = 0; f < nr;) {
		uint32_t len = chain_len(sp, fr + f, nr - f);

		ids[n] = loc_get(b, fr + f, len);
		if (!ids[n++])
			return -ENOMEM;
		f += len;
	}
	return n;
}

/* The Location messages of the chains found, once every sample has its ids. */
static int build_locations(struct pb *b, const struct sprof *sp)
{
	b->locs = calloc(b->nlocs + 1, sizeof(*b->locs));
	b->locp = calloc(b->nlocs + 1, sizeof(*b->locp));
	b->lines = calloc(b->nchain + 1, sizeof(*b->lines));
	b->linep = calloc(b->nchain + 1, sizeof(*b->linep));
	if (!b->locs || !b->locp || !b->lines || !b->linep)
		return -ENOMEM;
	for (size_t i = 0; i < b->nlocs; i++) {
		const struct loc_key *k = &b->lk[i];
		const struct sp_frame *f = &sp->frames[b->chain[k->start]];
		Location *l = &b->locs[i];

		perftools__profiles__location__init(l);
		l->id = i + 1;
		if (f->map >= 0 && b->map_of[f->map]) {
			l->mapping_id = b->map_of[f->map];
			l->address = l->mapping_id * MAP_SPAN + f->offset;
		}
		for (uint32_t j = 0; j < k->n; j++) {
			Line *ln = &b->lines[k->start + j];

			perftools__profiles__line__init(ln);
			ln->function_id = b->func_of[b->chain[k->start + j]];
			ln->line = sp->frames[b->chain[k->start + j]].line;
			b->linep[k->start + j] = ln;
		}
		l->n_line = k->n;
		l->line = &b->linep[k->start];
		b->locp[i] = l;
	}
	return 0;
}

static int set_label(struct pb *b, Label *l, const char *key, const char *str, int64_t num,
		     const char *unit)
{
	perftools__profiles__label__init(l);
	l->key = str_id(&b->st, key);
	if (str)
		l->str = str_id(&b->st, str);
	else
		l->num = num;
	if (unit)
		l->num_unit = str_id(&b->st, unit);
	return l->key < 0 || l->str < 0 || l->num_unit < 0 ? -ENOMEM : 0;
}

static int build_samples(struct pb *b, const struct sprof *sp)
{
	size_t n = 0, nloc = 0, li = 0, lab = 0;
	double period = sprof_period_ns(sp);

	for (int k = 0; k < sp->nphases; k++) {
		const struct sp_phase *p = &sp->phases[sp->order[k]];

		n += p->nstacks + p->nsites;
		for (size_t i = 0; i < p->nstacks; i++)
			nloc += p->stacks[i].nr;
		for (size_t i = 0; i < p->nsites; i++)
			nloc += p->sites[i].nr + 1;
	}
	b->samples = calloc(n + 1, sizeof(*b->samples));
	b->samplep = calloc(n + 1, sizeof(*b->samplep));
	b->labels = calloc(3 * n + 1, sizeof(*b->labels));
	b->labelp = calloc(3 * n + 1, sizeof(*b->labelp));
	b->locids = calloc(nloc + 1, sizeof(*b->locids));
	b->values = calloc(2 * n + 1, sizeof(*b->values));
	if (!b->samples || !b->samplep || !b->labels || !b->labelp || !b->locids || !b->values)
		return -ENOMEM;
	for (int k = 0; k < sp->nphases; k++) {
		const struct sp_phase *p = &sp->phases[sp->order[k]];
		const char *name = phase_name(p->id);

		for (size_t i = 0; i < p->nstacks + p->nsites; i++) {
			Sample *s = &b->samples[b->nsamples];
			bool kernel = i >= p->nstacks;
			const struct sp_site *site = kernel ? &p->sites[i - p->nstacks] : NULL;
			const struct sp_stack *st = kernel ? NULL : &p->stacks[i];
			const uint32_t *fr = kernel ? site->frames : st->frames;
			uint32_t nr = kernel ? site->nr : st->nr;
			long got;

			if (kernel && !site->cpu_ns)
				continue;
			perftools__profiles__sample__init(s);
			s->location_id = &b->locids[li];
			if (kernel && !(b->locids[li++] = loc_get(b, &site->frame, 1)))
				return -ENOMEM;
			got = stack_locations(b, sp, fr, nr, &b->locids[li]);
			if (got < 0)
				return -ENOMEM;
			li += got;
			s->n_location_id = &b->locids[li] - s->location_id;
			s->value = &b->values[2 * b->nsamples];
			s->n_value = 2;
			s->value[0] = kernel ? 0 : (int64_t)st->count;
			s->value[1] = kernel ? (int64_t)site->cpu_ns
					     : (int64_t)(st->count * period + 0.5);
			s->label = &b->labelp[lab];
			if (set_label(b, &b->labels[lab], "phase", name, 0, NULL))
				return -ENOMEM;
			b->labelp[lab] = &b->labels[lab];
			lab++;
			if (kernel) {
				if (set_label(b, &b->labels[lab], "syscall",
					      sp->frames[site->frame].name, 0, NULL) ||
				    set_label(b, &b->labels[lab + 1], "calls", NULL,
					      (int64_t)site->calls, "calls"))
					return -ENOMEM;
				b->labelp[lab] = &b->labels[lab];
				b->labelp[lab + 1] = &b->labels[lab + 1];
				lab += 2;
			}
			s->n_label = &b->labelp[lab] - s->label;
			b->samplep[b->nsamples++] = s;
		}
	}
	return 0;
}

int pprof_encode(const struct report *r, unsigned char **buf, size_t *len)
{
	const struct sprof *sp = r->stacks;
	struct pb b = {};
	size_t nmaps = 0;
	int64_t ids[8];
	char comment[512];
	int err;

	if (!sp)
		return -EINVAL;
	perftools__profiles__profile__init(&b.prof);
	if (str_id(&b.st, "") != 0)
		return -ENOMEM;
	ids[0] = str_id(&b.st, "samples");
	ids[1] = str_id(&b.st, "count");
	ids[2] = str_id(&b.st, "cpu");
	ids[3] = str_id(&b.st, "nanoseconds");
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&b.vt[i]);
		b.vt[i].type = ids[2 * i];
		b.vt[i].unit = ids[2 * i + 1];
		b.vtp[i] = &b.vt[i];
	}
	perftools__profiles__value_type__init(&b.period_type);
	b.period_type.type = ids[2];
	b.period_type.unit = ids[3];
	err = build_functions(&b, sp);
	if (!err)
		err = build_mappings(&b, sp, &nmaps);
	if (!err)
		err = build_samples(&b, sp);
	if (!err)
		err = build_locations(&b, sp);
	snprintf(comment, sizeof(comment),
		 "muxbpf %s: %s (%s), %d Hz user-only cpu-clock, %d run%s", MUXBPF_VERSION,
		 r->target ? r->target : "?", r->version && *r->version ? r->version : "?", sp->freq, sp->nruns,
		 sp->nruns == 1 ? "" : "s");
	b.comments[0] = str_id(&b.st, comment);
	b.comments[1] = str_id(&b.st, "cpu: user samples x 1e9/freq ns, plus the ledger's exact "
				      "syscall on-CPU time as [sys] frames (samples = 0)");
	b.prof.default_sample_type = ids[2];
	if (!err && (b.comments[0] < 0 || b.comments[1] < 0))
		err = -ENOMEM;
	if (err) {
		pb_free(&b);
		return err;
	}
	b.prof.n_sample_type = 2;
	b.prof.sample_type = b.vtp;
	b.prof.n_sample = b.nsamples;
	b.prof.sample = b.samplep;
	b.prof.n_mapping = nmaps;
	b.prof.mapping = b.mapp;
	b.prof.n_location = b.nlocs;
	b.prof.location = b.locp;
	b.prof.n_function = b.nfuncs;
	b.prof.function = b.funcp;
	b.prof.n_string_table = b.st.n;
	b.prof.string_table = b.st.v;
	b.prof.period_type = &b.period_type;
	b.prof.period = (int64_t)(sprof_period_ns(sp) + 0.5);
	b.prof.time_nanos = (int64_t)time(NULL) * 1000000000ll;
	b.prof.n_comment = 2;
	b.prof.comment = b.comments;
	*len = perftools__profiles__profile__get_packed_size(&b.prof);
	*buf = malloc(*len ? *len : 1);
	if (!*buf) {
		pb_free(&b);
		return -ENOMEM;
	}
	perftools__profiles__profile__pack(&b.prof, *buf);
	pb_free(&b);
	return 0;
}

int pprof_write(const char *path, const struct report *r)
{
	char tmp[4096];
	unsigned char *buf;
	size_t len;
	gzFile gz;
	int err;

	err = pprof_encode(r, &buf, &len);
	if (err) {
		pr_err("failed to encode %s: %s", path, strerror(-err));
		return err;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	gz = gzopen(tmp, "wb6");
	if (!gz) {
		err = errno ? -errno : -ENOMEM;
		pr_err("failed to create %s: %s", tmp, strerror(-err));
		free(buf);
		return err;
	}
	if (len && gzwrite(gz, buf, (unsigned int)len) != (int)len)
		err = -EIO;
	if (gzclose(gz) != Z_OK && !err)
		err = -EIO;
	free(buf);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		pr_err("failed to write %s: %s", path, strerror(-err));
	}
	return err;
}
