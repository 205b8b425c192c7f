/* SPDX-License-Identifier: GPL-2.0-only */
/* Map helpers the latency histograms share. */
#ifndef TRACT_MAPS_BPF_H
#define TRACT_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "tract/abi.h"

/*
 * Count one latency in a histogram bucket.  When two CPUs create the same
 * bucket at once, the loser finds it made and adds to it; only a full map
 * loses counts, and *full says how many.  *added counts the buckets made:
 * the recorder empties a map only when it moved since the last time, as
 * emptying walks every bucket of the table, full or not.
 */
static __always_inline void hist_add(void *map, const void *key, __u64 ns, __u64 *full, __u64 *added)
{
	struct tract_hist_val first = { 1, ns }, *v = bpf_map_lookup_elem(map, key);

	if (!v && !bpf_map_update_elem(map, key, &first, BPF_NOEXIST)) {
		__sync_fetch_and_add(added, 1);
		return;
	}
	if (!v)
		v = bpf_map_lookup_elem(map, key);
	if (!v) {
		__sync_fetch_and_add(full, 1);
		return;
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->sum_ns, ns);
}

#endif
