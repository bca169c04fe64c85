// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test-only LD_PRELOAD shim: an injected failure of the random sampling period.  muxbpf's
 * PERF_EVENT_IOC_PERIOD (src/jitter.c's redraws) fails with EINVAL and leaves the event alone;
 * every other ioctl, and every other process's, goes to libc.  tests/e2e/period.sh proves with
 * it that a refused redraw is counted and reported, and that its spacing check sees periods that
 * no longer vary.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>

int ioctl(int fd, unsigned long request, ...)
{
	static int (*real_ioctl)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == PERF_EVENT_IOC_PERIOD) {
		errno = EINVAL;
		return -1;
	}
	if (!real_ioctl)
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real_ioctl(fd, request, arg);
}
