/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The moment on every CPU: a timer on each CPU, set for the pass's moment
 * (the sampler's deadline, which user space sets before it sleeps), copies
 * the user stack of the thread it interrupts there.
 *
 * The moment's interrupt reads what each CPU runs from its run queue
 * (moment.bpf.h), but the user registers of a thread running user code on
 * another CPU are in that CPU, not in memory.  Without this, such a thread
 * got the user stack of its moment only as it next left its CPU from user
 * code (window_switch_copy()), or a profile tick's, and one that runs short
 * bursts of its own code between sleeps, going from its code straight into
 * its next syscall, mostly got none.
 *
 * The hrtimer_expire_entry program arms the timer of the CPU it runs on
 * once the deadline is set: every CPU that runs anything expires its tick
 * there, and one woken from idle the timer that woke it.  The timer is
 * pinned to that CPU (BPF_F_TIMER_CPU_PIN, Linux 6.7) and expires at the
 * deadline itself (BPF_F_TIMER_ABS, 6.4), within microseconds of the
 * moment's interrupt, before or after it.  Its callback runs in the timer
 * softirq as the interrupt that expired it returns, with the task that
 * interrupt interrupted as current: one in user code then has its user
 * registers at the top of its kernel stack, not those of a syscall or a
 * fault.  Where the kernel defers softirqs to ksoftirqd, current is that
 * kernel thread, and nothing is copied.
 *
 * The copy stands for the moment's user stack of the runner the moment read
 * on that CPU if it is of the same thread, in user code at the moment too,
 * with no switch and no syscall between the two (take_timer_ustack()): then
 * the thread ran nothing but that same stretch of its user code.
 */
#ifndef TRACT_MOMENT_TIMER_BPF_H
#define TRACT_MOMENT_TIMER_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"
#include "window.bpf.h"
#include "stacks.bpf.h"
#include "window_ustack.bpf.h"
#include "wakeup.bpf.h"

#define CLOCK_MONOTONIC 1

/* Set by user space before the sampler sleeps: the moment of the next pass, in CLOCK_MONOTONIC ns. */
__u64 moment_deadline;
__u64 moment_timer_fires, moment_timer_copies, moment_timer_ns, moment_timer_errors;

struct moment_timer {
	struct bpf_timer timer;
	__u64 armed_for;	/* the deadline it is set for (checked in the CPU's timer mark) */
	__u64 copied_for;	/* the deadline of the copy below; written last */
	__u64 switches;		/* the copied thread's context switches then ... */
	__u64 sc_entry;		/* ... and its latest syscall's entry as its slot had it (0: unknown) */
	__u32 tid;
	__u32 serial;		/* the copy's in the ring (window_ustack.bpf.h) */
	__u32 ready;		/* the timer is initialised */
	__u32 pad;
};

/*
 * By CPU (max_entries set at load: the possible CPUs); its own map, as a
 * program that uses a map with a timer cannot be a perf_event one (the
 * profile).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACT_CPUS_MAX);
	__type(key, __u32);
	__type(value, struct moment_timer);
} moment_timer_map SEC(".maps");

/*
 * The thread current is, as the timer interrupts it: its user stack, if it
 * was in user code, for the next pass (its moment's interrupt may come
 * before this or after).
 */
static __always_inline void copy_at_timer(struct moment_timer *mt)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 tid = task->pid, serial;
	struct tract_slot *slot;
	struct tract_waker *w;
	struct moment_stack *ms;

	/* a syscall's orig_ax is its number, a fault's its error code; an interrupt's is negative */
	if (!tid || (task->flags & PF_KTHREAD) || task->tgid == self_tgid || !pid_selected(task->tgid) || !regs ||
	    (long)regs->orig_ax >= 0 || (regs->cs & 3) != 3)
		return;
	serial = ucopy_put(task, regs, pass.seq + 1, still_user(task));
	if (!serial)
		return;
	slot = slot_of(tid);
	mt->tid = tid;
	mt->switches = switch_count(task);
	mt->sc_entry = slot && slot->tag == owner_tag(task) ? slot->sc_entry : 0;
	mt->serial = serial;
	/* the sampler on another CPU takes the fields once it sees this */
	barrier();
	mt->copied_for = mt->armed_for;
	moment_timer_copies++;
	/*
	 * The moment's interrupt came first and read it in this same stretch
	 * of user code: its switch out need not copy it again (window_switch_copy()).
	 */
	w = waker_of(tid);
	if (!w || w->ustack_wanted != USTACK_WANTED_RAN_USER || w->tag != owner_tag(task))
		return;
	ms = moment_entry(tid);
	if (ms && ms->switches == mt->switches && ms->sc_entry == mt->sc_entry)
		w->ustack_wanted = 0;
}

static int moment_timer_fired(void *map, __u32 *key, struct moment_timer *mt)
{
	__u64 t0 = bpf_ktime_get_ns();

	copy_at_timer(mt);
	/* every CPU's fires at the same moment: counted atomically, which the cost figure needs */
	__sync_fetch_and_add(&moment_timer_fires, 1);
	__sync_fetch_and_add(&moment_timer_ns, bpf_ktime_get_ns() - t0);
	return 0;
}

/*
 * In hrtimer_expire_entry, with this CPU's timer mark (wakeup.bpf.h): this
 * CPU's timer, for the next moment if it is not set for it yet.
 */
static __always_inline void arm_moment_timer(struct timer_mark *mark)
{
	__u64 deadline = moment_deadline;
	__u32 cpu;
	struct moment_timer *mt;

	if (!moment_timers || !mark || mark->moment_armed == deadline || !deadline)
		return;
	mark->moment_armed = deadline;
	cpu = bpf_get_smp_processor_id();
	mt = bpf_map_lookup_elem(&moment_timer_map, &cpu);
	if (!mt)
		return;
	mt->armed_for = deadline;
	/* a deadline gone by: this CPU's timer would copy a stack of after the moment */
	if (deadline <= bpf_ktime_get_ns())
		return;
	if (!mt->ready) {
		if (bpf_timer_init(&mt->timer, &moment_timer_map, CLOCK_MONOTONIC) ||
		    bpf_timer_set_callback(&mt->timer, moment_timer_fired)) {
			moment_timer_errors++;
			return;
		}
		mt->ready = 1;
	}
	if (bpf_timer_start(&mt->timer, deadline, BPF_F_TIMER_ABS | BPF_F_TIMER_CPU_PIN))
		moment_timer_errors++;
}

/*
 * For the runner tid the moment read in user code on cpu (switches and
 * entry as it read them): the timer of that CPU, if it copied the user
 * stack of that same stretch of user code for this moment.
 */
static __always_inline struct moment_timer *timer_copy_of(__u32 cpu, __u32 tid, __u64 switches, __u64 entry)
{
	struct moment_timer *mt;

	if (!moment_timers)
		return NULL;
	mt = bpf_map_lookup_elem(&moment_timer_map, &cpu);
	if (!mt || mt->copied_for != moment_deadline)
		return NULL;
	barrier();
	return mt->tid == tid && mt->switches == switches && mt->sc_entry == entry ? mt : NULL;
}

/* The sampler's side: that copy into the stream; its id, or 0. */
static __always_inline __u64 take_timer_ustack(struct seq_file *seq, __u32 cpu, __u32 tid, __u64 switches,
					       __u64 entry)
{
	struct moment_timer *mt = timer_copy_of(cpu, tid, switches, entry);

	return mt ? emit_ucopy(seq, tid, mt->serial) : 0;
}

#endif
