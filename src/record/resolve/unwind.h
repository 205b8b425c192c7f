/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User stacks unwound by call frame information (.eh_frame, .debug_frame)
 * over bytes the sampler copied from the top of a thread's stack: whole
 * stacks through code built without frame pointers, as most distribution
 * binaries and libc are.  The tables come from the symbolizer's module
 * cache, so a library is read once for every process that maps it.
 */
#ifndef TRACT_UNWIND_H
#define TRACT_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "tract/abi.h"

struct usyms;

struct unwind_stats {
	uint64_t stacks;	/* unwound */
	uint64_t frames;	/* ... their frames together */
	uint64_t cut;		/* stacks that ended before their outermost frame */
	uint64_t bytes;		/* stack bytes they came with */
	uint64_t ns;		/* time spent unwinding, but for ... */
	uint64_t loads;		/* stacks that first read a module's tables in */
	uint64_t load_ns;	/* ... and their time */
};

/*
 * Unwinds copy (the registers, then copy->len bytes from the stack pointer
 * up at bytes) of process tgid: ips gets at most max addresses, innermost
 * first, ips[0] the exact PC.  *cut: the walk ended before the outermost
 * frame (the bytes ran out, a frame no table covers, a bound).  Returns how
 * many addresses; st (may be NULL) adds up what it did.
 */
size_t unwind__copy(struct usyms *u, const struct tract_ustack_copy *copy, const void *bytes,
		    uint64_t *ips, size_t max, int *cut, struct unwind_stats *st);

#endif
