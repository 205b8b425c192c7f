/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the spool never got: a recorder killed (or out of memory, or cut
 * off by power) loses the batch it was filling, though its passes are in
 * the local store.  The spool keeps the time of the last pass it took (the
 * mark); a start finds the passes of the local store after the mark and
 * before its own first pass, and keeps that range (a gap) until a backfill
 * of it from the local store is done, also across further restarts.
 */
#ifndef TRACT_CH_GAPS_H
#define TRACT_CH_GAPS_H

#include <stddef.h>
#include <stdint.h>

/* The last spooled pass's time in dir (the spool), 0 when there is none. */
uint64_t ch_gaps__mark(const char *dir);
/* Sets it; 0 or -errno. */
int ch_gaps__set_mark(const char *dir, uint64_t ts_us);
/* Adds the range [from, to) of passes to backfill; 0 or -errno. */
int ch_gaps__add(const char *dir, uint64_t from_us, uint64_t to_us);
/* The oldest range left to backfill: 1 and it, or 0 when none is left. */
int ch_gaps__first(const char *dir, uint64_t *from_us, uint64_t *to_us);
/* Forgets the oldest range, backfilled; 0 or -errno. */
int ch_gaps__done(const char *dir);

#endif
