// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: an ELF file a user maps executable, as the recorder
 * reads it: its build-id, symbols (.symtab, .dynsym, MiniDebugInfo),
 * the OpenTelemetry thread context's TLS symbol and relocation,
 * inlined calls from its DWARF, and .eh_frame/.debug_frame with the CFI
 * expressions an unwind evaluates.  The input is the file, mapped whole by
 * process 1 of a /proc laid out in a directory of the fuzzer's; its last
 * bytes also make up the registers and the stack the unwinder walks.
 * Seeds are small programs built from elf_seed.c (see there).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <sanitizer/lsan_interface.h>
#include "otel_tls.h"
#include "unwind.h"
#include "usyms.h"
#include "scratch.h"

#define START 0x400000ull
#define STACK 0x7ffff000ull
#define IPS 16
#define UNWINDS 4
#define WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __real_dwarf_getscopes(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **scopes);
int __wrap_dwarf_getscopes(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **scopes);

/*
 * libdw's own leak, left out of the leak check: dwarf_getscopes() loses the
 * list it made when its second walk of the DWARF fails (inlines.c stops
 * asking then).  Linked with --wrap, tract's calls come here: what libdw
 * allocates inside is not checked, and a list it returns is handed on as a
 * copy that is, so a list tract forgets to free is still a leak.  (A
 * suppression by function name would need every malloc's stack unwound the
 * slow way, through libdw built without frame pointers: three times the
 * target's time.)
 */
int __wrap_dwarf_getscopes(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	Dwarf_Die *own = NULL;
	int n;

	__lsan_disable();
	n = __real_dwarf_getscopes(cudie, pc, &own);
	__lsan_enable();
	if (n > 0) {
		*scopes = malloc((size_t)n * sizeof(*own));
		if (!*scopes)
			abort();
		memcpy(*scopes, own, (size_t)n * sizeof(*own));
		free(own);
	}
	return n;
}

/* A little-endian word of the input, from the end back, cycling. */
static uint64_t word(const uint8_t *data, size_t size, size_t i)
{
	uint64_t v = 0;

	for (size_t b = 0; b < 4 && size; b++)
		v |= (uint64_t)data[size - 1 - (i * 4 + b) % size] << (8 * b);
	return v;
}

/* Where the code is in the file, as its sections say (else all of it): the addresses to try. */
static void code_range(const uint8_t *data, size_t size, uint64_t *lo, uint64_t *len)
{
	Elf *elf = elf_memory((char *)data, size);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*lo = 0;
	*len = size;
	while (elf && (scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_offset < size && sh.sh_size) {
			*lo = sh.sh_offset;
			*len = sh.sh_size < size - sh.sh_offset ? sh.sh_size : size - sh.sh_offset;
		}
	}
	if (elf)
		elf_end(elf);
}

/* The i-th of IPS addresses spread over the code, moved a little by the input. */
static uint64_t address(const uint8_t *data, size_t size, uint64_t lo, uint64_t len, size_t i)
{
	return START + lo + (i % IPS) * len / IPS + word(data, size, i) % 16;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[64], file[128];
	static struct {
		struct tract_ustack_copy copy;
		uint64_t stack[WORDS];
	} s;
	uint64_t ips[IPS], out[32], lo, len;
	struct otel_tls tls;
	struct usyms *u;
	char *text;
	FILE *f;
	int cut;

	if (!root[0]) {
		char path[192];

		fuzz_scratch(root, sizeof(root), "elf");
		if (!mkdtemp(root))
			abort();
		snprintf(path, sizeof(path), "%s/1", root);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/1/root", root);
		mkdir(path, 0700);
		snprintf(file, sizeof(file), "%s/1/root/elf", root);
		snprintf(path, sizeof(path), "%s/1/maps", root);
		f = fopen(path, "w");
		if (!f)
			abort();
		fprintf(f, "%llx-%llx r-xp 00000000 fd:01 1234 /elf\n", START, START + 0x1000000);
		fprintf(f, "%llx-%llx rw-p 00000000 00:00 0 [stack]\n", STACK - 0x1000, STACK + 0x1000);
		fclose(f);
	}
	/* a new file each time: libelf maps it, and the cache knows files by identity */
	unlink(file);
	f = fopen(file, "w");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);

	elf_version(EV_CURRENT);
	code_range(data, size, &lo, &len);
	u = usyms__new_at(4, root);
	for (size_t i = 0; i < IPS; i++)
		ips[i] = address(data, size, lo, len, i);
	if (!usyms__symbolize(u, 1, 0, ips, IPS, &text))
		free(text);

	/* stacks of return addresses into the file, from a few of its addresses */
	for (size_t k = 0; k < UNWINDS; k++) {
		memset(&s, 0, sizeof(s));
		s.copy.tgid = 1;
		s.copy.len = sizeof(s.stack);
		for (size_t i = 0; i < TRACT_UREGS; i++)
			s.copy.regs[i] = STACK + (word(data, size, IPS + i) & 0xff) * 8;
		s.copy.regs[TRACT_UREG_SP] = STACK;
		s.copy.regs[TRACT_UREG_IP] = ips[(k * 5 + 3) % IPS];
		for (size_t i = 0; i < WORDS; i++)
			s.stack[i] = i & 1 ? address(data, size, lo, len, i + k) + 1 : STACK + (word(data, size, i) & 0x1ff) * 8;
		unwind__copy(u, &s.copy, s.stack, out, 32, &cut, NULL);
	}
	usyms__free(u);
	otel_tls_find(root, 1, &tls);
	return 0;
}
