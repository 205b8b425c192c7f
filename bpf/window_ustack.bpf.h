/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user stack of a thread woken in the pass's window (window.bpf.h) that
 * leaves the syscall it slept in before the sampler reaches it.  Its user
 * stack does not change until that syscall returns, so its exit copies it,
 * in the thread's own context, and the sampler sends that copy with the
 * sample.  Without it, a thread whose waits are shorter than the sampler's
 * lag would show its waits with no user code above them: on a busy fsync
 * loop most of them.  Only exits of threads so marked, in open windows,
 * pay more than two loads.
 */
#ifndef TRACT_WINDOW_USTACK_BPF_H
#define TRACT_WINDOW_USTACK_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"
#include "window.bpf.h"
#include "stacks.bpf.h"

struct window_ucopy {
	__u64 moment;		/* the window it was copied in ... */
	__u32 tid;		/* ... by which thread ... */
	__u32 serial;		/* ... as the copy's ring count: set before and after the bytes */
	__u32 serial_done;
	__u32 pad;
	struct tract_ustack_copy hdr;
	__u8 bytes[TRACT_USTACK_COPY + TRACT_USTACK_FAR];	/* with Go's, the far ones (copy_far()) */
};

/* The ring: window_ucopy_mask + 1 copies, at least WINDOW_UCOPIES (common.bpf.h), set at load */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WINDOW_UCOPIES);
	__type(key, __u32);
	__type(value, struct window_ucopy);
} window_ucopies SEC(".maps");

__u64 window_ucopy_next;
__u64 window_ucopies_taken;	/* user stacks copied at a syscall's exit ... */
__u64 window_ucopies_lost;	/* ... and samples whose copy had been written over */
__u64 run_ucopies_here, run_ucopies_switch;	/* a runner's in user code: in the moment's interrupt, at its switch out */

/*
 * The user stack at regs, the current task's own, into the ring, for the
 * sample of the given moment: its serial there, or 0.  still: what tells
 * whether the thread ran on since (still_user(), still_off()).
 */
static __always_inline __u32 ucopy_put(struct task_struct *task, struct pt_regs *regs, __u64 moment, __u32 still)
{
	__u32 tid = task->pid, i, serial, len;
	struct window_ucopy *c;

	serial = (__u32)__sync_fetch_and_add(&window_ucopy_next, 1) + 1;
	i = serial & window_ucopy_mask;
	c = bpf_map_lookup_elem(&window_ucopies, &i);
	if (!c)
		return 0;
	c->serial = serial;
	c->moment = moment;
	c->tid = tid;
	copy_uregs(c->hdr.regs, regs);
	len = copy_len(task, regs->sp, NULL);
	if (len < 8 || len > TRACT_USTACK_COPY || bpf_probe_read_user(c->bytes, len, (void *)regs->sp))
		return 0;
	len = copy_far(task, &c->hdr, c->bytes, len, true);
	ucopy_header(&c->hdr, task, len, still);
	c->serial_done = serial;
	return serial;
}

/* ... for the sample ms is of. */
static __always_inline bool window_ucopy_put(struct task_struct *task, struct pt_regs *regs, struct moment_stack *ms,
					      __u32 still)
{
	__u32 serial = ucopy_put(task, regs, ms->moment, still);

	if (!serial)
		return false;
	ms->ucopy_serial = serial;
	window_ucopies_taken++;
	return true;
}

/*
 * At sys_exit, in an open window: the thread was asleep at the moment in
 * the syscall now returning, and woken in the window, or it ran in that
 * syscall then (run_moment.bpf.h); copy its user stack for its sample.
 * A thread that ran user code then (USTACK_WANTED_RAN_USER) has left that
 * code for a syscall: its switch out copies nothing now.
 */
static __always_inline void window_exit_copy(struct task_struct *task, struct pt_regs *regs)
{
	__u32 tid = task->pid, tag = owner_tag(task);
	struct tract_waker *w = waker_of(tid);
	struct tract_slot *slot;
	struct moment_stack *ms;

	if (!w || !w->ustack_wanted || w->tag != tag ||
	    (w->ustack_wanted == USTACK_WANTED_WOKEN && w->moment_woke != (__u32)window_moment))
		return;
	w->ustack_wanted = 0;
	ms = moment_entry(tid);
	slot = slot_of(tid);
	/* the syscall it slept in, returning to where it was called (not an exec's new program) */
	if (!ms || ms->sc_nr != (long)regs->orig_ax || regs->ip != ms->user_ip || regs->sp != ms->user_sp || !slot ||
	    slot->tag != tag || slot->sc_entry != ms->sc_entry)
		return;
	/* its user code runs next, with no count to tell when it moved on */
	window_ucopy_put(task, regs, ms, TRACT_STILL_NONE);
}

/*
 * At sched_switch, in an open window: prev ran user code at the moment on
 * another CPU (run_moment.bpf.h), where its registers could not be read.
 * Leaving its CPU for the first time since, from an interrupt or a fault
 * (orig_ax -1: preempted, or asleep in a fault) with no syscall entered in
 * between, its saved user registers are where its user code was when it
 * left it, and it has run none since the moment but that: its user stack
 * now is the nearest to the moment there is.  One that leaves from a
 * syscall has the user stack of that syscall's call site, code it reached
 * after the moment: for a sample in no syscall it would name a call the
 * sample is not in, so none is taken.
 */
static __always_inline void window_switch_copy(struct task_struct *prev)
{
	__u32 tid = prev->pid, tag;
	struct tract_waker *w = waker_of(tid);
	struct tract_slot *slot;
	struct moment_stack *ms;
	struct pt_regs *regs;

	if (!w || w->ustack_wanted != USTACK_WANTED_RAN_USER)
		return;
	tag = owner_tag(prev);
	if (w->tag != tag)
		return;
	w->ustack_wanted = 0;
	ms = moment_entry(tid);
	slot = slot_of(tid);
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	/* its latest syscall's entry as the moment saw it (0: none since tract started) */
	if (!ms || ms->sc_nr >= 0 || !regs || (long)regs->orig_ax >= 0 || (regs->cs & 3) != 3 ||
	    switch_count(prev) != ms->switches + 1 || (slot && slot->tag == tag ? slot->sc_entry : 0) != ms->sc_entry)
		return;
	/* off its CPU from now until it gets one again */
	if (window_ucopy_put(prev, regs, ms, still_off(prev)))
		run_ucopies_switch++;
}

/*
 * The sampler's side: the copy of tid's user stack at serial in the ring,
 * into the stream; its id, or 0.  Copied out of the ring first, and kept
 * only if no copy began to write over it meanwhile (it marks the entry
 * before its bytes): the stream gets a whole record of one stack, or none.
 * A function of its own: inlined twice into take_run_stacks(), 6.1's
 * verifier lost the bound of the length it reads.
 */
static __noinline __u64 emit_ucopy(struct seq_file *seq, __u32 tid, __u32 serial)
{
	__u32 zero = 0, i = serial & window_ucopy_mask, len;
	struct ustack_copy_buf *buf = bpf_map_lookup_elem(&ucopy_scratch, &zero);
	struct window_ucopy *c = bpf_map_lookup_elem(&window_ucopies, &i);

	if (!buf || !c)
		return 0;
	len = c->hdr.len;
	if (c->serial != serial || c->serial_done != serial || c->tid != tid || len < 8 ||
	    len > TRACT_USTACK_COPY + TRACT_USTACK_FAR || bpf_probe_read_kernel(buf, sizeof(buf->hdr) + len, &c->hdr) ||
	    c->serial != serial) {
		window_ucopies_lost++;
		return 0;
	}
	buf->hdr.len = len;
	return ucopy_emit(seq, buf);
}

/* The copy a syscall's exit or a switch out made for the thread's sample (its moment_stacks entry). */
static __always_inline __u64 take_window_ustack(struct seq_file *seq, struct task_struct *task)
{
	struct moment_stack *ms = moment_entry(task->pid);

	return ms && ms->ucopy_serial ? emit_ucopy(seq, task->pid, ms->ucopy_serial) : 0;
}

#endif
