// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ELF helpers shared by the symbolizer, the CFI compiler, the unwinder and sprof (elfread.h;
 * not elf.h, which would hide the system header of that name behind -Isrc). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "symbols/elfread.h"

Elf *mb_elf_open(const char *path, int *fd)
{
	Elf *elf;

	*fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = EINVAL;
		return NULL;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		mb_elf_close(elf, *fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return elf;
}

void mb_elf_close(Elf *elf, int fd)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

Elf_Scn *mb_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name)) {
			if (shdr)
				*shdr = sh;
			return scn;
		}
	}
	return NULL;
}

bool mb_elf_build_id(Elf *elf, unsigned char *id, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, next, name_off, desc_off;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
			    nh.n_descsz && nh.n_descsz <= MB_BUILD_ID_MAX) {
				memcpy(id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				*len = nh.n_descsz;
				return true;
			}
			off = next;
		}
	}
	return false;
}

void mb_build_id_hex(const unsigned char *id, size_t len, char *hex, size_t size)
{
	if (!size)
		return;
	hex[0] = 0;
	for (size_t i = 0; i < len && 2 * i + 2 < size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
}

void mb_elf_build_id_hex(Elf *elf, char *hex, size_t size)
{
	unsigned char id[MB_BUILD_ID_MAX];
	size_t len = 0;

	if (!mb_elf_build_id(elf, id, &len))
		len = 0;
	mb_build_id_hex(id, len, hex, size);
}

int mb_elf_build_id_path(const char *path, char *hex, size_t size)
{
	int fd;
	Elf *elf;

	if (size)
		hex[0] = 0;
	elf = mb_elf_open(path, &fd);
	if (!elf)
		return -errno;
	mb_elf_build_id_hex(elf, hex, size);
	mb_elf_close(elf, fd);
	return 0;
}

bool mb_elf_debug_by_build_id(Elf *elf, const char *const *dirs, int ndirs, char *out,
			      size_t size)
{
	char hex[2 * MB_BUILD_ID_MAX + 1];

	mb_elf_build_id_hex(elf, hex, sizeof(hex));
	if (strlen(hex) < 4)
		return false;
	for (int i = 0; i <= ndirs; i++) {
		const char *dir = i < ndirs ? dirs[i] : "/usr/lib/debug";

		snprintf(out, size, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
		if (access(out, R_OK) == 0)
			return true;
	}
	return false;
}

bool mb_elf_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size > sh.sh_entsize)
			return true;
	}
	return false;
}

/* A section called name with contents (not SHT_NOBITS). */
static bool has_data_section(Elf *elf, const char *name)
{
	GElf_Shdr sh;

	return mb_elf_section(elf, name, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size;
}

/*
 * libdw 0.188 runs strlen off the end of a string section that lacks its final NUL (found by
 * fuzz/fuzz_symbolize): the DWARF of such a file is not used.  Compressed sections are
 * checked by libdw after inflating.
 */
static bool dwarf_strings_terminated(Elf *elf)
{
	static const char *const names[] = { ".debug_str", ".debug_line_str" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = mb_elf_section(elf, names[i], &sh);
		Elf_Data *d;

		if (!scn || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size && ((const char *)d->d_buf)[d->d_size - 1] != '\0')
			return false;
	}
	return true;
}

bool mb_elf_has_dwarf(Elf *elf)
{
	return (has_data_section(elf, ".debug_info") || has_data_section(elf, ".zdebug_info")) &&
	       dwarf_strings_terminated(elf);
}

bool mb_file_crc32(int fd, uint32_t *out)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		crc = crc32(crc, buf, (uInt)n);
		off += n;
	}
	*out = (uint32_t)crc;
	return n == 0;
}
