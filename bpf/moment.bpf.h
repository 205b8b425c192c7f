/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The moment of a pass, as it was on every CPU: what each one ran when the
 * sampler's sleep ended.
 *
 * A pass visits threads one after another, milliseconds after the sampler
 * woke, and by then a CPU that switches every few hundred microseconds has
 * run others: the times each thread keeps tell who had a CPU at the moment
 * only until that thread switches twice more.  So when the timer of the
 * sampler's sleep expires, in its interrupt, this reads each CPU's current
 * task; the pass then shows those as running, and no other thread.  Run
 * queues are learned as the sampler meets the CPUs' threads (a per-CPU
 * variable's address needs kallsyms to hold data symbols, which not every
 * kernel's does), so the first pass goes without, as does a pass whose
 * deadline had passed before the sampler slept: pass.bpf.h then tells the
 * moment from the threads' own times.  A CPU no pass has met yet (one just
 * brought online) shows nothing running.
 *
 * The sampler's timer is told from others by whose sleep it ends: every
 * sleeping task's timer is a struct hrtimer_sleeper, the timer followed by
 * its task.  The word after another kind of timer is read too, and cannot
 * be the sampler's task while the sampler sleeps.  Timers expire a few
 * hundred times a second per CPU, so the test costs little.
 */
#ifndef TRACT_MOMENT_BPF_H
#define TRACT_MOMENT_BPF_H

#include "common.bpf.h"
#include "window.bpf.h"
#include "run_moment.bpf.h"

/* What the moment reads (moment_task and the rest) is in common.bpf.h: the sampler and the window read it too. */
__u64 rq_of_cpu[TRACT_CPUS_MAX];	/* each CPU's run queue, once a pass met it */

static __always_inline void learn_rq(struct task_struct *task, __u32 cpu)
{
	struct rq *rq;

	if (cpu >= TRACT_CPUS_MAX || rq_of_cpu[cpu])
		return;
	rq = task->se.cfs_rq->rq;
	/* a thread that moved since its CPU was read is on another's queue */
	if (rq->cpu == cpu)
		rq_of_cpu[cpu] = (__u64)rq;
}

/*
 * The expiry function of a sleeping task's timer (hrtimer_wakeup), learned
 * from the first of the sampler's: the task after another kind of timer is
 * not read at all, and most expiries are the tick's.
 */
__u64 sleeper_function;

static __always_inline void take_moment(struct hrtimer *t)
{
	__u64 function = (__u64)t->function;
	struct task_struct *curr;
	struct rq *rq;
	__u32 i;

	if (!sampler_task || (sleeper_function && function != sleeper_function) ||
	    (__u64)BPF_CORE_READ((struct hrtimer_sleeper *)t, task) != sampler_task)
		return;
	sleeper_function = function;
	for (i = 0; i < TRACT_CPUS_MAX && i < nr_cpus; i++) {
		rq = (struct rq *)rq_of_cpu[i];
		/* a CPU not met yet (offline, or new) shows nothing as running */
		curr = rq ? BPF_CORE_READ(rq, curr) : NULL;
		moment_task[i] = (__u64)curr;
		moment_tid[i] = curr ? BPF_CORE_READ(curr, pid) : 0;
		moment_clock[i] = rq ? BPF_CORE_READ(rq, clock) : 0;
		moment_clock_task[i] = rq ? BPF_CORE_READ(rq, clock_task) : 0;
	}
	moment_pass = pass.seq + 1;
	window_walks = 0;
	window_moment = moment_pass;
	for (i = 0; i < TRACT_CPUS_MAX && i < nr_cpus; i++)
		keep_runner(i, (struct task_struct *)moment_task[i], moment_tid[i], moment_pass);
}

#endif
