// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include "dict.h"
#include "runq.h"
#include "util.h"

/* Threads remembered at most; past it the history restarts (one pass of NULLs). */
#define RUNQ_THREADS_MAX 1000000

struct counters {
	uint64_t delay, count;
	/* the sample found it preempted by tract, when a pass cost pass_ns */
	uint64_t pass_ns;
	int preempted;
};

struct runq_history {
	struct dict *tids;	/* tid -> index + 1 */
	struct counters *last;
	size_t nr, cap;
	uint64_t pass_ns;
};

struct runq_history *runq_history__new(void)
{
	struct runq_history *h = xcalloc(1, sizeof(*h));

	h->tids = dict__new();
	return h;
}

void runq_history__free(struct runq_history *h)
{
	if (!h)
		return;
	dict__free(h->tids);
	free(h->last);
	free(h);
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
	uint32_t id;
	int added, rc = -1;

	if (h->nr >= RUNQ_THREADS_MAX) {
		dict__clear(h->tids);
		h->nr = 0;
	}
	id = dict__intern(h->tids, &tid, sizeof(tid), &added);
	if (added) {
		if (h->nr == h->cap) {
			h->cap = h->cap ? h->cap * 2 : 1024;
			h->last = xrealloc(h->last, h->cap * sizeof(*h->last));
		}
		h->nr++;
	} else {
		c = &h->last[id - 1];
		leave_out_observer(c, run_delay_ns, run_count);
		rc = runq_delay_between(c->delay, c->count, run_delay_ns, run_count, delay_ns);
	}
	h->last[id - 1] = (struct counters){ .delay = run_delay_ns, .count = run_count, .pass_ns = h->pass_ns,
					     .preempted = preempted };
	return rc;
}
