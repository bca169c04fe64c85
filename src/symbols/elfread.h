/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ELF helpers the symbolizer, the CFI compiler, the unwinder and the profile writers share
 * (libelf): opening a file, sections by name, the GNU build-id, what debug data a file holds.
 *
 * Files are opened with ELF_C_READ, never ELF_C_READ_MMAP: what is read is copied into memory,
 * so a binary rewritten in place while muxbpf reads it (cp over it, after the target exits)
 * cannot SIGBUS us.
 */
#ifndef MUXBPF_ELFREAD_H
#define MUXBPF_ELFREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include <libelf.h>

/* The longest build-id read (bytes); GNU ld writes 20 (SHA-1). */
#define MB_BUILD_ID_MAX 64

/* path as an ELF file: the Elf, and its descriptor in *fd.  NULL with errno set (ENOEXEC: not
 * an ELF file). */
Elf *mb_elf_open(const char *path, int *fd);
/* elf_end and close (safe on NULL and -1). */
void mb_elf_close(Elf *elf, int fd);

/* The section called name, or NULL; its header into *shdr when shdr is not NULL. */
Elf_Scn *mb_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr);

/* The GNU build-id note (from the section headers, which strip and --only-keep-debug keep):
 * its bytes into id (room for MB_BUILD_ID_MAX), its length into *len.  false when none. */
bool mb_elf_build_id(Elf *elf, unsigned char *id, size_t *len);
/* The same in lowercase hex into hex (size bytes, truncated to fit); "" when none. */
void mb_elf_build_id_hex(Elf *elf, char *hex, size_t size);
/* The same of the ELF file at path ("" when it has none or cannot be read).  0 or -errno. */
int mb_elf_build_id_path(const char *path, char *hex, size_t size);
/* len bytes of a build-id in lowercase hex into hex (size bytes, truncated to fit). */
void mb_build_id_hex(const unsigned char *id, size_t len, char *hex, size_t size);

/* The separate debuginfo of elf by its build-id, DIR/.build-id/xx/yyyy.debug under each of dirs
 * then /usr/lib/debug: the first readable path into out.  false when none (or no build-id). */
bool mb_elf_debug_by_build_id(Elf *elf, const char *const *dirs, int ndirs, char *out,
			      size_t size);

/* A .symtab with at least one symbol. */
bool mb_elf_has_symtab(Elf *elf);
/* DWARF that libdw can use: .debug_info (or .zdebug_info) with contents, string sections
 * terminated. */
bool mb_elf_has_dwarf(Elf *elf);

/* The CRC32 of a whole file (what .gnu_debuglink records).  false on a read error. */
bool mb_file_crc32(int fd, uint32_t *out);

#endif /* MUXBPF_ELFREAD_H */
