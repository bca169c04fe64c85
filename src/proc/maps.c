// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /proc/PID/maps snapshots.  The parser takes untrusted text (it is fuzzed): every field has a
 * bounded width, every read is checked against the end of the buffer, numbers are checked for
 * overflow, and a line that is not exactly what the kernel prints is -EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/grow.h"
#include "base/log.h"
#include "proc/maps.h"

/* Bounds on hostile input.  The kernel prints paths up to PATH_MAX plus " (deleted)"; the
 * default vm.max_map_count is 65530. */
#define MAPS_MAX_PATH 4200
#define MAPS_MAX_ENTRIES (1u << 20)
#define MAPS_MAX_FILE (256u << 20)

struct cursor {
	const char *p, *end; /* one line, without its '\n' */
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1 to max_digits hex digits; anything else is -EINVAL. */
static int parse_hex(struct cursor *c, int max_digits, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0, d;

	while (c->p < c->end && (d = hexval(*c->p)) >= 0) {
		if (++n > max_digits)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
		c->p++;
	}
	if (!n)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_dec(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		uint64_t d = (uint64_t)(*c->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
		c->p++;
		n++;
	}
	if (!n)
		return -EINVAL;
	*out = v;
	return 0;
}

static int expect(struct cursor *c, char ch)
{
	if (c->p >= c->end || *c->p != ch)
		return -EINVAL;
	c->p++;
	return 0;
}

static int parse_perms(struct cursor *c, char perms[5])
{
	static const char allowed[4][3] = { "r-", "w-", "x-", "ps" };

	if (c->end - c->p < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		if (c->p[i] != allowed[i][0] && c->p[i] != allowed[i][1])
			return -EINVAL;
		perms[i] = c->p[i];
	}
	perms[4] = '\0';
	c->p += 4;
	return 0;
}

/* The path: whatever follows the inode after at least one space, to the end of the line.  No
 * path (anonymous) is "".  Paths keep inner and trailing spaces and " (deleted)". */
static int parse_path(struct cursor *c, char **path)
{
	size_t len;

	if (c->p < c->end && *c->p != ' ')
		return -EINVAL;
	while (c->p < c->end && *c->p == ' ')
		c->p++;
	len = (size_t)(c->end - c->p);
	if (len > MAPS_MAX_PATH || memchr(c->p, '\0', len))
		return -EINVAL;
	*path = strndup(c->p, len);
	return *path ? 0 : -ENOMEM;
}

/* start-end perms offset major:minor inode [path] */
static int parse_line(const char *line, size_t len, struct mb_mapping *m)
{
	struct cursor c = { line, line + len };
	uint64_t major, minor;
	int err;

	memset(m, 0, sizeof(*m));
	if ((err = parse_hex(&c, 16, &m->start)) || (err = expect(&c, '-')) ||
	    (err = parse_hex(&c, 16, &m->end)) || (err = expect(&c, ' ')) ||
	    (err = parse_perms(&c, m->perms)) || (err = expect(&c, ' ')) ||
	    (err = parse_hex(&c, 16, &m->offset)) || (err = expect(&c, ' ')) ||
	    (err = parse_hex(&c, 8, &major)) || (err = expect(&c, ':')) ||
	    (err = parse_hex(&c, 8, &minor)) || (err = expect(&c, ' ')) ||
	    (err = parse_dec(&c, &m->inode)))
		return err;
	if (m->start >= m->end)
		return -EINVAL;
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	return parse_path(&c, &m->path);
}

static int cmp_start(const void *a, const void *b)
{
	const struct mb_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The kernel prints mappings in order; sort anyway, then refuse overlaps, which would make
 * maps__find ambiguous. */
static int sort_check(struct mb_maps *m)
{
	if (m->n > 1) /* qsort(NULL, 0) is undefined */
		qsort(m->v, m->n, sizeof(*m->v), cmp_start);
	for (size_t i = 1; i < m->n; i++)
		if (m->v[i].start < m->v[i - 1].end)
			return -EINVAL;
	return 0;
}

static int push(struct mb_maps *m, size_t *cap, const struct mb_mapping *e)
{
	int err = mb_grow_max((void **)&m->v, cap, m->n + 1, sizeof(*m->v), 64, MAPS_MAX_ENTRIES);

	if (err)
		return err;
	m->v[m->n++] = *e;
	return 0;
}

int maps__parse(const char *text, size_t len, struct mb_maps *out)
{
	const char *p = text, *end = text + len;
	struct mb_maps m = {};
	size_t cap = 0;
	int err = 0;

	if (!out || (!text && len))
		return -EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct mb_mapping e;

		err = parse_line(p, (size_t)(eol - p), &e);
		if (err)
			goto out_free;
		err = push(&m, &cap, &e);
		if (err) {
			free(e.path);
			goto out_free;
		}
		p = nl ? nl + 1 : end;
	}
	err = sort_check(&m);
	if (err)
		goto out_free;
	*out = m;
	return 0;

out_free:
	maps__free(&m);
	*out = (struct mb_maps){};
	return err;
}

/* Slurp a file whose size stat cannot tell (procfs says 0). */
static int read_all(const char *path, char **buf, size_t *len)
{
	size_t cap = 64 << 10, n = 0;
	char *b = NULL, *nb;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (!b || n == cap) {
			if (b)
				cap *= 2;
			if (cap > MAPS_MAX_FILE) {
				err = -E2BIG;
				break;
			}
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}

int maps__read(pid_t pid, struct mb_maps *out)
{
	char path[64], *text = NULL;
	size_t len = 0;
	int err;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	/* Silent: a process that is gone is normal for some callers; they report. */
	err = read_all(path, &text, &len);
	if (err)
		return err;
	err = maps__parse(text, len, out);
	free(text);
	return err;
}

const struct mb_mapping *maps__find(const struct mb_maps *m, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!m || !m->n)
		return NULL;
	/* the last mapping with start <= addr */
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= m->v[lo - 1].end)
		return NULL;
	return &m->v[lo - 1];
}

void maps__free(struct mb_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

#define DELETED_SUFFIX " (deleted)"

bool maps__path_deleted(const char *path, size_t *len)
{
	size_t n = strlen(path), s = strlen(DELETED_SUFFIX);

	*len = n;
	if (n <= s || strcmp(path + n - s, DELETED_SUFFIX))
		return false;
	*len = n - s;
	return true;
}

/* --- pins: the files behind the executable mappings, held open ------------------------------- */

const struct mb_pin *mb_pins__find(const struct mb_pins *p, uint64_t inode, uint32_t major,
				   uint32_t minor)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->v[i].inode == inode && p->v[i].dev_major == major &&
		    p->v[i].dev_minor == minor)
			return &p->v[i];
	return NULL;
}

int mb_pins__add(struct mb_pins *p, pid_t pid, const struct mb_maps *maps)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct mb_mapping *m = &maps->v[i];
		char path[128];
		struct stat st;
		size_t len;
		int fd;

		if (!strchr(m->perms, 'x') || m->path[0] != '/' || !m->inode ||
		    !strncmp(m->path, "/memfd:", 7) ||
		    mb_pins__find(p, m->inode, m->dev_major, m->dev_minor))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && !maps__path_deleted(m->path, &len)) {
			/* without CAP_SYS_ADMIN: the path, if it is still the same inode */
			fd = open(m->path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0 && (fstat(fd, &st) || st.st_ino != m->inode)) {
				close(fd);
				fd = -1;
			}
		}
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		if (mb_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v), 32)) {
			close(fd);
			return -ENOMEM;
		}
		p->v[p->n++] = (struct mb_pin){ m->inode, m->dev_major, m->dev_minor, fd };
	}
	return 0;
}

void mb_pins__free(struct mb_pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		close(p->v[i].fd);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
