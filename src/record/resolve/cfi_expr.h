/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DWARF expressions of call frame information, evaluated over a
 * thread's registers and the bytes copied from its stack: what the
 * unwinder needs of them, and all a fuzzer needs to try.
 */
#ifndef TRACT_CFI_EXPR_H
#define TRACT_CFI_EXPR_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tract/abi.h"

struct uregs {
	uint64_t r[TRACT_UREGS];
	uint32_t known;		/* a bit per register whose value is known */
};

/* The copied bytes: a window of the thread's stack from lo up. */
/* The bytes copied from sp up, and those from far_lo up where the stack went on elsewhere (far_len 0: none). */
struct stack_window {
	uint64_t lo;
	size_t len;
	const unsigned char *bytes;
	uint64_t far_lo;
	size_t far_len;
	const unsigned char *far_bytes;
};

static inline int window_read(const struct stack_window *w, uint64_t addr, uint64_t *v)
{
	if (addr >= w->lo && w->len >= sizeof(*v) && addr - w->lo <= w->len - sizeof(*v)) {
		memcpy(v, w->bytes + (addr - w->lo), sizeof(*v));
		return 0;
	}
	if (addr >= w->far_lo && w->far_len >= sizeof(*v) && addr - w->far_lo <= w->far_len - sizeof(*v)) {
		memcpy(v, w->far_bytes + (addr - w->far_lo), sizeof(*v));
		return 0;
	}
	return -1;
}

static inline int reg_value(const struct uregs *rs, uint64_t regno, uint64_t *v)
{
	if (regno >= TRACT_UREGS || !(rs->known & (1u << regno)))
		return -1;
	*v = rs->r[regno];
	return 0;
}

/*
 * A CFI expression: its result, and whether that is the value itself
 * (*is_value) or the address it is saved at.  cfa is for
 * DW_OP_call_frame_cfa (NULL while the CFA itself is computed).  0, or -1
 * for an expression it cannot evaluate.
 */
int cfi_expr__eval(const Dwarf_Op *ops, size_t nops, const struct uregs *rs, const struct stack_window *w,
		   const uint64_t *cfa, uint64_t *out, int *is_value);

#endif
