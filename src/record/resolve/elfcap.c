// SPDX-License-Identifier: GPL-2.0-only
#include <byteswap.h>
#include <endian.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfcap.h"
#include "util.h"

int elfcap__header(int fd)
{
	union {
		unsigned char ident[EI_NIDENT];
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} h;
	uint16_t shnum, phnum;
	uint64_t shoff;
	int swap;

	if (pread(fd, &h, sizeof(h), 0) < (ssize_t)sizeof(h.e32) || memcmp(h.ident, ELFMAG, SELFMAG))
		return -1;
	swap = h.ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB);
	if (h.ident[EI_CLASS] == ELFCLASS64) {
		shnum = h.e64.e_shnum, phnum = h.e64.e_phnum, shoff = h.e64.e_shoff;
		if (swap)
			shoff = bswap_64(shoff);
	} else {
		shnum = h.e32.e_shnum, phnum = h.e32.e_phnum, shoff = h.e32.e_shoff;
		if (swap)
			shoff = bswap_32((uint32_t)shoff);
	}
	if (swap)
		shnum = bswap_16(shnum), phnum = bswap_16(phnum);
	/* 0 sections at an offset, or PN_XNUM: the true count is elsewhere, and unbounded */
	if ((!shnum && shoff) || shnum >= ELFCAP_SECTIONS || phnum == PN_XNUM)
		return -1;
	return 0;
}

/* The size of a section's contents as libelf hands them over, decompressed. */
static uint64_t section_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	GElf_Chdr ch;

	Elf_Data *raw;

	if (sh->sh_flags & SHF_COMPRESSED)
		return gelf_getchdr(scn, &ch) ? ch.ch_size : UINT64_MAX;
	/* GNU's .zdebug_*: "ZLIB" and the size, big-endian */
	if (!strncmp(name, ".zdebug_", 8)) {
		const unsigned char *b;
		uint64_t size = 0;

		raw = elf_rawdata(scn, NULL);
		if (!raw || !raw->d_buf || raw->d_size < 12 || memcmp(raw->d_buf, "ZLIB", 4))
			return sh->sh_size;
		b = raw->d_buf;
		for (int i = 4; i < 12; i++)
			size = size << 8 | b[i];
		return size;
	}
	return sh->sh_size;
}

static int too_big(const char *name, const char *what, uint64_t size, uint64_t cap)
{
	if (size <= cap)
		return 0;
	tract_debug("%s: %s of %llu bytes is beyond %llu: not read", name, what, (unsigned long long)size,
		    (unsigned long long)cap);
	return 1;
}

int elfcap__tables(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, phnum;
	int bad = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = SHN_UNDEF;
	while (!bad && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *s;
		uint64_t size;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		s = shstrndx != SHN_UNDEF ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!s)
			s = "";
		size = section_size(scn, &sh, s);
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			bad = too_big(name, "a symbol table", size, ELFCAP_SYMTAB);
		else if (sh.sh_type == SHT_STRTAB)
			bad = too_big(name, "a string table", size, ELFCAP_STRTAB);
		else if (sh.sh_type == SHT_NOTE)
			bad = too_big(name, "a note", size, ELFCAP_NOTES);
		else if (!strcmp(s, ".gnu_debugdata"))
			bad = too_big(name, s, size, ELFCAP_DEBUGDATA);
		else if (!strcmp(s, ".eh_frame") || !strcmp(s, ".eh_frame_hdr") || !strcmp(s, ".debug_frame"))
			bad = too_big(name, s, size, ELFCAP_CFI);
		else if (!strncmp(s, ".debug_", 7) || !strncmp(s, ".zdebug_", 8))
			bad = too_big(name, s, size,
				      sh.sh_flags & SHF_COMPRESSED || s[1] == 'z' ? ELFCAP_DWARF_COMPRESSED : ELFCAP_DWARF);
	}
	/* the build-id is read from the notes segment too */
	if (!bad && !elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum && !bad; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_NOTE)
				bad = too_big(name, "a notes segment", ph.p_filesz, ELFCAP_NOTES);
		}
	}
	return bad ? -1 : 0;
}

int elfcap__minidebuginfo(int fd, Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	struct stat st;

	if (!fstat(fd, &st) && st.st_uid == 0)
		return 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *s;

		if (gelf_getshdr(scn, &sh) && (s = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(s, ".gnu_debugdata")) {
			tract_debug("%s: MiniDebugInfo in a file of uid %u: not read", name, (unsigned int)st.st_uid);
			return -1;
		}
	}
	return 0;
}
