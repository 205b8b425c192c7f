// SPDX-License-Identifier: GPL-2.0-only
/*
 * One step of a CFI unwind finds the row of the frame's table that covers
 * its PC (libdw's dwarf_cfi_addrframe), computes the canonical frame
 * address from the registers, and from it the caller's registers and return
 * address, reading saved values out of the copied bytes.  The rules are
 * DWARF expressions; the few operations CFI uses are evaluated here, which
 * also covers the expressions of PLT entries and signal frames.
 *
 * Where no table covers a PC that is mapped (JIT code), one frame-pointer
 * step carries on: JITs keep frame pointers, and an unknown frame must not
 * end the stack.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "unwind.h"
#include "usyms.h"

#define EXPR_STACK 16

struct uregs {
	uint64_t r[TRACT_UREGS];
	uint32_t known;		/* a bit per register whose value is known */
};

/* The copied bytes: a window of the thread's stack from lo up. */
struct window {
	uint64_t lo;
	size_t len;
	const unsigned char *bytes;
};

static int window_read(const struct window *w, uint64_t addr, uint64_t *v)
{
	if (addr < w->lo || w->len < sizeof(*v) || addr - w->lo > w->len - sizeof(*v))
		return -1;
	memcpy(v, w->bytes + (addr - w->lo), sizeof(*v));
	return 0;
}

static int reg_value(const struct uregs *rs, uint64_t regno, uint64_t *v)
{
	if (regno >= TRACT_UREGS || !(rs->known & (1u << regno)))
		return -1;
	*v = rs->r[regno];
	return 0;
}

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

/*
 * A CFI expression: its result, and whether that is the value itself
 * (*is_value) or the address it is saved at.  cfa is for DW_OP_call_frame_cfa.
 */
static int eval(const Dwarf_Op *ops, size_t nops, const struct uregs *rs, const struct window *w,
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

enum reg_rule_result {
	REG_KNOWN,
	REG_UNDEFINED,		/* the table says the caller has no value for it */
	REG_LOST,		/* it has one, but not where the copy or the registers reach */
};

/* The caller's value of one register under frame's rule for it. */
static enum reg_rule_result unwind_reg(Dwarf_Frame *frame, int regno, const struct uregs *rs,
				       const struct window *w, uint64_t cfa, struct uregs *caller)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	uint64_t v;
	int is_value;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return REG_LOST;
	if (!nops) {
		/* no ops: "same value"; ops but none of them: undefined */
		if (ops)
			return REG_UNDEFINED;
		if (reg_value(rs, regno, &v))
			return REG_LOST;
	} else if (eval(ops, nops, rs, w, &cfa, &v, &is_value) || (!is_value && window_read(w, v, &v))) {
		return REG_LOST;
	}
	caller->r[regno] = v;
	caller->known |= 1u << regno;
	return REG_KNOWN;
}

enum step_result {
	STEP_OK,
	STEP_OUTERMOST,		/* the table says there is no caller */
	STEP_CUT,		/* the bytes ran out, no table, or nonsense */
};

/* A frame-pointer step, for mapped code no table covers. */
static enum step_result fp_step(struct uregs *rs, const struct window *w)
{
	uint64_t bp, saved_bp, ra;

	if (reg_value(rs, TRACT_UREG_BP, &bp) || (bp & 7) || window_read(w, bp, &saved_bp) ||
	    window_read(w, bp + 8, &ra) || bp + 16 <= rs->r[TRACT_UREG_SP])
		return STEP_CUT;
	/* callee-saved registers other than bp are unknown past a frame we know nothing of */
	rs->known = 1u << TRACT_UREG_BP | 1u << TRACT_UREG_SP | 1u << TRACT_UREG_IP;
	rs->r[TRACT_UREG_BP] = saved_bp;
	rs->r[TRACT_UREG_SP] = bp + 16;
	rs->r[TRACT_UREG_IP] = ra;
	return ra ? STEP_OK : STEP_OUTERMOST;
}

/*
 * From a frame to its caller.  exact: the PC is the interrupted instruction
 * itself (the innermost frame, or the one a signal interrupted), not a
 * return address, which may be just past the end of its call's function.
 * *signal: this frame is a signal handler's trampoline.
 */
static enum step_result step(struct usyms *u, int pid, struct uregs *rs, int exact,
			     const struct window *w, int *signal)
{
	uint64_t pc = rs->r[TRACT_UREG_IP], look = exact ? pc : pc - 1, cfa;
	struct uregs caller = { 0 };
	struct usyms_cfi cfi;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool signalp = false;
	enum reg_rule_result ra_rule = REG_LOST;
	int is_value, ra;

	*signal = 0;
	usyms__cfi(u, pid, 0, look, &cfi);
	if (cfi.eh && dwarf_cfi_addrframe(cfi.eh, cfi.elf_addr, &frame))
		frame = NULL;
	if (!frame && cfi.debug && dwarf_cfi_addrframe(cfi.debug, cfi.elf_addr, &frame))
		frame = NULL;
	if (!frame)
		return cfi.mapped ? fp_step(rs, w) : STEP_CUT;
	ra = dwarf_frame_info(frame, NULL, NULL, &signalp);
	if (ra < 0 || ra >= TRACT_UREGS || dwarf_frame_cfa(frame, &ops, &nops) ||
	    eval(ops, nops, rs, w, NULL, &cfa, &is_value)) {
		free(frame);
		return STEP_CUT;
	}
	for (int regno = 0; regno < TRACT_UREGS; regno++) {
		enum reg_rule_result r = unwind_reg(frame, regno, rs, w, cfa, &caller);

		if (regno == ra)
			ra_rule = r;
	}
	free(frame);
	*signal = signalp;
	/* thread and process entry say "no caller" (DW_CFA_undefined rip) */
	if (ra_rule != REG_KNOWN)
		return ra_rule == REG_UNDEFINED ? STEP_OUTERMOST : STEP_CUT;
	/* the caller's stack pointer is the CFA, by the x86-64 ABI's definition */
	caller.r[TRACT_UREG_SP] = cfa;
	caller.known |= 1u << TRACT_UREG_SP;
	caller.r[TRACT_UREG_IP] = caller.r[ra];
	caller.known |= 1u << TRACT_UREG_IP;
	/* stacks grow down: a caller's frame is above, except past a signal */
	if (!signalp && cfa <= rs->r[TRACT_UREG_SP])
		return STEP_CUT;
	*rs = caller;
	return rs->r[TRACT_UREG_IP] ? STEP_OK : STEP_OUTERMOST;
}

size_t unwind__copy(struct usyms *u, const struct tract_ustack_copy *copy, const void *bytes,
		    uint64_t *ips, size_t max, int *cut, struct unwind_stats *st)
{
	struct window w = { .lo = copy->regs[TRACT_UREG_SP], .len = copy->len, .bytes = bytes };
	struct uregs rs = { .known = (1u << TRACT_UREGS) - 1 };
	struct usyms_stats before, after;
	uint64_t t0 = mono_ns();
	size_t n = 0;
	int exact = 1;

	usyms__stats(u, &before);
	memcpy(rs.r, copy->regs, sizeof(rs.r));
	*cut = 1;
	while (n < max) {
		enum step_result r;
		int signal;

		ips[n++] = rs.r[TRACT_UREG_IP];
		r = step(u, (int)copy->tgid, &rs, exact, &w, &signal);
		if (r == STEP_OUTERMOST)
			*cut = 0;
		if (r != STEP_OK)
			break;
		exact = signal;
	}
	if (st) {
		uint64_t ns = mono_ns() - t0;

		st->stacks++;
		st->frames += n;
		st->cut += *cut;
		st->bytes += copy->len;
		usyms__stats(u, &after);
		/* reading a module's symbols and tables is paid once, not per stack */
		if (after.modules_loaded != before.modules_loaded) {
			st->loads++;
			st->load_ns += ns;
		} else {
			st->ns += ns;
		}
	}
	return n;
}
