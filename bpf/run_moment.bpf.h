/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a thread that ran at the moment (moment.bpf.h) ran then: the syscall
 * it was in, and stacks of that same syscall.
 *
 * The sampler reaches a thread that had a CPU at the moment tens of
 * microseconds to milliseconds later, and by then it has most often left
 * the syscall it was in: on the sampler's own CPU it has always left it,
 * since a kernel without forced preemption lets it run to the syscall's
 * return before the sampler takes the CPU, and its saved registers then
 * hold the return value.  So the moment's interrupt reads each runner's
 * syscall from the registers it entered the kernel with, as read_syscall()
 * does for a thread off its CPU; the registers of a thread running on
 * another CPU are in memory all the same, at the top of its kernel stack.
 *
 * Its stacks are of that syscall, or of the user code it ran then:
 *  - for a thread in user code then, its user stack of the moment itself,
 *    as the timer of its CPU at the moment copied it (moment_timer.bpf.h);
 *    on a kernel without those timers, this CPU's runner is the task the
 *    moment's interrupt interrupted, its user registers saved at its
 *    kernel entry, copied here; and on any kernel, failing those, as it
 *    first leaves its CPU from user code since (window_switch_copy():
 *    preempted, or asleep in a page fault), having run nothing else;
 *  - the thread's latest profile tick of the pass, when that tick was in
 *    the same syscall (its kernel stack inside it; its user stack, which
 *    does not move until the syscall returns, only from the same call), or
 *    in user code as the thread was then (of an earlier burst, maybe);
 *  - else, for a thread in a syscall then, its user stack as that syscall
 *    returns (window_ustack.bpf.h copies it at the exit, marked here), or
 *    as it is when the sampler reaches it still inside or only just out
 *    (preempted at the return, its user registers and stack untouched).
 * Without those timers, a thread in user code at the moment on another
 * CPU that goes on to a syscall with no interrupt between, and that no tick
 * found in user code since the previous pass, has no user stack: its
 * registers at the moment were in its CPU, and that syscall's call site is
 * code it reached later (a sample in no syscall with it would name a call
 * it is not in).
 */
#ifndef TRACT_RUN_MOMENT_BPF_H
#define TRACT_RUN_MOMENT_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"
#include "window.bpf.h"
#include "stacks.bpf.h"
#include "window_ustack.bpf.h"
#include "moment_timer.bpf.h"

struct moment_run {
	__u32 tid;		/* the CPU's runner at the moment (0: none, or its registers not read) */
	__s32 nr;		/* the syscall it was in; -1: none */
	__u64 entry;		/* that syscall's entry as the runner's slot had it, in none its latest's; 0: unknown */
	__u64 switches;		/* its context switches then */
	__u64 ip, sp;		/* where its user code called it */
	__u64 args[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACT_CPUS_MAX);
	__type(key, __u32);
	__type(value, struct moment_run);
} moment_runs SEC(".maps");
/*
 * Where a task's saved user registers are, from the base of its kernel
 * stack (task_pt_regs()), learned from the first thread a pass meets: the
 * moment's interrupt cannot call bpf_task_pt_regs() on a task it reads
 * through a run queue.
 */
__u64 pt_regs_off;
/* a runner's user stack, by where it came from */
__u64 run_ustacks_now, run_ustacks_exit, run_ustacks_tick, run_ustacks_switch, run_ustacks_timer;

/*
 * The registers' address goes through memory first: kept in a register it
 * stays a pointer, and the verifiers of 6.1 and 6.12 refuse the
 * subtraction from it ("math between ptr_ pointer and register").
 */
volatile __u64 pt_regs_addr;

static __always_inline void learn_pt_regs(struct task_struct *task)
{
	__u64 regs, stack = (__u64)task->stack;

	if (pt_regs_off)
		return;
	pt_regs_addr = (__u64)bpf_task_pt_regs(task);
	regs = pt_regs_addr;
	if (regs > stack && regs - stack < (1u << 20))
		pt_regs_off = regs - stack;
}

/* Only the moment's interrupt uses it, which does not run nested in itself. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct moment_stack);
} run_scratch SEC(".maps");

/*
 * Its syscall's exit copies its user stack, in the window the moment opens
 * (window_exit_copy()), like that of a thread woken in it; or, for a runner
 * in user code then, its next switch out (window_switch_copy()), entry
 * being its latest syscall's, to tell one entered since.  No kernel stack
 * is kept: a thread running on another CPU has none to read.
 */
static __always_inline void mark_run_copy(struct task_struct *curr, __u32 tid, __u32 tag, const struct moment_run *r,
					  __u64 entry, __u64 moment, const struct pt_regs *now)
{
	struct tract_waker *w = waker_of(tid);
	__u32 zero = 0;
	struct moment_stack *ms = bpf_map_lookup_elem(&run_scratch, &zero);

	if (!w || !ms || (r->nr >= 0 ? !window_exit_copies : !window_switch_copies))
		return;
	/*
	 * A thread no wakeup has tagged its own yet (one that never sleeps,
	 * or not since tract started) takes its waker slot here, with no
	 * waker: else only a thread that sleeps would have a copy.
	 */
	if (w->tag != tag) {
		w->waker_tid = 0;
		w->edge_pending = 0;
		w->slept_in = TRACT_STATE_RUN;
		w->moment_woke = 0;
		w->ustack_wanted = 0;
		w->tag = tag;
	}
	ms->moment = moment;
	ms->switches = r->switches;
	ms->tid = tid;
	ms->sc_nr = r->nr;
	ms->sc_entry = entry;
	__builtin_memcpy(ms->sc_args, r->args, sizeof(ms->sc_args));
	ms->user_ip = r->ip;
	ms->user_sp = r->sp;
	ms->ucopy_serial = 0;
	ms->hdr.kind = TRACT_REC_KSTACK;
	ms->hdr.nr_frames = 0;
	if (bpf_map_update_elem(&moment_stacks, &tid, ms, BPF_ANY))
		return;
	window_walks++;
	if (now) {
		struct task_struct *me = bpf_get_current_task_btf();

		ms = moment_entry(tid);
		if (ms && window_ucopy_put(me, (struct pt_regs *)now, ms, still_user(me)))
			run_ucopies_here++;
		return;
	}
	w->ustack_wanted = r->nr >= 0 ? USTACK_WANTED_RAN : USTACK_WANTED_RAN_USER;
}

/*
 * A runner's slot says which CPU it ran on at the moment, for the sampler
 * to find it there should it have moved to another since.
 */
#define RAN_CPU_BITS 10
_Static_assert(TRACT_CPUS_MAX <= 1 << RAN_CPU_BITS, "a CPU fits the mark");

static __always_inline __u32 ran_mark(__u64 moment, __u32 cpu)
{
	return (__u32)(moment << RAN_CPU_BITS) | cpu;
}

/* The CPU a thread ran on at this pass's moment, found by its slot; -1: none known. */
static __always_inline int ran_cpu(struct task_struct *task, __u32 cpu_now)
{
	struct tract_slot *slot = slot_of(task->pid);
	__u32 mark;

	if (!slot || slot->tag != owner_tag(task))
		return -1;
	mark = slot->ran_mark;
	if (mark >> RAN_CPU_BITS != (__u32)(moment_pass << RAN_CPU_BITS) >> RAN_CPU_BITS)
		return -1;
	mark &= (1u << RAN_CPU_BITS) - 1;
	return mark != cpu_now && moment_tid[mark & (TRACT_CPUS_MAX - 1)] == task->pid ? (int)mark : -1;
}

/* In the moment's interrupt: what CPU cpu's runner curr was in. */
static __always_inline void keep_runner(__u32 cpu, struct task_struct *curr, __u32 tid, __u64 moment)
{
	struct moment_run *r = bpf_map_lookup_elem(&moment_runs, &cpu);
	struct tract_slot *slot;
	struct pt_regs regs;
	__u64 stack;
	__u32 tag, tgid;
	bool here;
	long nr;

	if (!r)
		return;
	r->tid = 0;
	r->nr = -1;
	r->entry = 0;
	if (!curr || !tid || !pt_regs_off || (BPF_CORE_READ(curr, flags) & PF_KTHREAD))
		return;
	tgid = BPF_CORE_READ(curr, tgid);
	if (tgid == self_tgid || !pid_selected(tgid))
		return;
	stack = (__u64)BPF_CORE_READ(curr, stack);
	if (!stack || bpf_probe_read_kernel(&regs, sizeof(regs), (void *)(stack + pt_regs_off)))
		return;
	r->tid = tid;
	r->switches = BPF_CORE_READ(curr, nvcsw) + BPF_CORE_READ(curr, nivcsw);
	tag = tid ^ (__u32)BPF_CORE_READ(curr, start_time);
	slot = slot_of(tid);
	if (slot && slot->tag != tag)
		slot = NULL;
	nr = regs_syscall(&regs);
	if (nr < 0) {
		r->ip = r->sp = 0;
		r->entry = slot ? slot->sc_entry : 0;
		/*
		 * In user code, or an interrupt or fault from it: this CPU's
		 * runner is what the moment's interrupt interrupted, its user
		 * registers these, the moment's own; one on another CPU has
		 * its registers there, and these are stale.  Where every
		 * CPU's timer copies its runner's at the moment, this CPU's
		 * does it too, in the softirq as this interrupt returns,
		 * rather than here with interrupts off.
		 */
		here = !moment_timers && (__u64)curr == (__u64)bpf_get_current_task_btf() &&
		       (long)regs.orig_ax < 0 && (regs.cs & 3) == 3;
		/* its CPU's timer came first: nothing more to copy */
		if (!timer_copy_of(cpu, tid, r->switches, r->entry))
			mark_run_copy(curr, tid, tag, r, r->entry, moment, here ? &regs : NULL);
		return;
	}
	r->nr = (__s32)nr;
	regs_syscall_args(&regs, r->args);
	r->ip = regs.ip;
	r->sp = regs.sp;
	if (slot) {
		r->entry = slot->sc_entry;
		slot->ran_mark = ran_mark(moment, cpu);
	}
	mark_run_copy(curr, tid, tag, r, r->entry, moment, NULL);
}

/*
 * For a thread that ran at the moment on cpu: that moment's syscall, in
 * place of the one read now.  Called after read_tracked(), whose time in the
 * syscall is the one found now.
 */
static __always_inline const struct moment_run *run_at_moment(struct tract_sample *s, __u32 cpu, __u64 now)
{
	const struct moment_run *r = bpf_map_lookup_elem(&moment_runs, &cpu);

	if (!r || r->tid != s->tid)
		return NULL;	/* not read then: as found */
	s->flags &= ~(TRACT_SF_IN_SYSCALL | TRACT_SF_SC_TIME);
	s->syscall_nr = -1;
	s->sc_ns = 0;
	if (r->nr < 0)
		return r;
	syscall_into(s, r->nr, r->args);
	if (r->entry && r->entry < now) {
		s->sc_ns = now - r->entry;
		s->flags |= TRACT_SF_SC_TIME;
	}
	return r;
}

/*
 * The user stack of a runner still in the syscall it was in at the moment,
 * or preempted as it returned: its saved registers are those it called it
 * with, no syscall has begun since, and it is not back in user code (off
 * its CPU, which it leaves only from the kernel, or still in the syscall).
 */
static __always_inline bool run_regs_still(struct task_struct *task, struct tract_slot *slot, __u32 tag,
					   const struct moment_run *r, const struct pt_regs *regs)
{
	return regs->orig_ax == (__u64)(long)r->nr && regs->ip == r->ip && regs->sp == r->sp &&
	       slot && slot->tag == tag && r->entry && slot->sc_entry == r->entry &&
	       (!task->on_cpu || (long)regs->ax == -ENOSYS);
}

static __always_inline __u64 take_run_ustack(struct seq_file *seq, struct task_struct *task, struct tract_slot *slot,
					     __u32 tag, const struct moment_run *r)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 zero = 0, len, still = still_off(task);
	struct ustack_copy_buf *buf = bpf_map_lookup_elem(&ucopy_scratch, &zero);

	if (!buf || !regs || !run_regs_still(task, slot, tag, r, regs))
		return 0;
	copy_uregs(buf->hdr.regs, regs);
	len = copy_len(task, r->sp, NULL);
	if (len < 8 || len > TRACT_USTACK_COPY ||
	    bpf_copy_from_user_task(buf->bytes, len, (void *)r->sp, task, 0) ||
	    raced(!run_regs_still(task, slot, tag, r, regs)))
		return 0;
	buf->hdr.far_sp = 0;
	/* still in its syscall on its CPU: it may return to its user code at any time */
	ucopy_header(&buf->hdr, task, len, task->on_cpu ? TRACT_STILL_NONE : still);
	return ucopy_emit(seq, buf);
}

/*
 * The stacks of a runner's sample.  In user code at the moment: its user
 * stack as its CPU's timer copied it at the moment (moment_timer.bpf.h),
 * or as the moment's interrupt or its switch out did (window_switch_copy()),
 * which is of that moment where the latest tick may be of an earlier
 * burst, else the latest tick's.  In a syscall: the latest tick's where it was in that
 * same syscall (read_profile()), else its user stack as the header says.
 */
static __always_inline void take_run_stacks(struct seq_file *seq, struct task_struct *task, struct tract_slot *slot,
					    __u32 tag, struct tract_sample *s)
{
	__u32 cpu = s->cpu;
	const struct moment_run *r = bpf_map_lookup_elem(&moment_runs, &cpu);
	bool in_user = r && r->tid == s->tid && r->nr < 0;

	if (in_user && take_ustacks && !(s->flags & TRACT_SF_KTHREAD)) {
		s->ustack_hash = take_timer_ustack(seq, cpu, s->tid, r->switches, r->entry);
		if (s->ustack_hash) {
			run_ustacks_timer++;
			return;
		}
		s->ustack_hash = take_window_ustack(seq, task);
		if (s->ustack_hash) {
			run_ustacks_switch++;
			return;
		}
	}
	if (s->prof_ustack >= 0 || s->prof_tick) {
		run_ustacks_tick++;
		return;
	}
	if (!r || r->tid != s->tid || in_user || !take_ustacks || (s->flags & TRACT_SF_KTHREAD))
		return;
	s->ustack_hash = take_window_ustack(seq, task);
	if (s->ustack_hash) {
		run_ustacks_exit++;
		return;
	}
	s->ustack_hash = take_run_ustack(seq, task, slot, tag, r);
	if (s->ustack_hash)
		run_ustacks_now++;
}

#endif
