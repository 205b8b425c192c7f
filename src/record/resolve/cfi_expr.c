// SPDX-License-Identifier: GPL-2.0-only
#include <dwarf.h>
#include "cfi_expr.h"

#define EXPR_STACK 16

static int binary_op(unsigned int atom, uint64_t a, uint64_t b, uint64_t *out)
{
	switch (atom) {
	case DW_OP_plus: *out = a + b; return 0;
	case DW_OP_minus: *out = a - b; return 0;
	case DW_OP_mul: *out = a * b; return 0;
	case DW_OP_and: *out = a & b; return 0;
	case DW_OP_or: *out = a | b; return 0;
	case DW_OP_xor: *out = a ^ b; return 0;
	case DW_OP_shl: *out = b < 64 ? a << b : 0; return 0;
	case DW_OP_shr: *out = b < 64 ? a >> b : 0; return 0;
	case DW_OP_shra: *out = b < 64 ? (uint64_t)((int64_t)a >> b) : 0; return 0;
	case DW_OP_ge: *out = (int64_t)a >= (int64_t)b; return 0;
	case DW_OP_gt: *out = (int64_t)a > (int64_t)b; return 0;
	case DW_OP_le: *out = (int64_t)a <= (int64_t)b; return 0;
	case DW_OP_lt: *out = (int64_t)a < (int64_t)b; return 0;
	case DW_OP_eq: *out = a == b; return 0;
	case DW_OP_ne: *out = a != b; return 0;
	}
	return -1;
}

int cfi_expr__eval(const Dwarf_Op *ops, size_t nops, const struct uregs *rs, const struct stack_window *w,
		   const uint64_t *cfa, uint64_t *out, int *is_value)
{
	uint64_t stack[EXPR_STACK], v;
	size_t top = 0;

	*is_value = 0;
	for (size_t i = 0; i < nops; i++) {
		unsigned int atom = ops[i].atom;

		if (top == EXPR_STACK)
			return -1;
		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			stack[top++] = atom - DW_OP_lit0;
		} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			if (reg_value(rs, atom - DW_OP_breg0, &v))
				return -1;
			stack[top++] = v + (int64_t)ops[i].number;
		} else if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			/* the value is in a register: a whole expression of its own */
			*is_value = 1;
			return nops == 1 ? reg_value(rs, atom - DW_OP_reg0, out) : -1;
		} else {
			switch (atom) {
			case DW_OP_regx:
				*is_value = 1;
				return nops == 1 ? reg_value(rs, ops[i].number, out) : -1;
			case DW_OP_bregx:
				if (reg_value(rs, ops[i].number, &v))
					return -1;
				stack[top++] = v + (int64_t)ops[i].number2;
				break;
			case DW_OP_call_frame_cfa:
				if (!cfa)
					return -1;
				stack[top++] = *cfa;
				break;
			case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
			case DW_OP_const8u: case DW_OP_constu:
			case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
			case DW_OP_const8s: case DW_OP_consts:
				/* libdw sign-extends the signed forms already */
				stack[top++] = ops[i].number;
				break;
			case DW_OP_plus_uconst:
				if (!top)
					return -1;
				stack[top - 1] += ops[i].number;
				break;
			case DW_OP_deref:
				if (!top || window_read(w, stack[top - 1], &stack[top - 1]))
					return -1;
				break;
			case DW_OP_dup:
				if (!top)
					return -1;
				stack[top] = stack[top - 1];
				top++;
				break;
			case DW_OP_drop:
				if (!top)
					return -1;
				top--;
				break;
			case DW_OP_swap:
				if (top < 2)
					return -1;
				v = stack[top - 1];
				stack[top - 1] = stack[top - 2];
				stack[top - 2] = v;
				break;
			case DW_OP_over:
				if (top < 2)
					return -1;
				stack[top] = stack[top - 2];
				top++;
				break;
			case DW_OP_neg:
				if (!top)
					return -1;
				stack[top - 1] = -stack[top - 1];
				break;
			case DW_OP_not:
				if (!top)
					return -1;
				stack[top - 1] = ~stack[top - 1];
				break;
			case DW_OP_nop:
				break;
			case DW_OP_stack_value:
				*is_value = 1;
				i = nops;
				break;
			default:
				if (top < 2 || binary_op(atom, stack[top - 2], stack[top - 1], &v))
					return -1;
				stack[top - 2] = v;
				top--;
				break;
			}
		}
	}
	if (!top)
		return -1;
	*out = stack[top - 1];
	return 0;
}
