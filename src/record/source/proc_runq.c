// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include "proc_runq.h"
#include "tract/abi.h"
#include "util.h"

/* Passes a thread may go unsampled (asleep, inactive) before it is forgotten */
#define PROC_RUNQ_KEEP_PASSES 64
/*
 * The sums lose 1/2^DECAY_SHIFT of themselves at each runnable sample: about
 * 16 samples' growths, enough to smooth the lumps of ended waits, few enough
 * to follow a thread whose load changes.
 */
#define PROC_RUNQ_DECAY_SHIFT 4
/*
 * How often R is found against how long the thread was runnable: about 64
 * passes, as a share of samples strays by sampling more than a sum of times.
 */
#define PROC_RUNQ_SPAN_SHIFT 6

struct thread_runq {
	uint32_t tid;		/* 0: a free entry (tid 0 is the idle task, never sampled) */
	int32_t acc;		/* RUNQ's error carried over, in 1/PROC_RUNQ_ONE */
	int32_t off_acc;	/* the error of R samples read as off CPU, likewise */
	uint32_t seen;		/* the pass it was last sampled in */
	uint8_t off_state;	/* its latest state off CPU, TRACT_STATE_RUN: none yet */
	uint64_t run_ns, wait_ns, at_ns;	/* the counters at its latest sample, and when */
	uint64_t c_sum, q_sum;	/* their growths since it was first seen, decaying */
	/* over consecutive passes: time runnable and time, R samples and samples, decaying */
	uint64_t r_time, time, r_seen, seen_n;
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

uint32_t proc_runq_overseen(uint64_t r_time, uint64_t time, uint64_t r_seen, uint64_t seen_n)
{
	double runnable, found;

	/* a thread never found off CPU: all its waits are for a CPU, nothing to take back */
	if (!time || !seen_n || r_seen >= seen_n)
		return 0;
	runnable = (double)r_time / (double)time;
	found = (double)r_seen / (double)seen_n;
	if (found <= runnable)
		return 0;
	return (uint32_t)((found - runnable) / found * PROC_RUNQ_ONE + 0.5);
}

/* The decaying sums of the counters over consecutive passes and of the R samples among them. */
static void add_span(struct thread_runq *t, uint64_t runnable_ns, uint64_t span_ns, int runnable)
{
	t->r_time += runnable_ns - (t->r_time >> PROC_RUNQ_SPAN_SHIFT);
	t->time += span_ns - (t->time >> PROC_RUNQ_SPAN_SHIFT);
	t->r_seen += (runnable ? PROC_RUNQ_ONE : 0) - (t->r_seen >> PROC_RUNQ_SPAN_SHIFT);
	t->seen_n += PROC_RUNQ_ONE - (t->seen_n >> PROC_RUNQ_SPAN_SHIFT);
}

int proc_runq__state(struct proc_runq *r, uint32_t tid, uint64_t run_ns, uint64_t wait_ns, uint64_t now_ns,
		     int state)
{
	struct thread_runq *t;
	int runnable = state == TRACT_STATE_RUN, consecutive;

	if (!tid)
		return state;
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
	consecutive = t->at_ns && t->seen + 1 == r->pass && now_ns > t->at_ns;
	/* every growth goes into the sums, at whichever sample sees it */
	proc_runq_add(&t->c_sum, &t->q_sum, run_ns - t->run_ns, wait_ns - t->wait_ns);
	if (consecutive)
		add_span(t, (run_ns - t->run_ns) + (wait_ns - t->wait_ns), now_ns - t->at_ns, runnable);
	t->seen = r->pass;
	t->run_ns = run_ns;
	t->wait_ns = wait_ns;
	t->at_ns = now_ns;
	if (!runnable) {
		t->off_state = (uint8_t)state;
		return state;
	}
	/* found R more often than the counters had it runnable: this many of those moments were off CPU */
	if (consecutive && t->off_state != TRACT_STATE_RUN &&
	    proc_runq_diffuse(&t->off_acc, proc_runq_overseen(t->r_time, t->time, t->r_seen, t->seen_n)))
		return t->off_state;
	return proc_runq_diffuse(&t->acc, proc_runq_fraction(t->c_sum, t->q_sum)) ? TRACT_STATE_RUNQ
										      : TRACT_STATE_RUN;
}
