/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The waker -> wakee graph between processes, as Graphviz's DOT: a node per
 * process (irq and timer are nodes of their own), an edge per pair, as wide
 * as its share of the blocked time it ended and labelled with its wakeups,
 * summed run-queue wait and summed time asleep.  Or the holder -> waiter
 * graph between threads: an edge per pair, as wide as the time the holder
 * held the waiter up, a deadlock's edges in red.
 */
#ifndef TRACT_WAKEGRAPH_H
#define TRACT_WAKEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct wake_edge {
	const char *waker, *wakee;	/* names, not NUL-terminated */
	size_t waker_len, wakee_len;
	int64_t waker_tgid, wakee_tgid;	/* -1: none (irq, timer, or a process gone) */
	uint64_t count, runq_us;
	/*
	 * What the edge weighs: the time its wakees were held up, asleep until
	 * these wakeups (the wakeups table's weight: pass_tables.def), or the
	 * waiter's time held up by the holder
	 */
	uint64_t held_up_us;
	/*
	 * holds: a holder -> waiter edge between threads (waker and wakee are
	 * their names, the ids their tids; count their samples); cycle: its
	 * waits closed a chain on itself
	 */
	unsigned int holds : 1, cycle : 1;
	char *owned;			/* a name the edge owns, or NULL: freed by wakegraph__free() */
};

/* The edges a busy host's graph draws by default: enough to read at a glance. */
#define WAKEGRAPH_EDGES 12

/*
 * Largest blocked time first (what the wakers ended), then most wakeups;
 * ties by names and ids, so the same edges draw the same from any store.
 */
void wakegraph__rank(struct wake_edge *edges, size_t n);
/*
 * edges as wakegraph__rank() leaves them; the first max_edges drawn (0: all),
 * the rest counted in a note with their share of the blocked time.
 */
int wakegraph__write_dot(FILE *out, const struct wake_edge *edges, size_t n, size_t max_edges, const char *title);
/* The edges and the names they own. */
void wakegraph__free(struct wake_edge *edges, size_t n);

#endif
