/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RUN or RUNQ for a thread the /proc source finds runnable.  /proc shows a
 * thread on a CPU and one queued for a CPU alike as R, but the kernel keeps
 * both times apart in its schedstat: a thread whose time on a CPU grew by c
 * and whose run-queue wait grew by q was queued q / (q + c) of the time it
 * was runnable.  A sample is one moment standing for its pass's interval,
 * so such a sample is RUNQ with that probability: each thread carries the
 * fractions over from sample to sample (error diffusion), and its RUNQ
 * samples add up to the sum of them, give or take one, deterministically.
 *
 * The fraction is of the growths summed over the thread's recent runnable
 * samples, not of the latest alone: a wait is counted when it ends, in one
 * lump, and the span between two readings varies (a pass is late when the
 * machine is busy), so the mean of each span's own fraction weights a short
 * span as much as a long one and strayed 0.05 to 0.10 low of the kernel's
 * share on three spinners on two CPUs; a sum weights each by its time.
 */
#ifndef TRACT_PROC_RUNQ_H
#define TRACT_PROC_RUNQ_H

#include <stdint.h>

/* A fraction's unit: q / (q + c) in 1/PROC_RUNQ_ONE */
#define PROC_RUNQ_ONE 65536

struct proc_runq;

struct proc_runq *proc_runq__new(void);
void proc_runq__free(struct proc_runq *r);
/* A pass begins: threads unseen for a while are forgotten. */
void proc_runq__new_pass(struct proc_runq *r);
/*
 * Remember tid's schedstat counters (ns on a CPU, ns waiting on a run
 * queue); for a runnable thread, 1 when this sample is RUNQ, else 0.
 */
int proc_runq__queued(struct proc_runq *r, uint32_t tid, uint64_t run_ns, uint64_t wait_ns, int runnable);
/*
 * The arithmetic, apart: growths c and q added to a thread's decaying sums,
 * the queued fraction of those sums, and the verdict it and the carried
 * error *acc give, *acc updated.
 */
void proc_runq_add(uint64_t *c_sum, uint64_t *q_sum, uint64_t c, uint64_t q);
uint32_t proc_runq_fraction(uint64_t c_sum, uint64_t q_sum);
int proc_runq_diffuse(int32_t *acc, uint32_t fraction);

#endif
