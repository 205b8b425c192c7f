/* SPDX-License-Identifier: GPL-2.0-only */
/* How the kernel schedules the calling thread: its nice value and its slice. */
#ifndef TRACT_THREAD_SCHED_H
#define TRACT_THREAD_SCHED_H

#include <stdint.h>

/*
 * Sets the calling thread's nice value and, on kernels with EEVDF's custom
 * slices (6.12 on; older ones ignore it), the slice it asks for: 0 is the
 * kernel's default.  Returns 0, or -errno of the first step that failed;
 * a refused nice value does not stop the slice.
 */
int thread_sched_set(int nice, uint64_t slice_ns);
/*
 * Back to the nice value the process had before its first change and the
 * kernel's slice: for a thread the sampler's thread started after raising
 * its own, which it inherited.  Lowering a priority needs no privilege.
 */
int thread_sched_reset(void);

#endif
