// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CFI walker against ground truth: tests/targets/synth.c built without frame pointers by gcc
 * and by clang.  In phase 1 every sample with hot_a or hot_b as the leaf must have the stack
 * hot_x <- phase_one <- main <- (libc start) <- _start, and the walk must end at _start's
 * "return address undefined" row.  A frame-pointer walk of the same binary must not manage
 * that.  The sampler's run time per sample (bpf_enable_stats) is printed for each mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "collect.h"
#include "maps.h"
#include "muxbpf.skel.h"
#include "profile.h"
#include "symbolize.h"
#include "testutil.h"

#define PHASE_ONE 1

struct target {
	pid_t pid;
	int go_fd, cmd_fd, ack_fd;
	char path[PATH_MAX];
};

static void target_spawn(struct target *t, const char *name, const char *cpu_ms)
{
	char exe[PATH_MAX];
	int go[2], cmd[2], ack[2];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char c;

	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	assert_true(snprintf(t->path, sizeof(t->path), "%s/targets/%s", exe, name) <
		    (int)sizeof(t->path));
	assert_int_equal(access(t->path, X_OK), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	assert_int_equal(pipe2(cmd, O_CLOEXEC), 0);
	assert_int_equal(pipe2(ack, O_CLOEXEC), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(cmd[0], 0);
		dup2(ack[1], 1);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execl(t->path, t->path, cpu_ms, (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	close(cmd[0]);
	close(ack[1]);
	t->go_fd = go[1];
	t->cmd_fd = cmd[1];
	t->ack_fd = ack[0];
}

static void target_command(struct target *t, char cmd)
{
	char c = 0;

	assert_int_equal(write(t->cmd_fd, &cmd, 1), 1);
	assert_int_equal(read(t->ack_fd, &c, 1), 1);
	assert_int_equal(c, 'k');
}

struct result {
	uint64_t hot;         /* phase-1 samples with hot_a/hot_b as the leaf */
	uint64_t hot_chain;   /* ... whose stack is exactly the known chain */
	uint64_t samples;     /* all phase-1 samples */
	uint64_t to_start;    /* ... whose last frame is _start */
	struct muxbpf_phase_stats st;
	double ns_per_sample;
	char first_bad[512];
};

static const char *name_of(struct symbolizer *sym, const struct mb_maps *maps, uint64_t ip)
{
	struct mb_sym out;

	if (symbolizer__lookup(sym, maps, ip, &out) || !out.name)
		return NULL;
	return out.name;
}

static bool is(const char *name, const char *want)
{
	return name && !strcmp(name, want);
}

/* hot_x <- phase_one <- main <- __libc_start_call_main <- __libc_start_main <- _start */
static void check_sample(struct symbolizer *sym, const struct mb_maps *maps,
			 const struct mb_sample *s, struct result *r)
{
	const char *leaf = s->nr ? name_of(sym, maps, s->ips[0]) : NULL;
	const char *last = s->nr ? name_of(sym, maps, s->ips[s->nr - 1]) : NULL;
	bool ok;

	r->samples += s->count;
	if (is(last, "_start"))
		r->to_start += s->count;
	if (!is(leaf, "hot_a") && !is(leaf, "hot_b"))
		return;
	r->hot += s->count;
	ok = s->nr == 6 && is(name_of(sym, maps, s->ips[1]), "phase_one") &&
	     is(name_of(sym, maps, s->ips[2]), "main") && is(last, "_start") &&
	     is(name_of(sym, maps, s->ips[4]), "__libc_start_main");
	if (ok) {
		r->hot_chain += s->count;
	} else if (!r->first_bad[0]) {
		size_t o = 0;

		for (uint32_t f = 0; f < s->nr && f < 8 && o < sizeof(r->first_bad) - 64; f++) {
			const char *n = name_of(sym, maps, s->ips[f]);

			o += snprintf(r->first_bad + o, sizeof(r->first_bad) - o, "%s%s(%#lx)",
				      f ? " <- " : "", n ? n : "?", (unsigned long)s->ips[f]);
		}
	}
}

/* Run phase 1 of a target under one unwind mode and check every stack. */
static void run_mode(const char *target, int mode, struct result *r)
{
	struct attach_opts opts = { .freq = 997, .enable_on_exec = true, .unwind = mode,
				    .no_ledger = true };
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	struct mb_profile prof = {};
	struct mb_maps maps = {};
	struct symbolizer *sym;
	struct profiler *p;
	struct target t;
	int status, stats_fd;

	memset(r, 0, sizeof(*r));
	target_spawn(&t, target, "1000");
	opts.pid = t.pid;
	opts.exe = t.path;
	p = profiler__new(&opts);
	assert_non_null(p);
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	assert_int_equal(write(t.go_fd, "g", 1), 1);
	profiler__set_phase(p, PHASE_ONE);
	target_command(&t, 'a');
	profiler__set_phase(p, 0);
	assert_int_equal(maps__read(t.pid, &maps), 0);
	assert_int_equal(collect_profile(p, &prof), 0);
	assert_int_equal(bpf_obj_get_info_by_fd(
				 bpf_program__fd(profiler__skel(p)->progs.mb_sample), &info,
				 &info_len),
			 0);
	if (stats_fd >= 0)
		close(stats_fd);
	assert_int_equal(write(t.cmd_fd, "q", 1), 1);
	assert_int_equal(waitpid(t.pid, &status, 0), t.pid);
	profiler__free(p);

	r->ns_per_sample = info.run_cnt ? (double)info.run_time_ns / info.run_cnt : 0;
	r->st = prof.stats[PHASE_ONE];
	sym = symbolizer__new();
	assert_non_null(sym);
	for (size_t i = 0; i < prof.n; i++)
		if (prof.samples[i].phase == PHASE_ONE && prof.samples[i].pid == (uint32_t)t.pid)
			check_sample(sym, &maps, &prof.samples[i], r);
	symbolizer__free(sym);
	{
		const __u64 *e = r->st.walk_end;
		const char *mname = mode == MUXBPF_UNWIND_FP	  ? "fp"
				    : mode == MUXBPF_UNWIND_DWARF ? "dwarf"
								  : "auto";

		print_message("%s --unwind %s: %lu samples, %lu in hot_a/b, %.2f%% of those with "
			      "the full chain, %.2f%% of all ending at _start\n",
			      target, mname, r->samples, r->hot,
			      r->hot ? 100.0 * r->hot_chain / r->hot : 0,
			      r->samples ? 100.0 * r->to_start / r->samples : 0);
		print_message("  walks %llu: outermost %llu, zero-end %llu, no-proc %llu, "
			      "no-table %llu, no-row %llu, unsupported %llu, fault %llu, bad %llu, "
			      "depth %llu; %.0f ns/sample\n",
			      r->st.walks, e[MUXBPF_WALK_OUTERMOST], e[MUXBPF_WALK_ZERO_END],
			      e[MUXBPF_WALK_NO_PROC], e[MUXBPF_WALK_NO_TABLE], e[MUXBPF_WALK_NO_ROW],
			      e[MUXBPF_WALK_UNSUPPORTED], e[MUXBPF_WALK_READ_FAULT],
			      e[MUXBPF_WALK_BAD_FRAME], e[MUXBPF_WALK_DEPTH], r->ns_per_sample);
		print_message("  tables %u (%lu rows, %lu rules, %lu bytes, built in %.1f ms)\n",
			      prof.unwind.tables, prof.unwind.rows, prof.unwind.infos,
			      prof.unwind.bytes, prof.unwind.build_ms);
	}
	if (r->first_bad[0])
		print_message("  first stack off the chain: %s\n", r->first_bad);
	maps__free(&maps);
	profile__free(&prof);
}

static void check_dwarf(const char *target, int mode)
{
	struct result r;

	run_mode(target, mode, &r);
	assert_true(r.samples > 500);
	assert_true(r.hot > 400);
	/* The first few ms after exec may pass before the tables are in: allow 1%. */
	if (r.hot_chain * 100 < r.hot * 99)
		fail_msg("%s: only %lu of %lu hot samples have the known chain (first off: %s)",
			 target, r.hot_chain, r.hot, r.first_bad);
	if (r.st.walk_end[MUXBPF_WALK_OUTERMOST] * 100 < r.st.walks * 99)
		fail_msg("%s: %llu of %llu walks reached the outermost frame", target,
			 r.st.walk_end[MUXBPF_WALK_OUTERMOST], r.st.walks);
	if (r.to_start * 100 < r.samples * 99)
		fail_msg("%s: %lu of %lu stacks end at _start", target, r.to_start, r.samples);
}

static void test_gcc_nofp_dwarf(void **state)
{
	(void)state;
	skip_unless_bpf();
	check_dwarf("synth_nofp", MUXBPF_UNWIND_DWARF);
}

static void test_clang_nofp_dwarf(void **state)
{
	(void)state;
	skip_unless_bpf();
	check_dwarf("synth_nofp_clang", MUXBPF_UNWIND_DWARF);
}

static void test_gcc_nofp_auto(void **state)
{
	(void)state;
	skip_unless_bpf();
	check_dwarf("synth_nofp", MUXBPF_UNWIND_AUTO);
}

/* Frame pointers cannot walk this binary: the chain must be (nearly) never complete. */
static void test_gcc_nofp_fp_fails(void **state)
{
	struct result r;

	(void)state;
	skip_unless_bpf();
	run_mode("synth_nofp", MUXBPF_UNWIND_FP, &r);
	assert_true(r.hot > 400);
	if (r.hot_chain * 10 > r.hot)
		fail_msg("frame pointers found the chain in %lu of %lu samples: the ground truth "
			 "is not testing CFI", r.hot_chain, r.hot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcc_nofp_dwarf),
		cmocka_unit_test(test_clang_nofp_dwarf),
		cmocka_unit_test(test_gcc_nofp_auto),
		cmocka_unit_test(test_gcc_nofp_fp_fails),
	};

	return cmocka_run_group_tests_name("unwind_bpf", tests, NULL, NULL);
}
