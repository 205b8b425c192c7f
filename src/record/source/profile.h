/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user side of the on-CPU profile (bpf/profile.bpf.h): one software
 * cpu-clock event per CPU runs the program; every pass reads the ticks
 * counted by thread and stacks, resolves the stacks RUN samples point to,
 * and empties the kernel's tables for the next one; the ticks go into a
 * pass with the histograms (at most once a second), a row per thread and
 * stacks.
 * With CFI unwinding, the ticks of user threads come through a ring buffer
 * with their stack bytes instead, and are unwound and counted here.
 */
#ifndef TRACT_PROFILE_H
#define TRACT_PROFILE_H

#include <stdint.h>
#include "sample.h"

struct bpf_program;
struct stackdict;
struct profile;

struct profile_maps {
	int stacks_fd;		/* profile_stacks */
	int counts_fd;		/* profile_counts */
	int ring_fd;		/* profile_ticks_ring; -1 without CFI unwinding */
	uint32_t *gen;		/* the BPF side's profile_gen */
	const volatile __u64 *added;	/* the BPF side's profile_added */
};

/*
 * Attaches prog at hz on every online CPU; NULL (after one notice) when the
 * events cannot be opened, and recording goes on without the profile.
 * Ticks are unwound and symbolized into sd, which must outlive it.
 */
struct profile *profile__open(struct bpf_program *prog, const struct profile_maps *maps,
			      struct stackdict *sd, double hz);
void profile__free(struct profile *pr);
/* The stack of a profile stack id, symbolized (cached for the pass); NULL for none. */
const struct kstack *profile__stack(struct profile *pr, struct stackdict *sd, int32_t id, uint32_t tgid, int user);
/*
 * The user stack of tick serial (tract_sample.prof_tick), one of this
 * pass's ticks that went by the ring; NULL when there is none.
 */
const struct kstack *profile__tick_ustack(struct profile *pr, uint64_t serial);
/*
 * Every pass, after its rows: counts the ticks since the last pass by thread
 * and stacks, and empties the kernel's tables (their stack ids hold for a
 * pass).
 */
void profile__drain(struct profile *pr);
/* The ticks counted since the last call into p->profile, a row per thread and stacks. */
void profile__take(struct profile *pr, struct pass *p);

#endif
