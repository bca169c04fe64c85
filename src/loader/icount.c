// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Instructions retired by netmux in a block: a hardware counter or callgrind (icount.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "loader/icount.h"
#include "base/log.h"

#define CONTROL_TIMEOUT_MS 60000

struct icount {
	enum icount_source src;
	pid_t pid;
	int fd;          /* pmu: the counter */
	double start;    /* pmu: the value at the block's start */
	char *dir;       /* callgrind: the game directory (the dumps land there) */
	char *user;      /* callgrind: who runs callgrind_control, NULL: us */
	int ndumps;
};

static const char *const source_names[] = { "auto", "pmu", "callgrind" };

const char *icount_source_name(enum icount_source s)
{
	return (unsigned int)s < 3 ? source_names[s] : "?";
}

int icount_source_parse(const char *s, enum icount_source *out)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, source_names[i])) {
			*out = (enum icount_source)i;
			return 0;
		}
	return -EINVAL;
}

int icount_choose(enum icount_source forced, int pmu_err, bool callgrind,
		  enum icount_source *out, char *why, size_t whysz)
{
	if (forced == ICOUNT_PMU || (forced == ICOUNT_AUTO && !pmu_err)) {
		if (pmu_err) {
			snprintf(why, whysz, "no user-mode instructions counter: perf_event_open: %s",
				 strerror(pmu_err));
			return -ENOTSUP;
		}
		*out = ICOUNT_PMU;
		snprintf(why, whysz, "%s", forced == ICOUNT_PMU
			 ? "a hardware instructions counter, as asked"
			 : "a hardware instructions counter (user mode, inherited by netmux's "
			   "threads)");
		return 0;
	}
	if (!callgrind) {
		if (forced == ICOUNT_CALLGRIND)
			snprintf(why, whysz, "valgrind or callgrind_control not found in PATH");
		else
			snprintf(why, whysz, "no hardware instructions counter (perf_event_open: %s) "
				 "and no valgrind/callgrind_control in PATH",
				 strerror(pmu_err));
		return -ENOTSUP;
	}
	*out = ICOUNT_CALLGRIND;
	if (forced == ICOUNT_CALLGRIND)
		snprintf(why, whysz, "callgrind, as asked");
	else
		snprintf(why, whysz, "callgrind: this machine has no hardware instructions counter "
			 "(perf_event_open: %s)", strerror(pmu_err));
	return 0;
}

static void counter_attr(struct perf_event_attr *a, bool paused_child)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_INSTRUCTIONS;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->inherit = 1; /* netmux's threads and children, counted into this one event */
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (paused_child) {
		a->disabled = 1;
		a->enable_on_exec = 1;
	}
}

/* The path of name in PATH into buf, or false. */
static bool in_path(const char *name, char *buf, size_t n)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, n, "%.*s/%s", (int)len, path, name);
		if (len && !access(buf, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

int icount_probe(enum icount_source forced, enum icount_source *out, char *why, size_t whysz)
{
	struct perf_event_attr a;
	char buf[4096];
	bool cg;
	int fd, pmu_err = 0;

	counter_attr(&a, false);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		pmu_err = errno;
	else
		close(fd);
	cg = in_path("valgrind", buf, sizeof(buf)) && in_path("callgrind_control", buf,
							       sizeof(buf));
	return icount_choose(forced, pmu_err, cg, out, why, whysz);
}

double icount_scale(uint64_t raw, uint64_t enabled, uint64_t running)
{
	if (!running || running >= enabled)
		return (double)raw;
	return (double)raw * ((double)enabled / (double)running);
}

const char *const *icount_callgrind_wrap(void)
{
	static char valgrind[4096];
	/* the dumps go to callgrind.out.N in netmux's working directory (the game's); one line
	 * per function is all the reader needs */
	static const char *argv[] = { valgrind,
				      "--tool=callgrind",
				      "-q",
				      "--callgrind-out-file=callgrind.out",
				      "--dump-line=no",
				      NULL };

	if (!valgrind[0] && !in_path("valgrind", valgrind, sizeof(valgrind))) {
		valgrind[0] = 0;
		return NULL;
	}
	return argv;
}

struct icount *icount__new(enum icount_source src, pid_t pid, const char *game_dir,
			   const char *user)
{
	struct icount *c = calloc(1, sizeof(*c));
	struct perf_event_attr a;

	if (!c)
		return NULL;
	c->src = src;
	c->pid = pid;
	c->fd = -1;
	if (src == ICOUNT_PMU) {
		counter_attr(&a, true);
		c->fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (c->fd < 0) {
			int err = errno;

			pr_err("failed to open an instructions counter on pid %d: %s", (int)pid,
			       strerror(err));
			free(c);
			errno = err;
			return NULL;
		}
		return c;
	}
	c->dir = strdup(game_dir);
	c->user = user ? strdup(user) : NULL;
	if (!c->dir || (user && !c->user)) {
		icount__free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

static int pmu_read(struct icount *c, double *v)
{
	uint64_t buf[3];

	if (read(c->fd, buf, sizeof(buf)) != sizeof(buf)) {
		int err = errno ? errno : EIO;

		pr_err("failed to read the instructions counter of pid %d: %s", (int)c->pid,
		       strerror(err));
		return -err;
	}
	*v = icount_scale(buf[0], buf[1], buf[2]);
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* callgrind_control CMD PID, as the netmux user; its output kept for an error message. */
static int control(struct icount *c, const char *cmd)
{
	char pidbuf[16], out[512] = "";
	int pfd[2], status = 0, waited = 0;
	ssize_t n, got = 0;
	pid_t child;

	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)c->pid);
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	child = fork();
	if (child < 0) {
		int err = errno;

		close(pfd[0]);
		close(pfd[1]);
		return -err;
	}
	if (!child) {
		struct passwd *pw = c->user ? getpwnam(c->user) : NULL;

		if (c->user && (!pw || setgroups(0, NULL) || setgid(pw->pw_gid) ||
				setuid(pw->pw_uid)))
			_exit(126);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execlp("callgrind_control", "callgrind_control", cmd, pidbuf, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		n = read(pfd[0], out + got, sizeof(out) - 1 - got);
		if (n > 0) {
			got += n;
			if ((size_t)got >= sizeof(out) - 1)
				got = 0; /* keep the tail's last part only */
		}
		if (waitpid(child, &status, WNOHANG) == child)
			break;
		if (waited >= CONTROL_TIMEOUT_MS) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			close(pfd[0]);
			pr_err("callgrind_control %s %d did not answer in %d s", cmd, (int)c->pid,
			       CONTROL_TIMEOUT_MS / 1000);
			return -ETIMEDOUT;
		}
		sleep_ms(5);
		waited += 5;
	}
	while ((n = read(pfd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += n;
	close(pfd[0]);
	out[got > 0 ? got : 0] = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !strstr(out, "OK")) {
		char *nl;

		while ((nl = strchr(out, '\n')) && nl[1])
			*nl = ' ';
		if ((nl = strchr(out, '\n')))
			*nl = 0;
		pr_err("callgrind_control %s %d failed%s%s", cmd, (int)c->pid, out[0] ? ": " : "",
		       out);
		return -EIO;
	}
	return 0;
}

int icount__begin(struct icount *c)
{
	if (c->src == ICOUNT_PMU)
		return pmu_read(c, &c->start);
	return control(c, "-z");
}

static int read_dump(struct icount *c, double *instructions, struct cg_profile *fns)
{
	struct cg_profile p;
	char path[4096], err[256];
	struct stat st;
	char *text = NULL;
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/callgrind.out.%d", c->dir, c->ndumps);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		e = -errno;
		pr_err("failed to read callgrind's dump %s: %s", path, strerror(-e));
		if (fd >= 0)
			close(fd);
		return e;
	}
	text = malloc(st.st_size ? st.st_size : 1);
	if (!text)
		e = -ENOMEM;
	for (off_t got = 0; !e && got < st.st_size;) {
		ssize_t n = read(fd, text + got, st.st_size - got);

		if (n <= 0)
			e = n < 0 ? -errno : -EIO;
		else
			got += n;
	}
	close(fd);
	if (!e) {
		e = cg_parse(text, st.st_size, "Ir", &p, err, sizeof(err));
		if (e)
			pr_err("callgrind's dump %s: %s", path, err);
	}
	free(text);
	unlink(path);
	if (e)
		return e;
	*instructions = (double)p.total;
	if (fns)
		*fns = p;
	else
		cg_profile_free(&p);
	return 0;
}

int icount__end(struct icount *c, double *instructions, struct cg_profile *fns)
{
	double v;
	int err;

	if (fns)
		memset(fns, 0, sizeof(*fns));
	if (c->src == ICOUNT_PMU) {
		err = pmu_read(c, &v);
		if (!err)
			*instructions = v - c->start;
		return err;
	}
	err = control(c, "-d");
	if (err)
		return err;
	c->ndumps++;
	return read_dump(c, instructions, fns);
}

void icount__free(struct icount *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->dir);
	free(c->user);
	free(c);
}
