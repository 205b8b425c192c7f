/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bounds on the ELF files of users.  libelf and libdw size what they
 * allocate by what the file's headers claim, and a sparse file can claim
 * gigabytes at no cost to its owner: a file whose tables are beyond any
 * real one's is not read at all, and its frames keep their addresses.
 */
#ifndef TRACT_ELFCAP_H
#define TRACT_ELFCAP_H

#include <gelf.h>

/* symbols a module may have: the recorder sorts a copy of them */
#define ELFCAP_SYMBOLS		(1u << 22)
#define ELFCAP_SYMTAB		((uint64_t)ELFCAP_SYMBOLS * sizeof(Elf64_Sym))
#define ELFCAP_STRTAB		(256ull << 20)
/* MiniDebugInfo, xz-compressed: a few hundred KiB in distributions, and root's only */
#define ELFCAP_DEBUGDATA	(16ull << 20)
#define ELFCAP_CFI		(128ull << 20)
/* a DWARF section as libdw gets it (a compressed one decompressed on the heap) */
#define ELFCAP_DWARF		(1ull << 30)
#define ELFCAP_DWARF_COMPRESSED	(256ull << 20)
#define ELFCAP_NOTES		(1u << 20)
/* beyond it the section headers take extended numbering, which no real program needs */
#define ELFCAP_SECTIONS		SHN_LORESERVE

/*
 * The file behind fd has an ELF header libelf may open: sections and
 * program headers counted in the header itself, few enough that
 * elf_begin()'s tables of them stay small.  0, or -1.
 */
int elfcap__header(int fd);
/* Every table of elf that tract reads is within its bound: 0, or -1 after a debug message. */
int elfcap__tables(Elf *elf, const char *name);
/*
 * MiniDebugInfo (.gnu_debugdata) is xz, whose output nothing in the file
 * bounds (a MiB of it makes gigabytes): libdwfl decompresses it whole, so
 * only a file root owns (a distribution's) may carry it.  0, or -1 after a
 * debug message; fd is elf's.
 */
int elfcap__minidebuginfo(int fd, Elf *elf, const char *name);

#endif
