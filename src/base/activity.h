/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an active thread is doing, in words a load average can be held to:
 * on a CPU, queued for one, in uninterruptible sleep, waiting for a lock,
 * for something it asked for, or for input nobody may send.  It is the
 * query column "activity" (doc/tract.8, ACTIVITY).
 */
#ifndef TRACT_ACTIVITY_H
#define TRACT_ACTIVITY_H

#include <stdint.h>

/* A wait on input this old is taken for one nobody is about to end. */
#define ACTIVITY_INPUT_AFTER_US (10 * 1000000LL)

/* What activity_of() says, NULL-terminated: what a filter on activity takes. */
extern const char *const activity_names[];

/*
 * "cpu", "runq", "disk", "lock", "blocked", "waiting", "sleep", "input",
 * "idle" or "stopped", from a sample's state name, syscall name (NULL:
 * none), time in it and time in the state (< 0: unknown), file (NULL:
 * none), its second and third arguments, and its wait's class (enum
 * tract_wait_class, TRACT_WAIT_UNKNOWN where none is known).
 */
const char *activity_of(const char *state, const char *syscall, int64_t sc_us, int64_t state_us, const char *file,
			int64_t arg1, int64_t arg2, int wait_class);

#endif
