/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who woke whom.  sched_waking notes the waker of each wakeup (a thread, an
 * interrupt or a timer) and the wakee's sched_info counters at that moment;
 * the sampler turns them into the wakeup's run-queue wait and age.  Unless
 * --no-wakeup-edges, a sched_switch program also sums wakeups per (waker
 * process, wakee process) when the wakee gets its CPU.
 */
#ifndef TRACT_WAKEUP_BPF_H
#define TRACT_WAKEUP_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"
#include "runq.bpf.h"
#include "window.bpf.h"
#include "wait_ends.bpf.h"

/*
 * Per CPU: whether a timer callback runs.  The mark is set at a callback's
 * entry (for an hrtimer by the program that also takes a pass's moment,
 * moment.bpf.h) and cleared at its exit, with no clock read: in a cold
 * interrupt a clock read costs more than the empty program on the hook.  The exit
 * programs are defined, and so attached, first, so that no entry goes
 * without its exit; a mark left by one that did (a program detached
 * between the two) is cleared by the next exit on that CPU, milliseconds
 * later.  An hrtimer that interrupts a timer-wheel callback clears the mark
 * early: the rest of that callback's wakeups read as irq.
 */
/*
 * A cache line of its own per CPU: the mark is written at every timer
 * expiry, and with it the interrupt the CPU runs, as the kernel names it at
 * the handlers' entry and exit (each + 1, 0: none): a wakeup from
 * interrupt context says which.  A hard irq nests in a softirq, never the
 * other way, so the hard one, where set, is the one running.
 */
struct timer_mark {
	__u32 running;
	__u32 hardirq;
	__u32 softirq;
	__u32 pad0;
	/* the moment this CPU's timer is set for (moment_timer.bpf.h): checked at every hrtimer expiry, in this line */
	__u64 moment_armed;
	__u64 timer;		/* the hrtimer whose expiry runs (while running) */
	__u8 pad[32];
};

/*
 * An array by CPU (max_entries set before load: the possible CPUs):
 * sched_waking reads the mark at every wakeup, and from an array it costs
 * 25 to 30 ns less a wakeup than from a per-CPU map (pipe ping-pong, 6.18).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct timer_mark);
} timer_running SEC(".maps");

static __always_inline struct timer_mark *cpu_mark(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&timer_running, &cpu);
}

static __always_inline void mark_timer(__u32 running)
{
	struct timer_mark *mark = cpu_mark();

	if (mark)
		mark->running = running;
}

/* the exits first, as the timers' (above) */
SEC("tp_btf/irq_handler_exit")
int BPF_PROG(tract_irq_exit, int irq, struct irqaction *action, int ret)
{
	struct timer_mark *mark = cpu_mark();

	if (mark)
		mark->hardirq = 0;
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(tract_softirq_exit, unsigned int vec)
{
	struct timer_mark *mark = cpu_mark();

	if (mark)
		mark->softirq = 0;
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(tract_irq_entry, int irq, struct irqaction *action)
{
	struct timer_mark *mark = cpu_mark();

	if (mark)
		mark->hardirq = (__u32)irq + 1;
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(tract_softirq_entry, unsigned int vec)
{
	struct timer_mark *mark = cpu_mark();

	if (mark)
		mark->softirq = vec + 1;
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(tract_hrtimer_exit, struct hrtimer *t)
{
	mark_timer(0);
	return 0;
}

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(tract_timer_exit, struct timer_list *t)
{
	mark_timer(0);
	return 0;
}

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(tract_timer_entry, struct timer_list *t, unsigned long baseclk)
{
	mark_timer(1);
	return 0;
}

/* An interrupt's label: the one the CPU runs, if the kernel named it. */
static __always_inline __u32 irq_label(const struct timer_mark *mark)
{
	if (mark && mark->hardirq)
		return TRACT_WAKER_HARDIRQ | ((mark->hardirq - 1) & 0xffff);
	if (mark && mark->softirq)
		return TRACT_WAKER_SOFTIRQ | ((mark->softirq - 1) & 0xffff);
	return TRACT_WAKER_IRQ;
}

/*
 * Who ran a wakeup: a timer, a task, or an interrupt (a device, a softirq)
 * that merely found that task on the CPU.  On x86_64 an interrupt of kernel
 * code runs on the interrupt stack, so a frame outside the task's stack
 * tells; an interrupt of user code stays on the task's stack, but then the
 * task's saved registers hold an interrupt vector (orig_ax < 0), where a
 * syscall or an exception leaves a number >= 0.  0 means "the task".
 * A function of its own, with a frame of a few bytes: from 6.13 the kernel
 * gives a function whose frame is 64 bytes or more a stack of its own,
 * off the task's, where every frame would read as an interrupt's.
 */
static __noinline __u32 waker_label(struct task_struct *cur)
{
	volatile __u32 frame = 0;
	struct timer_mark *mark = cpu_mark();
	struct pt_regs *regs;

	if (mark && mark->running)
		return TRACT_WAKER_TIMER;
	if (irq_by_stack && (__u64)&frame - (__u64)cur->stack >= thread_size)
		return irq_label(mark);
	if (!(cur->flags & PF_KTHREAD)) {
		regs = (struct pt_regs *)bpf_task_pt_regs(cur);
		if (regs && (long)regs->orig_ax < 0)
			return irq_label(mark);
	}
	return 0;
}

/*
 * A timer's wakeup is its own event where the hrtimer running is a
 * timerfd's, not a signal it sends (an alarm), which wakes a thread
 * asleep with no timeout for a handler to run.
 */
static __always_inline __u32 timerfd_event(void)
{
	struct timer_mark *mark = cpu_mark();
	struct hrtimer *t;

	if (!timerfd_fn || !mark || !mark->timer)
		return 0;
	t = (struct hrtimer *)mark->timer;
	return (__u64)BPF_CORE_READ(t, function) == timerfd_fn;
}

/* Runs in the waker's context, before the wakee is queued. */
SEC("tp_btf/sched_waking")
int BPF_PROG(tract_sched_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tract_waker *w = waker_of(p->pid);
	__u32 label = waker_label(cur);

	end_wait(p, cur, label, label == TRACT_WAKER_TIMER && timerfd_event());
	if (!w)
		return 0;
	if (w->tag != owner_tag(p))
		w->moment_woke = 0;
	w->tag = owner_tag(p);
	w->waker_tid = label ?: cur->pid;
	w->pcount = p->sched_info.pcount;
	w->run_delay = p->sched_info.run_delay;
	/*
	 * Still set at sched_waking: the wakeup has not made it runnable yet.
	 * A wakee on its CPU had not switched out: it slept in nothing (RUN).
	 */
	w->slept_in = tract_decode_state(task_state_bits(p), 0, p->on_cpu);
	if (window_open())
		keep_moment_state(p, w);
	if (runq_latency)
		stamp_queued(p, bpf_ktime_get_ns());
	/* with -p, the edges that wake or are woken by the processes it names; never tract's own threads woken */
	if (wakeup_edges) {
		w->waker_tgid = label ?: cur->tgid;
		w->edge_pending = p->tgid != self_tgid && (pid_selected(p->tgid) || (!label && pid_selected(cur->tgid)));
	}
	return 0;
}

/* Edges no CPU's entry holds (tract_edge_total in abi.h), emptied every pass */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tract_wakeup_key);
	__type(value, struct tract_wakeup_val);
} wakeup_edges_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* set before load: possible CPUs x TRACT_EDGE_WAYS */
	__type(key, __u32);
	__type(value, struct tract_edge_total);
} edge_totals SEC(".maps");

__u64 wakeup_edges_full, wakeup_edges_added;

/*
 * A function of its own, not inlined: the new entry it builds on the stack
 * would make sched_switch's frame 64 bytes or more, and from 6.13 such a
 * frame is a private stack (per-CPU memory, one more page for every switch
 * to touch); this runs only for an edge that no CPU's totals hold.
 */
static __noinline struct tract_wakeup_val *edge_of(const struct tract_wakeup_key *k,
						   struct task_struct *wakee)
{
	struct tract_wakeup_val *v = bpf_map_lookup_elem(&wakeup_edges_map, k), fresh = {};

	if (v)
		return v;
	__builtin_memcpy(fresh.wakee_comm, wakee->group_leader->comm, sizeof(fresh.wakee_comm));
	/* a CPU that created the edge at the same moment wins; add to its entry */
	if (!bpf_map_update_elem(&wakeup_edges_map, k, &fresh, BPF_NOEXIST))
		__sync_fetch_and_add(&wakeup_edges_added, 1);
	v = bpf_map_lookup_elem(&wakeup_edges_map, k);
	if (!v)
		__sync_fetch_and_add(&wakeup_edges_full, 1);
	return v;
}

/*
 * The edge into this CPU's running totals: false when another edge holds
 * its entry there.  An entry is taken by writing the wakee's name, then
 * the key, which user space reads first.
 */
static __always_inline bool add_edge_total(__u64 key, struct task_struct *wakee, __u64 runq_ns, __u64 blocked_ns)
{
	__u32 i = totals_index(key, TRACT_EDGE_WAYS_SHIFT);
	struct tract_edge_total *e = bpf_map_lookup_elem(&edge_totals, &i);

	if (!e)
		return false;
	if (e->key != key) {
		if (e->key)
			return false;
		__builtin_memcpy(e->wakee_comm, wakee->group_leader->comm, sizeof(e->wakee_comm));
		barrier();
		e->key = key;
	}
	/* the sums before the count: a reader that sees a wakeup counted sees its times */
	e->runq_ns += runq_ns;
	e->blocked_ns += blocked_ns;
	barrier();
	e->count++;
	return true;
}

/*
 * At every switch (wakeup edges).  Runs before the switch updates
 * sched_info, so the wakee's last_queued still holds the moment the wakeup
 * queued it, and the run queue's clock was just updated.
 */
static __always_inline void count_edge(bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = rq_clock_of(prev), queued, runq_ns = 0, blocked_ns = 0;
	struct tract_wakeup_key k;
	struct tract_wakeup_val *v;
	struct tract_slot *s;
	struct tract_waker *w;
	__u32 tag;

	if (!preempt && task_state_bits(prev) != TRACT_TASK_RUNNING) {
		s = slot_of(prev->pid);
		tag = owner_tag(prev);
		if (s && s->tag != tag)
			claim_slot(s, tag);
		if (s)
			s->sleep_ts = now;
	}
	w = waker_of(next->pid);
	tag = owner_tag(next);
	if (!w || !w->edge_pending || w->tag != tag)
		return;
	w->edge_pending = 0;
	queued = next->sched_info.last_queued;
	if (queued && queued <= now) {
		runq_ns = now - queued;
		s = slot_of(next->pid);
		if (s && s->tag == tag && s->sleep_ts && s->sleep_ts < queued)
			blocked_ns = queued - s->sleep_ts;
	}
	k.waker_tgid = w->waker_tgid;
	k.wakee_tgid = next->tgid;
	if (add_edge_total((__u64)k.waker_tgid << 32 | k.wakee_tgid, next, runq_ns, blocked_ns))
		return;
	v = edge_of(&k, next);
	if (!v)
		return;
	__sync_fetch_and_add(&v->count, 1);
	if (runq_ns)
		__sync_fetch_and_add(&v->runq_ns, runq_ns);
	if (blocked_ns)
		__sync_fetch_and_add(&v->blocked_ns, blocked_ns);
}

/*
 * The latest wakeup's age and run-queue wait, from the wakee's sched_info
 * now against its values at the wakeup: still queued since then, or
 * switched in exactly once since (which run_delay then timed).  After more
 * switches the wakeup's own wait is no longer known.
 */
static __always_inline void read_wake(struct task_struct *task, const struct tract_waker *w,
				      struct tract_sample *s, __u64 now)
{
	__u32 switches = (__u32)task->sched_info.pcount - w->pcount;
	__u64 queued = task->sched_info.last_queued, woken;

	if (switches == 0 && s->state == TRACT_STATE_RUNQ && queued && queued <= now) {
		s->wake_runq_ns = s->wake_ns = now - queued;
	} else if (switches == 1) {
		s->wake_runq_ns = task->sched_info.run_delay - w->run_delay;
		woken = task->sched_info.last_arrival - s->wake_runq_ns;
		s->wake_ns = woken < now ? now - woken : 0;
	} else {
		return;
	}
	s->flags |= TRACT_SF_WAKE_TIME;
}

#endif
