// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Naming for the softcode views: object names and $-command attributes through a wizard login
 * (name(), lattr(), get()), object names from netmux's memory (db[N].name, the cached name, via
 * process_vm_readv) when no login is possible, else #N.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include "base/grow.h"
#include "base/log.h"
#include "loader/softcode_name.h"

static bool has_dbref(const int32_t *v, size_t n, int32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static int add_name(struct sc_data *d, int32_t dbref, const char *name)
{
	struct sc_name *v;

	for (size_t i = 0; i < d->nnames; i++)
		if (d->names[i].dbref == dbref)
			return 0;
	v = realloc(d->names, (d->nnames + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->names = v;
	v[d->nnames].dbref = dbref;
	v[d->nnames].name = strdup(name);
	if (!v[d->nnames].name)
		return -ENOMEM;
	d->nnames++;
	return 0;
}

/* "ATTR=$pattern:action": a $-command attribute of obj. */
static int add_attr(struct sc_data *d, int32_t obj, const char *item)
{
	const char *eq = strchr(item, '='), *colon;
	struct sc_attr *v, *a;

	if (!eq || eq[1] != '$')
		return 0;
	for (colon = eq + 2; *colon && *colon != ':'; colon++)
		if (*colon == '\\' && colon[1])
			colon++;
	if (!*colon)
		return 0;
	v = realloc(d->attrs, (d->nattrs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->attrs = v;
	a = &v[d->nattrs];
	a->obj = obj;
	a->attr = strndup(item, eq - item);
	a->pattern = strndup(eq + 2, colon - (eq + 2));
	a->action = strdup(colon + 1);
	if (!a->attr || !a->pattern || !a->action) {
		free(a->attr);
		free(a->pattern);
		free(a->action);
		return -ENOMEM;
	}
	d->nattrs++;
	return 0;
}

/* Every dbref the data mentions: executors, enactors, u() objects. */
static size_t dbrefs(const struct sc_data *d, int32_t **out, bool executors_only)
{
	size_t n = 0, cap = d->ncmds * 2 + d->nframes + 1;
	int32_t *v = calloc(cap, sizeof(*v));

	*out = v;
	if (!v)
		return 0;
	for (size_t i = 0; i < d->ncmds; i++) {
		if (d->cmds[i].executor >= 0 && !has_dbref(v, n, d->cmds[i].executor))
			v[n++] = d->cmds[i].executor;
		if (!executors_only && d->cmds[i].enactor >= 0 &&
		    !has_dbref(v, n, d->cmds[i].enactor))
			v[n++] = d->cmds[i].enactor;
	}
	for (size_t i = 0; !executors_only && i < d->nframes; i++)
		if (d->frames[i].thing >= 0 && !has_dbref(v, n, d->frames[i].thing))
			v[n++] = d->frames[i].thing;
	return n;
}

/* Read lines from fd into buf until one equals "SCDONE" (or the timeout). */
static int read_until_done(int fd, char **buf, size_t *len)
{
	size_t cap = 0;

	*len = 0;
	*buf = NULL;
	for (;;) {
		ssize_t n;

		if (mb_grow((void **)buf, &cap, *len + 4096, 1, 65536))
			return -ENOMEM;
		n = recv(fd, *buf + *len, cap - *len - 1, 0);
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		*len += n;
		(*buf)[*len] = 0;
		if (strstr(*buf, "\nSCDONE") || !strncmp(*buf, "SCDONE", 6))
			return 0;
	}
}

static int send_all(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = send(fd, s, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -errno;
		s += n;
		len -= n;
	}
	return 0;
}

/* Ask the game: "SCN #N name" and "SCA #N attr=value|~|..." lines. */
static int name_through_game(struct sc_data *d, int port, const char *login)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 3 };
	int32_t *refs, *objs;
	size_t nrefs = dbrefs(d, &refs, false), nobjs = dbrefs(d, &objs, true), len;
	char cmd[512], *buf = NULL;
	int fd, err;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(cmd, sizeof(cmd), "%s\r\n", login);
	err = send_all(fd, cmd);
	for (size_t i = 0; !err && i < nrefs; i++) {
		snprintf(cmd, sizeof(cmd), "think SCN #%d [name(#%d)]\r\n", refs[i], refs[i]);
		err = send_all(fd, cmd);
	}
	for (size_t i = 0; !err && i < nobjs; i++) {
		snprintf(cmd, sizeof(cmd),
			 "think SCA #%d [iter(lattr(#%d),##=[get(#%d/##)],%%b,|~|)]\r\n", objs[i],
			 objs[i], objs[i]);
		err = send_all(fd, cmd);
	}
	if (!err)
		err = send_all(fd, "think SCDONE\r\nQUIT\r\n");
	if (!err)
		err = read_until_done(fd, &buf, &len);
	for (char *line = buf; !err && line && *line;) {
		char *end = strpbrk(line, "\r\n"), *rest;
		int32_t ref;
		int off = 0;

		if (end)
			*end = 0;
		if (sscanf(line, "SCN #%d %n", &ref, &off) == 1 && off)
			err = add_name(d, ref, line + off);
		else if (sscanf(line, "SCA #%d %n", &ref, &off) == 1 && off) {
			for (char *item = line + off; item && *item && !err; item = rest) {
				rest = strstr(item, "|~|");
				if (rest) {
					*rest = 0;
					rest += 3;
				}
				err = add_attr(d, ref, item);
			}
		}
		if (!end)
			break;
		line = end + 1;
		while (*line == '\r' || *line == '\n')
			line++;
	}
out:
	free(buf);
	free(refs);
	free(objs);
	if (fd >= 0)
		close(fd);
	return err;
}

static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)addr, .iov_len = len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* db[N].name, the name netmux caches (not loaded for objects nothing named yet). */
static int name_through_memory(struct sc_data *d, const struct sc_target *t, pid_t pid,
			       uint64_t bias)
{
	int32_t *refs;
	size_t n = dbrefs(d, &refs, false);
	uint64_t db = 0;
	int found = 0;

	if (!t->db || !t->obj_size || read_mem(pid, bias + t->db, &db, sizeof(db)) || !db) {
		free(refs);
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t name = 0;
		char buf[256] = "";

		if (read_mem(pid, db + (uint64_t)refs[i] * t->obj_size + t->obj_name_off, &name,
			     sizeof(name)) || !name)
			continue;
		for (size_t j = 0; j + 1 < sizeof(buf); j++) {
			if (read_mem(pid, name + j, &buf[j], 1) || !buf[j])
				break;
		}
		buf[sizeof(buf) - 1] = 0;
		if (buf[0] && !add_name(d, refs[i], buf))
			found++;
	}
	free(refs);
	return found ? 0 : -ENOENT;
}

void sc_verb(const char *text, char *buf, size_t size)
{
	size_t n = 0;

	while (*text == ' ')
		text++;
	/* "@pemit me=..." and "@pemit/noeval" are @pemit; "look here" is look */
	while (text[n] && text[n] != ' ' && !(text[0] == '@' && (text[n] == '=' || text[n] == '/')))
		n++;
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = tolower((unsigned char)text[i]);
	buf[n] = 0;
}

bool sc_match(const char *p, const char *t)
{
	if (!*p)
		return !*t;
	if (*p == '*') {
		for (;; t++) {
			if (sc_match(p + 1, t))
				return true;
			if (!*t)
				return false;
		}
	}
	if (!*t)
		return false;
	if (*p != '?' && tolower((unsigned char)*p) != tolower((unsigned char)*t))
		return false;
	return sc_match(p + 1, t + 1);
}

static const char *name_of(const struct sc_data *d, int32_t dbref)
{
	for (size_t i = 0; i < d->nnames; i++)
		if (d->names[i].dbref == dbref)
			return d->names[i].name;
	return NULL;
}

/* "Name(#12)", or "#12" when the name is unknown. */
static void obj_label(const struct sc_data *d, int32_t dbref, char *buf, size_t size)
{
	const char *n = name_of(d, dbref);

	if (n && *n)
		snprintf(buf, size, "%s(#%d)", n, dbref);
	else
		snprintf(buf, size, "#%d", dbref);
}

/* The $-command attribute whose action the command text is (a queued action of obj). */
static const struct sc_attr *action_attr(const struct sc_data *d, const struct sc_cmd *c)
{
	size_t tl = strlen(c->text);

	if (!tl)
		return NULL;
	for (size_t i = 0; i < d->nattrs; i++) {
		const struct sc_attr *a = &d->attrs[i];
		const char *s = a->action;

		if (a->obj != c->executor)
			continue;
		/* the action's commands, split at ';' as the queue runs them */
		while (s && *s) {
			while (*s == ' ')
				s++;
			if (!strncmp(s, c->text, tl) &&
			    (tl >= MUXBPF_SC_TEXT - 1 || !s[tl] || s[tl] == ';'))
				return a;
			s = strchr(s, ';');
			if (s)
				s++;
		}
	}
	return NULL;
}

/* The $-command a typed command matched (its pattern), preferring the typist's own objects. */
static const struct sc_attr *typed_attr(const struct sc_data *d, const struct sc_cmd *c)
{
	for (size_t i = 0; i < d->nattrs; i++)
		if (sc_match(d->attrs[i].pattern, c->text))
			return &d->attrs[i];
	return NULL;
}

static char *attr_frame(const struct sc_data *d, const struct sc_attr *a)
{
	char obj[256], buf[512];

	obj_label(d, a->obj, obj, sizeof(obj));
	snprintf(buf, sizeof(buf), "%s/%s", obj, a->attr);
	return strdup(buf);
}

void sc_label(struct sc_data *d)
{
	for (size_t i = 0; i < d->ncmds; i++) {
		struct sc_cmd *c = &d->cmds[i];
		const struct sc_attr *a;
		char buf[640], verb[MUXBPF_SC_TEXT + 1];

		free(c->label);
		free(c->frame);
		free(c->obj);
		c->label = c->frame = c->obj = NULL;
		c->primary = true;
		if (!c->text[0]) {
			c->label = strdup("(between commands)");
			c->primary = false;
			continue;
		}
		a = action_attr(d, c);
		if (!a && (a = typed_attr(d, c)))
			c->primary = false; /* the matching of a typed $-command: its action counts */
		if (a) {
			c->frame = attr_frame(d, a);
			snprintf(buf, sizeof(buf), "#%d", a->obj);
			c->obj = strdup(buf);
			snprintf(buf, sizeof(buf), "$%s %s", a->pattern, c->frame ? c->frame : "");
			c->label = strdup(buf);
			continue;
		}
		sc_verb(c->text, verb, sizeof(verb));
		if (c->executor != c->enactor && c->executor >= 0 && name_of(d, c->executor)) {
			char obj[256];

			/*
			 * An object's queued action whose attribute is unknown (no login): the
			 * object and the action's text tell the $-commands apart.
			 */
			obj_label(d, c->executor, obj, sizeof(obj));
			snprintf(buf, sizeof(buf), "%s: %.40s%s", obj, c->text,
				 strlen(c->text) > 40 ? "..." : "");
			c->label = strdup(buf);
			c->frame = strdup(buf);
			snprintf(buf, sizeof(buf), "#%d", c->executor);
			c->obj = strdup(buf);
			continue;
		}
		c->label = strdup(verb[0] ? verb : "(empty)");
	}
	for (size_t i = 0; i < d->nframes; i++) {
		struct sc_frame *f = &d->frames[i];
		const char *slash = strchr(f->text, '/');
		const char *attr = slash ? slash + 1 : f->text;
		char obj[256], buf[512], up[MUXBPF_SC_FTEXT + 1];
		size_t n = 0;

		for (; attr[n] && n < MUXBPF_SC_FTEXT; n++)
			up[n] = toupper((unsigned char)attr[n]);
		up[n] = 0;
		free(f->label);
		free(f->obj);
		obj_label(d, f->thing, obj, sizeof(obj));
		snprintf(buf, sizeof(buf), "%s/%s", obj, up);
		f->label = strdup(buf);
		snprintf(buf, sizeof(buf), "#%d", f->thing);
		f->obj = strdup(buf);
	}
}

void softcode__name(struct sc_data *d, const struct sc_target *t, pid_t pid, int port,
		    const char *login)
{
	if (port > 0 && login && name_through_game(d, port, login) == 0 && d->nnames)
		d->names_from = "the game";
	else if (pid > 0 && name_through_memory(d, t, pid, d->bias) == 0)
		d->names_from = "netmux's memory";
	sc_label(d);
}
