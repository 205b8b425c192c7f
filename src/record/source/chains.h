/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who holds up whom at a pass: each row waiting for a lock whose holder is
 * named (bpf/holder.bpf.h) gets the chain of holders among the pass's own
 * rows (the holder's holder, and so on), its root and length, and a mark
 * where the chain closes on itself (a deadlock).  A holder that is not a
 * row of the pass, or waits for no named holder, ends the chain.
 */
#ifndef TRACT_CHAINS_H
#define TRACT_CHAINS_H

#include <stdint.h>
#include "sample.h"

/* Whether tid is a live thread of process tgid (a holder the C library named that the pass has no row of). */
typedef int (*chains_alive_fn)(void *arg, uint32_t tgid, uint32_t tid);

/* The longest chain followed; a longer one ends where it was cut. */
#define CHAIN_MAX 64

/*
 * Checks the holders the C library named (TRACT_SF_BLOCKER_USER): a
 * holder that is the waiter, a row of another process, or no live thread
 * of the waiter's (alive) is no holder.  Then sets every blocked row's
 * chain_root_tid, chain_len and chain_cycle.  A cycle's root is its
 * lowest tid, the same for every thread on it or waiting for it.
 */
void chains__resolve(struct pass *p, chains_alive_fn alive, void *arg);

#endif
