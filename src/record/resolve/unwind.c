// SPDX-License-Identifier: GPL-2.0-only
/*
 * One step of a CFI unwind finds the row of the frame's table that covers
 * its PC (libdw's dwarf_cfi_addrframe), computes the canonical frame
 * address from the registers, and from it the caller's registers and return
 * address, reading saved values out of the copied bytes.  The rules are
 * DWARF expressions; the few operations CFI uses are evaluated here, which
 * also covers the expressions of PLT entries and signal frames (cfi_expr.c).
 *
 * Where no table covers a PC that is mapped (JIT code), one frame-pointer
 * step carries on: JITs keep frame pointers, and an unknown frame must not
 * end the stack.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include "cfi_expr.h"
#include "clock.h"
#include "unwind.h"
#include "usyms.h"

enum reg_rule_result {
	REG_KNOWN,
	REG_UNDEFINED,		/* the table says the caller has no value for it */
	REG_LOST,		/* it has one, but not where the copy or the registers reach */
};

/* The caller's value of one register under frame's rule for it. */
static enum reg_rule_result unwind_reg(Dwarf_Frame *frame, int regno, const struct uregs *rs,
				       const struct stack_window *w, uint64_t cfa, struct uregs *caller)
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
	} else if (cfi_expr__eval(ops, nops, rs, w, &cfa, &v, &is_value) || (!is_value && window_read(w, v, &v))) {
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
static enum step_result fp_step(struct uregs *rs, const struct stack_window *w)
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
			     const struct stack_window *w, int *signal)
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
	    cfi_expr__eval(ops, nops, rs, w, NULL, &cfa, &is_value)) {
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
	struct stack_window w = { .lo = copy->regs[TRACT_UREG_SP], .len = copy->len, .bytes = bytes };
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
