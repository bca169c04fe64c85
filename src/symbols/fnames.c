// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The function names a set of ELF files defines (fnames.h). */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/fnames.h"
#include "symbols/elfread.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* name as the symbolizer shows it: "fn@@GLIBC_2.2.5" -> "fn", "_ZN3fooEv" -> "foo()". */
static char *display_name(const char *name)
{
	const char *at = strchr(name, '@');
	char *base = at ? strndup(name, (size_t)(at - name)) : strdup(name);
	char *d;
	int status = -1;

	if (!base || strncmp(base, "_Z", 2))
		return base;
	d = __cxa_demangle(base, NULL, NULL, &status);
	if (status || !d) {
		free(d);
		return base;
	}
	free(base);
	return d;
}

static int push(struct fnames *s, char *name)
{
	if (!name)
		return -ENOMEM;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			free(name);
			return -ENOMEM;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = name;
	return 0;
}

/* The defined functions of one symbol table. */
static int add_table(struct fnames *s, Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);
	int err = 0;

	if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	for (size_t i = 0; !err && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (name && *name)
			err = push(s, display_name(name));
	}
	return err;
}

static bool seen_file(struct fnames *s, const char *path)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i], path))
			return true;
	return false;
}

int fnames_add_file(struct fnames *s, const char *path)
{
	Elf_Scn *scn = NULL;
	char **files;
	Elf *elf;
	int fd, err = 0;

	if (seen_file(s, path))
		return 0;
	files = realloc(s->files, (s->nfiles + 1) * sizeof(*files));
	if (!files || !(files[s->nfiles] = strdup(path)))
		return (s->files = files ?: s->files), -ENOMEM;
	s->files = files;
	s->nfiles++;
	elf = mb_elf_open(path, &fd);
	if (!elf)
		return -errno;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			err = add_table(s, elf, scn);
	}
	mb_elf_close(elf, fd);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void fnames_done(struct fnames *s)
{
	size_t k = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_str);
	for (size_t i = 1; i < s->n; i++) {
		if (!strcmp(s->v[i], s->v[k]))
			free(s->v[i]);
		else
			s->v[++k] = s->v[i];
	}
	s->n = k + 1;
}

bool fnames_has(const struct fnames *s, const char *name)
{
	return s->n && bsearch(&name, s->v, s->n, sizeof(*s->v), cmp_str);
}

void fnames_free(struct fnames *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->v);
	free(s->files);
	memset(s, 0, sizeof(*s));
}
