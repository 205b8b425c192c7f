/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-thread tracking state, in task storage: the kernel frees it with the
 * task, so nothing needs cleaning up at thread exit.  Only what the kernel
 * does not keep itself is here; switch-in, queueing and switch-out times come
 * from the task's own sched_info and sched_entity at sampling time.
 */
#ifndef TRACT_THREAD_BPF_H
#define TRACT_THREAD_BPF_H

struct tract_thread {
	__u64 sc_entry;		/* rq clock at the latest sys_enter */
	__u64 kstack_hash;	/* kernel stack taken while off CPU ... */
	__u64 kstack_switches;	/* ... when the task had made this many context switches */
	__u32 waker_tid;	/* the task that ran the latest wakeup */
	__u32 pad;
};

_Static_assert(sizeof(struct tract_thread) <= 256, "per-thread storage must stay small");

#endif
