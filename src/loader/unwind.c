// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CFI tables into BPF maps (see unwind.h).
 *
 * Map layout and sizing.  All tables share one BPF_F_MMAPABLE array of 8-byte rows and one of
 * 16-byte rules (deduplicated: a few thousand distinct rules cover netmux and its libraries);
 * each table is a sorted run of rows, appended once and never moved, so the walker's binary
 * search uses plain array lookups the verifier inlines.  The arrays are sized between open and
 * load from the data: the target's own tables are compiled before it runs (its DT_NEEDED
 * closure), and the capacity is twice that plus room for modules loaded later.  Inner maps per
 * table would size exactly but cost a helper call per search step.
 *
 * Process records are double-buffered: each process owns two slots of the records array; a new
 * record goes into the spare one and the tgid -> slot hash entry flips atomically, so the walker
 * never reads a half-written record.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>
#include "base/grow.h"
#include "symbols/cfi.h"
#include "base/clock.h"
#include "symbols/elfread.h"
#include "symbols/libdeps.h"
#include "base/log.h"
#include "proc/maps.h"
#include "muxbpf.h"
#include "loader/unwind.h"

#define RECHECK_MS 500
#define POLL_MS 50
#define DLOPEN_ROOM_ROWS (128u * 1024)
#define DLOPEN_ROOM_INFOS 4096u
#define DLOPEN_ROOM_INDEX (64u * 1024) /* 16 MiB of code */
/* A table's page index beyond this (1 GiB of code) is not a table we believe. */
#define MAX_INDEX (1u << 22)

/* One compiled file. */
struct table {
	char *key;           /* "dev:inode" of the file it was built from */
	char build_id[41];
	struct cfi_table cfi;
	int err;             /* build failed: -errno */
	/* PT_LOAD segments, to turn a mapping's file offset into an ELF address (none read for a
	 * table with another's build-id: that one's) */
	struct { uint64_t vaddr, offset, filesz; } seg[8];
	int nseg;
	uint32_t *info_ids;  /* per row, after dedupe */
	struct muxbpf_unwind_page *index; /* the page index (muxbpf.h) */
	uint32_t nindex;
	bool loaded, full;
	uint32_t row_first, index_first;
	double build_ms;
	struct table *same;  /* another key with the same build-id: use its rows */
};

struct proc {
	pid_t pid;
	int slot_pair;       /* slots 2*slot_pair and 2*slot_pair+1 */
	int cur;             /* slot in use, or -1 */
	struct muxbpf_unwind_proc rec;
};

struct info_dict {
	struct muxbpf_unwind_info *v;
	size_t n, cap;
	uint32_t *hash; /* open addressing: id + 1, 0 = empty */
	size_t hcap;
};

struct unwinder {
	int mode;
	struct table **tables;
	size_t ntables;
	struct info_dict infos;
	struct proc procs[MUXBPF_UNW_MAX_PROCS];
	int nprocs;
	/* BPF side, after start. */
	struct unwinder_maps m;
	struct muxbpf_unwind_row *rows;
	struct muxbpf_unwind_info *info_arr;
	struct muxbpf_unwind_page *index_arr;
	size_t rows_len, infos_len, index_len; /* mmapped bytes */
	struct unwinder_caps cap;
	uint32_t rows_used, infos_loaded, index_used;
	struct ring_buffer *rb;
	pthread_t thread;
	bool thread_started;
	volatile bool stop;
	int poll_ms, recheck_ms; /* the thread's pace (unwinder__set_pace) */
	pthread_mutex_t lock;
	pid_t pending[64];
	int npending;
	struct table *vdso;
	bool vdso_tried;
	uint32_t no_cfi;
	uint32_t gen; /* the last record's generation */
	bool warned_full;
	int stats_fd;
};

/* ---- rule dedupe -------------------------------------------------------------------------------- */

static uint64_t info_hash(const struct muxbpf_unwind_info *in)
{
	uint64_t a, b;

	memcpy(&a, in, 8);
	memcpy(&b, (const char *)in + 8, 8);
	a ^= b * 0x9e3779b97f4a7c15ull;
	a ^= a >> 31;
	return a * 0xbf58476d1ce4e5b9ull;
}

static int dict_grow(struct info_dict *d)
{
	size_t ncap = mb_grow_cap(d->hcap, 4096);
	uint32_t *h = calloc(ncap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < d->n; i++) {
		size_t j = info_hash(&d->v[i]) & (ncap - 1);

		while (h[j])
			j = (j + 1) & (ncap - 1);
		h[j] = i + 1;
	}
	free(d->hash);
	d->hash = h;
	d->hcap = ncap;
	return 0;
}

static int dict_id(struct info_dict *d, const struct muxbpf_unwind_info *in, uint32_t *id)
{
	size_t j;

	if ((d->n + 1) * 2 > d->hcap && dict_grow(d))
		return -ENOMEM;
	j = info_hash(in) & (d->hcap - 1);
	while (d->hash[j]) {
		if (!memcmp(&d->v[d->hash[j] - 1], in, sizeof(*in))) {
			*id = d->hash[j] - 1;
			return 0;
		}
		j = (j + 1) & (d->hcap - 1);
	}
	if (mb_grow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v), 1024))
		return -ENOMEM;
	d->v[d->n] = *in;
	d->hash[j] = d->n + 1;
	*id = d->n++;
	return 0;
}

/* ---- tables ------------------------------------------------------------------------------------- */

/* The PT_LOAD segments of the file at path, or of an image in memory (read through a private
 * copy: elf_memory takes a writable buffer). */
static void read_segments(struct table *t, const char *path, const void *image, size_t size)
{
	void *copy = NULL;
	Elf *elf;
	size_t nph;
	int fd = -1;

	if (image) {
		copy = malloc(size);
		if (!copy)
			return;
		memcpy(copy, image, size);
		elf_version(EV_CURRENT);
		elf = elf_memory(copy, size);
	} else if (!(elf = mb_elf_open(path, &fd))) {
		return;
	}
	if (elf && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph && t->nseg < 8; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
				continue;
			t->seg[t->nseg].vaddr = ph.p_vaddr;
			t->seg[t->nseg].offset = ph.p_offset;
			t->seg[t->nseg].filesz = ph.p_filesz;
			t->nseg++;
		}
	}
	mb_elf_close(elf, fd);
	free(copy);
}

/* Dedupe the table's rules into the global dictionary. */
static int table_intern(struct unwinder *u, struct table *t)
{
	t->info_ids = malloc((t->cfi.n ? t->cfi.n : 1) * sizeof(*t->info_ids));
	if (!t->info_ids)
		return -ENOMEM;
	for (size_t i = 0; i < t->cfi.n; i++)
		if (dict_id(&u->infos, &t->cfi.rows[i].info, &t->info_ids[i]))
			return -ENOMEM;
	return 0;
}

/*
 * The page index (muxbpf.h), up to the last row's page: a pc beyond is past the last row, which
 * is a gap row.  Rows have strictly increasing pcs, so an entry spans at most 2^SHIFT + 1 rows
 * (the walker's search is bounded by that, and checks it).
 */
static int table_index(struct table *t)
{
	const struct cfi_table *c = &t->cfi;
	uint64_t last, k, i = 0;

	if (!c->n)
		return 0;
	last = c->rows[c->n - 1].pc - c->lo;
	if ((last >> MUXBPF_UNW_IDX_SHIFT) + 1 > MAX_INDEX)
		return -E2BIG;
	t->nindex = (uint32_t)(last >> MUXBPF_UNW_IDX_SHIFT) + 1;
	t->index = malloc(t->nindex * sizeof(*t->index));
	if (!t->index)
		return -ENOMEM;
	for (k = 0; k < t->nindex; k++) {
		/* The last row at or before the page's start ... */
		while (i + 1 < c->n && c->rows[i + 1].pc - c->lo <= k << MUXBPF_UNW_IDX_SHIFT)
			i++;
		t->index[k].first = (uint32_t)i;
		/* ... and the last row before its end. */
		t->index[k].last = (uint32_t)i;
		while (t->index[k].last + 1 < c->n &&
		       c->rows[t->index[k].last + 1].pc - c->lo < (k + 1) << MUXBPF_UNW_IDX_SHIFT)
			t->index[k].last++;
	}
	return 0;
}

static struct table *find_table(struct unwinder *u, const char *key)
{
	for (size_t i = 0; i < u->ntables; i++)
		if (!strcmp(u->tables[i]->key, key))
			return u->tables[i];
	return NULL;
}

/* Compile (once) the table of the file at path, known as key; image for in-memory ELFs. */
static struct table *get_table(struct unwinder *u, const char *key, const char *path,
			       const void *image, size_t size)
{
	struct table *t = find_table(u, key), **v;
	double t0;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	v = realloc(u->tables, (u->ntables + 1) * sizeof(*v));
	if (!t || !v || !(t->key = strdup(key))) {
		free(t);
		if (v)
			u->tables = v;
		return NULL;
	}
	u->tables = v;
	u->tables[u->ntables++] = t;
	t0 = mono_ms();
	t->err = image ? cfi_table__build_mem(image, size, &t->cfi)
		       : cfi_table__build_file(path, &t->cfi);
	t->build_ms = mono_ms() - t0;
	if (!t->err && t->cfi.hi - t->cfi.lo > 0xffffffffull)
		t->err = -E2BIG;
	if (t->err) {
		pr_debug("no CFI table for %s: %s", path, strerror(-t->err));
		return t;
	}
	memcpy(t->build_id, t->cfi.build_id, sizeof(t->build_id));
	/* The same build-id under another name (a copy, a hard link): share its rows. */
	for (size_t i = 0; t->build_id[0] && i + 1 < u->ntables; i++) {
		if (!strcmp(u->tables[i]->build_id, t->build_id) && !u->tables[i]->err &&
		    !u->tables[i]->same) {
			t->same = u->tables[i];
			break;
		}
	}
	/* a table with another's build-id uses that one's rows and program headers */
	if (!t->same) {
		read_segments(t, path, image, size);
		t->err = table_intern(u, t);
		if (!t->err)
			t->err = table_index(t);
	}
	pr_debug("CFI table %s: %zu rows from %zu FDEs (%zu skipped, %zu unsupported rules) in "
		 "%.1f ms", path, t->cfi.n, t->cfi.fdes, t->cfi.bad_fdes, t->cfi.unsupported,
		 t->build_ms);
	return t;
}

static struct table *origin(struct table *t)
{
	return t->same ? t->same : t;
}

/* Publish new rules to the BPF array (append-only). */
static int sync_infos(struct unwinder *u)
{
	if (u->infos.n > u->cap.infos)
		return -ENOSPC;
	if (u->infos.n > u->infos_loaded) {
		memcpy(&u->info_arr[u->infos_loaded], &u->infos.v[u->infos_loaded],
		       (u->infos.n - u->infos_loaded) * sizeof(*u->info_arr));
		u->infos_loaded = u->infos.n;
	}
	return 0;
}

/* Copy a table's rows and page index into the arrays, once. */
static int load_table(struct unwinder *u, struct table *t)
{
	t = origin(t);
	if (t->err || t->full)
		return t->err ? t->err : -ENOSPC;
	if (t->loaded)
		return 0;
	if (u->rows_used + t->cfi.n > u->cap.rows ||
	    (uint64_t)u->index_used + t->nindex > u->cap.index || sync_infos(u)) {
		t->full = true;
		if (!u->warned_full)
			pr_warn("unwind tables full (%u rows, %u rules, %u index entries): %s and "
				"later modules are unwound without CFI", u->cap.rows, u->cap.infos,
				u->cap.index, t->key);
		u->warned_full = true;
		return -ENOSPC;
	}
	for (size_t i = 0; i < t->cfi.n; i++) {
		u->rows[u->rows_used + i].pc = (uint32_t)(t->cfi.rows[i].pc - t->cfi.lo);
		u->rows[u->rows_used + i].info = t->info_ids[i];
	}
	memcpy(&u->index_arr[u->index_used], t->index, t->nindex * sizeof(*t->index));
	t->row_first = u->rows_used;
	t->index_first = u->index_used;
	u->rows_used += t->cfi.n;
	u->index_used += t->nindex;
	t->loaded = true;
	return 0;
}

/*
 * The ELF address at a mapping's start, from the PT_LOAD holding its file offset (of the table
 * that holds the rows: origin()).
 */
static int mapping_vaddr(const struct table *t, uint64_t offset, uint64_t *vaddr)
{
	for (int i = 0; i < t->nseg; i++) {
		uint64_t seg_off = t->seg[i].offset & ~0xfffull;

		if (offset >= seg_off && offset < t->seg[i].offset + t->seg[i].filesz) {
			*vaddr = t->seg[i].vaddr - (t->seg[i].offset - offset);
			return 0;
		}
	}
	return -ENOENT;
}

/* Our own vDSO is the target's (same kernel): compile it from memory. */
static struct table *vdso_table(struct unwinder *u)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct mb_maps self = {};
	size_t size = 0;

	if (u->vdso_tried)
		return u->vdso;
	u->vdso_tried = true;
	if (!base || maps__read(getpid(), &self))
		return NULL;
	for (size_t i = 0; i < self.n; i++)
		if (self.v[i].start == base && !strcmp(self.v[i].path, "[vdso]"))
			size = self.v[i].end - self.v[i].start;
	maps__free(&self);
	if (size)
		u->vdso = get_table(u, "[vdso]", "[vdso]", (const void *)base, size);
	return u->vdso;
}

static struct table *mapping_table(struct unwinder *u, pid_t pid, const struct mb_mapping *m)
{
	char key[64], path[PATH_MAX];
	struct table *t;
	int fd;

	if (!strcmp(m->path, "[vdso]"))
		return vdso_table(u);
	if (m->path[0] != '/' || !m->inode)
		return NULL;
	snprintf(key, sizeof(key), "%x:%x:%llu", m->dev_major, m->dev_minor,
		 (unsigned long long)m->inode);
	if (find_table(u, key))
		return find_table(u, key);
	/*
	 * map_files reaches the mapped file even when it was deleted or is in another mount ns.
	 * Its entry lasts only as long as the mapping: the dynamic loader trims its first mapping
	 * of a library while the table is built, so the file is held open and read through the
	 * descriptor, CFI and program headers alike.
	 */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	else
		snprintf(path, sizeof(path), "%s", m->path);
	t = get_table(u, key, path, NULL, 0);
	if (fd >= 0)
		close(fd);
	return t;
}

/* ---- processes ---------------------------------------------------------------------------------- */

static struct proc *find_proc(struct unwinder *u, pid_t pid, bool create)
{
	bool used[MUXBPF_UNW_MAX_PROCS] = {};

	for (int i = 0; i < u->nprocs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	if (!create || u->nprocs == MUXBPF_UNW_MAX_PROCS)
		return NULL;
	for (int i = 0; i < u->nprocs; i++)
		used[u->procs[i].slot_pair] = true;
	struct proc *p = &u->procs[u->nprocs++];

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->cur = -1;
	for (int i = 0; i < MUXBPF_UNW_MAX_PROCS; i++)
		if (!used[i]) {
			p->slot_pair = i;
			break;
		}
	return p;
}

static void forget_proc(struct unwinder *u, struct proc *p)
{
	__u32 key = p->pid;

	bpf_map_delete_elem(u->m.pids_fd, &key);
	*p = u->procs[--u->nprocs];
}

static int refresh_locked(struct unwinder *u, pid_t pid)
{
	struct muxbpf_unwind_proc rec = {};
	struct mb_maps maps = {};
	struct proc *p;
	uint32_t no_cfi = 0;
	__u32 key = pid, slot;
	__u64 val;
	int err;

	err = maps__read(pid, &maps);
	if (err) {
		p = find_proc(u, pid, false);
		if (p)
			forget_proc(u, p);
		return err;
	}
	for (size_t i = 0; i < maps.n && rec.n < MUXBPF_UNW_MAX_MAPS; i++) {
		const struct mb_mapping *m = &maps.v[i];
		struct muxbpf_unwind_map *rm = &rec.maps[rec.n];
		struct table *t;
		uint64_t vaddr;

		if (!strchr(m->perms, 'x'))
			continue;
		t = mapping_table(u, pid, m);
		if (!t || load_table(u, t) || mapping_vaddr(origin(t), m->offset, &vaddr)) {
			no_cfi++;
			continue;
		}
		rm->start = m->start;
		rm->end = m->end;
		rm->base = m->start - vaddr + origin(t)->cfi.lo;
		rm->row_first = origin(t)->row_first;
		rm->row_count = origin(t)->cfi.n;
		rm->idx_first = origin(t)->index_first;
		rm->idx_count = origin(t)->nindex;
		rec.n++;
	}
	maps__free(&maps);
	p = find_proc(u, pid, true);
	if (!p)
		return -ENOSPC;
	u->no_cfi = no_cfi;
	if (p->cur >= 0 && p->rec.n == rec.n && !memcmp(p->rec.maps, rec.maps, sizeof(rec.maps)))
		return 0;
	/* A new generation: rules the walker cached under the old record are not reused. */
	rec.gen = ++u->gen ? u->gen : ++u->gen;
	slot = 2 * p->slot_pair + (p->cur == 2 * p->slot_pair ? 1 : 0);
	/* The walker reads the generation with the slot: no look at the record to tag its cache. */
	val = (__u64)rec.gen << 32 | slot;
	if (bpf_map_update_elem(u->m.procs_fd, &slot, &rec, BPF_ANY) ||
	    bpf_map_update_elem(u->m.pids_fd, &key, &val, BPF_ANY)) {
		err = -errno;
		pr_warn("failed to load unwind record of pid %d: %s", pid, strerror(-err));
		return err;
	}
	p->cur = slot;
	p->rec = rec;
	pr_debug("unwind record of pid %d: %u mappings with CFI, %u without", pid, rec.n, no_cfi);
	return 0;
}

int unwinder__refresh(struct unwinder *u, pid_t pid)
{
	int err;

	if (!u->rows)
		return -EINVAL;
	pthread_mutex_lock(&u->lock);
	err = refresh_locked(u, pid);
	pthread_mutex_unlock(&u->lock);
	return err;
}

static int on_request(void *ctx, void *data, size_t size)
{
	struct unwinder *u = ctx;
	const struct muxbpf_unwind_req *req = data;

	if (size < sizeof(*req))
		return 0;
	for (int i = 0; i < u->npending; i++)
		if (u->pending[i] == (pid_t)req->pid)
			return 0;
	if (u->npending < (int)(sizeof(u->pending) / sizeof(u->pending[0])))
		u->pending[u->npending++] = req->pid;
	return 0;
}

static void *serve(void *arg)
{
	struct unwinder *u = arg;
	double last = mono_ms();

	while (!u->stop) {
		ring_buffer__poll(u->rb, __atomic_load_n(&u->poll_ms, __ATOMIC_RELAXED));
		pthread_mutex_lock(&u->lock);
		for (int i = 0; i < u->npending; i++)
			refresh_locked(u, u->pending[i]);
		u->npending = 0;
		/* Mappings replaced in place (munmap + mmap) send no request: recheck. */
		if (mono_ms() - last >= __atomic_load_n(&u->recheck_ms, __ATOMIC_RELAXED)) {
			for (int i = u->nprocs - 1; i >= 0; i--)
				refresh_locked(u, u->procs[i].pid);
			last = mono_ms();
		}
		pthread_mutex_unlock(&u->lock);
	}
	return NULL;
}

/* ---- preparing: the exe's DT_NEEDED closure ----------------------------------------------------- */

static void prepare_file(struct unwinder *u, const char *path, const char *exe_dir, int depth)
{
	char real[PATH_MAX], key[64], runpath[PATH_MAX], interp[PATH_MAX], dir[PATH_MAX];
	char lib[PATH_MAX];
	char **needed;
	struct stat st;
	int n;

	if (depth > 16 || !realpath(path, real) || stat(real, &st))
		return;
	snprintf(key, sizeof(key), "%x:%x:%llu", major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	if (find_table(u, key))
		return;
	get_table(u, key, real, NULL, 0);
	if (libdeps_read(real, &needed, &n, runpath, sizeof(runpath), interp, sizeof(interp)))
		return;
	snprintf(dir, sizeof(dir), "%s", real);
	*strrchr(dir, '/') = 0;
	if (interp[0])
		prepare_file(u, interp, exe_dir, depth + 1);
	for (int i = 0; i < n; i++) {
		if (libdeps_resolve(needed[i], exe_dir, dir, runpath, lib, sizeof(lib)))
			prepare_file(u, lib, exe_dir, depth + 1);
		free(needed[i]);
	}
	free(needed);
}

int unwinder__prepare(struct unwinder *u, const char *exe)
{
	char dir[PATH_MAX];

	if (!realpath(exe, dir))
		return -errno;
	*strrchr(dir, '/') = 0;
	prepare_file(u, exe, dir, 0);
	vdso_table(u);
	return 0;
}

void unwinder__capacity(const struct unwinder *u, struct unwinder_caps *cap)
{
	uint64_t r = 0, x = 0;

	if (u->mode == MUXBPF_UNWIND_FP) {
		cap->rows = cap->infos = cap->index = 1;
		return;
	}
	for (size_t i = 0; i < u->ntables; i++) {
		if (!u->tables[i]->err && !u->tables[i]->same) {
			r += u->tables[i]->cfi.n;
			x += u->tables[i]->nindex;
		}
	}
	r = 2 * r + DLOPEN_ROOM_ROWS;
	x = 2 * x + DLOPEN_ROOM_INDEX;
	cap->rows = r > (1u << 26) ? 1u << 26 : (uint32_t)r;
	cap->index = x > (1u << 26) ? 1u << 26 : (uint32_t)x;
	cap->infos = 2 * (uint32_t)u->infos.n + DLOPEN_ROOM_INFOS;
}

/* ---- life ------------------------------------------------------------------------------------- */

struct unwinder *unwinder__new(int mode)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->mode = mode;
	u->stats_fd = -1;
	u->poll_ms = POLL_MS;
	u->recheck_ms = RECHECK_MS;
	pthread_mutex_init(&u->lock, NULL);
	return u;
}

static void *map_array(int fd, size_t value_size, uint32_t n, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	*len = ((value_size * n) + page - 1) / page * page;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

int unwinder__start(struct unwinder *u, const struct unwinder_maps *m,
		    const struct unwinder_caps *cap)
{
	int err;

	if (u->mode == MUXBPF_UNWIND_FP)
		return 0;
	u->m = *m;
	u->cap = *cap;
	u->rows = map_array(m->rows_fd, sizeof(*u->rows), cap->rows, &u->rows_len);
	u->info_arr = map_array(m->infos_fd, sizeof(*u->info_arr), cap->infos, &u->infos_len);
	u->index_arr = map_array(m->index_fd, sizeof(*u->index_arr), cap->index, &u->index_len);
	if (!u->rows || !u->info_arr || !u->index_arr) {
		err = -errno;
		pr_err("failed to map the unwind arrays: %s", strerror(-err));
		return err;
	}
	u->rb = ring_buffer__new(m->reqs_fd, on_request, u, NULL);
	if (!u->rb) {
		err = -errno;
		pr_err("failed to open the unwind request ring buffer: %s", strerror(-err));
		return err;
	}
	err = pthread_create(&u->thread, NULL, serve, u);
	if (err) {
		pr_err("failed to start the unwind table thread: %s", strerror(err));
		return -err;
	}
	u->thread_started = true;
	return 0;
}

void unwinder__set_pace(struct unwinder *u, int poll_ms, int recheck_ms)
{
	__atomic_store_n(&u->poll_ms, poll_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&u->recheck_ms, recheck_ms, __ATOMIC_RELAXED);
}

void unwinder__disable_stats(struct unwinder *u)
{
	if (u->stats_fd >= 0)
		close(u->stats_fd);
	u->stats_fd = -1;
}

int unwinder__enable_stats(struct unwinder *u)
{
	if (u->stats_fd < 0)
		u->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	return u->stats_fd < 0 ? -errno : 0;
}

void unwinder__summary(struct unwinder *u, struct mb_unwind_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	out->valid = 1;
	out->mode = u->mode;
	for (size_t i = 0; i < u->ntables; i++) {
		struct table *t = u->tables[i];

		if (t->err || t->same)
			continue;
		out->tables++;
		out->loaded += t->loaded;
		out->full += t->full;
		out->build_ms += t->build_ms;
		if (t->build_ms > out->build_max_ms)
			out->build_max_ms = t->build_ms;
	}
	out->procs = u->nprocs;
	out->no_cfi = u->no_cfi;
	out->rows = u->rows_used;
	out->infos = u->infos_loaded;
	out->bytes = out->rows * sizeof(struct muxbpf_unwind_row) +
		     out->infos * sizeof(struct muxbpf_unwind_info) +
		     u->index_used * sizeof(*u->index_arr);
	out->rows_cap = u->cap.rows;
	out->infos_cap = u->cap.infos;
	pthread_mutex_unlock(&u->lock);
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->thread_started) {
		u->stop = true;
		pthread_join(u->thread, NULL);
	}
	ring_buffer__free(u->rb);
	if (u->stats_fd >= 0)
		close(u->stats_fd);
	if (u->rows)
		munmap(u->rows, u->rows_len);
	if (u->info_arr)
		munmap(u->info_arr, u->infos_len);
	if (u->index_arr)
		munmap(u->index_arr, u->index_len);
	for (size_t i = 0; i < u->ntables; i++) {
		cfi_table__free(&u->tables[i]->cfi);
		free(u->tables[i]->info_ids);
		free(u->tables[i]->index);
		free(u->tables[i]->key);
		free(u->tables[i]);
	}
	free(u->tables);
	free(u->infos.v);
	free(u->infos.hash);
	pthread_mutex_destroy(&u->lock);
	free(u);
}
