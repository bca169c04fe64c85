// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* An ELF file's dynamic dependencies and where the dynamic linker finds them (libdeps.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "symbols/elfread.h"
#include "symbols/libdeps.h"

/* The Debian multiarch directory of the machine muxbpf runs on (its targets' libraries). */
#if defined(__aarch64__)
#define MB_MULTIARCH "aarch64-linux-gnu"
#else
#define MB_MULTIARCH "x86_64-linux-gnu"
#endif

static bool file_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int libdeps_read(const char *path, char ***needed, int *nneeded, char *runpath, size_t rsz,
		 char *interp, size_t isz)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t nph;
	int fd;

	*nneeded = 0;
	*needed = NULL;
	runpath[0] = interp[0] = 0;
	elf = mb_elf_open(path, &fd);
	if (!elf)
		return -errno;
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP || !ph.p_filesz ||
			    ph.p_filesz >= isz)
				continue;
			d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_BYTE);
			if (d) {
				memcpy(interp, d->d_buf, ph.p_filesz);
				interp[ph.p_filesz] = 0;
			}
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < shdr.sh_size / (shdr.sh_entsize ? shdr.sh_entsize : 16);
		     i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			s = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				char **v = realloc(*needed, (*nneeded + 1) * sizeof(*v));

				if (!v)
					break;
				*needed = v;
				if (((*needed)[*nneeded] = strdup(s)))
					(*nneeded)++;
			} else {
				snprintf(runpath, rsz, "%s", s);
			}
		}
	}
	mb_elf_close(elf, fd);
	return 0;
}

static bool search_dir(const char *dir, const char *origin_dir, const char *name, char *out,
		       size_t size)
{
	if (!strncmp(dir, "$ORIGIN", 7))
		snprintf(out, size, "%s%.*s/%s", origin_dir, (int)(PATH_MAX / 2), dir + 7, name);
	else
		snprintf(out, size, "%.*s/%s", (int)(PATH_MAX / 2), dir, name);
	return file_exists(out);
}

bool libdeps_resolve(const char *name, const char *exe_dir, const char *origin_dir,
		     const char *runpath, char *out, size_t size)
{
	static const char *const sys[] = { "/lib/" MB_MULTIARCH, "/usr/lib/" MB_MULTIARCH,
					   "/lib64", "/usr/lib64", "/lib", "/usr/lib" };
	char rp[PATH_MAX], *save = NULL, *dir;

	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return file_exists(out);
	}
	snprintf(rp, sizeof(rp), "%s", runpath);
	for (dir = strtok_r(rp, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		if (search_dir(dir, origin_dir, name, out, size))
			return true;
	/* muxbpf runs netmux with LD_LIBRARY_PATH = its directory (libmux.so lives there). */
	if (search_dir(exe_dir, origin_dir, name, out, size))
		return true;
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (search_dir(sys[i], origin_dir, name, out, size))
			return true;
	return false;
}
