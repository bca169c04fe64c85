// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbolizer on a real run (root and BPF): muxbpf's session on the default target, every
 * phase, then
 *   - the time to symbolize and fold the whole profile (printed; bench/posttime.sh measures it);
 *   - every distinct sampled address in netmux, libmux.so and libc (the latter through its
 *     debug file when one is installed) against addr2line -f -i -C: function, file, line and
 *     the whole inline chain must agree for at least 99% of them (differences are printed);
 *   - at least 99% of the samples whose leaf is in netmux have a file:line in every phase with
 *     50 or more of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include "fold/fold.h"
#include "session/opts.h"
#include "base/phases.h"
#include "symbols/resolve.h"
#include "session/reading.h"
#include "session/run.h"
#include "testutil.h"

#define CHAIN_MAX 32

struct addr {
	const char *file;     /* the ELF addr2line reads (the DSO, or its debug file) */
	uint64_t vaddr;
	struct mb_sym fr[CHAIN_MAX];
	int n;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The ELF virtual address of a file offset, from the program headers (UINT64_MAX: none). */
static uint64_t file_vaddr(const char *path, uint64_t off)
{
	int fd = open(path, O_RDONLY);
	uint64_t vaddr = UINT64_MAX;
	size_t n = 0;
	Elf *elf;

	if (fd < 0)
		return vaddr;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    off >= ph.p_offset && off - ph.p_offset < ph.p_filesz)
				vaddr = off - ph.p_offset + ph.p_vaddr;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return vaddr;
}

static bool wanted_dso(const char *dso)
{
	const char *base = dso ? strrchr(dso, '/') : NULL;

	return base && (!strcmp(base, "/netmux") || !strcmp(base, "/libmux.so") ||
			!strcmp(base, "/libc.so.6"));
}

/* Distinct physical addresses (as resolve looks them up) of the samples, with their chains. */
static size_t collect_addrs(const struct mb_resolved *res, struct addr **out)
{
	struct addr *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < res->n; i++) {
		const struct mb_rstack *st = &res->stacks[i];

		for (uint32_t f = 0; f < st->n;) {
			const struct mb_sym *fr = &st->frames[f];
			uint32_t k = f;
			bool seen = false;
			const char *elf;

			while (k < st->n && st->frames[k].ip_index == fr->ip_index)
				k++;
			if (!wanted_dso(fr->dso) || !fr->info) {
				f = k;
				continue;
			}
			elf = fr->info->debug_file ? fr->info->debug_file : fr->dso;
			for (size_t j = 0; j < n && !seen; j++)
				seen = v[j].file == elf && v[j].fr[0].offset == fr->offset;
			if (!seen && k - f <= CHAIN_MAX) {
				if (n == cap) {
					cap = cap ? cap * 2 : 1024;
					v = realloc(v, cap * sizeof(*v));
					assert_non_null(v);
				}
				v[n].file = elf;
				v[n].vaddr = file_vaddr(fr->dso, fr->offset);
				v[n].n = (int)(k - f);
				memcpy(v[n].fr, fr, (k - f) * sizeof(*fr));
				n++;
			}
			f = k;
		}
	}
	*out = v;
	return n;
}

enum verdict { SAME, QUIRK_INNERMOST, CALLER_DW_NAME, ALIAS, PLT, DIFFERENT, VERDICT__COUNT };

static const char *const verdict_str[VERDICT__COUNT] = {
	"identical", "binutils names an inlined function without linkage name after its caller",
	"binutils names a static caller by DW_AT_name, we by its symbol (with parameters)",
	"another alias of the same symbol", "PLT stub (addr2line: ?" "?)", "unexplained",
};

/* Symbols of one file (nm -C), to tell aliases apart from wrong names. */
struct nm {
	const char *file;
	char **names;
	uint64_t *addrs;
	size_t n;
};

static void nm_load(struct nm *nm, const char *file)
{
	char cmd[PATH_MAX + 64], line[4096];
	size_t cap = 0;
	FILE *f;

	for (size_t i = 0; i < nm->n; i++)
		free(nm->names[i]);
	free(nm->names);
	free(nm->addrs);
	memset(nm, 0, sizeof(*nm));
	nm->file = file;
	snprintf(cmd, sizeof(cmd), "nm -C --defined-only '%s' 2>/dev/null", file);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		int off = 0;

		if (sscanf(line, "%llx %*c %n", &a, &off) < 1 || !off)
			continue;
		line[strcspn(line, "@\n")] = 0; /* "cfree@GLIBC_2.2.5": the name */
		if (nm->n == cap) {
			cap = cap ? cap * 2 : 4096;
			nm->names = realloc(nm->names, cap * sizeof(*nm->names));
			nm->addrs = realloc(nm->addrs, cap * sizeof(*nm->addrs));
			assert_true(nm->names && nm->addrs);
		}
		nm->names[nm->n] = strdup(line + off);
		nm->addrs[nm->n++] = a;
	}
	pclose(f);
}

/* a and b name symbols at the same address (a may carry DWARF's parameter list). */
static bool nm_alias(const struct nm *nm, const char *a, const char *b)
{
	for (size_t i = 0; i < nm->n; i++) {
		if (strcmp(nm->names[i], a))
			continue;
		for (size_t j = 0; j < nm->n; j++)
			if (nm->addrs[j] == nm->addrs[i] && !strcmp(nm->names[j], b))
				return true;
	}
	return false;
}

/* Compare a's chain with addr2line's block; print the unexplained differences. */
static enum verdict compare(const struct addr *a, char fn[][512], char loc[][1024], int k,
			    const struct nm *nm, int *printed)
{
	enum verdict v = k == a->n ? SAME : DIFFERENT;

	for (int i = 0; v != DIFFERENT && i < k; i++) {
		const char *mine_fn = a->fr[i].name ? a->fr[i].name : "??";
		char mine[1100];

		if (a->fr[i].file && a->fr[i].line)
			snprintf(mine, sizeof(mine), "%s:%u", a->fr[i].file, a->fr[i].line);
		else if (a->fr[i].file)
			snprintf(mine, sizeof(mine), "%s:?", a->fr[i].file);
		else
			snprintf(mine, sizeof(mine), "??:?");
		/* a PLT stub: addr2line knows nothing; we name it and give it its caller's line */
		if (!strcmp(fn[i], "??") && strstr(mine_fn, "@plt"))
			v = PLT;
		else if (strcmp(loc[i], mine) && !(!a->fr[i].line && !strcmp(loc[i], "?" "?:0")))
			v = DIFFERENT;
		else if (!strcmp(fn[i], mine_fn))
			continue;
		else if (i == 0 && k > 1 && a->fr[0].inline_depth && !strchr(mine_fn, '(') &&
			 !strcmp(fn[0], a->fr[k - 1].name ? a->fr[k - 1].name : ""))
			v = QUIRK_INNERMOST;
		else if (i == 0 && k > 1 && a->fr[0].inline_depth && strstr(fn[0], " [clone "))
			v = QUIRK_INNERMOST; /* the same rule, from the clone's symbol */
		else if (i > 0 && i == k - 1 && !strchr(fn[i], '(') &&
			 !strncmp(mine_fn, fn[i], strlen(fn[i])) &&
			 (mine_fn[strlen(fn[i])] == '(' || mine_fn[strlen(fn[i])] == ' '))
			v = v == SAME ? CALLER_DW_NAME : v;
		else if (nm_alias(nm, fn[i], mine_fn)) {
			v = v == SAME ? ALIAS : v;
			if (v == ALIAS && (*printed)++ < 25)
				print_message("alias at 0x%" PRIx64 ": addr2line %s, muxbpf %s\n",
					      a->vaddr, fn[i], mine_fn);
		}
		else
			v = DIFFERENT;
	}
	if (v == DIFFERENT && (*printed)++ < 25) {
		print_message("differs at %s 0x%" PRIx64 ":\n", a->file, a->vaddr);
		for (int i = 0; i < k; i++)
			print_message("   addr2line: %s at %s\n", fn[i], loc[i]);
		for (int i = 0; i < a->n; i++)
			print_message("   muxbpf:    %s at %s:%u\n", a->fr[i].name ? a->fr[i].name : "?",
				      a->fr[i].file ? a->fr[i].file : "??", a->fr[i].line);
	}
	return v;
}

/* Run addr2line -a -f -i -C over every address of one file; count agreements. */
static void check_file(const char *elf, struct addr *v, size_t n, size_t *checked,
		       size_t verdicts[VERDICT__COUNT], int *printed)
{
	struct nm nm = {};

	char in[] = "/tmp/muxbpf-a2l-XXXXXX", cmd[PATH_MAX * 2], line[2048];
	char (*fn)[512] = calloc(CHAIN_MAX + 1, sizeof(*fn));
	char (*loc)[1024] = calloc(CHAIN_MAX + 1, sizeof(*loc));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx)), m = 0, cur = 0;
	int fd = mkstemp(in), k = 0;
	FILE *f;

	assert_true(fd >= 0 && fn && loc && idx);
	nm_load(&nm, elf);
	f = fdopen(fd, "w");
	for (size_t i = 0; i < n; i++) {
		if (v[i].file != elf || v[i].vaddr == UINT64_MAX)
			continue;
		fprintf(f, "0x%" PRIx64 "\n", v[i].vaddr);
		idx[m++] = i;
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -a -f -i -C -e '%s' < %s", elf, in);
	f = popen(cmd, "r");
	assert_non_null(f);
	/* blocks: "0xADDR", then function / file:line pairs */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0x", 2)) {
			if (cur)
				verdicts[compare(&v[idx[cur - 1]], fn, loc, k, &nm, printed)]++;
			cur++;
			k = 0;
			continue;
		}
		if (k > CHAIN_MAX)
			continue;
		snprintf(fn[k], sizeof(fn[k]), "%.511s", line);
		if (!fgets(line, sizeof(line), f))
			break;
		line[strcspn(line, " \n")] = 0; /* drop " (discriminator N)" */
		snprintf(loc[k], sizeof(loc[k]), "%.1023s", line);
		k++;
	}
	if (cur)
		verdicts[compare(&v[idx[cur - 1]], fn, loc, k, &nm, printed)]++;
	pclose(f);
	assert_int_equal(cur, m);
	*checked += m;
	unlink(in);
	for (size_t i = 0; i < nm.n; i++)
		free(nm.names[i]);
	free(nm.names);
	free(nm.addrs);
	free(fn);
	free(loc);
	free(idx);
}

/* Does addr2line give the address at file offset off of dso a file and line? */
static bool addr2line_placed(const char *dso, uint64_t off)
{
	uint64_t va = file_vaddr(dso, off);
	char cmd[PATH_MAX + 64], fn[512], loc[1024];
	bool placed = false;
	FILE *f;

	if (va == UINT64_MAX)
		return false;
	snprintf(cmd, sizeof(cmd), "addr2line -f -e '%s' 0x%" PRIx64, dso, va);
	f = popen(cmd, "r");
	if (!f)
		return true; /* no verdict: count it against muxbpf */
	if (fgets(fn, sizeof(fn), f) && fgets(loc, sizeof(loc), f))
		placed = loc[0] != '?' && !strstr(loc, ":0\n") && !strstr(loc, ":?");
	pclose(f);
	return placed;
}

static void test_real_run(void **state)
{
	char *argv[] = { "muxbpf", "--phase", "all", "--idle-seconds", "0.5", "--freq", "4999", NULL };
	struct mb_resolved res = {};
	struct symbolizer *sym;
	struct fold_table t;
	size_t naddr, checked = 0, verdicts[VERDICT__COUNT] = {};
	struct addr *addrs;
	double t0, t_res, t_fold;
	struct opts o;
	struct run run;
	int printed = 0, err;

	(void)state;
	skip_unless_bpf();
	assert_int_equal(opts_parse(7, argv, &o), 0);
	if (access(o.netmux, X_OK))
		skip_because("no default target %s (make netmux)", o.netmux);
	err = run_session(&o, &run);
	assert_int_equal(err, 0);

	t0 = now_s();
	sym = symbolizer__new();
	assert_non_null(sym);
	symbolizer__use_pins(sym, &run.pins);
	assert_int_equal(resolve_profile(sym, run.maps, &run.last_maps, &run.profile,
					 (uint32_t)run.pid, &res), 0);
	t_res = now_s() - t0;
	for (int i = 0; i < run.nwindows; i++) {
		unsigned int id = run.windows[i].phase;
		const struct fold_dso *own = NULL;
		uint64_t no_line = 0;

		assert_int_equal(fold_phase(&run.profile, &res, id, (uint32_t)run.pid,
					    FOLD_VIEW(FOLD_BY__COUNT) - 1, &t), 0);
		for (size_t d = 0; d < t.ndsos; d++)
			if (t.dsos[d].dso && strstr(t.dsos[d].dso, "/netmux"))
				own = &t.dsos[d];
		print_message("%-15s %5" PRIu64 " samples, in netmux %5" PRIu64 ", of which "
			      "%.1f%% named, %.1f%% with file:line\n", phase_name(id), t.samples,
			      own ? own->samples : 0,
			      own && own->samples ? 100.0 * own->named / own->samples : 0,
			      own && own->samples ? 100.0 * own->with_line / own->samples : 0);
		for (size_t i = 0; i < run.profile.n; i++) {
			const struct mb_rstack *st = &res.stacks[i];
			bool placed;

			if (run.profile.samples[i].phase != id || !st->n || !st->frames[0].dso ||
			    !strstr(st->frames[0].dso, "/netmux") ||
			    (st->frames[0].file && st->frames[0].line))
				continue;
			placed = addr2line_placed(st->frames[0].dso, st->frames[0].offset);
			if (!placed)
				no_line += run.profile.samples[i].count;
			print_message("  without file:line: %s+0x%" PRIx64 " %s (%s)%s\n",
				      st->frames[0].dso, st->frames[0].offset,
				      st->frames[0].name ? st->frames[0].name : "?",
				      mb_unnamed_str(st->frames[0].why),
				      placed ? "" : "; addr2line has none either");
		}
		/*
		 * Code without line information in the file itself (crt's _start and _init, the PLT)
		 * counts for neither side: a slow boot, as in a TCG guest, samples it more.
		 */
		if (own && own->samples - no_line >= 50 &&
		    own->with_line * 100 < (own->samples - no_line) * 99)
			fail_msg("phase %s: only %" PRIu64 " of %" PRIu64 " netmux samples in code "
				 "with line information have a file:line", phase_name(id),
				 own->with_line, own->samples - no_line);
		fold_table__free(&t);
	}
	t_fold = now_s() - t0 - t_res;
	print_message("symbolized %zu samples in %.1f ms, folded every phase in every view in "
		      "%.1f ms\n", run.profile.n, t_res * 1e3, t_fold * 1e3);
	/* how long it takes is bench/posttime.sh's to measure: no test asserts a wall time */

	naddr = collect_addrs(&res, &addrs);
	for (size_t i = 0; i < naddr; i++) {
		bool done = false;

		for (size_t j = 0; j < i && !done; j++)
			done = addrs[j].file == addrs[i].file;
		if (!done)
			check_file(addrs[i].file, addrs, naddr, &checked, verdicts, &printed);
	}
	print_message("addr2line -f -i -C on %zu distinct addresses:\n", checked);
	for (int i = 0; i < VERDICT__COUNT; i++)
		print_message("  %5zu (%5.2f%%) %s\n", verdicts[i],
			      checked ? 100.0 * verdicts[i] / checked : 0, verdict_str[i]);
	assert_true(checked >= 500);
	if (verdicts[DIFFERENT] * 100 > checked)
		fail_msg("%zu of %zu addresses differ from addr2line without explanation",
			 verdicts[DIFFERENT], checked);
	free(addrs);
	resolve_free(&res);
	symbolizer__free(sym);
	run__free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
