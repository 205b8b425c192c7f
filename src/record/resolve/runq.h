/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Run-queue delay per thread, from the kernel's own sched_info counters
 * (total time runnable-but-waiting, times it got a CPU), so no tracepoint
 * pays for it: between two samples of a thread, the delay per switch-in is
 * the difference of the first over the difference of the second.
 */
#ifndef TRACT_RUNQ_H
#define TRACT_RUNQ_H

#include <stdint.h>

struct runq_history;

struct runq_history *runq_history__new(void);
void runq_history__free(struct runq_history *h);
/*
 * Remember the thread's counters; 0 with *delay_ns set to the mean wait for
 * a CPU per switch-in since its previous sample, or -1 when there is none
 * (first sample, no switch-in since, or a reused tid).  preempted says the
 * sample found that tract's sampler had just taken the thread's CPU: the
 * switch-in that ends this wait, and the wait, are tract's and are left
 * out of the next figure.
 */
int runq_history__update(struct runq_history *h, uint32_t tid, uint64_t run_delay_ns,
			 uint64_t run_count, int preempted, uint64_t *delay_ns);
/*
 * How long the latest pass held its CPU: what a displacement is taken to
 * have cost when the thread switched again before its next sample, so that
 * the displacement's own end is not known.
 */
void runq_history__pass_ns(struct runq_history *h, uint64_t ns);
/* The arithmetic, apart: -1 unless the counters moved forward. */
int runq_delay_between(uint64_t delay0, uint64_t count0, uint64_t delay1, uint64_t count1,
		       uint64_t *delay_ns);

#endif
