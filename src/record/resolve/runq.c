// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "runq.h"
#include "util.h"

/* Threads remembered at most; past it the history restarts (one pass of NULLs). */
#define RUNQ_THREADS_MAX 1000000

struct counters {
	uint32_t tid;		/* 0: a free entry (tid 0 is the idle task, never sampled) */
	int preempted;		/* the sample found it preempted by tract, when a pass cost pass_ns */
	uint64_t delay, count;
	uint64_t pass_ns;
};

/*
 * By tid, open-addressed: a lookup for every row of every pass, so an entry
 * holds the counters themselves, 32 bytes, and a probe touches no other
 * memory.
 */
struct runq_history {
	struct counters *slots;
	size_t nr, cap;		/* cap: a power of two, kept at most 3/4 full */
	uint64_t pass_ns;
};

struct runq_history *runq_history__new(void)
{
	struct runq_history *h = xcalloc(1, sizeof(*h));

	h->cap = 1024;
	h->slots = xcalloc(h->cap, sizeof(*h->slots));
	return h;
}

void runq_history__free(struct runq_history *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h);
}

static struct counters *slot_of_tid(struct counters *slots, size_t cap, uint32_t tid)
{
	size_t mask = cap - 1;
	uint64_t h = tid * 0x9e3779b97f4a7c15ull;

	/* tids come in runs and strides: the product's high half folded in spreads both */
	h ^= h >> 32;
	for (size_t i = h & mask;; i = (i + 1) & mask)
		if (slots[i].tid == tid || !slots[i].tid)
			return &slots[i];
}

static void grow(struct runq_history *h)
{
	struct counters *old = h->slots;
	size_t old_cap = h->cap;

	h->cap *= 2;
	h->slots = xcalloc(h->cap, sizeof(*h->slots));
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].tid)
			*slot_of_tid(h->slots, h->cap, old[i].tid) = old[i];
	free(old);
}

int runq_delay_between(uint64_t delay0, uint64_t count0, uint64_t delay1, uint64_t count1,
		       uint64_t *delay_ns)
{
	/* counters only grow; a smaller one belongs to a new thread with a reused tid */
	if (count1 <= count0 || delay1 < delay0)
		return -1;
	*delay_ns = (delay1 - delay0) / (count1 - count0);
	return 0;
}

void runq_history__pass_ns(struct runq_history *h, uint64_t ns)
{
	h->pass_ns = ns;
}

/*
 * The counters as they would be without the preemption c recorded: the
 * switch-in that ended it taken off, with its wait.  When that switch-in
 * was the only one since, the wait is exactly the growth of the delay;
 * after more, the pass's cost stands for it.
 */
static void leave_out_observer(struct counters *c, uint64_t run_delay_ns, uint64_t run_count)
{
	uint64_t tract;

	if (!c->preempted || run_count <= c->count || run_delay_ns < c->delay)
		return;
	tract = run_delay_ns - c->delay;
	if (run_count > c->count + 1 && tract > c->pass_ns)
		tract = c->pass_ns;
	c->delay += tract;
	c->count++;
}

int runq_history__update(struct runq_history *h, uint32_t tid, uint64_t run_delay_ns,
			 uint64_t run_count, int preempted, uint64_t *delay_ns)
{
	struct counters *c;
	int rc = -1;

	/* tid 0 marks a free entry; the idle task is never a sample */
	if (!tid)
		return -1;
	if (h->nr >= RUNQ_THREADS_MAX) {
		memset(h->slots, 0, h->cap * sizeof(*h->slots));
		h->nr = 0;
	}
	c = slot_of_tid(h->slots, h->cap, tid);
	if (!c->tid) {
		if ((h->nr + 1) * 4 > h->cap * 3) {
			grow(h);
			c = slot_of_tid(h->slots, h->cap, tid);
		}
		h->nr++;
	} else {
		leave_out_observer(c, run_delay_ns, run_count);
		rc = runq_delay_between(c->delay, c->count, run_delay_ns, run_count, delay_ns);
	}
	*c = (struct counters){ .tid = tid, .preempted = preempted, .delay = run_delay_ns, .count = run_count,
				.pass_ns = h->pass_ns };
	return rc;
}
