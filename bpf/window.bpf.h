/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pass's window: from its moment (moment.bpf.h) to the sampler's visit
 * of each thread.  A pass shows every thread as it was at the moment, and
 * the sampler reaches a thread tens to hundreds of microseconds later on a
 * busy host, more with thousands of threads.  A thread that sleeps in waits
 * shorter than that has by then often woken, run and gone to sleep in its
 * next wait: seen as found, it would stand in a wait it was not in, and
 * since the sampler tends to get its CPU as a busy thread goes to sleep,
 * most often in the wait that follows a long one (an fsync's page wait
 * after its flush).  So, while a window is open, the first wakeup of a
 * thread that was asleep at the moment keeps what it slept in, the syscall
 * it slept in and its kernel stack, which the wakeup is about to unwind;
 * the sampler shows those (stacks.bpf.h), and that syscall's exit copies
 * the user stack for it (window_ustack.bpf.h).  A thread that got its CPU
 * since the moment and was not asleep then was queued then (or ran, on a
 * CPU it has left: user space knows by its tid).
 *
 * Windows are open from the moment's interrupt to the end of the pass, some
 * 1% of the time at 50 passes a second, and only wakeups in them pay more
 * than two loads.
 */
#ifndef TRACT_WINDOW_BPF_H
#define TRACT_WINDOW_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"

__u64 window_moment;			/* the moment (its pass number) the open window is of */
__u64 window_closed;			/* set by user space at the end of a pass: its moment */
__u32 window_walks;			/* stacks walked in the open window: at most the table's size */
__u64 window_stacks_kept;		/* stacks kept by wakeups in windows */
__u64 window_stacks_missed;		/* ... and samples whose stack had gone (a table too small, or unreadable) */

#define WINDOW_STACKS 512

/*
 * What a woken thread slept in: the syscall, and the kernel stack as the
 * thread left it, laid out as the stream's record.
 */
struct moment_stack {
	__u64 moment;		/* the window it was kept in */
	__u64 switches;		/* the thread's context switches then */
	__u32 tid;		/* whose: an entry the table hands to another thread meanwhile is not this one's */
	__s32 sc_nr;		/* the syscall it slept in; -1: none */
	__u64 sc_entry;		/* ... its entry as the thread's slot has it (0: unknown) ... */
	__u64 sc_args[6];	/* ... its arguments ... */
	__u64 user_ip, user_sp;	/* ... and where its user code was (an exec returns elsewhere) */
	__u32 ucopy_serial;	/* its user stack's copy at that syscall's exit (window_ustack.bpf.h); 0: none */
	__u32 pad;
	struct tract_kstack hdr;
	__u64 ip[TRACT_KSTACK_MAX];
};

/*
 * Threads woken in one window, the least recent going first: those of
 * earlier windows, then this one's (a table too small for a window loses
 * stacks, not states, and -v counts them).  Half a MiB, within the memory bar.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, WINDOW_STACKS);
	__type(key, __u32);
	__type(value, struct moment_stack);
} moment_stacks SEC(".maps");

/* One buffer a CPU: the kernel does not run a program nested in itself on a CPU, as an interrupt's wakeup would. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct moment_stack);
} moment_scratch SEC(".maps");

static __always_inline bool window_open(void)
{
	return window_moment != window_closed;
}

/* The moment_stacks entry of a thread, if it is of the open window and still its own. */
static __always_inline struct moment_stack *moment_entry(__u32 tid)
{
	struct moment_stack *ms = bpf_map_lookup_elem(&moment_stacks, &tid);

	return ms && ms->moment == window_moment && ms->tid == tid ? ms : NULL;
}

/* The syscall a wakee sleeps in, from the registers it entered the kernel with (read_syscall()). */
static __always_inline void keep_moment_syscall(struct task_struct *p, struct moment_stack *ms)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(p);
	struct tract_slot *slot = slot_of(p->pid);

	ms->sc_nr = -1;
	ms->sc_entry = 0;
	if (!regs || (p->flags & PF_KTHREAD) || regs_syscall(regs) < 0)
		return;
	ms->sc_nr = (__s32)regs_syscall(regs);
	regs_syscall_args(regs, ms->sc_args);
	ms->user_ip = regs->ip;
	ms->user_sp = regs->sp;
	if (slot && slot->tag == owner_tag(p))
		ms->sc_entry = slot->sc_entry;
}

/* What a wakee slept in, into its moment_stacks entry (keep_moment_state()). */
static __always_inline void keep_moment_stack(struct task_struct *p, struct tract_waker *w, __u64 moment)
{
	__u32 zero = 0, tid = p->pid;
	struct moment_stack *ms = bpf_map_lookup_elem(&moment_scratch, &zero);
	long len;

	if (!ms)
		return;
	len = take_kstacks ? bpf_get_task_stack(p, ms->ip, sizeof(ms->ip), 0) : 0;
	ms->moment = moment;
	ms->switches = p->nvcsw + p->nivcsw;
	ms->tid = tid;
	keep_moment_syscall(p, ms);
	ms->ucopy_serial = 0;
	/* its user stack is copied as it leaves that syscall, should the sampler come later */
	w->ustack_wanted = ms->sc_nr >= 0 && window_exit_copies;
	ms->hdr.kind = TRACT_REC_KSTACK;
	ms->hdr.nr_frames = len > 0 ? (__u32)len / sizeof(__u64) : 0;
	if (!bpf_map_update_elem(&moment_stacks, &tid, ms, BPF_ANY) && len > 0)
		window_stacks_kept++;
}

/*
 * At a wakeup in an open window, with w just stamped for it: whether the
 * wakee was asleep at the moment, and then what it slept in and where.  Its
 * sleep began before the moment if it left its CPU before that CPU's task
 * clock at the moment (the switch out updated that clock).
 */
static __always_inline void keep_moment_state(struct task_struct *p, struct tract_waker *w)
{
	__u32 cpu = p->thread_info.cpu;
	__u64 moment = window_moment;

	if (w->moment_woke == (__u32)moment || w->slept_in == TRACT_STATE_RUN || cpu >= TRACT_CPUS_MAX ||
	    !moment_clock_task[cpu] || p->se.exec_start > moment_clock_task[cpu])
		return;
	if (p->tgid == self_tgid || !pid_selected(p->tgid) ||
	    (!all_threads && (p->flags & PF_KTHREAD) && w->slept_in == TRACT_STATE_SLEEP))
		return;
	w->moment_slept_in = w->slept_in;
	/* a pass over thousands of threads is a long window: entries beyond what the table holds would be lost */
	if (window_walks < WINDOW_STACKS) {
		window_walks++;
		keep_moment_stack(p, w, moment);
	}
	/*
	 * Stamped last: the sampler may be visiting this thread on another CPU
	 * right now, and once it reads the stamp it shows the thread as this
	 * wakeup kept it.  Stamped before the entry was written (a stack walk
	 * of microseconds earlier), it found the previous window's entry or
	 * none: a sample in the state slept in with no kernel stack (an fsync
	 * loop's disk waits on a busy host, some 1 in 100 of them; -v counted
	 * them as woken without theirs).  Unstamped yet, it shows the thread as
	 * found: still in that sleep, stacks and all, until the wakeup ends.
	 */
	barrier();
	w->moment_woke = (__u32)moment;
}

/*
 * After the sampler's visit: the thread's later wakeups in this window keep
 * nothing, since its sample is made (nor take the ring's copies from those
 * that need them).
 */
static __always_inline void window_seen(__u32 tid, __u32 tag)
{
	struct tract_waker *w = waker_of(tid);

	if (!w || w->tag != tag)
		return;
	if (w->moment_woke != (__u32)window_moment)
		w->moment_woke = (__u32)window_moment;
	if (w->ustack_wanted)
		w->ustack_wanted = 0;
}

/*
 * For a sample shown as its thread was at the moment (as_at_moment()):
 * the syscall it slept in then, where it has left that syscall since.
 * Returns whether it has: its user stack then is gone too.
 */
static __always_inline bool window_syscall_left(struct task_struct *task, struct tract_slot *slot, __u32 tag,
						struct tract_sample *s, __u64 now)
{
	struct moment_stack *ms = moment_entry(task->pid);
	bool same;

	if (!ms)
		return false;	/* not known: as found */
	/*
	 * Where no exit copies the user stack, a thread in the same syscall on
	 * the same fd again keeps the stack it has now, most often the same.
	 */
	if (ms->sc_nr < 0 && !(s->flags & TRACT_SF_IN_SYSCALL))
		return false;
	same = (s->flags & TRACT_SF_IN_SYSCALL) && s->syscall_nr == ms->sc_nr && s->sc_args[0] == ms->sc_args[0] &&
	       (!window_exit_copies ||
		(!ms->ucopy_serial && (!ms->sc_entry || (slot && slot->tag == tag && slot->sc_entry == ms->sc_entry))));
	if (same)
		return false;
	s->flags &= ~(TRACT_SF_IN_SYSCALL | TRACT_SF_SC_TIME);
	s->syscall_nr = -1;
	if (ms->sc_nr < 0)
		return true;
	s->flags |= TRACT_SF_IN_SYSCALL;
	s->syscall_nr = ms->sc_nr;
	__builtin_memcpy(s->sc_args, ms->sc_args, sizeof(s->sc_args));
	if (ms->sc_entry && ms->sc_entry < now) {
		s->sc_ns = now - ms->sc_entry;
		s->flags |= TRACT_SF_SC_TIME;
	}
	return true;
}

#endif
