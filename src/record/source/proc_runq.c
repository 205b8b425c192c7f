// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include "proc_runq.h"
#include "util.h"

/* Passes a thread may go unsampled (asleep, inactive) before it is forgotten */
#define PROC_RUNQ_KEEP_PASSES 64
/*
 * The sums lose 1/2^DECAY_SHIFT of themselves at each runnable sample: about
 * 16 samples' growths, enough to smooth the lumps of ended waits, few enough
 * to follow a thread whose load changes.
 */
#define PROC_RUNQ_DECAY_SHIFT 4

struct thread_runq {
	uint32_t tid;		/* 0: a free entry (tid 0 is the idle task, never sampled) */
	int32_t acc;		/* the error carried over, in 1/PROC_RUNQ_ONE */
	uint32_t seen;		/* the pass it was last sampled in */
	uint64_t run_ns, wait_ns;	/* the counters at its latest runnable sample */
	uint64_t c_sum, q_sum;	/* their growths since, decaying */
};

/* By tid, open-addressed, as runq.c's history: a lookup for every runnable row */
struct proc_runq {
	struct thread_runq *slots;
	size_t nr, cap;		/* cap: a power of two, kept at most 3/4 full */
	uint32_t pass;
};

struct proc_runq *proc_runq__new(void)
{
	struct proc_runq *r = xcalloc(1, sizeof(*r));

	r->cap = 1024;
	r->slots = xcalloc(r->cap, sizeof(*r->slots));
	return r;
}

void proc_runq__free(struct proc_runq *r)
{
	if (!r)
		return;
	free(r->slots);
	free(r);
}

static struct thread_runq *slot_of_tid(struct thread_runq *slots, size_t cap, uint32_t tid)
{
	size_t mask = cap - 1;
	uint64_t h = tid * 0x9e3779b97f4a7c15ull;

	h ^= h >> 32;
	for (size_t i = h & mask;; i = (i + 1) & mask)
		if (slots[i].tid == tid || !slots[i].tid)
			return &slots[i];
}

/* The table again at cap, without the threads not sampled for a while (ended ones among them). */
static void rebuild(struct proc_runq *r, size_t cap)
{
	struct thread_runq *old = r->slots;
	size_t old_cap = r->cap;

	r->cap = cap;
	r->slots = xcalloc(r->cap, sizeof(*r->slots));
	r->nr = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].tid && r->pass - old[i].seen <= PROC_RUNQ_KEEP_PASSES) {
			*slot_of_tid(r->slots, r->cap, old[i].tid) = old[i];
			r->nr++;
		}
	free(old);
}

void proc_runq__new_pass(struct proc_runq *r)
{
	r->pass++;
	if (r->pass % PROC_RUNQ_KEEP_PASSES == 0)
		rebuild(r, r->cap);
}

void proc_runq_add(uint64_t *c_sum, uint64_t *q_sum, uint64_t c, uint64_t q)
{
	*c_sum += c - (*c_sum >> PROC_RUNQ_DECAY_SHIFT);
	*q_sum += q - (*q_sum >> PROC_RUNQ_DECAY_SHIFT);
}

uint32_t proc_runq_fraction(uint64_t c_sum, uint64_t q_sum)
{
	/* nothing known yet: it has not run, nor waited, since it began */
	if (!c_sum && !q_sum)
		return PROC_RUNQ_ONE / 2;
	return (uint32_t)((double)q_sum / (double)(q_sum + c_sum) * PROC_RUNQ_ONE + 0.5);
}

int proc_runq_diffuse(int32_t *acc, uint32_t fraction)
{
	*acc += (int32_t)fraction;
	if (*acc >= PROC_RUNQ_ONE / 2) {
		*acc -= PROC_RUNQ_ONE;
		return 1;
	}
	return 0;
}

int proc_runq__queued(struct proc_runq *r, uint32_t tid, uint64_t run_ns, uint64_t wait_ns, int runnable)
{
	struct thread_runq *t;
	int queued = 0;

	if (!tid)
		return 0;
	t = slot_of_tid(r->slots, r->cap, tid);
	if (!t->tid) {
		if ((r->nr + 1) * 4 > r->cap * 3) {
			rebuild(r, r->cap * 2);
			t = slot_of_tid(r->slots, r->cap, tid);
		}
		r->nr++;
		/* first seen: its counters grew from zero since it began */
		*t = (struct thread_runq){ .tid = tid };
	} else if (run_ns < t->run_ns || wait_ns < t->wait_ns) {
		/* counters only grow: a new thread with a reused tid */
		*t = (struct thread_runq){ .tid = tid };
	}
	t->seen = r->pass;
	/*
	 * The counters move on only at a runnable sample, so that every growth
	 * decides one: a wait is counted when it ends, and the one a thread is
	 * in at a sample would be lost if the thread were asleep at the next.
	 */
	if (!runnable && (t->run_ns || t->wait_ns))
		return 0;
	if (runnable) {
		proc_runq_add(&t->c_sum, &t->q_sum, run_ns - t->run_ns, wait_ns - t->wait_ns);
		queued = proc_runq_diffuse(&t->acc, proc_runq_fraction(t->c_sum, t->q_sum));
	}
	t->run_ns = run_ns;
	t->wait_ns = wait_ns;
	return queued;
}
