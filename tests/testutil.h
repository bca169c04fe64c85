/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers shared by the cmocka suites.  Include after <cmocka.h>.
 *
 * Tests that need root and BPF call skip_unless_bpf(): without root (or BTF) they skip with a
 * message, unless MUXBPF_REQUIRE_BPF is set (CI sets it), where a skip would hide that the test
 * did not run, so it fails instead.
 */
#ifndef MUXBPF_TESTUTIL_H
#define MUXBPF_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
		const char *why__ = bpf_unavailable_reason();                                      \
		if (why__) {                                                                       \
			if (getenv("MUXBPF_REQUIRE_BPF"))                                          \
				fail_msg("needs root and BPF (%s) and MUXBPF_REQUIRE_BPF is set",  \
					 why__);                                                   \
			fprintf(stderr, "skip: needs root and BPF (%s)\n", why__);                 \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

/*
 * Is the default target (make netmux) there?  Without it, skip with a message, unless
 * MUXBPF_REQUIRE_BPF is set: then its absence is a failure.
 */
static inline bool have_netmux(void)
{
	if (access(MUXBPF_DEFAULT_NETMUX, X_OK) == 0 &&
	    access(MUXBPF_DEFAULT_TEMPLATE "/data/netmux.db", R_OK) == 0)
		return true;
	if (getenv("MUXBPF_REQUIRE_BPF"))
		fail_msg("%s or %s missing and MUXBPF_REQUIRE_BPF is set", MUXBPF_DEFAULT_NETMUX,
			 MUXBPF_DEFAULT_TEMPLATE);
	fprintf(stderr, "skip: %s not built (make netmux)\n", MUXBPF_DEFAULT_NETMUX);
	return false;
}

#endif /* MUXBPF_TESTUTIL_H */
