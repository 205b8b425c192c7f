/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who woke whom.  sched_waking notes the waker of each wakeup (a thread, an
 * interrupt or a timer) and the wakee's sched_info counters at that moment;
 * the sampler turns them into the wakeup's run-queue wait and age.  With
 * --wakeup-edges, a sched_switch program also sums wakeups per (waker
 * process, wakee process) when the wakee gets its CPU.
 */
#ifndef TRACT_WAKEUP_BPF_H
#define TRACT_WAKEUP_BPF_H

/* --wakeup-edges: sched_waking marks edges, and tract_sched_switch is loaded */
const volatile __u8 wakeup_edges;

/* x86_64 kernel stacks without KASAN; set before load */
const volatile __u64 thread_size = 16384;
/*
 * Telling the interrupt stack by a frame's address needs arithmetic on the
 * frame pointer, which verifiers before 6.2 or so refuse; user space turns
 * it off and loads again there.
 */
const volatile __u8 irq_by_stack = 1;

/*
 * Per CPU: when a timer callback began (CLOCK_MONOTONIC), 0 when none runs.
 * The run queue's clock would be cheaper, but it can be stale on an idle
 * CPU until the tick's own callback updates it.  Timers expire a few hundred times a second per CPU, far less often
 * than threads wake.  The exit programs are defined, and so attached, first,
 * so that no entry goes without its exit; and an entry older than any
 * callback runs is ignored all the same, so that a missed exit cannot
 * label every later wakeup a timer's.  An hrtimer that interrupts a
 * timer-wheel callback clears the mark early: the rest of that callback's
 * wakeups read as irq.
 */
#define TIMER_CALLBACK_MAX_NS 10000000ull

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} timer_since SEC(".maps");

static __always_inline void mark_timer(bool running)
{
	__u32 zero = 0;
	__u64 *since = bpf_map_lookup_elem(&timer_since, &zero);

	if (since)
		*since = running ? bpf_ktime_get_ns() | 1 : 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(tract_hrtimer_exit, struct hrtimer *t)
{
	mark_timer(false);
	return 0;
}

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(tract_timer_exit, struct timer_list *t)
{
	mark_timer(false);
	return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(tract_hrtimer_entry, struct hrtimer *t, ktime_t *now)
{
	mark_timer(true);
	return 0;
}

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(tract_timer_entry, struct timer_list *t, unsigned long baseclk)
{
	mark_timer(true);
	return 0;
}

/* The clock is read only inside a timer callback, where few wakeups are. */
static __always_inline bool in_timer_callback(void)
{
	__u32 zero = 0;
	__u64 *since = bpf_map_lookup_elem(&timer_since, &zero);

	if (!since || !*since)
		return false;
	if (bpf_ktime_get_ns() - *since < TIMER_CALLBACK_MAX_NS)
		return true;
	*since = 0;	/* an exit was missed */
	return false;
}

/*
 * Who ran a wakeup: a timer, a task, or an interrupt (a device, a softirq)
 * that merely found that task on the CPU.  On x86_64 an interrupt of kernel
 * code runs on the interrupt stack, so a frame outside the task's stack
 * tells; an interrupt of user code stays on the task's stack, but then the
 * task's saved registers hold an interrupt vector (orig_ax < 0), where a
 * syscall or an exception leaves a number >= 0.  0 means "the task".
 */
static __always_inline __u32 waker_label(struct task_struct *cur)
{
	volatile __u32 frame = 0;
	struct pt_regs *regs;

	if (in_timer_callback())
		return TRACT_WAKER_TIMER;
	if (irq_by_stack && (__u64)&frame - (__u64)cur->stack >= thread_size)
		return TRACT_WAKER_IRQ;
	if (!(cur->flags & PF_KTHREAD)) {
		regs = (struct pt_regs *)bpf_task_pt_regs(cur);
		if (regs && (long)regs->orig_ax < 0)
			return TRACT_WAKER_IRQ;
	}
	return 0;
}

/* Runs in the waker's context, before the wakee is queued. */
SEC("tp_btf/sched_waking")
int BPF_PROG(tract_sched_waking, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tract_waker *w = waker_of(p->pid);
	__u32 label = waker_label(cur);

	if (!w)
		return 0;
	w->tag = owner_tag(p);
	w->waker_tid = label ?: cur->pid;
	w->pcount = p->sched_info.pcount;
	w->run_delay = p->sched_info.run_delay;
	/* still set at sched_waking: the wakeup has not made it runnable yet */
	w->slept_in = tract_decode_state(task_state_bits(p), 0, 0);
	if (runq_latency)
		stamp_queued(p, bpf_ktime_get_ns());
	if (wakeup_edges) {
		w->waker_tgid = label ?: cur->tgid;
		w->edge_pending = 1;
	}
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tract_wakeup_key);
	__type(value, struct tract_wakeup_val);
} wakeup_edges_map SEC(".maps");

__u64 wakeup_edges_full;

static __always_inline struct tract_wakeup_val *edge_of(const struct tract_wakeup_key *k,
							struct task_struct *wakee)
{
	struct tract_wakeup_val *v = bpf_map_lookup_elem(&wakeup_edges_map, k), fresh = {};

	if (v)
		return v;
	__builtin_memcpy(fresh.wakee_comm, wakee->group_leader->comm, sizeof(fresh.wakee_comm));
	/* a CPU that created the edge at the same moment wins; add to its entry */
	bpf_map_update_elem(&wakeup_edges_map, k, &fresh, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&wakeup_edges_map, k);
	if (!v)
		__sync_fetch_and_add(&wakeup_edges_full, 1);
	return v;
}

/*
 * With --wakeup-edges, at every switch.  Runs before the switch updates
 * sched_info, so the wakee's last_queued still holds the moment the wakeup
 * queued it, and the run queue's clock was just updated.
 */
static __always_inline void count_edge(bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = rq_clock_of(prev), queued;
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
	k.waker_tgid = w->waker_tgid;
	k.wakee_tgid = next->tgid;
	v = edge_of(&k, next);
	if (!v)
		return;
	__sync_fetch_and_add(&v->count, 1);
	queued = next->sched_info.last_queued;
	if (!queued || queued > now)
		return;
	__sync_fetch_and_add(&v->runq_ns, now - queued);
	s = slot_of(next->pid);
	if (s && s->tag == tag && s->sleep_ts && s->sleep_ts < queued)
		__sync_fetch_and_add(&v->blocked_ns, queued - s->sleep_ts);
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
