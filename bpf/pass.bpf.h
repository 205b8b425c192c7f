/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pass is a snapshot of one moment: when the sampler's timer woke it.
 *
 * The sampler must run on a CPU to take a pass, and on a busy host it takes
 * that CPU from someone: the thread it preempted, or the one it waited
 * behind, would read as queued in every pass, half of the time on CPU of a
 * two-CPU host.  And while it waits for its CPU and then visits threads one
 * after another, the other CPUs go on switching: what they run by then is
 * often what the sampler's wait displaced there.  So the snapshot is of the
 * moment the sampler woke, which does not depend on the workload, where the
 * moments the sampler gets its CPU and visits a thread often do.  What ran
 * on each CPU then is read in the interrupt of the sampler's timer
 * (moment.bpf.h; as_at_moment() here).  Without that reading (the first
 * pass, a deadline already past), the kernel's own times tell: when each
 * thread last got a CPU (sched_info.last_arrival), was queued (last_queued)
 * and left one (se.exec_start); a thread's state then follows from them,
 * unless it has switched twice since, and then it is shown as found.
 * Whether another thread of the same CPU was running then is for user
 * space to weigh (src/record/source/observer.c): the flags say what each thread's own
 * times tell.  Either way, user space passes the sampler's sched_info as it
 * went to sleep, from which its wakeup follows.
 */
#ifndef TRACT_PASS_BPF_H
#define TRACT_PASS_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"
#include "run_moment.bpf.h"

/*
 * At the first task of a pass: when the sampler woke.  Since then it has
 * waited for a CPU (its run_delay grew) and, if it was preempted or blocked
 * before its latest arrival, run for a while (its time on a CPU up to that
 * arrival, se.prev_sum_exec_runtime, grew); its latest arrival less both is
 * its wakeup, to within the microseconds it ran between telling user space
 * its figures and falling asleep.  A wakeup that preempts at once skips the
 * clock update of the switch (rq_clock_skip_update()), so the wakeup and
 * the arrival are often equal.  If it did not sleep at all, the pass began
 * now.
 */
static __always_inline void note_pass_start(struct tract_pass *p, struct task_struct *me, __u64 now)
{
	__u64 delay = me->sched_info.run_delay, arrival = me->sched_info.last_arrival;
	__u64 ran = me->se.prev_sum_exec_runtime, back;

	p->observer_cpu = me->thread_info.cpu;
	p->arrival = arrival;
	p->start = arrival;
	if (!p->rest_pcount)
		return;
	if (me->sched_info.pcount == p->rest_pcount) {
		p->start = now;
	} else if (delay >= p->rest_run_delay && ran >= p->rest_run_ns) {
		back = (delay - p->rest_run_delay) + (ran - p->rest_run_ns);
		if (arrival > back)
			p->start = arrival - back;
	}
}

/*
 * Whether a thread that got its CPU after the pass began was asleep then:
 * that switch-in ended its latest wakeup, and the wakeup came later.
 */
static __always_inline bool woken_after(struct task_struct *task, __u64 start)
{
	struct tract_waker *w = waker_of(task->pid);
	__u64 waited;

	/* slept_in RUN: a wakeup that found it on its CPU, or no wakeup (mark_run_copy()) */
	if (!w || w->tag != owner_tag(task) || w->slept_in == TRACT_STATE_RUN ||
	    (__u32)task->sched_info.pcount - w->pcount != 1)
		return false;
	waited = task->sched_info.run_delay - w->run_delay;
	return task->sched_info.last_arrival - waited > start;
}

/*
 * Each CPU as the pass first met a thread of it (a per-CPU kernel thread,
 * within the pass's first microseconds): what ran on it, and its run
 * queue's clock less its task clock (the interrupt and steal time the task
 * clock leaves out).  The sampler visits threads one after another while
 * the other CPUs go on switching, and two threads that take turns every
 * microsecond would otherwise both read as running, or neither; and a
 * thread's exec_start, in the task clock, converted with a later lag would
 * seem to leave its CPU later than it did.  The run queue comes from that
 * thread, since a per-CPU variable's address needs kallsyms to hold data
 * symbols, which not every kernel's does.
 */
struct cpu_view {
	__u64 pass;		/* the pass that met the CPU */
	__u64 runner;		/* what ran on it then, as a number; the sampler's CPU: 0 */
	__u64 since;		/* when that got the CPU; an idle CPU: ~0, as any switch is since */
	__u64 lag;		/* its run queue's clock less its task clock then */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACT_CPUS_MAX);
	__type(key, __u32);
	__type(value, struct cpu_view);
} cpu_views SEC(".maps");

/*
 * Per CPU, for user space: the latest time a thread that is not sampled
 * (another process under -p, a tract thread) got that CPU and was on it
 * when the pass began, and in which pass.  A sampled thread that got the
 * CPU after it then was not what ran there.
 */
__u64 outside_pass[TRACT_CPUS_MAX];
__u64 outside_arrival[TRACT_CPUS_MAX];

static __always_inline struct cpu_view *view_of(const struct tract_pass *p, struct task_struct *task, __u32 cpu)
{
	struct cpu_view *v = bpf_map_lookup_elem(&cpu_views, &cpu);
	struct task_struct *curr;
	struct rq *rq;

	if (!v || v->pass == p->seq)
		return v;
	rq = task->se.cfs_rq->rq;
	/* the thread moved since its CPU was read: this run queue is another CPU's */
	if (rq->cpu != cpu)
		return NULL;
	curr = rq->curr;
	v->pass = p->seq;
	v->runner = cpu == p->observer_cpu ? 0 : (__u64)curr;
	/* sched_info_switch() keeps no times for the idle task */
	v->since = !curr ? 0 : curr->pid ? curr->sched_info.last_arrival : ~0ull;
	v->lag = rq->clock - rq->clock_task;
	return v;
}

/*
 * Whether a thread off its CPU now was on it when the pass began, and left
 * it since: preempted (its queue time is when it left, in the run queue's
 * clock) or asleep (exec_start, in the task clock, with that CPU's lag when
 * the pass met it: a lag read later would add the interrupt time since).  A
 * move to another CPU clears exec_start, and the time it left with it.
 */
static __always_inline bool left_since(struct task_struct *task, const struct tract_sample *s,
				       const struct cpu_view *v, __u64 start)
{
	__u64 queued = task->sched_info.last_queued, left;

	if (!task->se.exec_start)
		return false;
	left = task->se.exec_start + v->lag;
	if (s->state == TRACT_STATE_RUNQ && queued && queued < left)
		left = queued;
	return left >= start;
}

/*
 * A queued thread that was asleep when the pass began and was woken since,
 * and the state it slept in: its latest wakeup came after the pass began
 * (it was queued since), found it switched out (a thread woken while still
 * on its CPU never slept: a later preemption queued it) and it has not had
 * a CPU since that wakeup.
 */
static __always_inline int woken_since(struct task_struct *task, __u64 start)
{
	struct tract_waker *w = waker_of(task->pid);

	if (task->sched_info.last_queued <= start || !w || w->tag != owner_tag(task) ||
	    (__u32)task->sched_info.pcount != w->pcount || task->sched_info.run_delay != w->run_delay ||
	    w->slept_in == TRACT_STATE_RUN)
		return -1;
	return w->slept_in;
}

/*
 * Where a sample takes its stacks from: the thread as it is, its wakeup in
 * the window, what it ran at the moment, or nowhere.  as_at_pass_start()
 * says which; the sampler keeps it in stacks_from (tract.bpf.c).
 */
enum stacks_from { STACKS_NOW, STACKS_WINDOW, STACKS_WINDOW_KEPT, STACKS_NONE, STACKS_RAN };

/*
 * With each CPU's runner read at the moment (moment.bpf.h): those ran then,
 * and no other.  A runner that moved to another CPU since is found by its
 * tid in user space.  A thread asleep then and woken since shows what it
 * slept in (window.bpf.h); one that got a CPU since and was not asleep then
 * was queued, and what it sleeps in now is not the moment's.
 */
static __always_inline enum stacks_from as_at_moment(const struct tract_pass *p, struct task_struct *task,
						    struct tract_sample *s, __u32 cpu)
{
	struct tract_waker *w = waker_of(task->pid);
	__u64 start = p->start;
	int slept, then;

	/* one that ran then on a CPU it has left for another is shown on that one */
	if (moment_task[cpu] != (__u64)task && (then = ran_cpu(task, cpu)) >= 0) {
		cpu = then & (TRACT_CPUS_MAX - 1);
		s->cpu = cpu;
	}
	if (moment_task[cpu] == (__u64)task) {
		s->flags |= TRACT_SF_AT_MOMENT;
		if (s->state != TRACT_STATE_RUN) {
			s->flags |= TRACT_SF_RAN_AT_START;
			if (task->sched_info.last_queued == p->arrival && cpu == p->observer_cpu)
				s->flags |= TRACT_SF_PREEMPTED;
		}
		s->state = TRACT_STATE_RUN;
		/* what it ran then: run_moment.bpf.h */
		return STACKS_RAN;
	}
	if (w && w->tag == owner_tag(task) && w->moment_woke == (__u32)moment_pass) {
		if (s->state == TRACT_STATE_RUN) {
			s->start_state = w->moment_slept_in;
			s->flags |= TRACT_SF_ARRIVED_SINCE;
		} else {
			s->flags |= TRACT_SF_WOKEN_SINCE;
		}
		s->state = w->moment_slept_in;
		return STACKS_WINDOW;
	}
	if (s->state != TRACT_STATE_RUN && moment_clock[cpu] && task->sched_info.last_arrival > moment_clock[cpu]) {
		s->state = TRACT_STATE_RUNQ;
		return STACKS_NONE;
	}
	if (s->state == TRACT_STATE_RUN) {
		/* it got its CPU since: then it was queued, or asleep */
		s->start_state = start && woken_after(task, start) ? TRACT_STATE_SLEEP : TRACT_STATE_RUNQ;
		s->state = s->start_state;
		s->flags |= TRACT_SF_ARRIVED_SINCE;
	} else if (start && s->state == TRACT_STATE_RUNQ && (slept = woken_since(task, start)) >= 0) {
		s->state = slept;
		s->flags |= TRACT_SF_WOKEN_SINCE;
	}
	return STACKS_NOW;
}

/* The sample s of task as the thread was at the pass's start, and where its stacks come from. */
static __always_inline enum stacks_from as_at_pass_start(const struct tract_pass *p, struct task_struct *task,
							 struct tract_sample *s)
{
	__u64 start = p->start, arrived = task->sched_info.last_arrival;
	__u32 cpu = task->thread_info.cpu;
	struct cpu_view *v;
	bool runner, changed;
	int slept;

	/* one read of its CPU: the view, the row and user space all go by it */
	s->cpu = cpu;
	if (cpu >= TRACT_CPUS_MAX || s->state == TRACT_STATE_ZOMBIE)
		return STACKS_NOW;
	if (p->at_moment)
		return as_at_moment(p, task, s, cpu);
	if (!start || !arrived)
		return STACKS_NOW;
	v = view_of(p, task, cpu);
	if (!v)
		return STACKS_NOW;
	runner = v->runner == (__u64)task;
	/* the sampler holds its own CPU: what ran there then has left it */
	changed = cpu == p->observer_cpu || v->since > start;
	if (runner || s->state == TRACT_STATE_RUN) {
		if (arrived <= start) {
			/* what ran on its CPU when the pass met it, since before the pass: RUN, wherever it is now */
			if (runner) {
				s->state = TRACT_STATE_RUN;
				return STACKS_NOW;
			}
			/* on its CPU since before the pass, and leaving it as the pass met the CPU */
			s->state = TRACT_STATE_RUNQ;
			s->flags |= TRACT_SF_RAN_AT_START;
			return STACKS_NOW;
		}
		/* it got its CPU after the pass began: then it was queued, or asleep */
		s->start_state = woken_after(task, start) ? TRACT_STATE_SLEEP : TRACT_STATE_RUNQ;
		if (runner) {
			/* ... unless nothing else is known to have had the CPU then */
			s->state = TRACT_STATE_RUN;
			s->flags |= TRACT_SF_ARRIVED_SINCE;
		} else {
			/* and it was not on it when the pass met its CPU either */
			s->state = s->start_state;
		}
		return STACKS_NOW;
	}
	if (arrived > start || !changed)
		return STACKS_NOW;
	if (left_since(task, s, v, start)) {
		s->flags |= TRACT_SF_RAN_AT_START;
		if (task->sched_info.last_queued == p->arrival && cpu == p->observer_cpu)
			s->flags |= TRACT_SF_PREEMPTED;
	} else if (s->state == TRACT_STATE_RUNQ && (slept = woken_since(task, start)) >= 0) {
		s->state = slept;
		s->flags |= TRACT_SF_WOKEN_SINCE;
	}
	return STACKS_NOW;
}

/*
 * A thread the pass does not sample may still have been what ran on its
 * CPU when the pass began: user space must know, to not show a sampled
 * thread that got the CPU later as running then.
 */
static __always_inline void note_outside(const struct tract_pass *p, struct task_struct *task)
{
	struct tract_sample s = { .state = tract_decode_state(task_state_bits(task), task->exit_state,
							     task->on_cpu) };
	__u64 start = p->start, arrived = task->sched_info.last_arrival;
	__u32 cpu = task->thread_info.cpu, i = cpu & (TRACT_CPUS_MAX - 1);
	struct cpu_view *v;

	if (p->at_moment || !start || !arrived || arrived > start || cpu >= TRACT_CPUS_MAX || s.state == TRACT_STATE_RUN ||
	    s.state == TRACT_STATE_ZOMBIE || task == bpf_get_current_task_btf())
		return;
	v = view_of(p, task, cpu);
	if (!v || (cpu != p->observer_cpu && v->since <= start) || !left_since(task, &s, v, start))
		return;
	if (outside_pass[i] != p->seq || outside_arrival[i] < arrived) {
		outside_pass[i] = p->seq;
		outside_arrival[i] = arrived;
	}
}

#endif
