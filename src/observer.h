/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pass as one moment: when the sampler woke for it.  The BPF side tells,
 * from each thread's own times, whether it was on a CPU then and has left
 * it since (TRACT_SF_RAN_AT_START), or got its CPU since
 * (TRACT_SF_ARRIVED_SINCE), and when a thread it does not sample was on a
 * CPU then.  This weighs the threads of each CPU together: the one that had
 * the CPU then is RUN, and one that got it since is shown as it was then.
 * Without it, the thread tract's sampler preempted, or the one it waited
 * behind, reads as queued in every pass, and the other CPUs show what the
 * sampler's wait pushed to them.
 */
#ifndef TRACT_OBSERVER_H
#define TRACT_OBSERVER_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

/*
 * One RUN row per CPU, the one that had it when the pass began; rows kept
 * only in case they had it (TRACT_SF_ONLY_IF_RAN) and did not are dropped.
 * outside_ns[cpu], for ncpus CPUs: how long before the pass's clock a thread
 * not sampled got that CPU and was on it when the pass began (0: none).
 * Returns the rows reported RUN that were not found on a CPU.
 */
size_t observer__resolve(struct pass *p, const uint64_t *outside_ns, size_t ncpus);

#endif
