// SPDX-License-Identifier: GPL-2.0-only
/*
 * One step of a CFI unwind finds the row of the frame's table that covers
 * its PC (libdw's dwarf_cfi_addrframe), computes the canonical frame
 * address from the registers, and from it the caller's registers and return
 * address, reading saved values out of the copied bytes.  The rules are
 * DWARF expressions; the few operations CFI uses are evaluated here, which
 * also covers the expressions of PLT entries and signal frames (cfi_expr.c).
 *
 * Where no table covers a PC that is mapped (JIT code, Go code in a
 * binary built without DWARF), one frame-pointer step carries on: JITs and
 * Go keep frame pointers, and an unknown frame must not end the stack.
 *
 * No step may invent a frame.  Each caller's frame must lie above its
 * callee's (stacks grow down), and each return address in an executable
 * mapping: one that is not means the walk read something that is not a
 * frame, and the stack ends there, marked cut, without it.  Go's outermost
 * functions (goexit, mstart) end a stack: what lies above them is not a
 * frame, whatever a table says.
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

static int in_far(const struct stack_window *w, uint64_t addr)
{
	return w->far_len && addr >= w->far_lo && addr - w->far_lo < w->far_len;
}

/*
 * A frame-pointer step, for mapped code no table covers and for Go's.  The
 * caller's frame is above, or it is on the far stack the chain went on to
 * from the near one (Go's call of the vdso on its system stack returns to
 * the goroutine's stack, anywhere): once, and never back.
 */
static enum step_result fp_step(struct uregs *rs, const struct stack_window *w)
{
	uint64_t bp, saved_bp, ra, sp = rs->r[TRACT_UREG_SP];

	if (reg_value(rs, TRACT_UREG_BP, &bp) || (bp & 7) || window_read(w, bp, &saved_bp) ||
	    window_read(w, bp + 8, &ra))
		return STEP_CUT;
	if ((bp + 16 <= sp && !(in_far(w, bp) && !in_far(w, sp))) || (in_far(w, sp) && !in_far(w, bp)))
		return STEP_CUT;
	/* callee-saved registers other than bp are unknown past a frame we know nothing of */
	rs->known = 1u << TRACT_UREG_BP | 1u << TRACT_UREG_SP | 1u << TRACT_UREG_IP;
	rs->r[TRACT_UREG_BP] = saved_bp;
	rs->r[TRACT_UREG_SP] = bp + 16;
	rs->r[TRACT_UREG_IP] = ra;
	return ra ? STEP_OK : STEP_OUTERMOST;
}

/*
 * From a frame to its caller, under cfi, what covers the frame's PC: looked
 * up at the PC itself for the innermost frame or the one a signal
 * interrupted, else at the return address less one, which may be just past
 * the end of its call's function.  *signal: this frame is a signal
 * handler's trampoline.
 */
static enum step_result step(const struct usyms_cfi *cfi, int exact, struct uregs *rs,
			     const struct stack_window *w, int *signal)
{
	uint64_t cfa;
	struct uregs caller = { 0 };
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool signalp = false;
	enum reg_rule_result ra_rule = REG_LOST;
	int is_value, ra;

	*signal = 0;
	if (cfi->outermost)
		return STEP_OUTERMOST;
	if (cfi->eh && dwarf_cfi_addrframe(cfi->eh, cfi->elf_addr, &frame))
		frame = NULL;
	if (!frame && cfi->debug && dwarf_cfi_addrframe(cfi->debug, cfi->elf_addr, &frame))
		frame = NULL;
	if (!frame)
		return cfi->mapped ? fp_step(rs, w) : STEP_CUT;
	/*
	 * Go's own tables (.debug_frame) count a frame from the stack pointer,
	 * which is wrong where a function moved it to another stack (the
	 * vdso's callers), and say nothing of the frame pointer: past the
	 * innermost frame, its frame pointers.
	 */
	if (cfi->go && !exact) {
		free(frame);
		return fp_step(rs, w);
	}
	ra = dwarf_frame_info(frame, NULL, NULL, &signalp);
	if (ra < 0 || ra >= TRACT_UREGS || dwarf_frame_cfa(frame, &ops, &nops) ||
	    cfi_expr__eval(ops, nops, rs, w, NULL, &cfa, &is_value)) {
		free(frame);
		return STEP_CUT;
	}
	/*
	 * The innermost frame of Go code: by its frame pointer once its
	 * prologue saved the caller's just under the return address, or where
	 * the frame pointer is on the far stack the function moved from; by
	 * the table in a prologue or a function with no frame, whose frame
	 * pointer is still its caller's.
	 */
	if (cfi->go && rs->known & (1u << TRACT_UREG_BP) &&
	    (rs->r[TRACT_UREG_BP] == cfa - 16 ||
	     (in_far(w, rs->r[TRACT_UREG_BP]) && !in_far(w, rs->r[TRACT_UREG_SP])))) {
		free(frame);
		return fp_step(rs, w);
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
	/* the bytes of another stack the frame pointers led to, after those from sp */
	if (copy->far_sp && copy->near_len <= copy->len) {
		w.len = copy->near_len;
		w.far_lo = copy->far_sp;
		w.far_len = copy->len - copy->near_len;
		w.far_bytes = (const unsigned char *)bytes + copy->near_len;
	}
	memcpy(rs.r, copy->regs, sizeof(rs.r));
	*cut = 1;
	while (n < max) {
		uint64_t pc = rs.r[TRACT_UREG_IP];
		struct usyms_cfi cfi;
		enum step_result r;
		int signal;

		usyms__cfi(u, (int)copy->tgid, 0, exact ? pc : pc - 1, &cfi);
		/* a return address in no executable mapping: what was read is no frame */
		if (n && !cfi.mapped)
			break;
		ips[n++] = pc;
		r = step(&cfi, exact, &rs, &w, &signal);
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
