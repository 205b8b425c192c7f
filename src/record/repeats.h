/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A thread that waits pass after pass in the same wait, with the same
 * stacks, makes the same sample each time but for its times, which go on
 * with the clock.  The recorder marks such a row a repeat of the thread's
 * row in the previous stored pass and sets its times to that row's plus
 * the time between the passes, so that every sink has the same values; the
 * SQLite store then keeps no row for it (sample_facts.repeats).
 */
#ifndef TRACT_REPEATS_H
#define TRACT_REPEATS_H

#include "sample.h"

struct repeats;

struct repeats *repeats__new(void);
void repeats__free(struct repeats *rp);
/*
 * p, about to be stored: sets repeat on each row that repeats its thread's
 * row of the pass given before, and those rows' times as that row's gone
 * on by the time between the passes: a thread that has not run since is
 * in the same wait, whatever its times were read as; one whose count of
 * runs is unknown repeats where they differ from those by at most
 * REPEAT_SLACK_US (less at short intervals: the sampler reads each thread
 * a little after the pass's moment).
 */
void repeats__judge(struct repeats *rp, struct pass *p);

/* The most a repeat's time may be moved: 1 ms, and at most 1 % of the interval. */
#define REPEAT_SLACK_US 1000

#endif
