/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user side of the on-CPU profile (bpf/profile.bpf.h): one software
 * cpu-clock event per CPU runs the program; every pass reads the ticks
 * counted by thread and stacks into pass->profile, resolves the stacks
 * RUN samples point to, and empties the kernel's tables for the next one.
 */
#ifndef TRACT_PROFILE_H
#define TRACT_PROFILE_H

#include <stdint.h>
#include "sample.h"

struct bpf_program;
struct stackdict;
struct profile;

/*
 * Attaches prog at hz on every online CPU; NULL (after one notice) when the
 * events cannot be opened, and recording goes on without the profile.
 */
struct profile *profile__open(struct bpf_program *prog, int stacks_fd, int counts_fd, uint32_t *gen, double hz);
void profile__free(struct profile *pr);
/* The stack of a profile stack id, symbolized (cached for the pass); NULL for none. */
const struct kstack *profile__stack(struct profile *pr, struct stackdict *sd, int32_t id, uint32_t tgid, int user);
/* Moves the ticks counted since the last pass into p->profile, and empties the tables. */
void profile__drain(struct profile *pr, struct stackdict *sd, struct pass *p);

#endif
