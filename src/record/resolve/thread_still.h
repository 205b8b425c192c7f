/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether a thread has not run on since its user stack was copied, by the
 * count the copy carries (tract_ustack_copy.still, TRACT_STILL_*): what the
 * recorder reads of the thread afterwards (an interpreter's frames, from
 * its memory) is of the copy's moment only while that count has not moved.
 * A thread that ran on would have them name a later moment than its stack:
 * a burst of code copied as it ran, read once it is back asleep at its
 * sleep's line.
 */
#ifndef TRACT_THREAD_STILL_H
#define TRACT_THREAD_STILL_H

#include <stdint.h>

/* 1: still, as the copy's count says; 0: moved on, gone, or no count tells (proc laid out as /proc). */
int thread_still(const char *proc, uint32_t tgid, uint32_t tid, uint32_t still);

#endif
