/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pass counts its rows waiting for input or on a timer (input_rows) by
 * the class their wait's site had when they were sampled; the activity
 * column says what a wait was by what ended it, once it has.  So that the
 * headline stays the sum of the activity column, the recorder remembers
 * the stored rows of each open wait, and when the wait ends, the pass it
 * ends in counts the thread time its ender moves into input or sleep
 * (input_gained_us) and out of them (input_lost_us).
 */
#ifndef TRACT_ENDED_INPUTS_H
#define TRACT_ENDED_INPUTS_H

#include "sample.h"

struct ended_inputs;

struct ended_inputs *ended_inputs__new(void);
void ended_inputs__free(struct ended_inputs *e);
/*
 * p, stored: remembers its rows of open waits, then sets its
 * input_gained_us and input_lost_us from the waits that ended in it.
 */
void ended_inputs__take(struct ended_inputs *e, struct pass *p);

#endif
