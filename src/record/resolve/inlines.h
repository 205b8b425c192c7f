/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The functions a compiler inlined at an address, from a module's DWARF
 * (its own .debug_info, or a debug file found by build-id): a stack of
 * optimised code then names the inlined calls too, as a debugger would.
 * Answers are cached per address, since the same frames come back.
 */
#ifndef TRACT_INLINES_H
#define TRACT_INLINES_H

#include <stdint.h>
#include <elfutils/libdwfl.h>

struct inlines;

/*
 * Keeps dwfl (one module, mod, reported at its ELF addresses) to answer
 * from; NULL when the module has no DWARF, and dwfl stays the caller's.
 */
struct inlines *inlines__open(Dwfl *dwfl, Dwfl_Module *mod);
void inlines__free(struct inlines *in);
/*
 * The functions inlined at ELF address addr, innermost first, each
 * followed by '\n'; "" for none.  Valid until the next call.
 */
const char *inlines__at(struct inlines *in, uint64_t addr);
/* The ELF files it reads from (the module's, and its debug file's if another): up to 2. */
size_t inlines__files(const struct inlines *in, Elf **elves);
/* About what the answers cached take (not libdw's own memory, which the caller counts). */
size_t inlines__bytes(const struct inlines *in);

#endif
