/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the kernel summed over a pass's interval: the latency histograms
 * (block I/O, syscalls, waits for a CPU) and the wakeup edges, taken into
 * the pass, one row per key.  The syscalls and the edges are summed by
 * each CPU in running totals (running_totals.h), with a hash for the keys
 * a CPU had no room for; the others in hashes, emptied as they are read.
 */
#ifndef TRACT_PASS_SUMS_H
#define TRACT_PASS_SUMS_H

#include <stdint.h>
#include <linux/types.h>
#include "sample.h"
#include "sampler.h"
#include "tract/abi.h"

/* The BPF side's maps and counters; a kind that is not kept has no maps (fd -1). */
struct pass_sums_maps {
	int io_hist, sc_hist, runq_hist, edges;		/* the hashes */
	int sc_totals, edge_totals;			/* the CPUs' running totals */
	int exits;					/* the ring buffer of processes that ended */
	uint32_t cpus;					/* possible CPUs */
	/* each hash's count of keys made, read to skip a hash with none */
	const volatile __u64 *io_added, *sc_added, *runq_added, *edges_added;
};

struct pass_sums;

/* NULL after a message. */
struct pass_sums *pass_sums__open(const struct pass_sums_maps *maps, const struct resolvers *res);
void pass_sums__free(struct pass_sums *ps);
/*
 * The sums since the previous call, into p: every row named (a process that
 * ended has the name it had then), the rows of processes that lived less
 * than a take, and past a budget those with the fewest events, one per
 * command (hist_fold.h).
 */
void pass_sums__take(struct pass_sums *ps, struct pass *p);
/* The processes that ended by the last take (their rows taken): what is kept for them can go. */
const struct tract_exit *pass_sums__ended(const struct pass_sums *ps, size_t *n);


#endif
