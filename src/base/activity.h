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

enum activity {
	ACTIVITY_NONE = -1,		/* no state: no activity */
	ACTIVITY_CPU,
	ACTIVITY_RUNQ,
	ACTIVITY_DISK,
	ACTIVITY_LOCK,
	ACTIVITY_BLOCKED,
	ACTIVITY_WAITING,
	ACTIVITY_SLEEP,
	ACTIVITY_INPUT,
	ACTIVITY_IDLE,
	ACTIVITY_STOPPED,
	ACTIVITY__COUNT
};

/* The names of enum activity, NULL-terminated: what a filter on activity takes. */
extern const char *const activity_names[];

/*
 * What a syscall and its arguments say of a wait in it, the same for every
 * sample of one call: a query works it out once for each of a file's calls.
 */
struct activity_call {
	uint8_t lock;		/* a contended futex lock, or a wait for a file lock */
	uint8_t idle;		/* one of the recorder's default idle waits */
	uint8_t input;		/* a read, receive, poll or accept: it waits for data */
	uint8_t timer;		/* nanosleep or clock_nanosleep: its timer ends it */
};

/* Of syscall nr (this build's numbering; -1: one it has no name for) with these second and third arguments. */
void activity_call_of(int nr, int64_t arg1, int64_t arg2, struct activity_call *c);

/* Whether a file is a terminal, whose reader waits for input whoever it is. */
int activity_file_is_terminal(const char *file);

/*
 * The activity of a sample: its state (enum tract_state; -1 for one
 * activity has no name for), its syscall's (NULL: in none), its time in
 * the syscall and in the state (< 0: unknown), whether its file is a
 * terminal, and its wait's class (enum tract_wait_class,
 * TRACT_WAIT_UNKNOWN where none is known).
 */
enum activity activity_classify(int state, const struct activity_call *call, int64_t sc_us, int64_t state_us,
				int terminal, int wait_class);

/*
 * The same from the names a store gives: a state's name (NULL: none), a
 * syscall's (NULL: none), its file (NULL: none); NULL for no state.
 */
const char *activity_of(const char *state, const char *syscall, int64_t sc_us, int64_t state_us, const char *file,
			int64_t arg1, int64_t arg2, int wait_class);

#endif
