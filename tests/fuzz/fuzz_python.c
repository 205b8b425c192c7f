// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: an interpreter's memory as the process watched may
 * have it, read for its Python frames.  A fake /proc holds one process
 * that maps a libpython3.11 (an ELF made here with the interpreter's
 * symbols) and whose memory is the input: the first byte picks the minor
 * version, the rest is the heap the runtime's interpreter list points to.
 * So that mutations make pointers that lead somewhere, an 8-byte word of
 * the input tagged 0xaaaa in its top bytes is a pointer into the heap (its
 * low 16 bits an offset, wrapped), one tagged 0xaaab one of the
 * interpreter's types (code, str, bytes).  Every thread's frames are read
 * twice (the second from the caches), and merged into a native stack.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "python.h"
#include "tract/abi.h"
#include "scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LOAD 0x10000ull		/* where the fake libpython is mapped */
#define RUNTIME 0x1000ull	/* its symbols, as ELF addresses */
#define VERSION 0x2000ull
#define CODE_TYPE 0x3000ull
#define UNICODE_TYPE 0x4000ull
#define BYTES_TYPE 0x5000ull
#define HEAP 0x100000ull
#define HEAP_MAX 65536

/* the code objects' fields, as the fake PyCode_Type's members say (inside its basic size) */
#define CODE_BASIC 200
static const struct {
	const char *name;
	uint64_t off;
} members[] = {
	{ "co_firstlineno", 48 }, { "co_filename", 104 }, { "co_name", 112 }, { "co_qualname", 120 },
	{ "co_linetable", 136 },
};

static char root[64], mem_path[128];

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

/* An ELF shared object whose .symtab defines the interpreter's five objects, loaded from address 0. */
static void make_libpython(const char *path)
{
	static const char strtab[] = "\0_PyRuntime\0Py_Version\0PyCode_Type\0PyUnicode_Type\0PyBytes_Type\0";
	static const char shstrtab[] = "\0.symtab\0.strtab\0.shstrtab\0.data\0";
	static uint8_t payload[0x6000];
	static Elf64_Sym syms[6];
	const uint64_t where[] = { RUNTIME, VERSION, CODE_TYPE, UNICODE_TYPE, BYTES_TYPE };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R, .p_align = 0x1000 };
	Elf_Scn *sec[4];
	Elf_Data *d;
	const struct {
		const void *buf;
		size_t size, name;
		GElf_Word type;
	} parts[4] = {
		{ payload, sizeof(payload), 27, SHT_PROGBITS },
		{ syms, sizeof(syms), 1, SHT_SYMTAB },
		{ strtab, sizeof(strtab), 9, SHT_STRTAB },
		{ shstrtab, sizeof(shstrtab), 17, SHT_STRTAB },
	};

	for (size_t i = 0, name = 1; i < 5; i++) {
		syms[i + 1] = (Elf64_Sym){ .st_name = (Elf64_Word)name, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
					   .st_shndx = 1, .st_value = where[i], .st_size = 8 };
		name += strlen(strtab + name) + 1;
	}
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_WRITE, NULL)) ||
	    !gelf_newehdr(elf, ELFCLASS64) || !gelf_getehdr(elf, &eh))
		abort();
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	if (!gelf_update_ehdr(elf, &eh) || !gelf_newphdr(elf, 1))
		abort();
	for (size_t i = 0; i < 4; i++) {
		GElf_Shdr sh;

		if (!(sec[i] = elf_newscn(elf)) || !(d = elf_newdata(sec[i])) || !gelf_getshdr(sec[i], &sh))
			abort();
		d->d_buf = (void *)parts[i].buf;
		d->d_size = parts[i].size;
		d->d_align = 8;
		d->d_type = parts[i].type == SHT_SYMTAB ? ELF_T_SYM : ELF_T_BYTE;
		sh.sh_name = (Elf64_Word)parts[i].name;
		sh.sh_type = parts[i].type;
		sh.sh_flags = i == 0 ? SHF_ALLOC : 0;
		sh.sh_entsize = parts[i].type == SHT_SYMTAB ? sizeof(Elf64_Sym) : 0;
		sh.sh_link = parts[i].type == SHT_SYMTAB ? 3 : 0;
		sh.sh_info = parts[i].type == SHT_SYMTAB ? 1 : 0;
		if (!gelf_update_shdr(sec[i], &sh))
			abort();
	}
	/* (read again: the program header's count is in it now) */
	if (!gelf_getehdr(elf, &eh))
		abort();
	eh.e_shstrndx = 4;
	if (!gelf_update_ehdr(elf, &eh) || elf_update(elf, ELF_C_NULL) < 0) {
		fprintf(stderr, "fake libpython (layout): %s\n", elf_errmsg(-1));
		abort();
	}
	ph.p_offset = 0;
	ph.p_filesz = ph.p_memsz = 0x6000;
	if (!gelf_update_phdr(elf, 0, &ph) || elf_update(elf, ELF_C_WRITE) < 0) {
		fprintf(stderr, "fake libpython: %s\n", elf_errmsg(-1));
		abort();
	}
	elf_end(elf);
	close(fd);
}

static void tear_down(void)
{
	static const char *const files[] = { "1/root/libpython3.11.so.1.0", "1/maps", "1/status", "1/mem", "1/root",
					     "1/task/1/schedstat", "1/task/2/schedstat", "1/task/1", "1/task/2",
					     "1/task", "1" };
	char path[256];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		remove(path);
	}
	rmdir(root);
}

static void set_up(void)
{
	char path[256];

	fuzz_scratch(root, sizeof(root), "python");
	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/1", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/1/root", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/1/root/libpython3.11.so.1.0", root);
	make_libpython(path);
	snprintf(path, sizeof(path), "%s/1/maps", root);
	put_file(path, "00010000-00016000 r--p 00000000 08:01 42 /libpython3.11.so.1.0\n");
	snprintf(path, sizeof(path), "%s/1/status", root);
	put_file(path, "Name:\tpython3\nTgid:\t1\nPid:\t1\nNSpid:\t1\n");
	/* threads still since their stacks' copies: the frames are read to the end */
	snprintf(path, sizeof(path), "%s/1/task", root);
	mkdir(path, 0755);
	for (int tid = 1; tid <= 2; tid++) {
		snprintf(path, sizeof(path), "%s/1/task/%d", root, tid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/1/task/%d/schedstat", root, tid);
		put_file(path, "100 20 7\n");
	}
	snprintf(mem_path, sizeof(mem_path), "%s/1/mem", root);
	atexit(tear_down);
}

static void put64(uint8_t *b, uint64_t off, uint64_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

/* The input's tagged words made pointers: into the heap, or at a type. */
static void relocate(uint8_t *heap, size_t n)
{
	static const uint64_t types[] = { CODE_TYPE, UNICODE_TYPE, BYTES_TYPE, RUNTIME };

	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, heap + i, sizeof(w));
		if (w >> 48 == 0xaaaa)
			put64(heap, i, HEAP + (w & 0xffff) % n);
		else if (w >> 48 == 0xaaab)
			put64(heap, i, LOAD + types[w & 3]);
	}
}

/* The process's memory: the library's objects, then the heap. */
static void write_memory(int minor, const uint8_t *heap, size_t n)
{
	static uint8_t lib[0x6000];
	int fd = open(mem_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t names = CODE_TYPE + 0x800, array = CODE_TYPE + 0x400;

	memset(lib, 0, sizeof(lib));
	put64(lib, VERSION, 0x030000f0ull | (uint64_t)minor << 16);
	/* the runtime's interpreter list (3.13: its debug offsets come first; the heap's start gives them) */
	put64(lib, RUNTIME + 40, HEAP);
	if (minor == 13)
		memcpy(lib + RUNTIME, heap, n < 0x400 ? n : 0x400);
	put64(lib, CODE_TYPE + 32, CODE_BASIC);
	put64(lib, CODE_TYPE + 240, LOAD + array);
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		put64(lib, array + 40 * i, LOAD + names + 32 * i);
		put64(lib, array + 40 * i + 16, members[i].off);
		memcpy(lib + names + 32 * i, members[i].name, strlen(members[i].name) + 1);
	}
	if (fd < 0 || pwrite(fd, lib, sizeof(lib), LOAD) != sizeof(lib) ||
	    (n && pwrite(fd, heap, n, HEAP) != (ssize_t)n))
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int minors[] = { 11, 12, 13, 10 };
	static int ready;
	uint8_t *heap;
	struct python *py;
	struct python_stack ps;
	size_t n;

	if (!ready) {
		set_up();
		ready = 1;
	}
	if (size < 1)
		return 0;
	n = size - 1 < HEAP_MAX ? size - 1 : HEAP_MAX;
	heap = malloc(n + 8);
	memcpy(heap, data + 1, n);
	relocate(heap, n);
	write_memory(minors[data[0] & 3], heap, n);
	py = python__new(root);
	for (int round = 0; round < 2; round++) {
		for (uint32_t tid = 1; tid <= 2; tid++) {
			size_t nseg = python__read(py, 1, tid, 7 << 2 | TRACT_STILL_OFF, &ps);
			char *merged;

			if (nseg > PYTHON_MAX_SEGMENTS)
				abort();
			/* FUZZ_PYTHON_SHOW=1: what an input reads as, to check a seed reaches the frames */
			for (size_t s = 0; getenv("FUZZ_PYTHON_SHOW") && s < nseg; s++)
				fprintf(stderr, "tid %u segment %zu: %s\n", tid, s, ps.seg[s]);
			for (size_t s = 0; s < nseg; s++)
				if (!ps.seg[s] || strlen(ps.seg[s]) > (size_t)256 * (4 * 400 + 4 * 200 + 32))
					abort();
			merged = python__merge("_start;main;_PyEval_EvalFrameDefault;PyObject_Call;"
					       "_PyEval_EvalFrameDefault.cold;read", &ps, round);
			free(merged);
			python_stack__clear(&ps);
		}
	}
	python__forget(py, 1);
	python__free(py);
	/* the line tables' reader alone, on the raw input */
	python__line(data, size, 1, (int64_t)size / 2);
	free(heap);
	return 0;
}
