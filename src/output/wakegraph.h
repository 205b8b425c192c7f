/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The waker -> wakee graph between processes, as Graphviz's DOT: a node per
 * process (irq and timer are nodes of their own), an edge per pair, as wide
 * as its share of the wakeups and labelled with their count, summed
 * run-queue wait and summed time asleep.
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
	uint64_t count, runq_us, blocked_us;
};

/* edges sorted by count, largest first; at most max_edges drawn, the rest said in the graph's label. */
int wakegraph__write_dot(FILE *out, const struct wake_edge *edges, size_t n, size_t max_edges, const char *title);

#endif
