// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The netmux driver's socket half: epoll, pipelined chunks with sentinels, hooks around each
 * measured window.  What each command is and what it must answer is reply_check.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "base/clock.h"
#include "proc/drive.h"
#include "base/log.h"
#include "base/phases.h"

#define NIDLE 32
/* A refused idle login is tried again after 50 ms, doubling up to 2 s, 8 times in all. */
#define IDLE_RETRY_MS 50
#define IDLE_RETRY_MAX_MS 2000
#define IDLE_RETRIES 8

#define RBUF_SIZE (256 * 1024)
#define CMD_MAX 128

struct conn {
	int fd;
	char name[16];
	struct reply_check *rc;
	char *out;
	size_t out_len, out_off, out_cap;
	bool pollout; /* EPOLLOUT armed: output is waiting for room */
	bool closing; /* QUIT or @shutdown sent: EOF is expected */
	bool login;   /* an idle login in flight: EOF is a refusal, to retry */
	bool eof;
};

struct driver {
	struct drive_opts opts;
	int port;
	int epfd;
	struct conn wiz;
	struct conn idle[NIDLE];
	int nidle;
	unsigned int phase; /* what errors name */
	unsigned int tag;   /* sentinel counter */
	int nobj;	    /* perfobj objects created */
	bool attrs;	    /* their attributes written */
	bool players;	    /* the idle players created */
	double last_io;	    /* ms: last byte sent or received */
	uint64_t reads;	    /* read() calls that returned data, for the debug log */
	char version[256];
	char error[256];
	char *rbuf;
	const struct phase_hooks *hooks; /* of the window running (progress) */
};

/* What errors name: the phase, or the login / setup around it. */
static const char *stage(const struct driver *d)
{
	if (d->phase)
		return phase_name(d->phase);
	return d->version[0] ? "setup" : "login";
}

/* Record the first error of a run (later ones are consequences) and return err. */
static int drv_fail(struct driver *d, int err, const char *fmt, ...)
{
	va_list ap;

	if (!d->error[0]) {
		va_start(ap, fmt);
		vsnprintf(d->error, sizeof(d->error), fmt, ap);
		va_end(ap);
	}
	return err;
}

/* EOF or reset: fine after QUIT or @shutdown, else netmux died or dropped us. */
static int conn_closed(struct driver *d, struct conn *c)
{
	c->eof = true;
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	if (c->closing || c->login)
		return 0;
	return drv_fail(d, -ECONNRESET, "%s: netmux closed the %s connection (did it die?)",
			stage(d), c->name);
}

static int conn_events(struct driver *d, struct conn *c, bool out)
{
	struct epoll_event ev = { .events = EPOLLIN | (out ? EPOLLOUT : 0), .data.ptr = c };

	if (epoll_ctl(d->epfd, EPOLL_CTL_MOD, c->fd, &ev))
		return drv_fail(d, -errno, "epoll_ctl on the %s connection: %s", c->name,
				strerror(errno));
	c->pollout = out;
	return 0;
}

/* Write what the socket takes now; arm EPOLLOUT for the rest. */
static int conn_flush(struct driver *d, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return c->pollout ? 0 : conn_events(d, c, true);
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return conn_closed(d, c) ?: -ECONNRESET;
		if (n < 0)
			return drv_fail(d, -errno, "%s: sending to netmux on the %s connection: %s",
					stage(d), c->name, strerror(errno));
		c->out_off += n;
		d->last_io = mono_ms();
	}
	c->out_off = c->out_len = 0;
	return c->pollout ? conn_events(d, c, false) : 0;
}

static int conn_reserve(struct conn *c, size_t more)
{
	char *p;
	size_t cap;

	if (c->out_len + more <= c->out_cap)
		return 0;
	cap = (c->out_len + more) * 2;
	p = realloc(c->out, cap);
	if (!p)
		return -ENOMEM;
	c->out = p;
	c->out_cap = cap;
	return 0;
}

/* Queue text (command lines, CR LF ended) then `@pemit me=<sentinel>`, and register it. */
static int conn_send_text(struct driver *d, struct conn *c, const char *text, uint64_t first, int n,
			  const char *sentinel)
{
	size_t len = strlen(text);
	int err;

	err = reply_check__expect(c->rc, first, n, sentinel) ?: conn_reserve(c, len + 64);
	if (err)
		return drv_fail(d, err, "%s: cannot queue a chunk: %s", stage(d), strerror(-err));
	memcpy(c->out + c->out_len, text, len);
	c->out_len += len;
	c->out_len += sprintf(c->out + c->out_len, "@pemit me=%s\r\n", sentinel);
	return conn_flush(d, c);
}

static void next_sentinel(struct driver *d, char *buf)
{
	snprintf(buf, DRIVE_SENTINEL_LEN, "SENT%u", ++d->tag);
}

/* Setup text on c with a fresh sentinel; replies are checked as c's current phase wants. */
static int conn_send_raw(struct driver *d, struct conn *c, const char *text)
{
	char sentinel[DRIVE_SENTINEL_LEN];

	next_sentinel(d, sentinel);
	return conn_send_text(d, c, text, 0, 0, sentinel);
}

/* Commands first..first+n-1 of phase, then the sentinel (DUMPED after @dump). */
static int send_chunk(struct driver *d, unsigned int phase, uint64_t first, int n)
{
	struct conn *c = &d->wiz;
	char sentinel[DRIVE_SENTINEL_LEN];
	int err;

	if (phase == MUXBPF_PHASE_DUMP)
		snprintf(sentinel, sizeof(sentinel), "DUMPED");
	else
		next_sentinel(d, sentinel);
	err = reply_check__expect(c->rc, first, n, sentinel)
		      ?: conn_reserve(c, (size_t)n * (CMD_MAX + 2) + 64);
	if (err)
		return drv_fail(d, err, "%s: cannot queue a chunk: %s", phase_name(phase),
				strerror(-err));
	for (int k = 0; k < n; k++) {
		int w = driver_phase_command(phase, first + k, d->nobj, c->out + c->out_len,
					     CMD_MAX);

		if (w < 0 || w >= CMD_MAX)
			return drv_fail(d, -EINVAL, "%s: no command %llu", phase_name(phase),
					(unsigned long long)(first + k));
		memcpy(c->out + c->out_len + w, "\r\n", 2);
		c->out_len += w + 2;
	}
	c->out_len += sprintf(c->out + c->out_len, "@pemit me=%s\r\n", sentinel);
	return conn_flush(d, c);
}

/*
 * One read.  TCP_QUICKACK is re-armed first, every time: netmux 2.12 leaves Nagle on, so the
 * last reply of a chunk waits for our ACK, and a delayed ACK costs ~44 ms per chunk.
 */
static int conn_read(struct driver *d, struct conn *c)
{
	int one = 1;
	ssize_t n;

	setsockopt(c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
	n = read(c->fd, d->rbuf, RBUF_SIZE);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < 0 && errno != ECONNRESET)
		return drv_fail(d, -errno, "%s: reading the %s connection: %s", stage(d), c->name,
				strerror(errno));
	if (n <= 0)
		return conn_closed(d, c);
	d->last_io = mono_ms();
	d->reads++;
	if (reply_check__feed(c->rc, d->rbuf, n))
		return drv_fail(d, -EBADMSG, "%s", reply_check__error(c->rc));
	return 0;
}

/* Handle what epoll reports within wait_ms. */
static int pump(struct driver *d, int wait_ms)
{
	struct epoll_event ev[NIDLE + 2];
	int n, err = 0;

	n = epoll_wait(d->epfd, ev, NIDLE + 2, wait_ms);
	if (n < 0 && errno != EINTR)
		return drv_fail(d, -errno, "epoll_wait: %s", strerror(errno));
	for (int i = 0; i < n && !err; i++) {
		struct conn *c = ev[i].data.ptr;

		/* the stop fd and netmux's pidfd: a signal, or the server is gone */
		if (c == (void *)&d->opts.stop_fd)
			return drv_fail(d, -EINTR, "%s: interrupted", stage(d));
		if (c == (void *)&d->opts.pidfd)
			return drv_fail(d, -ECHILD, "%s: netmux exited", stage(d));

		if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
			err = conn_read(d, c);
		if (!err && !c->eof && (ev[i].events & EPOLLOUT))
			err = conn_flush(d, c);
	}
	return err;
}

typedef bool (*wait_fn)(const struct driver *d, int arg);

/* Pump until done(d, arg); fail when netmux has been silent for timeout_ms. */
static int wait_for(struct driver *d, wait_fn done, int arg)
{
	int err = 0;

	d->last_io = mono_ms();
	while (!err && !done(d, arg)) {
		double left = d->last_io + d->opts.timeout_ms - mono_ms();

		if (left <= 0)
			return drv_fail(d, -ETIMEDOUT,
					"%s: netmux sent nothing for %d ms (%llu replies checked)",
					stage(d), d->opts.timeout_ms,
					(unsigned long long)reply_check__replies(d->wiz.rc));
		err = pump(d, (int)left + 1);
	}
	return err;
}

static bool wiz_pending_le(const struct driver *d, int max)
{
	return reply_check__pending(d->wiz.rc) <= max;
}

static bool idle_closed(const struct driver *d, int arg)
{
	(void)arg;
	for (int i = 0; i < d->nidle; i++)
		if (!d->idle[i].eof)
			return false;
	return true;
}

static bool wiz_flushed(const struct driver *d, int arg)
{
	(void)arg;
	return d->wiz.out_len == 0;
}

/* Send setup text and a sentinel on the wizard's connection; wait for the sentinel. */
static int wiz_round_trip(struct driver *d, const char *text)
{
	int err = conn_send_raw(d, &d->wiz, text);

	return err ? err : wait_for(d, wiz_pending_le, 0);
}

/* Sentinel round trip on the wizard's connection, any output before it accepted. */
static int sync_wiz(struct driver *d)
{
	int err = reply_check__phase(d->wiz.rc, MUXBPF_PHASE_NONE, d->nobj);

	if (err)
		return drv_fail(d, err, "%s: replies still outstanding", stage(d));
	return wiz_round_trip(d, "");
}

/* Connect to netmux: non-blocking, Nagle off, watched by epoll. */
static int conn_open(struct driver *d, struct conn *c, const char *name)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(d->port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	int one = 1;

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->fd = -1;
	c->rc = reply_check__new();
	if (!c->rc)
		return drv_fail(d, -ENOMEM, "out of memory");
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    fcntl(c->fd, F_SETFL, O_NONBLOCK) ||
	    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    epoll_ctl(d->epfd, EPOLL_CTL_ADD, c->fd, &ev))
		return drv_fail(d, -errno, "cannot connect the %s session to 127.0.0.1:%d: %s",
				name, d->port, strerror(errno));
	return 0;
}

static void conn_close(struct driver *d, struct conn *c)
{
	if (!c->name[0]) /* never opened */
		return;
	if (c->fd >= 0) {
		if (!c->eof)
			epoll_ctl(d->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	reply_check__free(c->rc);
	free(c->out);
	memset(c, 0, sizeof(*c));
}

/* Commands of a window: attrwrite fills 12 attributes on every object create made. */
static uint64_t window_commands(const struct driver *d, unsigned int phase)
{
	if (phase == MUXBPF_PHASE_ATTRWRITE)
		return (uint64_t)d->nobj * DRIVE_ATTRS_PER_OBJ;
	return driver_phase_commands(phase, d->opts.scale);
}

/*
 * Send n commands of phase in chunks, each followed by a sentinel, keeping opts.inflight chunks
 * outstanding: with 2, netmux already has the next chunk when it answers a sentinel, so it never
 * waits for the client's round trip.  *sent counts the commands sent.
 */
static int run_commands(struct driver *d, unsigned int phase, uint64_t n, uint64_t *sent)
{
	int err = reply_check__phase(d->wiz.rc, phase, d->nobj);

	d->phase = phase;
	*sent = 0;
	while (!err && *sent < n) {
		int k = n - *sent < (uint64_t)d->opts.chunk ? (int)(n - *sent) : d->opts.chunk;

		err = send_chunk(d, phase, *sent, k);
		*sent += err ? 0 : k;
		if (!err)
			err = wait_for(d, wiz_pending_le, d->opts.inflight - 1);
		if (!err && d->hooks && d->hooks->progress) {
			int per = reply_check__per_command(d->wiz.rc);
			uint64_t done = per ? reply_check__replies(d->wiz.rc) / per : *sent;

			d->hooks->progress(d->hooks->ctx, phase, done < n ? done : n, n);
		}
	}
	err = err ?: wait_for(d, wiz_pending_le, 0);
	if (!err && d->hooks && d->hooks->progress)
		d->hooks->progress(d->hooks->ctx, phase, n, n);
	return err;
}

/* create or attrwrite outside any window, for a later phase that needs their objects. */
static int run_setup(struct driver *d, unsigned int phase)
{
	uint64_t sent;
	int err;

	err = run_commands(d, phase, window_commands(d, phase), &sent);
	if (err)
		return err;
	if (phase == MUXBPF_PHASE_CREATE)
		d->nobj = (int)sent;
	else
		d->attrs = true;
	return 0;
}

/* The reply of one look, recorded so that dispatch can check every look against it. */
static int record_look(struct driver *d)
{
	char *lines[DRIVE_MAX_KEPT];
	int n = 0, err;

	err = sync_wiz(d) ?: wiz_round_trip(d, "look\r\n");
	if (err)
		return err;
	while (n < DRIVE_MAX_KEPT && reply_check__line(d->wiz.rc, n)) {
		lines[n] = (char *)reply_check__line(d->wiz.rc, n);
		n++;
	}
	if (n == 0)
		return drv_fail(d, -EBADMSG, "dispatch: look gave no reply");
	err = reply_check__set_look(d->wiz.rc, lines, n);
	return err ? drv_fail(d, err, "out of memory") : 0;
}

/* @pcreate the idle players once per game. */
static int create_players(struct driver *d)
{
	char text[NIDLE * 48];
	size_t len = 0;
	int err;

	if (d->players)
		return 0;
	for (int i = 0; i < NIDLE; i++)
		len += snprintf(text + len, sizeof(text) - len, "@pcreate idle%d=idlepass\r\n", i);
	err = sync_wiz(d) ?: wiz_round_trip(d, text);
	d->players = !err;
	return err;
}

static bool idle_settled(const struct driver *d, int i)
{
	return d->idle[i].eof || !reply_check__pending(d->idle[i].rc);
}

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * Log idle player i in on a connection of its own, and wait until its sentinel proves the login
 * before the next one: so at most one connection of ours is ever unauthenticated.  Servers limit
 * those per address (TinyMUX 2.13+: max_preauth_sitecons, 2 by default, refusing the rest with
 * a line and a close); a connection closed before its sentinel is such a refusal (another
 * client from 127.0.0.1, or a stricter limit), retried after a pause that doubles.
 */
static int idle_login_one(struct driver *d, int i)
{
	struct conn *c = &d->idle[i];
	int pause = IDLE_RETRY_MS, err;
	char name[16], text[64];

	snprintf(name, sizeof(name), "idle%d", i);
	snprintf(text, sizeof(text), "connect %s idlepass\r\n", name);
	for (int attempt = 1;; attempt++) {
		err = conn_open(d, c, name);
		if (err)
			return err;
		c->login = true;
		err = conn_send_raw(d, c, text);
		err = err && !c->eof ? err : wait_for(d, idle_settled, i);
		if (err)
			return err;
		if (!c->eof) {
			c->login = false;
			return 0;
		}
		conn_close(d, c);
		if (attempt == IDLE_RETRIES)
			return drv_fail(d, -ECONNREFUSED, "idle: netmux closed the %s login %d times "
					"(a limit on unauthenticated connections per address?)", name,
					attempt);
		pr_verbose("idle: netmux refused the %s login (attempt %d): again in %d ms", name,
			   attempt, pause);
		pause_ms(pause);
		pause = pause * 2 < IDLE_RETRY_MAX_MS ? pause * 2 : IDLE_RETRY_MAX_MS;
	}
}

/* Log the 32 idle players in, one after the other (idle_login_one). */
static int idle_login(struct driver *d)
{
	int err = create_players(d);

	for (int i = 0; !err && i < NIDLE; i++) {
		err = idle_login_one(d, i);
		if (err)
			conn_close(d, &d->idle[i]);
		else
			d->nidle++;
	}
	return err;
}

/* After the window: QUIT every idle session, wait for netmux to close them, drain the wizard. */
static int idle_logout(struct driver *d)
{
	int err = 0;

	for (int i = 0; !err && i < d->nidle; i++) {
		struct conn *c = &d->idle[i];

		c->closing = true;
		if (!c->eof && conn_reserve(c, 8) == 0) {
			c->out_len += sprintf(c->out + c->out_len, "QUIT\r\n");
			err = conn_flush(d, c);
		}
	}
	err = err ?: wait_for(d, idle_closed, 0);
	for (int i = 0; i < d->nidle; i++)
		conn_close(d, &d->idle[i]);
	d->nidle = 0;
	return err ?: sync_wiz(d);
}

/* idle_seconds of nothing, reading (and checking) whatever any session receives. */
static int idle_window(struct driver *d)
{
	double deadline = mono_ms() + d->opts.idle_seconds * 1e3;
	int err = reply_check__phase(d->wiz.rc, MUXBPF_PHASE_IDLE, d->nobj);

	for (int i = 0; !err && i < d->nidle; i++)
		err = reply_check__phase(d->idle[i].rc, MUXBPF_PHASE_IDLE, d->nobj);
	while (!err && mono_ms() < deadline)
		err = pump(d, (int)(deadline - mono_ms()) + 1);
	return err;
}

/* Setup a phase needs, done outside any window. */
static int prepare(struct driver *d, unsigned int phase)
{
	int err = 0;

	switch (phase) {
	case MUXBPF_PHASE_CREATE:
		if (d->nobj)
			return drv_fail(d, -EEXIST, "create: the perfobj objects exist already");
		return 0;
	case MUXBPF_PHASE_ATTRWRITE:
		return d->nobj ? 0 : run_setup(d, MUXBPF_PHASE_CREATE);
	case MUXBPF_PHASE_DUMP: /* dump the database a full run would have */
	case MUXBPF_PHASE_ATTRREAD:
		if (!d->nobj)
			err = run_setup(d, MUXBPF_PHASE_CREATE);
		return err || d->attrs ? err : run_setup(d, MUXBPF_PHASE_ATTRWRITE);
	case MUXBPF_PHASE_IDLE:
		return idle_login(d);
	case MUXBPF_PHASE_DISPATCH:
		return record_look(d);
	default:
		return 0;
	}
}

static int call_hook(struct driver *d, int (*hook)(void *, unsigned int), void *ctx,
		     unsigned int phase, const char *what)
{
	int err;

	if (!hook)
		return 0;
	err = hook(ctx, phase);
	if (err)
		return drv_fail(d, err < 0 ? err : -ECANCELED, "%s: the %s hook failed (%d)",
				phase_name(phase), what, err);
	return 0;
}

/*
 * A command window's rounds: the phase's commands, again while the round hook asks for another
 * round (phases whose work repeats unchanged only; the others run one round).  Each round's
 * commands are numbered from 0, so every round sends and checks the same commands.
 */
static int run_rounds(struct driver *d, unsigned int phase, const struct phase_hooks *h,
		      struct phase_result *r)
{
	uint64_t n = window_commands(d, phase), sent;
	int err = 0, more = 1;

	r->commands = 0;
	r->rounds = 0;
	while (!err && more > 0) {
		err = run_commands(d, phase, n, &sent);
		r->commands += sent;
		if (err)
			break;
		r->rounds++;
		more = h->round && driver_phase_repeats(phase)
			       ? h->round(h->ctx, phase, r->rounds, r->commands)
			       : 0;
		if (more < 0)
			err = drv_fail(d, more, "%s: the round hook failed (%d)", phase_name(phase),
				       more);
	}
	return err;
}

/* The measured window: begin hook, the commands (or the idle wait), end hook. */
static int run_window(struct driver *d, unsigned int phase, const struct phase_hooks *h,
		      struct phase_result *r)
{
	struct phase_hooks none = {};
	double t0, t1;
	int err, err2;

	h = h ? h : &none;
	err = call_hook(d, h->begin, h->ctx, phase, "begin");
	if (err)
		return err;
	t0 = mono_ms();
	d->reads = 0;
	d->hooks = h;
	if (phase == MUXBPF_PHASE_IDLE) {
		err = idle_window(d);
		r->rounds = !err;
	} else {
		err = run_rounds(d, phase, h, r);
	}
	t1 = mono_ms();
	d->hooks = NULL;
	/* end() also after a failure, so that a profiler never stays inside the phase */
	err2 = call_hook(d, h->end, h->ctx, phase, "end");
	r->wall_s = (t1 - t0) / 1e3;
	pr_debug("%s: %llu commands in %.3f s, %llu reads", phase_name(phase),
		 (unsigned long long)r->commands, r->wall_s, (unsigned long long)d->reads);
	return err ?: err2;
}

static int run_phase(struct driver *d, unsigned int phase, const struct phase_hooks *h,
		     struct phase_result *r)
{
	int err;

	d->phase = phase;
	err = prepare(d, phase);
	d->phase = phase;
	if (err) {
		char why[sizeof(d->error)];

		snprintf(why, sizeof(why), "%s", d->error);
		snprintf(d->error, sizeof(d->error), "setup for %s failed: %.200s",
			 phase_name(phase), why);
		return err;
	}
	err = sync_wiz(d);
	if (!err)
		err = run_window(d, phase, h, r);
	if (!err && phase == MUXBPF_PHASE_CREATE)
		d->nobj = (int)r->commands;
	if (!err && phase == MUXBPF_PHASE_ATTRWRITE)
		d->attrs = true;
	if (phase == MUXBPF_PHASE_IDLE) {
		int err2 = idle_logout(d);

		err = err ?: err2;
	}
	return err;
}

static int check_phase_list(struct driver *d, const unsigned int *phases, int n)
{
	for (int i = 0; i < n; i++) {
		if (phases[i] <= MUXBPF_PHASE_BOOT || phases[i] >= MUXBPF_PHASE__COUNT)
			return drv_fail(d, -EINVAL, "the driver cannot run phase %s",
					phase_name(phases[i]));
		if (i && phases[i] <= phases[i - 1])
			return drv_fail(d, -EINVAL, "phases not in canonical order: %s after %s",
					phase_name(phases[i]), phase_name(phases[i - 1]));
	}
	return 0;
}

int driver__run(struct driver *d, const unsigned int *phases, int n,
		const struct phase_hooks *hooks, struct phase_result *results)
{
	int err;

	d->error[0] = '\0';
	for (int i = 0; i < n; i++)
		results[i] = (struct phase_result){ .phase = phases[i], .error = "not run" };
	err = check_phase_list(d, phases, n);
	for (int i = 0; !err && i < n; i++) {
		struct phase_result *r = &results[i];

		err = run_phase(d, phases[i], hooks, r);
		r->ok = !err;
		snprintf(r->error, sizeof(r->error), "%s", err ? d->error : "");
	}
	if (err && err != -EINTR)
		pr_err("%s", d->error);
	return err;
}

static void opts_defaults(struct drive_opts *o, const struct drive_opts *in)
{
	*o = in ? *in : (struct drive_opts){};
	if (o->scale <= 0)
		o->scale = 1.0;
	if (o->idle_seconds <= 0)
		o->idle_seconds = 8.0;
	if (o->chunk <= 0)
		o->chunk = 256;
	if (o->timeout_ms <= 0)
		o->timeout_ms = 30000;
	if (o->inflight <= 0)
		o->inflight = 2;
	if (o->inflight > DRIVE_MAX_INFLIGHT)
		o->inflight = DRIVE_MAX_INFLIGHT;
}

/* Log in as the wizard (the sentinel proves it) and read @version. */
static int wizard_login(struct driver *d)
{
	const char *v;
	int err;

	err = conn_open(d, &d->wiz, "wizard") ?: wiz_round_trip(d, "connect wizard potrzebie\r\n");
	if (!err)
		err = wiz_round_trip(d, "@version\r\n");
	if (err)
		return err;
	v = reply_check__line(d->wiz.rc, 0);
	if (!v)
		return drv_fail(d, -EBADMSG, "@version gave no reply");
	snprintf(d->version, sizeof(d->version), "%s", v);
	return 0;
}

struct driver *driver__new(int port, const struct drive_opts *opts)
{
	struct driver *d = calloc(1, sizeof(*d));
	int err;

	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	opts_defaults(&d->opts, opts);
	d->port = port;
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->rbuf = malloc(RBUF_SIZE);
	for (int i = 0, *fds[] = { &d->opts.stop_fd, &d->opts.pidfd }; d->epfd >= 0 && i < 2; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = fds[i] };

		if (*fds[i] > 0 && epoll_ctl(d->epfd, EPOLL_CTL_ADD, *fds[i], &ev))
			*fds[i] = 0;
	}
	if (d->epfd < 0 || !d->rbuf)
		err = drv_fail(d, d->rbuf ? -errno : -ENOMEM, "driver setup: %s",
			       strerror(d->rbuf ? errno : ENOMEM));
	else
		err = wizard_login(d);
	if (err == -EINTR) {
		driver__free(d);
		errno = EINTR;
		return NULL;
	}
	if (err) {
		pr_err("failed to log in to netmux on port %d: %s", port, d->error);
		driver__free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

const char *driver__version(const struct driver *d)
{
	return d->version;
}

/*
 * Send @shutdown and wait until it is written; netmux then dumps and exits (game__stop).  Works
 * after a failed run too: whatever replies were still due are no longer checked.
 */
int driver__shutdown(struct driver *d)
{
	struct conn *c = &d->wiz;
	int err;

	if (c->eof)
		return -ENOTCONN;
	d->phase = MUXBPF_PHASE_NONE;
	d->error[0] = '\0';
	reply_check__free(c->rc);
	c->rc = reply_check__new();
	c->closing = true;
	err = !c->rc || conn_reserve(c, 16) ? -ENOMEM : 0;
	if (!err) {
		c->out_len += sprintf(c->out + c->out_len, "@shutdown\r\n");
		err = conn_flush(d, c) ?: wait_for(d, wiz_flushed, 0);
	}
	if (err)
		pr_err("failed to send @shutdown: %s", d->error[0] ? d->error : strerror(-err));
	return err;
}

void driver__free(struct driver *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nidle; i++)
		conn_close(d, &d->idle[i]);
	conn_close(d, &d->wiz);
	if (d->epfd >= 0)
		close(d->epfd);
	free(d->rbuf);
	free(d);
}
