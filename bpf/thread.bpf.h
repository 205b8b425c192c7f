/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What tract tracks per thread.  Only what the kernel does not keep itself is
 * here; switch-in, queueing and switch-out times come from the task's own
 * sched_info and sched_entity at sampling time.
 */
#ifndef TRACT_THREAD_BPF_H
#define TRACT_THREAD_BPF_H

/*
 * Written on hot paths, so kept in a plain array indexed by a hash of the
 * tid: the verifier inlines the lookup, where a task-storage lookup is a
 * helper call several times dearer.  The tid tag tells a slot's owner; two
 * live threads that share a slot lose their syscall time and waker (NULL),
 * never get each other's.  Reused tids overwrite the slot on their first
 * syscall, so nothing needs cleaning at thread exit.
 */
struct tract_slot {
	__u32 tid;
	__u32 waker_tid;	/* the task that ran the latest wakeup */
	__u64 sc_entry;		/* rq clock at the latest sys_enter */
};

/* Sampler-only state, in task storage, freed by the kernel with the task. */
struct tract_thread {
	__u64 kstack_hash;	/* kernel stack taken while off CPU ... */
	__u64 kstack_switches;	/* ... when the task had made this many context switches */
};

_Static_assert(sizeof(struct tract_slot) == 16, "slots stay small: four to a cache line");

#endif
