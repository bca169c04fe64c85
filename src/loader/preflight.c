// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Privileges and kernel features, checked up front with one clear line each. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "base/log.h"
#include "loader/preflight.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const struct {
	int cap;
	const char *name;
} needed[] = { { CAP_BPF, "CAP_BPF" }, { CAP_PERFMON, "CAP_PERFMON" } };

unsigned int preflight_missing_caps(uint64_t eff)
{
	unsigned int missing = 0;

	for (unsigned int i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!(eff & (1ull << needed[i].cap)))
			missing |= 1u << i;
	return missing;
}

const char *preflight_caps_str(unsigned int missing, char *buf, unsigned long size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < sizeof(needed) / sizeof(needed[0]) && len < size; i++)
		if (missing & (1u << i))
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					needed[i].name);
	return buf;
}

static int effective_caps(uint64_t *eff)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	*eff = (uint64_t)data[1].effective << 32 | data[0].effective;
	return 0;
}

/* First line of a small /proc or /sys file, trimmed; "" when unreadable. */
static const char *read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The needed capabilities this process lacks, as a string ("" when none or unknown). */
static const char *missing_now(char *buf, size_t size)
{
	uint64_t eff;

	buf[0] = '\0';
	if (!effective_caps(&eff))
		preflight_caps_str(preflight_missing_caps(eff), buf, size);
	return buf;
}

/* Does vmlinux's BTF have enum ENUM_NAME's member NAME, or struct STRUCT_NAME's member NAME? */
static bool btf_has_member(const struct btf *btf, const char *type, int kind, const char *name)
{
	int id = btf__find_by_name_kind(btf, type, kind);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++) {
		__u32 off = kind == BTF_KIND_ENUM ? btf_enum(t)[i].name_off : btf_members(t)[i].name_off;

		if (!strcmp(btf__name_by_offset(btf, off), name))
			return true;
	}
	return false;
}

/*
 * What the programs need of the kernel beyond BTF, from its own BTF (the UAPI enum of helpers,
 * the iterator's link info): bpf_loop for the CFI walker and the task iterator scoped to one
 * process for the exact runtime.  Without them the load fails with a bare E2BIG or EINVAL (as on
 * Debian 11's 5.10), so name them first, with the version that has them.
 */
static int preflight_features(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	const char *missing = NULL;
	struct utsname un = {};

	if (!vmlinux)
		return 0; /* the load will say why */
	if (!btf_has_member(vmlinux, "bpf_func_id", BTF_KIND_ENUM, "BPF_FUNC_loop"))
		missing = "bpf_loop helper (Linux 5.17)";
	else if (!btf_has_member(vmlinux, "bpf_iter_link_info", BTF_KIND_UNION, "task"))
		missing = "task iterator scoped to one process (Linux 6.1)";
	btf__free(vmlinux);
	if (!missing)
		return 0;
	uname(&un);
	pr_err("this kernel (%s) has no %s: muxbpf needs Linux 6.1 or later", un.release, missing);
	return -EOPNOTSUPP;
}

int preflight_bpf(void)
{
	char names[64], lock[128];
	unsigned int missing;
	uint64_t eff = 0;
	int fd, err;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_err("this kernel has no BTF (/sys/kernel/btf/vmlinux: %s): muxbpf's CO-RE programs "
		       "need a kernel built with CONFIG_DEBUG_INFO_BTF=y", strerror(errno));
		return -ENOENT;
	}
	err = effective_caps(&eff);
	if (err) {
		pr_err("cannot read this process's capabilities: %s", strerror(-err));
		return err;
	}
	missing = preflight_missing_caps(eff);
	/* MUXBPF_SKIP_CAP_CHECK: let the kernel refuse instead (tests prove each one is needed) */
	if (missing && !getenv("MUXBPF_SKIP_CAP_CHECK")) {
		preflight_caps_str(missing, names, sizeof(names));
		if (geteuid() != 0)
			pr_err("not root and missing %s: run as root, or give the binary "
			       PREFLIGHT_CAPS " (setcap cap_bpf,cap_perfmon=ep muxbpf; see README)",
			       names);
		else
			pr_err("root but missing %s in the effective set (a container or capsh "
			       "dropped them): muxbpf needs " PREFLIGHT_CAPS, names);
		return -EPERM;
	}
	/* The syscall itself: compiled out, or refused whatever the capabilities (lockdown). */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mb_probe", 4, 4, 1, NULL);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOSYS)
			pr_err("BPF is not available: this kernel has no bpf() system call "
			       "(CONFIG_BPF_SYSCALL)");
		else if (err == -EPERM && *read_line("/sys/kernel/security/lockdown", lock,
						      sizeof(lock)) && !strstr(lock, "[none]"))
			pr_err("the kernel refused bpf(): Operation not permitted (kernel lockdown: "
			       "%s)", lock);
		else
			pr_err("the kernel refused bpf(): %s%s%s", strerror(-err),
			       *missing_now(lock, sizeof(lock)) ? ": missing " : "", lock);
		return err;
	}
	close(fd);
	return preflight_features();
}

void preflight_explain_perf(int err, int pid)
{
	char par[32];

	char caps[64];

	uint64_t eff = 0;

	read_line("/proc/sys/kernel/perf_event_paranoid", par, sizeof(par));
	/*
	 * Upstream, CAP_PERFMON overrides every level up to 2 (the highest).  Debian's kernels
	 * patch in level 3, their default, at which only CAP_SYS_ADMIN may open a perf event
	 * (measured on Debian's 6.1 and 6.12); lowering it to 2 keeps muxbpf at its two
	 * capabilities, so that is the advice.
	 */
	if ((err == -EACCES || err == -EPERM) && atoi(par) > 2 && !effective_caps(&eff) &&
	    !(eff & (1ull << CAP_SYS_ADMIN)) && !*missing_now(caps, sizeof(caps)))
		pr_err("perf_event_open refused for pid %d: %s (kernel.perf_event_paranoid = %s, "
		       "a distribution's level above 2 that CAP_PERFMON does not override: run "
		       "'sysctl kernel.perf_event_paranoid=2' as root, or run muxbpf as root)", pid,
		       strerror(-err), par);
	else if (err == -EACCES || err == -EPERM)
		pr_err("perf_event_open refused for pid %d: %s (kernel.perf_event_paranoid = %s%s%s; "
		       "CAP_PERFMON overrides it up to 2)", pid, strerror(-err), *par ? par : "?",
		       *missing_now(caps, sizeof(caps)) ? ", missing " : "", caps);
	else if (err == -ENOENT || err == -EOPNOTSUPP)
		pr_err("perf_event_open: this kernel has no cpu-clock software event: %s",
		       strerror(-err));
	else
		pr_err("failed to open cpu-clock sampler on pid %d: %s", pid, strerror(-err));
}

void preflight_explain_load(int err, const char *prog)
{
	char caps[64];
	struct rlimit rl;

	if ((err == -EPERM || err == -EACCES) && *missing_now(caps, sizeof(caps)))
		pr_err("failed to load BPF program %s: %s: missing %s", prog, strerror(-err), caps);
	else if ((err == -EPERM || err == -ENOMEM) && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY)
		pr_err("failed to load BPF program %s: %s; the locked-memory limit is %llu KiB "
		       "(ulimit -l) and this kernel may charge BPF maps to it: raise it "
		       "(ulimit -l unlimited, or CAP_SYS_RESOURCE)", prog, strerror(-err),
		       (unsigned long long)rl.rlim_cur / 1024);
	else
		pr_err("failed to load BPF program %s: %s (run with -v for libbpf's messages)",
		       prog, strerror(-err));
}

bool mapcount_supported(void)
{
	static int known = -1;
	struct btf *vmlinux;

	if (known >= 0)
		return known;
	vmlinux = btf__load_vmlinux_btf();
	known = vmlinux && btf__find_by_name_kind(vmlinux, "bpf_map_sum_elem_count",
						  BTF_KIND_FUNC) > 0;
	btf__free(vmlinux);
	return known;
}
