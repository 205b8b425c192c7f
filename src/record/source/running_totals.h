/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running totals the CPUs keep in an array of the BPF side (the wakeup
 * edges, struct tract_edge_total; the syscall latency histograms, struct
 * tract_sc_total), read through mmap once a pass: what each entry's
 * counters grew since the last read is this pass's, and an entry that has
 * not grown for a while is freed for another key.  No system call, and no
 * hash on the kernel's side.
 *
 * An entry is a 64-bit key (0: free), then from its first'th 64-bit word
 * the counters, 64-bit each and only growing, then what else the kind
 * keeps (a name).
 */
#ifndef TRACT_RUNNING_TOTALS_H
#define TRACT_RUNNING_TOTALS_H

#include <stddef.h>
#include <stdint.h>

struct running_totals;

/* An entry's key, what each of its counters grew by, and the entry itself (for the rest). */
typedef void (*totals_take_fn)(void *ctx, uint64_t key, const uint64_t *grown, const void *entry);

/*
 * Maps the array of map_fd: entries of entry_size bytes, each with
 * counters counters from its first'th word; NULL after a message naming what.
 */
struct running_totals *running_totals__open(int map_fd, uint32_t entries, size_t entry_size, uint32_t first,
					    uint32_t counters, const char *what);
void running_totals__free(struct running_totals *rt);
/* Calls take for every entry that grew since the last read. */
void running_totals__read(struct running_totals *rt, totals_take_fn take, void *ctx);

#endif
