// SPDX-License-Identifier: GPL-2.0-only
/* How the kernel schedules the calling thread: its nice value and its slice. */
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "thread_sched.h"

/* sched_setattr(2)'s argument, which glibc 2.36 does not declare (the UAPI header clashes with sched.h) */
struct thread_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

/* the nice value the calling thread had before the first change: the process's, as its user started it */
static int first_nice;
static int first_nice_read;

int thread_sched_set(int nice, uint64_t slice_ns)
{
	/* SCHED_OTHER; for it, sched_runtime is the slice */
	struct thread_sched_attr attr = { .size = sizeof(attr), .sched_nice = nice, .sched_runtime = slice_ns };
	int err = 0, was;

	if (!first_nice_read) {
		errno = 0;
		was = getpriority(PRIO_PROCESS, 0);
		first_nice = errno ? 0 : was;
		first_nice_read = 1;
	}

	/* on its own first: a kernel that refuses the slice still takes the nice value */
	if (setpriority(PRIO_PROCESS, 0, nice)) {
		err = -errno;
		/* and one that refuses the nice value (no CAP_SYS_NICE) may still grant the slice */
		errno = 0;
		attr.sched_nice = getpriority(PRIO_PROCESS, 0);
		if (errno)
			return err;
	}
	if (syscall(SYS_sched_setattr, 0, &attr, 0))
		return err ? err : -errno;
	return err;
}

int thread_sched_reset(void)
{
	return thread_sched_set(first_nice_read ? first_nice : 0, 0);
}
