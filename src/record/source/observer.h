/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pass as one moment: when the sampler woke for it.  Where the BPF side
 * read each CPU's runner then, those are RUN (observer__at_moment()).
 * Otherwise it tells, from each thread's own times, whether it was on a
 * CPU then and has left it since (TRACT_SF_RAN_AT_START), or got its CPU
 * since (TRACT_SF_ARRIVED_SINCE), and when a thread it does not sample was
 * on a CPU then; observer__resolve() weighs the threads of each CPU
 * together: the one that had the CPU then is RUN, and one that got it since
 * is shown as it was then.  Without either, the thread tract's sampler
 * preempted, or the one it waited behind, reads as queued in every pass,
 * and the other CPUs show what the sampler's wait pushed to them.
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

/*
 * The same for a pass whose CPUs were read at its moment (bpf/moment.bpf.h):
 * moment_tid[cpu], for ncpus CPUs, is what each ran then (0: nothing, or a
 * CPU not read).  The BPF side marked those still on that CPU
 * (TRACT_SF_AT_MOMENT); one that moved to another since is found here by its
 * tid and shown on the CPU it had then.  Returns the rows reported RUN that
 * were not found on a CPU.
 */
size_t observer__at_moment(struct pass *p, const uint32_t *moment_tid, size_t ncpus);

#endif
