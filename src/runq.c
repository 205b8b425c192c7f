// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include "dict.h"
#include "runq.h"
#include "util.h"

/* Threads remembered at most; past it the history restarts (one pass of NULLs). */
#define RUNQ_THREADS_MAX 1000000

struct counters {
	uint64_t delay, count;
};

struct runq_history {
	struct dict *tids;	/* tid -> index + 1 */
	struct counters *last;
	size_t nr, cap;
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

int runq_history__update(struct runq_history *h, uint32_t tid, uint64_t run_delay_ns,
			 uint64_t run_count, uint64_t *delay_ns)
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
		rc = runq_delay_between(c->delay, c->count, run_delay_ns, run_count, delay_ns);
	}
	h->last[id - 1] = (struct counters){ run_delay_ns, run_count };
	return rc;
}
