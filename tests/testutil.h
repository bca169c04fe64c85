/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers shared by the cmocka suites.  Include after <cmocka.h>.
 *
 * A suite skips only through skip_because() (and its forms skip_unless_bpf(), need_netmux()):
 * the reason on stderr, then cmocka's skip; under MUXBPF_REQUIRE_BPF (CI and the kernel matrix's
 * guests set it) a failure instead, since a skip there would hide checks that did not run.  The
 * one exception is skip_in_tcg_guest(), for a test whose truth the emulated vCPUs of a TCG guest
 * break.  scripts/check-skips.sh keeps bare skip() out of the suites.
 */
#ifndef MUXBPF_TESTUTIL_H
#define MUXBPF_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define skip_because(...)                                                                          \
	do {                                                                                       \
		char why__[512];                                                                   \
                                                                                                   \
		snprintf(why__, sizeof(why__), __VA_ARGS__);                                       \
		if (getenv("MUXBPF_REQUIRE_BPF"))                                                  \
			fail_msg("cannot run (%s) and MUXBPF_REQUIRE_BPF is set", why__);          \
		fprintf(stderr, "skip: %s\n", why__);                                             \
		skip();                                                                            \
	} while (0)

/* In a TCG guest (tests/kernels/guest.sh sets MUXBPF_GUEST_TCG), skip whatever MUXBPF_REQUIRE_BPF
 * says: the guest's log names the test and why. */
#define skip_in_tcg_guest(why)                                                                     \
	do {                                                                                       \
		if (getenv("MUXBPF_GUEST_TCG")) {                                                  \
			fprintf(stderr, "skip: not run in a TCG guest: %s\n", why);               \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

static inline const char *bpf_unavailable_reason(void)
{
	if (geteuid() != 0)
		return "not root";
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return "no /sys/kernel/btf/vmlinux";
	return NULL;
}

#define skip_unless_bpf()                                                                          \
	do {                                                                                       \
		const char *bpf_why__ = bpf_unavailable_reason();                                  \
		if (bpf_why__)                                                                     \
			skip_because("needs root and BPF (%s)", bpf_why__);                        \
	} while (0)

/* The default target (make netmux) and its game template, or skip_because(). */
#define need_netmux()                                                                              \
	do {                                                                                       \
		if (access(MUXBPF_DEFAULT_NETMUX, X_OK) != 0 ||                                    \
		    access(MUXBPF_DEFAULT_TEMPLATE "/data/netmux.db", R_OK) != 0)                   \
			skip_because("%s or %s/data/netmux.db missing (make netmux)",              \
				     MUXBPF_DEFAULT_NETMUX, MUXBPF_DEFAULT_TEMPLATE);              \
	} while (0)

#endif /* MUXBPF_TESTUTIL_H */
