// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The driver's pure half: each phase's commands, and the reply checker (telnet stripping, line
 * splitting, the reply command i must get) that tests feed canned transcripts.  drive.c sends
 * and reads; nothing here touches a socket.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/phases.h"
#include "proc/reply_check.h"

#define LINE_MAX_LEN 16384

enum telnet_state { TN_DATA, TN_IAC, TN_OPT, TN_SB, TN_SB_IAC };

enum { IAC = 255, SB = 250, SE = 240, WILL = 251, DONT = 254 };

struct chunk {
	uint64_t first; /* index of the chunk's first command */
	int n;		/* its commands */
	int got;	/* reply lines seen so far */
	char sentinel[DRIVE_SENTINEL_LEN];
};

struct reply_check {
	enum telnet_state tn;
	size_t len;
	char line[LINE_MAX_LEN + 1];
	unsigned int phase;
	int nobj;
	char **look; /* dispatch: the reply of one look */
	int nlook;
	struct chunk q[DRIVE_MAX_INFLIGHT]; /* outstanding chunks, a ring */
	int head, pending;
	uint64_t replies;
	char *kept[DRIVE_MAX_KEPT];
	int nkept;
	bool failed;
	char error[256];
};

static const char *const error_lines[] = {
	"Huh?  (Type \"help\" for help.)",
	"Permission denied.",
	"Either that player does not exist, or has a different password.",
	"I don\xE2\x80\x99t see that here.",
	"I don't see that here.",
	"#-1 PERMISSION DENIED",
	NULL,
};

bool driver_phase_repeats(unsigned int phase)
{
	return phase == MUXBPF_PHASE_ATTRREAD || phase == MUXBPF_PHASE_DISPATCH ||
	       phase == MUXBPF_PHASE_SOFTCODE_ARITH || phase == MUXBPF_PHASE_SOFTCODE_LIST;
}

uint64_t driver_phase_commands(unsigned int phase, double scale)
{
	static const int base[MUXBPF_PHASE__COUNT] = {
		[MUXBPF_PHASE_CREATE] = 1500,
		[MUXBPF_PHASE_ATTRWRITE] = 1500,
		[MUXBPF_PHASE_DUMP] = 1,
		[MUXBPF_PHASE_ATTRREAD] = 20000,
		[MUXBPF_PHASE_DISPATCH] = 20000,
		[MUXBPF_PHASE_SOFTCODE_ARITH] = 20000,
		[MUXBPF_PHASE_SOFTCODE_LIST] = 8000,
	};
	int n;

	if (phase >= MUXBPF_PHASE__COUNT || !base[phase])
		return 0;
	if (phase == MUXBPF_PHASE_DUMP)
		return 1;
	n = base[phase] * scale > 1e8 ? 100000000 : (int)(base[phase] * scale);
	n = n < 1 ? 1 : n;
	/* attrwrite fills 12 attributes on each object create made */
	return phase == MUXBPF_PHASE_ATTRWRITE ? (uint64_t)n * DRIVE_ATTRS_PER_OBJ : (uint64_t)n;
}

int driver_phase_command(unsigned int phase, uint64_t i, int nobj, char *buf, size_t size)
{
	int obj = nobj > 0 ? (int)(i % nobj) : 0, attr = (int)(i % DRIVE_ATTRS_PER_OBJ);

	switch (phase) {
	case MUXBPF_PHASE_CREATE:
		return snprintf(buf, size, "@create perfobj%d", (int)i);
	case MUXBPF_PHASE_ATTRWRITE:
		obj = (int)(i / DRIVE_ATTRS_PER_OBJ);
		return snprintf(buf, size, "&perf%d perfobj%d=value %d for attribute %d", attr, obj,
				obj, attr);
	case MUXBPF_PHASE_DUMP:
		return snprintf(buf, size, "@dump");
	case MUXBPF_PHASE_ATTRREAD:
		return snprintf(buf, size, "@pemit me=[get(perfobj%d/perf%d)]", obj, attr);
	case MUXBPF_PHASE_DISPATCH:
		return snprintf(buf, size, "look");
	case MUXBPF_PHASE_SOFTCODE_ARITH:
		return snprintf(buf, size, "@pemit me=[add(mul(strlen(name(me)),7),3)]");
	case MUXBPF_PHASE_SOFTCODE_LIST:
		return snprintf(buf, size, "@pemit me=[iter(lnum(50),mul(##,2))]");
	default:
		return -EINVAL;
	}
}

/* Reply lines each command of the phase gets; 0 = free-form (any non-error lines). */
int reply_check__per_command(const struct reply_check *rc)
{
	switch (rc->phase) {
	case MUXBPF_PHASE_CREATE:
	case MUXBPF_PHASE_ATTRWRITE:
	case MUXBPF_PHASE_ATTRREAD:
	case MUXBPF_PHASE_SOFTCODE_ARITH:
	case MUXBPF_PHASE_SOFTCODE_LIST:
		return 1;
	case MUXBPF_PHASE_DISPATCH:
		return rc->nlook;
	default:
		return 0;
	}
}

static const char *list_reply(void)
{
	static char buf[256];

	if (!buf[0])
		for (int i = 0; i < 50; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d", i ? " " : "",
				 2 * i);
	return buf;
}

/* "perfobj<i> created as object #<digits>" */
static bool create_matches(uint64_t i, const char *line)
{
	char want[64];
	int n = snprintf(want, sizeof(want), "perfobj%d created as object #", (int)i);

	if (strncmp(line, want, n) != 0 || !line[n])
		return false;
	for (line += n; *line; line++)
		if (*line < '0' || *line > '9')
			return false;
	return true;
}

/* The reply line sub of command i; writes what was expected into want. */
static bool reply_matches(const struct reply_check *rc, uint64_t i, int sub, const char *line,
			  char *want, size_t size)
{
	switch (rc->phase) {
	case MUXBPF_PHASE_CREATE:
		snprintf(want, size, "perfobj%d created as object #N", (int)i);
		return create_matches(i, line);
	case MUXBPF_PHASE_ATTRWRITE:
		snprintf(want, size, "Set.");
		break;
	case MUXBPF_PHASE_ATTRREAD:
		snprintf(want, size, "value %d for attribute %d",
			 rc->nobj ? (int)(i % rc->nobj) : 0, (int)(i % DRIVE_ATTRS_PER_OBJ));
		break;
	case MUXBPF_PHASE_DISPATCH:
		snprintf(want, size, "%s", rc->look[sub]);
		break;
	case MUXBPF_PHASE_SOFTCODE_ARITH:
		snprintf(want, size, "45");
		break;
	case MUXBPF_PHASE_SOFTCODE_LIST:
		snprintf(want, size, "%s", list_reply());
		break;
	default:
		return true;
	}
	return strcmp(line, want) == 0;
}

static const char *check_name(const struct reply_check *rc)
{
	return rc->phase ? phase_name(rc->phase) : "setup";
}

static int check_fail(struct reply_check *rc, const char *fmt, ...)
{
	va_list ap;

	if (!rc->failed) {
		va_start(ap, fmt);
		vsnprintf(rc->error, sizeof(rc->error), fmt, ap);
		va_end(ap);
		rc->failed = true;
	}
	return -EBADMSG;
}

static bool is_error_line(const char *line)
{
	for (int i = 0; error_lines[i]; i++)
		if (strncmp(line, error_lines[i], strlen(error_lines[i])) == 0)
			return true;
	return false;
}

static void keep_line(struct reply_check *rc, const char *line)
{
	char *copy;

	if (rc->nkept >= DRIVE_MAX_KEPT)
		return;
	copy = strdup(line);
	if (copy)
		rc->kept[rc->nkept++] = copy;
}

static void drop_kept(struct reply_check *rc)
{
	while (rc->nkept > 0)
		free(rc->kept[--rc->nkept]);
}

/* The sentinel of the oldest chunk arrived: were all its replies there? */
static int chunk_done(struct reply_check *rc, struct chunk *c, int per)
{
	char cmd[128];

	if (per && c->got < c->n * per) {
		driver_phase_command(rc->phase, c->first + c->got / per, rc->nobj, cmd,
				     sizeof(cmd));
		return check_fail(rc,
				  "%s: no reply to command %llu `%s` before %s (%d of %d lines)",
				  check_name(rc), (unsigned long long)(c->first + c->got / per),
				  cmd, c->sentinel, c->got, c->n * per);
	}
	rc->head = (rc->head + 1) % DRIVE_MAX_INFLIGHT;
	rc->pending--;
	return 0;
}

/* One reply line of the oldest outstanding chunk. */
static int check_reply(struct reply_check *rc, struct chunk *c, int per, const char *line)
{
	uint64_t i = c->first + c->got / per;
	char want[LINE_MAX_LEN / 4], cmd[128];

	if (c->got >= c->n * per)
		return check_fail(
			rc, "%s: unexpected line '%.80s' after the replies to commands %llu-%llu",
			check_name(rc), line, (unsigned long long)c->first,
			(unsigned long long)(c->first + c->n - 1));
	if (!reply_matches(rc, i, c->got % per, line, want, sizeof(want))) {
		driver_phase_command(rc->phase, i, rc->nobj, cmd, sizeof(cmd));
		return check_fail(rc, "%s: command %llu `%s` answered '%.60s', expected '%.60s'",
				  check_name(rc), (unsigned long long)i, cmd, line, want);
	}
	c->got++;
	rc->replies++;
	return 0;
}

static int check_line(struct reply_check *rc, const char *line)
{
	struct chunk *c = rc->pending ? &rc->q[rc->head] : NULL;
	int per = reply_check__per_command(rc);

	if (is_error_line(line))
		return check_fail(rc, "%s: netmux answered '%.100s'", check_name(rc), line);
	if (c && strcmp(line, c->sentinel) == 0)
		return chunk_done(rc, c, per);
	if (!per) {
		keep_line(rc, line);
		return 0;
	}
	if (!c)
		return check_fail(rc, "%s: unexpected line '%.80s' with no command outstanding",
				  check_name(rc), line);
	return check_reply(rc, c, per, line);
}

static int line_end(struct reply_check *rc)
{
	rc->line[rc->len] = '\0';
	rc->len = 0;
	return check_line(rc, rc->line);
}

/* Telnet state machine for one byte; true when the byte is line data. */
static bool telnet_byte(struct reply_check *rc, unsigned char b)
{
	switch (rc->tn) {
	case TN_DATA:
		if (b != IAC)
			return true;
		rc->tn = TN_IAC;
		return false;
	case TN_IAC:
		rc->tn = b == SB ? TN_SB : b >= WILL && b <= DONT ? TN_OPT : TN_DATA;
		return b == IAC; /* IAC IAC is a literal 255 */
	case TN_OPT:
		rc->tn = TN_DATA;
		return false;
	case TN_SB:
		rc->tn = b == IAC ? TN_SB_IAC : TN_SB;
		return false;
	case TN_SB_IAC:
		rc->tn = b == SE ? TN_DATA : TN_SB;
		return false;
	}
	return false;
}

int reply_check__feed(struct reply_check *rc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t k = 0; k < len && !rc->failed; k++) {
		unsigned char b = p[k];

		if (rc->tn == TN_DATA && b != IAC && b != '\n' && b != '\r' && b) {
			if (rc->len < LINE_MAX_LEN)
				rc->line[rc->len++] = (char)b;
			continue;
		}
		if (!telnet_byte(rc, b) || b == '\r' || !b)
			continue;
		if (b == '\n')
			line_end(rc);
		else if (rc->len < LINE_MAX_LEN)
			rc->line[rc->len++] = (char)b;
	}
	return rc->failed ? -EBADMSG : 0;
}

struct reply_check *reply_check__new(void)
{
	return calloc(1, sizeof(struct reply_check));
}

int reply_check__phase(struct reply_check *rc, unsigned int phase, int nobj)
{
	if (rc->pending)
		return -EBUSY;
	rc->phase = phase;
	rc->nobj = nobj;
	rc->replies = 0;
	return 0;
}

static void drop_look(struct reply_check *rc)
{
	while (rc->nlook > 0)
		free(rc->look[--rc->nlook]);
	free(rc->look);
	rc->look = NULL;
}

int reply_check__set_look(struct reply_check *rc, char *const *lines, int n)
{
	drop_look(rc);
	rc->look = calloc(n ? n : 1, sizeof(*rc->look));
	if (!rc->look)
		return -ENOMEM;
	for (; rc->nlook < n; rc->nlook++) {
		rc->look[rc->nlook] = strdup(lines[rc->nlook]);
		if (!rc->look[rc->nlook])
			return -ENOMEM;
	}
	return 0;
}

int reply_check__expect(struct reply_check *rc, uint64_t first, int n, const char *sentinel)
{
	struct chunk *c;

	if (rc->pending == DRIVE_MAX_INFLIGHT)
		return -ENOSPC;
	if (strlen(sentinel) >= DRIVE_SENTINEL_LEN)
		return -ENAMETOOLONG;
	if (!rc->pending)
		drop_kept(rc);
	c = &rc->q[(rc->head + rc->pending++) % DRIVE_MAX_INFLIGHT];
	*c = (struct chunk){ .first = first, .n = n };
	strcpy(c->sentinel, sentinel);
	return 0;
}

int reply_check__pending(const struct reply_check *rc)
{
	return rc->pending;
}

uint64_t reply_check__replies(const struct reply_check *rc)
{
	return rc->replies;
}

const char *reply_check__line(const struct reply_check *rc, int i)
{
	return i >= 0 && i < rc->nkept ? rc->kept[i] : NULL;
}

const char *reply_check__error(const struct reply_check *rc)
{
	return rc->failed ? rc->error : NULL;
}

void reply_check__free(struct reply_check *rc)
{
	if (!rc)
		return;
	drop_kept(rc);
	drop_look(rc);
	free(rc);
}
