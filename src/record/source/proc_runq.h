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
 *
 * Nor is R itself found as often as the thread is runnable.  A reader of
 * /proc runs when its timer wakes it, and on a virtual machine the same
 * exit to the host delivers the disk's and the network's interrupts: a
 * thread they wake is R at that moment far more often than at others (an
 * fsync loop beside spinners: R in 74% of a plain reader's looks, runnable
 * 41% of the time by its counters).  Over passes that find a thread in
 * turn, the counters say how long it was runnable; where its R samples are
 * more than that share, the excess ones are read as the state it was last
 * found in off CPU, by the same error diffusion.  A thread never found off
 * CPU (a spinner) keeps every R.
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
 * queue) read at now_ns (CLOCK_MONOTONIC), and the sample's state as /proc
 * gives it (TRACT_STATE_*, R as TRACT_STATE_RUN); the state it is recorded
 * as: an R one RUN or RUNQ, or the thread's latest state off CPU.
 */
int proc_runq__state(struct proc_runq *r, uint32_t tid, uint64_t run_ns, uint64_t wait_ns, uint64_t now_ns,
		     int state);
/*
 * The arithmetic, apart: growths c and q added to a thread's decaying sums,
 * the queued fraction of those sums, and the verdict it and the carried
 * error *acc give, *acc updated.
 */
void proc_runq_add(uint64_t *c_sum, uint64_t *q_sum, uint64_t c, uint64_t q);
uint32_t proc_runq_fraction(uint64_t c_sum, uint64_t q_sum);
int proc_runq_diffuse(int32_t *acc, uint32_t fraction);
/*
 * The fraction of a thread's R samples that were off CPU, from the decaying
 * sums over consecutive passes: time runnable and time (ns), R samples and
 * samples (in PROC_RUNQ_ONE each); 0 where R was found no more often than
 * the thread was runnable, or it was never found off CPU.
 */
uint32_t proc_runq_overseen(uint64_t r_time, uint64_t time, uint64_t r_seen, uint64_t seen_n);

#endif
