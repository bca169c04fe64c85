// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The softcode views' loader side: find mudstate.curr_cmd / curr_executor / curr_enactor,
 * do_ufun's call of mux_exec and process_command in netmux's DWARF, point bpf/softcode.bpf.c at
 * them in the running process, and read its maps.  Naming and rows are in softcode_name.c and
 * softcode_rows.c.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader/profiler.h"
#include "symbols/elfread.h"
#include "fold/fold.h"
#include "base/log.h"
#include "muxbpf.h"
#include "muxbpf.skel.h"
#include "loader/probe_cost.h"
#include "loader/softcode.h"
#include "loader/softcode_name.h"

struct softcode {
	struct muxbpf_bpf *skel;
	struct bpf_link *links[20];
	int nlinks;
	int clock_fd;
	bool exact;
	bool cmd_ret; /* commands end at a uretprobe on process_command (sc_target's cmd_ret) */
	double hit_ns; /* one uprobe hit's cost here; negative: not measured (-errno) */
	struct probe_ends ends; /* exact mode: the command probes' cost; negative: not measured */
};

/* --- finding the addresses ---------------------------------------------------------------- */

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

struct dwarf_scan {
	struct sc_target *t;
	int call_len; /* a direct call's length: 5 (x86-64 call rel32), 4 (AArch64 bl) */
	bool have_state, have_obj;
	uint32_t off_cmd, off_executor, off_enactor;
	bool got_cmd, got_executor, got_enactor;
};

static void scan_members(struct dwarf_scan *s, Dwarf_Die *st, bool state)
{
	Dwarf_Die m;

	if (dwarf_child(st, &m))
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Word off;
		const char *n;

		if (dwarf_tag(&m) != DW_TAG_member || !(n = die_name(&m)))
			continue;
		if (!dwarf_attr(&m, DW_AT_data_member_location, &a) || dwarf_formudata(&a, &off))
			continue;
		if (state && !strcmp(n, "curr_cmd")) {
			s->off_cmd = off;
			s->got_cmd = true;
		} else if (state && !strcmp(n, "curr_executor")) {
			s->off_executor = off;
			s->got_executor = true;
		} else if (state && !strcmp(n, "curr_enactor")) {
			s->off_enactor = off;
			s->got_enactor = true;
		} else if (!state && !strcmp(n, "name")) {
			s->t->obj_name_off = off;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
}

/*
 * The call sites of one function: return addresses and callee names.  For do_ufun's copies:
 * its call of mux_exec and the next call after it (the u() frame's entry and exit); in any
 * function: the call after each call of process_command (exact mode: the command's end).
 */
struct calls {
	uint64_t rets[512];
	bool is_exec[512], is_cmd[512];
	int n;
	bool cmd_tail; /* a tail call of process_command (nothing after it to probe) */
};

/* Every call site of one physical function, also inside its blocks and inlined code. */
static void collect_calls(Dwarf_Die *die, bool ufun, struct calls *cs, int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(die, &c))
		return;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Attribute a;
		Dwarf_Addr ret;
		Dwarf_Die origin;
		const char *on;

		if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
			collect_calls(&c, ufun, cs, depth + 1);
			continue;
		}
		if ((tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site) || cs->n >= 512)
			continue;
		if (!dwarf_attr(&c, DW_AT_call_return_pc, &a) &&
		    !dwarf_attr(&c, DW_AT_low_pc, &a))
			continue;
		if (dwarf_formaddr(&a, &ret))
			continue;
		on = NULL;
		if ((dwarf_attr(&c, DW_AT_call_origin, &a) ||
		     dwarf_attr(&c, DW_AT_abstract_origin, &a)) &&
		    dwarf_formref_die(&a, &origin))
			on = die_name(&origin);
		/* a tail call (jmp) returns to the caller's caller: nothing to probe after it */
		if (dwarf_hasattr(&c, DW_AT_call_tail_call) ||
		    dwarf_hasattr(&c, DW_AT_GNU_tail_call)) {
			cs->cmd_tail |= on && !strcmp(on, "process_command");
			continue;
		}
		cs->rets[cs->n] = ret;
		cs->is_exec[cs->n] = ufun && on && !strcmp(on, "mux_exec");
		cs->is_cmd[cs->n++] = on && !strcmp(on, "process_command");
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void scan_calls(struct dwarf_scan *s, Dwarf_Die *fn, bool ufun)
{
	static struct calls cs;
	uint64_t *rets = cs.rets;
	bool *is_exec = cs.is_exec, *is_cmd = cs.is_cmd;
	int n;

	cs.n = 0;
	cs.cmd_tail = false;
	collect_calls(fn, ufun, &cs, 0);
	n = cs.n;
	s->t->cmd_ret |= cs.cmd_tail;
	for (int i = 0; i < n; i++) {
		uint64_t next = 0;

		if (!is_exec[i] && !is_cmd[i])
			continue;
		for (int j = 0; j < n; j++)
			if (rets[j] > rets[i] && (!next || rets[j] < next))
				next = rets[j];
		if (!next) {
			s->t->cmd_ret |= is_cmd[i];
			continue;
		}
		/* both are direct calls (call_len bytes): the probes sit on the call instructions */
		if (is_exec[i] && s->t->nufun < 4) {
			s->t->ufun_enter[s->t->nufun] = rets[i] - s->call_len;
			s->t->ufun_exit[s->t->nufun++] = next - s->call_len;
		} else if (is_cmd[i] && s->t->ncmd_exit < 8) {
			s->t->cmd_exit[s->t->ncmd_exit++] = next - s->call_len;
		}
	}
}

static void scan_die(struct dwarf_scan *s, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	do {
		int tag = dwarf_tag(die);
		const char *n;

		if (tag == DW_TAG_structure_type && !dwarf_hasattr(die, DW_AT_declaration) &&
		    (n = die_name(die))) {
			if (!s->have_state && !strcmp(n, "statedata")) {
				s->have_state = true;
				scan_members(s, die, true);
			} else if (!s->have_obj && !strcmp(n, "object")) {
				Dwarf_Word size;
				Dwarf_Attribute a;

				if (dwarf_attr(die, DW_AT_byte_size, &a) && !dwarf_formudata(&a, &size)) {
					s->have_obj = true;
					s->t->obj_size = size;
					scan_members(s, die, false);
				}
			}
		} else if (tag == DW_TAG_subprogram && (dwarf_hasattr(die, DW_AT_low_pc) ||
							dwarf_hasattr(die, DW_AT_ranges))) {
			/* DW_AT_ranges: a function split in hot and cold parts */
			n = die_name(die);
			scan_calls(s, die, n && !strcmp(n, "do_ufun"));
		}
		if (depth < 2 && (tag == DW_TAG_namespace || tag == DW_TAG_compile_unit) &&
		    dwarf_child(die, &child) == 0)
			scan_die(s, &child, depth + 1);
	} while (dwarf_siblingof(die, die) == 0);
}

static void scan_symbols(Elf *elf, struct sc_target *t, uint64_t *mudstate)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 24);
		     i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, i, &sym) || !sym.st_value ||
			    !(n = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			if (!strcmp(n, "mudstate"))
				*mudstate = sym.st_value;
			else if (!strcmp(n, "db") && GELF_ST_TYPE(sym.st_info) == STT_OBJECT)
				t->db = sym.st_value;
			else if (!strncmp(n, "_Z15process_command", 19) &&
				 GELF_ST_TYPE(sym.st_info) == STT_FUNC)
				t->process_command = sym.st_value;
		}
	}
}

/* The length of a direct call in exe's instruction set; 0: neither x86-64 nor AArch64. */
static int call_len(Elf *elf)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return 0;
	return eh.e_machine == EM_X86_64 ? 5 : eh.e_machine == EM_AARCH64 ? 4 : 0;
}

/*
 * Is the instruction at ELF address vaddr of exe a direct call: x86-64's call rel32 (0xe8),
 * AArch64's bl (a little-endian word 0b100101 << 26 | imm26)?
 */
static bool is_call(Elf *elf, int fd, uint64_t vaddr)
{
	size_t n;
	unsigned char b[4] = { 0 };
	int len = call_len(elf);

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr >= ph.p_vaddr + ph.p_filesz)
			continue;
		if (pread(fd, b, sizeof(b), vaddr - ph.p_vaddr + ph.p_offset) != sizeof(b))
			return false;
		return len == 5 ? b[0] == 0xe8 : len == 4 && (b[3] & 0xfc) == 0x94;
	}
	return false;
}

/*
 * What runs at each load of the object: an executable's entry (each exec), a shared object's
 * DT_INIT (each dlopen; 0 when it has none).
 */
static uint64_t start_vaddr(Elf *elf, bool is_exe)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (is_exe)
		return gelf_getehdr(elf, &eh) ? eh.e_entry : 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && gelf_getdyn(data, (int)i, &dyn); i++)
			if (dyn.d_tag == DT_INIT)
				return dyn.d_un.d_ptr;
	}
	return 0;
}

/* softcode__find() in one object: netmux (is_exe) or a shared object it loaded. */
static void find_in(const char *exe, bool is_exe, const char *const *dirs, int ndirs,
		    struct sc_target *t)
{
	struct dwarf_scan s = { .t = t };
	Elf *elf = NULL, *delf = NULL;
	int fd = -1, dfd = -1, ok = 0;
	uint64_t mudstate = 0;
	Dwarf *dw = NULL;
	Dwarf_Off off = 0, next;
	GElf_Shdr dsh;
	size_t hsize;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || elf_kind(elf) != ELF_K_ELF) {
		snprintf(t->why, sizeof(t->why), "cannot read %s", exe);
		goto out;
	}
	if (mb_elf_section(elf, ".debug_info", &dsh) && dsh.sh_type != SHT_NOBITS) {
		snprintf(t->dwarf_file, sizeof(t->dwarf_file), "%s", exe);
		dfd = fd;
		delf = elf;
	} else if (mb_elf_debug_by_build_id(elf, dirs, ndirs, t->dwarf_file,
					    sizeof(t->dwarf_file))) {
		dfd = open(t->dwarf_file, O_RDONLY | O_CLOEXEC);
		delf = dfd >= 0 ? elf_begin(dfd, ELF_C_READ_MMAP, NULL) : NULL;
	}
	if (!delf) {
		snprintf(t->why, sizeof(t->why),
			 "%s has no DWARF and no debuginfo was found by build-id (--debug-dir, "
			 "/usr/lib/debug)", exe);
		goto out;
	}
	s.call_len = call_len(elf);
	if (!s.call_len) {
		snprintf(t->why, sizeof(t->why), "%s: neither x86-64 nor AArch64", exe);
		goto out;
	}
	snprintf(t->object, sizeof(t->object), "%s", exe);
	t->start = start_vaddr(elf, is_exe);
	scan_symbols(delf, t, &mudstate);
	if (delf != elf && !mudstate)
		scan_symbols(elf, t, &mudstate);
	/* not this object's (another may hold it): its DWARF need not be read */
	if (!mudstate) {
		snprintf(t->why, sizeof(t->why), "%s: no mudstate.curr_cmd in its DWARF (%.200s)",
			 exe, t->dwarf_file);
		goto out;
	}
	dw = dwarf_begin_elf(delf, DWARF_C_READ, NULL);
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &cu) == 0)
			scan_die(&s, &cu, 1);
		off = next;
	}
	/* keep only probe sites that really are call instructions */
	for (int i = 0; i < t->nufun; i++) {
		if (is_call(elf, fd, t->ufun_enter[i]) && is_call(elf, fd, t->ufun_exit[i])) {
			t->ufun_enter[ok] = t->ufun_enter[i];
			t->ufun_exit[ok++] = t->ufun_exit[i];
		}
	}
	t->nufun = ok;
	ok = 0;
	for (int i = 0; i < t->ncmd_exit; i++)
		if (is_call(elf, fd, t->cmd_exit[i]))
			t->cmd_exit[ok++] = t->cmd_exit[i];
	t->ncmd_exit = ok;
	if (!mudstate || !s.got_cmd || !s.got_executor || !s.got_enactor) {
		snprintf(t->why, sizeof(t->why), "%s: no mudstate.curr_cmd in its DWARF (%.200s)", exe,
			 t->dwarf_file);
		goto out;
	}
	t->curr_cmd = mudstate + s.off_cmd;
	t->curr_executor = mudstate + s.off_executor;
	t->curr_enactor = mudstate + s.off_enactor;
	if (!t->obj_name_off)
		t->db = 0;
	t->ok = true;
out:
	if (dw)
		dwarf_end(dw);
	if (delf && delf != elf)
		elf_end(delf);
	if (dfd >= 0 && dfd != fd)
		close(dfd);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

void softcode__find(const char *exe, const char *const *dirs, int ndirs, struct sc_target *t)
{
	find_in(exe, true, dirs, ndirs, t);
}

/*
 * The files pid has mapped from offset 0, each once, netmux's own (exe, its realpath) left out:
 * the shared objects and modules mudstate may live in.  Returns how many went into paths.
 */
static int mapped_objects(pid_t pid, const char *exe, char (*paths)[4096], int max)
{
	char path[64], line[4608], real[4096];
	int n = 0;
	FILE *f;

	if (!realpath(exe, real))
		snprintf(real, sizeof(real), "%s", exe);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long offset;
		char file[4096] = "";
		bool seen = false;

		if (sscanf(line, "%*x-%*x %*s %llx %*s %*s %4095[^\n]", &offset, file) < 2 ||
		    offset || file[0] != '/' || !strcmp(file, real) || !strcmp(file, exe))
			continue;
		for (int i = 0; i < n && !seen; i++)
			seen = !strcmp(paths[i], file);
		if (!seen)
			snprintf(paths[n++], sizeof(paths[0]), "%s", file);
	}
	fclose(f);
	return n;
}

void softcode__locate(pid_t pid, const char *exe, const char *const *dirs, int ndirs,
		      struct sc_target *t)
{
	static char paths[64][4096];
	char why[sizeof(t->why)];
	uint64_t exe_start;
	int n;

	find_in(exe, true, dirs, ndirs, t);
	if (t->ok || pid <= 0)
		return;
	exe_start = t->start;
	snprintf(why, sizeof(why), "%s", t->why);
	n = mapped_objects(pid, exe, paths, 64);
	for (int i = 0; i < n; i++) {
		find_in(paths[i], false, dirs, ndirs, t);
		if (t->ok) {
			t->exe_start = exe_start;
			pr_verbose("softcode views: mudstate is in %s, loaded by netmux", paths[i]);
			return;
		}
	}
	memset(t, 0, sizeof(*t));
	snprintf(t->why, sizeof(t->why), "%.400s; nor in the %d objects it has loaded", why, n);
}

/* --- attaching -------------------------------------------------------------------------------- */

/* The load bias of exe in pid: where ELF address 0 sits, from the mapping of file offset 0. */
static int load_bias(pid_t pid, const char *exe, uint64_t *bias)
{
	char path[64], line[4608], real[4096];
	uint64_t lo_vaddr = UINT64_MAX;
	int fd, found = -ENOENT;
	Elf *elf;
	size_t n;
	FILE *f;

	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && ph.p_offset == 0)
				lo_vaddr = ph.p_vaddr & ~0xfffull;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (lo_vaddr == UINT64_MAX)
		return -ENOEXEC;
	if (!realpath(exe, real))
		snprintf(real, sizeof(real), "%s", exe);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, offset;
		char file[4096] = "";

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095[^\n]", &start, &end, &offset,
			   file) < 3 || offset)
			continue;
		if (strcmp(file, real) && strcmp(file, exe))
			continue;
		*bias = start - lo_vaddr;
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

/* File offset of ELF address vaddr (uprobes are placed by file offset). */
static int64_t file_offset(const char *exe, uint64_t vaddr)
{
	int64_t off = -ENOENT;
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	size_t n;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
				off = vaddr - ph.p_vaddr + ph.p_offset;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return off;
}

/*
 * A uprobe (or, with ret, a uretprobe) on exe at ELF address vaddr, cookie its
 * bpf_get_attach_cookie().
 */
static int attach_probe(struct softcode *sc, struct bpf_program *prog, pid_t pid,
			const char *exe, uint64_t vaddr, uint64_t cookie, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie, .retprobe = ret);
	int64_t off = file_offset(exe, vaddr);
	struct bpf_link *l;

	if (off < 0 || sc->nlinks >= (int)(sizeof(sc->links) / sizeof(sc->links[0])))
		return off < 0 ? (int)off : -E2BIG;
	l = bpf_program__attach_uprobe_opts(prog, pid, exe, off, &uo);
	if (!l) {
		int err = -errno;

		pr_err("failed to attach %s %s at %s+0x%llx: %s", ret ? "uretprobe" : "uprobe",
		       bpf_program__name(prog), exe, (unsigned long long)off, strerror(-err));
		return err;
	}
	sc->links[sc->nlinks++] = l;
	return 0;
}

static int add_probe_cookie(struct softcode *sc, struct bpf_program *prog, pid_t pid,
			    const char *exe, uint64_t vaddr, uint64_t cookie)
{
	return attach_probe(sc, prog, pid, exe, vaddr, cookie, false);
}

static int add_probe(struct softcode *sc, struct bpf_program *prog, pid_t pid, const char *exe,
		     uint64_t vaddr)
{
	return attach_probe(sc, prog, pid, exe, vaddr, 0, false);
}

/* A uretprobe on the function at ELF address vaddr of exe. */
static int add_retprobe(struct softcode *sc, struct bpf_program *prog, pid_t pid,
			const char *exe, uint64_t vaddr)
{
	return attach_probe(sc, prog, pid, exe, vaddr, 0, true);
}

/*
 * mb_sc_load at each start of t->object (its bias from the ip there) and, when that is a
 * module, at netmux's own start (exec'd again: the module's addresses are gone until it loads).
 * Uprobes sit on the file, so they fire at loads to come at any base.  Neither is needed for
 * the views: a failure is a warning, the views then follow no reload.
 */
static void add_load_probes(struct softcode *sc, pid_t pid, const char *exe,
			    const struct sc_target *t)
{
	struct bpf_program *prog = sc->skel->progs.mb_sc_load;
	int err = 0;

	if (t->start)
		err = add_probe_cookie(sc, prog, pid, t->object, t->start, t->start);
	if (!err && t->exe_start)
		err = add_probe_cookie(sc, prog, pid, exe, t->exe_start, MUXBPF_SC_UNLOADED);
	if (err || !t->start)
		pr_warn("softcode views: %s's loads are not followed (%s): a reload leaves the "
			"views reading its old addresses", t->object,
			err ? strerror(-err) : "no DT_INIT");
}

/* netmux's main thread's task clock: exact on-CPU time, readable from BPF (no inherit). */
static int open_clock(pid_t tid)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.size = sizeof(attr),
	};
	int fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Empty a hash map (ours, small): delete its first key until none is left. */
static void clear_map(const struct bpf_map *map)
{
	char key[256];
	int fd = bpf_map__fd(map);

	if (bpf_map__key_size(map) > sizeof(key))
		return;
	while (!bpf_map_get_next_key(fd, NULL, key) && !bpf_map_delete_elem(fd, key))
		;
}

/* probe_cost_ends()'s rounds: the segments the command probes recorded on this thread. */
static void ends_reset(void *ctx)
{
	struct muxbpf_bpf *skel = ctx;

	clear_map(skel->maps.sc_times);
	clear_map(skel->maps.sc_cmds);
	memset(&skel->bss->sc_seg, 0, sizeof(skel->bss->sc_seg));
	skel->data->sc_next_cmd = 1;
}

static int ends_read(void *ctx, double *inside_ns, double *own_ns)
{
	struct muxbpf_bpf *skel = ctx;
	int fd = bpf_map__fd(skel->maps.sc_times);
	struct muxbpf_sc_time_key k, *prev = NULL;
	struct muxbpf_sc_time_val v;
	uint64_t ns = 0, own = 0, segs = 0, starts = 0;

	while (!bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (k.cmd && !bpf_map_lookup_elem(fd, &k, &v)) {
			ns += v.cpu_ns;
			segs += v.segs;
			own += v.own_ns;
			starts += v.count;
		}
	}
	if (skel->bss->sc_stats.clock_err)
		return -EIO;
	if (!segs || !starts)
		return -ENODATA;
	*inside_ns = (double)ns / segs;
	*own_ns = (double)own / starts;
	return 0;
}

/*
 * The exact mode's pair of probes, measured with its own programs on a stand-in in this
 * executable (probe_cost_ends()): for the time being this thread is the command thread, with
 * its own task clock.  Then everything the programs wrote is cleared, and netmux's clock goes
 * back into the map.
 */
static int measure_ends(struct softcode *sc, struct probe_ends *out)
{
	struct muxbpf_bpf *skel = sc->skel;
	struct probe_ends_ops ops = { ends_reset, ends_read, skel };
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int key = 0, fd = open_clock(tid), err;

	if (fd < 0)
		return fd;
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.sc_clock), &key, &fd, BPF_ANY) ? -errno : 0;
	if (!err) {
		skel->bss->sc_config.tid = (__u32)tid;
		__atomic_store_n(&skel->bss->sc_config.pid, (__u32)getpid(), __ATOMIC_RELEASE);
		err = probe_cost_ends(skel->progs.mb_sc_cmd_start, skel->progs.mb_sc_cmd_end,
				      sc->cmd_ret, &ops,
				      out);
		__atomic_store_n(&skel->bss->sc_config.pid, 0, __ATOMIC_RELEASE);
		skel->bss->sc_config.tid = 0;
	}
	ends_reset(skel);
	memset(&skel->bss->sc_stats, 0, sizeof(skel->bss->sc_stats));
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.sc_clock), &key, &sc->clock_fd, BPF_ANY) &&
	    !err)
		err = -errno;
	close(fd);
	return err;
}

struct softcode *softcode__attach(struct profiler *p, pid_t pid, const char *exe,
				  const struct sc_target *t, bool exact)
{
	struct softcode *sc = calloc(1, sizeof(*sc));
	uint64_t bias = 0;
	int err;

	if (!sc)
		return NULL;
	sc->skel = profiler__skel(p);
	sc->clock_fd = -1;
	err = load_bias(pid, t->object, &bias);
	if (err) {
		pr_err("softcode views: cannot find %s in the memory map of pid %d: %s", t->object,
		       pid, strerror(-err));
		goto out_free;
	}
	for (int i = 0; i < t->nufun && !err; i++) {
		err = add_probe(sc, sc->skel->progs.mb_sc_ufun_enter, pid, t->object,
				t->ufun_enter[i]);
		if (!err)
			err = add_probe(sc, sc->skel->progs.mb_sc_ufun_exit, pid, t->object,
					t->ufun_exit[i]);
	}
	if (!err && exact) {
		int key = 0;

		sc->clock_fd = open_clock(pid);
		err = sc->clock_fd < 0 ? sc->clock_fd : 0;
		if (err)
			pr_err("softcode views: failed to open netmux's task clock: %s",
			       strerror(-err));
		if (!err && bpf_map_update_elem(bpf_map__fd(sc->skel->maps.sc_clock), &key,
						&sc->clock_fd, BPF_ANY)) {
			err = -errno;
			pr_err("softcode views: failed to store the task clock: %s", strerror(-err));
		}
		if (!err && !t->process_command) {
			pr_err("softcode views: no process_command in %s", t->object);
			err = -ENOENT;
		}
		if (!err)
			err = add_probe(sc, sc->skel->progs.mb_sc_cmd_start, pid, t->object,
					t->process_command);
		if (!err && t->cmd_ret)
			err = add_retprobe(sc, sc->skel->progs.mb_sc_cmd_end, pid, t->object,
					   t->process_command);
		for (int i = 0; !err && !t->cmd_ret && i < t->ncmd_exit; i++)
			err = add_probe(sc, sc->skel->progs.mb_sc_cmd_end, pid, t->object,
					t->cmd_exit[i]);
		sc->cmd_ret = t->cmd_ret;
		sc->exact = !err;
	}
	if (err)
		goto out_free;
	/* before the config: the program returns at once, as it does on muxbpf's thread */
	sc->hit_ns = probe_cost_measure(sc->skel->progs.mb_sc_ufun_exit);
	if (sc->hit_ns < 0)
		pr_warn("softcode views: a uprobe hit's cost could not be measured (%s): the exact "
			"times keep our probes' cost", strerror((int)-sc->hit_ns));
	sc->ends = (struct probe_ends){ -1, -1, -1 };
	if (sc->exact) {
		err = measure_ends(sc, &sc->ends);
		if (err) {
			pr_warn("softcode views: the command probes' cost could not be measured (%s): "
				"the exact times keep it", strerror(-err));
			sc->ends = (struct probe_ends){ -1, -1, -1 };
			err = 0;
		}
	}
	add_load_probes(sc, pid, exe, t);
	/* the config last: the sampler starts reading netmux's memory from here */
	sc->skel->bss->sc_config.curr_cmd = t->curr_cmd;
	sc->skel->bss->sc_config.curr_executor = t->curr_executor;
	sc->skel->bss->sc_config.curr_enactor = t->curr_enactor;
	sc->skel->bss->sc_config.bias = bias;
	sc->skel->bss->sc_config.loaded = 1;
	sc->skel->bss->sc_config.tid = pid;
	sc->skel->bss->sc_config.exact = sc->exact;
	__atomic_store_n(&sc->skel->bss->sc_config.pid, pid, __ATOMIC_RELEASE);
	return sc;
out_free:
	softcode__free(sc);
	errno = -err;
	return NULL;
}

void softcode__free(struct softcode *sc)
{
	if (!sc)
		return;
	if (sc->skel)
		sc->skel->bss->sc_config.pid = 0;
	for (int i = 0; i < sc->nlinks; i++)
		bpf_link__destroy(sc->links[i]);
	if (sc->clock_fd >= 0)
		close(sc->clock_fd);
	free(sc);
}

/* --- collecting ------------------------------------------------------------------------------ */

#define GROW(arr, n, cap)                                                                          \
	({                                                                                         \
		int __e = 0;                                                                       \
		if ((n) == (cap)) {                                                                \
			size_t __c = (cap) ? (cap) * 2 : 64;                                       \
			void *__v = realloc((arr), __c * sizeof(*(arr)));                          \
			if (__v) {                                                                 \
				(arr) = __v;                                                       \
				(cap) = __c;                                                       \
			} else {                                                                   \
				__e = -ENOMEM;                                                     \
			}                                                                          \
		}                                                                                  \
		__e;                                                                               \
	})

/*
 * One walk for every softcode map: each entry's key and value, read into buffers of the map's
 * own sizes, go to add(), which appends them to d.  An entry that vanishes between the key and
 * its lookup is passed over (these maps only grow while they are read).
 */
struct sc_walk {
	struct sc_data *d;
	long phase; /* counts and times: only this phase's entries (every phase when < 0) */
	size_t cap; /* of the array add() appends to */
};
typedef int (*sc_add_fn)(struct sc_walk *w, const void *key, const void *val);

static int walk_map(const struct bpf_map *map, struct sc_walk *w, sc_add_fn add)
{
	int fd = bpf_map__fd(map), err = 0;
	size_t ks = bpf_map__key_size(map), vs = bpf_map__value_size(map);
	char *k = calloc(2, ks), *v = calloc(1, vs);
	void *prev = NULL;

	if (!k || !v)
		err = -ENOMEM;
	w->cap = 0;
	while (!err && bpf_map_get_next_key(fd, prev, k + ks) == 0) {
		memcpy(k, k + ks, ks);
		prev = k;
		if (!bpf_map_lookup_elem(fd, k, v))
			err = add(w, k, v);
	}
	free(k);
	free(v);
	return err;
}

static int add_cmd(struct sc_walk *w, const void *key, const void *val)
{
	const struct muxbpf_sc_cmd_key *k = key;
	struct sc_data *d = w->d;
	int err = GROW(d->cmds, d->ncmds, w->cap);

	if (err)
		return err;
	d->cmds[d->ncmds] = (struct sc_cmd){ .id = *(const __u32 *)val, .executor = k->executor,
					     .enactor = k->enactor };
	memcpy(d->cmds[d->ncmds++].text, k->text, MUXBPF_SC_TEXT);
	return 0;
}

static int add_frame(struct sc_walk *w, const void *key, const void *val)
{
	const struct muxbpf_sc_frame_key *k = key;
	struct sc_data *d = w->d;
	int err = GROW(d->frames, d->nframes, w->cap);

	if (err)
		return err;
	d->frames[d->nframes] = (struct sc_frame){ .id = *(const __u32 *)val, .thing = k->thing,
						   .executor = k->executor };
	memcpy(d->frames[d->nframes++].text, k->text, MUXBPF_SC_FTEXT);
	return 0;
}

static int add_path(struct sc_walk *w, const void *key, const void *val)
{
	const struct muxbpf_sc_path_key *k = key;
	struct sc_data *d = w->d;
	int err = GROW(d->paths, d->npaths, w->cap);

	if (err)
		return err;
	d->paths[d->npaths].id = *(const __u32 *)val;
	memcpy(d->paths[d->npaths++].frames, k->frames, sizeof(k->frames));
	return 0;
}

/* The sample counts of w->phase (every phase when < 0) into d->counts. */
static int add_count(struct sc_walk *w, const void *key, const void *val)
{
	const struct muxbpf_sc_sample_key *k = key;
	struct sc_data *d = w->d;
	int err;

	if (w->phase >= 0 && k->phase != w->phase)
		return 0;
	if ((err = GROW(d->counts, d->ncounts, w->cap)))
		return err;
	d->counts[d->ncounts].key = *k;
	d->counts[d->ncounts++].count = *(const __u64 *)val;
	return 0;
}

/* Exact mode's times of w->phase (every phase when < 0) into d->times. */
static int add_time(struct sc_walk *w, const void *key, const void *val)
{
	const struct muxbpf_sc_time_key *k = key;
	struct sc_data *d = w->d;
	int err;

	if (w->phase >= 0 && k->phase != w->phase)
		return 0;
	if ((err = GROW(d->times, d->ntimes, w->cap)))
		return err;
	d->times[d->ntimes].key = *k;
	d->times[d->ntimes++].val = *(const struct muxbpf_sc_time_val *)val;
	return 0;
}

int softcode__snapshot(struct softcode *sc, unsigned int phase, struct sc_data *snap)
{
	int err;

	memset(snap, 0, sizeof(*snap));
	if (!sc)
		return -ENOENT;
	{
		struct sc_walk w = { .d = snap, .phase = phase };

		err = walk_map(sc->skel->maps.sc_samples, &w, add_count);
		if (!err && sc->exact)
			err = walk_map(sc->skel->maps.sc_times, &w, add_time);
	}
	if (err) {
		sc_data__free(snap);
		return err;
	}
	snap->valid = true;
	snap->exact = sc->exact;
	snap->hit_ns = sc->hit_ns;
	snap->ends = sc->ends;
	return 0;
}

int softcode__collect(struct softcode *sc, struct sc_data *d)
{
	struct muxbpf_bpf *skel = sc->skel;
	struct sc_walk w = { .d = d, .phase = -1 };
	int err;

	memset(d, 0, sizeof(*d));
	d->valid = true;
	d->exact = sc->exact;
	d->hit_ns = sc->hit_ns;
	d->ends = sc->ends;
	/* mb_sc_load's, which follows reloads; 0 (no memory reads) while the object is not loaded */
	d->bias = skel->bss->sc_config.loaded ? skel->bss->sc_config.bias : 0;
	d->stats = skel->bss->sc_stats;
	err = walk_map(skel->maps.sc_cmds, &w, add_cmd);
	if (!err)
		err = walk_map(skel->maps.sc_frames, &w, add_frame);
	if (!err)
		err = walk_map(skel->maps.sc_paths, &w, add_path);
	if (!err)
		err = walk_map(skel->maps.sc_samples, &w, add_count);
	if (!err)
		err = walk_map(skel->maps.sc_times, &w, add_time);
	if (err) {
		pr_err("failed to read the softcode maps: %s", strerror(-err));
		sc_data__free(d);
	}
	return err;
}

void sc_data__free(struct sc_data *d)
{
	for (size_t i = 0; i < d->ncmds; i++) {
		free(d->cmds[i].label);
		free(d->cmds[i].frame);
		free(d->cmds[i].obj);
	}
	for (size_t i = 0; i < d->nframes; i++) {
		free(d->frames[i].label);
		free(d->frames[i].obj);
	}
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i].name);
	for (size_t i = 0; i < d->nattrs; i++) {
		free(d->attrs[i].attr);
		free(d->attrs[i].pattern);
		free(d->attrs[i].action);
	}
	free(d->cmds);
	free(d->frames);
	free(d->paths);
	free(d->counts);
	free(d->times);
	free(d->names);
	free(d->attrs);
	memset(d, 0, sizeof(*d));
}

/* --- the session's hooks ----------------------------------------------------------------------- */

struct softcode *softcode__start(const struct softcode_opts *o, struct profiler *p, pid_t pid,
				 const char *exe, struct sc_target *t, struct sc_data *d)
{
	struct softcode *sc;

	memset(d, 0, sizeof(*d));
	if (!o->on || !p)
		return NULL;
	softcode__locate(pid, exe, o->debug_dirs, o->ndebug_dirs, t);
	if (!t->ok) {
		snprintf(d->why, sizeof(d->why), "%s", t->why);
		return NULL;
	}
	sc = softcode__attach(p, pid, exe, t, o->exact);
	if (!sc)
		snprintf(d->why, sizeof(d->why), "the softcode probes could not be attached: %s",
			 strerror(errno));
	return sc;
}

/*
 * The probes' costs measured again now that the maps are read (the pair's rounds clear them),
 * and the lower of start's and this one kept (probe_cost_lower()).
 */
static void measure_again(struct softcode *sc, struct sc_data *d)
{
	double hit = probe_cost_measure(sc->skel->progs.mb_sc_ufun_exit);
	struct probe_ends e = { -1, -1, -1 };

	d->hit_ns = probe_cost_lower(d->hit_ns, hit);
	if (sc->exact && !measure_ends(sc, &e))
		probe_ends_lower(&d->ends, &e, &d->ends);
}

void softcode__finish(struct softcode *sc, const struct sc_target *t, pid_t pid, int port,
		      const char *login, struct sc_data *d)
{
	char why[sizeof(d->why)];

	if (!sc)
		return;
	snprintf(why, sizeof(why), "%s", d->why);
	if (softcode__collect(sc, d)) {
		snprintf(d->why, sizeof(d->why), "the softcode maps could not be read");
	} else {
		/* samples stop counting under commands before the maps are named */
		sc->skel->bss->sc_config.pid = 0;
		measure_again(sc, d);
		snprintf(d->object, sizeof(d->object), "%s", t->object);
		softcode__name(d, t, pid, port, login);
	}
	softcode__free(sc);
}
