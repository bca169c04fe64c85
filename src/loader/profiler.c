// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Load the skeleton and attach it to one target.  The sampler is a per-task cpu-clock event
 * (pid = target, cpu = -1, inherit) so it costs nothing while the target sleeps and follows the
 * threads and children created after it is opened; exclude_kernel keeps samples user-only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loader/calib.h"
#include "base/clock.h"
#include "base/jitter.h"
#include "model/ledger.h"
#include "base/log.h"
#include "proc/procstat.h"
#include "model/profile.h"
#include "muxbpf.h"
#include "muxbpf.skel.h"
#include "loader/preflight.h"
#include "loader/profiler.h"
#include "loader/syscall_hook.h"
#include "proc/target.h"
#include "loader/unwind.h"

struct profiler {
	struct muxbpf_bpf *skel;
	pid_t pid;
	int perf_fd;
	int perf_link_fd;
	struct bpf_link *exit_link;
	struct bpf_link *exit_switch_link; /* an exiting thread's last switch-out */
	struct bpf_link *iter_link;
	int iter_link_fd;
	struct unwinder *unw;
	struct bpf_link *ledger_links[LEDGER_NPROGS];
	const char *ledger_names[LEDGER_NPROGS]; /* the programs in use, by slot */
	struct syscall_hook_info hook;
	bool ledger;
	/* a running target (opts->running): one sampler event and link per thread at attach */
	int *thread_fds; /* pairs: event fd, link fd */
	pid_t *thread_tids;
	int nthreads;
	int *noclone_fds; /* one per task our sampler events were opened on (open_noclone()) */
	int nnoclone;
	struct jitter *jitter; /* re-draws the sampler events' periods (jitter.c) */
	uint32_t epoch; /* phase boundaries so far (the ledger's phase_epoch >> 32) */
	unsigned int prev_phase;
	/* the bystanders' early exits (muxbpf_exit_line) booked by phase at the boundaries so
	 * far, and the lines' sums at the last boundary */
	uint64_t (*exits)[MUXBPF_PROG__COUNT];
	uint64_t exits_booked[MUXBPF_PROG__COUNT];
	double floor_ns;     /* the tracepoints' cost per syscall outside the programs, -1: none */
	bool stats;          /* run-time statistics enabled */
	struct calib *calib; /* the calibration window, NULL without statistics */
};

/*
 * libbpf's warnings during load are kept, not printed, unless -v: a verifier rejection is a
 * page of log, and the user gets its last line as the reason (load_failed()).
 */
static char *load_log;
static size_t load_log_len;
static bool load_capture;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && log_level < 2)
		return 0;
	if (level == LIBBPF_INFO && log_level < 1)
		return 0;
	if (load_capture && log_level < 1) {
		char *text, *grown;
		int n = vasprintf(&text, fmt, args);

		if (n <= 0)
			return n;
		grown = realloc(load_log, load_log_len + n + 1);
		if (grown) {
			load_log = grown;
			memcpy(load_log + load_log_len, text, n + 1);
			load_log_len += n;
		}
		free(text);
		return n;
	}
	return vfprintf(stderr, fmt, args);
}

/*
 * One line for a failed load: a verifier rejection names the program and the verifier's last
 * words before "processed N insns"; anything else goes to preflight_explain_load().
 */
static void load_failed(int err)
{
	char prog[128] = "", reason[512] = "";
	char *log = load_log ? load_log : "", *p, *begin, *end;

	p = strstr(log, "prog '");
	if (p)
		sscanf(p, "prog '%127[^']'", prog);
	begin = strstr(log, "-- BEGIN PROG LOAD LOG --");
	end = begin ? strstr(begin, "-- END PROG LOAD LOG --") : NULL;
	if (begin && end) {
		/* the last line before "processed ..."/"verification time" that says something */
		for (char *l = begin; l < end; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : end) {
			size_t n = strcspn(l, "\n");

			if (l == begin || !n || l[0] == '-' || !strncmp(l, "processed ", 10) ||
			    !strncmp(l, "verification time", 17) || !strncmp(l, "stack depth", 11) ||
			    !strncmp(l, "libbpf: ", 8))
				continue;
			snprintf(reason, sizeof(reason), "%.*s", (int)(n < 400 ? n : 400), l);
		}
	}
	if (begin) {
		pr_err("the BPF verifier rejected program %s: %s (run with -v for the full log)",
		       *prog ? prog : "?", *reason ? reason : strerror(-err));
	} else {
		preflight_explain_load(err, *prog ? prog : "(skeleton)");
	}
	free(load_log);
	load_log = NULL;
	load_log_len = 0;
}

static int open_sampler(pid_t pid, int freq, bool enable_on_exec)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = freq,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.inherit = 1,
		.disabled = enable_on_exec,
		.enable_on_exec = enable_on_exec,
	};
	int fd;

	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	return fd;
}

/*
 * Keep the children of a sampled task from getting a clone of its perf context.  When a task
 * forks, the kernel copies its inherit events into the child's context and, if every event was
 * inherited, marks that context a clone of the parent's (perf_event_init_context()).  Between
 * two tasks with equivalent contexts a context switch swaps the contexts instead of switching
 * their events out and in (perf_event_context_sched_out()).  After a swap the event of our fd,
 * the only one PERF_EVENT_IOC_PERIOD reaches, belongs to the child, and the parent is sampled
 * by an inherited copy at the period it had at the fork: the random period (jitter.c) stopped
 * reaching netmux once it had talked to its stubslave child, and in 11 of 35 runs netmux's
 * sample rate was 0.72-1.95 times perf's (bench/reports/2026-12-02-inherited-contexts.md).
 * One event that is not inherited makes the contexts of later children plain copies: a
 * disabled dummy event, which counts nothing and costs nothing.  Children are still sampled,
 * by their inherited copies of the sampler.
 */
static int open_noclone(struct profiler *p, pid_t tid)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.disabled = 1,
	};
	int fd, *fds = realloc(p->noclone_fds, (p->nnoclone + 1) * sizeof(*fds));

	if (!fds)
		return -ENOMEM;
	p->noclone_fds = fds;
	fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		if (err != -ESRCH) /* a thread that exited since the scan: not an error */
			pr_err("failed to open the non-inherited event on %d: %s", tid,
			       strerror(-err));
		return err;
	}
	p->noclone_fds[p->nnoclone++] = fd;
	return 0;
}

static bool has_thread(const struct profiler *p, pid_t tid)
{
	for (int i = 0; i < p->nthreads; i++)
		if (p->thread_tids[i] == tid)
			return true;
	return false;
}

/* One thread's event and link; -ESRCH when the thread exited meanwhile (not an error). */
static int attach_thread(struct profiler *p, pid_t tid, int freq, int prog_fd)
{
	int fd, link, *fds;
	pid_t *tids;

	fds = realloc(p->thread_fds, (p->nthreads + 1) * 2 * sizeof(*fds));
	if (fds)
		p->thread_fds = fds;
	tids = realloc(p->thread_tids, (p->nthreads + 1) * sizeof(*tids));
	if (tids)
		p->thread_tids = tids;
	if (!fds || !tids)
		return -ENOMEM;
	fd = open_sampler(tid, freq, false);
	if (fd < 0)
		return fd;
	link = bpf_link_create(prog_fd, fd, BPF_PERF_EVENT, NULL);
	if (link < 0) {
		int err = -errno;

		close(fd);
		pr_err("failed to attach sampler to thread %d: %s", tid, strerror(-err));
		return err;
	}
	p->thread_fds[2 * p->nthreads] = fd;
	p->thread_fds[2 * p->nthreads + 1] = link;
	p->thread_tids[p->nthreads++] = tid;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		pr_err("failed to enable sampler on thread %d: %s", tid, strerror(errno));
		return -errno;
	}
	return open_noclone(p, tid);
}

/*
 * A running target.  inherit only reaches tasks created after an event is opened, so open one
 * event per existing thread (pid = tid, inherit): each covers the threads and children that its
 * thread creates from then on.  A thread created before its creator's event was open appears in
 * the next scan of /proc/PID/task: scan until a pass finds nothing new.  Per-task events cost
 * nothing while the thread sleeps (per-CPU events would interrupt idle CPUs at the full rate).
 */
static int attach_threads(struct profiler *p, int freq, int prog_fd)
{
	for (int pass = 0; pass < 64; pass++) {
		pid_t *tids;
		int n = target_threads(p->pid, &tids), added = 0, err = 0;

		if (n < 0) {
			pr_err("failed to list the threads of pid %d: %s", p->pid, strerror(-n));
			return n;
		}
		for (int i = 0; i < n && !err; i++) {
			if (has_thread(p, tids[i]))
				continue;
			err = attach_thread(p, tids[i], freq, prog_fd);
			if (err == -ESRCH && tids[i] != p->pid)
				err = 0; /* exited since the scan */
			else if (!err)
				added++;
			else if (err != -ENOMEM)
				preflight_explain_perf(err, tids[i]);
		}
		free(tids);
		if (err)
			return err;
		if (!added)
			return 0;
	}
	pr_err("pid %d creates threads faster than muxbpf can attach to them", p->pid);
	return -EAGAIN;
}

/*
 * Link the sampler program to the event ourselves: libbpf 1.1's attach_perf_event always issues
 * PERF_EVENT_IOC_ENABLE, which would defeat enable_on_exec and sample the pre-exec child.
 */
static int attach_sampler(struct profiler *p, const struct profiler_opts *opts)
{
	int prog_fd = bpf_program__fd(p->skel->progs.mb_sample), err;

	if (opts->running)
		return attach_threads(p, opts->freq, prog_fd);
	p->perf_fd = open_sampler(opts->pid, opts->freq, opts->enable_on_exec);
	if (p->perf_fd < 0) {
		preflight_explain_perf(p->perf_fd, opts->pid);
		return p->perf_fd;
	}
	p->perf_link_fd = bpf_link_create(prog_fd, p->perf_fd, BPF_PERF_EVENT, NULL);
	if (p->perf_link_fd < 0) {
		pr_err("failed to attach sampler to pid %d: %s", opts->pid, strerror(errno));
		return -errno;
	}
	err = open_noclone(p, opts->pid);
	if (err)
		return err;
	if (!opts->enable_on_exec && ioctl(p->perf_fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		pr_err("failed to enable sampler on pid %d: %s", opts->pid, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Random sampling periods on every event of ours (the inherited ones keep the first). */
static int start_jitter(struct profiler *p, const struct profiler_opts *opts)
{
	int n = p->perf_fd >= 0 ? 1 : p->nthreads;
	int *fds = calloc(n ? n : 1, sizeof(*fds));
	struct jitter_opts jo = { .fds = fds, .tids = p->perf_fd >= 0 ? &p->pid : p->thread_tids,
				  .nfds = n, .freq = opts->freq };

	jo.last.tid = &p->skel->bss->last_sample_tid;
	jo.last.ns = (const volatile uint64_t *)&p->skel->bss->last_sample_ns;
	if (!fds)
		return -ENOMEM;
	if (p->perf_fd >= 0)
		fds[0] = p->perf_fd;
	for (int i = 0; p->perf_fd < 0 && i < n; i++)
		fds[i] = p->thread_fds[2 * i];
	p->jitter = jitter__new(&jo);
	free(fds);
	if (!p->jitter) {
		pr_err("failed to start the sampling-period thread: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int attach_runtime(struct profiler *p)
{
	LIBBPF_OPTS(bpf_iter_attach_opts, iopts);
	union bpf_iter_link_info linfo = {};

	p->exit_link = bpf_program__attach(p->skel->progs.mb_task_exit);
	if (!p->exit_link) {
		pr_err("failed to attach sched_process_exit handler: %s", strerror(errno));
		return -errno;
	}
	p->exit_switch_link = bpf_program__attach(p->skel->progs.mb_exit_switch);
	if (!p->exit_switch_link) {
		pr_err("failed to attach the exiting threads' sched_switch handler: %s",
		       strerror(errno));
		return -errno;
	}
	/* Scope the task iterator to the target's threads: tens of µs per reading. */
	linfo.task.pid = p->pid;
	iopts.link_info = &linfo;
	iopts.link_info_len = sizeof(linfo);
	p->iter_link = bpf_program__attach_iter(p->skel->progs.mb_task_runtime, &iopts);
	if (!p->iter_link) {
		pr_err("failed to attach task iterator for pid %d: %s", p->pid, strerror(errno));
		return -errno;
	}
	p->iter_link_fd = bpf_link__fd(p->iter_link);
	return 0;
}

/*
 * The ledger's programs: they see every process, and filter on the target first.  Attached once
 * for the session (an fexit on x64_sys_call is never cycled: see syscall_hook.c).
 */
static int attach_ledger(struct profiler *p)
{
	for (size_t i = 0; i < LEDGER_NPROGS; i++) {
		struct bpf_program *prog =
			bpf_object__find_program_by_name(p->skel->obj, p->ledger_names[i]);

		p->ledger_links[i] = prog ? bpf_program__attach(prog) : NULL;
		if (!p->ledger_links[i]) {
			int err = prog ? -errno : -ENOENT;

			pr_err("failed to attach %s: %s", p->ledger_names[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* CPU ns per syscall of this thread: the best of FLOOR_BLOCKS blocks of FLOOR_CALLS getppid. */
#define FLOOR_BLOCKS 7
#define FLOOR_CALLS 4000
static double syscall_ns(void)
{
	double best = 0;

	for (int b = 0; b < FLOOR_BLOCKS; b++) {
		uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), t;

		for (int i = 0; i < FLOOR_CALLS; i++)
			syscall(SYS_getppid);
		t = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (!b || t < best)
			best = (double)t;
	}
	return best / FLOOR_CALLS;
}

/*
 * What the ledger's syscall hook adds to every syscall outside the programs (the tracepoints'
 * slow syscall path, or the fentry/fexit trampolines' calls): muxbpf's own
 * syscalls before and after they attach (its own are early exits: the programs' share is one
 * compare each).  The corrected figures remove it per syscall of the target (cost_correct()).
 * The CPU clock of this thread and the best of several blocks: preemption by the machine's other
 * work does not count.  Attaching in between: sys_enter and sys_exit only, nothing else moves.
 */
static int measure_floor(struct profiler *p)
{
	double bare, traced;
	int err;

	bare = syscall_ns();
	err = attach_ledger(p);
	if (err)
		return err;
	traced = syscall_ns();
	p->floor_ns = traced > bare ? traced - bare : 0;
	pr_verbose("%s floor: %.0f ns per syscall (%.0f bare, %.0f with the ledger "
		   "attached, muxbpf's own getppid)", syscall_hook_name(p->hook.hook), p->floor_ns,
		   bare, traced);
	return 0;
}

/*
 * Threads that are already blocked in a syscall when the ledger attaches (the paused child in
 * read(), a live server in select()) would have no state until that call returns, and the time
 * they sleep would go unbooked.  Seed each thread's state from /proc: the syscall it is in
 * (/proc/PID/task/TID/syscall), its switch count and runtime, as if it entered now.  Best
 * effort: a thread that moves on meanwhile is simply booked from its next event.
 */
static void seed_ledger(struct profiler *p)
{
	int fd = bpf_map__fd(p->skel->maps.thread_state);
	struct proc_thread *th = calloc(MUXBPF_MAX_THREADS, sizeof(*th));
	uint64_t now = mono_ns();
	int n;

	if (!th)
		return;
	n = procstat_threads(p->pid, th, MUXBPF_MAX_THREADS);
	for (int i = 0; i < n; i++) {
		struct muxbpf_thread_state st = {};

		if (th[i].syscall < 0)
			continue; /* running, or blocked outside a syscall */
		st.nr = th[i].syscall;
		st.csw = th[i].csw;
		st.rt_enter = st.out_rt = th[i].runtime_ns; /* fresh: the thread is blocked */
		st.enter_ns = st.run_ns = st.off_ns = now;
		st.off = 1;
		/*
		 * out_rt and off_ns hold, so its next on-CPU interval books its switch path.
		 * Without it, boot's first interval (the paused child released, through its
		 * exec) booked none: one CI run left +2.9 ms of boot unexplained, most likely
		 * time the host stole there (README, "Stolen time").
		 */
		st.pending = 1;
		st.phase = p->skel->bss->phase;
		st.epoch = p->epoch;
		bpf_map_update_elem(fd, &th[i].tid, &st, BPF_NOEXIST);
	}
	free(th);
}

/* Load the ledger's programs in use (p->ledger_names) only: none when it is off. */
static void ledger_autoload(struct profiler *p)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name = bpf_program__name(prog);
		int slot = ledger_prog_slot(name);

		if (slot >= 0)
			bpf_program__set_autoload(prog, p->ledger &&
							!strcmp(name, p->ledger_names[slot]));
	}
}

/* The ledger's programs for the chosen hook, by slot. */
static void ledger_names(struct profiler *p)
{
	memcpy(p->ledger_names, ledger_progs, sizeof(p->ledger_names));
	if (p->hook.hook == SYSCALL_HOOK_FENTRY)
		memcpy(p->ledger_names, ledger_fentry_progs, sizeof(ledger_fentry_progs));
}

/*
 * The unwinder's maps, sized from the data: the CFI of the target and its libraries is compiled
 * before load, the stack buckets follow max_stacks.
 */
static int setup_unwind(struct profiler *p, const struct profiler_opts *opts)
{
	struct bpf_map *buckets[MUXBPF_STACK_BUCKETS] = {
		p->skel->maps.ustacks_16, p->skel->maps.ustacks_32, p->skel->maps.ustacks_64,
		p->skel->maps.ustacks_127 };
	struct unwinder_caps cap;

	p->unw = unwinder__new(opts->unwind);
	if (!p->unw)
		return -ENOMEM;
	if (opts->exe && opts->unwind != MUXBPF_UNWIND_FP && unwinder__prepare(p->unw, opts->exe))
		pr_warn("cannot read %s: its unwind tables will be built when it runs", opts->exe);
	unwinder__capacity(p->unw, &cap);
	p->skel->rodata->unwind_mode = opts->unwind;
	bpf_map__set_max_entries(p->skel->maps.unwind_rows, cap.rows);
	bpf_map__set_max_entries(p->skel->maps.unwind_infos, cap.infos);
	bpf_map__set_max_entries(p->skel->maps.unwind_index, cap.index);
	for (int b = 0; b < MUXBPF_STACK_BUCKETS && opts->max_stacks; b++)
		bpf_map__set_max_entries(buckets[b], opts->max_stacks);
	return 0;
}

static int start_unwind(struct profiler *p)
{
	struct unwinder_maps m = {
		.rows_fd = bpf_map__fd(p->skel->maps.unwind_rows),
		.infos_fd = bpf_map__fd(p->skel->maps.unwind_infos),
		.index_fd = bpf_map__fd(p->skel->maps.unwind_index),
		.pids_fd = bpf_map__fd(p->skel->maps.unwind_pids),
		.procs_fd = bpf_map__fd(p->skel->maps.unwind_procs),
		.reqs_fd = bpf_map__fd(p->skel->maps.unwind_reqs),
	};

	struct unwinder_caps cap = {
		.rows = bpf_map__max_entries(p->skel->maps.unwind_rows),
		.infos = bpf_map__max_entries(p->skel->maps.unwind_infos),
		.index = bpf_map__max_entries(p->skel->maps.unwind_index),
	};

	return unwinder__start(p->unw, &m, &cap);
}

/* Open, size and load the skeleton; a failed load says why unless quiet (a load retried). */
static int load_skel(struct profiler *p, const struct profiler_opts *opts, bool quiet)
{
	int err;

	p->skel = muxbpf_bpf__open();
	if (!p->skel) {
		err = -errno;
		pr_err("failed to open BPF skeleton: %s", strerror(-err));
		return err;
	}
	p->skel->rodata->targ_tgid = opts->pid;
	p->skel->rodata->sample_mean_ns = 1000000000ull / (opts->freq > 0 ? opts->freq : 1);
	ledger_names(p);
	ledger_autoload(p);
	if (opts->site_every < 0) {
		p->skel->rodata->ledger_site_every = 0;
	} else if (opts->site_every > 0) {
		p->skel->rodata->ledger_site_every = opts->site_every;
		p->skel->rodata->ledger_site_threshold = MUXBPF_SITE_THRESHOLD(opts->site_every);
	}
	err = setup_unwind(p, opts);
	if (err)
		return err;
	if (opts->max_samples)
		bpf_map__set_max_entries(p->skel->maps.samples, opts->max_samples);
	load_capture = true;
	err = muxbpf_bpf__load(p->skel);
	load_capture = false;
	if (err && !quiet)
		load_failed(err);
	return err;
}

static void drop_load_log(void)
{
	free(load_log);
	load_log = NULL;
	load_log_len = 0;
}

/*
 * The syscall hook is chosen by a probe (syscall_hook.c); where the probe's fentry attached but
 * the skeleton's fentry pair does not load and the hook was not forced, load again with the
 * tracepoints.
 */
static int load(struct profiler *p, const struct profiler_opts *opts)
{
	bool retry;
	int err;

	if (p->ledger &&
	    syscall_hook_choose(opts->syscall_hook, opts->pid, opts->exe, &p->hook)) {
		pr_err("--syscall-hook fentry: %s", p->hook.why);
		return -EOPNOTSUPP;
	}
	retry = p->hook.hook == SYSCALL_HOOK_FENTRY && opts->syscall_hook == SYSCALL_HOOK_AUTO;

	err = load_skel(p, opts, retry);
	if (err && retry) {
		drop_load_log();
		muxbpf_bpf__destroy(p->skel);
		unwinder__free(p->unw);
		p->skel = NULL;
		p->unw = NULL;
		p->hook.hook = SYSCALL_HOOK_TRACEPOINT;
		snprintf(p->hook.why, sizeof(p->hook.why),
			 "tracepoint: the fentry programs did not load (%s)", strerror(-err));
		err = load_skel(p, opts, false);
	}
	if (err)
		return err;
	drop_load_log();
	return start_unwind(p);
}

/* The ledger's phase as its programs see it (bpf/ledger.bpf.c phase_of()). */
static uint32_t ledger_phase(const struct profiler *p)
{
	uint32_t ph = (uint32_t)__atomic_load_n(&p->skel->bss->phase_epoch, __ATOMIC_SEQ_CST);

	return ph < MUXBPF_MAX_PHASES ? ph : 0;
}

/* The bystanders' early exits so far, summed over the CPUs' lines. */
static void exit_lines_sum(const struct profiler *p, uint64_t sum[MUXBPF_PROG__COUNT])
{
	int ncpu = libbpf_num_possible_cpus();
	int n = ncpu > 0 && ncpu < MUXBPF_CPU_SLOTS ? ncpu : MUXBPF_CPU_SLOTS;

	memset(sum, 0, MUXBPF_PROG__COUNT * sizeof(*sum));
	for (int c = 0; c < n; c++)
		for (int i = 0; i < MUXBPF_PROG__COUNT; i++)
			sum[i] += __atomic_load_n(&p->skel->bss->bystanders[c].exits[i],
						  __ATOMIC_RELAXED);
}

/* At a boundary: what the lines gained since the last one goes to the phase that ends. */
static void exit_lines_book(struct profiler *p)
{
	uint64_t now[MUXBPF_PROG__COUNT];
	uint32_t ph = ledger_phase(p);

	if (!p->ledger)
		return;
	exit_lines_sum(p, now);
	for (int i = 0; i < MUXBPF_PROG__COUNT; i++) {
		p->exits[ph][i] += now[i] - p->exits_booked[i];
		p->exits_booked[i] = now[i];
	}
}

/* Phase ph's early exits: booked at the boundaries, and since the last one if it is running. */
static void exit_lines_read(const struct profiler *p, uint32_t ph, __u64 out[MUXBPF_PROG__COUNT])
{
	uint64_t now[MUXBPF_PROG__COUNT];

	if (!p->ledger)
		return;
	for (int i = 0; i < MUXBPF_PROG__COUNT; i++)
		out[i] = p->exits[ph][i];
	if (ph != ledger_phase(p))
		return;
	exit_lines_sum(p, now);
	for (int i = 0; i < MUXBPF_PROG__COUNT; i++)
		out[i] += now[i] - p->exits_booked[i];
}

int profiler__run_counts(struct profiler *p, uint32_t ph, struct muxbpf_run_counts *out,
			 uint64_t *samples)
{
	struct muxbpf_bpf *skel = p->skel;
	int ncpu = libbpf_num_possible_cpus();
	size_t n = sizeof(*out) / sizeof(uint64_t);
	struct muxbpf_run_counts *v;
	struct muxbpf_phase_stats *st;
	int err = 0;

	memset(out, 0, sizeof(*out));
	*samples = 0;
	if (ncpu <= 0 || ph >= MUXBPF_MAX_PHASES)
		return -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	st = calloc(ncpu, sizeof(*st));
	if (!v || !st) {
		err = -ENOMEM;
		goto out;
	}
	if (p->ledger &&
	    bpf_map_lookup_elem(bpf_map__fd(skel->maps.run_counts), &ph, v)) {
		err = -errno;
		goto out;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.sample_stats), &ph, st)) {
		err = -errno;
		goto out;
	}
	for (int c = 0; c < ncpu; c++) {
		const __u64 *x = (const __u64 *)&v[c];
		__u64 *o = (__u64 *)out;

		for (size_t i = 0; i < n; i++)
			o[i] += x[i];
		*samples += st[c].taken;
	}
	exit_lines_read(p, ph, out->exits);
out:
	free(v);
	free(st);
	return err;
}

/* The statistics and the programs' own counts (all phases) now, for the calibration. */
static void calib_read(struct profiler *p, struct mb_calib_reading *out)
{
	struct bpf_program *prog;

	memset(out, 0, sizeof(*out));
	out->t_ns = clock_ns(CLOCK_MONOTONIC);
	bpf_object__for_each_program(prog, p->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		const char *name = bpf_program__name(prog);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		if (!strcmp(name, "mb_sample")) {
			out->sample_runs = info.run_cnt;
			out->sample_ns = info.run_time_ns;
		}
		int slot = ledger_prog_slot(name);

		if (slot >= 0) {
			out->runs[slot] = info.run_cnt;
			out->run_ns[slot] = info.run_time_ns;
		}
	}
	/* every phase: the window may span several */
	for (uint32_t ph = 0; ph < MUXBPF_MAX_PHASES; ph++) {
		struct muxbpf_run_counts c;
		const __u64 *x = (const __u64 *)&c;
		__u64 *o = (__u64 *)&out->counts;
		uint64_t samples;

		if (profiler__run_counts(p, ph, &c, &samples))
			return;
		for (size_t i = 0; i < sizeof(c) / sizeof(uint64_t); i++)
			o[i] += x[i];
	}
	out->valid = true;
}

/* The calibration window's callbacks (calib.h). */
static void calib_read_cb(void *ctx, struct mb_calib_reading *out)
{
	calib_read(ctx, out);
}

static void calib_end_cb(void *ctx, bool keep_stats)
{
	struct profiler *p = ctx;

	__atomic_store_n(&p->skel->bss->calibrating, 0, __ATOMIC_SEQ_CST);
	if (!keep_stats)
		unwinder__disable_stats(p->unw);
}

struct profiler *profiler__new(const struct profiler_opts *opts)
{
	struct profiler *p;
	int err;

	libbpf_set_print(libbpf_print);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = opts->pid;
	p->perf_fd = p->perf_link_fd = p->iter_link_fd = -1;
	p->ledger = !opts->no_ledger;
	p->exits = calloc(MUXBPF_MAX_PHASES, sizeof(*p->exits));
	err = p->exits ? load(p, opts) : -ENOMEM;
	if (!err)
		err = attach_runtime(p);
	p->floor_ns = -1;
	if (!err && p->ledger)
		err = measure_floor(p);
	if (!err && p->ledger)
		seed_ledger(p);
	/*
	 * Run-time statistics cost two clock reads per program run (74 ns per run measured here,
	 * bench/stats_cost), for every process's early exits too: on for the calibration window
	 * only (calib.h), unless asked for all through the run or not at all.  After the floor:
	 * it is measured without them.
	 */
	if (!err && !opts->no_stats) {
		p->stats = !unwinder__enable_stats(p->unw);
		if (!p->stats)
			pr_verbose("no BPF run-time statistics: %s", strerror(errno));
	}
	if (!err)
		err = attach_sampler(p, opts);
	if (!err && !opts->fixed_period)
		err = start_jitter(p, opts);
	if (!err && p->stats) {
		struct calib_ops ops = { .read = calib_read_cb, .end = calib_end_cb, .ctx = p };

		__atomic_store_n(&p->skel->bss->calibrating, 1, __ATOMIC_SEQ_CST);
		p->calib = calib__start(&ops, opts->bpf_stats, p->floor_ns);
		if (!p->calib) {
			pr_verbose("no calibration window: %s", strerror(errno));
			/* as the window's end would: the statistics cost every run from here on */
			calib_end_cb(p, opts->bpf_stats);
		}
	}
	if (err) {
		profiler__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

void profiler__set_phase(struct profiler *p, unsigned int phase)
{
	/* The .bss is mmapped: the store is visible to the next sample on any CPU. */
	__atomic_store_n(&p->skel->bss->phase, phase, __ATOMIC_SEQ_CST);
	exit_lines_book(p);
	/* the ledger's phase and boundary in one store (bpf/ledger.bpf.c, at_boundary()) */
	p->prev_phase = (uint32_t)p->skel->bss->phase_epoch;
	p->epoch++;
	__atomic_store_n(&p->skel->bss->phase_epoch, (uint64_t)p->epoch << 32 | phase,
			 __ATOMIC_SEQ_CST);
}

uint32_t profiler__epoch(const struct profiler *p)
{
	return p->epoch;
}

void profiler__pause(struct profiler *p)
{
	/* on an inherited event the ioctl reaches every child event too */
	if (p->perf_fd >= 0)
		ioctl(p->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; i < p->nthreads; i++)
		ioctl(p->thread_fds[2 * i], PERF_EVENT_IOC_DISABLE, 0);
}

unsigned int profiler__phase(const struct profiler *p)
{
	return __atomic_load_n(&p->skel->bss->phase, __ATOMIC_SEQ_CST);
}

unsigned int profiler__prev_phase(const struct profiler *p)
{
	return p->prev_phase;
}

void profiler__period_stats(struct profiler *p, struct mb_profile *out)
{
	struct jitter_stats js;

	jitter__stats(p->jitter, &js);
	out->period_redraws = js.redraws;
	out->period_failed = js.failed;
	out->period_err = js.err;
	memcpy(out->spacing, (const void *)p->skel->bss->sample_spacing, sizeof(out->spacing));
}

int profiler__sampler_fd(const struct profiler *p)
{
	return p->perf_fd;
}

struct calib *profiler__calib(struct profiler *p)
{
	return p->calib;
}

void profiler__free(struct profiler *p)
{
	if (!p)
		return;
	calib__free(p->calib);
	if (p->jitter) {
		struct jitter_stats js;

		jitter__stats(p->jitter, &js);
		pr_verbose("sampling period re-drawn %llu times, %llu refused%s%s, %.1f us from sample "
			   "to redraw", (unsigned long long)js.redraws,
			   (unsigned long long)js.failed, js.failed ? ": " : "",
			   js.failed ? strerror(js.err) : "", js.lost_ns / 1e3);
	}
	if (p->skel && log_level >= 1) {
		char buf[MUXBPF_SPACING_BUCKETS * 21], *b = buf;

		for (int i = 0; i < MUXBPF_SPACING_BUCKETS; i++)
			b += sprintf(b, " %llu", (unsigned long long)p->skel->bss->sample_spacing[i]);
		pr_verbose("sample spacing of one thread in twentieths of the mean period (0, 1, ..., "
			   "40 and up):%s", buf);
	}
	jitter__free(p->jitter);
	if (p->perf_link_fd >= 0)
		close(p->perf_link_fd);
	if (p->perf_fd >= 0)
		close(p->perf_fd);
	for (int i = 0; i < 2 * p->nthreads; i++)
		close(p->thread_fds[2 * p->nthreads - 1 - i]);
	free(p->thread_fds);
	free(p->thread_tids);
	free(p->exits);
	for (int i = 0; i < p->nnoclone; i++)
		close(p->noclone_fds[i]);
	free(p->noclone_fds);
	for (size_t i = 0; i < LEDGER_NPROGS; i++)
		bpf_link__destroy(p->ledger_links[i]);
	bpf_link__destroy(p->iter_link);
	bpf_link__destroy(p->exit_switch_link);
	bpf_link__destroy(p->exit_link);
	unwinder__free(p->unw);
	muxbpf_bpf__destroy(p->skel);
	free(p);
}

bool profiler__has_ledger(const struct profiler *p)
{
	return p->ledger;
}

void profiler__syscall_hook(const struct profiler *p, struct syscall_hook_info *out)
{
	*out = p->hook;
	out->bystander_ns = p->floor_ns;
}

struct muxbpf_bpf *profiler__skel(struct profiler *p)
{
	return p->skel;
}

struct unwinder *profiler__unwinder(struct profiler *p)
{
	return p->unw;
}

int profiler__sampler_threads(const struct profiler *p)
{
	return p->nthreads;
}

int profiler__iter_fd(struct profiler *p)
{
	return p->iter_link_fd;
}
