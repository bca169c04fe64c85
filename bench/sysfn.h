// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The per-syscall functions (__x64_sys_NAME; __arm64_sys_NAME on arm64) a benchmark can hook
 * where the dispatcher x64_sys_call cannot be traced (6.15+): their addresses for kprobe.multi
 * and a BTF name for fentry.
 *
 * Two traps, both seen in Debian's 6.17: a syscall without arguments (SYSCALL_DEFINE0:
 * geteuid, getppid, ...) has __x64_sys_NAME as an alias of __do_sys_NAME, and BTF and
 * available_filter_functions name only one of the aliases (__do_sys_NAME); so the function is
 * matched by address over every kallsyms name there, not by its __x64_sys_ name.
 */
#ifndef MUXBPF_BENCH_SYSFN_H
#define MUXBPF_BENCH_SYSFN_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <bpf/btf.h>

#ifdef __aarch64__
#define SYSFN_PREFIX "__arm64_sys_"
#else
#define SYSFN_PREFIX "__x64_sys_"
#endif

struct sysfn {
	unsigned long addr;
	char name[64]; /* SYSFN_PREFIX NAME */
	char btf[64];  /* a BTF function at the same address, for fentry; "" if none */
};

struct ksym {
	unsigned long addr;
	char *name;
};

static inline int sysfn_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline int sysfn_cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Lines of FILE cut at the first space or newline into a grown array; their count or -1. */
static inline int sysfn_read_words(FILE *f, char ***out)
{
	char line[512], **v = NULL, **nv;
	int n = 0, cap = 0;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \n")] = 0;
		if (n == cap) {
			if (!(nv = realloc(v, (cap ? 2 * cap : 4096) * sizeof(*v))))
				break;
			v = nv;
			cap = cap ? 2 * cap : 4096;
		}
		if (!(v[n] = strdup(line)))
			break;
		n++;
	}
	*out = v;
	return n;
}

/* available_filter_functions's names, sorted (tracefs mounted where it is not); or -1, errno. */
static inline int sysfn_traceable(char ***names)
{
	const char *const where[] = { "/sys/kernel/tracing/available_filter_functions",
				      "/sys/kernel/debug/tracing/available_filter_functions" };
	FILE *f = NULL;
	int err = ENOENT, n;

	for (int i = 0; i < 2 && !f; i++)
		if (!(f = fopen(where[i], "r")) && errno != ENOENT)
			err = errno;
	if (!f && err == ENOENT && mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		f = fopen(where[0], "r");
	if (!f) {
		errno = err;
		return -1;
	}
	n = sysfn_read_words(f, names);
	fclose(f);
	qsort(*names, n, sizeof(**names), sysfn_cmp_str);
	return n;
}

/* The text symbols of /proc/kallsyms sorted by address; their count or -1 (errno). */
static inline int sysfn_kallsyms(struct ksym **out)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct ksym *v = NULL, *nv;
	char type, name[256];
	unsigned long addr;
	int n = 0, cap = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, name) == 3) {
		if (type != 't' && type != 'T')
			continue;
		if (n == cap) {
			if (!(nv = realloc(v, (cap ? 2 * cap : 4096) * sizeof(*v))))
				break;
			v = nv;
			cap = cap ? 2 * cap : 4096;
		}
		if (!(v[n].name = strdup(name)))
			break;
		v[n++].addr = addr;
	}
	fclose(f);
	qsort(v, n, sizeof(*v), sysfn_cmp_ksym);
	*out = v;
	return n;
}

/*
 * Every SYSFN_PREFIX function ftrace can hook (one of the names at its address is in
 * available_filter_functions), one per address, into *OUT (free it); their count, or -1 with
 * errno set (tracefs refused, no kallsyms).  The addresses need root (kptr_restrict).
 */
static inline int sysfn_list(struct sysfn **out)
{
	char **traceable = NULL;
	struct ksym *ks = NULL;
	struct btf *vm = btf__load_vmlinux_btf();
	struct sysfn *v = NULL;
	int nt = sysfn_traceable(&traceable), nk = nt < 0 ? -1 : sysfn_kallsyms(&ks), n = 0, err;

	err = nt < 0 || nk < 0 ? errno : 0;
	if (!err && !(v = calloc(nk ? nk : 1, sizeof(*v))))
		err = ENOMEM;
	for (int i = 0; !err && i < nk; i++) {
		int lo = i, hi = i, hooked = 0;

		if (strncmp(ks[i].name, SYSFN_PREFIX, strlen(SYSFN_PREFIX)) || !ks[i].addr ||
		    (n && v[n - 1].addr == ks[i].addr))
			continue;
		while (lo > 0 && ks[lo - 1].addr == ks[i].addr)
			lo--;
		while (hi + 1 < nk && ks[hi + 1].addr == ks[i].addr)
			hi++;
		v[n].btf[0] = 0;
		for (int j = lo; j <= hi; j++) {
			hooked |= !!bsearch(&ks[j].name, traceable, nt, sizeof(*traceable),
					    sysfn_cmp_str);
			if (!v[n].btf[0] && vm &&
			    btf__find_by_name_kind(vm, ks[j].name, BTF_KIND_FUNC) > 0)
				snprintf(v[n].btf, sizeof(v[n].btf), "%s", ks[j].name);
		}
		if (!hooked)
			continue;
		v[n].addr = ks[i].addr;
		snprintf(v[n].name, sizeof(v[n].name), "%s", ks[i].name);
		n++;
	}
	for (int i = 0; i < nt; i++)
		free(traceable[i]);
	for (int i = 0; i < nk; i++)
		free(ks[i].name);
	free(traceable);
	free(ks);
	btf__free(vm);
	if (err) {
		free(v);
		errno = err;
		return -1;
	}
	*out = v;
	return n;
}

/* The entry of SYSFN_PREFIX NAME in V, or NULL. */
static inline const struct sysfn *sysfn_find(const struct sysfn *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(v[i].name, SYSFN_PREFIX, strlen(SYSFN_PREFIX)) &&
		    !strcmp(v[i].name + strlen(SYSFN_PREFIX), name))
			return &v[i];
	return NULL;
}

#endif
