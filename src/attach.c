// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Load the skeleton and attach it to one target.  The sampler is a per-task cpu-clock event
 * (pid = target, cpu = -1, inherit) so it costs nothing while the target sleeps and follows the
 * threads and children created after it is opened; exclude_kernel keeps samples user-only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "log.h"
#include "muxbpf.h"
#include "muxbpf.skel.h"
#include "unwind.h"

struct profiler {
	struct muxbpf_bpf *skel;
	pid_t pid;
	int perf_fd;
	int perf_link_fd;
	struct bpf_link *exit_link;
	struct bpf_link *iter_link;
	int iter_link_fd;
	struct unwinder *unw;
	struct bpf_link *ledger_links[8];
	bool ledger;
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && log_level < 2)
		return 0;
	if (level == LIBBPF_INFO && log_level < 1)
		return 0;
	return vfprintf(stderr, fmt, args);
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
 * Link the sampler program to the event ourselves: libbpf 1.1's attach_perf_event always issues
 * PERF_EVENT_IOC_ENABLE, which would defeat enable_on_exec and sample the pre-exec child.
 */
static int attach_sampler(struct profiler *p, const struct attach_opts *opts)
{
	int prog_fd = bpf_program__fd(p->skel->progs.mb_sample);

	p->perf_fd = open_sampler(opts->pid, opts->freq, opts->enable_on_exec);
	if (p->perf_fd < 0) {
		pr_err("failed to open cpu-clock sampler on pid %d: %s", opts->pid,
		       strerror(-p->perf_fd));
		return p->perf_fd;
	}
	p->perf_link_fd = bpf_link_create(prog_fd, p->perf_fd, BPF_PERF_EVENT, NULL);
	if (p->perf_link_fd < 0) {
		pr_err("failed to attach sampler to pid %d: %s", opts->pid, strerror(errno));
		return -errno;
	}
	if (!opts->enable_on_exec && ioctl(p->perf_fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		pr_err("failed to enable sampler on pid %d: %s", opts->pid, strerror(errno));
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

/* The ledger's tracepoints: they see every process, and filter on the target first. */
static int attach_ledger(struct profiler *p)
{
	struct bpf_program *progs[] = {
		p->skel->progs.mb_sys_enter,	 p->skel->progs.mb_sys_exit,
		p->skel->progs.mb_sched_switch,	 p->skel->progs.mb_sched_wakeup,
		p->skel->progs.mb_hrtimer_entry, p->skel->progs.mb_hrtimer_exit,
		p->skel->progs.mb_softirq_entry, p->skel->progs.mb_softirq_exit,
	};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		p->ledger_links[i] = bpf_program__attach(progs[i]);
		if (!p->ledger_links[i]) {
			pr_err("failed to attach %s: %s", bpf_program__name(progs[i]),
			       strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* Leave the ledger's programs unloaded when it is off. */
static void disable_ledger(struct muxbpf_bpf *skel)
{
	bpf_program__set_autoload(skel->progs.mb_sys_enter, false);
	bpf_program__set_autoload(skel->progs.mb_sys_exit, false);
	bpf_program__set_autoload(skel->progs.mb_sched_switch, false);
	bpf_program__set_autoload(skel->progs.mb_sched_wakeup, false);
	bpf_program__set_autoload(skel->progs.mb_hrtimer_entry, false);
	bpf_program__set_autoload(skel->progs.mb_hrtimer_exit, false);
	bpf_program__set_autoload(skel->progs.mb_softirq_entry, false);
	bpf_program__set_autoload(skel->progs.mb_softirq_exit, false);
}

/*
 * The unwinder's maps, sized from the data: the CFI of the target and its libraries is compiled
 * before load, the stack buckets follow max_stacks.
 */
static int setup_unwind(struct profiler *p, const struct attach_opts *opts)
{
	struct bpf_map *buckets[MUXBPF_STACK_BUCKETS] = {
		p->skel->maps.ustacks_16, p->skel->maps.ustacks_32, p->skel->maps.ustacks_64,
		p->skel->maps.ustacks_127 };
	uint32_t rows, infos;

	p->unw = unwinder__new(opts->unwind);
	if (!p->unw)
		return -ENOMEM;
	/* Run-time statistics cost two clock reads per program run: worth the ns/sample figure. */
	if (unwinder__enable_stats(p->unw))
		pr_verbose("no BPF run-time statistics: %s", strerror(errno));
	if (opts->exe && opts->unwind != MUXBPF_UNWIND_FP && unwinder__prepare(p->unw, opts->exe))
		pr_warn("cannot read %s: its unwind tables will be built when it runs", opts->exe);
	unwinder__capacity(p->unw, &rows, &infos);
	p->skel->rodata->unwind_mode = opts->unwind;
	bpf_map__set_max_entries(p->skel->maps.unwind_rows, rows);
	bpf_map__set_max_entries(p->skel->maps.unwind_infos, infos);
	for (int b = 0; b < MUXBPF_STACK_BUCKETS && opts->max_stacks; b++)
		bpf_map__set_max_entries(buckets[b], opts->max_stacks);
	return 0;
}

static int start_unwind(struct profiler *p)
{
	struct unwinder_maps m = {
		.rows_fd = bpf_map__fd(p->skel->maps.unwind_rows),
		.infos_fd = bpf_map__fd(p->skel->maps.unwind_infos),
		.pids_fd = bpf_map__fd(p->skel->maps.unwind_pids),
		.procs_fd = bpf_map__fd(p->skel->maps.unwind_procs),
		.reqs_fd = bpf_map__fd(p->skel->maps.unwind_reqs),
	};

	return unwinder__start(p->unw, &m, bpf_map__max_entries(p->skel->maps.unwind_rows),
			       bpf_map__max_entries(p->skel->maps.unwind_infos));
}

static int load(struct profiler *p, const struct attach_opts *opts)
{
	int err;

	p->skel = muxbpf_bpf__open();
	if (!p->skel) {
		err = -errno;
		pr_err("failed to open BPF skeleton: %s", strerror(-err));
		return err;
	}
	p->skel->rodata->targ_tgid = opts->pid;
	if (opts->no_ledger)
		disable_ledger(p->skel);
	err = setup_unwind(p, opts);
	if (err)
		return err;
	if (opts->max_samples)
		bpf_map__set_max_entries(p->skel->maps.samples, opts->max_samples);
	err = muxbpf_bpf__load(p->skel);
	if (err) {
		pr_err("failed to load BPF programs: %s (run with -vv for the verifier log)",
		       strerror(-err));
		return err;
	}
	return start_unwind(p);
}

struct profiler *profiler__new(const struct attach_opts *opts)
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
	err = load(p, opts);
	if (!err)
		err = attach_runtime(p);
	if (!err && p->ledger)
		err = attach_ledger(p);
	if (!err)
		err = attach_sampler(p, opts);
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
}

unsigned int profiler__phase(const struct profiler *p)
{
	return __atomic_load_n(&p->skel->bss->phase, __ATOMIC_SEQ_CST);
}

void profiler__free(struct profiler *p)
{
	if (!p)
		return;
	if (p->perf_link_fd >= 0)
		close(p->perf_link_fd);
	if (p->perf_fd >= 0)
		close(p->perf_fd);
	for (size_t i = 0; i < sizeof(p->ledger_links) / sizeof(p->ledger_links[0]); i++)
		bpf_link__destroy(p->ledger_links[i]);
	bpf_link__destroy(p->iter_link);
	bpf_link__destroy(p->exit_link);
	unwinder__free(p->unw);
	muxbpf_bpf__destroy(p->skel);
	free(p);
}

bool profiler__has_ledger(const struct profiler *p)
{
	return p->ledger;
}

struct muxbpf_bpf *profiler__skel(struct profiler *p)
{
	return p->skel;
}

struct unwinder *profiler__unwinder(struct profiler *p)
{
	return p->unw;
}

int profiler__iter_fd(struct profiler *p)
{
	return p->iter_link_fd;
}

pid_t profiler__pid(const struct profiler *p)
{
	return p->pid;
}
