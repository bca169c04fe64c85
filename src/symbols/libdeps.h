/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An ELF file's dynamic dependencies (its PT_INTERP, DT_NEEDED names and DT_RUNPATH/DT_RPATH)
 * and where the dynamic linker finds each library: the unwinder builds the CFI tables of an
 * executable's whole DT_NEEDED closure before it runs.
 */
#ifndef MUXBPF_LIBDEPS_H
#define MUXBPF_LIBDEPS_H

#include <stdbool.h>
#include <stddef.h>

/* The interpreter (into interp, "" for none), the DT_NEEDED names (*needed: *nneeded strdup'ed
 * names in a malloc'ed array, the caller frees both) and the RUNPATH or RPATH (into runpath, ""
 * for none) of the ELF file path.  0 or -errno. */
int libdeps_read(const char *path, char ***needed, int *nneeded, char *runpath, size_t rsz,
		 char *interp, size_t isz);
/* Find library name as the dynamic linker would for a file in origin_dir: a name with a slash
 * as it is, else runpath's directories ($ORIGIN expanded), exe_dir (muxbpf runs netmux with
 * LD_LIBRARY_PATH = its directory), then the system directories.  The path into out. */
bool libdeps_resolve(const char *name, const char *exe_dir, const char *origin_dir,
		     const char *runpath, char *out, size_t size);

#endif /* MUXBPF_LIBDEPS_H */
