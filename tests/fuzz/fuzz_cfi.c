// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the CFI expression evaluator (cfi_expr.c) on any
 * expression libdw could hand it from a user's .eh_frame, over registers
 * and stack bytes from the input (its first 512 bytes, read as words).
 * Each operation is 17 bytes: the atom (from 0xe0 up, vendors' range, one
 * of those CFI uses), then two 8-byte operands.
 */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cfi_expr.h"

#define OPS_MAX 64
#define OP_BYTES 17

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t atoms[] = {
	DW_OP_lit0, DW_OP_lit31, DW_OP_breg0, DW_OP_breg7, DW_OP_breg16, DW_OP_breg31, DW_OP_reg0,
	DW_OP_reg7, DW_OP_reg31, DW_OP_regx, DW_OP_bregx, DW_OP_call_frame_cfa, DW_OP_const1u,
	DW_OP_const8s, DW_OP_constu, DW_OP_consts, DW_OP_plus_uconst, DW_OP_deref, DW_OP_dup,
	DW_OP_drop, DW_OP_swap, DW_OP_over, DW_OP_neg, DW_OP_not, DW_OP_nop, DW_OP_stack_value,
	DW_OP_plus, DW_OP_minus, DW_OP_mul, DW_OP_and, DW_OP_or, DW_OP_xor, DW_OP_shl, DW_OP_shr,
	DW_OP_shra, DW_OP_ge, DW_OP_gt, DW_OP_le, DW_OP_lt, DW_OP_eq, DW_OP_ne, DW_OP_pick,
	DW_OP_bra, DW_OP_skip, DW_OP_deref_size, DW_OP_div, DW_OP_mod,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t stack[64];
	Dwarf_Op ops[OPS_MAX];
	struct uregs rs = { 0 };
	struct stack_window w = { .lo = 0x7ffff000, .len = sizeof(stack), .bytes = (const unsigned char *)stack };
	uint64_t cfa = 0x7ffff100, out;
	size_t nops = 0;
	int is_value;

	/* registers and the stack: the first bytes, read as words */
	memset(stack, 0, sizeof(stack));
	memcpy(stack, data, size < sizeof(stack) ? size : sizeof(stack));
	for (int i = 0; i < TRACT_UREGS; i++)
		rs.r[i] = i & 1 ? stack[i] : w.lo + (stack[i] & 0x1f8);
	rs.known = (uint32_t)stack[TRACT_UREGS];
	for (size_t at = 0; at + OP_BYTES <= size && nops < OPS_MAX; at += OP_BYTES, nops++) {
		uint8_t a = data[at];

		ops[nops] = (Dwarf_Op){ .atom = a >= DW_OP_lo_user ? atoms[(a - DW_OP_lo_user) % sizeof(atoms)] : a };
		memcpy(&ops[nops].number, data + at + 1, 8);
		memcpy(&ops[nops].number2, data + at + 9, 8);
		ops[nops].offset = at;
	}
	cfi_expr__eval(ops, nops, &rs, &w, NULL, &out, &is_value);
	cfi_expr__eval(ops, nops, &rs, &w, &cfa, &out, &is_value);
	return 0;
}
