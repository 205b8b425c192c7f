// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program of fuzz_elf's seeds: a few functions, one inlined into
 * another, one called through the PLT, built small without libc:
 *
 *   S="-Os -nostdlib -Wl,--build-id -Wl,-z,norelro -Wl,--hash-style=gnu \
 *      -Wl,-z,noseparate-code -Wl,-z,max-page-size=0x40"
 *   gcc $S -g -static -o symtab_eh_dwarf elf_seed.c          # .symtab, .eh_frame, DWARF, build-id
 *   gcc $S -g -static -fno-asynchronous-unwind-tables -o debug_frame elf_seed.c
 *   gcc $S -g -static -gz=zlib -o compressed_dwarf elf_seed.c
 *   gcc $S -shared -fPIC -o plt.so elf_seed.c && strip --strip-unneeded plt.so  # .dynsym, PLT CFI
 *   strip -o stripped symtab_eh_dwarf                        # .eh_frame alone
 *
 * then each through `objcopy --remove-section=.comment`.  Not built by
 * make: the seeds are committed, so make test tries the same inputs on
 * every machine whatever its compiler.
 */
extern int elf_seed_external(int v);

static inline __attribute__((always_inline)) int twice(int v)
{
	return v * 2 + elf_seed_external(v);
}

__attribute__((noinline)) int elf_seed_leaf(int v)
{
	volatile int x = v;

	return twice(x) + 1;
}

__attribute__((noinline)) int elf_seed_middle(int v)
{
	char buf[64];

	for (int i = 0; i < 64; i++)
		buf[i] = (char)(v + i);
	return elf_seed_leaf(buf[v & 63]) + buf[0];
}

__attribute__((weak)) int elf_seed_external(int v)
{
	return v ^ 7;
}

void _start(void);
void _start(void)
{
	elf_seed_middle(3);
	for (;;)
		;
}
